//! One grid point on one fold: accuracy for single-label targets (ROC AUC for two classes
//! a model will decide at a calibrated probability), and for multi-label
//! ones micro-F1 with thresholds cut on a quarter of the fold's training rows (the
//! cheaper rule the module docs describe); and a fold's error naming its point.

use super::{GridPoint, Target, TuneOptions};
use crate::Result;
use crate::eval::MultiLabelMetrics;
use crate::eval::roc_auc;
use crate::experiment::{Classes, LabelSets, Split, fold_scores, holdout, score_split};
use crate::features::{RowSubset, SparseRows};
use crate::learn::compose::multilabel::{Thresholds, best_threshold, fit_scorer, label_counts};
use crate::learn::{AnyLearner, Checked, MultiLabelModel};
use rayon::prelude::*;

/// A fold's error, naming the point and the fold (1-based).
pub(super) fn fold_error(e: crate::Error, p: &GridPoint, f: usize) -> crate::Error {
    match e {
        crate::Error::Data(m) => {
            crate::Error::Data(format!("tuning {}: fold {}: {m}", p.flags(), f + 1))
        }
        other => other,
    }
}

/// One point's score on one fold of rows `x` (read in the point's geometry).
pub(super) fn score_fold<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    target: Target<'_>,
    split: &Split,
    opt: &TuneOptions,
) -> Result<f64> {
    match target {
        Target::Classes(c) => Ok(score_split(learner, x, c, split)?.accuracy()),
        Target::Ranked(c) => rank_fold(learner, x, c, split),
        Target::Labels(l) => score_labels_fold(learner, x, l, split, opt),
    }
}

/// A two-class fold scored by the ROC AUC of its test rows' scores (class 1 positive); a
/// fold whose test rows hold one class only scores 0.5, no ranking.
fn rank_fold<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    classes: Classes<'_>,
    split: &Split,
) -> Result<f64> {
    let scores = fold_scores(learner, x, classes.of_row, split)?;
    let positive: Vec<bool> = split.test.iter().map(|&i| classes.of_row[i] == 1).collect();
    Ok(roc_auc(&scores, &positive).unwrap_or(0.5))
}

/// A multi-label fold: thresholds tuned on a seeded quarter of the fold's training rows
/// (scorer fitted on the rest), test rows scored by micro-F1.
fn score_labels_fold<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    labels: LabelSets<'_>,
    split: &Split,
    opt: &TuneOptions,
) -> Result<f64> {
    let k = labels.names.len();
    let sets_of = |rows: &[usize]| -> Vec<Vec<usize>> {
        rows.iter().map(|&i| labels.of_row[i].clone()).collect()
    };
    let ml = opt.thresholds;
    let (fit_rows, cut_rows, min_f1) = match ml.thresholds {
        Thresholds::CrossValidated { min_f1, .. } if split.train.len() >= 4 => {
            let inner = holdout(split.train.len(), 0.25, opt.seed)?;
            let pick =
                |part: &[usize]| -> Vec<usize> { part.iter().map(|&p| split.train[p]).collect() };
            (pick(&inner.train), pick(&inner.test), Some(min_f1))
        }
        _ => (split.train.clone(), Vec::new(), None),
    };
    let fit_sets = sets_of(&fit_rows);
    let scorer = fit_scorer(learner, &RowSubset::new(x, &fit_rows), &fit_sets, k)?.model;
    let mut thresholds = vec![scorer.default_threshold(); k];
    if let Some(min_f1) = min_f1 {
        let scores: Vec<Vec<f32>> = cut_rows.iter().map(|&i| scorer.scores(x.row(i))).collect();
        for (c, t) in thresholds.iter_mut().enumerate() {
            let mut pairs: Vec<(f32, bool)> = scores
                .iter()
                .zip(&cut_rows)
                .map(|(s, &i)| (s[c], labels.of_row[i].contains(&c)))
                .collect();
            if let Some((best, f1)) = best_threshold(&mut pairs)
                && f1 >= min_f1
            {
                *t = best;
            }
        }
    }
    let model = MultiLabelModel {
        scorer,
        thresholds,
        train_counts: label_counts(&fit_sets, k),
        at_least_one: ml.at_least_one,
    };
    let predicted: Vec<Vec<usize>> = split
        .test
        .par_iter()
        .map(|&i| model.labels(x.row(i)).into_iter().map(|l| l.0).collect())
        .collect();
    let m = MultiLabelMetrics::new(
        labels.names.to_vec(),
        &sets_of(&split.test),
        &predicted,
        Vec::new(),
    );
    Ok(m.micro_f1())
}
