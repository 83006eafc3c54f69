//! What a training run is asked to do besides its data: the analyzer, vocabulary
//! pruning, the learner, the geometry, the positive class and the workers; and the
//! metadata every freshly trained model records from it.

use crate::error::{ConfigError, Param};
use crate::features::{GeometrySpec, TermCounts};
use crate::learn::{AnyLearner, Check, Checked, Setting};
use crate::model::Metadata;
use crate::text::Analyzer;
use crate::vocab::VocabConfig;
use crate::{Error, Result};

/// Everything `train` needs to know besides the documents.
#[derive(Debug, Clone)]
pub struct TrainConfig {
    /// Tokenizer settings.
    pub analyzer: Analyzer,
    /// Vocabulary pruning.
    pub vocab: VocabConfig,
    /// The learner, checked before any work.
    pub learner: Checked<AnyLearner>,
    /// The positive class of a binary problem (default: `spam` if present, else the
    /// second label in sorted order).
    pub positive: Option<String>,
    /// The options as the user gave them, kept in the model's metadata.
    pub options: String,
    /// Feature weighting and row normalization, fitted on the training rows.
    pub geometry: GeometrySpec,
    /// What a document's row keeps of each word: whether it occurs (binary, the default),
    /// or its sublinear count 1 + ln tf, read under the geometry's weights and scale.
    pub term_counts: TermCounts,
    /// Train by iterative parameter mixing over this many timely worker threads, each on
    /// its shard of the rows (the linear models of the perceptron family: two-class,
    /// one-vs-rest and multi-label); `None` trains one learner on all rows.
    pub workers: Option<usize>,
    /// Two classes: the log-odds ln(P/(1 − P)) of the positive class above which the
    /// model says it, P its probability — calibrated on out-of-fold scores for learners
    /// whose scores are not one, a logistic model's own — so 0 is P > 0.5 and
    /// [`SPAM_ODDS`](crate::learn::SPAM_ODDS) P > 0.9. `None` decides at score 0, as does a model without a
    /// probability (a kernel model, a class of one document).
    pub threshold: Option<f32>,
    /// Three classes or more: give a one-vs-rest model whose scores are not
    /// probabilities (perceptrons, PA, …) one sigmoid per class, fitted on out-of-fold
    /// scores, so that it gives P(class | document) (`train --calibrate`). It costs five
    /// more fits of the model. Two-class models are always calibrated; logistic and
    /// softmax models have probabilities of their own.
    pub calibrate: bool,
}

/// What `rosenblatt train` does with no options: the standard analyzer (plain text,
/// lowercased words), every word kept, averaged PA-I over idf-weighted unit-length rows.
/// (The spam filter is [`TrainConfig::spam_filter`].)
impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            analyzer: Analyzer::default(),
            vocab: VocabConfig::default(),
            learner: AnyLearner::default()
                .check()
                .expect("the default learner's settings are valid"),
            positive: None,
            options: String::new(),
            geometry: GeometrySpec::IDF_L2,
            term_counts: TermCounts::Binary,
            workers: None,
            threshold: None,
            calibrate: false,
        }
    }
}

impl TrainConfig {
    /// What `rosenblatt train --spam … --ham …` does with no other options: PA-I (C = 1)
    /// for 20 shuffled epochs keeping its last weights, over binary unit-length rows,
    /// reading mail, deciding at P(spam) > 0.9. Unaveraged and longer than the text
    /// default, PA ranked mail better both within SpamAssassin and from one of its
    /// collections to the next (docs/ACCURACY.md).
    pub fn spam_filter() -> Self {
        let mut pa = AnyLearner::default();
        for setting in [Setting::Epochs(20), Setting::Average(false)] {
            pa.set(setting).expect("pa takes epochs and averaging");
        }
        TrainConfig {
            analyzer: Analyzer::standard(crate::text::Source::mail(), true),
            geometry: GeometrySpec::BINARY_L2,
            learner: pa.check().expect("the spam filter's settings are valid"),
            threshold: Some(crate::learn::SPAM_ODDS),
            ..TrainConfig::default()
        }
    }

