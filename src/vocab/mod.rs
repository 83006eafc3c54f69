//! Vocabulary: word ↔ dense `u32` id, with document frequencies, pruning, frozen after
//! training — or, under an analyzer with a hashing step, token → hashed id with the
//! document frequency of every id and no words kept.
//!
//! Counting runs in parallel: each thread counts document frequencies into its own map
//! ([`DfCounts`]) and the partial counts are merged. Ids are assigned in a deterministic
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

mod table;

pub(crate) use table::{WordTable, key};

use crate::Result;
use crate::error::{ConfigError, Param, at_least_one};
use crate::text::Hashing;
use hashbrown::HashMap;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Pruning rules applied when a vocabulary of words is built from counts (a hashed
/// vocabulary keeps every id: these do not apply to it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VocabConfig {
    /// Keep words seen in at least this many documents (default 1).
    pub min_df: u32,
    /// Keep at most this many words, the most frequent first (`None`: all).
    pub max_features: Option<usize>,
    /// From this many documents on, a word must be in at least two of them (`min_df` is
    /// raised to 2): in a large corpus a word of one document is mostly a name, a number
    /// or a typo that no other document shares, while in a small one it may be all the
    /// evidence there is. `None`: `min_df` alone. Default: [`Self::SINGLETONS_FROM`].
    pub singletons_from: Option<u64>,
}

impl Default for VocabConfig {
    fn default() -> Self {
        VocabConfig {
            min_df: 1,
            max_features: None,
            singletons_from: Some(Self::SINGLETONS_FROM),
        }
    }
}

impl VocabConfig {
    /// The corpus size from which words of one document are dropped by default: 1,000
    /// documents. Chosen on validation parts of Reuters-21578's training documents and
    /// on seeded splits of SpamAssassin and the SMS collection (docs/ACCURACY.md).
    pub const SINGLETONS_FROM: u64 = 1000;

    /// Every word kept: no floor, no cap, whatever the corpus's size.
    pub fn every_word() -> Self {
        VocabConfig {
            min_df: 1,
            max_features: None,
            singletons_from: None,
        }
    }

    /// `min_df` as a floor given: kept whatever the corpus's size (no
    /// [`Self::singletons_from`]).
    pub fn with_min_df(self, min_df: u32) -> Self {
        VocabConfig {
            min_df,
            singletons_from: None,
            ..self
        }
    }

    /// The document frequency a word needs among `documents` documents.
    pub fn min_df_for(&self, documents: u64) -> u32 {
        match self.singletons_from {
            Some(n) if documents >= n => self.min_df.max(2),
            _ => self.min_df,
        }
    }

    /// Checks the settings before any work starts.
    pub fn validate(&self) -> Result<(), ConfigError> {
        at_least_one(Param::MinDf, self.min_df)?;
        self.max_features
            .map_or(Ok(()), |m| at_least_one(Param::MaxFeatures, m))
    }
}

/// Document-frequency counts of one thread's share of the documents: per word, or per
/// hashed id when counting for a hashing analyzer.
#[derive(Debug, Default)]
pub struct DfCounts {
    map: HashMap<Box<str>, (u32, u64)>,
    hashing: Option<Hashing>,
    ids: HashMap<u32, (u32, u64)>,
    doc: u64,
    docs: u64,
}

impl DfCounts {
    /// Empty counts, per word (`None`) or per id of `hashing`.
    pub fn new(hashing: Option<Hashing>) -> DfCounts {
        DfCounts {
            hashing,
            ..Default::default()
        }
    }

    /// Starts counting a new document (call before its tokens).
    pub(crate) fn start_document(&mut self) {
        self.docs += 1;
        self.doc = self.docs;
    }

