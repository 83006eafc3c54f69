#!/usr/bin/env python3
"""Accuracy on R8 and R52 (the single-label subsets of Reuters-21578 ModApte) of rosenblatt
option sets against scikit-learn's sublinear tf-idf LinearSVC, on the very same splits: the
ModApte split itself, and seeded stratified re-splits of its documents with the same test
fraction (seeds 1..N), so a default can be chosen on evidence beyond one test split.

R52: documents with exactly one topic, of the 52 topics that have both a training and a
test document (6,532 / 2,568); R8: those of acq, crude, earn, grain, interest, money-fx,
ship and trade (5,485 / 2,189). Text is the title and the body, as benches/classify_classes.py
reads them.

Usage: benches/r8_r52.py SGML-DIR [--bin BINARY] [--seeds N] [--corpus r8|r52]...
                         [--set "OPTIONS"]... [--no-peers] [--python PEERS-PYTHON]
                         [--peer "C MULTI-CLASS"]...
  --set      rosenblatt `train` options of one row ("" is the defaults; repeatable)
  --peer     a LinearSVC row of its own: C and multi_class ("1 ovr" is the default row;
             e.g. "3 crammer_singer"; repeatable)
  --python   the python with scikit-learn (../shared/tools/peers/setup.sh prints it)
Example: benches/r8_r52.py ../shared/corpora/reuters21578/sgml --set "" \
           --set "--term-counts sublinear" --python ~/.cache/peers-venv/bin/python
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from classify_classes import flag_values, modapte  # noqa: E402

R8 = {"acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade"}

SKLEARN = r"""
import json, sys
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.svm import LinearSVC
def read(p):
    rows = [json.loads(l) for l in open(p, encoding="utf-8")]
    return [r["text"] for r in rows], [r["label"] for r in rows]
(xt, yt), (xs, ys) = read(sys.argv[1]), read(sys.argv[2])
v = TfidfVectorizer(sublinear_tf=True)
m = LinearSVC(C=float(sys.argv[3]), multi_class=sys.argv[4]).fit(v.fit_transform(xt), yt)
p = m.predict(v.transform(xs))
print(sum(a == b for a, b in zip(p, ys)) / len(ys))
"""


def corpus(sgml, name):
    """(train, test) lists of (label, text) of R8 or R52 on the ModApte split."""
    train = [(t[0], x) for t, x in modapte(sgml, ("TRAIN",)) if len(t) == 1]
    test = [(t[0], x) for t, x in modapte(sgml, ("TEST",)) if len(t) == 1]
    keep = {l for l, _ in train} & {l for l, _ in test}
    if name == "r8":
        keep &= R8
    return [d for d in train if d[0] in keep], [d for d in test if d[0] in keep]


def resplit(train, test, seed):
    """A stratified split of all the documents with the ModApte test fraction, seeded:
    each topic's documents shuffled, the same fraction of each to the test part (at least
    one document stays in training)."""
    import random

    rng = random.Random(seed)
    frac = len(test) / (len(train) + len(test))
    by = {}
    for d in train + test:
        by.setdefault(d[0], []).append(d)
    tr, te = [], []
    for label in sorted(by):
        docs = by[label]
        rng.shuffle(docs)
        k = min(round(len(docs) * frac), len(docs) - 1)
        te += docs[:k]
        tr += docs[k:]
    rng.shuffle(tr)
    return tr, te


def write(path, docs):
    with open(path, "w", encoding="utf-8") as f:
        for i, (label, text) in enumerate(docs):
            f.write(json.dumps({"id": str(i), "label": label, "text": text}) + "\n")


def rosenblatt(binary, options, train, test, work):
    """Test accuracy of `train OPTIONS` on train.jsonl, classified on test.jsonl."""
    model = os.path.join(work, "model.bin")
    subprocess.run(
        [binary, "train", "--format", "jsonl", *options.split(), "-o", model, "--quiet", train],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    out = subprocess.run(
        [binary, "classify", "-m", model, "--input-format", "jsonl", test],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    truth = [json.loads(l)["label"] for l in open(test, encoding="utf-8")]
    given = [l.split("\t")[1] for l in out]
    assert len(given) == len(truth)
    return sum(a == b for a, b in zip(given, truth)) / len(truth)


def main():
    args = sys.argv[1:]

    def take(flag, default=None, many=False):
        return flag_values(args, flag, default, many)

    binary = take("--bin", "target/release/rosenblatt")
    seeds = int(take("--seeds", "5"))
    corpora = take("--corpus", many=True) or ["r8", "r52"]
    sets = take("--set", many=True) or ["", "--term-counts sublinear"]
    python = take("--python")
    peer_rows = take("--peer", many=True) or ["1 ovr"]
    peers = "--no-peers" not in args and python
    args = [a for a in args if a != "--no-peers"]
    if len(args) != 1:
        sys.exit(__doc__)
    sgml = args[0]
    for name in corpora:
        train, test = corpus(sgml, name)
        print(f"{name}: {len(train)} training, {len(test)} test documents, "
              f"{len({l for l, _ in train})} topics", flush=True)
        splits = [("ModApte", train, test)] + [
            (f"seed {s}", *resplit(train, test, s)) for s in range(1, seeds + 1)
        ]
        rows = {o: [] for o in sets}
        peer_name = {p: "sklearn sublinear tf-idf LinearSVC" + ("" if p == "1 ovr" else f" C={p.split()[0]} {p.split()[1]}")
                     for p in peer_rows}
        sk = peer_name[peer_rows[0]]
        for p in peer_rows:
            rows[peer_name[p]] = []
        with tempfile.TemporaryDirectory() as work:
            tr, te = os.path.join(work, "train.jsonl"), os.path.join(work, "test.jsonl")
            for split, a, b in splits:
                write(tr, a)
                write(te, b)
                line = [split]
                for o in sets:
                    acc = rosenblatt(binary, o, tr, te, work)
                    rows[o].append(acc)
                    line.append(f"{o or 'defaults'} {acc:.4f}")
                for p in peer_rows if peers else []:
                    out = subprocess.run([python, "-c", SKLEARN, tr, te, *p.split()], check=True,
                                         capture_output=True, text=True).stdout
                    acc = float(out.strip())
                    rows[peer_name[p]].append(acc)
                    line.append(f"sklearn {p} {acc:.4f}")
                print("  " + " | ".join(line), flush=True)
        for o, accs in rows.items():
            if not accs:
                continue
            seeded = accs[1:]
            sd = statistics.stdev(seeded) if len(seeded) > 1 else 0.0
            mean = statistics.mean(seeded) if seeded else float("nan")
            print(f"  {name} {o or 'defaults'}: ModApte {accs[0]:.4f}; seeds "
                  f"{mean:.4f} ± {sd:.4f}; wins over {sk} "
                  f"{sum(a >= s for a, s in zip(accs, rows[sk]))}/{len(rows[sk])}", flush=True)


if __name__ == "__main__":
    main()
