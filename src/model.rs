//! Model files: analyzer + vocabulary + classifier + training metadata.
//!
//! Layout: the 8-byte magic `RSNBLATT`, a little-endian `u32` format version, the payload
//! length (`u64`) and its checksum (`u64`: XXH3-64 from format 10, FNV-1a 64 before), then
//! the bincode (serde) payload. In format 10 the large arrays — weights, feature weights,
//! document frequencies — are each one byte string of little-endian numbers, copied out
//! whole, and the vocabulary is the hash table it is probed in (slots, word arena, word
//! ends), taken as it is: opening a model decodes no number one at a time and hashes no
//! word (`crate::raw`, `vocab::WordTable::from_stored`).
//! A truncated, corrupted, foreign, older or newer file is refused with a message naming
//! it, before any decoding; so is a file whose lengths disagree with its size or with
//! each other (see `read` and `check`): a model file is input like any other. Files are written atomically: a temporary file in the same
//! folder, synced, then renamed over the target.
//!
//! Format history: 1 kept `lowercase` as the whole analyzer and whether the model read
//! mail in its metadata; 2 stores the analyzer itself — its source (text, or mail with
//! its rules) and its steps by name; 3 adds the geometry rows are read in (feature
//! weighting, row normalization and the fitted idf weights); 4 the tuning table; 5 the
//! online update rule and its state; 6 the decision threshold of two-class models; 7 the
//! calibration of two-class scores; 8 whether rows keep term counts; 9 the per-class
//! calibration of one-vs-rest models; 10 the arrays as bytes, the vocabulary as its probe
//! table and the XXH3 checksum (the same model as 9, laid out to open in milliseconds).
//! Format-9 files are still read, as the same model; format-8 files as format 9 without a
//! per-class calibration; format-7 files also with binary rows, format-6 files also
//! without a calibration, and format-5 files also with the threshold 0 they decided at.

use crate::features::SparseRows;
use crate::features::{Geometry, TermCounts};
use crate::learn::{Calibration, ClassCalibration, TrainReport};
pub use crate::learn::{ClassDecision, Predictor};
use crate::text::Analyzer;
use crate::theory::Theory;
use crate::vocab::Vocabulary;
use crate::{Error, Result, RowRef};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;
use sum::Summing;

/// The first bytes of every model file.
pub const MAGIC: &[u8; 8] = b"RSNBLATT";
/// The format version this build reads and writes; files with any other version are
/// refused (an older one with a sentence that says to train the model again).
pub const FORMAT_VERSION: u32 = 11;
const HEADER: usize = 8 + 4 + 8 + 8;

mod check;
mod classify;
mod explain;
mod ranked;
mod read;
mod sum;
mod words;

pub use classify::Decision;
#[cfg(feature = "mail")]
pub(crate) use classify::{document_of, refuse_empty_message};
pub use explain::{Contribution, Explanation};
#[cfg(feature = "store")]
pub(crate) use explain::{hashed_name, hashed_names};
pub use ranked::{RankedClass, Ranking};
pub(crate) use read::MAX_MODEL_BYTES;
pub use sum::checksum;
pub use words::ClassWords;

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

/// The parts of a [`Model`], as [`Model::new`] takes them and [`Model::into_parts`] gives
/// them back: what training assembles.
#[derive(Debug, Clone, Serialize)]
pub struct ModelParts {
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
    /// Two-class models whose scores are not probabilities: the map from a score to
    /// P(`classes[1]`), fitted on out-of-fold scores of the training documents (Platt
    /// scaling), so that a batch filter can decide at P(spam) > 0.9. `None` for other
    /// models and for classes too small to fold.
    pub calibration: Option<Calibration>,
    /// What a document's row keeps of each word: binary, or its sublinear count, as the
    /// model was trained (always binary for models of feature vectors).
    pub term_counts: TermCounts,
    /// One-vs-rest models of three classes or more whose scores are not probabilities:
    /// one sigmoid per class fitted on out-of-fold scores (`train --calibrate`), so that
    /// they give P(class | document). `None` for other models.
    pub class_calibration: Option<ClassCalibration>,
}

