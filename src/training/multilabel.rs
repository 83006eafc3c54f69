//! Multi-label corpora (documents with several labels, or none, such as Reuters-21578)
//! through the pipeline: label sets, training with per-label thresholds, evaluation by
//! micro- and macro-F1.

use super::label_column::LabelColumn;
use super::text_rows::{TextRows, TrainRows};
use super::train::fit_vectorized;
use super::{TextFit, Trained, vectorize_for, vectorize_training_rows};
use crate::eval::MultiLabelMetrics;
use crate::experiment::{exact_label_sets, most_frequent, tune_thresholds};
use crate::features::{Geometry, SparseRows};
use crate::input::Document;
use crate::learn::compose::multilabel::{MultiLabelOptions, fit_scorer, label_counts};
use crate::learn::{Fitted, MultiLabelModel};
use crate::model::{Metadata, Model, Predictor};
use crate::training::assemble::{Fit, Space, assemble};
use crate::training::{TrainConfig, check_rows, check_width, label_sets};
use crate::{Error, Result};
use rayon::prelude::*;
use std::time::Instant;

/// Whether a labelled corpus needs the multi-label path: some document carries a number
/// of labels other than one.
pub fn is_multilabel(docs: &[Document]) -> bool {
    docs.iter().any(|d| d.labels.len() != 1)
}

/// Trains a multi-label model: one binary classifier per label (softmax: one model over
/// all), thresholds as `opt` says.
pub(crate) fn train_multilabel(
    docs: &[Document],
    cfg: &TrainConfig,
    opt: &MultiLabelOptions,
    inputs: Vec<String>,
) -> Result<Trained> {
    let start = Instant::now();
    let TextFit {
        mut fit,
        vocab,
        matrix,
    } = fit_label_documents(docs, cfg, opt, inputs)?;
    fit.meta.seconds = start.elapsed().as_secs_f64();
    let model = assemble(cfg, Space::Text(vocab), fit)?;
    Ok(Trained { model, matrix })
}

/// [`train_multilabel`]'s work up to the assembly: labels, vocabulary, rows, checks and
/// the fit.
pub(crate) fn fit_label_documents(
    docs: &[Document],
    cfg: &TrainConfig,
    opt: &MultiLabelOptions,
    inputs: Vec<String>,
) -> Result<TextFit> {
    cfg.vocab.validate()?;
    let classes = LabelColumn::of(docs).label_names()?;
    let sets = label_sets(docs, &classes)?;
    let (vocab, stored) = vectorize_training_rows(&cfg.analyzer, cfg.term_counts, &cfg.vocab, docs);
    fit_vectorized(vocab, stored, cfg, inputs, |x, inputs| {
        fit_label_set_parts(x, &sets, classes, cfg, opt, inputs)
    })
}

/// [`fit_label_documents`] for documents already taken in as rows (read in batches,
/// their text dropped): the same labels, rows and fit.
pub(crate) fn fit_label_text(
    rows: TextRows,
    cfg: &TrainConfig,
    opt: &MultiLabelOptions,
    inputs: Vec<String>,
) -> Result<TextFit<TrainRows>> {
    cfg.vocab.validate()?;
    let classes = rows.labels().label_names()?;
    let sets = rows.labels().label_sets(&classes)?;
    // Two-class rules never apply to labels: the rules given are the rules applied.
    let (vocab, stored) = rows.finish(&cfg.vocab, &cfg.vocab)?;
    fit_vectorized(vocab, stored, cfg, inputs, |x, inputs| {
        fit_label_set_parts(x, &sets, classes, cfg, opt, inputs)
    })
}

/// Fits a multi-label model on rows whose label sets are indices into `classes`: one
/// binary classifier per label (softmax: one model over all), read in the geometry `cfg`
/// asks for, thresholds as `opt` says: a model of feature vectors (an indexed feature
/// space, no vocabulary); [`TrainingJob`](super::TrainingJob) makes the model of documents.
pub fn fit_label_sets<X: SparseRows>(
    stored: &X,
    sets: &[Vec<usize>],
    classes: Vec<String>,
    cfg: &TrainConfig,
    opt: &MultiLabelOptions,
    inputs: Vec<String>,
) -> Result<Model> {
    let fit = fit_label_set_parts(stored, sets, classes, cfg, opt, inputs)?;
    assemble(cfg, Space::Indexed(stored.n_cols()), fit)
}

