#!/usr/bin/env bash
# Regenerates the screenshots of `rosenblatt serve`'s page that docs/MAIL.md shows, from
# the SpamAssassin corpus shipped in corpora/ (see docs/screenshots.py for what is shown):
#   docs/page-filter.png    the filter in service: its figures and verdicts per minute
#   docs/page-history.png   the recent verdicts
#   docs/page-explain.png   a spam taken apart, its words coloured by their contributions
# Usage, from anywhere: docs/screenshots.sh   (takes about a minute after the build)
# Needs Rust, Python 3 and Debian's chromium and chromium-driver (apt-get install chromium
# chromium-driver); selenium is taken from the Python at hand, else installed into a
# virtual environment under target/. ROSENBLATT_BIN names a program to use instead of
# building one.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${ROSENBLATT_BIN:-}" ]; then
    cargo build --release --quiet --bin rosenblatt
    ROSENBLATT_BIN="${CARGO_TARGET_DIR:-target}/release/rosenblatt"
fi
export ROSENBLATT_BIN
python=python3
if ! python3 -c 'import selenium' 2>/dev/null; then
    if [ ! -x target/screenshots-venv/bin/python ]; then
        python3 -m venv target/screenshots-venv
        target/screenshots-venv/bin/pip install --quiet --disable-pip-version-check selenium
    fi
    python=target/screenshots-venv/bin/python
fi
"$python" docs/screenshots.py