/// A trained classifier with everything `classify` needs: tokenize as training did, map
/// words, read rows in the fitted geometry, score. Built by [`Model::fit`] or
/// [`Model::new`] (whose parts are checked against each other as a loaded file's are),
/// read by its accessors.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Model {
    /// How documents were read and tokenized: `classify`, `eval` and `learn` read their
    /// inputs as its source says (mail or text) and run its steps.
    pub(crate) analyzer: Analyzer,
    /// The frozen vocabulary.
    pub(crate) vocab: Vocabulary,
    /// Whether inputs are text (through `analyzer` and `vocab`) or feature vectors.
    pub(crate) features: FeatureSpace,
    /// How rows are read: feature weights and row scaling fitted in training, applied to
    /// every row the model scores or learns.
    pub(crate) geometry: Geometry,
    /// Class names; for binary models `classes[1]` is the positive class.
    pub(crate) classes: Vec<String>,
    /// The classifier.
    pub(crate) predictor: Predictor,
    /// Training metadata.
    pub(crate) meta: Metadata,
    /// How a two-class linear filter learns one message at a time (`learn`, the TREC
    /// online protocol) and the state that rule carries; `None` for models that do not
    /// learn so.
    pub(crate) online: Option<crate::learn::OnlineState>,
    /// Two-class models: the score above which a document is `classes[1]`. 0 for models
    /// trained in batch; a logistic spam filter starts at ln 9 (spam when P(spam) > 0.9),
    /// because a lost wanted message costs its reader more than a spam let through.
    /// Always 0 for models of more classes.
    pub(crate) threshold: f32,
    /// Two-class models whose scores are not probabilities: the map from a score to
    /// P(`classes[1]`), fitted on out-of-fold scores (see [`ModelParts::calibration`]).
    pub(crate) calibration: Option<Calibration>,
    /// What a document's row keeps of each word (see [`ModelParts::term_counts`]).
    pub(crate) term_counts: TermCounts,
    /// A one-vs-rest model's sigmoid per class (see [`ModelParts::class_calibration`]).
    pub(crate) class_calibration: Option<ClassCalibration>,
    /// The predictor's class-blocked weights, made at the first batch scored (models of
    /// three classes or more); not saved. Only a two-class model's predictor changes in
    /// place (`incremental`), and it has none.
    #[serde(skip)]
    block: std::sync::OnceLock<Option<crate::learn::compose::blocked::ClassBlock>>,
}

impl Model {
    /// A model from its parts, checked against each other exactly as a loaded file's are
    /// (weights against the vocabulary, classes against the predictor, the threshold, the
    /// learner's state): the one way a model is built.
    pub fn new(parts: ModelParts) -> Result<Model> {
        let ModelParts {
            analyzer,
            vocab,
            features,
            geometry,
            classes,
            predictor,
            meta,
            online,
            threshold,
            calibration,
            term_counts,
            class_calibration,
        } = parts;
        let model = Model {
            analyzer,
            vocab,
            features,
            geometry,
            classes,
            predictor,
            meta,
            online,
            threshold,
            calibration,
            term_counts,
            class_calibration,
            block: std::sync::OnceLock::new(),
        };
        model
            .check()
            .map_err(|what| Error::Data(format!("the model's parts disagree: {what}")))?;
        Ok(model)
    }

    /// The parts, to change and build again with [`Model::new`].
    pub fn into_parts(self) -> ModelParts {
        ModelParts {
            analyzer: self.analyzer,
            vocab: self.vocab,
            features: self.features,
            geometry: self.geometry,
            classes: self.classes,
            predictor: self.predictor,
            meta: self.meta,
            online: self.online,
            threshold: self.threshold,
            calibration: self.calibration,
            term_counts: self.term_counts,
            class_calibration: self.class_calibration,
        }
    }

