"""rosenblatt vs scikit-learn, in one process, on two text corpora.

Measures end-to-end wall-clock time (vectorize + fit + predict; reading and parsing
the files is not timed), best of ``--repeat`` runs, and accuracy, side by side:

* Reuters-21578 ModApte, the 90 categories with a training and a test document (the
  corpus's PROVENANCE.txt and the command line's reader): the 7,770 training and 3,019
  test documents with at least one of them (LEWISSPLIT, TOPICS="YES"). Text = TITLE +
  BODY, labels = the <D> entries of <TOPICS> among the 90. Scored with micro- and
  macro-F1 over the 90 (zero_division=0).
  rosenblatt: Vectorizer() + PassiveAggressive() fitted on the 0/1 indicator matrix;
  scikit-learn: TfidfVectorizer() + OneVsRestClassifier(LinearSVC()).
* SpamAssassin public corpus (20030228, core + extra sets: 4150 ham, 1897 spam). Each
  raw message (headers included), decoded as UTF-8 with errors="replace", is one
  document. Stratified 80/20 train_test_split for seeds 1..5; accuracy is the mean over
  seeds, time the mean over seeds of each seed's best-of-N.
  rosenblatt: Vectorizer() + PassiveAggressive(); scikit-learn: TfidfVectorizer() + LinearSVC().

Run from the repository root:

    target/python-venv/bin/python bindings/python/benches/vs_sklearn.py [--corpora PATH] [--repeat N]

--corpora defaults to ../shared/corpora next to the repository (it must hold
reuters21578/sgml/reut2-*.sgm and spamassassin/{ham,spam,extra/...}); --repeat to 3.
"""

import argparse
import html
import os
import platform
import re
import sys
import time
from pathlib import Path

import numpy as np
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import MultiLabelBinarizer
from sklearn.svm import LinearSVC

import rosenblatt

REPO = Path(__file__).resolve().parents[3]
SEEDS = (1, 2, 3, 4, 5)

# ---------------------------------------------------------------- corpora


DOC = re.compile(r"<REUTERS([^>]*)>(.*?)</REUTERS>", re.S)
ATTR = re.compile(r'(\w+)="([^"]*)"')
TOPICS = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S)
D = re.compile(r"<D>(.*?)</D>", re.S)
TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)


def load_reuters(folder):
    """ModApte train/test lists of (text, topics) from the reut2-*.sgm files."""
    train, test = [], []
    files = sorted((folder / "sgml").glob("reut2-*.sgm"))
    if not files:
        sys.exit(f"error: no reut2-*.sgm files under {folder / 'sgml'}")
    for path in files:
        for attrs, inner in DOC.findall(path.read_text(encoding="latin-1")):
            attrs = dict(ATTR.findall(attrs))
            if attrs.get("TOPICS") != "YES":
                continue
            split = {"TRAIN": train, "TEST": test}.get(attrs.get("LEWISSPLIT"))
            if split is None:
                continue
            topics = TOPICS.search(inner)
            labels = D.findall(topics.group(1)) if topics else []
            parts = [m.group(1) for m in (TITLE.search(inner), BODY.search(inner)) if m]
            split.append((html.unescape("\n".join(parts)), labels))
    # The 90 categories with at least one training and one test document.
    cats = {l for _, ls in train for l in ls} & {l for _, ls in test for l in ls}
    keep = lambda docs: [(t, [l for l in ls if l in cats]) for t, ls in docs
                         if any(l in cats for l in ls)]
    return keep(train), keep(test)

def load_spamassassin(folder):
    """Raw messages and labels ("ham"/"spam") from every ham/ and spam/ folder."""
    texts, labels = [], []
    for kind in ("ham", "spam"):
        for sub in (folder / kind, folder / "extra" / kind):
            for path in sorted(p for p in sub.rglob("*") if p.is_file()):
                texts.append(path.read_bytes().decode("utf-8", errors="replace"))
                labels.append(kind)
    if not texts:
        sys.exit(f"error: no messages under {folder}/{{ham,spam}}")
    return texts, np.array(labels)


# ---------------------------------------------------------------- pipelines


def run_rosenblatt(train_x, train_y, test_x):
    vec = rosenblatt.Vectorizer()
    clf = rosenblatt.PassiveAggressive().fit(vec.fit_transform(train_x), train_y)
    return clf.predict(vec.transform(test_x))


def run_sklearn(train_x, train_y, test_x, multilabel=False):
    vec = TfidfVectorizer()
    clf = OneVsRestClassifier(LinearSVC()) if multilabel else LinearSVC()
    clf.fit(vec.fit_transform(train_x), train_y)
    return clf.predict(vec.transform(test_x))


