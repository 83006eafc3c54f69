//! Vocabulary: word ↔ dense `u32` id, with document frequencies, pruning, frozen after
//! training — or, under an analyzer with a hashing step, token → hashed id with the
//! document frequency of every id and no words kept.
//!
//! Counting runs in parallel: each thread counts document frequencies into its own map
//! (`DfCounts`) and the partial counts are merged. Ids are assigned in a deterministic
//! order (document frequency descending, then the word), so the result never depends on
//! how work was split between threads.
//!
//! Both kinds answer the same questions at training time — how many ids ([`len`]), the
//! document frequency of each ([`df`]) and of how many documents ([`documents`]) — so
//! what is computed from document frequencies works on either.
//!
//! [`len`]: Vocabulary::len
//! [`df`]: Vocabulary::df
//! [`documents`]: Vocabulary::documents

mod config;
mod counts;
mod table;

pub use config::VocabConfig;
pub(crate) use counts::DfCounts;
pub(crate) use table::WordTable;

use crate::Result;
use crate::raw::{Array, ArrayBuf, CowVec};
use crate::text::{Hashing, key};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The frozen word → id map saved in models (unknown words are simply absent), or the
/// hashed space of a hashing analyzer (every token has an id).
#[derive(Debug, Clone, Default)]
pub struct Vocabulary {
    table: WordTable,
    /// One per id: per word, or per hashed id (2^B of them); read in place from a mapped
    /// model file.
    df: CowVec<u32>,
    documents: u64,
    /// Hashed: tokens map to ids by their hash, and `table` is empty.
    hashing: Option<Hashing>,
}

/// The stored form of model formats up to 9 (and of a filter's store). A hashed
/// vocabulary is stored as no words and 2^B document frequencies (a vocabulary of words
/// has exactly one per word), so that it needs no field of its own; the model's analyzer names the same hashing step, and loading a
/// model checks that the two agree.
#[derive(Serialize, Deserialize)]
struct VocabRepr {
    words: Vec<Box<str>>,
    df: Vec<u32>,
    documents: u64,
}

/// The same form borrowed for writing (words are serialized as `Box<str>`s are).
#[derive(Serialize)]
struct VocabReprRef<'a> {
    words: Vec<&'a str>,
    df: &'a [u32],
    documents: u64,
}

/// The hashed space of `df.len()` ids, for a stored vocabulary of no words.
fn hashed_of(df: CowVec<u32>, documents: u64) -> Result<Vocabulary, String> {
    let n = df.len();
    let hashing = u8::try_from(n.trailing_zeros())
        .ok()
        .filter(|_| n.is_power_of_two())
        .and_then(|b| Hashing::new(b).ok())
        .ok_or_else(|| {
            format!(
                "the vocabulary has no words but {n} document frequencies, which is no \
                 hashed space (2^1 to 2^{} ids)",
                Hashing::MAX_BITS
            )
        })?;
    Ok(Vocabulary::from_hashed_df(hashing, df, documents))
}

/// The format-10 form, while [`crate::raw::RawArrays`] is on: the word table as it is
/// probed (each slot's word id, the word arena, the words' ends; see
/// [`WordTable::from_stored`]), then the document frequencies and the document count; a
/// hashed space has no slots and no words.
type StoredTable = (
    ArrayBuf<u32>,
    ArrayBuf<u8>,
    ArrayBuf<u32>,
    ArrayBuf<u32>,
    u64,
);

impl Serialize for Vocabulary {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if crate::raw::active() {
            let slots = self.table.slot_ids();
            let t = &self.table;
            (
                Array(&slots),
                Array(t.arena()),
                Array(t.ends()),
                Array(&self.df),
                self.documents,
            )
                .serialize(s)
        } else {
            VocabReprRef {
                words: self.table.words().collect(),
                df: &self.df,
                documents: self.documents,
            }
            .serialize(s)
        }
    }
}

