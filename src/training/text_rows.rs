//! Training documents read in batches without holding their text: each batch is tokenized
//! into binary rows and the growing vocabulary ([`StreamVectorizer`]), its labels go to a
//! [`LabelColumn`], and the batch is dropped before the next is read. What stays is the
//! rows, the words and 4 bytes a document: a corpus trains in about the memory of its rows,
//! not twice its text. The rows and vocabulary equal those of the documents held whole.

use super::label_column::LabelColumn;
use crate::features::{BinaryMatrix, StreamVectorizer};
use crate::input::Document;
use crate::text::Analyzer;
use crate::vocab::{VocabConfig, Vocabulary};

/// Labelled documents taken in as rows, batch by batch.
#[derive(Debug)]
pub struct TextRows {
    vectorizer: StreamVectorizer,
    labels: LabelColumn,
    /// Seconds spent tokenizing, which the model records with its training time.
    seconds: f64,
}

impl TextRows {
    /// Nothing read yet; documents will be tokenized by `analyzer`.
    pub fn new(analyzer: &Analyzer) -> TextRows {
        TextRows {
            vectorizer: StreamVectorizer::new(analyzer.clone()),
            labels: LabelColumn::default(),
            seconds: 0.0,
        }
    }

    /// Tokenizes a batch into rows and records its labels; the caller may drop it then.
    pub fn push(&mut self, docs: &[Document]) {
        let start = std::time::Instant::now();
        self.vectorizer.push(docs);
        self.seconds += start.elapsed().as_secs_f64();
        for d in docs {
            self.labels.push(&d.labels);
        }
    }

    /// Documents read so far.
    pub fn documents(&self) -> usize {
        self.labels.len()
    }

    /// Bytes of text read so far.
    pub fn bytes(&self) -> u64 {
        self.vectorizer.bytes()
    }

    /// Whether the documents came in one block per label set ([`sorted_by_class`](super::sorted_by_class)).
    pub fn sorted_by_class(&self) -> bool {
        self.labels.sorted_by_class()
    }

    /// The analyzer the documents were tokenized with.
    pub(crate) fn analyzer(&self) -> &Analyzer {
        self.vectorizer.analyzer()
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
    /// numbered by it.
    pub(crate) fn finish(self, config: &VocabConfig) -> (Vocabulary, BinaryMatrix) {
        self.vectorizer.finish(config)
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
            rows.push(batch);
        }
        assert_eq!(rows.documents(), 600);
        assert_eq!(
            rows.bytes(),
            docs.iter().map(|d| d.text.len() as u64).sum::<u64>()
        );
        let labels = rows.labels().clone();
        let (vocab, x) = rows.finish(&cfg);
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