    /// How documents are read and tokenized.
    pub fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// The frozen vocabulary (empty for hashed and feature-vector models).
    pub fn vocab(&self) -> &Vocabulary {
        &self.vocab
    }

    /// Whether inputs are text or feature vectors.
    pub fn features(&self) -> FeatureSpace {
        self.features
    }

    /// How rows are read: the fitted feature weights and row scaling.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The class names; for two classes `classes()[1]` is the positive one.
    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    /// What a document's row keeps of each word: binary, or its sublinear count.
    pub fn term_counts(&self) -> TermCounts {
        self.term_counts
    }

    /// How rows are read, in words: the geometry's name (`idf+l2`), after `sublinear tf, `
    /// where rows keep term counts; what `inspect` and `train` print.
    pub fn geometry_name(&self) -> String {
        match self.term_counts {
            TermCounts::Binary => self.geometry.spec.name(),
            TermCounts::Sublinear => format!("sublinear tf, {}", self.geometry.spec.name()),
        }
    }

    /// The classifier.
    pub fn predictor(&self) -> &Predictor {
        &self.predictor
    }

    /// What the model was trained on and how.
    pub fn meta(&self) -> &Metadata {
        &self.meta
    }

    /// How a two-class filter learns one message at a time, and its state.
    pub fn online(&self) -> &Option<crate::learn::OnlineState> {
        &self.online
    }

    /// The score above which a two-class model says `classes()[1]`.
    pub fn threshold(&self) -> f32 {
        self.threshold
    }

    /// The Platt calibration of a two-class model's scores, where it has one.
    pub fn calibration(&self) -> Option<&Calibration> {
        self.calibration.as_ref()
    }

    /// The per-class calibration of a one-vs-rest model's scores, where it has one.
    pub fn class_calibration(&self) -> Option<&ClassCalibration> {
        self.class_calibration.as_ref()
    }

    /// P(`classes()[1]`) for a two-class model's score: its calibration's, or a logistic
    /// model's own; `None` for models of more classes and scores that are no probability.
    pub fn probability(&self, score: f32) -> Option<f32> {
        let Predictor::Binary(m) = &self.predictor else {
            return None;
        };
        let logistic = matches!(m, crate::learn::AnyModel::Logistic(_));
        crate::learn::probability(self.calibration.as_ref(), logistic, score)
    }
}

impl Model {
    /// The decision for one row read in the model's geometry: the predictor's, with a
    /// two-class model's score compared to its threshold.
    pub(crate) fn decide(&self, row: RowRef<'_>) -> ClassDecision {
        self.decide_with(row, self.block())
    }

    /// [`Model::decide`] through `block` where there is one, class by class otherwise.
    fn decide_with(
        &self,
        row: RowRef<'_>,
        block: Option<&crate::learn::compose::blocked::ClassBlock>,
    ) -> ClassDecision {
        match block {
            Some(b) => self.predictor.decide_blocked(row, Some(b)),
            None => decide_at(&self.predictor, self.threshold, row),
        }
    }

    /// The predictor's class-blocked weights, where it has them (see
    /// [`Predictor::class_block`]): every class of a row scored in one pass.
    pub(crate) fn block(&self) -> Option<&crate::learn::compose::blocked::ClassBlock> {
        self.block
            .get_or_init(|| self.predictor.class_block())
            .as_ref()
    }

    /// The class block for scoring `rows` rows: the one built already, or one built now
    /// when there are at least [`Model::BLOCK_ROWS`] of them. Building it writes every
    /// weight of the model once (a sixth of opening the 90-class Reuters model and
    /// classifying one document); a few rows are scored class by class, with the same
    /// results.
    pub(crate) fn block_for(
        &self,
        rows: usize,
    ) -> Option<&crate::learn::compose::blocked::ClassBlock> {
        match self.block.get() {
            Some(built) => built.as_ref(),
            None if rows >= Model::BLOCK_ROWS => self.block(),
            None => None,
        }
    }

    /// The fewest rows worth building the class block for.
    const BLOCK_ROWS: usize = 64;