    /// Counts `word` (or its hashed id) once per document however often it occurs.
    #[inline]
    pub fn add(&mut self, word: &str) {
        let doc = self.doc;
        if let Some(h) = self.hashing {
            let e = self.ids.entry(h.id(word)).or_insert((0, 0));
            if e.1 != doc {
                e.0 += 1;
                e.1 = doc;
            }
            return;
        }
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
    pub(crate) fn merge(mut self, other: DfCounts) -> DfCounts {
        let (mut big, small) = if self.map.len() >= other.map.len() {
            (std::mem::take(&mut self), other)
        } else {
            (other, self)
        };
        for (w, (df, _)) in small.map {
            big.map.entry(w).or_insert((0, 0)).0 += df;
        }
        for (j, (df, _)) in small.ids {
            big.ids.entry(j).or_insert((0, 0)).0 += df;
        }
        big.hashing = big.hashing.or(small.hashing);
        big.docs += small.docs;
        big
    }

    /// Number of documents counted.
    pub fn documents(&self) -> u64 {
        self.docs
    }

    /// Each word (per-word counts) with its document frequency, in no order: what a
    /// process hands in to the cluster's vocabulary.
    pub fn word_df(&self) -> impl Iterator<Item = (&str, u32)> {
        self.map.iter().map(|(w, &(df, _))| (&**w, df))
    }

    /// Each hashed id (hashed counts) with its document frequency, in no order.
    pub fn id_df(&self) -> impl Iterator<Item = (u32, u32)> {
        self.ids.iter().map(|(&j, &(df, _))| (j, df))
    }

    /// Counts made elsewhere: document frequencies per word (`hashing` `None`) or per
    /// hashed id, over `docs` documents (a cluster's totals).
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn from_totals(
        hashing: Option<Hashing>,
        words: impl IntoIterator<Item = (Box<str>, u32)>,
        ids: impl IntoIterator<Item = (u32, u32)>,
        docs: u64,
    ) -> DfCounts {
        DfCounts {
            map: words.into_iter().map(|(w, df)| (w, (df, 0))).collect(),
            hashing,
            ids: ids.into_iter().map(|(j, df)| (j, (df, 0))).collect(),
            doc: 0,
            docs,
        }
    }
}

/// The frozen word → id map saved in models (unknown words are simply absent), or the
/// hashed space of a hashing analyzer (every token has an id).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(try_from = "VocabRepr", into = "VocabRepr")]
pub struct Vocabulary {
    table: WordTable,
    /// One per id: per word, or per hashed id (2^B of them).
    df: Vec<u32>,
    documents: u64,
    /// Hashed: tokens map to ids by their hash, and `table` is empty.
    hashing: Option<Hashing>,
}

/// The stored form. A hashed vocabulary is stored as no words and 2^B document
/// frequencies (a vocabulary of words has exactly one per word), so that it needs no
/// field of its own; the model's analyzer names the same hashing step, and loading a
/// model checks that the two agree.
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
        if r.words.is_empty() && !r.df.is_empty() {
            let n = r.df.len();
            let hashing = u8::try_from(n.trailing_zeros())
                .ok()
                .filter(|_| n.is_power_of_two())
                .and_then(|b| Hashing::new(b).ok())
                .ok_or_else(|| {
                    format!(
                        "the vocabulary has no words but {n} document frequencies, which is \
                         no hashed space (2^1 to 2^{} ids)",
                        Hashing::MAX_BITS
                    )
                })?;
            return Ok(Vocabulary::from_hashed_df(hashing, r.df, r.documents));
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
        Ok(Vocabulary::from_table(table, r.df, r.documents))
    }
}

impl From<Vocabulary> for VocabRepr {
    /// A hashed vocabulary has no words: it is stored as its document frequencies.
    fn from(v: Vocabulary) -> Self {
        VocabRepr {
            words: v.table.words().map(Into::into).collect(),
            df: v.df,
            documents: v.documents,
        }
    }
}

