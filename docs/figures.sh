#!/usr/bin/env bash
# Regenerates the charts the README shows, from the corpora shipped in corpora/:
#   docs/roc-spamassassin.svg        ROC curves of two spam filters (pa, the default, and
#                                    the plain perceptron) on a held-out half of SpamAssassin
#   docs/confusion-reuters.svg       Reuters-21578 ModApte test: the confusion heat map of the
#                                    15 largest topics and their F1
#   docs/learning-curve-spamassassin.svg
#                                    the TREC online protocol over all of SpamAssassin, in a
#                                    fixed shuffled order: (1-ROCA)% so far, errors per block
# Usage, from anywhere: docs/figures.sh   (needs only Rust; takes about a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin rosenblatt
rb=target/release/rosenblatt
if [ -n "${CARGO_TARGET_DIR:-}" ]; then rb="$CARGO_TARGET_DIR/release/rosenblatt"; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sa=corpora/spamassassin

# Every message, in the order of the md5 in its name (a fixed, shuffled order).
find "$sa/spam" "$sa/ham" -type f | awk -F/ '{ print $NF "\t" $0 }' | sort | cut -f2- \
    > "$tmp/messages"

# The held-out split: every other message of that order is held out.
for part in train test; do mkdir -p "$tmp/$part/spam" "$tmp/$part/ham"; done
n=0
while IFS= read -r f; do
    class=ham
    case "$f" in "$sa/spam/"*) class=spam ;; esac
    part=train
    if [ $((n % 2)) -eq 1 ]; then part=test; fi
    cp "$f" "$tmp/$part/$class/$(basename "$f")"
    n=$((n + 1))
done < "$tmp/messages"
mkdir -p "$tmp/models"
"$rb" train --spam "$tmp/train/spam" --ham "$tmp/train/ham" -o "$tmp/models/pa.model" > /dev/null
"$rb" train --spam "$tmp/train/spam" --ham "$tmp/train/ham" --learner perceptron \
    -o "$tmp/models/perceptron.model" > /dev/null
mkdir -p "$tmp/held-out"
mv "$tmp/test/spam" "$tmp/test/ham" "$tmp/held-out/"
"$rb" eval -m "$tmp/models/pa.model" --spam "$tmp/held-out/spam" --ham "$tmp/held-out/ham" \
    --plot docs/roc-spamassassin.svg --plot-compare "$tmp/models/perceptron.model" > /dev/null

# Reuters-21578 ModApte: train on the training part, the heat map on the test part.
r=corpora/reuters21578
"$rb" train "$r" --format reuters --split train -o "$tmp/models/reuters.model" > /dev/null
"$rb" eval -m "$tmp/models/reuters.model" "$r" --format reuters --split test \
    --plot docs/confusion-reuters.svg --plot-classes 15 > /dev/null

# The TREC online protocol over every message in the fixed order (paths relative to the
# index, here absolute).
while IFS= read -r f; do
    class=ham
    case "$f" in "$sa/spam/"*) class=spam ;; esac
    echo "$class $PWD/$f"
done < "$tmp/messages" > "$tmp/spamassassin-index"
"$rb" eval --online "$tmp/spamassassin-index" --block 250 \
    --plot docs/learning-curve-spamassassin.svg > /dev/null
echo "wrote docs/roc-spamassassin.svg docs/confusion-reuters.svg docs/learning-curve-spamassassin.svg"
