//! Evaluation: parallel scoring, metrics, seeded splits and cross-validation.

mod metrics;
mod predict;
mod split;

pub use metrics::{ClassMetrics, Metrics};
pub use predict::{scores, scores_sequential};
pub use split::{kfold, train_test_split};
