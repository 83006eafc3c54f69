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
//!
//! Under a hashing analyzer the same pass runs, and [`finish`](StreamVectorizer::finish)
//! gives every word its hashed id instead of a rank (words that share an id in one row
//! become one entry); the words are then dropped, and the vocabulary is the hashed space
//! with the document frequency of each id.
//!
//! Asked to count ([`StreamVectorizer::with_counts`]), a row keeps one id per occurrence,
//! sorted so a word's repeats sit together; document frequencies count each word once a
//! row, and the finished rows collapse the repeats into 1 + ln tf ([`TextMatrix`]).

mod spill;
pub(crate) use spill::Spill;

use super::{BinaryMatrix, MatrixBuilder, Seen, TermCounts, TextMatrix, document_frequencies};
use crate::input::Document;
use crate::text::TokenBuffer;
use crate::text::{Analyzer, Hashing};
use crate::vocab::{VocabConfig, Vocabulary, WordTable};
use rayon::prelude::*;

const CHUNK: usize = 256;
/// Documents per sequential slice of a large batch.
const SLICE: usize = 4096;
const LOCAL: u32 = 1 << 31;

/// Accumulates training documents batch by batch into rows and a growing vocabulary.
#[derive(Debug, Default)]
pub struct StreamVectorizer {
    analyzer: Analyzer,
    words: WordTable,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    /// Ids already sent to a [`Spill`] (the offsets in `indptr` count them).
    spilled: usize,
    bytes: u64,
    /// What rows keep of each word: binary rows hold an id once, counted rows once per
    /// occurrence until [`StreamVectorizer::finish_rows`].
    counts: TermCounts,
}

struct Chunk {
    lens: Vec<u32>,
    ids: Vec<u32>,
    new_words: WordTable,
}

impl StreamVectorizer {
    /// An empty vectorizer tokenizing with `analyzer`.
    pub fn new(analyzer: Analyzer) -> Self {
        StreamVectorizer {
            analyzer,
            // Room for a typical corpus's words up front: fewer rehashes while it grows.
            words: WordTable::with_capacity(1 << 15),
            indptr: vec![0],
            ..Default::default()
        }
    }

    /// An empty vectorizer tokenizing with `analyzer` whose rows keep what `counts` asks
    /// (each word's count, or only whether it occurs).
    pub fn with_counts(analyzer: Analyzer, counts: TermCounts) -> Self {
        StreamVectorizer {
            counts,
            ..StreamVectorizer::new(analyzer)
        }
    }

    /// What the rows keep of each word.
    pub fn counts(&self) -> TermCounts {
        self.counts
    }

    /// Tokenizes a batch of documents and appends their rows. Large batches are taken in
    /// slices, so that after the first slice most words are found in the shared vocabulary
    /// rather than re-collected by every chunk.
    pub fn push(&mut self, docs: &[Document]) {
        let mut rest = docs;
        while !rest.is_empty() {
            // Slices grow from one chunk per thread to SLICE documents as the vocabulary
            // fills up.
            let first = CHUNK * rayon::current_num_threads();
            let n = (2 * self.rows())
                .clamp(first.min(SLICE), SLICE)
                .min(rest.len());
            let (part, tail) = rest.split_at(n);
            self.push_slice(part);
            rest = tail;
        }
    }

