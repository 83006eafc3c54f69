//! The one place a fresh model is made. Every way of training — one process
//! ([`train`], [`fit_rows`], [`fit_label_sets`], [`Model::fit`](crate::Model::fit),
//! [`TrainingJob::run_text`] for documents read in batches),
//! worker threads (parameter mixing), processes joined over the network
//! ([`TrainingJob::run_cluster`]) — checks its corpus here (classes, labels, the training
//! vocabulary), fits a predictor, and hands it with the vocabulary, the geometry and the
//! classes to one assembly step that makes the [`Model`](crate::Model), checked once.
//! [`TrainingJob`] is the job the command line runs: a held-out part, tuning,
//! cross-validation, the fit and its evaluation.

pub(crate) mod assemble;
#[cfg(feature = "cluster")]
mod cluster;
mod config;
mod corpus;
mod fit;
mod job;
mod label_column;
mod labels;
mod mixed;
mod multilabel;
#[cfg(feature = "cluster")]
mod rounds;
#[cfg(all(test, feature = "cluster"))]
mod rounds_tests;
mod text_cache;
mod text_rows;
mod train;
mod tune;

#[cfg(feature = "cluster")]
pub(crate) use cluster::train_documents;
pub use config::TrainConfig;
pub(crate) use config::training_metadata;
pub(crate) use corpus::check_rows;
pub use corpus::{
    check_vocabulary, check_width, fit_vocab, vectorize_training, vectorize_training_rows,
};
pub use job::{Holdout, Outcome, Stage, TrainingJob, Tuning, TwoClassText};
pub use label_column::sorted_by_class;
#[cfg(feature = "cluster")]
pub(crate) use labels::classes_from;
pub use labels::{binary_labels, class_indices, classes_of, label_indices, label_sets};
pub(crate) use mixed::fit_classes_mixed;
pub(crate) use mixed::fit_label_sets_mixed;
pub(crate) use multilabel::train_multilabel;
pub use multilabel::{
    LabelSets, LabelledRows, decide_labels, evaluate_label_sets, evaluate_multilabel,
    fit_label_sets, is_multilabel, label_set_metrics, labels_and_probabilities,
};
#[cfg(feature = "cluster")]
pub use rounds::Round;
#[cfg(feature = "cluster")]
pub(crate) use rounds::{shards, train_mixed};
pub use text_rows::TextRows;
pub use train::{
    Evaluated, Trained, cross_validate_documents, cross_validate_rows, evaluate_decisions,
    fit_rows, train, vectorize_for,
};
pub(crate) use train::{TextFit, fit_documents, fit_parts};
pub(crate) use tune::tune_training_rows;
pub use tune::{config_of, tune};
