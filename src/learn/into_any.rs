//! A fitted binary model as the model file holds it: the one conversion every way of
//! fitting (a learner's own fit, one-vs-rest, parameter mixing) ends in.

use super::{AnyModel, KernelModel, LinearModel};

/// A fitted binary model as the model file holds it.
pub(crate) trait IntoAny {
    /// The model; `probabilistic` learners' linear models are logits.
    fn into_any(self, probabilistic: bool) -> AnyModel;
}

impl IntoAny for LinearModel {
    fn into_any(self, probabilistic: bool) -> AnyModel {
        if probabilistic {
            AnyModel::Logistic(self)
        } else {
            AnyModel::Linear(self)
        }
    }
}

impl IntoAny for KernelModel {
    fn into_any(self, _: bool) -> AnyModel {
        AnyModel::Kernel(Box::new(self))
    }
}
