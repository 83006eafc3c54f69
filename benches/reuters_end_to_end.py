#!/usr/bin/env python3
"""Reuters-21578 ModApte end to end, rosenblatt beside scikit-learn, CPU seconds in one run:
from the raw SGML to a fitted model, then micro- and macro-F1 on the test part.

- rosenblatt: `train SGML --format reuters --split train` with its defaults (90 topics,
  one model per topic, per-topic thresholds from out-of-fold scores), CPU of the process
  (user + system); then `eval --json` on `--split test` (not timed).
- scikit-learn: reading the SGML (the same regular expressions as `classify_classes.py`),
  `TfidfVectorizer(sublinear_tf=True)` and `OneVsRestClassifier(LinearSVC())` on the
  training part, CPU of this process over the three (one thread); F1 over the topics of the
  training part, as rosenblatt's eval counts them.

Runs alternate between the two tools, `--runs` times; the table gives each run's figures
and the ratio of the medians.

Usage: benches/reuters_end_to_end.py SGML-DIR [--bin BINARY] [--runs 3] [--train-options "..."]
  (scikit-learn from the peers' Python: `bash ../shared/tools/peers/setup.sh` prints it)
Example: $(bash ../shared/tools/peers/setup.sh) benches/reuters_end_to_end.py \\
             ../shared/corpora/reuters21578/sgml
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from classify_classes import cpu_of, modapte  # noqa: E402


def rosenblatt_run(binary, sgml, options, tmp):
    """(CPU seconds of train, micro-F1, macro-F1)."""
    model = os.path.join(tmp, "reuters.model")
    cmd = [binary, "train", sgml, "--format", "reuters", "--split", "train", "-o", model, *options]
    cpu = cpu_of(cmd)
    out = subprocess.run(
        [binary, "eval", "-m", model, sgml, "--format", "reuters", "--split", "test", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    d = json.loads(out)
    return cpu, d["micro_f1"], d["macro_f1"]


def sklearn_run(sgml):
    """(CPU seconds from reading to a fitted model, micro-F1, macro-F1)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics import f1_score
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.preprocessing import MultiLabelBinarizer
    from sklearn.svm import LinearSVC

    start = time.process_time()
    train = modapte(sgml, ("TRAIN",))
    vec = TfidfVectorizer(sublinear_tf=True)
    x = vec.fit_transform([t for _, t in train])
    mlb = MultiLabelBinarizer()
    y = mlb.fit_transform([topics for topics, _ in train])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = OneVsRestClassifier(LinearSVC()).fit(x, y)
    cpu = time.process_time() - start
    test = modapte(sgml, ("TEST",))
    known = set(mlb.classes_)
    yt = mlb.transform([[t for t in topics if t in known] for topics, _ in test])
    pred = clf.predict(vec.transform([t for _, t in test]))
    return (
        cpu,
        f1_score(yt, pred, average="micro", zero_division=0),
        f1_score(yt, pred, average="macro", zero_division=0),
    )


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sgml")
    p.add_argument("--bin", default="target/release/rosenblatt")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--train-options", default="")
    a = p.parse_args()
    r, s = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.runs):
            r.append(rosenblatt_run(a.bin, a.sgml, a.train_options.split(), tmp))
            s.append(sklearn_run(a.sgml))
    print("| run | rosenblatt CPU s | micro / macro-F1 | scikit-learn CPU s | micro / macro-F1 | ratio |")
    print("|---|---|---|---|---|---|")
    for i, (x, y) in enumerate(zip(r, s), 1):
        print(f"| {i} | {x[0]:.2f} | {x[1]:.4f} / {x[2]:.4f} | {y[0]:.2f} | {y[1]:.4f} / {y[2]:.4f} | {y[0] / x[0]:.2f}× |")
    mr, ms = statistics.median(x[0] for x in r), statistics.median(y[0] for y in s)
    print(f"median CPU: rosenblatt {mr:.2f} s, scikit-learn {ms:.2f} s: rosenblatt takes {mr / ms:.2f} of scikit-learn's CPU")


if __name__ == "__main__":
    main()
