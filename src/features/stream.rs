//! One-pass training vectorizer: documents are tokenized once, in batches, and dropped;
//! the vocabulary grows as words appear and is pruned and renumbered at the end.
//!
//! Within a batch, chunks of documents are tokenized in parallel against the (read-only)
//! vocabulary so far; a word it does not know yet gets a chunk-local id. Chunks are then
//! merged in input order, so provisional ids — and, after [`StreamVectorizer::finish`]
//! renumbers by (document frequency desc, word), the result — never depend on threads:
//! the output equals [`count_df`](super::count_df) followed by [`vectorize`](super::vectorize).
//! Renumbering and pruning happen in place, so peak memory stays near one matrix plus the
//! vocabulary.

use super::{BinaryMatrix, MatrixBuilder};
use crate::input::Document;
use crate::text::Analyzer;
use crate::vocab::{VocabConfig, Vocabulary};
use hashbrown::HashMap;
use rayon::prelude::*;

const CHUNK: usize = 256;
const LOCAL: u32 = 1 << 31;

/// Accumulates training documents batch by batch into rows and a growing vocabulary.
#[derive(Debug, Default)]
pub struct StreamVectorizer {
    analyzer: Analyzer,
    index: HashMap<Box<str>, u32>,
    words: Vec<Box<str>>,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    bytes: u64,
}

struct Chunk {
    lens: Vec<u32>,
    ids: Vec<u32>,
    new_words: Vec<Box<str>>,
}

impl StreamVectorizer {
    /// An empty vectorizer tokenizing with `analyzer`.
    pub fn new(analyzer: Analyzer) -> Self {
        StreamVectorizer { analyzer, indptr: vec![0], ..Default::default() }
    }

    /// Tokenizes a batch of documents (in parallel) and appends their rows.
    pub fn push(&mut self, docs: &[Document]) {
        self.bytes += docs.iter().map(|d| d.text.len() as u64).sum::<u64>();
        let (analyzer, index) = (&self.analyzer, &self.index);
        let chunks: Vec<Chunk> = docs
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut local: HashMap<Box<str>, u32> = HashMap::new();
                let mut out = Chunk { lens: Vec::with_capacity(chunk.len()), ids: Vec::new(), new_words: Vec::new() };
                let mut row = Vec::new();
                for d in chunk {
                    row.clear();
                    analyzer.tokens(d, &mut |t| match index.get(t) {
                        Some(&id) => row.push(id),
                        None => {
                            let next = out.new_words.len() as u32;
                            let id = *local.entry_ref(t).or_insert_with(|| {
                                out.new_words.push(t.into());
                                next
                            });
                            row.push(LOCAL | id);
                        }
                    });
                    row.sort_unstable();
                    row.dedup();
                    out.lens.push(row.len() as u32);
                    out.ids.extend_from_slice(&row);
                }
                out
            })
            .collect();
        let mut remap = Vec::new();
        let mut row = Vec::new();
        for c in chunks {
            remap.clear();
            for w in c.new_words {
                let next = self.words.len() as u32;
                let id = *self.index.entry_ref(&*w).or_insert(next);
                if id == next {
                    self.words.push(w);
                }
                remap.push(id);
            }
            let mut at = 0;
            for len in c.lens {
                let ids = &c.ids[at..at + len as usize];
                at += len as usize;
                if ids.last().is_some_and(|&j| j & LOCAL != 0) {
                    row.clear();
                    row.extend(ids.iter().map(|&j| if j & LOCAL != 0 { remap[(j & !LOCAL) as usize] } else { j }));
                    row.sort_unstable();
                    row.dedup();
                    self.indices.extend_from_slice(&row);
                } else {
                    self.indices.extend_from_slice(ids);
                }
                self.indptr.push(self.indices.len());
            }
        }
    }

    /// Documents pushed so far.
    pub fn rows(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Bytes of text pushed so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Prunes and renumbers the vocabulary (df desc, then word) and returns it with the rows.
    pub fn finish(self, config: &VocabConfig) -> (Vocabulary, BinaryMatrix) {
        let StreamVectorizer { index, words, mut indptr, mut indices, .. } = self;
        drop(index);
        let mut df = vec![0u32; words.len()];
        for &j in &indices {
            df[j as usize] += 1;
        }
        let mut order: Vec<u32> = (0..words.len() as u32).filter(|&j| df[j as usize] >= config.min_df).collect();
        order.sort_unstable_by(|&a, &b| df[b as usize].cmp(&df[a as usize]).then_with(|| words[a as usize].cmp(&words[b as usize])));
        if let Some(max) = config.max_features {
            order.truncate(max);
        }
        let mut new_id = vec![u32::MAX; words.len()];
        for (k, &old) in order.iter().enumerate() {
            new_id[old as usize] = k as u32;
        }
        // Renumber in place, dropping pruned words; rows only shrink, so the write position
        // never passes the read position.
        let mut write = 0;
        let mut start = 0;
        for i in 0..indptr.len() - 1 {
            let end = indptr[i + 1];
            let row_start = write;
            for r in start..end {
                let n = new_id[indices[r] as usize];
                if n != u32::MAX {
                    indices[write] = n;
                    write += 1;
                }
            }
            indices[row_start..write].sort_unstable();
            start = end;
            indptr[i + 1] = write;
        }
        indices.truncate(write);
        indices.shrink_to_fit();
        let mut kept_words = Vec::with_capacity(order.len());
        let mut kept_df = Vec::with_capacity(order.len());
        let mut words: Vec<Option<Box<str>>> = words.into_iter().map(Some).collect();
        for &old in &order {
            kept_words.push(words[old as usize].take().unwrap());
            kept_df.push(df[old as usize]);
        }
        let docs = (indptr.len() - 1) as u64;
        let vocab = Vocabulary::from_parts(kept_words, kept_df, docs);
        let n = vocab.len();
        let mut b = MatrixBuilder::default();
        b.set_raw(indptr, indices);
        (vocab, b.finish(n))
    }
}
