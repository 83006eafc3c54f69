//! Learners: configurations that fit classifiers on sparse rows. `learn` never sees a
//! string — only rows and their targets.
//!
//! A configuration struct ([`Perceptron`], [`LogisticRegression`], … or [`AnyLearner`],
//! which names any of them) holds hyper-parameters; [`Check::check`] validates them once,
//! before any work, and returns the [`Checked`] form, the only one that implements
//! [`Learner`]. `fit` returns the model with a [`TrainReport`]. Targets are ±1 labels, one
//! class per row ([`Multiclass`]) or label sets ([`MultiLabel`]). A [`Classifier`] is
//! read-only and shared across threads.
//!
//! ```
//! use rosenblatt::features::real_from_dense;
//! use rosenblatt::SparseRows;
//! use rosenblatt::learn::{AnyLearner, Check, Classifier, Learner};
//!
//! let x = real_from_dense(&[vec![1., 2.], vec![2., 1.], vec![-1., -1.], vec![-1., 1.]]);
//! let y = [1, 1, -1, -1];
//! let learner = AnyLearner::from_name("perceptron").unwrap().check()?;
//! let fit = learner.fit(&x, &y[..])?;
//! assert!(fit.model.score(x.row(0)) > 0.0);
//! # Ok::<(), rosenblatt::Error>(())
//! ```

mod any;
mod averaged;
#[cfg(test)]
mod block_order_tests;
mod centroid;
mod check;
pub(crate) mod compose;
pub(crate) mod dual;
mod into_any;
mod kind;
mod linear;
mod logistic;
mod loss;
mod margin;
pub mod mixing;
mod online;
mod pa;
mod perceptron;
mod predictor;
mod progress;
mod registry;
#[cfg(test)]
mod seed_examples;
mod setting;
mod softmax;
pub(crate) use softmax::softmax_in_place;
mod step;
mod svm;
mod target;
mod update;
mod winnow;

pub use any::AnyModel;
pub(crate) use any::combine_reports;
pub use averaged::AveragedPerceptron;
pub(crate) use centroid::NearestCentroid;
pub use check::{Check, Checked};
pub use compose::calibration::{Calibration, SPAM_ODDS, probability};
pub use compose::class_calibration::{ClassCalibration, MIN_CLASS_ROWS};
pub use compose::multilabel::{LabelScorer, MultiLabelModel, MultiLabelOptions, Thresholds};
pub use dual::gram::Gram;
pub use dual::kernel::Kernel;
pub use dual::kernel_model::{KernelModel, SupportRows, Vote};
pub use dual::kernel_perceptron::{Averaging, KernelPerceptron};
pub use linear::LinearModel;
pub use logistic::{EarlyStopping, LogisticRegression, RateSchedule, Solver};
pub use margin::MarginPerceptron;
pub use online::OnlineOptions;
pub use pa::PassiveAggressive;
pub use perceptron::{Bias, Perceptron, Schedule};
pub use predictor::{ClassDecision, Predictor};
pub use progress::{epochs, fits};
pub use registry::AnyLearner;
pub use setting::Setting;
pub(crate) use softmax::{SoftmaxModel, SoftmaxRegression};
pub use svm::LinearSvm;
pub use target::{MultiLabel, Multiclass};
pub(crate) use update::learn_rows_ovr;
pub use update::{OnlineState, Rate, UpdateRule};
pub use winnow::Winnow;

use crate::features::{RowRef, SparseRows};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// A binary label: +1 (the positive class) or −1.
pub type Label = i8;

/// Scores rows; shared read-only across rayon threads.
pub trait Classifier: Send + Sync {
    /// The real-valued discriminant; positive means the positive class.
    fn score(&self, row: RowRef<'_>) -> f32;

    /// The predicted label: +1 when the score is positive, −1 otherwise.
    fn predict(&self, row: RowRef<'_>) -> Label {
        if self.score(row) > 0.0 { 1 } else { -1 }
    }
}

/// A training algorithm with checked hyper-parameters, for targets `T`: ±1 labels (the
/// default, `[Label]`), [`Multiclass`] or [`MultiLabel`].
pub trait Learner<T: ?Sized = [Label]> {
    /// What it produces.
    type Model;
    /// Fits on rows `x` with targets `y`.
    fn fit<X: SparseRows>(&self, x: &X, y: &T) -> Result<Fitted<Self::Model>>;
}

/// A fitted model with what happened during training.
#[derive(Debug, Clone)]
pub struct Fitted<M> {
    /// The model.
    pub model: M,
    /// Epochs, updates, convergence.
    pub report: TrainReport,
}

/// What a training run did; saved in the model's metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainReport {
    /// Passes over the data (for randomized training: rounds / rows, rounded up).
    pub epochs: usize,
    /// Examples visited.
    pub steps: u64,
    /// Weight updates k.
    pub updates: u64,
    /// Mistakes made in each epoch (for online training: the online mistakes).
    pub mistakes_per_epoch: Vec<u64>,
    /// For until-convergence and randomized-with-patience: whether training stopped
    /// because the stopping rule was met.
    pub converged: Option<bool>,
}

/// Checks that the rows can be read as rows, rows and labels agree, and labels are ±1 with both classes present.
pub(crate) fn check_binary<X: SparseRows>(x: &X, y: &[Label]) -> Result<()> {
    x.check_rows()?;
    if x.n_rows() != y.len() {
        return Err(Error::Data(format!(
            "{} rows but {} labels",
            x.n_rows(),
            y.len()
        )));
    }
    if x.n_rows() == 0 {
        return Err(Error::Data("no training examples".into()));
    }
    if let Some(bad) = y.iter().find(|&&l| l != 1 && l != -1) {
        return Err(Error::Data(format!("label {bad} is not +1 or -1")));
    }
    Ok(())
}
