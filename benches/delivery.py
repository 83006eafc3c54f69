#!/usr/bin/env python3
"""Per-message cost of a mail filter at delivery time: one process per message, as procmail,
maildrop or a Sieve rule starts it, for rosenblatt's store, rosenblatt's single model file and
bogofilter, measured in one run.

Usage: benches/delivery.py CORPUS OUT [--messages N] [--total T]
  CORPUS  the SpamAssassin folder with its extra/ sets (spam/, ham/, extra/spam/, extra/ham/)
  OUT     a working folder (created; its filters are reused if present)
  --messages N   messages measured per stage (default 30, spread over the stream)
  --total T      messages learned in the second stage (default 50000)

Needs the release build (`cargo build --release`) and, for its rows, bogofilter on PATH.

Two filters, each in both forms: the online filter (`eval --online` over the 6,047 messages in
date order, defaults) and the batch filter (`train --spam --ham` on the same messages). Stage 1
measures them as they are; stage 2 after the stream is replayed until each filter has learned T
messages, one `learn` process per message as deliveries would (the model file is the store
converted; bogofilter registers the same messages, one process each). Each measured message is classified (`classify -m FILTER -`,
`bogofilter -T`) and then learned as its class (`learn -m FILTER --spam|--ham -`,
`bogofilter -s|-n`) by every filter in turn before the next message. Time is the wall time from
spawn to exit; memory is the peak resident set of the same command run again under GNU time
(`/usr/bin/time -f %M`: a child forked from this Python process would report Python's own),
so each measured message is learned twice. Prints a Markdown table: median time and the
largest peak memory per filter and operation.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "rosenblatt")
INDEXER = os.path.join(ROOT, "..", "shared", "tools", "peers", "trec_index.py")


def run(cmd, **kw):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)


def measured(cmd, message, env=None):
    """Seconds from spawn to exit of one process fed `message`."""
    t = time.perf_counter()
    p = subprocess.run(cmd, input=message, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    dt = time.perf_counter() - t
    if p.returncode not in (0, 1, 2):
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.decode(errors='replace')}")
    return dt


def peak_mb(cmd, message, env=None):
    """Peak resident set in MB of one process fed `message`, as GNU time reports it."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], input=message, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=env)
    return int(p.stderr.decode().strip().splitlines()[-1]) / 1024


def stream(corpus, out):
    """The 6,047 messages in date order: (label, path) pairs, from trec_index.py."""
    index = os.path.join(out, "index")
    if not os.path.exists(index):
        s = corpus
        spam = [os.path.join(s, "spam"), os.path.join(s, "extra", "spam")]
        ham = [os.path.join(s, "ham"), os.path.join(s, "extra", "ham")]
        run([sys.executable, INDEXER, index, *spam, "--", *ham])
    rows = [l.split() for l in open(index) if l.strip()]
    return index, [(label, os.path.join(out, rel)) for label, rel in rows]


def runs(rows):
    """Consecutive messages of one class, so that `learn` can take many per call."""
    group = []
    for label, path in rows:
        if group and group[0][0] != label:
            yield group[0][0], [p for _, p in group]
            group = []
        group.append((label, path))
    if group:
        yield group[0][0], [p for _, p in group]


def replay(rows, already, total):
    """The stream again from its start, for as long as `total - already` messages need."""
    need, out = total - already, []
    while len(out) < need:
        out.extend(rows[: need - len(out)])
    return out


def learn_each(cmd_of, messages, env=None):
    """Learns `messages` one process each, as deliveries do (a learn of many messages in one
    transaction would leave the store's free-page list as large as the store)."""
    for label, path in messages:
        run(cmd_of(label, path), env=env)


def learn_until(stores, rows, bogo_env, total):
    """Replays the stream into each store (from its own count) and bogofilter's word list,
    message by message, the three side by side."""
    jobs = []
    for store, already in stores:
        msgs = replay(rows, already, total)
        jobs.append(threading.Thread(target=learn_each, args=(
            lambda l, p, s=store: [BIN, "learn", "-m", s, f"--{l}", p], msgs)))
    if bogo_env is not None:
        msgs = replay(rows, stores[0][1], total)
        jobs.append(threading.Thread(target=learn_each, args=(
            lambda l, p: ["bogofilter", "-s" if l == "spam" else "-n", "-I", p], msgs, bogo_env)))
    for j in jobs:
        j.start()
    for j in jobs:
        j.join()


