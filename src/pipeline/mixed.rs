//! Training over worker threads (`TrainConfig::workers`): parameter mixing on timely with
//! the `cluster` feature, a sentence naming the feature without it.

#[cfg(feature = "cluster")]
pub use crate::distributed::{fit_classes, fit_label_sets};

#[cfg(not(feature = "cluster"))]
use crate::{
    Result,
    features::SparseRows,
    learn::{AnyLearner, Checked, Fitted, LabelScorer},
    model::Predictor,
};

/// The refusal when this build cannot train over workers.
#[cfg(not(feature = "cluster"))]
fn no_cluster() -> crate::Error {
    crate::Error::Data(
        "training over workers needs rosenblatt built with the `cluster` feature".into(),
    )
}

/// Without the `cluster` feature: refused with a sentence.
#[cfg(not(feature = "cluster"))]
pub fn fit_classes<X: SparseRows>(
    _: &Checked<AnyLearner>,
    _: &X,
    _: &[usize],
    _: usize,
    _: usize,
) -> Result<Fitted<Predictor>> {
    Err(no_cluster())
}

/// Without the `cluster` feature: refused with a sentence.
#[cfg(not(feature = "cluster"))]
pub fn fit_label_sets<X: SparseRows>(
    _: &Checked<AnyLearner>,
    _: &X,
    _: &[Vec<usize>],
    _: usize,
    _: usize,
) -> Result<Fitted<LabelScorer>> {
    Err(no_cluster())
}