    /// The decision for every stored row (read in the model's geometry), computed in
    /// parallel, in row order.
    pub fn decide_rows<X: SparseRows>(&self, x: &X) -> Vec<ClassDecision> {
        self.decide_read(&self.geometry.apply(x))
    }

    /// The decision for every row already read in the model's geometry (training rows,
    /// which were read once to fit), computed in parallel, in row order.
    pub(crate) fn decide_read<X: SparseRows>(&self, x: &X) -> Vec<ClassDecision> {
        let block = self.block_for(x.n_rows());
        (0..x.n_rows())
            .into_par_iter()
            .map(|i| self.decide_with(x.row(i), block))
            .collect()
    }

    /// Encodes the model with its header.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        encode(self)
    }

    /// Writes the model atomically (a temporary file beside it, synced, then renamed, so
    /// readers see the old file or the new one, never a partial write). The payload is
    /// encoded straight into the file, counted and checksummed on its way, and the header
    /// filled in after it: a model of a gigabyte is never held a second time as bytes.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let mut f = crate::atomic::AtomicFile::create(path)?;
        write_file(self, &mut f, |e| Error::io(path, e))?;
        f.commit()
    }
}

/// The decision of `predictor` for one row read in its geometry, a two-class model's at
/// `threshold`: what a model of these parts decides (training counts its accuracy by it
/// before the model is assembled).
pub(crate) fn decide_at(predictor: &Predictor, threshold: f32, row: RowRef<'_>) -> ClassDecision {
    let d = predictor.decide(row);
    match predictor {
        Predictor::Binary(_) => ClassDecision {
            class: usize::from(d.score > threshold),
            score: d.score,
        },
        _ => d,
    }
}

/// A model file of `payload` (a model, or parts laid out as one) in memory.
fn encode<T: Serialize>(payload: &T) -> Result<Vec<u8>> {
    let mut out = std::io::Cursor::new(Vec::new());
    write_file(payload, &mut out, |e| {
        Error::Data(format!("cannot encode the model: {e}"))
    })?;
    Ok(out.into_inner())
}

/// Writes a model file of `payload` to `out`: the header left blank, the bincode payload
/// encoded straight after it (counted and checksummed on its way, never held whole), then
/// the header filled in. `io` words an I/O error (naming the file written).
fn write_file<T: Serialize, W: Write + std::io::Seek>(
    payload: &T,
    out: &mut W,
    io: impl Fn(std::io::Error) -> Error,
) -> Result<()> {
    out.write_all(&[0; HEADER]).map_err(&io)?;
    let mut sums = Summing::new(&mut *out, FORMAT_VERSION);
    // Each array after the padding that puts it at a multiple of 64 bytes into the file
    // (`crate::raw`), so that a reader maps it in place.
    let _raw = crate::raw::RawArrays::on(crate::raw::Layout::Aligned);
    let mut tracked = crate::raw::Tracked::new(&mut sums, HEADER as u64);
    bincode::serde::encode_into_std_write(payload, &mut tracked, bincode::config::standard())
        .map_err(|e| match e {
            bincode::error::EncodeError::Io { inner, .. } => io(inner),
            other => Error::Data(format!("cannot encode the model: {other}")),
        })?;
    let head = header(sums.len, sums.sum.finish());
    out.seek(std::io::SeekFrom::Start(0))
        .and_then(|_| out.write_all(&head))
        .map_err(io)
}

/// The header before a payload of `len` bytes and checksum `sum`: magic, format version,
/// length, checksum.
fn header(len: u64, sum: u64) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[12..20].copy_from_slice(&len.to_le_bytes());
    h[20..].copy_from_slice(&sum.to_le_bytes());
    h
}

impl ModelParts {
    /// The parts written as a model file without checking them against each other: what
    /// a damaged or foreign writer could produce, for testing that loading refuses it.
    pub fn to_bytes_unchecked(&self) -> Result<Vec<u8>> {
        encode(self)
    }
}