    fn push_slice(&mut self, docs: &[Document]) {
        self.bytes += docs.iter().map(|d| d.text.len() as u64).sum::<u64>();
        let (analyzer, known) = (&self.analyzer, &self.words);
        let counted = self.counts.counted();
        let chunks: Vec<Chunk> = docs
            .par_chunks(CHUNK)
            .map_init(
                || {
                    (
                        Seen::new(known.len()),
                        Seen::default(),
                        TokenBuffer::default(),
                    )
                },
                |(seen, seen_new, buf), chunk| {
                    let mut out = Chunk {
                        lens: Vec::with_capacity(chunk.len()),
                        ids: Vec::new(),
                        new_words: WordTable::with_capacity(1024),
                    };
                    let mut row = Vec::new();
                    for d in chunk {
                        row.clear();
                        seen.next_document();
                        seen_new.next_document();
                        if counted {
                            // Every occurrence, sorted below so repeats are adjacent.
                            analyzer.scan(d, buf, &mut |b| {
                                for i in 0..b.len() {
                                    let (t, k) = (b.word(i), b.key(i));
                                    row.push(match known.get_key(t, k) {
                                        Some(id) => id,
                                        None => LOCAL | out.new_words.insert_key(t, k).0,
                                    })
                                }
                            });
                            row.sort_unstable();
                        } else {
                            analyzer.scan(d, buf, &mut |b| {
                                for i in 0..b.len() {
                                    let (t, k) = (b.word(i), b.key(i));
                                    match known.get_key(t, k) {
                                        Some(id) => {
                                            if seen.first(id) {
                                                row.push(id)
                                            }
                                        }
                                        None => {
                                            let id = out.new_words.insert_key(t, k).0;
                                            seen_new.grow(id as usize + 1);
                                            if seen_new.first(id) {
                                                row.push(LOCAL | id)
                                            }
                                        }
                                    }
                                }
                            });
                        }
                        out.lens.push(row.len() as u32);
                        out.ids.extend_from_slice(&row);
                    }
                    out
                },
            )
            .collect();
        // Merge in input order: new words get global ids one chunk after another (cheap,
        // few words), then every chunk's ids are remapped and copied into place in parallel.
        // Rows stay unsorted until `finish` renumbers and sorts them; they are already
        // duplicate-free (`Seen`), and new words map to fresh ids.
        let remaps: Vec<Vec<u32>> = chunks
            .iter()
            .map(|c| c.new_words.words().map(|w| self.words.insert(w)).collect())
            .collect();
        let base = self.indices.len();
        let total: usize = chunks.iter().map(|c| c.ids.len()).sum();
        self.indices.resize(base + total, 0);
        let mut parts = Vec::with_capacity(chunks.len());
        let mut rest = &mut self.indices[base..];
        for c in &chunks {
            let (head, tail) = rest.split_at_mut(c.ids.len());
            parts.push(head);
            rest = tail;
        }
        parts
            .into_par_iter()
            .zip(&chunks)
            .zip(&remaps)
            .for_each(|((out, c), remap)| {
                for (o, &j) in out.iter_mut().zip(&c.ids) {
                    *o = if j & LOCAL != 0 {
                        remap[(j & !LOCAL) as usize]
                    } else {
                        j
                    };
                }
            });
        let mut at = self.spilled + base;
        for c in &chunks {
            for &len in &c.lens {
                at += len as usize;
                self.indptr.push(at);
            }
        }
    }