/// Decoded from a file, so refused with a sentence, never asserted on: words that repeat,
/// document frequencies that are not one per word, or (format 10) a word table whose
/// slots, words and word ends disagree.
impl<'de> Deserialize<'de> for Vocabulary {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Vocabulary, D::Error> {
        use serde::de::Error;
        if !crate::raw::active() {
            return Vocabulary::try_from(VocabRepr::deserialize(d)?).map_err(D::Error::custom);
        }
        let (slots, arena, ends, df, documents) = StoredTable::deserialize(d)?;
        let (ends, df) = (ends.0, df.0);
        if ends.is_empty() && slots.0.is_empty() && !df.is_empty() {
            return hashed_of(df, documents).map_err(D::Error::custom);
        }
        if df.len() != ends.len() {
            return Err(D::Error::custom(format!(
                "the vocabulary has {} words but {} document frequencies",
                ends.len(),
                df.len()
            )));
        }
        let table = WordTable::from_stored(&slots.0, arena.0, ends).map_err(D::Error::custom)?;
        Ok(Vocabulary::from_table(table, df, documents))
    }
}

/// A decoded vocabulary is refused, not asserted on, when its words repeat or its
/// document frequencies are not one per word: it comes from a file.
impl TryFrom<VocabRepr> for Vocabulary {
    type Error = String;
    fn try_from(r: VocabRepr) -> Result<Self, String> {
        if r.words.is_empty() && !r.df.is_empty() {
            return hashed_of(r.df.into(), r.documents);
        }
        if r.df.len() != r.words.len() {
            return Err(format!(
                "the vocabulary has {} words but {} document frequencies",
                r.words.len(),
                r.df.len()
            ));
        }
        let mut table = WordTable::with_capacity(r.words.len());
        for w in &r.words {
            if table.insert_key(w, key(w)).1 {
                continue;
            }
            return Err(format!("the vocabulary holds the word {w:?} twice"));
        }
        Ok(Vocabulary::from_table(table, r.df.into(), r.documents))
    }
}

impl Vocabulary {
    /// Builds the vocabulary from merged counts, pruned by `config`; counts per hashed id
    /// give the hashed vocabulary, every id kept (`config` does not apply).
    pub(crate) fn from_counts(counts: DfCounts, config: &VocabConfig) -> Vocabulary {
        if let Some(h) = counts.hashing {
            let mut df = vec![0; h.ids()];
            for (j, (n, _)) in counts.ids {
                df[j as usize] = n;
            }
            return Vocabulary::from_hashed_df(h, df.into(), counts.docs);
        }
        let entries = counts.map.into_iter().map(|(w, (df, _))| (w, df)).collect();
        Vocabulary::from_df(entries, counts.docs, config)
    }

    /// Builds the vocabulary from distinct words with their document frequencies among
    /// `documents`, pruned by `config` and ranked as every vocabulary is: document
    /// frequency descending, then the word.
    pub(crate) fn from_df(
        mut entries: Vec<(Box<str>, u32)>,
        documents: u64,
        config: &VocabConfig,
    ) -> Vocabulary {
        let min_df = config.min_df_for(documents);
        entries.retain(|e| e.1 >= min_df);
        entries.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        if let Some(max) = config.max_features {
            entries.truncate(max);
        }
        let (words, df) = entries.into_iter().unzip();
        Vocabulary::from_parts(words, df, documents)
    }

    /// A vocabulary from its distinct words (id = position) and their document frequencies.
    pub(crate) fn from_parts(words: Vec<Box<str>>, df: Vec<u32>, documents: u64) -> Vocabulary {
        let mut table = WordTable::with_capacity(words.len());
        for w in &words {
            table.insert(w);
        }
        assert_eq!(
            table.len(),
            words.len(),
            "vocabulary words must be distinct"
        );
        Vocabulary {
            table,
            df: df.into(),
            documents,
            hashing: None,
        }
    }

    /// A vocabulary from its words (id = position) and document frequencies read from a
    /// file: refused with a sentence, not asserted on, when a word repeats or the counts
    /// are not one per word.
    #[cfg(feature = "store")]
    pub(crate) fn from_stored(
        words: Vec<Box<str>>,
        df: Vec<u32>,
        documents: u64,
    ) -> Result<Vocabulary, String> {
        Vocabulary::try_from(VocabRepr {
            words,
            df,
            documents,
        })
    }

    /// A vocabulary from a word table (id = insertion order) and document frequencies.
    pub(crate) fn from_table(table: WordTable, df: CowVec<u32>, documents: u64) -> Vocabulary {
        assert_eq!(table.len(), df.len(), "one document frequency per word");
        Vocabulary {
            table,
            df,
            documents,
            hashing: None,
        }
    }