def best_of(repeat, fn, *args, **kwargs):
    """(best wall-clock seconds, result of the last run)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best, out


# ---------------------------------------------------------------- benchmarks


def bench_reuters(folder, repeat):
    train, test = load_reuters(folder)
    mlb = MultiLabelBinarizer().fit([labels for _, labels in train])
    train_x, test_x = [t for t, _ in train], [t for t, _ in test]
    y_train = mlb.transform([labels for _, labels in train])
    y_test = mlb.transform([labels for _, labels in test])
    print(f"reuters: {len(train)} train / {len(test)} test docs, {len(mlb.classes_)} "
          f"categories", file=sys.stderr)
    rows = {}
    for name, fn, kw in (("rosenblatt", run_rosenblatt, {}),
                         ("scikit-learn", run_sklearn, {"multilabel": True})):
        secs, pred = best_of(repeat, fn, train_x, y_train, test_x, **kw)
        pred = np.asarray(pred.toarray() if hasattr(pred, "toarray") else pred).astype(int)
        rows[name] = {
            "time (s)": secs,
            "micro-F1": f1_score(y_test, pred, average="micro", zero_division=0),
            "macro-F1": f1_score(y_test, pred, average="macro", zero_division=0),
        }
        print(f"  {name}: {rows[name]}", file=sys.stderr)
    return rows


def bench_spamassassin(folder, repeat):
    texts, y = load_spamassassin(folder)
    print(f"spamassassin: {len(texts)} messages ({(y == 'spam').sum()} spam)", file=sys.stderr)
    times = {"rosenblatt": [], "scikit-learn": []}
    accs = {"rosenblatt": [], "scikit-learn": []}
    for seed in SEEDS:
        tr_x, te_x, tr_y, te_y = train_test_split(
            texts, y, test_size=0.2, random_state=seed, stratify=y)
        for name, fn in (("rosenblatt", run_rosenblatt), ("scikit-learn", run_sklearn)):
            secs, pred = best_of(repeat, fn, tr_x, tr_y, te_x)
            times[name].append(secs)
            accs[name].append(accuracy_score(te_y, pred))
        print(f"  seed {seed}: " + ", ".join(
            f"{n} {accs[n][-1]:.4f} in {times[n][-1]:.2f}s" for n in times), file=sys.stderr)
    return {n: {"time (s)": float(np.mean(times[n])),
                "accuracy (mean of 5 seeds)": float(np.mean(accs[n])),
                "accuracy (min..max)": f"{min(accs[n]):.4f}..{max(accs[n]):.4f}"}
            for n in times}


# ---------------------------------------------------------------- report


def table(title, rows):
    r, s = rows["rosenblatt"], rows["scikit-learn"]
    fmt = lambda v: f"{v:.3f}" if isinstance(v, float) and v >= 1 else (
        f"{v:.4f}" if isinstance(v, float) else str(v))
    out = [f"### {title}", "", "| metric | rosenblatt | scikit-learn |", "|---|---:|---:|"]
    out += [f"| {k} | {fmt(r[k])} | {fmt(s[k])} |" for k in r]
    out.append(f"| speed ratio (sklearn / rosenblatt) | {s['time (s)'] / r['time (s)']:.2f}x | |")
    return "\n".join(out + [""])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpora", type=Path, default=REPO.parent / "shared" / "corpora",
                    help="folder holding reuters21578/ and spamassassin/")
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing; the best counts")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    corpora = args.corpora.resolve()
    if not corpora.is_dir():
        print(f"error: corpora folder not found: {corpora} (pass --corpora PATH)", file=sys.stderr)
        sys.exit(2)
    for sub in ("reuters21578", "spamassassin"):
        if not (corpora / sub).is_dir():
            print(f"error: {corpora / sub} is missing", file=sys.stderr)
            sys.exit(2)

    reuters = bench_reuters(corpora / "reuters21578", args.repeat)
    spam = bench_spamassassin(corpora / "spamassassin", args.repeat)

    print(f"## rosenblatt vs scikit-learn (time = vectorize + fit + predict, "
          f"best of {args.repeat})\n")
    print(f"rosenblatt {rosenblatt.__version__}, scikit-learn {sklearn.__version__}, "
          f"numpy {np.__version__}, Python {platform.python_version()}, "
          f"os.cpu_count() = {os.cpu_count()}\n")
    print(table("Reuters-21578 ModApte (multi-label; Vectorizer + PassiveAggressive "
                "vs TfidfVectorizer + OneVsRest(LinearSVC))", reuters))
    print(table("SpamAssassin (5 stratified 80/20 splits, time per split; Vectorizer + "
                "PassiveAggressive vs TfidfVectorizer + LinearSVC)", spam))


if __name__ == "__main__":
    main()
