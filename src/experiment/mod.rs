//! Experiments: how well a learner does on rows it was not fitted on — seeded holdout and
//! k-fold cross-validation over one vectorized matrix.
//!
//! The data is vectorized once; a [`Split`] is two lists of row indices, and every fit
//! and score runs on [`RowSubset`](crate::features::RowSubset) views of that one matrix
//! (no document is cloned or tokenized again, no row copied). Folds run in parallel and
//! give what a sequential run gives. Splits are seeded and either plain (the assignment
//! `train --holdout` and `--cv` have always made) or stratified by class.
//!
//! One job per file: [`split`](holdout) and [`folds`](kfold) make the index lists,
//! [`run_splits`] runs a task per split, [`cross_validate`] fits and scores single-label
//! targets and [`cross_validate_labels`] multi-label ones, [`tune_thresholds`] tunes
//! multi-label thresholds on folds.

mod classes;
mod folds;
mod labels;
mod run;
mod split;
mod thresholds;

pub use classes::{Classes, cross_validate, fit_classes, predict_classes, score_split};
pub use folds::{kfold, stratified_kfold};
pub use labels::{LabelSets, cross_validate_labels, most_frequent, score_split_labels};
pub use run::{run_splits, run_splits_sequential};
pub use split::{Split, holdout, stratified_holdout};
pub use thresholds::{fit_multilabel, tune_thresholds};
