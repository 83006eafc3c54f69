//! Experiments: how well a learner does on rows it was not fitted on — seeded holdout and
//! k-fold cross-validation over one vectorized matrix.
//!
//! The data is vectorized once; a [`Split`] is two lists of row indices, and every fit
//! and score runs on [`RowSubset`](crate::features::RowSubset) views of that one matrix
//! (no document is cloned or tokenized again, no row copied). Folds run in parallel and
//! give what a sequential run gives. Splits are seeded and either plain (the assignment
//! `train --holdout` and `--cv` have always made) or stratified by class.
//!
//! One job per file: `split` ([`holdout`], [`stratified_holdout`]) and `folds`
//! ([`kfold`], [`stratified_kfold`]) make the index lists; `run` (`run_splits`) runs a
//! task per split; `classes` ([`cross_validate`]) fits and scores single-label targets,
//! `labels` ([`cross_validate_labels`]) multi-label ones; `thresholds`
//! (`tune_thresholds`) tunes multi-label thresholds on folds; `calibrate`
//! (`calibrate`) fits a two-class model's probability on out-of-fold scores, `calibrate_classes`
//! (`calibrate_classes`) a one-vs-rest model's per class; `tune` ([`tune_rows`],
//! [`TuneRun`]) chooses a learner, its constant and the geometry from a [`Grid`] by
//! cross-validation on the training rows.
//!
//! ```
//! use rosenblatt::experiment::{Classes, cross_validate, stratified_kfold};
//! use rosenblatt::features::synthetic::zipf_rows;
//! use rosenblatt::learn::{AnyLearner, AveragedPerceptron, Check};
//!
//! let (x, y) = zipf_rows(500, 1000, 20, 7);
//! let of_row: Vec<usize> = y.iter().map(|&l| usize::from(l > 0)).collect();
//! let names = ["no".to_string(), "yes".to_string()];
//! let classes = Classes { names: &names, of_row: &of_row };
//! let folds = stratified_kfold(&of_row, 5, 42)?;
//! let learner = AnyLearner::AveragedPerceptron(AveragedPerceptron::default()).check()?;
//! let metrics = cross_validate(&learner, &x, classes, &folds)?;
//! assert_eq!(metrics.len(), 5);
//! assert!(metrics.iter().all(|m| m.accuracy() > 0.5));
//! # Ok::<(), rosenblatt::Error>(())
//! ```

mod calibrate;
mod calibrate_classes;
mod classes;
mod folds;
mod labels;
mod run;
mod split;
mod thresholds;
mod tune;
#[cfg(test)]
mod view_tests;

pub(crate) use calibrate::{calibrate, fit_calibrated};
pub(crate) use calibrate_classes::calibrate_classes;
pub(crate) use classes::exact_label_sets;
pub(crate) use classes::fit_classes;
pub(crate) use classes::fold_scores;
#[cfg(feature = "cluster")]
pub(crate) use classes::predict_classes;
pub(crate) use classes::score_split;
pub use classes::{Classes, cross_validate};
pub use folds::{kfold, stratified_kfold};
pub(crate) use labels::most_frequent;
pub use labels::{LabelSets, cross_validate_labels, score_split_labels};
#[cfg(test)]
pub(crate) use run::run_splits_sequential;
pub(crate) use run::{run_folds, run_splits};
pub use split::{Split, holdout, stratified_holdout};
pub(crate) use thresholds::{fit_multilabel, tune_thresholds};
pub use tune::{
    Constant, Grid, GridPoint, LearnerChoice, PointResult, PointSpec, Score, Target, TuneOptions,
    TuneProgress, TuneRow, TuneRun, TuneTable, tune_rows,
};
