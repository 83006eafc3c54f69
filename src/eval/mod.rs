//! Evaluation: parallel scoring, metrics, seeded splits and cross-validation.

mod metrics;
mod multilabel;
mod predict;
pub mod roc;
mod spam;
mod split;
pub mod trec;

pub use metrics::{ClassMetrics, Metrics};
pub use multilabel::MultiLabelMetrics;
pub use predict::{scores, scores_sequential};
pub use roc::{one_minus_roca_pct, roc_auc};
pub use spam::SpamMetrics;
pub use split::{kfold, train_test_split};
