//! The whole pipeline in a few calls: documents → vocabulary → rows → model, a saved
//! model applied to new documents, cross-validation of a training configuration on
//! documents, model selection by cross-validation over a grid (`train --tune`), and the
//! TREC online run. The CLI and library users share these.

use crate::error::{ConfigError, Param};
use crate::eval::Metrics;
use crate::experiment::{Classes, Split, fit_classes, predict_classes};
use crate::features::{
    BinaryMatrix, Geometry, GeometrySpec, SparseRows, StreamVectorizer, Vectorized, count_df,
    vectorize,
};
use crate::input::Document;
use crate::learn::{AnyLearner, AnyModel, Check, Checked, Label, Multiclass, OnlineState};
use crate::model::{Decision, FeatureSpace, Metadata, Predictor, SavedModel};
use crate::text::Analyzer;
use crate::theory;
use crate::vocab::{VocabConfig, Vocabulary};
use crate::{Error, Result};
use rayon::prelude::*;
use std::time::Instant;

mod multilabel;
pub(crate) use multilabel::exact_label_sets;
pub mod trec;
mod tune;
pub use multilabel::{
    LabelSets, decide_labels, evaluate_label_sets, evaluate_multilabel, is_multilabel,
    label_set_metrics, label_sets, train_multilabel,
};
pub use tune::{analyzer_for, config_of, tune, tune_rows};

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
    /// Train by iterative parameter mixing over this many timely worker threads, each on
    /// its shard of the rows (the linear models of the perceptron family: two-class,
    /// one-vs-rest and multi-label); `None` trains one learner on all rows.
    pub workers: Option<usize>,
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
            workers: None,
        }
    }
}

impl TrainConfig {
    /// What `rosenblatt train --spam … --ham …` does with no other options: the default
    /// learner over binary unit-length rows, reading mail.
    pub fn spam_filter() -> Self {
        TrainConfig {
            analyzer: Analyzer::standard(crate::text::Source::mail(), true),
            geometry: GeometrySpec::BINARY_L2,
            ..TrainConfig::default()
        }
    }
}

/// A trained model with the training matrix it was fitted on.
#[derive(Debug)]
pub struct Trained {
    /// The model, ready to save.
    pub model: SavedModel,
    /// The training rows (for diagnostics).
    pub matrix: BinaryMatrix,
}

/// The sorted class names of `docs`; for two classes the positive one is put last.
pub fn classes_of(docs: &[Document], positive: Option<&str>) -> Result<Vec<String>> {
    classes_from(
        docs.iter().flat_map(|d| d.labels.iter().cloned()).collect(),
        positive,
    )
}

/// The sorted distinct class names among `classes` (labels as they occur, repeats
/// allowed), ordered as [`classes_of`] orders them.
pub fn classes_from(mut classes: Vec<String>, positive: Option<&str>) -> Result<Vec<String>> {
    classes.sort();
    classes.dedup();
    if classes.len() < 2 {
        return Err(Error::Data(format!(
            "training needs at least two classes, found {}: {:?}",
            classes.len(),
            classes
        )));
    }
    let pos = positive.or(classes.iter().any(|c| c == "spam").then_some("spam"));
    if let Some(p) = pos {
        let i = classes.iter().position(|c| c == p).ok_or_else(|| {
            ConfigError::new(
                Param::Positive,
                p,
                format!("must be a label of the documents ({classes:?})"),
            )
        })?;
        if classes.len() == 2 {
            classes.swap(i, 1);
        }
    }
    Ok(classes)
}

/// The class index of each document's single label.
pub fn class_indices(docs: &[Document], classes: &[String]) -> Result<Vec<usize>> {
    docs.iter()
        .map(|d| match d.labels.as_slice() {
            [l] => classes.iter().position(|c| c == l).ok_or_else(|| {
                Error::Data(format!(
                    "{}: label {l:?} is not one of the model's {classes:?}",
                    d.id
                ))
            }),
            [] => Err(Error::Data(format!("{}: document has no label", d.id))),
            _ => Err(Error::Data(format!(
                "{}: document has {} labels; this task is single-label",
                d.id,
                d.labels.len()
            ))),
        })
        .collect()
}

