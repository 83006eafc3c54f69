//! A document's distinct tokens, gathered without an allocation per token.
//!
//! Looking words up in a store or learning them needs each distinct token once. A set of
//! `String`s allocates once per distinct word and a sorted list compares whole strings;
//! on a mail message that was a fifth of a daemon's verdict. [`UniqueWords`] keeps the
//! words' bytes end to end in one buffer and a hash table of their spans, so a repeated
//! token costs one probe and a new one a copy into the buffer. The words come out in the
//! order they first appeared, or sorted on request (learning gives new words their ids in
//! sorted order).
//!
//! A document's words come from the analyzer's batches ([`UniqueWords::of`]: the block
//! scanner, no allocation per word). The table hashes with [`word_hash`], seeded once per
//! process, rather than the scanner's fixed hash: its words are a message's, chosen by
//! whoever sent it, and a fixed hash would let a sender fill one probe sequence with them.
//! Each word keeps its hash, so that a store's memory of records, which hashes its keys
//! alike, does not hash the word again.

use super::{Analyzer, with_batch};
use crate::input::Document;
use hashbrown::HashTable;
use std::hash::BuildHasher;
use std::sync::LazyLock;

/// The process's seeded hasher of a message's words.
static WORD_HASHER: LazyLock<hashbrown::DefaultHashBuilder> = LazyLock::new(Default::default);

/// The hash of a word (or of any key of a message's words), seeded once per process: the
/// one [`UniqueWords`] keeps beside each word.
#[inline]
pub(crate) fn word_hash(bytes: &[u8]) -> u64 {
    WORD_HASHER.hash_one(bytes)
}

/// Where a word's bytes lie, and its [`word_hash`].
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    end: u32,
    hash: u64,
}

/// The distinct tokens of a document, in first-seen order until [`sort`](Self::sort).
#[derive(Debug, Clone, Default)]
pub(crate) struct UniqueWords {
    /// Every distinct word's bytes, one after another.
    bytes: String,
    /// Each word's start and end in `bytes`, and its hash, in the words' order.
    spans: Vec<Span>,
    /// Indexes into `spans`, by the word's hash.
    table: HashTable<u32>,
}

impl UniqueWords {
    /// An empty set sized for the words of about `bytes` bytes of text (a document's
    /// distinct words take about a tenth of its bytes), so that growing it is rare.
    pub(crate) fn for_text(bytes: usize) -> UniqueWords {
        let words = (bytes / 12).clamp(16, 4096);
        UniqueWords {
            bytes: String::with_capacity(words * 8),
            spans: Vec::with_capacity(words),
            table: HashTable::with_capacity(words),
        }
    }

    /// The distinct tokens of `doc` under `analyzer`, in first-seen order.
    pub(crate) fn of(analyzer: &Analyzer, doc: &Document) -> UniqueWords {
        // Header fields and tags bring words of their own: counted, so the set seldom grows.
        let bytes = doc.fields.iter().map(|(_, t)| t.len()).sum::<usize>()
            + doc.text.len()
            + 12 * doc.tags.len();
        let mut words = UniqueWords::for_text(bytes);
        // The thread's batch: a fresh one a message grew from nothing, a fiftieth of a
        // daemon's verdict.
        with_batch(|buf| {
            analyzer.scan(doc, buf, &mut |b| {
                for i in 0..b.len() {
                    words.insert(b.word(i));
                }
            })
        });
        words
    }

    /// Adds `word` unless it is already there.
    pub(crate) fn insert(&mut self, word: &str) {
        let hash = word_hash(word.as_bytes());
        let (bytes, spans) = (&self.bytes, &self.spans);
        let at = |i: &u32| {
            let s = spans[*i as usize];
            &bytes.as_bytes()[s.start as usize..s.end as usize]
        };
        if self
            .table
            .find(hash, |i| at(i) == word.as_bytes())
            .is_some()
        {
            return;
        }
        let index = self.spans.len() as u32;
        self.table
            .insert_unique(hash, index, |i| spans[*i as usize].hash);
        let start = self.bytes.len() as u32;
        self.bytes.push_str(word);
        self.spans.push(Span {
            start,
            end: self.bytes.len() as u32,
            hash,
        });
    }

    /// How many distinct words.
    #[cfg(any(test, feature = "store"))]
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// Puts the words in sorted (byte) order; the set can take no more words after.
    pub(crate) fn sort(&mut self) {
        let bytes = self.bytes.as_bytes();
        self.spans.sort_unstable_by(|a, b| {
            bytes[a.start as usize..a.end as usize].cmp(&bytes[b.start as usize..b.end as usize])
        });
        self.table = HashTable::new();
    }

    /// The words, in first-seen order or, after [`sort`](Self::sort), sorted.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.spans
            .iter()
            .map(|s| &self.bytes[s.start as usize..s.end as usize])
    }

    /// Each word's [`word_hash`], in the order of [`iter`](Self::iter).
    #[cfg(any(test, feature = "store"))]
    pub(crate) fn hashes(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.spans.iter().map(|s| s.hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn repeated_words_are_kept_once_in_first_seen_order() {
        let mut u = UniqueWords::default();
        for w in ["spam", "ham", "spam", "", "café", "ham", ""] {
            u.insert(w);
        }
        assert_eq!(u.iter().collect::<Vec<_>>(), ["spam", "ham", "", "café"]);
        assert_eq!(u.len(), 4);
        u.sort();
        assert_eq!(u.iter().collect::<Vec<_>>(), ["", "café", "ham", "spam"]);
        // Each word keeps its own hash through the sort.
        for (w, h) in u.iter().zip(u.hashes()) {
            assert_eq!(h, word_hash(w.as_bytes()), "{w}");
        }
    }

    proptest! {
        /// The words are those of a set of strings, sorted alike.
        #[test]
        fn the_words_are_a_sorted_set_of_strings(words in proptest::collection::vec("[a-cé]{0,4}", 0..200)) {
            let mut u = UniqueWords::default();
            for w in &words {
                u.insert(w);
            }
            let mut set: Vec<&str> = words.iter().map(String::as_str).collect();
            set.sort_unstable();
            set.dedup();
            prop_assert_eq!(u.len(), set.len());
            u.sort();
            prop_assert_eq!(u.iter().collect::<Vec<_>>(), set);
        }
    }
}
