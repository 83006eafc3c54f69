//! Vocabulary: word ↔ dense `u32` id, with document frequencies, pruning, frozen after
//! training.
//!
//! Counting runs in parallel: each thread counts document frequencies into its own map
//! ([`DfCounts`]) and the partial counts are merged. Ids are assigned in a deterministic
//! order (document frequency descending, then the word), so the result never depends on
//! how work was split between threads.

mod table;

pub(crate) use table::{WordTable, key};

use crate::Result;
use crate::error::{ConfigError, Param, at_least_one};
use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

/// Pruning rules applied when a vocabulary is built from counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VocabConfig {
    /// Keep words seen in at least this many documents (default 1).
    pub min_df: u32,
    /// Keep at most this many words, the most frequent first (`None`: all).
    pub max_features: Option<usize>,
}

impl Default for VocabConfig {
    fn default() -> Self {
        VocabConfig {
            min_df: 1,
            max_features: None,
        }
    }
}

impl VocabConfig {
    /// Checks the settings before any work starts.
    pub fn validate(&self) -> Result<(), ConfigError> {
        at_least_one(Param::MinDf, self.min_df)?;
        self.max_features
            .map_or(Ok(()), |m| at_least_one(Param::MaxFeatures, m))
    }
}

/// Document-frequency counts of one thread's share of the documents.
#[derive(Debug, Default)]
pub struct DfCounts {
    map: HashMap<Box<str>, (u32, u64)>,
    doc: u64,
    docs: u64,
}

impl DfCounts {
    /// Starts counting a new document (call before its tokens).
    pub fn start_document(&mut self) {
        self.docs += 1;
        self.doc = self.docs;
    }

    /// Counts `word` once per document however often it occurs.
    #[inline]
    pub fn add(&mut self, word: &str) {
        let doc = self.doc;
        match self.map.get_mut(word) {
            Some(e) => {
                if e.1 != doc {
                    e.0 += 1;
                    e.1 = doc;
                }
            }
            None => {
                self.map.insert(word.into(), (1, doc));
            }
        }
    }

    /// Adds another thread's counts into these.
    pub fn merge(mut self, other: DfCounts) -> DfCounts {
        let (mut big, small) = if self.map.len() >= other.map.len() {
            (std::mem::take(&mut self), other)
        } else {
            (other, self)
        };
        for (w, (df, _)) in small.map {
            big.map.entry(w).or_insert((0, 0)).0 += df;
        }
        big.docs += small.docs;
        big
    }

    /// Number of documents counted.
    pub fn documents(&self) -> u64 {
        self.docs
    }
}

/// The frozen word → id map saved in models. Unknown words are simply absent.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(try_from = "VocabRepr", into = "VocabRepr")]
pub struct Vocabulary {
    table: WordTable,
    df: Vec<u32>,
    documents: u64,
}

#[derive(Serialize, Deserialize)]
struct VocabRepr {
    words: Vec<Box<str>>,
    df: Vec<u32>,
    documents: u64,
}

/// A decoded vocabulary is refused, not asserted on, when its words repeat or its
/// document frequencies are not one per word: it comes from a file.
impl TryFrom<VocabRepr> for Vocabulary {
    type Error = String;
    fn try_from(r: VocabRepr) -> Result<Self, String> {
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
        Ok(Vocabulary::from_table(table, r.df, r.documents))
    }
}

impl From<Vocabulary> for VocabRepr {
    fn from(v: Vocabulary) -> Self {
        VocabRepr {
            words: v.table.words().map(Into::into).collect(),
            df: v.df,
            documents: v.documents,
        }
    }
}

impl Vocabulary {
    /// Builds the vocabulary from merged counts, pruned by `config`.
    pub fn from_counts(counts: DfCounts, config: &VocabConfig) -> Vocabulary {
        let mut entries: Vec<(Box<str>, u32)> = counts
            .map
            .into_iter()
            .filter(|(_, (df, _))| *df >= config.min_df)
            .map(|(w, (df, _))| (w, df))
            .collect();
        entries.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        if let Some(max) = config.max_features {
            entries.truncate(max);
        }
        let (words, df) = entries.into_iter().unzip();
        Vocabulary::from_parts(words, df, counts.docs)
    }

