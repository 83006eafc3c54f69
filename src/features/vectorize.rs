//! Documents → binary rows (or, when asked, rows that keep each word's count), in parallel
//! over documents with per-thread scratch; the result is identical to the sequential path
//! (chunks are stitched back in input order).
//!
//! A vocabulary of words keeps a row's ids unique as they arrive and hands them out sorted
//! ([`IdSet`], one bit per word); a hashed space has 2^B ids, too many to mark per thread,
//! so its rows are sorted and deduplicated instead. The tokens come from the analyzer's
//! batches, whose keys were computed as the words were scanned, and the table slots of the
//! words a few tokens ahead are asked for while the current one is looked up.

use super::{BinaryMatrix, IdSet, MatrixBuilder, Seen, TermCounts, TextMatrix};
use crate::input::Document;
use crate::text::{Analyzer, TokenBuffer};
use crate::vocab::{DfCounts, Vocabulary, WordTable};
use rayon::prelude::*;

/// Documents per parallel work item.
const CHUNK: usize = 256;

/// A vectorized corpus and the number of tokens the frozen vocabulary did not know.
#[derive(Debug, Clone)]
pub struct Vectorized<M = BinaryMatrix> {
    /// One row per document, in input order: binary, or as a model's term counts ask.
    pub matrix: M,
    /// Tokens skipped because the vocabulary does not contain them.
    pub unknown_tokens: u64,
}

/// Document frequencies of every token of `docs` (of every hashed id, when the analyzer
/// hashes), counted in parallel.
pub(crate) fn count_df(analyzer: &Analyzer, docs: &[Document]) -> DfCounts {
    let new = || DfCounts::new(analyzer.hashing());
    docs.par_iter()
        .fold(new, |mut c, d| {
            c.start_document();
            analyzer.tokens(d, &mut |t| c.add(t));
            c
        })
        .reduce(new, DfCounts::merge)
}

/// How a chunk's tokens are found: the block scanner with each batch's table slots asked
/// for ahead, or the tokenizer a token at a time as it was before (the baseline).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Path {
    Scanned,
    Scalar,
}

/// Tokens whose table slots are asked for ahead of their lookup.
const AHEAD: usize = 16;

/// Looks every token of `batch` up in `table`, the slots of tokens [`AHEAD`] places on
/// asked for meanwhile: `found` gets each known token's id, `unknown` counts the others.
#[inline(always)]
fn look_up(batch: &TokenBuffer, table: &WordTable, unknown: &mut u64, mut found: impl FnMut(u32)) {
    batch.each_ahead::<AHEAD>(
        |k| table.prefetch(k),
        |w, k| match table.get_key(w, k) {
            Some(id) => found(id),
            None => *unknown += 1,
        },
    )
}

/// Per-thread scratch: a row's ids, their marks (the baseline's and the scanned path's),
/// a batch of tokens.
type Scratch = (Vec<u32>, Seen, IdSet, TokenBuffer);

fn vectorize_chunk(
    analyzer: &Analyzer,
    vocab: &Vocabulary,
    docs: &[Document],
    scratch: &mut Scratch,
    path: Path,
) -> (MatrixBuilder, u64) {
    let (ids, seen, set, buf) = scratch;
    let mut b = MatrixBuilder::with_capacity(docs.len(), docs.len() * 64);
    if let Some(h) = vocab.hashing() {
        for d in docs {
            ids.clear();
            analyzer.tokens(d, &mut |t| ids.push(h.id(t)));
            b.push_unsorted(ids);
        }
        return (b, 0);
    }
    let table = vocab.table();
    let mut unknown = 0u64;
    if path == Path::Scalar {
        seen.grow(vocab.len());
        for d in docs {
            ids.clear();
            seen.next_document();
            analyzer.tokens_scalar(d, &mut |t| match table.get(t) {
                Some(id) => {
                    if seen.first(id) {
                        ids.push(id)
                    }
                }
                None => unknown += 1,
            });
            ids.sort_unstable();
            b.push_sorted(ids);
        }
        return (b, unknown);
    }
    set.grow(vocab.len());
    for d in docs {
        analyzer.scan(d, buf, &mut |batch| {
            look_up(batch, table, &mut unknown, |id| _ = set.insert(id))
        });
        ids.clear();
        set.drain_sorted(ids);
        b.push_sorted(ids);
    }
    (b, unknown)
}

/// Vectorizes `docs` against a frozen vocabulary (or a hashed space), in parallel.
pub fn vectorize(analyzer: &Analyzer, vocab: &Vocabulary, docs: &[Document]) -> Vectorized {
    vectorize_by(analyzer, vocab, docs, Path::Scanned)
}

