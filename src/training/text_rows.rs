//! Training documents read in batches without holding their text: each batch is tokenized
//! into binary rows and the growing vocabulary ([`StreamVectorizer`]), its labels go to a
//! [`LabelColumn`], and the batch is dropped before the next is read. What stays is the
//! rows, the words and 4 bytes a document: a corpus trains in about the memory of its rows,
//! not twice its text. The rows and vocabulary equal those of the documents held whole.

use super::label_column::LabelColumn;
use super::text_cache::{CacheHead, CachePayload, CacheStamp};
use crate::features::{
    BinaryMatrix, CsrView, RealMatrix, RowCache, RowRef, SparseRows, Spill, StreamVectorizer,
    TermCounts, TextMatrix,
};
use crate::input::Document;
use crate::text::Analyzer;
use crate::vocab::{VocabConfig, Vocabulary};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// Labelled documents taken in as rows, batch by batch.
#[derive(Debug)]
pub struct TextRows {
    rows: Rows,
    labels: LabelColumn,
    /// Seconds spent tokenizing, which the model records with its training time.
    seconds: f64,
}

/// Where the rows are.
#[derive(Debug)]
enum Rows {
    /// Tokenized as read, held in memory.
    Memory(StreamVectorizer),
    /// Tokenized as read, sent to disk, to become the cache file `path`.
    Spilling {
        vectorizer: StreamVectorizer,
        spill: Spill,
        path: PathBuf,
        stamp: CacheStamp,
    },
    /// Read from an existing cache file.
    Cached {
        analyzer: Analyzer,
        vocab: Vocabulary,
        rows: RowCache,
    },
}

/// The rows a training run fits on: in memory, or a cache file.
#[derive(Debug)]
pub(crate) enum TrainRows {
    Memory(BinaryMatrix),
    /// Rows that keep each word's sublinear count (held in memory only).
    Counts(RealMatrix),
    Cache(RowCache),
}

impl TextRows {
    /// Nothing read yet; documents will be tokenized by `analyzer`.
    pub fn new(analyzer: &Analyzer) -> TextRows {
        TextRows::with_counts(analyzer, TermCounts::Binary)
    }

    /// Nothing read yet; documents will be tokenized by `analyzer` into rows that keep
    /// what `counts` asks of each word.
    pub fn with_counts(analyzer: &Analyzer, counts: TermCounts) -> TextRows {
        TextRows {
            rows: Rows::Memory(StreamVectorizer::with_counts(analyzer.clone(), counts)),
            labels: LabelColumn::default(),
            seconds: 0.0,
        }
    }

    /// Rows that go to the row cache file `path` as documents are read, instead of
    /// memory (for corpora whose rows do not fit in it): `finish` completes the file,
    /// and a later run over the same `inputs` read the same way (`reading`, in the
    /// caller's words: format, splitting) trains from it ([`TextRows::open_cache`]). The
    /// ids wait in a temporary file beside `path` until then.
    pub fn cached_at(
        analyzer: &Analyzer,
        path: &Path,
        inputs: &[PathBuf],
        reading: &str,
    ) -> Result<TextRows> {
        let stamp = CacheStamp::of_inputs(inputs, reading);
        let target = crate::atomic::real_target(path)?;
        let dir = target.parent().unwrap_or(Path::new("."));
        Ok(TextRows {
            rows: Rows::Spilling {
                vectorizer: StreamVectorizer::new(analyzer.clone()),
                spill: Spill::create(dir)?,
                path: path.to_path_buf(),
                stamp,
            },
            labels: LabelColumn::default(),
            seconds: 0.0,
        })
    }

    /// Every document of the row cache file `path`, refused as stale unless it was made
    /// from these `inputs` (as they are now: sizes and times) read as `reading` says,
    /// with this `analyzer` and pruning `config`: nothing is left to read.
    pub fn open_cache(
        path: &Path,
        analyzer: &Analyzer,
        config: &VocabConfig,
        inputs: &[PathBuf],
        reading: &str,
    ) -> Result<TextRows> {
        let stamp = CacheStamp::of_inputs(inputs, reading);
        let (rows, payload) = RowCache::open_unless(path, |unchecked| {
            CachePayload::refuse_stale(path, unchecked, &stamp, analyzer, config)
        })?;
        let p = CachePayload::check(path, &payload, &stamp, analyzer, config)?;
        if p.labels.len() != rows.n_rows() || p.vocab.len() != rows.n_cols() {
            return Err(Error::Parse {
                path: path.to_path_buf(),
                line: None,
                message: "its rows, labels and vocabulary do not agree: corrupt".into(),
            });
        }
        Ok(TextRows {
            rows: Rows::Cached {
                analyzer: p.head.analyzer,
                vocab: p.vocab,
                rows,
            },
            labels: p.labels,
            seconds: 0.0,
        })
    }

    /// Tokenizes a batch into rows and records its labels; the caller may drop it then.
    /// Refused for rows read from a cache.
    pub fn push(&mut self, docs: &[Document]) -> Result<()> {
        let start = std::time::Instant::now();
        match &mut self.rows {
            Rows::Memory(v) => v.push(docs),
            Rows::Spilling {
                vectorizer, spill, ..
            } => {
                vectorizer.push(docs);
                vectorizer.spill(spill)?;
            }
            Rows::Cached { .. } => {
                return Err(Error::Unsupported(
                    "rows read from a cache take no more documents".into(),
                ));
            }
        }
        self.seconds += start.elapsed().as_secs_f64();
        for d in docs {
            self.labels.push(&d.labels);
        }
        Ok(())
    }

    /// Documents read so far.
    pub fn documents(&self) -> usize {
        self.labels.len()
    }

