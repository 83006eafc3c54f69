#!/usr/bin/env python3
"""How time and memory grow with the number of documents: rosenblatt's `train` and `classify`
against scikit-learn, Vowpal Wabbit and fastText, on TSV corpora of 100,000 to 8,000,000
documents made from a real one (rt-2k, 2,000 movie reviews, about 3.9 kB each) by
../shared/tools/scale/scale_corpus.py: real documents drawn at random (seeded), their words
rotated so that rows differ while vocabulary, lengths and class balance stay those of real text.
Accuracy on such a corpus means little (the same 2,000 reviews repeat); time and memory do.

Every step is its own process, run under `/usr/bin/time -v`, one at a time; each tool trains
on the whole TSV with its defaults, then labels every document of that same TSV:
  rosenblatt                 `rosenblatt train TSV -o MODEL` (defaults: pa, 7 epochs, idf + l2,
                             two-class probability calibration), then
                             `rosenblatt classify -m MODEL --input-format tsv TSV` (output to a file)
  rosenblatt --cache         `rosenblatt train --cache ROWS TSV -o MODEL`: the same training with
                             its rows in an on-disk cache instead of memory (read back a block of
                             rows at a time); `train again`: the same command once more, which
                             trains from the cache without reading the TSV
  sklearn Tfidf+LinearSVC    one Python process reads the TSV (streamed into the vectorizer),
                             TfidfVectorizer().fit_transform, LinearSVC(random_state=0).fit,
                             pickles both;
                             a second loads them and predicts the TSV in batches of 8,192 lines
  sklearn Hashing+SGD        the same with HashingVectorizer() and SGDClassifier(random_state=0)
  VW                         `convert`: the TSV written once in VW's own text format
                             ("-1 | words", "|" and ":" blanked), timed as its own step and not
                             inside `train`; `train`: one pass, --loss_function hinge --binary
                             -b 24 (as ../shared/tools/peers/peers.py runs it; --oaa K for more
                             than two classes); `classify`: -t -i MODEL over the converted file
  VW -c --passes 7           `train` only: the same options with a cache file rebuilt in the run
                             (-c -k --cache_file), 7 passes, --holdout_off so all 7 are made
                             (prediction costs what VW's one-pass `classify` does)
  fastText                   `convert`: the TSV written once as "__label__LABEL words" (its own
                             step, as for VW); `train`: train_supervised with its defaults (5
                             epochs, lr 0.1, dim 100) and thread = the CPU count, as peers.py;
                             `classify`: predict over the TSV's text in batches of 8,192 lines
scikit-learn, VW and fastText run through their Python packages in the peer Python (what
../shared/tools/peers/setup.sh prints; it installs them), so their figures include starting
Python and importing the package: for scikit-learn about 1.5 CPU seconds and 120 MiB before the
first document, for VW and fastText under 0.2 s and 30 MiB (VW's -b 24 table then adds about
130 MiB). A peer that is not installed is skipped with a note.

Usage: benches/scale.py [--sizes N,N,...] [--json FILE] [--chart FILE.svg] [options]
Reproduces the table and chart of docs/PERFORMANCE.md (several hours; for the largest size
about 31 GB of free disk, 62 GB for VW and fastText, 90 GB for VW's cache: see Disk below):
  python3 benches/scale.py --sizes 100000,400000,1600000,8000000 --json scale.json --chart docs/scale.svg
Options (paths of the defaults are relative to the repository root; given paths to the
current folder):
  --sizes     documents per corpus, comma-separated ("100k" and "1.6M" are read too)
              [100000,400000,1600000,8000000]; --sizes= runs nothing (with --merge: table and chart)
  --source    the corpus to scale: DIR/<class>/<files> or a TSV [../shared/corpora/sentiment/rt-2k]
  --seed      seed of scale_corpus.py [1]
  --scale-tool  [../shared/tools/scale/scale_corpus.py]
  --bin       the rosenblatt binary [target/release/rosenblatt]
  --python    the peer Python [what ../shared/tools/peers/setup.sh prints; it is run to find out]
  --tools     which to run, comma-separated: rosenblatt, rosenblatt-cache, sklearn-tfidf-svc, sklearn-hash-sgd,
              vw, vw-passes, fasttext [all]
  --work      folder for the corpora (kept, and reused when a corpus of the same source, seed
              and size is there) and, while a size runs, for models and converted files
              [a temporary folder, removed at the end]
  --keep      keep everything written in --work (with the temporary folder: keep it, and say where)
  --timeout   seconds one step may run before it is stopped and reported as "timeout" [3600]
  --mem-limit GiB of resident memory (the step's processes together) above which a step is
              stopped and reported as "out of memory" [this machine's memory less 1 GiB]; a step
              is stopped too when the machine's available memory falls below 512 MiB, and one
              killed by signal 9 or failing to allocate is reported the same way
  --json FILE   the results as JSON (with the machine, versions and corpus sizes), to merge later
  --merge FILE  results of an earlier --json to merge in (repeatable); this run's replace
                theirs for the same tool, step and size
  --chart FILE.svg  log-log chart of CPU seconds and of peak memory against documents, one line
                per tool and step; drawn by matplotlib when the peer Python has it, else by hand

Output: a Markdown table on stdout; progress (step, size, figures) on stderr. Columns:
  tool, step    as above
  documents     documents in the corpus (train and classify both see all of them)
  wall s        elapsed (wall-clock) seconds of the step's process ("Elapsed" of time -v)
  CPU s         user + system CPU seconds of the process and its threads (time -v); above
                wall s where the step runs threads in parallel
  peak RSS MiB  its largest resident memory ("Maximum resident set size" of time -v)
  docs/s        documents / wall s
A failed step shows why in the wall s column ("out of memory", "timeout", "failed (exit N)",
"skipped: ..."); notes below the table give details (e.g. LinearSVC stopping at max_iter), and
its standard error stays in the work folder as TOOL-STEP-N.err (with --work or --keep). A
classify step whose output has not one line per document is reported as failed.

Disk: a corpus is about 3.9 kB a document (8,000,000: about 31 GB); VW's and fastText's
converted copies are as large, each made and deleted in turn, and VW's cache about 0.8 of it.
A step whose file would not fit in the free space is skipped and says so. In the temporary
folder a size's corpus is deleted when its steps are done; in --work it stays (for reuse).
Corpora up to 1.6 million documents (6 GB) fit in the page cache of a 24 GiB machine, the
largest does not: its steps read it from disk.
"""
import argparse
import json
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.abspath(__file__)
MIB = 1 << 20
GIB = 1 << 30
PAGE = os.sysconf("SC_PAGE_SIZE")
BATCH = 8192

