#!/usr/bin/env python3
"""scikit-learn's four peer learners on `sa_norouting.py` splits, each given a probability the way
the default filter gets one, so that both can be compared at the same decision, P(spam) > 0.9.

Usage: PEERS_PYTHON benches/norouting_peers.py OUT SEED...   (run by benches/norouting.py)
  OUT  the folder sa_norouting.py wrote (OUT/seedN/{train,test}/{spam,ham})

Per split and learner it prints one JSON line: the accuracy at score 0 (as peers.py reports it),
then, after a Platt calibration fitted on out-of-fold scores of the training part (5 stratified
shuffled folds, seed 42, then the learner refitted on the whole part: what `train` does), the
share of test ham with P(spam) > 0.9 and the share of test spam caught there. The documents, the
features (CountVectorizer(binary=True) of the raw message) and the learners are peers.py's own.
"""
import importlib.util
import json
import os
import random
import sys
import warnings

PEERS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared",
                     "tools", "peers", "peers.py")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, seeds = sys.argv[1], sys.argv[2:]
    spec = importlib.util.spec_from_file_location("peers", PEERS)
    peers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peers)
    import numpy as np
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.model_selection import StratifiedKFold

    warnings.filterwarnings("ignore")
    for seed in seeds:
        d = os.path.join(out, f"seed{seed}")
        tr, ytr, _ = peers.read_dir(os.path.join(d, "train"))
        te, yte, _ = peers.read_dir(os.path.join(d, "test"))
        order = list(range(len(tr)))  # as peers.py: online learners must not see the classes in turn
        random.Random(42).shuffle(order)
        tr, ytr = [tr[i] for i in order], np.array([ytr[i] == "spam" for i in order])
        yte = np.array([y == "spam" for y in yte])
        vec = CountVectorizer(binary=True)
        xtr, xte = vec.fit_transform(tr), vec.transform(te)
        for name, make in peers.sklearn_learners():
            acc = float(np.mean(make().fit(xtr, ytr).predict(xte) == yte))
            folds = StratifiedKFold(5, shuffle=True, random_state=42)
            cal = CalibratedClassifierCV(make(), method="sigmoid", cv=folds, ensemble=False)
            p = cal.fit(xtr, ytr).predict_proba(xte)[:, 1]
            print(json.dumps({"seed": seed, "learner": name, "accuracy": acc, "documents": len(yte),
                              "ham_fp_rate": float(np.mean(p[~yte] > 0.9)),
                              "spam_recall": float(np.mean(p[yte] > 0.9))}), flush=True)


if __name__ == "__main__":
    main()
