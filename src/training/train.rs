//! Training in one process: documents → vocabulary → rows → a fit → the assembled model,
//! and a saved model applied to new documents for evaluation and cross-validation.

use super::assemble::{Fit, Space, assemble, threshold_for};
use crate::Result;
use crate::eval::{Metrics, SpamMetrics};
use crate::experiment::{
    Classes, Split, calibrate, calibrate_classes, fit_calibrated, fit_classes, run_folds,
    score_split,
};
use crate::features::{Geometry, RowSubset, SparseRows, StreamVectorizer, TextMatrix};
use crate::features::{Vectorized, vectorize_counted};
use crate::input::Document;
use crate::model::{ClassDecision, Metadata, Model, Predictor, decide_at};
use crate::theory;
use crate::vocab::{VocabConfig, Vocabulary};
use rayon::prelude::*;
use std::time::Instant;

use super::text_rows::{TextRows, TrainRows};
use super::{
    TrainConfig, binary_labels, check_rows, check_vocabulary, check_width, class_indices,
    classes_of, training_metadata, vectorize_training_rows,
};

/// A trained model with the training matrix it was fitted on.
#[derive(Debug)]
pub struct Trained {
    /// The model, ready to save.
    pub model: Model,
    /// The training rows (for diagnostics): binary, or counted as the configuration asked.
    pub matrix: TextMatrix,
}

/// Trains a model on labelled documents.
pub fn train(docs: &[Document], cfg: &TrainConfig, inputs: Vec<String>) -> Result<Trained> {
    let start = Instant::now();
    let TextFit {
        mut fit,
        vocab,
        matrix,
    } = fit_documents(docs, cfg, inputs)?;
    fit.meta.seconds = start.elapsed().as_secs_f64();
    let model = assemble(cfg, Space::Text(vocab), fit)?;
    Ok(Trained { model, matrix })
}

/// What training on documents fits before it is assembled: the fit, the vocabulary its
/// rows are numbered by, and the rows.
pub(crate) struct TextFit<X = TextMatrix> {
    /// The fitted predictor and what goes with it.
    pub fit: Fit,
    /// The training vocabulary.
    pub vocab: Vocabulary,
    /// The training rows (binary, before the geometry).
    pub matrix: X,
}

/// [`train`]'s work up to the assembly: classes, vocabulary, rows, checks and the fit.
pub(crate) fn fit_documents(
    docs: &[Document],
    cfg: &TrainConfig,
    inputs: Vec<String>,
) -> Result<TextFit> {
    cfg.vocab.validate()?;
    let classes = classes_of(docs, cfg.positive.as_deref())?;
    let idx = class_indices(docs, &classes)?;
    let (vocab, x) = vectorize_training_rows(&cfg.analyzer, cfg.term_counts, &cfg.vocab, docs);
    fit_vectorized(vocab, x, cfg, inputs, |x, inputs| {
        fit_parts(x, &idx, classes, cfg, inputs)
    })
}

/// [`fit_documents`] for documents already taken in as rows (read in batches, their text
/// dropped): the same classes, rows and fit. `asked`: the pruning rules the run was given,
/// which a row cache records (see [`TextRows::finish`]).
pub(crate) fn fit_text(
    rows: TextRows,
    cfg: &TrainConfig,
    asked: &VocabConfig,
    inputs: Vec<String>,
) -> Result<TextFit<TrainRows>> {
    cfg.vocab.validate()?;
    let classes = rows.labels().classes(cfg.positive.as_deref())?;
    let idx = rows.labels().class_indices(&classes)?;
    let (vocab, x) = rows.finish(&cfg.vocab, asked)?;
    fit_vectorized(vocab, x, cfg, inputs, |x, inputs| {
        fit_parts(x, &idx, classes, cfg, inputs)
    })
}

/// The checks of a training vocabulary and its rows (single-label and multi-label
/// alike), then `fit` of the rows.
pub(crate) fn fit_vectorized<X: SparseRows>(
    vocab: Vocabulary,
    x: X,
    cfg: &TrainConfig,
    inputs: Vec<String>,
    fit: impl FnOnce(&X, Vec<String>) -> Result<Fit>,
) -> Result<TextFit<X>> {
    check_vocabulary(&vocab, &cfg.vocab, x.n_rows())?;
    check_rows(x.nnz(), x.n_rows(), "documents", &inputs)?;
    let fit = fit(&x, inputs)?;
    Ok(TextFit {
        fit,
        vocab,
        matrix: x,
    })
}

