//! Model selection inside the training data: every point of a grid — a learner with a
//! value of its main constant, a feature weighting and row normalization, an n-gram
//! order — cross-validated on the same seeded folds of the training rows, and a table of
//! mean ± sd per point with the best one marked.
//!
//! The score is accuracy for single-label targets (binary and multiclass), ROC AUC for two
//! classes whose model will decide at a calibrated probability (a spam filter), and
//! micro-F1 for multi-label ones. Folds are stratified: by class, or for multi-label rows by
//! their rarest label (rows without a label form a class of their own), so rare labels
//! reach every fold.
//!
//! Multi-label thresholds are tuned inside each fold, on that fold's training rows only,
//! with a cheaper rule than a final model's: the scorer is fitted on three quarters of
//! the fold's training rows, each label's F1-best cut is taken on the last quarter (a
//! label below `min_f1` keeps the default), and that model scores the fold's test rows.
//! One fit per fold instead of the `folds + 1` of nested threshold folds is what lets a
//! grid run on Reuters in about a minute on two cores; the winner is then refitted with
//! the usual rule (see [`TuneOptions::thresholds`]).
//!
//! Points run in a fixed order ([`Grid::points`]: by n-grams, then cheapest first) in
//! batches of a few points × all their folds, in parallel. With a budget, no batch
//! starts once the budget is spent (the first always runs, so there is a winner): the
//! remaining points are marked skipped and the best of those done wins. A run so exceeds
//! its budget by at most one batch. Ties go to the earlier, cheaper point.
//!
//! Geometry weights (idf, naive-Bayes ratios) are fitted on each fold's training rows, as
//! [`crate::training::cross_validate_rows`] fits them. The vocabulary is the one of all the
//! documents tuned on (the grid has no pruning dimension, so every point sees the same
//! one; [`crate::training::cross_validate_documents`] builds each fold's own).

mod fold;
mod grid;
mod run;
mod table;
#[cfg(test)]
mod tests;

pub use grid::{Constant, Grid, GridPoint, LearnerChoice, PointSpec};
pub use run::{Target, TuneOptions, TuneProgress, TuneRun, tune_rows};
pub use table::{PointResult, Score, TuneRow, TuneTable};
