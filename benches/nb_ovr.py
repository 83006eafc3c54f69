#!/usr/bin/env python3
"""Would naive-Bayes ratios computed per class pay on one-vs-rest topic text? Measured with
scikit-learn on Reuters-21578 ModApte (the 90 topics with a train and a test document; the
documents with one of them): one binary LinearSVC(C=1) per class on CountVectorizer(binary)
rows (min_df 2 over the train part), L2-normalized, with
  A  binary rows;
  B  class c's rows scaled by class c's log-count ratio r_c (alpha 1), as NBSVM scales them;
  C  the same scaled by |r_c| (the sign does not matter to an L2-regularized SVM);
  D  tf-idf rows (the closest to the project's default geometry);
each deciding at score 0, and with "+cv" at per-class thresholds chosen on 5-fold
out-of-fold scores of the train part (the F1-best cut per class; 0 for classes with fewer
than 2 positives in a fold's training part). Prints micro-/macro-F1 on the test part.

Usage: benches/nb_ovr.py SGML-DIR [OUT.md] [METHODS]
  METHODS  comma-separated, default A,B,C,D,A+cv,B+cv,D+cv
Example: python3 benches/nb_ovr.py ../shared/corpora/reuters21578/sgml nb_ovr.md
(a Python with scikit-learn: ../shared/tools/peers/setup.sh prints one)
"""
import html
import os
import re
import sys
import time

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer
from sklearn.metrics import f1_score, precision_score, recall_score
from sklearn.model_selection import KFold
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVC


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from classify_classes import modapte  # noqa: E402


ALPHA = 1.0
C = 1.0


def svc():
    return LinearSVC(C=C)


def nb_ratio(Xb, y):
    """r = log((p/|p|_1)/(q/|q|_1)), p = alpha + sum of positive rows, q = alpha + sum of negative rows."""
    pos = np.asarray(Xb[y == 1].sum(axis=0)).ravel() + ALPHA
    neg = np.asarray(Xb[y == 0].sum(axis=0)).ravel() + ALPHA
    return np.log((pos / pos.sum()) / (neg / neg.sum()))


def scale(Xb, w):
    return normalize(Xb.multiply(w).tocsr())


# --- feature builders: given (binary train rows, binary eval rows, label column y) -> (train matrix, eval matrix)
# Class-independent builders are computed once per (train, eval) split and cached by the caller.
def feats_plain(Xtr, Xev):
    return normalize(Xtr), normalize(Xev)


def feats_tfidf(Xtr, Xev):
    t = TfidfTransformer(use_idf=True, norm="l2", sublinear_tf=False).fit(Xtr)
    return t.transform(Xtr), t.transform(Xev)


def fit_scores(kind, Xtr, Ytr, Xev, shared=None):
    """Decision scores (n_eval x n_classes) of one binary LinearSVC per class."""
    n_cls = Ytr.shape[1]
    S = np.zeros((Xev.shape[0], n_cls))
    if kind in ("A", "D"):
        Ftr, Fev = (feats_plain if kind == "A" else feats_tfidf)(Xtr, Xev)
    for c in range(n_cls):
        y = Ytr[:, c]
        if kind in ("B", "C"):
            r = nb_ratio(Xtr, y)
            if kind == "C":
                r = np.abs(r)
            Ftr, Fev = scale(Xtr, r), scale(Xev, r)
        m = svc().fit(Ftr, y)
        S[:, c] = m.decision_function(Fev)
    return S


def best_threshold(scores, y):
    """Threshold maximizing F1 of (score > t); candidates: midpoints between sorted distinct scores, plus 0.
    Ties: the candidate closest to 0."""
    P = y.sum()
    order = np.argsort(-scores, kind="stable")
    s, yy = scores[order], y[order]
    tp = np.cumsum(yy)
    k = np.arange(1, len(s) + 1)
    cut = np.nonzero(s[:-1] > s[1:])[0]  # predicting the first cut+1 as positive; threshold midway
    thr = (s[cut] + s[cut + 1]) / 2
    f1 = 2 * tp[cut] / (k[cut] + P)
    pred0 = scores > 0
    tp0 = (pred0 & (y == 1)).sum()
    f10 = 2 * tp0 / (pred0.sum() + P) if (pred0.sum() + P) > 0 else 0.0
    thr = np.append(thr, 0.0)
    f1 = np.append(f1, f10)
    best = f1.max()
    cand = thr[np.isclose(f1, best, rtol=0, atol=1e-12)]
    return cand[np.argmin(np.abs(cand))]


