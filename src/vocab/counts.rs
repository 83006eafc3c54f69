//! Document-frequency counts of one thread's share of the documents, merged across
//! threads before a vocabulary is built from them.

use crate::text::Hashing;
use hashbrown::HashMap;

/// Document-frequency counts of one thread's share of the documents: per word, or per
/// hashed id when counting for a hashing analyzer.
#[derive(Debug, Default)]
pub(crate) struct DfCounts {
    /// Per word: its document frequency and the last document that counted it.
    pub(super) map: HashMap<Box<str>, (u32, u64)>,
    /// The hashed space counted in, if any.
    pub(super) hashing: Option<Hashing>,
    /// Per hashed id: its document frequency and the last document that counted it.
    pub(super) ids: HashMap<u32, (u32, u64)>,
    /// The document being counted.
    doc: u64,
    /// Documents counted.
    pub(super) docs: u64,
}

impl DfCounts {
    /// Empty counts, per word (`None`) or per id of `hashing`.
    pub(crate) fn new(hashing: Option<Hashing>) -> DfCounts {
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
    pub(crate) fn add(&mut self, word: &str) {
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
