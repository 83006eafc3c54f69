#!/usr/bin/env python3
"""Messages a second through `rosenblatt serve` against one `classify -m STORE` process a
message, in one run on this machine.

A filter is trained on the shipped SpamAssassin corpus (corpora/spamassassin) and
converted to a store; `serve -m STORE` listens on loopback. The load generator (this
program, in the same machine; its CPU counts against the daemon's) sends every message of
the corpus, in a seeded order, as spamd CHECK requests (one connection a request, as spamc
does) from --clients threads at once, as fast as they are answered (saturation); the
daemon's answers are checked against the messages' count. Then the same with rspamd's
`POST /checkv2` over persistent HTTP/1.1 connections. Then `classify -m STORE MESSAGE`, one
process a message, two at a time (the cores of a 2-core machine), for --processes messages.

Printed: messages/s, p50 and p99 latency of each way, and the ratios of the daemon's
messages/s to the processes'.

Usage: benches/serve_load.py [--bin target/release/rosenblatt] [--clients 4]
                             [--processes 300] [--seed 1]
"""
import argparse
import http.client
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def spamd_check(port, raw):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"CHECK SPAMC/1.5\r\nContent-length: %d\r\n\r\n" % len(raw) + raw)
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    s.close()
    if b" 0 EX_OK" not in out:
        raise RuntimeError(out[:200])
    return b"Spam: True" in out


def run_clients(n_clients, messages, one):
    """Sends `messages` split among `n_clients` threads; each calls one(state, raw)."""
    lat = []
    lock = threading.Lock()
    spam = [0]

    def worker(part):
        state = {}
        mine = []
        found = 0
        for raw in part:
            t = time.perf_counter()
            found += one(state, raw)
            mine.append(time.perf_counter() - t)
        with lock:
            lat.extend(mine)
            spam[0] += found

    parts = [messages[i::n_clients] for i in range(n_clients)]
    start = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(p,)) for p in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.perf_counter() - start
    return len(messages) / took, lat, spam[0]


def http_check(port):
    def one(state, raw):
        c = state.get("c")
        if c is None:
            c = state["c"] = http.client.HTTPConnection("127.0.0.1", port)
        c.request("POST", "/checkv2", body=raw)
        r = c.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError(body[:200])
        return b'"action":"no action"' not in body

    return one


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/rosenblatt")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--processes", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    corpus = os.path.join(root, "corpora", "spamassassin")
    files = []
    for dirpath, _, names in os.walk(corpus):
        files += [os.path.join(dirpath, n) for n in names if not n.startswith(".")
                  and "PROVENANCE" not in n and not n.endswith(".txt")]
    files.sort()
    random.Random(a.seed).shuffle(files)
    messages = [open(f, "rb").read() for f in files]
    tmp = tempfile.mkdtemp()
    model, store = os.path.join(tmp, "f.model"), os.path.join(tmp, "f.store")
    subprocess.run([a.bin, "train", "--spam", os.path.join(corpus, "spam"), "--ham",
                    os.path.join(corpus, "ham"), "-o", model], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([a.bin, "convert", model, store], check=True, stdout=subprocess.DEVNULL)
    d = subprocess.Popen([a.bin, "serve", "-m", store, "--http", "127.0.0.1:0",
                          "--spamd", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    ports = {}
    while len(ports) < 2:
        line = d.stderr.readline()
        if not line:
            sys.exit("serve ended before listening")
        if "listening: " in line:
            kind, addr = line.split("listening: ")[1].split()
            ports[kind] = int(addr.rsplit(":", 1)[1])
    threading.Thread(target=lambda: [None for _ in d.stderr], daemon=True).start()
    try:
        rows = []
        rate, lat, spam = run_clients(a.clients, messages,
                                      lambda st, raw: spamd_check(ports["spamd"], raw))
        rows.append(("serve, spamd CHECK (a connection each)", rate, lat))
        rate_h, lat_h, spam_h = run_clients(a.clients, messages, http_check(ports["http"]))
        rows.append(("serve, rspamd /checkv2 (kept alive)", rate_h, lat_h))
        assert spam == spam_h, (spam, spam_h)
    finally:
        d.terminate()
        d.wait()
    some = messages[: a.processes]
    paths = []
    for i, raw in enumerate(some):
        p = os.path.join(tmp, "m%d" % i)
        open(p, "wb").write(raw)
        paths.append(p)

    def one_process(p):
        t = time.perf_counter()
        subprocess.run([a.bin, "classify", "-m", store, p], stdout=subprocess.DEVNULL)
        return time.perf_counter() - t

    start = time.perf_counter()
    with ThreadPoolExecutor(2) as ex:
        lat_p = list(ex.map(one_process, paths))
    rate_p = len(paths) / (time.perf_counter() - start)
    rows.append(("classify -m STORE, a process each, 2 at a time", rate_p, lat_p))
    print("%d messages (%d spam by the filter), %d clients" % (len(messages), spam, a.clients))
    print("%-48s %10s %9s %9s %7s" % ("way", "msgs/s", "p50 ms", "p99 ms", "ratio"))
    for name, rate, lat in rows:
        print("%-48s %10.0f %9.2f %9.2f %6.1fx" % (
            name, rate, 1e3 * percentile(lat, 0.5), 1e3 * percentile(lat, 0.99), rate / rate_p))


if __name__ == "__main__":
    main()
