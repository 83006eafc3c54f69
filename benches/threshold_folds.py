#!/usr/bin/env python3
"""What the folds of multi-label threshold tuning buy on Reuters-21578, and what they cost:
seeded 70/30 splits of the ModApte training documents (never its test part), `rosenblatt
train` with `--threshold-folds K` for each K (and `--thresholds default`, no folds) on the 70%,
`rosenblatt eval` on the 30%; micro- and macro-F1 as mean ± sd over the seeds, and the CPU
seconds of `train`. Tuning on K folds fits K more models on (K − 1)/K of the rows each: 10
folds cost 9 fits of the whole training part, 5 cost 4, 3 cost 2.

The documents are title + body as JSONL (so without the `title:` features `--format reuters`
adds); a test document keeps only the labels its training part has, and one left with none
is dropped.

Usage: benches/threshold_folds.py SGML-DIR [--bin BINARY] [--seeds 1,2,3,4,5] [--folds 10,5,3,2,0]
                                   [--train-options "OPTIONS"]
  --train-options  more `train` options for every run, e.g. "--pa-c 0.3"
Example: benches/threshold_folds.py ../shared/corpora/reuters21578/sgml
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from classify_classes import cpu_of, modapte  # noqa: E402


def write(path, docs):
    with open(path, "w") as out:
        for i, (labels, text) in enumerate(docs):
            out.write(json.dumps({"id": str(i), "labels": labels, "text": text}) + "\n")


def f1s(binary, model, test):
    """(micro-F1, macro-F1) that `eval` prints for `model` on `test`."""
    out = subprocess.run([binary, "eval", "-m", model, test], check=True, capture_output=True, text=True).stdout
    # "micro-F1  0.87" (not "micro-F1 top10 ...").
    figures = dict(line.split()[:2] for line in out.splitlines()
                   if line.startswith(("micro-F1 ", "macro-F1 ")) and line.split()[1][0].isdigit())
    return float(figures["micro-F1"]), float(figures["macro-F1"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sgml")
    ap.add_argument("--bin", default="target/release/rosenblatt")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--folds", default="10,5,3,2,0", help="0: --thresholds default")
    ap.add_argument("--train-options", default="", help="more train options for every run")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    folds = [int(f) for f in a.folds.split(",")]
    docs = modapte(a.sgml, ("TRAIN",))
    with_test = {t for topics, _ in modapte(a.sgml, ("TEST",)) for t in topics}
    docs = [(sorted(set(t) & with_test), text) for t, text in docs]
    docs = [d for d in docs if d[0]]
    print(f"{len(docs)} ModApte training documents, {len({t for d in docs for t in d[0]})} labels", file=sys.stderr)
    results = {f: [] for f in folds}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            order = list(range(len(docs)))
            random.Random(seed).shuffle(order)
            cut = len(order) * 7 // 10
            train = [docs[i] for i in order[:cut]]
            known = {t for d in train for t in d[0]}
            test = [(sorted(set(t) & known), text) for t, text in (docs[i] for i in order[cut:])]
            train_path, test_path = os.path.join(tmp, "train.jsonl"), os.path.join(tmp, "test.jsonl")
            write(train_path, train)
            write(test_path, [d for d in test if d[0]])
            for f in folds:
                model = os.path.join(tmp, f"m{f}")
                opts = ["--thresholds", "default"] if f == 0 else ["--threshold-folds", str(f)]
                cpu = cpu_of([a.bin, "train", train_path, "-o", model, *opts, *a.train_options.split()])
                micro, macro = f1s(a.bin, model, test_path)
                results[f].append((micro, macro, cpu))
                print(f"seed {seed} folds {f}: micro {micro:.4f} macro {macro:.4f} cpu {cpu:.2f} s", file=sys.stderr)
    print("| threshold folds | micro-F1 | macro-F1 | train CPU s |")
    print("|---|---|---|---|")
    for f in folds:
        col = list(zip(*results[f]))
        sd = (lambda v: statistics.stdev(v) if len(v) > 1 else 0.0)
        name = "none (`--thresholds default`)" if f == 0 else str(f)
        print(f"| {name} | {statistics.mean(col[0]):.4f} ± {sd(col[0]):.4f} | "
              f"{statistics.mean(col[1]):.4f} ± {sd(col[1]):.4f} | {statistics.mean(col[2]):.2f} |")


if __name__ == "__main__":
    main()