/// [`vectorize`] as it ran before the block scanner: each token found a byte at a time
/// ([`Analyzer::tokens_scalar`]) and looked up alone. The same rows; kept as the baseline
/// that `benches/pipeline.rs` measures beside [`vectorize`], and as an oracle in tests.
pub fn vectorize_scalar(analyzer: &Analyzer, vocab: &Vocabulary, docs: &[Document]) -> Vectorized {
    vectorize_by(analyzer, vocab, docs, Path::Scalar)
}

fn vectorize_by(
    analyzer: &Analyzer,
    vocab: &Vocabulary,
    docs: &[Document],
    path: Path,
) -> Vectorized {
    let parts: Vec<(MatrixBuilder, u64)> = docs
        .par_chunks(CHUNK)
        .map_init(Scratch::default, |scratch, chunk| {
            vectorize_chunk(analyzer, vocab, chunk, scratch, path)
        })
        .collect();
    let nnz = parts.iter().map(|(b, _)| b.rows()).sum::<usize>();
    let mut all = MatrixBuilder::with_capacity(nnz, 0);
    let mut unknown_tokens = 0;
    for (b, u) in &parts {
        all.append(b);
        unknown_tokens += u;
    }
    Vectorized {
        matrix: all.finish(vocab.len()),
        unknown_tokens,
    }
}

/// One chunk's counted rows: every token's id kept (repeats included), each row sorted, so
/// [`TextMatrix::from_sorted`] collapses a word's repeats into its count. Words are looked
/// up as [`vectorize`] looks them up: from the block scanner's batches, each token's table
/// slot asked for ahead (a token at a time, counted rows took a third longer to read).
fn count_chunk(
    analyzer: &Analyzer,
    vocab: &Vocabulary,
    docs: &[Document],
) -> (Vec<usize>, Vec<u32>, u64) {
    let (mut lens, mut ids) = (Vec::with_capacity(docs.len()), Vec::new());
    let mut unknown = 0u64;
    let table = vocab.table();
    // A batch of the chunk's own, not the thread's: an analyzer of n-grams, or a hashed
    // space, tokenizes through the thread's batch within it.
    let mut buf = TokenBuffer::default();
    for d in docs {
        let start = ids.len();
        match vocab.hashing() {
            Some(h) => analyzer.tokens(d, &mut |t| ids.push(h.id(t))),
            None => analyzer.scan(d, &mut buf, &mut |batch| {
                look_up(batch, table, &mut unknown, |id| ids.push(id))
            }),
        }
        ids[start..].sort_unstable();
        lens.push(ids.len() - start);
    }
    (lens, ids, unknown)
}

/// Vectorizes `docs` as [`vectorize`] does, keeping what `counts` asks for: binary rows
/// are [`vectorize`]'s own; counted rows hold 1 + ln tf beside each word.
pub fn vectorize_counted(
    analyzer: &Analyzer,
    vocab: &Vocabulary,
    docs: &[Document],
    counts: TermCounts,
) -> (TextMatrix, u64) {
    if !counts.counted() {
        let v = vectorize(analyzer, vocab, docs);
        return (TextMatrix::Binary(v.matrix), v.unknown_tokens);
    }
    let parts: Vec<(Vec<usize>, Vec<u32>, u64)> = docs
        .par_chunks(CHUNK)
        .map(|chunk| count_chunk(analyzer, vocab, chunk))
        .collect();
    let mut indptr = Vec::with_capacity(docs.len() + 1);
    indptr.push(0);
    let mut indices = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    let mut unknown = 0;
    for (lens, ids, u) in parts {
        for len in lens {
            indptr.push(indptr[indptr.len() - 1] + len);
        }
        indices.extend_from_slice(&ids);
        unknown += u;
    }
    let m = TextMatrix::from_sorted(indptr, indices, vocab.len(), counts);
    (m, unknown)
}

