#!/usr/bin/env python3
"""What keeping term counts costs rows that do not keep them: the CPU time of `rosenblatt
train` (defaults: binary rows, idf, l2; one-vs-rest, a document's first topic its class) on
Reuters-21578 ModApte's training documents with topics, and of `rosenblatt classify` of its test documents with that model, for two builds
— one before term counts, one after — run alternately, so both see the same machine; read
the ratio. With --counts, the build after also trains and classifies with
`--term-counts sublinear`, for what counting costs when asked.

Usage: benches/binary_rows.py SGML-DIR BEFORE AFTER [--runs N] [--counts]
  SGML-DIR  the folder of reut2-*.sgm files
  BEFORE    a rosenblatt binary without term counts (e.g. main's target/release/rosenblatt)
  AFTER     a rosenblatt binary with them
Example: benches/binary_rows.py ../shared/corpora/reuters21578/sgml old/rosenblatt \
           target/release/rosenblatt --runs 5
"""
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from classify_classes import cpu_of, modapte  # noqa: E402


def write(path, docs):
    with open(path, "w", encoding="utf-8") as f:
        for i, (topics, text) in enumerate(docs):
            f.write(json.dumps({"id": str(i), "label": topics[0], "text": text}) + "\n")


def main():
    args = sys.argv[1:]
    runs, counts = 5, "--counts" in args
    args = [a for a in args if a != "--counts"]
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i : i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    sgml, before, after = args
    train = [d for d in modapte(sgml, ("TRAIN",)) if d[0]]
    test = [d for d in modapte(sgml, ("TEST",)) if d[0]]
    builds = [("before", before, []), ("after", after, [])]
    if counts:
        builds.append(("after, --term-counts sublinear", after, ["--term-counts", "sublinear"]))
    times = {name: ([], []) for name, _, _ in builds}
    with tempfile.TemporaryDirectory() as work:
        tr, te = os.path.join(work, "train.jsonl"), os.path.join(work, "test.jsonl")
        write(tr, train)
        write(te, test)
        print(f"{len(train)} training, {len(test)} test documents; {runs} runs each, alternating",
              flush=True)
        for _ in range(runs):
            for name, binary, extra in builds:
                model = os.path.join(work, "m.bin")
                t = cpu_of([binary, "train", "--format", "jsonl", *extra, "-o", model,
                            "--quiet", tr])
                c = cpu_of([binary, "classify", "-m", model, "--input-format", "jsonl", te])
                times[name][0].append(t)
                times[name][1].append(c)
    base = [statistics.median(v) for v in times["before"]]
    for name, (t, c) in times.items():
        mt, mc = statistics.median(t), statistics.median(c)
        print(f"{name}: train {mt:.3f} s (×{mt / base[0]:.3f}), classify {mc:.3f} s "
              f"(×{mc / base[1]:.3f}) CPU, medians")


if __name__ == "__main__":
    main()
