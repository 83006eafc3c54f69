#!/usr/bin/env python3
"""How large a filter's store grows under learning, against the same filter written afresh.

Usage: benches/store_growth.py CORPUS OUT [--singles N] [--bulk M] [--workers W]
  CORPUS  the SpamAssassin folder (spam/, ham/, and extra/ when present)
  OUT     a working folder (created anew)
  --singles N   one-message learns, one process each as deliveries run them (default 50000)
  --bulk M      messages of the one bulk learn that follows (default 26000)
  --workers W   learn processes running side by side in the first stage (default 2)

Needs the release build (`cargo build --release`). The batch filter is trained on CORPUS and
converted to a store. Stage 1 replays the corpus's messages, in a fixed shuffled order, as N
one-message `learn` processes (each message taught as its own class); stage 2 teaches M
messages in one `learn` call (the corpus's folders named as often as it takes). After each
stage it prints the data file's length, the disk blocks it holds, and the length of the same
filter written afresh (`convert STORE MODEL`, then `convert MODEL STORE`): the compacted
size. Prints a Markdown table.
"""
import argparse, math, os, random, shutil, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "rosenblatt")


def run(*args):
    return subprocess.run([BIN, *args], check=True, capture_output=True, text=True).stdout


def messages(folder):
    out = []
    for d, _, files in os.walk(folder):
        out += [os.path.join(d, f) for f in files]
    return sorted(out)


def sizes(store, work):
    """(length, allocated bytes) of the store's data file, and the length afresh."""
    st = os.stat(os.path.join(store, "data.mdb"))
    model, fresh = os.path.join(work, "back.model"), os.path.join(work, "fresh.store")
    for p in (model,):
        if os.path.exists(p):
            os.remove(p)
    shutil.rmtree(fresh, ignore_errors=True)
    run("convert", store, model)
    run("convert", model, fresh)
    return st.st_size, st.st_blocks * 512, os.stat(os.path.join(fresh, "data.mdb")).st_size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--singles", type=int, default=50000)
    ap.add_argument("--bulk", type=int, default=26000)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    spam = [os.path.join(a.corpus, "spam")]
    ham = [os.path.join(a.corpus, "ham")]
    if os.path.isdir(os.path.join(a.corpus, "extra")):
        spam.append(os.path.join(a.corpus, "extra", "spam"))
        ham.append(os.path.join(a.corpus, "extra", "ham"))
    model, store = os.path.join(a.out, "spam.model"), os.path.join(a.out, "spam.store")
    run("train", *sum((["--spam", s] for s in spam), []), *sum((["--ham", h] for h in ham), []),
        "-o", model)
    run("convert", model, store)
    rows = [("written afresh", *sizes(store, a.out))]

    stream = [(p, "--spam") for s in spam for p in messages(s)]
    stream += [(p, "--ham") for h in ham for p in messages(h)]
    random.Random(36).shuffle(stream)
    todo = [stream[i % len(stream)] for i in range(a.singles)]

    def learn(item):
        path, cls = item
        subprocess.run([BIN, "learn", cls, "-m", store, path], check=True,
                       stdout=subprocess.DEVNULL)

    with ThreadPoolExecutor(a.workers) as pool:
        for k, _ in enumerate(pool.map(learn, todo), 1):
            if sys.stderr.isatty() and k % 1000 == 0:
                print(f"\r{k} of {a.singles} learns", end="", file=sys.stderr)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    rows.append((f"after {a.singles:,} one-message learns", *sizes(store, a.out)))

    per_pass = sum(len(messages(h)) for h in ham)
    passes = max(1, math.ceil(a.bulk / per_pass))
    out = run("learn", "--ham", "--json", "-m", store, *(ham * passes))
    taught = out.split('"messages":')[1].split(",")[0]
    rows.append((f"after one bulk learn of {int(taught):,} messages", *sizes(store, a.out)))

    mib = lambda b: f"{b / 2**20:.1f}"
    print("| store | data.mdb (MiB) | disk blocks (MiB) | written afresh (MiB) | ratio |")
    print("|---|---|---|---|---|")
    for name, length, blocks, fresh in rows:
        print(f"| {name} | {mib(length)} | {mib(blocks)} | {mib(fresh)} | {length / fresh:.2f} |")


if __name__ == "__main__":
    main()
