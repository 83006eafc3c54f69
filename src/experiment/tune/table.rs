//! What a tuning run hands back: the [`Score`] points are judged by, each point's
//! [`PointResult`] over the folds, and the [`TuneTable`] of [`TuneRow`]s with its winner.
//! These are plain data, serialized into the model so `inspect` can show the table.

use serde::{Deserialize, Serialize};

/// The figure a grid point is scored by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Score {
    /// The fraction of test rows whose class is right (single-label targets).
    #[serde(rename = "accuracy")]
    Accuracy,
    /// Micro-averaged F1 over every label (multi-label targets).
    #[serde(rename = "micro-F1")]
    MicroF1,
    /// The area under the ROC curve of the test rows' scores (two classes decided at a
    /// calibrated probability).
    #[serde(rename = "ROC AUC")]
    RocAuc,
}

impl Score {
    /// The score's name, as tables print it.
    pub fn name(self) -> &'static str {
        match self {
            Score::Accuracy => "accuracy",
            Score::MicroF1 => "micro-F1",
            Score::RocAuc => "ROC AUC",
        }
    }
}

/// What a point scored, fold by fold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// The mean of the fold scores.
    pub mean: f64,
    /// Their sample standard deviation (n − 1).
    pub sd: f64,
    /// Each fold's score, in fold order.
    pub folds: Vec<f64>,
    /// Seconds its folds took, summed (they run in parallel, so this is work, not wall
    /// time).
    pub seconds: f64,
}

impl PointResult {
    pub(super) fn new(folds: Vec<f64>, seconds: f64) -> PointResult {
        let n = folds.len() as f64;
        let mean = folds.iter().sum::<f64>() / n;
        let sd = if folds.len() > 1 {
            (folds.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        PointResult {
            mean,
            sd,
            folds,
            seconds,
        }
    }
}

/// One row of the table: a point's flags and its result (`None`: skipped, the budget
/// was spent before its turn).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneRow {
    /// The point's flags, as `train` takes them.
    pub flags: String,
    /// What it scored, or `None` when it was skipped.
    pub result: Option<PointResult>,
}

/// The outcome of a tuning run, kept in the model so `inspect` can show how it was
/// chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneTable {
    /// What the points were scored by.
    pub score: Score,
    /// Folds of the cross-validation.
    pub folds: usize,
    /// Seed of the folds.
    pub seed: u64,
    /// Rows (documents) tuned on: the training part only, never held-out rows.
    pub documents: u64,
    /// How multi-label thresholds were chosen inside the folds (`None`: single-label).
    pub thresholds: Option<String>,
    /// The budget in seconds, if one was given.
    pub budget_seconds: Option<f64>,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
    /// One row per point, in evaluation order.
    pub rows: Vec<TuneRow>,
    /// The index of the winning row.
    pub best: usize,
}

impl TuneTable {
    /// Points evaluated (not skipped).
    pub fn evaluated(&self) -> usize {
        self.rows.iter().filter(|r| r.result.is_some()).count()
    }

    /// The winning row.
    pub fn winner(&self) -> &TuneRow {
        &self.rows[self.best]
    }
}