    /// The hashed space of `hashing` before any document: 2^B ids, each of document
    /// frequency 0 (a model that learns from nothing, one message at a time).
    pub(crate) fn hashed(hashing: Hashing) -> Vocabulary {
        Vocabulary::from_hashed_df(hashing, vec![0; hashing.ids()].into(), 0)
    }

    /// The hashed space of `hashing` with the document frequency of each of its 2^B ids
    /// over `documents` documents.
    pub(crate) fn from_hashed_df(hashing: Hashing, df: CowVec<u32>, documents: u64) -> Vocabulary {
        assert_eq!(
            df.len(),
            hashing.ids(),
            "one document frequency per hashed id"
        );
        Vocabulary {
            table: WordTable::default(),
            df,
            documents,
            hashing: Some(hashing),
        }
    }

    /// The hashing step this vocabulary maps tokens with, if it is a hashed space.
    pub fn hashing(&self) -> Option<Hashing> {
        self.hashing
    }

    /// The id of `word`: its vocabulary id if known, or in a hashed space its hash.
    #[inline]
    pub fn get(&self, word: &str) -> Option<u32> {
        match self.hashing {
            Some(h) => Some(h.id(word)),
            None => self.table.get(word),
        }
    }

    /// The word index itself, for hot loops that precompute keys (empty when hashed).
    pub(crate) fn table(&self) -> &WordTable {
        &self.table
    }

    /// The word with id `id`; a hashed space keeps no words and gives `""` (see
    /// [`name`](Self::name)).
    pub fn word(&self, id: u32) -> &str {
        if self.hashing.is_some() {
            return "";
        }
        self.table.word(id)
    }

    /// What to call feature `id` when showing it: its word, or `#id` in a hashed space.
    pub fn name(&self, id: u32) -> Cow<'_, str> {
        match self.hashing {
            Some(_) => Cow::Owned(format!("#{id}")),
            None => Cow::Borrowed(self.table.word(id)),
        }
    }

    /// The size in words for a summary: `60 words`, or `2^18 hashed ids` in a hashed
    /// space.
    pub fn describe(&self) -> String {
        match self.hashing {
            Some(h) => format!("2^{} hashed ids", h.bits),
            None => format!("{} words", self.len()),
        }
    }

    /// Document frequency of feature `id` in the training documents (and the documents
    /// learned since).
    pub fn df(&self, id: u32) -> u32 {
        self.df[id as usize]
    }

    /// Number of feature ids: words, or the 2^B ids of a hashed space.
    pub fn len(&self) -> usize {
        self.df.len()
    }

    /// Whether there are no feature ids.
    pub fn is_empty(&self) -> bool {
        self.df.is_empty()
    }

    /// Number of training documents the counts came from.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Adds a document of a hashed space learned after training, given its ids (sorted
    /// and unique): counts it and bumps each id's document frequency. The hashed
    /// counterpart of [`Vocabulary::add_document`] for callers that hashed the words
    /// already.
    pub(crate) fn add_hashed_row(&mut self, ids: &[u32]) {
        debug_assert!(self.hashing.is_some());
        let df = self.df.to_mut();
        for &id in ids {
            df[id as usize] += 1;
        }
        self.documents += 1;
    }

    /// Adds a document learned after training (`rosenblatt learn`): counts it, bumps the
    /// document frequency of each of its words and appends unseen words with the next
    /// ids (so existing ids never change; a hashed space has an id for every word
    /// already). Returns its ids, sorted and unique.
    pub(crate) fn add_document<'a>(
        &mut self,
        words: impl IntoIterator<Item = &'a str>,
    ) -> Vec<u32> {
        let hashing = self.hashing;
        let mut ids: Vec<u32> = words
            .into_iter()
            .map(|w| {
                if let Some(h) = hashing {
                    return h.id(w);
                }
                let (id, new) = self.table.insert_key(w, key(w));
                if new {
                    self.df.to_mut().push(0);
                }
                id
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let df = self.df.to_mut();
        for &id in &ids {
            df[id as usize] += 1;
        }
        self.documents += 1;
        ids
    }
}

#[cfg(test)]
mod tests;
