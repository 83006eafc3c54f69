//! What every way of training shares, below the ways themselves (one process, worker
//! threads, processes joined over the network): the configuration, the classes and
//! labels of a corpus, and the training vocabulary with its rows.

mod config;
mod labels;

pub use config::{TrainConfig, training_metadata};
pub use labels::{
    binary_labels, class_indices, classes_from, classes_of, label_indices, label_sets,
};

use crate::features::{BinaryMatrix, StreamVectorizer, count_df};
use crate::input::Document;
use crate::text::Analyzer;
use crate::vocab::{VocabConfig, Vocabulary};
use crate::{Error, Result};

/// Builds the vocabulary of `docs`.
pub fn fit_vocab(analyzer: &Analyzer, config: &VocabConfig, docs: &[Document]) -> Vocabulary {
    Vocabulary::from_counts(count_df(analyzer, docs), config)
}

/// Builds the vocabulary of training documents and their rows in one tokenizing pass.
pub fn vectorize_training(
    analyzer: &Analyzer,
    config: &VocabConfig,
    docs: &[Document],
) -> (Vocabulary, BinaryMatrix) {
    let mut s = StreamVectorizer::new(analyzer.clone());
    s.push(docs);
    s.finish(config)
}

/// Refuses training rows without a single feature (`nnz` nonzeros over `n` rows, from
/// `inputs`; `what` names the rows, e.g. "documents"): every row empty, a model would
/// give every input the same score. A vocabulary pruned to nothing is refused earlier
/// ([`check_vocabulary`]); this catches hashed ids that no token reached and SVMlight
/// lines that are a label alone.
pub fn check_rows(nnz: usize, n: usize, what: &str, inputs: &[String]) -> Result<()> {
    if nnz > 0 {
        return Ok(());
    }
    let from = match inputs {
        [] => String::new(),
        _ => format!("{}: ", inputs.join(" ")),
    };
    Err(Error::Data(format!(
        "{from}none of the {n} training {what} has a feature: there is nothing to learn \
         from (every input would get the same score)"
    )))
}

/// Refuses a training vocabulary that pruning left empty: a model over no words would
/// give every document the same score.
pub fn check_vocabulary(vocab: &Vocabulary, config: &VocabConfig, docs: usize) -> Result<()> {
    if vocab.is_empty() {
        return Err(Error::Data(format!(
            "no word is left in the vocabulary: pruning to words in at least {} of the {docs} \
             documents{} removed them all",
            config.min_df,
            config
                .max_features
                .map(|m| format!(" (and to at most {m} words)"))
                .unwrap_or_default()
        )));
    }
    Ok(())
}
