//! Evaluation: how good given scores and decisions are — parallel scoring, confusion
//! metrics and the largest confusions, multi-label micro/macro-F1, ROC/AUC, the spam
//! measures, and the log loss and calibration error of class probabilities.
//!
//! `eval` only measures; it never fits or changes a model. Splitting data and
//! cross-validating belong to the experiment layer above it, and the TREC online run,
//! which learns as it goes, to `incremental::trec`.

mod confusions;
mod curve;
mod loss;
mod metrics;
mod multilabel;
mod predict;
mod probability;
pub mod roc;
mod spam;

pub use confusions::{Confusion, largest_confusions};
pub use curve::{CurvePoint, learning_curve};
pub use loss::log_loss;
pub use metrics::{ClassMetrics, Metrics};
pub use multilabel::{MultiLabelMetrics, label_confusion};
pub use predict::{scores, scores_sequential};
pub use probability::{
    ECE_BINS, Outcome, ProbabilityMetrics, class_log_loss, expected_calibration_error,
};
pub use roc::{one_minus_roca_pct, roc_auc, roc_points};
pub use spam::SpamMetrics;
