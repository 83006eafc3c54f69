#!/usr/bin/env python3
"""What scoring many classes costs beside scoring two: the CPU time of `rosenblatt classify`
on Reuters-21578's ModApte documents (train and test, with topics: 12,902 of them, one JSONL
file) with the 90-class model `train` makes by default, and with a two-class model (earn
against the rest) of the same text. Runs alternate between the two models, so both see the
same machine; read the ratio.

Usage: benches/classify_classes.py SGML-DIR [BINARY ...] [--runs N]
  SGML-DIR  the folder of reut2-*.sgm files
  BINARY    rosenblatt binaries to compare (default: target/release/rosenblatt)
Example: benches/classify_classes.py ../shared/corpora/reuters21578/sgml
"""
import html
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time


def modapte(sgml, parts=("TRAIN", "TEST")):
    """(topics, text) of every ModApte document with topics in `parts` (train, test or both)."""
    docs = []
    for name in sorted(os.listdir(sgml)):
        if not name.endswith(".sgm"):
            continue
        text = open(os.path.join(sgml, name), encoding="latin-1").read()
        for m in re.finditer(r"<REUTERS([^>]*)>(.*?)</REUTERS>", text, re.S):
            attrs, body = m.group(1), m.group(2)
            split = re.search(r'LEWISSPLIT="(\w+)"', attrs)
            if 'TOPICS="YES"' not in attrs or not split or split.group(1) not in parts:
                continue
            topics = re.findall(r"<D>(.*?)</D>", re.search(r"<TOPICS>(.*?)</TOPICS>", body, re.S).group(1))
            title = re.search(r"<TITLE>(.*?)</TITLE>", body, re.S)
            words = re.search(r"<BODY>(.*?)</BODY>", body, re.S)
            docs.append((topics, html.unescape((title.group(1) + "\n" if title else "") + (words.group(1) if words else ""))))
    return docs


def write_jsonl(docs, path):
    """The documents' texts as the JSONL `classify` reads, ids their positions."""
    with open(path, "w") as out:
        for i, (_, text) in enumerate(docs):
            out.write(json.dumps({"id": str(i), "text": text}) + "\n")


def cpu_of(cmd):
    """CPU seconds (user + sys) of a child process run to completion."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def flag_values(args, flag, default=None, many=False):
    """The values of `flag` in `args` (removed from them): every one where `many`, else the
    last one given, or `default`."""
    vals = []
    while flag in args:
        i = args.index(flag)
        vals.append(args[i + 1])
        del args[i : i + 2]
    return vals if many else (vals[-1] if vals else default)


def main():
    args = sys.argv[1:]
    runs = int(flag_values(args, "--runs", "4"))
    if not args:
        sys.exit(__doc__)
    sgml, binaries = args[0], args[1:] or ["target/release/rosenblatt"]
    docs = modapte(sgml)
    with tempfile.TemporaryDirectory() as tmp:
        jsonl, tsv = os.path.join(tmp, "reuters.jsonl"), os.path.join(tmp, "earn.tsv")
        write_jsonl(docs, jsonl)
        with open(tsv, "w") as out:
            for topics, text in docs:
                label = "earn" if "earn" in topics else "other"
                out.write(label + "\t" + re.sub(r"\s+", " ", text) + "\n")
        m90, m2 = os.path.join(tmp, "m90"), os.path.join(tmp, "m2")
        train = binaries[0]
        subprocess.run([train, "train", sgml, "--format", "reuters", "--split", "train", "-o", m90], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([train, "train", tsv, "-o", m2], check=True, stdout=subprocess.DEVNULL)
        print(f"{len(docs)} documents; {runs} runs per binary and model, alternating")
        print("| binary | two-class CPU s | 90-class CPU s | 90 / 2 | 90-class documents/s (wall) |")
        print("|---|---|---|---|---|")
        for b in binaries:
            cpu = {m90: [], m2: []}
            wall = []
            for _ in range(runs):
                for m in (m2, m90):
                    t = time.perf_counter()
                    cpu[m].append(cpu_of([b, "classify", "-m", m, jsonl]))
                    if m == m90:
                        wall.append(time.perf_counter() - t)
            two, many = sum(cpu[m2]) / runs, sum(cpu[m90]) / runs
            print(f"| {b} | {two:.3f} | {many:.3f} | {many / two:.2f}× | {len(docs) / min(wall):,.0f} |")


if __name__ == "__main__":
    main()