    /// The analyzer documents are tokenized with.
    pub(crate) fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// Documents pushed so far.
    pub fn rows(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Bytes of text pushed so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Prunes and renumbers the vocabulary (df desc, then word) and returns it with the rows;
    /// under a hashing analyzer, hashes every word instead (`config` does not apply). The
    /// rows are binary: counted rows give up their counts (see [`Self::finish_rows`]).
    pub fn finish(self, config: &VocabConfig) -> (Vocabulary, BinaryMatrix) {
        match self.finish_rows(config) {
            (vocab, TextMatrix::Binary(x)) => (vocab, x),
            (vocab, TextMatrix::Counts(x)) => {
                let n = vocab.len();
                let mut b = MatrixBuilder::default();
                let (indptr, indices, _) = x.into_raw_storage();
                b.set_raw(indptr, indices);
                (vocab, b.finish(n))
            }
        }
    }

    /// [`Self::finish`] with the rows as asked: binary, or each word's sublinear count.
    pub fn finish_rows(self, config: &VocabConfig) -> (Vocabulary, TextMatrix) {
        if let Some(h) = self.analyzer.hashing() {
            return self.finish_hashed(h);
        }
        let StreamVectorizer {
            words,
            mut indptr,
            mut indices,
            counts,
            ..
        } = self;
        let mut df = vec![0u32; words.len()];
        if counts.counted() {
            document_frequencies(&indptr, &indices, 0..indptr.len() - 1, &mut df);
        } else {
            for &j in &indices {
                df[j as usize] += 1;
            }
        }
        let docs = (indptr.len() - 1) as u64;
        let (order, new_id) = rank_words(&words, &df, config, docs);
        if order.len() == words.len() {
            renumber_parallel(&indptr, &mut indices, &new_id);
        } else {
            renumber_pruning(&mut indptr, &mut indices, &new_id);
        }
        drop(new_id);
        let vocab = kept_vocabulary(words, &order, df, docs);
        let n = vocab.len();
        (vocab, TextMatrix::from_sorted(indptr, indices, n, counts))
    }
}

impl StreamVectorizer {
    /// The rows of every document pushed, numbered by the vocabulary that the documents
    /// `part` alone would build under `config`: its document frequencies, its pruning, its
    /// order, so that each row equals what that vocabulary gives the document. Words it
    /// does not keep leave every row. One tokenizing pass so serves every fold of a
    /// cross-validation, each scored as a model trained on its own part would score it.
    /// For a vocabulary of words, with nothing spilled (a hashed space has no pruning to
    /// redo: [`Self::finish`] gives its rows).
    pub(crate) fn rows_of_part(&self, part: &[usize], config: &VocabConfig) -> TextMatrix {
        assert!(self.analyzer.hashing().is_none() && self.spilled == 0);
        let mut df = vec![0u32; self.words.len()];
        document_frequencies(&self.indptr, &self.indices, part.iter().copied(), &mut df);
        let (order, new_id) = rank_words(&self.words, &df, config, part.len() as u64);
        let (mut indptr, mut indices) = (self.indptr.clone(), self.indices.clone());
        renumber_pruning(&mut indptr, &mut indices, &new_id);
        TextMatrix::from_sorted(indptr, indices, order.len(), self.counts)
    }
}

/// The words kept under `config` in their final order (document frequency descending,
/// then the word), and each word's new id (`u32::MAX`: pruned).
fn rank_words(
    words: &WordTable,
    df: &[u32],
    config: &VocabConfig,
    docs: u64,
) -> (Vec<u32>, Vec<u32>) {
    let min_df = config.min_df_for(docs);
    // Sort by (df desc, word). Each key carries the word's first 8 bytes big-endian, so
    // most comparisons are integer ones; equal heads fall back to the whole words.
    let mut keys: Vec<(u32, u64, u32)> = (0..words.len() as u32)
        .filter(|&j| df[j as usize] >= min_df)
        .map(|j| (u32::MAX - df[j as usize], sort_head(words.word(j)), j))
        .collect();
    keys.par_sort_unstable_by(|a, b| {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then_with(|| words.word(a.2).cmp(words.word(b.2)))
    });
    let mut order: Vec<u32> = keys.into_iter().map(|k| k.2).collect();
    if let Some(max) = config.max_features {
        order.truncate(max);
    }
    let mut new_id = vec![u32::MAX; words.len()];
    for (k, &old) in order.iter().enumerate() {
        new_id[old as usize] = k as u32;
    }
    (order, new_id)
}

/// The vocabulary of the kept words `order`, numbered in that order. The kept words are
/// copied out and the growing table freed before the final index is built, so the two
/// never live at once (this is the peak of a streaming run).
fn kept_vocabulary(words: WordTable, order: &[u32], df: Vec<u32>, docs: u64) -> Vocabulary {
    let mut text = String::new();
    let mut ends = Vec::with_capacity(order.len());
    for &old in order {
        text.push_str(words.word(old));
        ends.push(text.len());
    }
    let kept_df = order.iter().map(|&old| df[old as usize]).collect();
    drop((words, df));
    let mut table = WordTable::with_capacity(ends.len());
    let mut start = 0;
    for &end in &ends {
        table.insert(&text[start..end]);
        start = end;
    }
    drop((text, ends));
    Vocabulary::from_table(table, kept_df, docs)
}

impl StreamVectorizer {
    /// The rows with every word replaced by its hashed id, and the hashed space with the
    /// document frequency of each id.
    /// Counted rows keep words that hash alike as repeats of one id, so its count is
    /// theirs together.
    fn finish_hashed(self, h: Hashing) -> (Vocabulary, TextMatrix) {
        let StreamVectorizer {
            words,
            mut indptr,
            mut indices,
            counts,
            ..
        } = self;
        let new_id: Vec<u32> = words.words().map(|w| h.id(w)).collect();
        drop(words);
        renumber_parallel(&indptr, &mut indices, &new_id);
        drop(new_id);
        let mut df = vec![0u32; h.ids()];
        if counts.counted() {
            document_frequencies(&indptr, &indices, 0..indptr.len() - 1, &mut df);
        } else {
            dedup_rows(&mut indptr, &mut indices);
            for &j in &indices {
                df[j as usize] += 1;
            }
        }
        let docs = (indptr.len() - 1) as u64;
        let x = TextMatrix::from_sorted(indptr, indices, h.ids(), counts);
        (Vocabulary::from_hashed_df(h, df.into(), docs), x)
    }
}

/// Removes repeated ids from sorted rows in place (two words of a row that hash alike).
fn dedup_rows(indptr: &mut [usize], indices: &mut Vec<u32>) {
    compact_rows(indptr, indices, |kept, j| {
        (kept.last() != Some(&j)).then_some(j)
    });
}

/// Rewrites every row in place with `keep(kept, id)` for each of its ids in order:
/// `Some(new)` appends `new` to the row (whose ids kept so far are `kept`), `None` drops
/// the id. Rows only shrink, so the write position never passes the read position.
fn compact_rows(
    indptr: &mut [usize],
    indices: &mut Vec<u32>,
    mut keep: impl FnMut(&[u32], u32) -> Option<u32>,
) {
    let mut write = 0;
    let mut start = 0;
    for i in 0..indptr.len() - 1 {
        let end = indptr[i + 1];
        let row_start = write;
        for r in start..end {
            if let Some(n) = keep(&indices[row_start..write], indices[r]) {
                indices[write] = n;
                write += 1;
            }
        }
        start = end;
        indptr[i + 1] = write;
    }
    indices.truncate(write);
}

/// A word's first 8 bytes as a big-endian integer, zero-padded: integers compare as the
/// words' prefixes do (words hold no NUL bytes).
fn sort_head(w: &str) -> u64 {
    let mut buf = [0u8; 8];
    let n = w.len().min(8);
    buf[..n].copy_from_slice(&w.as_bytes()[..n]);
    u64::from_be_bytes(buf)
}

/// Rows per parallel group when renumbering.
const GROUP: usize = 1024;

/// Renumbers every id (none pruned) and sorts each row, rows in parallel groups.
fn renumber_parallel(indptr: &[usize], indices: &mut [u32], new_id: &[u32]) {
    let n_rows = indptr.len() - 1;
    let mut groups = Vec::new();
    let mut rest = indices;
    for lo in (0..n_rows).step_by(GROUP) {
        let hi = (lo + GROUP).min(n_rows);
        let (head, tail) = rest.split_at_mut(indptr[hi] - indptr[lo]);
        groups.push((lo, hi, head));
        rest = tail;
    }
    groups.into_par_iter().for_each(|(lo, hi, ids)| {
        for j in ids.iter_mut() {
            *j = new_id[*j as usize];
        }
        let base = indptr[lo];
        for i in lo..hi {
            ids[indptr[i] - base..indptr[i + 1] - base].sort_unstable();
        }
    });
}

/// Renumbers in place, dropping pruned words (`u32::MAX`), and sorts each row.
fn renumber_pruning(indptr: &mut [usize], indices: &mut Vec<u32>, new_id: &[u32]) {
    compact_rows(indptr, indices, |_, j| {
        let n = new_id[j as usize];
        (n != u32::MAX).then_some(n)
    });
    for w in indptr.windows(2) {
        indices[w[0]..w[1]].sort_unstable();
    }
    indices.shrink_to_fit();
}
