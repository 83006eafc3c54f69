"""Shared fixtures: the command-line program and the corpora beside the repository."""

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CORPORA = ROOT.parent / "shared" / "corpora"


def _program():
    """The `rosenblatt` program: $ROSENBLATT_BIN, else the newest build under target/
    (the test command builds one), else one on PATH."""
    env = os.environ.get("ROSENBLATT_BIN")
    if env:
        return env
    builds = [ROOT / "target" / p / "rosenblatt" for p in ("release", "debug")]
    builds = [p for p in builds if p.is_file()]
    if builds:
        return str(max(builds, key=lambda p: p.stat().st_mtime))
    return shutil.which("rosenblatt")


@pytest.fixture(scope="session")
def cli():
    """Runs the program with arguments; returns its stdout (fails the test on a
    non-zero exit, with its stderr)."""
    prog = _program()
    if prog is None:
        pytest.fail("no rosenblatt program: run `cargo build` first or set ROSENBLATT_BIN")

    def run(*args):
        r = subprocess.run([prog, *map(str, args)], capture_output=True, text=True)
        assert r.returncode == 0, f"rosenblatt {' '.join(map(str, args))}: {r.stderr}"
        return r.stdout

    return run


@pytest.fixture(scope="session")
def corpora():
    """../shared/corpora, or a skip with a note when it is absent."""
    if not CORPORA.is_dir():
        pytest.skip(f"corpora not found at {CORPORA}: the comparison with the command line needs them")
    return CORPORA
