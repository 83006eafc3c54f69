#!/usr/bin/env python3
"""Accuracy on opinion text beside scikit-learn, on the very same folds: the five sentiment
corpora of ../shared/corpora/sentiment/ (Wang and Manning 2012's), seeded ten-fold
cross-validation, and the published figures printed beside.

Each corpus's documents (class folders, one document a file; Windows-1252 files read as
such) are put in one seeded random order; fold f tests on positions f, f+10, f+20, ... and
trains on the rest. Every method sees the same training and test documents of every fold:
  rosenblatt ...      `rosenblatt train TRAIN.tsv -o M [OPTIONS]`, then `rosenblatt eval -m M
                      TEST.tsv` (its accuracy line), for each option set of --options
  sklearn SVM-uni/bi  CountVectorizer(binary=True, ngram_range (1,1) or (1,2)) + LinearSVC()
  sklearn MNB-bi      the same bigram rows + MultinomialNB()
  sklearn NBSVM-bi    the bigram rows scaled by the naive-Bayes log-count ratio (alpha 1),
                      LinearSVC(), its weights interpolated toward their mean magnitude
                      (beta 0.25), as Wang and Manning describe it; "beta 1": the same
                      without the interpolation (the SVM on the scaled rows)
Accuracy in % per fold; the table gives mean ± sd over the ten folds, the worst fold, and
each method's seconds for the ten folds (training and testing; rosenblatt's include
starting the program twice a fold).

Usage: benches/sentiment.py [--seed N] [--corpora rt-s,rt-2k,...] [--bin PATH]
                            [--options "OPTS;OPTS"] [--python PY | --no-peers] [--json FILE]
  --python   a Python with scikit-learn (default: this one if it has it, else
             ~/.cache/peers-venv/bin/python; ../shared/tools/peers/setup.sh installs one)
  --no-peers rosenblatt's option sets only (scikit-learn's folds of a seed do not change)
  --options  rosenblatt option sets, separated by ";" ["" (defaults);
             "--ngrams 2 --weighting nb --min-df 1"]
Example: python3 benches/sentiment.py --seed 1 --json sentiment-seed1.json
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPORA = os.path.join(ROOT, "..", "shared", "corpora", "sentiment")
PUBLISHED = {  # Wang and Manning (2012), the authors' release's table
    "rt-s": {"MNB-bi": 79.03, "SVM-uni": 76.23, "SVM-bi": 77.72, "NBSVM-bi": 79.38},
    "rt-2k": {"MNB-bi": 85.85, "SVM-uni": 86.25, "SVM-bi": 87.40, "NBSVM-bi": 89.45},
    "subj": {"MNB-bi": 93.56, "SVM-uni": 90.84, "SVM-bi": 91.74, "NBSVM-bi": 93.18},
    "cr": {"MNB-bi": 79.97, "SVM-uni": 79.02, "SVM-bi": 80.85, "NBSVM-bi": 81.75},
    "mpqa": {"MNB-bi": 86.27, "SVM-uni": 86.15, "SVM-bi": 86.72, "NBSVM-bi": 86.32},
}
FOLDS = 10


def read_corpus(folder):
    """(label, text) of every document, classes in sorted order, files in sorted order."""
    docs = []
    for cls in sorted(os.listdir(folder)):
        d = os.path.join(folder, cls)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            raw = open(os.path.join(d, name), "rb").read()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("cp1252", "replace")
            text = " ".join(text.split())
            if text:
                docs.append((cls, text))
    return docs


def folds(n, seed):
    """Ten (train, test) index lists: a seeded order, fold f testing every tenth position."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return [(sorted(i for k, i in enumerate(order) if k % FOLDS != f),
             sorted(i for k, i in enumerate(order) if k % FOLDS == f)) for f in range(FOLDS)]


def write_tsv(path, docs, idx):
    with open(path, "w", encoding="utf-8") as f:
        for i in idx:
            f.write(f"{docs[i][0]}\t{docs[i][1]}\n")


def rosenblatt_fold(binary, options, work, docs, train, test):
    tr, te, model = (os.path.join(work, n) for n in ("train.tsv", "test.tsv", "m.model"))
    write_tsv(tr, docs, train)
    write_tsv(te, docs, test)
    t0 = time.monotonic()
    subprocess.run([binary, "train", tr, "-o", model] + options.split(), check=True,
                   stdout=subprocess.DEVNULL)
    out = subprocess.run([binary, "eval", "-m", model, te], check=True, capture_output=True,
                         text=True).stdout
    took = time.monotonic() - t0
    acc = float(re.search(r"^accuracy\s+([0-9.]+)", out, re.M).group(1))
    return 100 * acc, took


