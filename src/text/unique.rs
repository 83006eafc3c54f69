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
//! scanner, no allocation per word). The table keeps its own seeded hash rather than the
//! scanner's fixed one: its words are a message's, chosen by whoever sent it, and a fixed
//! hash would let a sender fill one probe sequence with them.

use super::{Analyzer, TokenBuffer};
use crate::input::Document;
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// The distinct tokens of a document, in first-seen order until [`sort`](Self::sort).
#[derive(Debug, Clone, Default)]
pub(crate) struct UniqueWords {
    /// Every distinct word's bytes, one after another.
    bytes: String,
    /// Each word's start and end in `bytes`, in the words' order.
    spans: Vec<(u32, u32)>,
    /// Indexes into `spans`, by the word's hash.
    table: HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
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
            hasher: Default::default(),
        }
    }

    /// The distinct tokens of `doc` under `analyzer`, in first-seen order.
    pub(crate) fn of(analyzer: &Analyzer, doc: &Document) -> UniqueWords {
        // Header fields and tags bring words of their own: counted, so the set seldom grows.
        let bytes = doc.fields.iter().map(|(_, t)| t.len()).sum::<usize>()
            + doc.text.len()
            + 12 * doc.tags.len();
        let mut words = UniqueWords::for_text(bytes);
        analyzer.scan(doc, &mut TokenBuffer::default(), &mut |b| {
            for i in 0..b.len() {
                words.insert(b.word(i));
            }
        });
        words
    }

    /// Adds `word` unless it is already there.
    pub(crate) fn insert(&mut self, word: &str) {
        let hash = self.hasher.hash_one(word.as_bytes());
        let (bytes, spans) = (&self.bytes, &self.spans);
        let at = |i: &u32| {
            let (s, e) = spans[*i as usize];
            &bytes.as_bytes()[s as usize..e as usize]
        };
        if self
            .table
            .find(hash, |i| at(i) == word.as_bytes())
            .is_some()
        {
            return;
        }
        let hasher = &self.hasher;
        let index = self.spans.len() as u32;
        self.table
            .insert_unique(hash, index, |i| hasher.hash_one(at(i)));
        let start = self.bytes.len() as u32;
        self.bytes.push_str(word);
        self.spans.push((start, self.bytes.len() as u32));
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
            bytes[a.0 as usize..a.1 as usize].cmp(&bytes[b.0 as usize..b.1 as usize])
        });
        self.table = HashTable::new();
    }

    /// The words, in first-seen order or, after [`sort`](Self::sort), sorted.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.spans
            .iter()
            .map(|&(s, e)| &self.bytes[s as usize..e as usize])
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