/// [`fit_label_sets`]'s work up to the assembly.
fn fit_label_set_parts<X: SparseRows>(
    stored: &X,
    sets: &[Vec<usize>],
    classes: Vec<String>,
    cfg: &TrainConfig,
    opt: &MultiLabelOptions,
    inputs: Vec<String>,
) -> Result<Fit> {
    let start = Instant::now();
    check_rows(stored.nnz(), stored.n_rows(), "rows", &inputs)?;
    check_width(stored.n_cols(), classes.len(), cfg)?;
    if sets.len() != stored.n_rows() {
        return Err(Error::Data(format!(
            "{} rows but {} label sets",
            stored.n_rows(),
            sets.len()
        )));
    }
    if matches!(
        cfg.geometry.weighting,
        crate::features::Weighting::Nb { .. }
    ) {
        return Err(crate::features::nb_two_classes(classes.len()));
    }
    if cfg.calibrate {
        return Err(Error::Unsupported(
            "--calibrate is for models of three classes or more with one label per \
             document; this corpus has documents with several labels (or none), and each \
             label of its model decides at a threshold of its own: train without --calibrate"
                .into(),
        ));
    }
    let geometry = Geometry::fit(cfg.geometry, stored);
    let x = geometry.apply(stored);
    // The scorer's fit is timed alone; threshold tuning refits it on folds.
    let fit_start = Instant::now();
    let scorer = match cfg.workers {
        Some(w) => super::fit_label_sets_mixed(&cfg.learner, &x, sets, classes.len(), w)?,
        None => fit_scorer(&cfg.learner, &x, sets, classes.len())?,
    };
    let fit_seconds = fit_start.elapsed().as_secs_f64();
    let thresholds = tune_thresholds(&cfg.learner, &x, sets, &scorer.model, opt)?;
    let fitted = Fitted {
        model: MultiLabelModel {
            scorer: scorer.model,
            thresholds,
            train_counts: label_counts(sets, classes.len()),
            at_least_one: opt.at_least_one,
        },
        report: scorer.report,
    };
    let predictor = Predictor::MultiLabel(fitted.model);
    // Scored on the rows already read in the geometry, not read through it again.
    let exact = exact_label_sets(&predictor, &x, sets);
    let meta = Metadata {
        fit_seconds,
        training_accuracy: exact as f64 / sets.len().max(1) as f64,
        seconds: start.elapsed().as_secs_f64(),
        ..super::training_metadata(cfg, inputs, sets.len(), x.nnz(), fitted.report)
    };
    Ok(Fit {
        geometry,
        classes,
        predictor,
        meta,
        calibration: None,
        class_calibration: None,
        threshold: 0.0,
        accuracy_at_zero: None,
    })
}

/// The labels of every stored row (read in the model's geometry) with their scores
/// (probabilities where the model has them), computed in parallel, in row order. A
/// two-class model's label is the one its threshold gives.
pub fn decide_labels<X: SparseRows>(model: &Model, x: &X) -> Vec<Vec<(usize, f32)>> {
    labels_and_probabilities(model, x).0
}

/// Each row's labels with their scores, as [`decide_labels`] gives them, and its
/// P(`classes()[1]`) where a two-class model has a probability.
pub type LabelledRows = (Vec<Vec<(usize, f32)>>, Vec<Option<f32>>);

/// [`decide_labels`] and, from the same scores, each row's P(`classes()[1]`) where a
/// two-class model has a probability (calibrated, or a logistic model's own; `None`
/// otherwise).
pub fn labels_and_probabilities<X: SparseRows>(model: &Model, x: &X) -> LabelledRows {
    let x = &model.geometry().apply(x);
    let Predictor::Binary(_) = model.predictor() else {
        let block = model.block_for(x.n_rows());
        let labels = (0..x.n_rows())
            .into_par_iter()
            .map(|i| model.predictor().labels(x.row(i), block))
            .collect();
        return (labels, vec![None; x.n_rows()]);
    };
    (0..x.n_rows())
        .into_par_iter()
        .map(|i| {
            let (row, d) = (x.row(i), model.decide(x.row(i)));
            let value = model.predictor().probability(row, &d).unwrap_or(d.score);
            (vec![(d.class, value)], model.probability(d.score))
        })
        .unzip()
}

/// The labels ranked by training frequency (most frequent first, ties by name), for the
/// "top 10" averages; models without counts rank every label equally.
fn top_labels(model: &Model, n: usize) -> Vec<usize> {
    match &model.predictor() {
        Predictor::MultiLabel(m) => most_frequent(&m.train_counts, n),
        _ => most_frequent(&vec![0; model.classes().len()], n),
    }
}

/// Evaluates a model on documents with label sets: micro/macro-F1, over all labels and
/// the 10 most frequent in training.
pub fn evaluate_multilabel(model: &Model, docs: &[Document]) -> Result<MultiLabelMetrics> {
    Ok(evaluate_label_sets(model, docs)?.0)
}

/// The metrics of a multi-label evaluation with each document's true label indices and
/// the labels the model gave.
pub type LabelSets = (MultiLabelMetrics, Vec<Vec<usize>>, Vec<Vec<usize>>);

/// The metrics of [`evaluate_multilabel`] with each document's true and given labels.
pub fn evaluate_label_sets(model: &Model, docs: &[Document]) -> Result<LabelSets> {
    let truth = label_sets(docs, model.classes())?;
    let x = vectorize_for(model, docs).matrix;
    let predicted: Vec<Vec<usize>> = decide_labels(model, &x)
        .into_iter()
        .map(|ls| ls.into_iter().map(|l| l.0).collect())
        .collect();
    let metrics = label_set_metrics(model, &truth, &predicted);
    Ok((metrics, truth, predicted))
}

/// The metrics of a multi-label evaluation from each document's true label indices and
/// the labels the model gave: what [`evaluate_label_sets`] reports, for label sets
/// gathered from elsewhere (the shares of a cluster).
pub fn label_set_metrics(
    model: &Model,
    truth: &[Vec<usize>],
    given: &[Vec<usize>],
) -> MultiLabelMetrics {
    MultiLabelMetrics::new(
        model.classes().to_vec(),
        truth,
        given,
        top_labels(model, 10),
    )
}