/// ±1 labels for the one-vs-rest problem of class `c`.
pub fn binary_labels(idx: &[usize], c: usize) -> Vec<Label> {
    Multiclass::new(idx, c + 1).one_vs_rest(c)
}

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

/// Refuses a training vocabulary that pruning left empty: a model over no words would
/// give every document the same score.
pub(crate) fn check_vocabulary(
    vocab: &Vocabulary,
    config: &VocabConfig,
    docs: usize,
) -> Result<()> {
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

/// Trains a model on labelled documents.
pub fn train(docs: &[Document], cfg: &TrainConfig, inputs: Vec<String>) -> Result<Trained> {
    let start = Instant::now();
    cfg.vocab.validate()?;
    let classes = classes_of(docs, cfg.positive.as_deref())?;
    let idx = class_indices(docs, &classes)?;
    let (vocab, x) = vectorize_training(&cfg.analyzer, &cfg.vocab, docs);
    check_vocabulary(&vocab, &cfg.vocab, docs.len())?;
    let mut model = fit_rows(&x, &idx, classes, cfg, inputs)?;
    model.vocab = vocab;
    model.features = FeatureSpace::Text;
    model.meta.seconds = start.elapsed().as_secs_f64();
    Ok(Trained { model, matrix: x })
}

/// Fits a model on rows whose single labels are class indices into `classes` (binary
/// when there are two, one-vs-rest otherwise), read in the geometry `cfg` asks for,
/// fitted on these rows. The result has an empty vocabulary and an indexed feature
/// space; [`train`] fills in the text side.
pub fn fit_rows<X: SparseRows>(
    stored: &X,
    idx: &[usize],
    classes: Vec<String>,
    cfg: &TrainConfig,
    inputs: Vec<String>,
) -> Result<SavedModel> {
    let start = Instant::now();
    let geometry = Geometry::fit(cfg.geometry, stored);
    let x = &geometry.apply(stored);
    let fitted = match cfg.workers {
        Some(w) => crate::distributed::fit_classes(&cfg.learner, x, idx, classes.len(), w)?,
        None => fit_classes(&cfg.learner, x, idx, classes.len())?,
    };
    let (predictor, report) = (fitted.model, fitted.report);
    let theory = match &predictor {
        Predictor::Binary(m) => theory::diagnose_any(
            m,
            &cfg.learner,
            x,
            &binary_labels(idx, 1),
            Some(report.updates),
        ),
        _ => None,
    };
    let fit_seconds = start.elapsed().as_secs_f64();
    let mut model = SavedModel {
        analyzer: cfg.analyzer.clone(),
        vocab: Vocabulary::default(),
        features: FeatureSpace::Indexed {
            n_features: x.n_cols(),
        },
        geometry: geometry.clone(),
        classes,
        predictor,
        meta: Metadata {
            theory,
            fit_seconds,
            ..training_metadata(cfg, inputs, idx.len(), x.nnz(), report)
        },
        online: None,
        threshold: 0.0,
    };
    if let Predictor::Binary(AnyModel::Linear(_) | AnyModel::Logistic(_)) = &model.predictor {
        model.online = cfg.learner.update_rule().map(OnlineState::new);
    }
    // Scored on the rows already read in the geometry, not read through it again.
    let predicted = predict_classes(&model.predictor, x);
    let correct = predicted.iter().zip(idx).filter(|(p, t)| p == t).count();
    model.meta.training_accuracy = correct as f64 / idx.len().max(1) as f64;
    model.meta.seconds = start.elapsed().as_secs_f64();
    Ok(model)
}

/// What every freshly trained model records: this build's version, the learner and its
/// options, the inputs, the training set's size and the training report.
pub fn training_metadata(
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

/// Class indices of string labels (one per row), for pre-vectorized input such as SVMlight.
pub fn label_indices(labels: &[String], classes: &[String]) -> Result<Vec<usize>> {
    labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            classes.iter().position(|c| c == l).ok_or_else(|| {
                Error::Data(format!(
                    "row {}: label {l:?} is not one of {classes:?}",
                    i + 1
                ))
            })
        })
        .collect()
}