    /// The learner by its command-line name (`perceptron`, `averaged-perceptron`, `pa`,
    /// `logistic`, `softmax`, `winnow`, `kernel-perceptron`, …) with its default
    /// settings; an unknown name is an error that lists the known ones.
    ///
    /// ```
    /// let cfg = rosenblatt::TrainConfig::default().learner("perceptron")?;
    /// assert_eq!(cfg.learner.name(), "perceptron");
    /// # Ok::<(), rosenblatt::Error>(())
    /// ```
    pub fn learner(mut self, name: &str) -> Result<Self> {
        let learner = AnyLearner::from_name(name).ok_or_else(|| {
            Error::Config(ConfigError::new(
                Param::Learner,
                name,
                format!(
                    "is not a learner; the learners are {}",
                    AnyLearner::NAMES.join(", ")
                ),
            ))
        })?;
        self.learner = learner.check()?;
        Ok(self)
    }

    /// A learner configured beyond its defaults, checked.
    pub fn with_learner(mut self, learner: Checked<AnyLearner>) -> Self {
        self.learner = learner;
        self
    }

    /// How documents are tokenized.
    pub fn analyzer(mut self, analyzer: Analyzer) -> Self {
        self.analyzer = analyzer;
        self
    }

    /// Keep only words seen in at least `n` training documents, whatever the corpus's
    /// size (the default keeps every word below 1,000 documents and words of two or more
    /// from there on, see [`VocabConfig::singletons_from`]).
    pub fn min_df(mut self, n: u32) -> Self {
        self.vocab = self.vocab.with_min_df(n);
        self
    }

    /// Keep at most `n` words, the most frequent first.
    pub fn max_features(mut self, n: usize) -> Self {
        self.vocab.max_features = Some(n);
        self
    }

    /// How rows are read: feature weighting and row normalization.
    pub fn geometry(mut self, geometry: GeometrySpec) -> Self {
        self.geometry = geometry;
        self
    }

    /// What rows keep of each word: binary, or sublinear term counts.
    pub fn term_counts(mut self, counts: TermCounts) -> Self {
        self.term_counts = counts;
        self
    }

    /// The positive class of a two-class problem.
    pub fn positive(mut self, label: &str) -> Self {
        self.positive = Some(label.to_string());
        self
    }

    /// Where a two-class model decides: the log-odds of its probability (see
    /// [`TrainConfig::threshold`]).
    pub fn threshold(mut self, log_odds: f32) -> Self {
        self.threshold = Some(log_odds);
        self
    }

    /// Train by parameter mixing over `n` worker threads (the `cluster` feature).
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n);
        self
    }

    /// This configuration with its learner's C set to `c`, and the options that name the
    /// learner saying so: what a job's [`super::TwoClassText::c`] trains two classes with.
    pub(crate) fn with_c(&self, c: f32) -> Result<TrainConfig> {
        let mut learner = self.learner.clone().into_inner();
        learner.set(Setting::C(c))?;
        Ok(TrainConfig {
            options: learner.describe(),
            learner: learner.check()?,
            ..self.clone()
        })
    }
}

/// What every freshly trained model records: this build's version, the learner and its
/// options, the inputs, the training set's size and the training report.
pub(crate) fn training_metadata(
    cfg: &TrainConfig,
    inputs: Vec<String>,
    documents: usize,
    nnz: usize,
    report: crate::learn::TrainReport,
) -> Metadata {
    Metadata {
        version: env!("CARGO_PKG_VERSION").to_string(),
        learner: cfg.learner.name().to_string(),
        options: cfg.options.clone(),
        inputs,
        documents: documents as u64,
        nnz: nnz as u64,
        report,
        ..Default::default()
    }
}
