#!/usr/bin/env python3
"""A model opened for few documents and for many, old binary beside new in one run: each
binary trains the 90-topic Reuters model (`train SGML --format reuters --split train`) in the
format it writes, then, alternately, `classify -m MODEL ONE.txt` (opening the model and
classifying one document; 20 runs a round) and `classify -m MODEL ALL.jsonl` (the 12,902
ModApte documents with topics, train and test; 10 runs a round). Prints the median and
fastest wall time and the median CPU of each, the documents/s and their ratio to the first
binary's, and whether every binary gives the first one's labels when all read the first
binary's model (the same algorithm, whatever format each writes).

Usage: benches/open_and_classify.py SGML-DIR OLD-BINARY NEW-BINARY [--rounds 2]
Example: benches/open_and_classify.py ../shared/corpora/reuters21578/sgml \\
             old/rosenblatt target/release/rosenblatt
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from classify_classes import flag_values, modapte, write_jsonl  # noqa: E402


def timed(cmd):
    """Wall and CPU seconds (user + sys) of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def rounds_of(binaries, models, doc, runs):
    """Each binary's (wall, cpu) runs on `doc` with its own model, alternating (the order
    reversed every other run, so that neither binary always runs first)."""
    seen = {b: [] for b in binaries}
    for i in range(runs):
        for b in binaries if i % 2 == 0 else binaries[::-1]:
            seen[b].append(timed([b, "classify", "-m", models[b], doc]))
    return seen


def main():
    args = sys.argv[1:]
    rounds = int(flag_values(args, "--rounds", "2"))
    if len(args) < 3:
        sys.exit(__doc__)
    sgml, binaries = args[0], args[1:]
    docs = modapte(sgml)
    with tempfile.TemporaryDirectory() as tmp:
        every, one = os.path.join(tmp, "all.jsonl"), os.path.join(tmp, "one.txt")
        write_jsonl(docs, every)
        with open(one, "w") as out:
            out.write(docs[0][1])
        models = {}
        for k, b in enumerate(binaries):
            models[b] = os.path.join(tmp, f"m{k}.model")
            subprocess.run(
                [b, "train", sgml, "--format", "reuters", "--split", "train", "-o", models[b]],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        print(f"{len(docs)} documents; binaries alternate, each with the model it writes")
        for r in range(1, rounds + 1):
            for name, doc, runs in (("open + one document", one, 20), ("every document", every, 10)):
                seen = rounds_of(binaries, models, doc, runs)
                first = statistics.median(w for w, _ in seen[binaries[0]])
                for b in binaries:
                    walls = [w for w, _ in seen[b]]
                    med = statistics.median(walls)
                    cpu = statistics.median(c for _, c in seen[b])
                    rate = f", {len(docs) / med:,.0f} documents/s" if doc == every else ""
                    print(
                        f"round {r}, {name}: {b}: median {med * 1e3:.1f} ms (fastest "
                        f"{min(walls) * 1e3:.1f}), CPU {cpu * 1e3:.1f} ms{rate}, "
                        f"{first / med:.2f}× the first"
                    )
        labels = [
            subprocess.run(
                [b, "classify", "-m", models[binaries[0]], every], check=True, capture_output=True
            ).stdout
            for b in binaries
        ]
        print("the same labels on the first binary's model:", all(x == labels[0] for x in labels))


if __name__ == "__main__":
    main()