/// Vectorizes documents with a model's analyzer and vocabulary.
pub fn vectorize_for(model: &SavedModel, docs: &[Document]) -> Vectorized {
    vectorize(&model.analyzer, &model.vocab, docs)
}

/// The decision for every stored row (read in the model's geometry), computed in
/// parallel, in row order.
pub fn decide<X: SparseRows>(model: &SavedModel, x: &X) -> Vec<Decision> {
    let x = &model.geometry.apply(x);
    (0..x.n_rows())
        .into_par_iter()
        .map(|i| model.decide(x.row(i)))
        .collect()
}

/// Evaluates a model on labelled documents.
pub fn evaluate(model: &SavedModel, docs: &[Document]) -> Result<Metrics> {
    Ok(evaluate_decisions(model, docs)?.metrics)
}

/// A model's metrics on labelled documents with what they were computed from: each
/// document's true class and the model's decision (its score, for ROC curves).
#[derive(Debug, Clone)]
pub struct Evaluated {
    /// The metrics.
    pub metrics: Metrics,
    /// Each document's true class index.
    pub truth: Vec<usize>,
    /// Each document's decision.
    pub decisions: Vec<Decision>,
}

/// Evaluates a model on labelled documents, keeping the true classes and the decisions
/// that [`evaluate`] counts.
pub fn evaluate_decisions(model: &SavedModel, docs: &[Document]) -> Result<Evaluated> {
    let truth = class_indices(docs, &model.classes)?;
    let x = vectorize_for(model, docs).matrix;
    let decisions = decide(model, &x);
    let predicted: Vec<usize> = decisions.iter().map(|d| d.class).collect();
    Ok(Evaluated {
        metrics: Metrics::new(model.classes.clone(), &truth, &predicted),
        truth,
        decisions,
    })
}

/// Cross-validates a training configuration on single-label documents: they are
/// vectorized once (vocabulary and pruning over all of them), then every split fits on
/// its training rows and scores its test rows, folds in parallel. Returns each split's
/// metrics, in split order.
///
/// Sharing one vocabulary is what lets the folds be views of one matrix; what it changes
/// against a vocabulary per fold: pruning (`min_df`, `max_features`) is decided over all
/// the documents; words seen only in a fold's test documents get columns that no
/// training row of the fold touches, which most learners ignore (their weights stay 0)
/// but Winnow counts (its weights start at 1); and feature ids follow document frequency
/// over all the documents, so a row's real-valued weights may be summed in another order
/// and SGD learners (logistic, softmax) can end a little differently.
pub fn cross_validate(
    docs: &[Document],
    cfg: &TrainConfig,
    splits: &[Split],
) -> Result<Vec<Metrics>> {
    cfg.vocab.validate()?;
    let classes = classes_of(docs, cfg.positive.as_deref())?;
    let idx = class_indices(docs, &classes)?;
    let (_, x) = vectorize_training(&cfg.analyzer, &cfg.vocab, docs);
    cross_validate_rows(&x, &idx, &classes, cfg, splits)
}

/// Cross-validates a training configuration on vectorized rows with their class indices
/// (the rows of [`Trained::matrix`], or SVMlight rows). The geometry's idf weights are
/// counted over all the rows, as the vocabulary is (their labels take no part).
pub fn cross_validate_rows<X: SparseRows>(
    x: &X,
    idx: &[usize],
    classes: &[String],
    cfg: &TrainConfig,
    splits: &[Split],
) -> Result<Vec<Metrics>> {
    let target = Classes {
        names: classes,
        of_row: idx,
    };
    let geometry = Geometry::fit(cfg.geometry, x);
    crate::experiment::cross_validate(&cfg.learner, &geometry.apply(x), target, splits)
}
