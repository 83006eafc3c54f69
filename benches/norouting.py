#!/usr/bin/env python3
"""The default spam filter against scikit-learn and fastText given the same header fields, split
by split, measured in one run.

Usage: benches/norouting.py CORPORA OUT [SEED...]   (seeds 1 2 3 4 5 by default)
  CORPORA  the folder holding spamassassin/ (its core sets: spam/, ham/easy_ham, ham/hard_ham)
  OUT      a working folder (created)

Runs ../shared/tools/peers/sa_norouting.py with the python its setup.sh prints (the peers'
virtual environment, ~/.cache/peers-venv unless $PEERS_VENV says otherwise): it makes seeded
stratified 80/20 splits of SpamAssassin with the routing header fields removed from every
message and runs the peers on them. Then, on the very same copies, the release build
(`cargo build --release`) trains the default filter twice — `train --spam --ham` as it is
(deciding at P(spam) > 0.9) and with `--threshold 0` (P(spam) > 0.5, where the peers decide) —
and `eval --json` scores each on the split's test part. Prints a Markdown table: per split the
accuracy at P > 0.5 beside the best scikit-learn learner's and fastText's, the ham
false-positive rate and spam recall at the default decision, then the means.

Then `benches/norouting_peers.py` gives each scikit-learn learner a probability as `train`
gives the filter one (Platt on out-of-fold scores), and a second table compares them all one by
one: splits where each is at least the best of the others at its own score-0 / P > 0.5
decision, and the mean ham FP and spam recall at P(spam) > 0.9.
"""
import json, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "rosenblatt")
PEERS = os.path.join(ROOT, "..", "shared", "tools", "peers")


def rosenblatt(*args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"rosenblatt {' '.join(args)} failed: {r.stderr.strip()}")
    return r.stdout


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    corpora, out = sys.argv[1], sys.argv[2]
    seeds = sys.argv[3:] or ["1", "2", "3", "4", "5"]
    if not os.access(BIN, os.X_OK):
        sys.exit(f"{BIN} is missing: run cargo build --release first")
    venv = os.environ.get("PEERS_VENV", os.path.expanduser("~/.cache/peers-venv"))
    python = os.path.join(venv, "bin", "python")
    if not os.access(python, os.X_OK):
        sys.exit(f"{python} is missing: run {PEERS}/setup.sh first")
    os.makedirs(out, exist_ok=True)
    r = subprocess.run([python, os.path.join(PEERS, "sa_norouting.py"), corpora, out, *seeds],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"sa_norouting.py failed: {r.stderr.strip()}")
    peers = {}  # seed -> {peer: accuracy}
    for line in r.stdout.splitlines():
        seed, rest = line.split(" ", 1)
        name, acc = rest.rsplit(" ", 1)
        peers.setdefault(seed, {})[name] = float(acc)
    rows, sums, ours = [], [0.0] * 6, {}
    print("| split | rosenblatt, P > 0.5 | best scikit-learn | fastText (25 epochs) | ≥ | "
          "ham FP at P > 0.9 | spam recall at P > 0.9 |")
    print("|---|---|---|---|---|---|---|")
    for seed in seeds:
        d = os.path.join(out, f"seed{seed}")
        scores = {}
        for name, flags in (("default", []), ("half", ["--threshold", "0"])):
            model = os.path.join(d, f"{name}.model")
            rosenblatt("train", "--spam", f"{d}/train/spam", "--ham", f"{d}/train/ham",
                       "-o", model, *flags)
            scores[name] = json.loads(rosenblatt("eval", "-m", model, "--spam", f"{d}/test/spam",
                                                 "--ham", f"{d}/test/ham", "--json"))
        p = peers.get(seed, {})
        sk = max((a for n, a in p.items() if n.startswith("sklearn")), default=float("nan"))
        ft = max((a for n, a in p.items() if n.startswith("fastText (25")), default=float("nan"))
        acc, fp, rec = (scores["half"]["accuracy"], scores["default"]["ham_fp_rate"],
                        scores["default"]["spam_recall"])
        n = scores["half"]["documents"]
        won = round(acc * n) >= round(sk * n)
        ours[seed] = (round(acc * n), fp, rec)
        rows.append(won)
        for i, v in enumerate((acc, sk, ft, fp, rec, 1.0)):
            sums[i] += v
        print(f"| seed {seed} | {acc:.4f} | {sk:.4f} | {ft:.4f} | {'✓' if won else '✗'} | "
              f"{100 * fp:.2f}% | {100 * rec:.2f}% |", flush=True)
    k = sums[5]
    print(f"| mean | {sums[0] / k:.4f} | {sums[1] / k:.4f} | {sums[2] / k:.4f} | "
          f"{sum(rows)}/{len(rows)} | {100 * sums[3] / k:.2f}% | {100 * sums[4] / k:.2f}% |")
    print()
    one_by_one(python, out, seeds, ours)


def one_by_one(python, out, seeds, ours):
    """The second table: every learner alone against the best of the others, and at P > 0.9."""
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([python, os.path.join(here, "norouting_peers.py"), out, *seeds],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"norouting_peers.py failed: {r.stderr.strip()}")
    learners = {"rosenblatt defaults": ours}  # name -> {seed: (right, fp, recall)}
    for line in r.stdout.splitlines():
        j = json.loads(line)
        learners.setdefault(j["learner"], {})[j["seed"]] = (
            round(j["accuracy"] * j["documents"]), j["ham_fp_rate"], j["spam_recall"])
    print("| learner | splits ≥ the best of the others, P > 0.5 | "
          "ham FP at P > 0.9 | spam recall at P > 0.9 |")
    print("|---|---|---|---|")
    for name, per in learners.items():
        won = sum(per[s][0] >= max(o[s][0] for n, o in learners.items() if n != name)
                  for s in seeds)
        fp = sum(per[s][1] for s in seeds) / len(seeds)
        rec = sum(per[s][2] for s in seeds) / len(seeds)
        print(f"| {name} | {won}/{len(seeds)} | {100 * fp:.2f}% | {100 * rec:.2f}% |")


if __name__ == "__main__":
    main()
