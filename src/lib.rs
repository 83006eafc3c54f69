//! rosenblatt: sparse binary bag-of-words text classification.
//!
//! The pipeline runs one way, each stage knowing only the one before it:
//!
//! 1. [`input`] reads documents (folders, JSONL, TSV, …) into [`input::Document`]s;
//! 2. [`text`] splits their text into lowercased words (UAX #29);
//! 3. [`vocab`] maps words to dense `u32` ids, with document frequencies and pruning;
//! 4. [`features`] turns each document into a sorted, unique row of a binary CSR matrix;
//! 5. [`learn`] fits linear classifiers on those rows — it never sees a string;
//! 6. [`eval`] scores rows in parallel and measures: metrics, ROC, the spam figures.
//!
//! A [`model::SavedModel`] bundles the analyzer configuration, the vocabulary and the
//! classifier, so that classification tokenizes exactly as training did. Above the
//! stages, [`experiment`] measures a learner on rows it was not fitted on (seeded
//! holdout, k-fold cross-validation over views of one matrix), and [`pipeline`] chains
//! everything for documents (training, evaluation, the TREC online run).
#![warn(missing_docs)]

pub mod atomic;
pub mod error;
pub mod eval;
pub mod experiment;
pub mod features;
pub mod incremental;
pub mod input;
pub mod learn;
pub mod model;
pub mod pipeline;
pub mod text;
pub mod theory;
pub mod vocab;

pub use error::{ConfigError, Error, Result};
pub use features::{BinaryMatrix, RealMatrix, RowRef, SparseRows};
pub use learn::{Classifier, Learner, LinearModel};