/// Fits a model on rows whose single labels are class indices into `classes` (binary
/// when there are two, one-vs-rest otherwise), read in the geometry `cfg` asks for,
/// fitted on these rows: a model of feature vectors (an indexed feature space, no
/// vocabulary).
pub fn fit_rows<X: SparseRows>(
    stored: &X,
    idx: &[usize],
    classes: Vec<String>,
    cfg: &TrainConfig,
    inputs: Vec<String>,
) -> Result<Model> {
    let fit = fit_parts(stored, idx, classes, cfg, inputs)?;
    let space = Space::Indexed(stored.n_cols());
    assemble(cfg, space, fit)
}

/// [`fit_rows`]'s work up to the assembly: the geometry, the predictor, a two-class
/// linear model's calibration and threshold, and the metadata with the training accuracy
/// at the model's own decision.
pub(crate) fn fit_parts<X: SparseRows>(
    stored: &X,
    idx: &[usize],
    classes: Vec<String>,
    cfg: &TrainConfig,
    inputs: Vec<String>,
) -> Result<Fit> {
    let start = Instant::now();
    check_rows(stored.nnz(), stored.n_rows(), "rows", &inputs)?;
    check_width(stored.n_cols(), classes.len(), cfg)?;
    let geometry = Geometry::fit_classes(cfg.geometry, stored, idx, classes.len())?;
    let x = &geometry.apply(stored);
    // Every two-class model, kernel ones too, gets its probability from out-of-fold
    // scores, fitted with the model where the learner can share its passes over the rows
    // with the calibration's folds. The seconds of fitting count the model's own fit.
    let two = classes.len() == 2;
    let before = start.elapsed();
    let fit_start = Instant::now();
    let (fitted, fitting, calibration) = match cfg.workers {
        Some(w) => {
            let f = super::fit_classes_mixed(&cfg.learner, x, idx, classes.len(), w)?;
            let fitting = fit_start.elapsed();
            let calibration = if two {
                calibrate(&cfg.learner, x, idx)?
            } else {
                None
            };
            (f, fitting, calibration)
        }
        None if two => {
            let c = fit_calibrated(&cfg.learner, x, idx)?;
            (c.fitted, c.fitting, c.calibration)
        }
        None => {
            let f = fit_classes(&cfg.learner, x, idx, classes.len())?;
            (f, fit_start.elapsed(), None)
        }
    };
    let (predictor, report) = (fitted.model, fitted.report);
    let class_calibration = match &predictor {
        Predictor::OneVsRest(_) if cfg.calibrate && !predictor.probabilistic() => {
            calibrate_classes(&cfg.learner, x, idx, classes.len())?
        }
        _ => None,
    };
    let theory_start = Instant::now();
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
    let fit_seconds = (before + fitting + theory_start.elapsed()).as_secs_f64();
    let threshold = match &predictor {
        Predictor::Binary(_) => threshold_for(&predictor, calibration.as_ref(), cfg.threshold),
        _ => 0.0,
    };
    // Scored once on the rows already read in the geometry, not read through them again:
    // right at the model's own decision (a two-class model's threshold), and at score 0,
    // where a two-class model's class is the sign of the same score.
    let (correct, at_zero) = (0..x.n_rows())
        .into_par_iter()
        .map(|i| {
            let d = decide_at(&predictor, threshold, x.row(i));
            let zero = if threshold == 0.0 {
                d.class
            } else {
                usize::from(d.score > 0.0)
            };
            (usize::from(d.class == idx[i]), usize::from(zero == idx[i]))
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let n = idx.len().max(1) as f64;
    let accuracy_at_zero = (threshold != 0.0).then_some(at_zero as f64 / n);
    let meta = Metadata {
        theory,
        fit_seconds,
        training_accuracy: correct as f64 / n,
        seconds: start.elapsed().as_secs_f64(),
        ..training_metadata(cfg, inputs, idx.len(), x.nnz(), report)
    };
    Ok(Fit {
        geometry,
        classes,
        predictor,
        meta,
        calibration,
        class_calibration,
        threshold,
        accuracy_at_zero,
    })
}

/// Vectorizes documents with a model's analyzer and vocabulary, keeping each word's count
/// where the model was trained on counts.
pub fn vectorize_for(model: &Model, docs: &[Document]) -> Vectorized<TextMatrix> {
    let (matrix, unknown_tokens) =
        vectorize_counted(model.analyzer(), model.vocab(), docs, model.term_counts());
    Vectorized {
        matrix,
        unknown_tokens,
    }
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
    pub decisions: Vec<ClassDecision>,
    /// The log loss and calibration error of the model's class probabilities, where it
    /// has them ([`Model::has_class_probabilities`]).
    pub probabilities: Option<crate::eval::ProbabilityMetrics>,
}

impl Evaluated {
    /// The spam-filter figures of these decisions, with class `spam` the one called spam
    /// when its score is above `threshold`.
    pub fn spam_metrics(&self, spam: usize, threshold: f32) -> SpamMetrics {
        let scores: Vec<f32> = self.decisions.iter().map(|d| d.score).collect();
        let is_spam: Vec<bool> = self.truth.iter().map(|&t| t == spam).collect();
        SpamMetrics::new(&scores, &is_spam, threshold)
    }
}

/// Evaluates a model on labelled documents, keeping the true classes and the decisions
/// that `evaluate` counts.
pub fn evaluate_decisions(model: &Model, docs: &[Document]) -> Result<Evaluated> {
    let truth = class_indices(docs, model.classes())?;
    let x = vectorize_for(model, docs).matrix;
    let decisions = model.decide_rows(&x);
    let predicted: Vec<usize> = decisions.iter().map(|d| d.class).collect();
    let probabilities = model
        .class_probability_rows(&x)
        .map(|p| crate::eval::ProbabilityMetrics::new(&p, &truth));
    Ok(Evaluated {
        metrics: Metrics::new(model.classes().to_vec(), &truth, &predicted),
        truth,
        decisions,
        probabilities,
    })
}

/// Cross-validates a training configuration on single-label documents: each split is
/// scored as a model trained on its training documents alone would score its test
/// documents, deciding at score 0 (a model's own decision threshold is not fitted per
/// fold). The vocabulary (with its pruning), the idf weights and naive-Bayes ratios
/// are each split's training part's, so a word seen once in training and once in a test
/// document counts once, as it would in use. The documents are tokenized once; each
/// split renumbers the rows to its own vocabulary. Splits run in parallel; returns each
/// split's metrics, in split order.
pub fn cross_validate_documents(
    docs: &[Document],
    cfg: &TrainConfig,
    splits: &[Split],
) -> Result<Vec<Metrics>> {
    cfg.vocab.validate()?;
    let classes = classes_of(docs, cfg.positive.as_deref())?;
    let idx = class_indices(docs, &classes)?;
    let mut rows = StreamVectorizer::with_counts(cfg.analyzer.clone(), cfg.term_counts);
    rows.push(docs);
    if cfg.analyzer.hashing().is_some() {
        // Hashed ids are the same whichever documents are counted: nothing to renumber.
        let (_, x) = rows.finish_rows(&cfg.vocab);
        return cross_validate_rows(&x, &idx, &classes, cfg, splits);
    }
    // Splits run in parallel, each with its own copy of the rows: at most one a thread.
    run_folds(splits, |_, s| {
        let x = rows.rows_of_part(&s.train, &cfg.vocab);
        fold_metrics(&x, &idx, &classes, cfg, s)
    })
}

/// Cross-validates a training configuration on vectorized rows with their class indices
/// (SVMlight rows, or rows of documents under a hashing analyzer). The geometry's
/// weights (idf, naive-Bayes ratios) are each split's training rows', as a model
/// trained on them would have. Returns each split's metrics, in split order.
pub fn cross_validate_rows<X: SparseRows>(
    x: &X,
    idx: &[usize],
    classes: &[String],
    cfg: &TrainConfig,
    splits: &[Split],
) -> Result<Vec<Metrics>> {
    run_folds(splits, |_, s| fold_metrics(x, idx, classes, cfg, s))
}

/// One split's metrics: the geometry fitted on its training rows, the learner on the
/// weighted training rows, scored on its test rows.
fn fold_metrics<X: SparseRows>(
    x: &X,
    idx: &[usize],
    classes: &[String],
    cfg: &TrainConfig,
    split: &Split,
) -> Result<Metrics> {
    let train_idx: Vec<usize> = split.train.iter().map(|&i| idx[i]).collect();
    let train_rows = RowSubset::new(x, &split.train);
    let target = Classes {
        names: classes,
        of_row: idx,
    };
    let geometry = Geometry::fit_classes(cfg.geometry, &train_rows, &train_idx, classes.len())?;
    score_split(&cfg.learner, &geometry.apply(x), target, split)
}
