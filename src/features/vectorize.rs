//! Documents → binary rows, in parallel over documents with per-thread scratch; the result
//! is identical to the sequential path (chunks are stitched back in input order).
//!
//! A vocabulary of words keeps a row's ids unique as they arrive and hands them out sorted
//! ([`IdSet`], one bit per word); a hashed space has 2^B ids, too many to mark per thread,
//! so its rows are sorted and deduplicated instead. The tokens come from the analyzer's
//! batches, whose keys were computed as the words were scanned, and the table slots of the
//! words a few tokens ahead are asked for while the current one is looked up.

use super::{BinaryMatrix, IdSet, MatrixBuilder, Seen};
use crate::input::Document;
use crate::text::{Analyzer, TokenBuffer};
use crate::vocab::{DfCounts, Vocabulary};
use rayon::prelude::*;

/// Documents per parallel work item.
const CHUNK: usize = 256;

/// A vectorized corpus and the number of tokens the frozen vocabulary did not know.
#[derive(Debug, Clone)]
pub struct Vectorized {
    /// One binary row per document, in input order.
    pub matrix: BinaryMatrix,
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
            batch.each_ahead::<AHEAD>(
                |k| table.prefetch(k),
                |w, k| match table.get_key(w, k) {
                    Some(id) => _ = set.insert(id),
                    None => unknown += 1,
                },
            )
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

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