# (key for --tools, tool name in the table)
TOOLS = [
    ("rosenblatt", "rosenblatt"),
    ("rosenblatt-cache", "rosenblatt --cache"),
    ("sklearn-tfidf-svc", "sklearn Tfidf+LinearSVC"),
    ("sklearn-hash-sgd", "sklearn Hashing+SGD"),
    ("vw", "VW"),
    ("vw-passes", "VW -c --passes 7"),
    ("fasttext", "fastText"),
]
TOOL_ORDER = [name for _, name in TOOLS]
STEP_ORDER = ["convert", "train", "train again", "classify"]
COLORS = {"rosenblatt": "#d62728", "rosenblatt --cache": "#ff7f0e", "sklearn Tfidf+LinearSVC": "#1f77b4",
          "sklearn Hashing+SGD": "#17becf", "VW": "#2ca02c", "VW -c --passes 7": "#8c564b",
          "fastText": "#9467bd"}
DASHES = {"train": "", "train again": "1,2", "classify": "7,4", "convert": "2,3"}
VW_OPTS_2 = "--loss_function hinge --binary -b 24"


# ---------------------------------------------------------------- workers (run in the peer Python)

def read_tsv(path):
    """(label, text) of each line of a label<TAB>text file, streamed."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            label, _, text = line.rstrip("\n").partition("\t")
            yield label, text


def batches(path):
    batch = []
    for _, text in read_tsv(path):
        batch.append(text)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def w_probe():
    from importlib import import_module, metadata

    out = {}
    for mod, dist in (("sklearn", "scikit-learn"), ("vowpalwabbit", "vowpalwabbit"),
                      ("fasttext", "fasttext-wheel"), ("matplotlib", "matplotlib")):
        try:
            m = import_module(mod)
        except Exception:
            out[mod] = None
            continue
        version = getattr(m, "__version__", None)
        for d in (dist, mod):
            if version:
                break
            try:
                version = metadata.version(d)
            except Exception:
                pass
        out[mod] = version or "?"
    print(json.dumps(out))


def w_sklearn_train(kind, tsv, model):
    import pickle

    labels, seen = [], {}

    def texts():
        for label, text in read_tsv(tsv):
            labels.append(seen.setdefault(label, label))
            yield text

    if kind == "tfidf-svc":
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.svm import LinearSVC

        vec = TfidfVectorizer()
        X = vec.fit_transform(texts())
        clf = LinearSVC(random_state=0)
    else:
        from sklearn.feature_extraction.text import HashingVectorizer
        from sklearn.linear_model import SGDClassifier

        vec = HashingVectorizer()
        X = vec.transform(texts())  # stateless: no fit pass over the text
        clf = SGDClassifier(random_state=0)
    clf.fit(X, labels)
    with open(model, "wb") as f:
        pickle.dump((vec, clf), f, protocol=pickle.HIGHEST_PROTOCOL)


def w_sklearn_classify(tsv, model, out):
    import pickle

    with open(model, "rb") as f:
        vec, clf = pickle.load(f)
    with open(out, "w") as o:
        for batch in batches(tsv):
            o.write("\n".join(clf.predict(vec.transform(batch))) + "\n")


def w_vw_convert(tsv, out):
    labels = sorted({label for label, _ in read_tsv(tsv)})
    if len(labels) == 2:  # rosenblatt's positive class too: the second in sorted order
        code = {labels[0]: "-1", labels[1]: "1"}
    else:
        code = {label: str(i + 1) for i, label in enumerate(labels)}
    blank = {ord("|"): " ", ord(":"): " "}  # VW reserves "|" (namespaces) and ":" (values)
    with open(out, "w", encoding="utf-8") as o:
        for label, text in read_tsv(tsv):
            o.write(code[label] + " | " + text.translate(blank) + "\n")
    with open(out + ".labels", "w") as o:
        json.dump(labels, o)


def w_vw(args):
    import vowpalwabbit

    vw = vowpalwabbit.Workspace(" ".join(args) + " --quiet")
    vw.run_parser()
    vw.finish()


def w_fasttext_convert(tsv, out):
    with open(out, "w", encoding="utf-8") as o:
        for label, text in read_tsv(tsv):
            o.write("__label__" + label + " " + text + "\n")


def w_fasttext_train(ft, model):
    import fasttext

    fasttext.train_supervised(input=ft, thread=os.cpu_count(), verbose=0).save_model(model)


def w_fasttext_classify(tsv, model, out):
    import fasttext

    m = fasttext.load_model(model)
    n = len("__label__")
    with open(out, "w") as o:
        for batch in batches(tsv):
            o.write("".join(ls[0][n:] + "\n" for ls in m.predict(batch)[0]))


def w_chart(json_path, svg):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    plt.rcParams["svg.hashsalt"] = "rosenblatt-scale"  # the same SVG for the same figures
    plt.rcParams["svg.fonttype"] = "none"
    with open(json_path) as f:
        data = json.load(f)
    fig, axes = plt.subplots(1, 2, figsize=(11, 6.4))
    handles = []
    for s in chart_series(data["results"]):
        for ax, key in zip(axes, ("cpu", "rss")):
            xs = [p[0] for p in s["points"]]
            ys = [p[1 if key == "cpu" else 2] for p in s["points"]]
            dash = [float(v) for v in s["dash"].split(",")] if s["dash"] else None
            (line,) = ax.plot(xs, ys, color=s["color"], marker="o", markersize=4, linewidth=1.6,
                              label=s["label"])
            if dash:
                line.set_dashes(dash)
        handles.append(line)
    for ax, ylabel, title in zip(axes, ("CPU seconds (user + system)", "peak resident memory (MiB)"),
                                 ("CPU time", "Peak memory")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        for axis, fmt in ((ax.xaxis, fmt_docs), (ax.yaxis, lambda v: f"{v:,.0f}" if v >= 1 else f"{v:g}")):
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(FuncFormatter(lambda v, _, fmt=fmt: fmt(v)))
            axis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("documents")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(True, which="major", color="#cccccc")
        ax.grid(True, which="minor", color="#eeeeee")
    fig.suptitle(chart_title(data))
    fig.legend(handles=handles, loc="lower center", ncol=3, frameon=False, fontsize=9)
    fig.tight_layout(rect=(0, 0.05 + 0.032 * math.ceil(len(handles) / 3), 1, 1))
    fig.savefig(svg, format="svg", metadata={"Date": None})


def worker(argv):
    cmd, args = argv[0], argv[1:]
    {"probe": w_probe, "sklearn-train": w_sklearn_train, "sklearn-classify": w_sklearn_classify,
     "vw-convert": w_vw_convert, "vw": lambda *a: w_vw(list(a)), "fasttext-convert": w_fasttext_convert,
     "fasttext-train": w_fasttext_train, "fasttext-classify": w_fasttext_classify,
     "chart": w_chart}[cmd](*args)


# ---------------------------------------------------------------- chart data (shared by both drawers)

def fmt_docs(n):
    for div, unit in ((1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:g}{unit}"
    return f"{n:g}"


def chart_series(results):
    """One series per tool and step: points (documents, CPU s, peak MiB) of the steps that
    finished, and in the label the sizes where it did not."""
    series = {}
    for r in results:
        key = (r["tool"], r["step"])
        s = series.setdefault(key, {"points": [], "failed": []})
        if r["status"] == "ok" and r.get("cpu_s") is not None and r.get("peak_rss_mib"):
            s["points"].append((r["documents"], max(r["cpu_s"], 0.005), r["peak_rss_mib"]))
        elif not r["status"].startswith("skipped"):
            s["failed"].append((r["documents"], r["status"]))
    out = []
    rank = lambda k: (TOOL_ORDER.index(k[0]) if k[0] in TOOL_ORDER else 99, k[0],
                      STEP_ORDER.index(k[1]) if k[1] in STEP_ORDER else 99, k[1])
    for key in sorted(series, key=rank):
        s = series[key]
        if not s["points"]:
            continue
        label = f"{key[0]} {key[1]}"
        if s["failed"]:
            label += " (" + ", ".join(f"{st} at {fmt_docs(n)}" for n, st in sorted(s["failed"])) + ")"
        out.append({"label": label, "color": COLORS.get(key[0], "#7f7f7f"),
                    "dash": DASHES.get(key[1], ""), "points": sorted(s["points"])})
    return out


def chart_title(data):
    m = data.get("meta", {})
    src = os.path.basename(m.get("source", "").rstrip("/")) or "scaled"
    where = f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores, {m.get('mem_gib', 0):.0f} GiB"
    return f"Train and classify on {src} corpora scaled up ({where})"


def svg_chart(data, path):
    """The chart without matplotlib: two log-log panels and a legend, in plain SVG."""
    series = chart_series(data["results"])
    esc = lambda t: str(t).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    pw, ph, top, left, gap = 400, 320, 70, 80, 110
    ncol = 3
    rows = math.ceil(len(series) / ncol)
    width = left + 2 * pw + gap + 30
    height = top + ph + 70 + rows * 20 + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="15">{esc(chart_title(data))}</text>']

    def span(values):
        """The axis range: the nearest 1, 2 or 5 times a power of ten around the values."""
        nice = lambda k: [m * 10 ** k for m in (1, 2, 5)]
        lo_k, hi_k = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
        lo = max(v for k in (lo_k - 1, lo_k) for v in nice(k) if v <= min(values) * 1.0001)
        hi = min(v for k in (hi_k - 1, hi_k) for v in nice(k) if v >= max(values) * 0.9999)
        return (lo, hi) if hi > lo else (lo / 2, hi * 2)

    def ticks(lo, hi):
        """(value, major, labelled) for 1..9 times each power of ten within lo..hi: the powers
        labelled, and 2 and 5 too when the axis spans at most two decades."""
        few = math.log10(hi / lo) <= 2.01
        for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
            for m in range(1, 10):
                v = m * 10 ** k
                if lo * 0.9999 <= v <= hi * 1.0001:
                    yield v, m == 1, m == 1 or (few and m in (2, 5))

    xlabel = fmt_docs
    ylabel_of = lambda v: f"{v:,.0f}" if v >= 1 else f"{v:g}"

    xs = [p[0] for s in series for p in s["points"]]
    xlo, xhi = span(xs)
    for i, (idx, ylabel, title) in enumerate(((1, "CPU seconds (user + system)", "CPU time"),
                                              (2, "peak resident memory (MiB)", "Peak memory"))):
        x0 = left + i * (pw + gap)
        ylo, yhi = span([p[idx] for s in series for p in s["points"]])
        fx = lambda v: x0 + (math.log10(v) - math.log10(xlo)) / (math.log10(xhi) - math.log10(xlo)) * pw
        fy = lambda v: top + ph - (math.log10(v) - math.log10(ylo)) / (math.log10(yhi) - math.log10(ylo)) * ph
        out.append(f'<text x="{x0 + pw / 2}" y="{top - 10}" text-anchor="middle" font-size="13">{title}</text>')
        for v, major, labelled in ticks(xlo, xhi):
            x = fx(v)
            out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" '
                       f'stroke="{"#cccccc" if major else "#eeeeee"}"/>')
            if labelled:
                out.append(f'<text x="{x:.1f}" y="{top + ph + 16}" text-anchor="middle">{xlabel(v)}</text>')
        for v, major, labelled in ticks(ylo, yhi):
            y = fy(v)
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + pw}" y2="{y:.1f}" '
                       f'stroke="{"#cccccc" if major else "#eeeeee"}"/>')
            if labelled:
                out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{ylabel_of(v)}</text>')
        out.append(f'<rect x="{x0}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333333"/>')
        out.append(f'<text x="{x0 + pw / 2}" y="{top + ph + 38}" text-anchor="middle">documents</text>')
        cy = top + ph / 2
        out.append(f'<text x="{x0 - 58}" y="{cy}" text-anchor="middle" '
                   f'transform="rotate(-90 {x0 - 58} {cy})">{ylabel}</text>')
        for s in series:
            pts = " ".join(f"{fx(p[0]):.1f},{fy(p[idx]):.1f}" for p in s["points"])
            dash = f' stroke-dasharray="{s["dash"]}"' if s["dash"] else ""
            out.append(f'<polyline points="{pts}" fill="none" stroke="{s["color"]}" stroke-width="1.8"{dash}/>')
            for p in s["points"]:
                out.append(f'<circle cx="{fx(p[0]):.1f}" cy="{fy(p[idx]):.1f}" r="3" fill="{s["color"]}"/>')
    colw = (width - 2 * left) / ncol
    for j, s in enumerate(series):
        x = left + (j // rows) * colw  # down the columns, so a tool's lines stay together
        y = top + ph + 66 + (j % rows) * 20
        dash = f' stroke-dasharray="{s["dash"]}"' if s["dash"] else ""
        out.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x + 30:.1f}" y2="{y}" stroke="{s["color"]}" '
                   f'stroke-width="1.8"{dash}/>')
        out.append(f'<circle cx="{x + 15:.1f}" cy="{y}" r="3" fill="{s["color"]}"/>')
        out.append(f'<text x="{x + 38:.1f}" y="{y + 4}">{esc(s["label"])}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- measuring

def progress(msg):
    print("scale: " + msg, file=sys.stderr, flush=True)


def meminfo(key):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return None


def descendants(pid):
    """Every process below pid (from the parent links in /proc/*/stat)."""
    parent = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parent[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        todo += kids
    return out


def rss_of(pids):
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
    return total


def parse_time(path):
    """The figures of a `/usr/bin/time -v -o PATH` report."""
    try:
        text = open(path).read()
    except OSError:
        return {}
    grab = lambda pat: (re.search(pat, text) or [None, None])[1]
    out = {}
    user, system = grab(r"User time \(seconds\): ([\d.]+)"), grab(r"System time \(seconds\): ([\d.]+)")
    if user is not None and system is not None:
        out["user_s"], out["sys_s"] = float(user), float(system)
        out["cpu_s"] = round(float(user) + float(system), 2)
    elapsed = grab(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)")
    if elapsed:
        secs = 0.0
        for part in elapsed.split(":"):
            secs = secs * 60 + float(part)
        out["wall_s"] = round(secs, 2)
    rss = grab(r"Maximum resident set size \(kbytes\): (\d+)")
    if rss:
        out["peak_rss_mib"] = round(int(rss) / 1024, 1)
    sig, code = grab(r"Command terminated by signal (\d+)"), grab(r"Command exited with non-zero status (\d+)")
    out["signal"] = int(sig) if sig else None
    out["exit"] = int(code) if code else 0
    return out


def count_lines(path):
    n = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            n += block.count(b"\n")
    return n


class Bench:
    def __init__(self, args, work, py, have):
        self.args, self.work, self.py, self.have = args, work, py, have
        self.results = []
        self.mem_limit = int(args.mem_limit * GIB)

    def keep_or_remove(self, *paths):
        if self.args.keep:
            return
        for p in paths:
            if os.path.isdir(p):
                shutil.rmtree(p, ignore_errors=True)
            elif os.path.exists(p):
                os.remove(p)

    def record(self, tool, step, n, status, note="", **figures):
        r = {"tool": tool, "step": step, "documents": n, "status": status, "note": note,
             "wall_s": None, "cpu_s": None, "user_s": None, "sys_s": None, "peak_rss_mib": None,
             "docs_per_s": None}
        r.update(figures)
        self.results.append(r)
        return r

    def skip(self, tool, step, n, why):
        progress(f"{fmt_docs(n)} {tool} {step}: skipped, {why}")
        return self.record(tool, step, n, "skipped: " + why.split(":")[0])

    def disk_ok(self, tool, step, n, need):
        free = shutil.disk_usage(self.work).free
        if free >= need + 512 * MIB:
            return True
        self.skip(tool, step, n, f"not enough disk: needs about {need / GIB:.1f} GiB, "
                                 f"{free / GIB:.1f} GiB free in {self.work}")
        self.results[-1]["note"] = f"needs about {need / GIB:.1f} GiB of disk, {free / GIB:.1f} GiB were free"
        return False

    def step(self, tool, step, n, cmd, out=os.devnull, expect_lines=None, lines_of=None):
        """Runs cmd under /usr/bin/time -v, watching its memory and time; records the figures.
        expect_lines: the lines its output (out, or the file lines_of) must have."""
        tag = re.sub(r"[^A-Za-z0-9]+", "-", f"{tool}-{step}-{n}").strip("-")
        timefile, errfile = os.path.join(self.work, tag + ".time"), os.path.join(self.work, tag + ".err")
        progress(f"{fmt_docs(n)} documents: {tool} {step} ...")
        why, seen, t0 = None, 0, time.monotonic()
        with open(out, "wb") as o, open(errfile, "wb") as e:
            p = subprocess.Popen(["/usr/bin/time", "-v", "-o", timefile] + [str(c) for c in cmd],
                                 stdout=o, stderr=e, start_new_session=True)
            try:
                killed_at = None
                while True:
                    try:
                        p.wait(timeout=0.2)
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    kids = descendants(p.pid)
                    rss = rss_of(kids)
                    seen = max(seen, rss)
                    if why is None:
                        avail = meminfo("MemAvailable")
                        if rss > self.mem_limit:
                            why = f"stopped at {rss / GIB:.2f} GiB resident (limit {self.args.mem_limit:g} GiB)"
                        elif avail is not None and avail < 512 * MIB:
                            why = (f"stopped at {rss / GIB:.2f} GiB resident: the machine had "
                                   f"{avail / MIB:.0f} MiB available")
                        elif time.monotonic() - t0 > self.args.timeout:
                            why = "timeout"
                        if why:  # stop the measured process, not time(1), so that it still reports
                            killed_at = time.monotonic()
                            for k in kids:
                                try:
                                    os.kill(k, signal.SIGKILL)
                                except OSError:
                                    pass
                    elif time.monotonic() - killed_at > 10:
                        os.killpg(p.pid, signal.SIGKILL)
            except BaseException:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                p.wait()
                raise
        fig = parse_time(timefile)
        err = open(errfile, encoding="utf-8", errors="replace").read()
        self.keep_or_remove(timefile)
        figures = {k: fig.get(k) for k in ("wall_s", "cpu_s", "user_s", "sys_s", "peak_rss_mib")}
        if figures["wall_s"] is None:
            figures["wall_s"] = round(time.monotonic() - t0, 2)
        if figures["peak_rss_mib"] is None and seen:
            figures["peak_rss_mib"] = round(seen / MIB, 1)
        note = ""
        if why == "timeout":
            status, note = "timeout", f"stopped after {self.args.timeout:g} s"
        elif why:
            status, note = "out of memory", why
        elif fig.get("signal") or fig.get("exit") or p.returncode:
            sig, code = fig.get("signal"), fig.get("exit") or p.returncode
            if sig == signal.SIGKILL:
                status, note = "out of memory", "killed by signal 9 (the kernel's out-of-memory killer?)"
            elif re.search(r"MemoryError|memory allocation of \d+ bytes failed|std::bad_alloc|"
                           r"Unable to allocate|Cannot allocate memory", err):
                status, note = "out of memory", "the process could not allocate memory"
            else:
                status = f"failed (signal {sig})" if sig else f"failed (exit {code})"
            last = [l for l in err.strip().splitlines() if l.strip()][-3:]
            note = "; ".join(x for x in [note] + last if x)[:400]
        else:
            status = "ok"
            if expect_lines is not None:
                got = count_lines(lines_of or out) if os.path.exists(lines_of or out) else 0
                if got != expect_lines:
                    status, note = "failed", f"{got:,} lines of output for {expect_lines:,} documents"
            if "ConvergenceWarning" in err:
                note = "did not converge (ConvergenceWarning: max_iter reached)"
        if status == "ok" and figures["wall_s"]:
            figures["docs_per_s"] = round(n / max(figures["wall_s"], 0.01))
        if status == "ok":
            self.keep_or_remove(errfile)
        r = self.record(tool, step, n, status, note, **figures)
        # the command as run, the work folder written WORK and the peer Python by its name
        shown_cmd = [os.path.basename(str(cmd[0]))] + [str(c) for c in cmd[1:]]
        r["command"] = [c.replace(SCRIPT, "benches/scale.py").replace(self.work, "WORK") for c in shown_cmd]
        shown = (f"{figures['wall_s']} s wall, {figures['cpu_s']} s CPU, {figures['peak_rss_mib']} MiB peak")
        progress(f"    {status}: {shown}" + (f" ({note})" if note else ""))
        return status == "ok"

    def worker_cmd(self, *args):
        return [self.py, SCRIPT, "worker", *args]

    # ------------------------------------------------------------ the tools

    def run_rosenblatt(self, n, tsv):
        model = os.path.join(self.work, f"rosenblatt-{n}.model")
        pred = os.path.join(self.work, f"rosenblatt-{n}.pred")
        log = os.path.join(self.work, f"rosenblatt-{n}.train.log")
        if self.step("rosenblatt", "train", n, [self.args.bin, "train", tsv, "-o", model], out=log):
            self.step("rosenblatt", "classify", n,
                      [self.args.bin, "classify", "-m", model, "--input-format", "tsv", tsv],
                      out=pred, expect_lines=n)
        else:
            self.skip("rosenblatt", "classify", n, "train failed")
        self.keep_or_remove(model, pred, log)

    def run_rosenblatt_cache(self, n, tsv):
        """`train --cache`: the rows on disk, not in memory; then the same command again,
        which trains from the cache without reading the text."""
        tool = dict(TOOLS)["rosenblatt-cache"]
        model = os.path.join(self.work, f"rosenblatt-cache-{n}.model")
        cache = os.path.join(self.work, f"rosenblatt-{n}.rows")
        log = os.path.join(self.work, f"rosenblatt-cache-{n}.train.log")
        if os.path.exists(cache):
            os.remove(cache)
        # Rows take about 0.36 of the text (rt-2k), twice while the spilled rows are renumbered.
        if self.disk_ok(tool, "train", n, 0.8 * os.path.getsize(tsv)):
            cmd = [self.args.bin, "train", "--cache", cache, tsv, "-o", model]
            if self.step(tool, "train", n, cmd, out=log):
                self.step(tool, "train again", n, cmd, out=log)
            else:
                self.skip(tool, "train again", n, "train failed")
        self.keep_or_remove(model, log, cache)

    def run_sklearn(self, key, n, tsv):
        tool = dict(TOOLS)["sklearn-" + key]
        model = os.path.join(self.work, f"sklearn-{key}-{n}.pickle")
        pred = os.path.join(self.work, f"sklearn-{key}-{n}.pred")
        if self.step(tool, "train", n, self.worker_cmd("sklearn-train", key, tsv, model)):
            self.step(tool, "classify", n, self.worker_cmd("sklearn-classify", tsv, model, pred),
                      expect_lines=n, lines_of=pred)
        else:
            self.skip(tool, "classify", n, "train failed")
        self.keep_or_remove(model, pred)

    def run_vw(self, n, tsv, one, passes):
        data = os.path.join(self.work, f"vw-{n}.txt")
        if any(c.isspace() for c in self.work):
            why = "VW's argument string cannot hold a path with spaces (--work)"
            for tool, want in (("VW", one), (dict(TOOLS)["vw-passes"], passes)):
                if want:
                    self.skip(tool, "train", n, why)
            return
        size = os.path.getsize(tsv)
        if not self.disk_ok("VW", "convert", n, size + 16 * n):
            return
        if not self.step("VW", "convert", n, self.worker_cmd("vw-convert", tsv, data)):
            self.keep_or_remove(data, data + ".labels")
            return
        with open(data + ".labels") as f:
            k = len(json.load(f))
        opts = VW_OPTS_2 if k == 2 else f"--oaa {k} -b 24"
        if one:
            model, pred = os.path.join(self.work, f"vw-{n}.model"), os.path.join(self.work, f"vw-{n}.pred")
            if self.step("VW", "train", n, self.worker_cmd("vw", f"-d {data} {opts} -f {model}")):
                self.step("VW", "classify", n, self.worker_cmd("vw", f"-t -i {model} -d {data} -p {pred}"),
                          expect_lines=n, lines_of=pred)
            else:
                self.skip("VW", "classify", n, "train failed")
            self.keep_or_remove(model, pred)
        if passes:
            tool = dict(TOOLS)["vw-passes"]
            model, cache = os.path.join(self.work, f"vw7-{n}.model"), os.path.join(self.work, f"vw-{n}.cache")
            if self.disk_ok(tool, "train", n, size):
                self.step(tool, "train", n, self.worker_cmd(
                    "vw", f"-d {data} {opts} -c -k --cache_file {cache} --passes 7 --holdout_off -f {model}"))
            self.keep_or_remove(model, cache)
        self.keep_or_remove(data, data + ".labels")

    def run_fasttext(self, n, tsv):
        tool = "fastText"
        data = os.path.join(self.work, f"fasttext-{n}.txt")
        model = os.path.join(self.work, f"fasttext-{n}.bin")
        pred = os.path.join(self.work, f"fasttext-{n}.pred")
        if not self.disk_ok(tool, "convert", n, os.path.getsize(tsv) + 16 * n):
            return
        if self.step(tool, "convert", n, self.worker_cmd("fasttext-convert", tsv, data)):
            if self.step(tool, "train", n, self.worker_cmd("fasttext-train", data, model)):
                self.step(tool, "classify", n, self.worker_cmd("fasttext-classify", tsv, model, pred),
                          expect_lines=n, lines_of=pred)
            else:
                self.skip(tool, "classify", n, "train failed")
        self.keep_or_remove(data, model, pred)

    def run_size(self, n, tsv):
        tools = self.args.tools
        if "rosenblatt" in tools:
            self.run_rosenblatt(n, tsv)
        if "rosenblatt-cache" in tools:
            self.run_rosenblatt_cache(n, tsv)
        for key in ("tfidf-svc", "hash-sgd"):
            if "sklearn-" + key in tools and self.have.get("sklearn"):
                self.run_sklearn(key, n, tsv)
        one, passes = "vw" in tools, "vw-passes" in tools
        if (one or passes) and self.have.get("vowpalwabbit"):
            self.run_vw(n, tsv, one, passes)
        if "fasttext" in tools and self.have.get("fasttext"):
            self.run_fasttext(n, tsv)


# ---------------------------------------------------------------- corpora, table, main

def bytes_per_doc(source):
    """Mean bytes of a source document, to foresee a corpus's size on disk."""
    total = docs = 0
    if os.path.isdir(source):
        for cls in os.listdir(source):
            d = os.path.join(source, cls)
            if os.path.isdir(d) and cls != "original":
                for f in os.listdir(d):
                    total += os.path.getsize(os.path.join(d, f))
                    docs += 1
    else:
        total, docs = os.path.getsize(source), count_lines(source)
    return total / max(docs, 1) + 8


def make_corpus(args, work, n):
    """The corpus of n documents in work: reused when there, else written by the scale tool."""
    name = f"{os.path.basename(args.source.rstrip('/'))}-{n}-seed{args.seed}.tsv"
    path = os.path.join(work, name)
    if os.path.exists(path):
        progress(f"{fmt_docs(n)} documents: reusing {path}")
        return path
    need = n * bytes_per_doc(args.source)
    free = shutil.disk_usage(work).free
    if free < need + GIB:
        progress(f"{fmt_docs(n)} documents: not enough disk for the corpus (about {need / GIB:.1f} GiB, "
                 f"{free / GIB:.1f} GiB free in {work}); size skipped")
        return None
    progress(f"{fmt_docs(n)} documents: writing the corpus (about {need / GIB:.2f} GiB) ...")
    t0 = time.monotonic()
    part = path + ".part"
    subprocess.run([sys.executable, args.scale_tool, args.source, str(n), part, str(args.seed)], check=True)
    os.replace(part, path)  # a corpus cut short never has the final name
    progress(f"    written in {time.monotonic() - t0:.0f} s, {os.path.getsize(path) / GIB:.2f} GiB")
    return path


def parse_size(s):
    s = s.strip().replace("_", "")
    mult = {"k": 10 ** 3, "m": 10 ** 6}.get(s[-1:].lower(), 1)
    return int(round(float(s[:-1] if mult > 1 else s) * mult))


def cell(v):
    if v is None:
        return "–"
    if v >= 1000:
        return f"{v:,.0f}"
    return f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def table(results):
    rank = lambda r: (TOOL_ORDER.index(r["tool"]) if r["tool"] in TOOL_ORDER else 99, r["tool"],
                      STEP_ORDER.index(r["step"]) if r["step"] in STEP_ORDER else 99, r["step"],
                      r["documents"])
    lines = ["| tool | step | documents | wall s | CPU s | peak RSS MiB | docs/s |",
             "|---|---|--:|--:|--:|--:|--:|"]
    notes = []
    for r in sorted(results, key=rank):
        head = f"| {r['tool']} | {r['step']} | {r['documents']:,} |"
        if r["status"] == "ok":
            lines.append(f"{head} {cell(r['wall_s'])} | {cell(r['cpu_s'])} | {cell(r['peak_rss_mib'])} | "
                         f"{r['docs_per_s']:,} |")
        else:
            rss = cell(r["peak_rss_mib"]) if r["status"] == "out of memory" and r.get("peak_rss_mib") else "–"
            lines.append(f"{head} {r['status']} | – | {('≥ ' + rss) if rss != '–' else rss} | – |")
        if r.get("note"):
            notes.append(f"- {r['tool']} {r['step']}, {r['documents']:,} documents: {r['note']}")
    return "\n".join(lines + ([""] + notes if notes else []))


def find_python(args):
    """The peer Python: --python, else what setup.sh prints (it installs the peers if needed)."""
    if args.python:
        return args.python, None
    progress(f"running {args.setup} to find the peer Python (it may install the peers) ...")
    try:
        res = subprocess.run(["bash", args.setup], capture_output=True, text=True, timeout=1800)
        lines = res.stdout.strip().splitlines()
        if res.returncode == 0 and lines and os.access(lines[-1], os.X_OK):
            return lines[-1], None
        why = (res.stderr.strip().splitlines() or [f"exit {res.returncode}"])[-1]
    except (OSError, subprocess.SubprocessError) as e:
        why = str(e)
    return sys.executable, f"{args.setup} failed ({why}); peers looked for in {sys.executable}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the top of this file for what each step runs.")
    rel = lambda *p: os.path.normpath(os.path.join(ROOT, *p))
    ap.add_argument("--sizes", default="100000,400000,1600000,8000000")
    ap.add_argument("--source", default=rel("..", "shared", "corpora", "sentiment", "rt-2k"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale-tool", default=rel("..", "shared", "tools", "scale", "scale_corpus.py"))
    ap.add_argument("--setup", default=rel("..", "shared", "tools", "peers", "setup.sh"))
    ap.add_argument("--bin", default=rel("target", "release", "rosenblatt"))
    ap.add_argument("--python")
    ap.add_argument("--tools", default=",".join(k for k, _ in TOOLS))
    ap.add_argument("--work")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=3600)
    mem_gib = (meminfo("MemTotal") or 0) / GIB
    ap.add_argument("--mem-limit", type=float, default=max(round(mem_gib - 1, 1), 1.0))
    ap.add_argument("--json")
    ap.add_argument("--merge", action="append", default=[])
    ap.add_argument("--chart")
    args = ap.parse_args()
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = set(args.tools) - {k for k, _ in TOOLS}
    if unknown:
        ap.error(f"unknown --tools {', '.join(sorted(unknown))}; known: {', '.join(k for k, _ in TOOLS)}")
    if args.chart and not args.chart.endswith(".svg"):
        ap.error("--chart writes SVG: give a name ending in .svg")
    if sizes:
        for what, path in (("--source", args.source), ("--scale-tool", args.scale_tool)):
            if not os.path.exists(path):
                sys.exit(f"scale: {what} {path} does not exist")
        if {"rosenblatt", "rosenblatt-cache"} & set(args.tools) and not os.access(args.bin, os.X_OK):
            sys.exit(f"scale: no rosenblatt binary at {args.bin} (cargo build --release, or --bin)")
        if not os.path.exists("/usr/bin/time"):
            sys.exit("scale: /usr/bin/time (GNU time) is needed: apt-get install time")
    args.bin = os.path.abspath(args.bin)
    args.source = os.path.abspath(args.source)

    notes = []
    py, have = sys.executable, {}
    peers_wanted = [t for t in args.tools if not t.startswith("rosenblatt")]
    if (sizes and peers_wanted) or args.chart:
        py, why = find_python(args)
        if why:
            notes.append(why)
        probe = subprocess.run([py, SCRIPT, "worker", "probe"], capture_output=True, text=True)
        try:
            have = json.loads(probe.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            notes.append(f"{py} could not be probed for the peers: {probe.stderr.strip()[-200:]}")
        if sizes:
            for keys, mod in ((("sklearn-tfidf-svc", "sklearn-hash-sgd"), "sklearn"),
                              (("vw", "vw-passes"), "vowpalwabbit"), (("fasttext",), "fasttext")):
                if set(keys) & set(args.tools) and not have.get(mod):
                    notes.append(f"{mod} is not installed in {py}: "
                                 f"{', '.join(k for k in keys if k in args.tools)} skipped")
    for note in notes:
        progress("note: " + note)

    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?"),
        "cores": os.cpu_count(), "mem_gib": round(mem_gib, 1), "kernel": platform.release(),
        "source": args.source, "seed": args.seed, "timeout_s": args.timeout, "mem_limit_gib": args.mem_limit,
        "python": py, "peers": have, "notes": notes,
    }
    if sizes and {"rosenblatt", "rosenblatt-cache"} & set(args.tools):
        version = subprocess.run([args.bin, "--version"], capture_output=True, text=True).stdout.strip()
        meta["rosenblatt"] = (version.splitlines() or ["rosenblatt (no --version)"])[0]

    results, corpora, merged = [], {}, []
    for path in args.merge:
        with open(path) as f:
            old = json.load(f)
        merged.append(old.get("meta", {}))
        results += old.get("results", [])
        corpora.update(old.get("corpora", {}))

    work = os.path.abspath(args.work) if args.work else None
    temp = work is None
    bench = None
    try:
        if sizes:
            if temp:
                work = tempfile.mkdtemp(prefix="rosenblatt-scale-")
            os.makedirs(work, exist_ok=True)
            progress(f"work folder {work}; sizes {', '.join(f'{n:,}' for n in sizes)}; "
                     f"tools {', '.join(args.tools)}; limits {args.timeout:g} s, {args.mem_limit:g} GiB")
            bench = Bench(args, work, py, have)
            for i, n in enumerate(sizes):
                progress(f"[{i + 1}/{len(sizes)}] {n:,} documents")
                tsv = make_corpus(args, work, n)
                if tsv is None:
                    continue
                corpora[str(n)] = os.path.getsize(tsv)
                bench.run_size(n, tsv)
                if temp and not args.keep:
                    os.remove(tsv)
    except KeyboardInterrupt:
        progress("interrupted: the table holds the steps that finished")
    finally:
        if bench is not None:
            new = {(r["tool"], r["step"], r["documents"]) for r in bench.results}
            results = [r for r in results if (r["tool"], r["step"], r["documents"]) not in new] + bench.results
        if temp and work and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        elif work:
            progress(f"kept {work}")

    if merged:
        meta["merged_from"] = merged
        if "rosenblatt" not in meta:
            meta["rosenblatt"] = next((m["rosenblatt"] for m in merged if m.get("rosenblatt")), "rosenblatt")
    data = {"meta": meta, "corpora": corpora, "results": results}
    peers = ", ".join(f"{k} {v}" for k, v in have.items() if v and k != "matplotlib")
    print(f"{meta['cpu']}, {meta['cores']} cores, {meta['mem_gib']:g} GiB"
          + (f"; {meta['rosenblatt']}" if "rosenblatt" in meta else "")
          + (f"; peers in {py}: {peers}" if peers else "") + "\n")
    print(table(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        progress(f"wrote {args.json}")
    if args.chart:
        if not chart_series(results):
            progress("no finished steps to chart; no chart written")
        elif have.get("matplotlib"):
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(data, f)
            try:
                subprocess.run([py, SCRIPT, "worker", "chart", f.name, args.chart], check=True)
                progress(f"wrote {args.chart} (matplotlib {have['matplotlib']})")
            finally:
                os.remove(f.name)
        else:
            svg_chart(data, args.chart)
            progress(f"wrote {args.chart} (plain SVG: no matplotlib in {py})")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        worker(sys.argv[2:])
    else:
        main()
