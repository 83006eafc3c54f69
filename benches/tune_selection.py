#!/usr/bin/env python3
"""Does `train --tune` choose well on R8 and R52, and would another way of choosing do
better? On seeded stratified re-splits of R8 and R52 (benches/r8_r52.py's splits: every
document of the corpus, the ModApte test fraction; never the ModApte split itself), each
split's training part is tuned four times (`--tune-folds 5` with fold seeds 42, 43 and 44,
`--tune-folds 10` with seed 42), and every grid point with sublinear counts is trained on
the training part and scored on the test part. The rules below are then applied to the
cross-validation tables alone, and each is judged by the test accuracy of the point it
picks (mean ± sd over the seeds) and on how many seeds that point is the best of the
counted points on the test part (ties count):

  5-fold argmax          the default: the point `--tune` picks with 5 folds (seed 42)
  10-fold argmax         the point it picks with 10 folds
  3x5 repeated argmax    the best mean over the three 5-fold tables (15 folds)
  5-fold one-SE          the cheapest point (evaluation order) within one standard error
                         (sd / sqrt(5)) of the best mean
  10-fold one-SE         the same on 10 folds

(The binary points never came within a point of the counted ones in these tables, so
only the counted points are scored on the test part.)

Usage: benches/tune_selection.py SGML-DIR [--bin BINARY] [--seeds 1,2,3,4,5] [--corpus r8|r52]...
                                 [--results DIR]
  --results  keep each split's tables and test figures as JSON there (a run picks up
             where one stopped)
Example: benches/tune_selection.py ../shared/corpora/reuters21578/sgml --seeds 1,2,3,4,5
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from r8_r52 import corpus, flag_values, resplit, write  # noqa: E402

LINE = re.compile(r"^\s*(\*?)\s*([0-9.]+) ±\s+([0-9.]+)\s+([0-9.]+)\s+(--learner.*)$")
TUNES = {
    "k5s42": "--tune-folds 5 --seed 42",
    "k10s42": "--tune-folds 10 --seed 42",
    "k5s43": "--tune-folds 5 --seed 43",
    "k5s44": "--tune-folds 5 --seed 44",
}


def tune(binary, train, extra, work):
    """The rows of `train --tune EXTRA`'s table: mean, sd, seconds and flags, in order."""
    out = subprocess.run(
        [binary, "train", "--format", "jsonl", "--tune", *extra.split(), "-o",
         os.path.join(work, "tuned.model"), train],
        check=True, capture_output=True, text=True,
    ).stdout
    rows = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            rows.append({"best": m.group(1) == "*", "mean": float(m.group(2)), "sd": float(m.group(3)),
                         "secs": float(m.group(4)), "flags": m.group(5).strip()})
    return rows


def accuracy(binary, train, test, flags, work):
    """Test accuracy of `train FLAGS` on the training part."""
    model = os.path.join(work, "point.model")
    subprocess.run([binary, "train", "--format", "jsonl", *flags.split(), "-o", model, "--quiet", train],
                   check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([binary, "classify", "-m", model, "--input-format", "jsonl", test],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    truth = [json.loads(l)["label"] for l in open(test, encoding="utf-8")]
    given = [l.split("\t")[1] for l in out]
    assert len(given) == len(truth)
    return sum(a == b for a, b in zip(given, truth)) / len(truth)


def argmax(rows):
    """The row `--tune` marked best, else the first row of the best mean (ties: the
    earlier, cheaper point, as `--tune`; the table's means are rounded, so a table's own
    mark is the one to trust)."""
    marked = [r["flags"] for r in rows if r.get("best")]
    if marked:
        return marked[0]
    best = 0
    for i, r in enumerate(rows):
        if r["mean"] > rows[best]["mean"]:
            best = i
    return rows[best]["flags"]


def repeated(tables):
    """argmax of each point's mean over several tables of the same grid."""
    means = [{"flags": r["flags"], "mean": statistics.mean(t[i]["mean"] for t in tables)}
             for i, r in enumerate(tables[0])]
    return argmax(means)


def one_se(rows, k):
    """The earliest (cheapest) point within one standard error of the best mean."""
    best = max(rows, key=lambda r: r["mean"])
    cut = best["mean"] - best["sd"] / math.sqrt(k)
    return next(r["flags"] for r in rows if r["mean"] >= cut)


def split_results(binary, name, seed, train, test, results, work):
    path = os.path.join(results, f"{name}_s{seed}.json")
    res = json.load(open(path)) if os.path.exists(path) else {}
    a, b = resplit(train, test, seed)
    tr, te = os.path.join(work, "train.jsonl"), os.path.join(work, "test.jsonl")
    write(tr, a)
    write(te, b)
    for key, extra in TUNES.items():
        if key not in res:
            res[key] = tune(binary, tr, extra, work)
            json.dump(res, open(path, "w"))
    res.setdefault("test", {})
    for r in res["k5s42"]:
        if "sublinear" in r["flags"] and r["flags"] not in res["test"]:
            res["test"][r["flags"]] = accuracy(binary, tr, te, r["flags"], work)
            json.dump(res, open(path, "w"))
    return res


def main():
    args = sys.argv[1:]

    def take(flag, default=None, many=False):
        return flag_values(args, flag, default, many)

    binary = take("--bin", "target/release/rosenblatt")
    seeds = [int(s) for s in take("--seeds", "1,2,3,4,5").split(",")]
    corpora = take("--corpus", many=True) or ["r8", "r52"]
    keep = take("--results")
    if len(args) != 1:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as work:
        results = keep or work
        os.makedirs(results, exist_ok=True)
        for name in corpora:
            train, test = corpus(args[0], name)
            scores = {}
            for seed in seeds:
                res = split_results(binary, name, seed, train, test, results, work)
                acc = res["test"]
                top = max(acc.values())
                picks = {
                    "5-fold argmax (the default)": argmax(res["k5s42"]),
                    "10-fold argmax": argmax(res["k10s42"]),
                    "3x5 repeated argmax": repeated([res["k5s42"], res["k5s43"], res["k5s44"]]),
                    "5-fold one-SE": one_se(res["k5s42"], 5),
                    "10-fold one-SE": one_se(res["k10s42"], 10),
                }
                picks.update({"always " + f: f for f in acc})
                picks["the best on the test part"] = max(acc, key=acc.get)
                for rule, flags in picks.items():
                    scores.setdefault(rule, []).append((acc[flags], acc[flags] >= top))
                print(f"{name} seed {seed}: " + "; ".join(
                    f"{rule} {acc[f]:.4f}" for rule, f in picks.items() if not rule.startswith("always")),
                    flush=True)
            print(f"{name}, seeds {','.join(map(str, seeds))}:")
            for rule, v in scores.items():
                a = [x for x, _ in v]
                sd = statistics.stdev(a) if len(a) > 1 else 0.0
                print(f"  {statistics.mean(a):.4f} ± {sd:.4f}  best on the test part "
                      f"{sum(h for _, h in v)}/{len(v)}  {rule}", flush=True)


if __name__ == "__main__":
    main()