/// The sequential reference path of [`vectorize`].
#[cfg(test)]
fn vectorize_sequential(analyzer: &Analyzer, vocab: &Vocabulary, docs: &[Document]) -> Vectorized {
    let (b, unknown_tokens) = vectorize_chunk(
        analyzer,
        vocab,
        docs,
        &mut Default::default(),
        Path::Scanned,
    );
    Vectorized {
        matrix: b.finish(vocab.len()),
        unknown_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::VocabConfig;
    use proptest::prelude::*;

    /// Words with non-ASCII letters among them.
    const WORDS: &[&str] = &["free", "win", "prize", "café", "Ünïcode", "now", "x1"];

    #[test]
    fn a_million_word_vocabulary_works() {
        let words: Vec<Box<str>> = (0..1_000_000)
            .map(|i| format!("w{i}").into_boxed_str())
            .collect();
        let vocab = Vocabulary::from_parts(words, vec![1; 1_000_000], 1);
        assert_eq!(vocab.get("w999999"), Some(999_999));
        let docs = vec![Document::new("d", "w0 w999999 w500000 zzz", None)];
        let v = vectorize(&Analyzer::default(), &vocab, &docs);
        assert_eq!(
            crate::features::SparseRows::row(&v.matrix, 0).ids,
            &[0, 500_000, 999_999]
        );
        assert_eq!(v.matrix.cols(), 1_000_000);
    }

    #[test]
    fn counted_rows_hold_one_plus_the_log_of_each_words_count() {
        let words: Vec<Box<str>> = ["a", "b", "c"].map(Box::from).to_vec();
        let vocab = Vocabulary::from_parts(words, vec![1; 3], 1);
        let docs = vec![
            Document::new("0", "b a b zz b", None),
            Document::new("1", "c", None),
        ];
        let (m, unknown) =
            vectorize_counted(&Analyzer::default(), &vocab, &docs, TermCounts::Sublinear);
        assert_eq!(unknown, 1);
        let r = crate::features::SparseRows::row(&m, 0);
        assert_eq!(r.ids, [0, 1]);
        let v = r.vals.unwrap();
        assert_eq!(v[0], 1.0);
        assert!((v[1] - (1.0 + 3f32.ln())).abs() < 1e-6);
        assert_eq!(crate::features::SparseRows::row(&m, 1).vals.unwrap(), [1.0]);
        // Binary counting is `vectorize` itself.
        let (b, _) = vectorize_counted(&Analyzer::default(), &vocab, &docs, TermCounts::Binary);
        assert_eq!(
            b,
            TextMatrix::Binary(vectorize(&Analyzer::default(), &vocab, &docs).matrix)
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Counted rows hold each known token's count, as a token at a time through the
        /// analyzer and the vocabulary finds them, and count the unknown ones; their ids
        /// are the binary rows'.
        #[test]
        fn counted_rows_count_every_token_found_a_token_at_a_time(
            texts in proptest::collection::vec("[a-zA-Zé0-9 .,'Ü-]{0,120}", 1..60),
            known in 1usize..60,
        ) {
            let docs: Vec<Document> = texts
                .iter()
                .enumerate()
                .map(|(i, t)| Document::new(i.to_string(), t.as_str(), None))
                .collect();
            let a = Analyzer::default();
            let seen = &docs[..known.min(docs.len())];
            let vocab = Vocabulary::from_counts(count_df(&a, seen), &VocabConfig::every_word());
            let (m, unknown) = vectorize_counted(&a, &vocab, &docs, TermCounts::Sublinear);
            let binary = vectorize(&a, &vocab, &docs);
            let mut missed = 0u64;
            for (i, d) in docs.iter().enumerate() {
                let mut n = std::collections::BTreeMap::<u32, u32>::new();
                a.tokens(d, &mut |t| match vocab.get(t) {
                    Some(id) => *n.entry(id).or_default() += 1,
                    None => missed += 1,
                });
                let r = crate::features::SparseRows::row(&m, i);
                prop_assert_eq!(r.ids, crate::features::SparseRows::row(&binary.matrix, i).ids);
                let expect: Vec<u32> = n.keys().copied().collect();
                prop_assert_eq!(r.ids, expect.as_slice());
                for (v, c) in r.vals.unwrap().iter().zip(n.values()) {
                    prop_assert!((v - (1.0 + (*c as f32).ln())).abs() < 1e-6);
                }
            }
            prop_assert_eq!(unknown, missed);
        }

        /// Vectorizing in parallel chunks gives the rows and the unknown-token count of the
        /// one sequential pass, for corpora smaller and larger than a chunk.
        #[test]
        fn parallel_vectorizing_equals_sequential(
            texts in proptest::collection::vec(proptest::collection::vec(0..WORDS.len(), 0..12), 1..700),
            known in 1usize..400,
        ) {
            let docs: Vec<Document> = texts
                .iter()
                .enumerate()
                .map(|(i, ws)| {
                    let text: Vec<&str> = ws.iter().map(|&w| WORDS[w]).collect();
                    Document::new(i.to_string(), text.join(" "), None)
                })
                .collect();
            let a = Analyzer::default();
            // The vocabulary of a prefix, so later documents hold unknown words.
            let seen = &docs[..known.min(docs.len())];
            let vocab = Vocabulary::from_counts(count_df(&a, seen), &VocabConfig::default());
            let par = vectorize(&a, &vocab, &docs);
            let seq = vectorize_sequential(&a, &vocab, &docs);
            prop_assert_eq!(&par.matrix, &seq.matrix);
            prop_assert_eq!(par.unknown_tokens, seq.unknown_tokens);
        }
    }
}