    /// A vocabulary from its distinct words (id = position) and their document frequencies.
    pub fn from_parts(words: Vec<Box<str>>, df: Vec<u32>, documents: u64) -> Vocabulary {
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
            df,
            documents,
        }
    }

    /// A vocabulary from a word table (id = insertion order) and document frequencies.
    pub fn from_table(table: WordTable, df: Vec<u32>, documents: u64) -> Vocabulary {
        assert_eq!(table.len(), df.len(), "one document frequency per word");
        Vocabulary {
            table,
            df,
            documents,
        }
    }

    /// The id of `word`, if known.
    #[inline]
    pub fn get(&self, word: &str) -> Option<u32> {
        self.table.get(word)
    }

    /// The word index itself, for hot loops that precompute keys.
    pub fn table(&self) -> &WordTable {
        &self.table
    }

    /// The word with id `id`.
    pub fn word(&self, id: u32) -> &str {
        self.table.word(id)
    }

    /// Document frequency of word `id` in the training documents.
    pub fn df(&self, id: u32) -> u32 {
        self.df[id as usize]
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether there are no words.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Number of training documents the counts came from.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Adds a document learned after training (`rosenblatt learn`): counts it, bumps the
    /// document frequency of each of its words and appends unseen words with the next
    /// ids (so existing ids never change). Returns its ids, sorted and unique.
    pub fn add_document<'a>(&mut self, words: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
        let mut ids: Vec<u32> = words
            .into_iter()
            .map(|w| {
                let (id, new) = self.table.insert_key(w, key(w));
                if new {
                    self.df.push(0);
                }
                id
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        for &id in &ids {
            self.df[id as usize] += 1;
        }
        self.documents += 1;
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(docs: &[&[&str]]) -> DfCounts {
        let mut c = DfCounts::default();
        for d in docs {
            c.start_document();
            for w in *d {
                c.add(w);
            }
        }
        c
    }

    #[test]
    fn df_counts_once_per_document_and_prunes() {
        let c = counts(&[
            &["free", "free", "money"],
            &["free", "call"],
            &["call", "now"],
        ]);
        let v = Vocabulary::from_counts(
            c,
            &VocabConfig {
                min_df: 2,
                max_features: None,
            },
        );
        assert_eq!(v.len(), 2);
        assert_eq!(v.word(0), "call"); // df 2, sorted by word among ties
        assert_eq!(v.word(1), "free");
        assert_eq!(v.df(v.get("free").unwrap()), 2);
        assert_eq!(v.get("money"), None);
        assert_eq!(v.documents(), 3);
    }

    #[test]
    fn merge_equals_single_count() {
        let a = counts(&[&["a", "b"], &["b"]]);
        let b = counts(&[&["b", "c"]]);
        let all = counts(&[&["a", "b"], &["b"], &["b", "c"]]);
        let cfg = VocabConfig {
            min_df: 1,
            max_features: Some(2),
        };
        let m = Vocabulary::from_counts(a.merge(b), &cfg);
        let s = Vocabulary::from_counts(all, &cfg);
        assert_eq!(
            m.table.words().collect::<Vec<_>>(),
            s.table.words().collect::<Vec<_>>()
        );
        assert_eq!(m.df, vec![3, 1]);
    }

    #[test]
    fn add_document_keeps_ids_and_appends_new_words() {
        let mut v = Vocabulary::from_counts(
            counts(&[&["free", "call"], &["free"]]),
            &VocabConfig::default(),
        );
        assert_eq!((v.word(0), v.word(1)), ("free", "call"));
        let ids = v.add_document(["win", "free", "win", "cash"]);
        assert_eq!(ids, vec![0, 2, 3]);
        assert_eq!((v.word(2), v.word(3)), ("win", "cash"));
        assert_eq!((v.df(0), v.df(1), v.df(2)), (3, 1, 1));
        assert_eq!(v.get("cash"), Some(3));
        assert_eq!((v.len(), v.documents()), (4, 3));
    }
}
