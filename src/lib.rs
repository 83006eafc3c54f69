//! rosenblatt: sparse binary bag-of-words text classification.
//!
//! The pipeline runs one way, each module using only those below it (the layers are
//! listed in docs/ARCHITECTURE.md, and a test holds the code to them):
//!
//! 1. [`input`] reads documents (folders, JSONL, TSV, …) into [`input::Document`]s;
//! 2. [`text`] splits their text into lowercased words (UAX #29), and n-grams of them;
//! 3. [`vocab`] maps words to dense `u32` ids, with document frequencies and pruning (or,
//!    under a hashing analyzer, to their hashed ids, with no words kept);
//! 4. [`features`] turns each document into a sorted, unique row of a binary CSR matrix;
//! 5. [`learn`] fits linear classifiers on those rows — it never sees a string;
//! 6. [`eval`] scores rows in parallel and measures: metrics, ROC, the spam figures.
//!
//! A [`model::Model`] bundles the analyzer configuration, the vocabulary and the
//! classifier, so that classification tokenizes exactly as training did. Above the
//! stages, [`experiment`] measures a learner on rows it was not fitted on (seeded
//! holdout, k-fold cross-validation over views of a matrix), [`training`] is the one
//! place a fresh model is made (one process, worker threads or a cluster), and
//! [`incremental`] changes a saved filter one message at a time (the TREC online run).
//!
//! The front door: train on labelled documents, classify strings, save and load.
//!
//! ```
//! use rosenblatt::{Document, Model, TrainConfig};
//!
//! let docs = [
//!     Document::labelled("spam", "cheap meds, buy now"),
//!     Document::labelled("ham", "lunch at noon tomorrow"),
//!     Document::labelled("spam", "buy cheap watches now"),
//!     Document::labelled("ham", "the meeting moved to noon"),
//! ];
//! let model = Model::fit(&docs, &TrainConfig::default())?;
//! assert_eq!(model.classify("buy cheap now")?.label, "spam");
//! # let dir = tempfile::tempdir().unwrap();
//! # let path = dir.path().join("spam.model");
//! model.save(&path)?;
//! assert_eq!(Model::load(&path)?.classify("noon lunch")?.label, "ham");
//! # Ok::<(), rosenblatt::Error>(())
//! ```
//!
//! [`TrainConfig`] chooses the analyzer, the vocabulary pruning, the learner and the
//! geometry ([`TrainConfig::spam_filter`] is the command line's mail filter);
//! [`Model::classify_batch`] classifies many texts in parallel and `Model::classify_mail`
//! raw messages (the `mail` feature). Below the front door every stage is public for
//! those who need it, as the layers above say. The cargo features `cli`, `plot`, `mail`
//! and `cluster` (all on by default) add the program, charts, mail parsing and training
//! over workers; the library core needs none of them.
#![deny(missing_docs)]

pub mod atomic;
pub mod classifier;
#[cfg(feature = "cluster")]
pub mod distributed;
pub mod error;
pub mod eval;
pub mod experiment;
pub mod features;
pub mod fnv;
mod hint;
pub mod incremental;
pub mod input;
pub mod learn;
pub mod model;
mod raw;
pub mod serve;
#[cfg(feature = "store")]
pub mod store;
pub mod text;
pub mod theory;
pub mod training;
pub mod vocab;

pub use error::{ConfigError, Error, Result};
pub use features::{BinaryMatrix, RealMatrix, RowRef, SparseRows};
pub use input::Document;
pub use learn::{Classifier, Learner, LinearModel};
pub use model::{Decision, Model};
pub use raw::CowVec;
pub use training::TrainConfig;