def filters(corpus, out, rows, index, bogo):
    """The two filters as stores, and bogofilter's word list after the same stream."""
    online, batch = os.path.join(out, "online"), os.path.join(out, "batch")
    if not os.path.exists(online + ".store"):
        run([BIN, "eval", "--online", index, "--save", online + ".model"], stderr=subprocess.DEVNULL)
        run([BIN, "convert", online + ".model", online + ".store"])
    if not os.path.exists(batch + ".store"):
        spam = [p for l, p in rows if l == "spam"]
        ham = [p for l, p in rows if l == "ham"]
        lists = os.path.join(out, "lists")
        os.makedirs(lists, exist_ok=True)
        # train reads folders: link the messages into one folder per class.
        for label, paths in (("spam", spam), ("ham", ham)):
            d = os.path.join(lists, label)
            if not os.path.exists(d):
                os.makedirs(d)
                for i, p in enumerate(paths):
                    os.symlink(p, os.path.join(d, f"{i:05}"))
        run([BIN, "train", "--spam", os.path.join(lists, "spam"), "--ham", os.path.join(lists, "ham"),
             "-o", batch + ".model"], stderr=subprocess.DEVNULL)
        run([BIN, "convert", batch + ".model", batch + ".store"])
    env = None
    if bogo:
        d = os.path.join(out, "bogofilter")
        env = dict(os.environ, BOGOFILTER_DIR=d)
        if not os.path.exists(d):
            os.makedirs(d)
            for label, paths in runs(rows):
                run(["bogofilter", "-s" if label == "spam" else "-n", "-B", *paths], env=env)
    return online, batch, env


def measure(stage, forms, sample, bogo_env, table):
    """Classify, then learn, each sampled message with every filter in turn."""
    times = {name: {"classify": [], "learn": []} for name, _ in forms}
    peaks = {name: {"classify": 0.0, "learn": 0.0} for name, _ in forms}
    for label, path in sample:
        message = open(path, "rb").read()
        for name, f in forms:
            if f is None:
                env = bogo_env
                c = ["bogofilter", "-T"]
                l = ["bogofilter", "-s" if label == "spam" else "-n"]
            else:
                env = None
                c = [BIN, "classify", "-m", f, "-"]
                l = [BIN, "learn", "-m", f, f"--{label}", "-"]
            for op, cmd in (("classify", c), ("learn", l)):
                times[name][op].append(measured(cmd, message, env))
                peaks[name][op] = max(peaks[name][op], peak_mb(cmd, message, env))
    for name, _ in forms:
        t, p = times[name], peaks[name]
        table.append(f"| {stage} | {name} | {1000 * statistics.median(t['classify']):.1f} ms | "
                     f"{p['classify']:.1f} MB | {1000 * statistics.median(t['learn']):.1f} ms | {p['learn']:.1f} MB |")
        print(table[-1], flush=True)


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("corpus")
    a.add_argument("out")
    a.add_argument("--messages", type=int, default=30)
    a.add_argument("--total", type=int, default=50000)
    args = a.parse_args()
    if not os.path.exists(BIN):
        sys.exit("build the release binary first: cargo build --release")
    bogo = shutil.which("bogofilter") is not None
    if not bogo:
        print("note: bogofilter is not on PATH; its rows are left out", file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    index, rows = stream(args.corpus, args.out)
    online, batch, bogo_env = filters(args.corpus, args.out, rows, index, bogo)
    step = max(1, len(rows) // args.messages)
    sample = rows[step // 2 :: step][: args.messages]
    table = ["| learned | filter | classify median | classify peak | learn median | learn peak |",
             "|---|---|---|---|---|---|"]
    print("\n".join(table), flush=True)
    for stage in ("stream", "total"):
        if stage == "total":
            # Each filter goes on from its own count to the total; bogofilter with the online one.
            meta = {}
            for f in (online, batch):
                out = subprocess.run([BIN, "inspect", "-m", f + ".store", "--json"], check=True,
                                     capture_output=True, text=True).stdout
                j = json.loads(out)
                meta[f] = j.get("learned", 0) + (0 if f == online else j.get("documents", 0))
            learn_until([(online + ".store", meta[online]), (batch + ".store", meta[batch])], rows,
                        bogo_env, args.total)
        for f in (online, batch):
            if os.path.exists(f + ".model"):
                os.remove(f + ".model")
            run([BIN, "convert", f + ".store", f + ".model"])
        forms = [("online filter, store", online + ".store"), ("online filter, model file", online + ".model"),
                 ("batch filter, store", batch + ".store"), ("batch filter, model file", batch + ".model")]
        if bogo:
            forms.append(("bogofilter 1.2.5 (Berkeley DB)", None))
        label = f"{len(rows):,}" if stage == "stream" else f"{args.total:,}"
        measure(label, forms, sample, bogo_env, table)
    print()
    print("\n".join(table))


if __name__ == "__main__":
    main()
