//! Model files: analyzer + vocabulary + classifier + training metadata.
//!
//! Layout: the 8-byte magic `RSNBLATT`, a little-endian `u32` format version, the payload
//! length (`u64`) and its FNV-1a 64 checksum (`u64`), then the bincode (serde) payload.
//! A truncated, corrupted, foreign, older or newer file is refused with a message naming
//! it, before any decoding; so is a file whose lengths disagree with its size or with
//! each other (see `read` and `check`): a model file is input like any other. Files are written atomically: a temporary file in the same
//! folder, synced, then renamed over the target.
//!
//! Format history: 1 kept `lowercase` as the whole analyzer and whether the model read
//! mail in its metadata; 2 stores the analyzer itself — its source (text, or mail with
//! its rules) and its steps by name; 3 adds the geometry rows are read in (feature
//! weighting, row normalization and the fitted idf weights); 4 the tuning table; 5 the
//! online update rule and its state; 6 the decision threshold of two-class models. A
//! format-5 file is still read, as format 6 with the threshold 0 it decided at.

use crate::features::Geometry;
use crate::fnv::fnv1a;
use crate::learn::TrainReport;
pub use crate::learn::{Decision, Predictor};
use crate::text::Analyzer;
use crate::theory::Theory;
use crate::vocab::Vocabulary;
use crate::{Error, Result, RowRef};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

/// The first bytes of every model file.
pub const MAGIC: &[u8; 8] = b"RSNBLATT";
/// The format version this build reads and writes; files with any other version are
/// refused (an older one with a sentence that says to train the model again).
pub const FORMAT_VERSION: u32 = 6;
const HEADER: usize = 8 + 4 + 8 + 8;

mod check;
mod read;

pub use read::MAX_MODEL_BYTES;

/// What the model was trained on and how; shown by `inspect`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    /// The rosenblatt version that trained it.
    pub version: String,
    /// The learner's name.
    pub learner: String,
    /// The learner's options, as given.
    pub options: String,
    /// The training inputs.
    pub inputs: Vec<String>,
    /// Training documents.
    pub documents: u64,
    /// Nonzeros in the training matrix.
    pub nnz: u64,
    /// Epochs, updates, convergence.
    pub report: TrainReport,
    /// Accuracy on the training set.
    pub training_accuracy: f64,
    /// Wall-clock training time in seconds (vectorizing included).
    pub seconds: f64,
    /// Messages learned one at a time after training (by the model's update rule).
    pub learned: u64,
    /// Radius, margins, Novikoff bound (linear binary models).
    pub theory: Option<Theory>,
    /// Seconds spent fitting the classifier alone (no reading or vectorizing; for
    /// multi-label models the final fit, without threshold tuning).
    pub fit_seconds: f64,
    /// How `train --tune` chose the learner and the geometry: the cross-validation
    /// table of its grid (`None` for models trained as configured).
    pub tuning: Option<crate::experiment::TuneTable>,
}

/// What the model's feature ids mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FeatureSpace {
    /// Words of the model's vocabulary, produced by its analyzer from text.
    Text,
    /// Pre-computed feature ids (SVMlight input); the vocabulary is empty.
    Indexed {
        /// Number of features seen in training.
        n_features: usize,
    },
}

/// Everything `classify` needs: tokenize as training did, map words, score.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedModel {
    /// How documents were read and tokenized: `classify`, `eval` and `learn` read their
    /// inputs as its source says (mail or text) and run its steps.
    pub analyzer: Analyzer,
    /// The frozen vocabulary.
    pub vocab: Vocabulary,
    /// Whether inputs are text (through `analyzer` and `vocab`) or feature vectors.
    pub features: FeatureSpace,
    /// How rows are read: feature weights and row scaling fitted in training, applied to
    /// every row the model scores or learns.
    pub geometry: Geometry,
    /// Class names; for binary models `classes[1]` is the positive class.
    pub classes: Vec<String>,
    /// The classifier.
    pub predictor: Predictor,
    /// Training metadata.
    pub meta: Metadata,
    /// How a two-class linear filter learns one message at a time (`learn`, the TREC
    /// online protocol) and the state that rule carries; `None` for models that do not
    /// learn so.
    pub online: Option<crate::learn::OnlineState>,
    /// Two-class models: the score above which a document is `classes[1]`. 0 for models
    /// trained in batch; a logistic spam filter starts at ln 9 (spam when P(spam) > 0.9),
    /// because a lost wanted message costs its reader more than a spam let through.
    /// Always 0 for models of more classes.
    pub threshold: f32,
}

impl SavedModel {
    /// The decision for one row read in the model's geometry: the predictor's, with a
    /// two-class model's score compared to its threshold.
    pub fn decide(&self, row: RowRef<'_>) -> Decision {
        let d = self.predictor.decide(row);
        match self.predictor {
            Predictor::Binary(_) => Decision {
                class: usize::from(d.score > self.threshold),
                score: d.score,
            },
            _ => d,
        }
    }

    /// Encodes the model with its header.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let payload = bincode::serde::encode_to_vec(self, bincode::config::standard())
            .map_err(|e| Error::Data(format!("cannot encode the model: {e}")))?;
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        Ok(out)
    }

    /// Writes the model atomically (temporary file + rename).
    pub fn save(&self, path: &Path) -> Result<()> {
        write_atomic(path, &self.to_bytes()?)
    }
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, synced, then renamed,
/// so readers see the old file or the new one, never a partial write.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = crate::atomic::AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    f.commit()
}