    /// Bytes of text read so far (none for rows read from a cache).
    pub fn bytes(&self) -> u64 {
        match &self.rows {
            Rows::Memory(v) | Rows::Spilling { vectorizer: v, .. } => v.bytes(),
            Rows::Cached { .. } => 0,
        }
    }

    /// Whether the documents came in one block per label set ([`sorted_by_class`](super::sorted_by_class)).
    pub fn sorted_by_class(&self) -> bool {
        self.labels.sorted_by_class()
    }

    /// The analyzer the documents were tokenized with.
    pub(crate) fn analyzer(&self) -> &Analyzer {
        match &self.rows {
            Rows::Memory(v) | Rows::Spilling { vectorizer: v, .. } => v.analyzer(),
            Rows::Cached { analyzer, .. } => analyzer,
        }
    }

    /// Seconds spent tokenizing so far.
    pub(crate) fn seconds(&self) -> f64 {
        self.seconds
    }

    /// The documents' labels.
    pub(crate) fn labels(&self) -> &LabelColumn {
        &self.labels
    }

    /// The training vocabulary under `config` (pruned and renumbered) and the rows
    /// numbered by it; rows sent to disk are renumbered into their cache file, which is
    /// then complete. The file records `asked`, the rules the run was given: `config` may
    /// add a job's two-class rule, which a rerun with the same options applies again from
    /// the same labels, so the cache is checked against what it will be asked.
    pub(crate) fn finish(
        self,
        config: &VocabConfig,
        asked: &VocabConfig,
    ) -> Result<(Vocabulary, TrainRows)> {
        match self.rows {
            Rows::Memory(v) => match v.finish_rows(config) {
                (vocab, TextMatrix::Binary(x)) => Ok((vocab, TrainRows::Memory(x))),
                (vocab, TextMatrix::Counts(x)) => Ok((vocab, TrainRows::Counts(x))),
            },
            Rows::Spilling {
                vectorizer,
                spill,
                path,
                stamp,
            } => {
                let analyzer = vectorizer.analyzer().clone();
                let (vocab, out) = vectorizer.finish_spilled(spill, config, &path)?;
                let payload = CachePayload {
                    head: CacheHead {
                        stamp,
                        analyzer,
                        vocab_config: *asked,
                    },
                    vocab,
                    labels: self.labels,
                };
                let cache = out.commit(&payload.encode()?)?;
                Ok((payload.vocab, TrainRows::Cache(cache)))
            }
            Rows::Cached { vocab, rows, .. } => Ok((vocab, TrainRows::Cache(rows))),
        }
    }
}

impl SparseRows for TrainRows {
    fn n_rows(&self) -> usize {
        match self {
            TrainRows::Memory(x) => x.n_rows(),
            TrainRows::Counts(x) => x.n_rows(),
            TrainRows::Cache(x) => x.n_rows(),
        }
    }
    fn n_cols(&self) -> usize {
        match self {
            TrainRows::Memory(x) => x.n_cols(),
            TrainRows::Counts(x) => x.n_cols(),
            TrainRows::Cache(x) => x.n_cols(),
        }
    }
    fn row(&self, i: usize) -> RowRef<'_> {
        match self {
            TrainRows::Memory(x) => SparseRows::row(x, i),
            TrainRows::Counts(x) => SparseRows::row(x, i),
            TrainRows::Cache(x) => x.row(i),
        }
    }
    fn nnz(&self) -> usize {
        match self {
            TrainRows::Memory(x) => SparseRows::nnz(x),
            TrainRows::Counts(x) => SparseRows::nnz(x),
            TrainRows::Cache(x) => x.nnz(),
        }
    }
    fn csr(&self) -> Option<CsrView<'_>> {
        match self {
            TrainRows::Memory(x) => x.csr(),
            TrainRows::Counts(x) => x.csr(),
            TrainRows::Cache(x) => x.csr(),
        }
    }
    fn shuffle_block(&self) -> Option<usize> {
        match self {
            TrainRows::Memory(x) => x.shuffle_block(),
            TrainRows::Counts(x) => x.shuffle_block(),
            TrainRows::Cache(x) => x.shuffle_block(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::vectorize_training;

    #[test]
    fn rows_read_in_batches_equal_the_documents_held_whole() {
        let docs: Vec<Document> = (0..600)
            .map(|i| {
                let text = format!("w{} w{} common x{}", i % 7, i % 13, i % 101);
                Document::new(
                    i.to_string(),
                    text,
                    Some(if i % 3 == 0 { "a" } else { "b" }),
                )
            })
            .collect();
        let a = Analyzer::default();
        let cfg = VocabConfig::default();
        let mut rows = TextRows::new(&a);
        for batch in docs.chunks(97) {
            rows.push(batch).unwrap();
        }
        assert_eq!(rows.documents(), 600);
        assert_eq!(
            rows.bytes(),
            docs.iter().map(|d| d.text.len() as u64).sum::<u64>()
        );
        let labels = rows.labels().clone();
        let (vocab, x) = rows.finish(&cfg, &cfg).unwrap();
        let TrainRows::Memory(x) = x else {
            panic!("rows held in memory")
        };
        let (whole_vocab, whole_x) = vectorize_training(&a, &cfg, &docs);
        assert_eq!(x, whole_x);
        assert_eq!(vocab.len(), whole_vocab.len());
        for id in 0..vocab.len() as u32 {
            assert_eq!(vocab.word(id), whole_vocab.word(id));
        }
        let classes = labels.classes(None).unwrap();
        assert_eq!(labels.class_indices(&classes).unwrap()[..4], [0, 1, 1, 0]);
    }
}