def cv_thresholds(kind, Xtr, Ytr):
    n_cls = Ytr.shape[1]
    kf = KFold(5, shuffle=True, random_state=1)
    folds = list(kf.split(Xtr))
    ok = np.ones(n_cls, bool)
    for tr, _ in folds:
        ok &= Ytr[tr].sum(axis=0) >= 2
    oof = np.zeros(Ytr.shape)
    for tr, va in folds:
        cols = np.nonzero(ok)[0]
        oof[np.ix_(va, cols)] = fit_scores(kind, Xtr[tr], Ytr[tr][:, cols], Xtr[va])
    th = np.zeros(n_cls)
    for c in np.nonzero(ok)[0]:
        th[c] = best_threshold(oof[:, c], Ytr[:, c])
    return th, int((~ok).sum())


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sgml = sys.argv[1]
    out_path = sys.argv[2] if len(sys.argv) > 2 else os.devnull
    methods = sys.argv[3].split(",") if len(sys.argv) > 3 else ["A", "B", "C", "D", "A+cv", "B+cv", "D+cv"]
    train, test = modapte(sgml, ("TRAIN",)), modapte(sgml, ("TEST",))
    tr_topics = {t for ts, _ in train for t in ts}
    te_topics = {t for ts, _ in test for t in ts}
    labels = sorted(tr_topics & te_topics)
    lab = {t: i for i, t in enumerate(labels)}
    # standard ModApte-90: documents with at least one of the 90 topics
    train = [(ts, x) for ts, x in train if any(t in lab for t in ts)]
    test = [(ts, x) for ts, x in test if any(t in lab for t in ts)]

    def Y(docs):
        M = np.zeros((len(docs), len(labels)), dtype=int)
        for i, (ts, _) in enumerate(docs):
            for t in ts:
                if t in lab:
                    M[i, lab[t]] = 1
        return M

    Ytr, Yte = Y(train), Y(test)
    vec = CountVectorizer(binary=True, lowercase=True, token_pattern=r"(?u)\b\w+\b", min_df=2)
    Xtr = vec.fit_transform([x for _, x in train]).astype(np.float64).tocsr()
    Xte = vec.transform([x for _, x in test]).astype(np.float64).tocsr()
    head = (f"{len(labels)} classes, {len(train)} train / {len(test)} test documents "
            f"(ModApte docs with >=1 of the 90 topics), {Xtr.shape[1]} features (min_df=2 on train)")
    print(head, flush=True)

    rows = []
    cache = {}
    for meth in methods:
        kind = meth[0]
        t0 = time.perf_counter()
        if kind not in cache:
            cache[kind] = fit_scores(kind, Xtr, Ytr, Xte)
        S = cache[kind]
        base_t = cache.setdefault(kind + "_t", time.perf_counter() - t0)
        note = ""
        if meth.endswith("+cv"):
            t1 = time.perf_counter()
            th, skipped = cv_thresholds(kind, Xtr, Ytr)
            wall = base_t + (time.perf_counter() - t1)
            note = f"{skipped} classes kept threshold 0 (<2 positives in some fold's training part)"
        else:
            th = np.zeros(len(labels))
            wall = base_t
        P = (S > th).astype(int)
        mi = f1_score(Yte, P, average="micro", zero_division=0)
        ma = f1_score(Yte, P, average="macro", zero_division=0)
        mp = precision_score(Yte, P, average="micro", zero_division=0)
        mr = recall_score(Yte, P, average="micro", zero_division=0)
        note = (note + "; " if note else "") + f"micro P {mp:.4f} / R {mr:.4f}"
        if meth == "C" and "B" in cache:
            note += f"; max abs(score_C - score_B) = {np.abs(S - cache['B']).max():.2e}"
        rows.append((meth, mi, ma, wall, note))
        print(f"{meth}: micro {mi:.4f} macro {ma:.4f} wall {wall:.1f}s {note}", flush=True)

    names = {
        "A": "A. binary, L2, LinearSVC, >0",
        "B": "B. binary * r_c (per class NB), L2, LinearSVC, >0",
        "C": "C. binary * |r_c|, L2, LinearSVC, >0",
        "D": "D. binary tf-idf (L2), LinearSVC, >0",
        "A+cv": "A + per-class CV threshold",
        "B+cv": "B + per-class CV threshold",
        "C+cv": "C + per-class CV threshold",
        "D+cv": "D + per-class CV threshold",
    }
    with open(out_path, "w") as f:
        f.write(head + "\n\n")
        f.write("| method | micro-F1 | macro-F1 | wall s | note |\n|---|---|---|---|---|\n")
        for meth, mi, ma, wall, note in rows:
            f.write(f"| {names[meth]} | {mi:.4f} | {ma:.4f} | {wall:.1f} | {note} |\n")
        f.write("\nwall s = fit of 90 LinearSVCs on train + scoring test; for +cv rows it also includes the 5-fold CV "
                "(5 x 90 fits) used to pick thresholds.\n")
    if out_path != os.devnull:
        print(open(out_path).read())


if __name__ == "__main__":
    main()
