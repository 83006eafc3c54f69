#!/usr/bin/env python3
"""Class probabilities on R8 and R52: the multi-class log loss, the expected calibration
error (10 bins of confidence, as `rosenblatt eval` reports it) and the accuracy of
rosenblatt's one-vs-rest models calibrated per class (`train --calibrate`) and of its
softmax regression, beside scikit-learn's `LogisticRegression` and
`CalibratedClassifierCV(LinearSVC)` on the same train/test split; and what
`--calibrate` costs in training time.

R8 and R52 are the single-label subsets of Reuters-21578's ModApte split: the documents
with exactly one topic; R52 keeps the topics that have both a training and a test
document, R8 the eight largest (acq, crude, earn, grain, interest, money-fx, ship,
trade). A document is its title and body, as `--format reuters` reads them.

scikit-learn reads the same text through `TfidfVectorizer` with words as rosenblatt's
default analyzer makes them where a regular expression can (lowercased runs of word
characters; rosenblatt splits words by Unicode's rules, UAX #29), binary counts, idf and
unit-length rows, fitted on the training split. `CalibratedClassifierCV` is given its five
stratified folds as a list of splits: R52 has topics of a single training document, for
which its `cv=5` refuses to run.

Usage: benches/r52_calibration.py SGML-DIR [--bin BINARY] [--peers PYTHON] [--sets R8,R52]
  SGML-DIR  the folder of reut2-*.sgm files
  BINARY    the rosenblatt binary (default: target/release/rosenblatt)
  PYTHON    a python with scikit-learn (default: the one running this; the peers'
            python is what ../shared/tools/peers/setup.sh prints)
Example: benches/r52_calibration.py ../shared/corpora/reuters21578/sgml \\
             --peers "$(bash ../shared/tools/peers/setup.sh)"
"""
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from classify_classes import modapte  # noqa: E402

R8 = {"acq", "crude", "earn", "grain", "interest", "money-fx", "ship", "trade"}

PEERS = r'''
import json, sys, time
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from sklearn.calibration import CalibratedClassifierCV
from sklearn.model_selection import StratifiedKFold
from sklearn.metrics import log_loss, accuracy_score

def read(path):
    rows = [json.loads(l) for l in open(path)]
    return [r["text"] for r in rows], [r["label"] for r in rows]

def ece(p, truth, bins=10):
    best = p.argmax(axis=1)
    conf = p[np.arange(len(p)), best]
    b = np.minimum((conf * bins).astype(int), bins - 1)
    right = (best == truth).astype(float)
    return sum(abs(right[b == i].sum() - conf[b == i].sum()) for i in range(bins)) / len(p)

train_text, train_y = read(sys.argv[1])
test_text, test_y = read(sys.argv[2])
vec = TfidfVectorizer(lowercase=True, token_pattern=r"(?u)\b\w+\b", binary=True)
xtr, xte = vec.fit_transform(train_text), vec.transform(test_text)
classes = sorted(set(train_y))
ytr = np.array([classes.index(c) for c in train_y])
yte = np.array([classes.index(c) for c in test_y])
folds = list(StratifiedKFold(5, shuffle=True, random_state=42).split(xtr, ytr))
models = {
    "scikit-learn LogisticRegression (C=1)": LogisticRegression(max_iter=1000),
    "scikit-learn LogisticRegression (C=10)": LogisticRegression(C=10, max_iter=1000),
    "scikit-learn CalibratedClassifierCV(LinearSVC), sigmoid, 5 folds": CalibratedClassifierCV(LinearSVC(), cv=folds),
}
for name, m in models.items():
    t = time.time()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(xtr, ytr)
    secs = time.time() - t
    p = m.predict_proba(xte)
    print(json.dumps({"name": name, "log_loss": log_loss(yte, p, labels=range(len(classes))),
                      "ece": ece(p, yte), "accuracy": accuracy_score(yte, p.argmax(axis=1)),
                      "seconds": secs}))
'''


def subsets(sgml):
    """{"R8": (train, test), "R52": (train, test)}: lists of (label, text)."""
    train = [(t[0], x) for t, x in modapte(sgml, ("TRAIN",)) if len(t) == 1]
    test = [(t[0], x) for t, x in modapte(sgml, ("TEST",)) if len(t) == 1]
    both = {c for c, _ in train} & {c for c, _ in test}
    keep = lambda docs, s: [d for d in docs if d[0] in s]  # noqa: E731
    return {"R8": (keep(train, R8), keep(test, R8)), "R52": (keep(train, both), keep(test, both))}


def write(path, docs):
    with open(path, "w") as out:
        for label, text in docs:
            out.write(json.dumps({"label": label, "text": text}) + "\n")


def rosenblatt(binary, train, test, tmp, name, flags):
    """Trains with `flags`, evaluates on `test`: the eval JSON and the training seconds."""
    model = os.path.join(tmp, "m")
    t = time.time()
    subprocess.run([binary, "train", train, "-o", model, "--quiet", *flags], check=True, stdout=subprocess.DEVNULL)
    secs = time.time() - t
    out = subprocess.run([binary, "eval", "-m", model, test, "--json"], check=True, capture_output=True, text=True).stdout
    e = json.loads(out)
    return {"name": name, "log_loss": e.get("log_loss"), "ece": e.get("ece"), "accuracy": e["accuracy"], "seconds": secs}


def main():
    args = sys.argv[1:]
    opts = {"--bin": "target/release/rosenblatt", "--peers": sys.executable, "--sets": "R8,R52"}
    for k in list(opts):
        if k in args:
            i = args.index(k)
            opts[k] = args[i + 1]
            del args[i : i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    sets = subsets(args[0])
    with tempfile.TemporaryDirectory() as tmp:
        for name in opts["--sets"].split(","):
            train_docs, test_docs = sets[name]
            train, test = os.path.join(tmp, "train.jsonl"), os.path.join(tmp, "test.jsonl")
            write(train, train_docs)
            write(test, test_docs)
            sizes = collections.Counter(c for c, _ in train_docs)
            print(f"\n{name}: {len(sizes)} classes, {len(train_docs)} training and {len(test_docs)} test documents "
                  f"(smallest class: {min(sizes.values())} training documents)\n")
            print("| model | log loss | ECE (10 bins) | accuracy | training s |")
            print("|---|---|---|---|---|")
            b = opts["--bin"]
            rows = [
                rosenblatt(b, train, test, tmp, "rosenblatt pa (default), no calibration", []),
                rosenblatt(b, train, test, tmp, "rosenblatt pa (default) --calibrate", ["--calibrate"]),
                rosenblatt(b, train, test, tmp, "rosenblatt averaged-perceptron --calibrate", ["--learner", "averaged-perceptron", "--calibrate"]),
                rosenblatt(b, train, test, tmp, "rosenblatt softmax", ["--learner", "softmax"]),
            ]
            peers = subprocess.run([opts["--peers"], "-c", PEERS, train, test], check=True, capture_output=True, text=True).stdout
            rows += [json.loads(l) for l in peers.splitlines() if l.strip()]
            for r in rows:
                num = lambda v: "—" if v is None else f"{v:.4f}"  # noqa: E731
                print(f"| {r['name']} | {num(r['log_loss'])} | {num(r['ece'])} | {r['accuracy']:.4f} | {r['seconds']:.1f} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