SKLEARN_WORKER = r'''
import json, sys, time
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.svm import LinearSVC
from sklearn.naive_bayes import MultinomialNB
job = json.load(sys.stdin)
docs, out = job["docs"], {}
labels = np.array([d[0] for d in docs])
classes = sorted(set(labels))
y = (labels == classes[-1]).astype(int)
texts = [d[1] for d in docs]
for f, (train, test) in enumerate(job["folds"]):
    for name, ngrams in (("SVM-uni", (1, 1)), ("SVM-bi", (1, 2)), ("MNB-bi", (1, 2)), ("NBSVM-bi", (1, 2)),
                         ("NBSVM-bi beta 1", (1, 2))):
        t0 = time.monotonic()
        v = CountVectorizer(binary=True, ngram_range=ngrams)
        Xtr = v.fit_transform([texts[i] for i in train]).astype(np.float64)
        Xte = v.transform([texts[i] for i in test]).astype(np.float64)
        ytr, yte = y[train], y[test]
        if name == "MNB-bi":
            pred = MultinomialNB().fit(Xtr, ytr).predict(Xte)
        elif name.startswith("NBSVM-bi"):
            p = 1.0 + np.asarray(Xtr[ytr == 1].sum(axis=0)).ravel()
            q = 1.0 + np.asarray(Xtr[ytr == 0].sum(axis=0)).ravel()
            r = np.log((p / p.sum()) / (q / q.sum()))
            svm = LinearSVC().fit(Xtr.multiply(r).tocsr(), ytr)
            w = svm.coef_.ravel()
            beta = 1.0 if name.endswith("beta 1") else 0.25
            w = (1 - beta) * np.abs(w).mean() + beta * w
            pred = (Xte.multiply(r).tocsr() @ w + svm.intercept_[0] > 0).astype(int)
        else:
            pred = LinearSVC().fit(Xtr, ytr).predict(Xte)
        out.setdefault(name, []).append([100.0 * float((pred == yte).mean()), time.monotonic() - t0])
print(json.dumps(out))
'''


def find_python(given):
    if given:
        return given
    try:
        import sklearn  # noqa: F401
        return sys.executable
    except ImportError:
        venv = os.path.expanduser("~/.cache/peers-venv/bin/python")
        return venv if os.path.exists(venv) else None


def summary(runs):
    accs = [a for a, _ in runs]
    return {"mean": statistics.mean(accs), "sd": statistics.stdev(accs), "worst": min(accs),
            "seconds": sum(t for _, t in runs), "folds": accs}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpora", default="rt-s,rt-2k,subj,cr,mpqa")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "rosenblatt"))
    ap.add_argument("--options", default=";--ngrams 2 --weighting nb --min-df 1")
    ap.add_argument("--python")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    corpora = [c.strip() for c in args.corpora.split(",") if c.strip()]
    option_sets = [o.strip() for o in args.options.split(";")]
    py = None if args.no_peers else find_python(args.python)
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for c in corpora:
            docs = read_corpus(os.path.join(CORPORA, c))
            fs = folds(len(docs), args.seed)
            res = results[c] = {}
            for opt in option_sets:
                runs = [rosenblatt_fold(args.bin, opt, work, docs, tr, te) for tr, te in fs]
                res["rosenblatt " + (opt or "defaults")] = summary(runs)
                print(f"{c}: rosenblatt {opt or 'defaults'}: {res['rosenblatt ' + (opt or 'defaults')]['mean']:.2f}",
                      file=sys.stderr)
            if py:
                job = json.dumps({"docs": docs, "folds": fs})
                out = subprocess.run([py, "-c", SKLEARN_WORKER], input=job, capture_output=True,
                                     text=True, check=True).stdout
                for name, runs in json.loads(out).items():
                    res["sklearn " + name] = summary(runs)
                print(f"{c}: scikit-learn done", file=sys.stderr)
    methods = list(next(iter(results.values())))
    head = "| method | " + " | ".join(corpora) + " | mean | worst fold | seconds |"
    print(head)
    print("|---" * (len(corpora) + 4) + "|")
    for m in methods:
        cells = [f"{results[c][m]['mean']:.2f} ± {results[c][m]['sd']:.2f}" for c in corpora]
        mean = statistics.mean(results[c][m]["mean"] for c in corpora)
        worst = min(results[c][m]["worst"] for c in corpora)
        secs = sum(results[c][m]["seconds"] for c in corpora)
        print(f"| {m} | " + " | ".join(cells) + f" | {mean:.2f} | {worst:.2f} | {secs:.1f} |")
    for name in ("SVM-uni", "SVM-bi", "MNB-bi", "NBSVM-bi"):
        vals = [PUBLISHED[c][name] for c in corpora]
        print(f"| published {name} | " + " | ".join(f"{v:.2f}" for v in vals)
              + f" | {statistics.mean(vals):.2f} | – | – |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
