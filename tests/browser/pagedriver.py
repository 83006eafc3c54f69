"""What the browser test of `rosenblatt serve`'s page and the script of its screenshots
share: the program, a filter trained on the shipped SpamAssassin corpus, a daemon started
on it, and headless Chromium driven through Debian's chromedriver (no browser or driver
is downloaded: where either is missing, `browser_paths` says so)."""

import os
import pathlib
import shutil
import subprocess
import threading

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "corpora" / "spamassassin"
#: The learning credential the daemons here are started with.
KEY = "page-credential-1"


def program():
    """The `rosenblatt` program: $ROSENBLATT_BIN, else the newest build under target/."""
    env = os.environ.get("ROSENBLATT_BIN")
    if env:
        return os.path.abspath(env) if os.sep in env else env
    builds = [ROOT / "target" / p / "rosenblatt" for p in ("release", "debug")]
    builds = [p for p in builds if p.is_file()]
    if builds:
        return str(max(builds, key=lambda p: p.stat().st_mtime))
    found = shutil.which("rosenblatt")
    if not found:
        raise RuntimeError("no rosenblatt program: build it (cargo build) or set ROSENBLATT_BIN")
    return found


def run(*args, codes=(0,)):
    """Runs the program with `args`; its stdout (raises on an exit code not in `codes`,
    with its stderr)."""
    done = subprocess.run([program(), *map(str, args)], capture_output=True, text=True)
    if done.returncode not in codes:
        raise RuntimeError(f"rosenblatt {' '.join(map(str, args))}: {done.stderr}")
    return done.stdout


def browser_paths():
    """(chromium, chromedriver), or a sentence saying which is missing."""
    chromium = next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p),
        None,
    )
    driver = shutil.which("chromedriver")
    if chromium and driver:
        return chromium, driver
    missing = [n for n, p in (("chromium", chromium), ("chromedriver", driver)) if not p]
    return f"no {' or '.join(missing)} (Debian: apt-get install chromium chromium-driver)"


def corpus(dir, per_class):
    """The first `per_class` messages of each class of the shipped corpus (in the order
    of their paths), copied under `dir/spam` and `dir/ham`; the messages not copied, by
    class, in the same order."""
    rest = {}
    for cls in ("spam", "ham"):
        files = sorted(p for p in (SHIPPED / cls).rglob("*") if p.is_file())
        (dir / cls).mkdir(parents=True)
        for f in files[:per_class]:
            shutil.copy(f, dir / cls / f.name)
        rest[cls] = files[per_class:]
    return rest


def filter_store(dir, per_class):
    """A spam filter trained on `per_class` messages of each class, converted to a store
    (which learns in place); (store, messages not trained on by class)."""
    rest = corpus(dir / "corpus", per_class)
    model, store = dir / "spam.model", dir / "spam.store"
    run("train", "--spam", dir / "corpus" / "spam", "--ham", dir / "corpus" / "ham", "-o", model)
    run("convert", model, store)
    return store, rest


class Serve:
    """`rosenblatt serve -m STORE --http 127.0.0.1:0 --learn-key FILE FLAGS` (the key in
    `dir`, run in the folder `cwd`), its address read from its log; ended by `stop` (or
    leaving a `with` block)."""

    def __init__(self, store, dir, flags=(), cwd=None):
        key = dir / "learn.key"
        key.write_text(KEY + "\n")
        self.proc = subprocess.Popen(
            [program(), "serve", "-m", str(store), "--http", "127.0.0.1:0",
             "--learn-key", str(key), *flags],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
        )
        self.address = None
        log = []
        for line in self.proc.stderr:
            log.append(line)
            if line.startswith("rosenblatt serve: listening: http "):
                self.address = line.split()[-1]
                break
        if self.address is None:
            self.proc.wait()
            raise RuntimeError("serve ended before listening: " + "".join(log))
        # The rest of its log is read (and dropped) so the daemon never blocks on it.
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()
        self.url = f"http://{self.address}/"

    def stop(self):
        """Ends the daemon."""
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def chrome(width=1200, height=900, dark=False):
    """Headless Chromium through Debian's chromedriver, its window `width` × `height`,
    in the dark colour scheme when `dark`."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    found = browser_paths()
    if isinstance(found, str):
        raise RuntimeError(found)
    chromium, driver = found
    # Selenium is never to fetch a browser or driver of its own.
    os.environ.setdefault("SE_OFFLINE", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--hide-scrollbars",
                "--force-device-scale-factor=1"):
        options.add_argument(arg)
    if dark:
        options.add_argument("--force-dark-mode")
        options.add_argument("--blink-settings=preferredColorScheme=0")
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)
