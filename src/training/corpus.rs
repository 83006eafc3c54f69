//! The corpus checks every way of training shares: the training vocabulary and its rows,
//! and the refusals of rows, widths and vocabularies a model cannot be made from.

use super::TrainConfig;
use crate::features::Weighting;
use crate::features::{BinaryMatrix, StreamVectorizer, TermCounts, TextMatrix, count_df};
use crate::input::Document;
use crate::learn::AnyLearner;
use crate::model::MAX_MODEL_BYTES;
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

/// [`vectorize_training`] keeping what `counts` asks of each word: binary rows, or
/// each word's sublinear count.
pub fn vectorize_training_rows(
    analyzer: &Analyzer,
    counts: TermCounts,
    config: &VocabConfig,
    docs: &[Document],
) -> (Vocabulary, TextMatrix) {
    let mut s = StreamVectorizer::with_counts(analyzer.clone(), counts);
    s.push(docs);
    s.finish_rows(config)
}

/// Refuses training rows without a single feature (`nnz` nonzeros over `n` rows, from
/// `inputs`; `what` names the rows, e.g. "documents"): every row empty, a model would
/// give every input the same score. A vocabulary pruned to nothing is refused earlier
/// ([`check_vocabulary`]); this catches hashed ids that no token reached and SVMlight
/// lines that are a label alone.
pub(crate) fn check_rows(nnz: usize, n: usize, what: &str, inputs: &[String]) -> Result<()> {
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

/// Refuses a feature space too wide for a model: the vectors of 4 bytes per feature that
/// training under `cfg` keeps — the learner's weights (one vector for two classes, one per
/// class otherwise; none for the kernel perceptron, whose model keeps support vectors) and
/// the idf weights — must fit in a model file (`MAX_MODEL_BYTES`), or the model could be
/// neither saved whole nor loaded. Checked before anything is sized by the width, so a
/// stray SVMlight id of 2^32 − 1 is a sentence, not an allocation of 17 GB.
pub fn check_width(n_features: usize, classes: usize, cfg: &TrainConfig) -> Result<()> {
    let learner = match *cfg.learner {
        AnyLearner::KernelPerceptron(_) => 0,
        _ if classes <= 2 => 1,
        _ => classes,
    };
    let idf = usize::from(cfg.geometry.weighting == Weighting::Idf);
    let vectors = learner + idf;
    let bytes = (n_features as u128) * 4 * vectors as u128;
    if bytes <= u128::from(MAX_MODEL_BYTES) {
        return Ok(());
    }
    let per = match (learner, idf) {
        (0, _) => "the idf weights".to_string(),
        (1, 0) => "one weight vector".to_string(),
        (1, _) => "one weight vector and the idf weights".to_string(),
        (k, 0) => format!("{k} weight vectors (one per class)"),
        (k, _) => format!("{k} weight vectors (one per class) and the idf weights"),
    };
    Err(Error::Data(format!(
        "{n_features} features take {per} of 4 bytes per feature, {:.1} GB: more than a \
         model file can hold ({MAX_MODEL_BYTES} bytes, 4 GiB)",
        bytes as f64 / 1e9
    )))
}

/// Refuses a training vocabulary that pruning left empty: a model over no words would
/// give every document the same score.
pub fn check_vocabulary(vocab: &Vocabulary, config: &VocabConfig, docs: usize) -> Result<()> {
    if vocab.is_empty() {
        return Err(Error::Data(format!(
            "no word is left in the vocabulary: pruning to words in at least {} of the {docs} \
             documents{} removed them all",
            config.min_df_for(docs as u64),
            config
                .max_features
                .map(|m| format!(" (and to at most {m} words)"))
                .unwrap_or_default()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::Check;

    #[test]
    fn a_feature_space_wider_than_a_model_file_is_a_sentence() {
        let binary = TrainConfig {
            geometry: crate::features::GeometrySpec::default(),
            ..TrainConfig::default()
        };
        assert_eq!(binary.geometry.weighting, Weighting::Binary);
        assert!(check_width(1 << 24, 2, &binary).is_ok());
        assert!(check_width(1 << 28, 4, &binary).is_ok());
        let e = check_width(u32::MAX as usize, 2, &binary)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("4294967295 features take one weight vector of") && e.contains("17.2 GB"),
            "{e}"
        );
        let e = check_width(1 << 28, 5, &binary).unwrap_err().to_string();
        assert!(e.contains("5 weight vectors (one per class)"), "{e}");
        let e = check_width(1 << 28, 4, &TrainConfig::default()).unwrap_err();
        assert!(e.to_string().contains("and the idf weights"), "{e}");
        // The kernel perceptron keeps support vectors, not a weight per feature.
        let kernel = TrainConfig {
            learner: AnyLearner::from_name("kernel-perceptron")
                .unwrap()
                .check()
                .unwrap(),
            ..binary
        };
        assert!(check_width(u32::MAX as usize, 2, &kernel).is_ok());
    }
}
