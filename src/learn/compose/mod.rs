//! Learners composed of learners: one-vs-rest (every class in parallel, or in one pass
//! over the rows for the additive online learners and logistic regression), multi-label
//! models (a binary model per label and tuned thresholds), and the calibration of a
//! two-class model's scores, or of each class of a one-vs-rest model, into probabilities.

pub(crate) mod blocked;
pub(crate) mod calibration;
pub(crate) mod class_calibration;
pub(crate) mod multilabel;
pub(crate) mod ovr;
pub(crate) mod ovr_logistic;
pub(crate) mod ovr_online;
