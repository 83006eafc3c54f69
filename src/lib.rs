//! rosenblatt: sparse binary bag-of-words text classification.
//!
//! The pipeline runs one way, each stage knowing only the one before it:
//!
//! 1. [`input`] reads documents (folders, JSONL, TSV, …) into [`input::Document`]s;
//! 2. [`text`] splits their text into lowercased words (UAX #29), and n-grams of them;
//! 3. [`vocab`] maps words to dense `u32` ids, with document frequencies and pruning (or,
//!    under a hashing analyzer, to their hashed ids, with no words kept);
//! 4. [`features`] turns each document into a sorted, unique row of a binary CSR matrix;
//! 5. [`learn`] fits linear classifiers on those rows — it never sees a string;
//! 6. [`eval`] scores rows in parallel and measures: metrics, ROC, the spam figures.
//!
//! A [`model::SavedModel`] bundles the analyzer configuration, the vocabulary and the
//! classifier, so that classification tokenizes exactly as training did. Above the
//! stages, [`experiment`] measures a learner on rows it was not fitted on (seeded
//! holdout, k-fold cross-validation over views of one matrix), and [`pipeline`] chains
//! everything for documents (training, evaluation, the TREC online run).
//!
//! Train on labelled documents, save, load and classify new ones:
//!
//! ```
//! use rosenblatt::input::Document;
//! use rosenblatt::learn::{AnyLearner, Check};
//! use rosenblatt::model::SavedModel;
//! use rosenblatt::pipeline;
//! use rosenblatt::training::TrainConfig;
//!
//! let docs = [
//!     ("spam", "cheap meds buy now"), ("ham", "lunch at noon tomorrow"),
//!     ("spam", "buy cheap watches now"), ("ham", "the meeting moved to noon"),
//! ];
//! let docs: Vec<Document> = docs
//!     .iter()
//!     .enumerate()
//!     .map(|(i, (label, text))| Document::new(i.to_string(), *text, Some(*label)))
//!     .collect();
//! let cfg = TrainConfig {
//!     analyzer: Default::default(),          // UAX #29 words, lowercased
//!     vocab: Default::default(),             // every word seen once or more
//!     learner: AnyLearner::from_name("averaged-perceptron").unwrap().check()?,
//!     positive: None,                        // "spam" when present
//!     options: String::new(),
//!     geometry: Default::default(),
//!     workers: None,                         // one learner, all rows
//! };
//! let trained = pipeline::train(&docs, &cfg, vec![])?;
//!
//! let dir = std::env::temp_dir().join(format!("rosenblatt-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("spam.model");
//! trained.model.save(&path)?;
//! let model = SavedModel::load(&path)?;
//!
//! let new = [Document::new("a", "buy cheap now", None), Document::new("b", "noon lunch", None)];
//! let x = pipeline::vectorize_for(&model, &new).matrix; // tokenized as in training
//! let labels: Vec<&str> = pipeline::decide(&model, &x)
//!     .iter()
//!     .map(|d| model.classes[d.class].as_str())
//!     .collect();
//! assert_eq!(labels, ["spam", "ham"]);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), rosenblatt::Error>(())
//! ```
#![warn(missing_docs)]

pub mod atomic;
#[cfg(feature = "cluster")]
pub mod distributed;
pub mod error;
pub mod eval;
pub mod experiment;
pub mod features;
mod fnv;
pub mod incremental;
pub mod input;
pub mod learn;
pub mod model;
pub mod pipeline;
pub mod text;
pub mod theory;
pub mod training;
pub mod vocab;

pub use error::{ConfigError, Error, Result};
pub use features::{BinaryMatrix, RealMatrix, RowRef, SparseRows};
pub use learn::{Classifier, Learner, LinearModel};