impl Vocabulary {
    /// Builds the vocabulary from merged counts, pruned by `config`; counts per hashed id
    /// give the hashed vocabulary, every id kept (`config` does not apply).
    pub fn from_counts(counts: DfCounts, config: &VocabConfig) -> Vocabulary {
        if let Some(h) = counts.hashing {
            let mut df = vec![0; h.ids()];
            for (j, (n, _)) in counts.ids {
                df[j as usize] = n;
            }
            return Vocabulary::from_hashed_df(h, df, counts.docs);
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
    pub(crate) fn from_table(table: WordTable, df: Vec<u32>, documents: u64) -> Vocabulary {
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
    pub fn hashed(hashing: Hashing) -> Vocabulary {
        Vocabulary::from_hashed_df(hashing, vec![0; hashing.ids()], 0)
    }

    /// The hashed space of `hashing` with the document frequency of each of its 2^B ids
    /// over `documents` documents.
    pub(crate) fn from_hashed_df(hashing: Hashing, df: Vec<u32>, documents: u64) -> Vocabulary {
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
    pub fn table(&self) -> &WordTable {
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
        for &id in ids {
            self.df[id as usize] += 1;
        }
        self.documents += 1;
    }

    /// Adds a document learned after training (`rosenblatt learn`): counts it, bumps the
    /// document frequency of each of its words and appends unseen words with the next
    /// ids (so existing ids never change; a hashed space has an id for every word
    /// already). Returns its ids, sorted and unique.
    pub fn add_document<'a>(&mut self, words: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
        let hashing = self.hashing;
        let mut ids: Vec<u32> = words
            .into_iter()
            .map(|w| {
                if let Some(h) = hashing {
                    return h.id(w);
                }
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
                singletons_from: None,
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
    fn words_of_one_document_go_from_a_thousand_documents_on() {
        let cfg = VocabConfig::default();
        assert_eq!((cfg.min_df_for(999), cfg.min_df_for(1000)), (1, 2));
        let given = VocabConfig {
            min_df: 3,
            ..VocabConfig::default()
        };
        assert_eq!((given.min_df_for(10), given.min_df_for(5000)), (3, 3));
        assert_eq!(VocabConfig::every_word().min_df_for(1 << 40), 1);
        // 1,000 documents: "common" in all, "rare" in one, "pair" in two.
        let mut docs: Vec<Vec<&str>> = vec![vec!["common"]; 1000];
        docs[0].push("rare");
        docs[1].push("pair");
        docs[2].push("pair");
        let refs: Vec<&[&str]> = docs.iter().map(Vec::as_slice).collect();
        let v = Vocabulary::from_counts(counts(&refs), &cfg);
        let words: Vec<&str> = (0..v.len() as u32).map(|j| v.word(j)).collect();
        assert_eq!(words, ["common", "pair"]);
        // One document fewer: every word stays.
        let v = Vocabulary::from_counts(counts(&refs[..999]), &cfg);
        assert_eq!(v.len(), 3);
    }

    #[test]
    fn merge_equals_single_count() {
        let a = counts(&[&["a", "b"], &["b"]]);
        let b = counts(&[&["b", "c"]]);
        let all = counts(&[&["a", "b"], &["b"], &["b", "c"]]);
        let cfg = VocabConfig {
            min_df: 1,
            max_features: Some(2),
            singletons_from: None,
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

    #[test]
    fn a_hashed_vocabulary_counts_df_per_id_and_names_ids() {
        let h = Hashing::new(4).unwrap();
        // "free" → 10 (see the hashing step's known ids); the others are whatever the
        // hash gives, the same in every build.
        let (free, call, money) = (h.id("free"), h.id("call"), h.id("money"));
        assert_eq!(free, 10);
        let mut c = DfCounts::new(Some(h));
        for d in [&["free", "free", "money"][..], &["free", "call"]] {
            c.start_document();
            for w in d {
                c.add(w);
            }
        }
        let mut v = Vocabulary::from_counts(c, &VocabConfig::default());
        assert_eq!((v.len(), v.documents(), v.hashing()), (16, 2, Some(h)));
        assert_eq!(v.get("free"), Some(10));
        assert_eq!(v.get("never seen"), Some(h.id("never seen")));
        let mut expect = [0u32; 16];
        for ids in [vec![free, money], vec![free, call]] {
            let mut ids = ids;
            ids.sort_unstable();
            ids.dedup();
            for j in ids {
                expect[j as usize] += 1;
            }
        }
        assert_eq!((0..16).map(|j| v.df(j)).collect::<Vec<_>>(), expect);
        assert_eq!((v.word(10), v.name(10).as_ref()), ("", "#10"));
        assert_eq!(v.describe(), "2^4 hashed ids");
        // Learning a document adds no id and counts it.
        let ids = v.add_document(["free", "brand new word"]);
        let mut want = vec![10, h.id("brand new word")];
        want.sort_unstable();
        want.dedup();
        assert_eq!(ids, want);
        assert_eq!((v.len(), v.documents(), v.df(10)), (16, 3, expect[10] + 1));
    }

    #[test]
    fn a_stored_hashed_vocabulary_reads_back_and_a_bad_one_is_refused() {
        let cfg = bincode::config::standard();
        let mut v = Vocabulary::hashed(Hashing::new(3).unwrap());
        v.add_document(["a", "b"]);
        let bytes = bincode::serde::encode_to_vec(&v, cfg).unwrap();
        let (back, _): (Vocabulary, _) = bincode::serde::decode_from_slice(&bytes, cfg).unwrap();
        assert_eq!(back.hashing(), v.hashing());
        assert_eq!(back.df, v.df);
        assert_eq!(back.documents(), 1);
        let words = Vocabulary::from_parts(vec!["a".into()], vec![1], 1);
        let bytes = bincode::serde::encode_to_vec(&words, cfg).unwrap();
        let (back, _): (Vocabulary, _) = bincode::serde::decode_from_slice(&bytes, cfg).unwrap();
        assert_eq!((back.hashing(), back.len(), back.word(0)), (None, 1, "a"));
        let bad = VocabRepr {
            words: vec![],
            df: vec![0; 6],
            documents: 0,
        };
        let bytes = bincode::serde::encode_to_vec(&bad, cfg).unwrap();
        let err = bincode::serde::decode_from_slice::<Vocabulary, _>(&bytes, cfg).unwrap_err();
        assert!(err.to_string().contains("no hashed space"), "{err}");
    }
}
