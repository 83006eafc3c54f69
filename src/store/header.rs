//! What a filter's store keeps besides its features: everything of the model that is not
//! one value per feature (the analyzer, classes, bias, metadata, the update rule and its
//! counters), in one entry read by every transaction. Its bytes: the magic `RSNBSTOR`,
//! a little-endian `u32` format version, then bincode.

use crate::features::GeometrySpec;
use crate::learn::OnlineState;
use crate::model::Metadata;
use crate::text::Analyzer;
use serde::{Deserialize, Serialize};

/// The first bytes of a store's header entry.
pub(crate) const STORE_MAGIC: &[u8; 8] = b"RSNBSTOR";
/// The store format this build writes: 2 adds the calibration of a batch filter's
/// scores at the end of the header, and a format-1 header is read as one without.
pub(crate) const STORE_VERSION: u32 = 2;
/// The format before the calibration.
const UNCALIBRATED: u32 = 1;
/// The largest header decoded: a header holds no per-feature values, so a larger claim
/// comes from a damaged or foreign store.
const MAX_HEADER_BYTES: usize = 64 << 20;

/// A two-class linear filter without its per-feature values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Header {
    /// How messages become tokens.
    pub analyzer: Analyzer,
    /// How rows are read (the per-feature weights are in the records).
    pub spec: GeometrySpec,
    /// The geometry's weight of a feature no training row had.
    pub unseen: f32,
    /// The two classes; `classes[1]` is the positive one.
    pub classes: Vec<String>,
    /// Whether scores are log-odds (a logistic model).
    pub logistic: bool,
    /// The bias b.
    pub bias: f32,
    /// Training metadata, `learned` and the update count included.
    pub meta: Metadata,
    /// The update rule and its counters (its per-feature sums are in the records).
    pub online: Option<OnlineState>,
    /// How many AdaGrad sums the rule keeps (ids below it have one).
    pub sums: u64,
    /// The score above which a message is `classes[1]`.
    pub threshold: f32,
    /// Documents the document frequencies count.
    pub documents: u64,
    /// Feature ids in use: the next word's id, or 2^B in a hashed space.
    pub features: u64,
    /// The map from a score to P(`classes[1]`) of a batch filter.
    pub calibration: Option<crate::learn::Calibration>,
}

impl Header {
    /// How many ids the store's features may take: its words so far, or 2^B in a hashed
    /// space; a record with a larger id is damage.
    pub(crate) fn ids(&self) -> u64 {
        self.analyzer
            .hashing()
            .map_or(self.features, |b| b.ids() as u64)
    }

    /// The geometry's weight of a feature the store has no entry for: the unseen
    /// feature's idf (or naive-Bayes ratio), or 1 under binary weighting.
    pub(crate) fn absent_weight(&self) -> f32 {
        match self.spec.weighting {
            crate::features::Weighting::Binary => 1.0,
            crate::features::Weighting::Idf | crate::features::Weighting::Nb { .. } => self.unseen,
        }
    }

    /// The header's bytes.
    pub(crate) fn encode(&self) -> crate::Result<Vec<u8>> {
        let body = bincode::serde::encode_to_vec(self, bincode::config::standard())
            .map_err(|e| crate::Error::Data(format!("cannot encode the store's header: {e}")))?;
        Ok([&STORE_MAGIC[..], &STORE_VERSION.to_le_bytes(), &body].concat())
    }

    /// A header from its bytes, or the end of a sentence saying what is wrong with them.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Header, String> {
        let Some(rest) = bytes.strip_prefix(&STORE_MAGIC[..]) else {
            return Err("its header is not a rosenblatt store header".into());
        };
        let Some((version, body)) = rest.split_first_chunk::<4>() else {
            return Err("its header is cut short".into());
        };
        let version = u32::from_le_bytes(*version);
        let upgraded;
        let body = if version == UNCALIBRATED {
            upgraded = [body, &[0u8]].concat(); // the calibration's None
            &upgraded[..]
        } else {
            body
        };
        if version != STORE_VERSION && version != UNCALIBRATED {
            return Err(format!(
                "it is store format {version}; this build reads format {STORE_VERSION} \
                 (convert it to a model file with the build that wrote it)"
            ));
        }
        let config = bincode::config::standard().with_limit::<MAX_HEADER_BYTES>();
        match bincode::serde::decode_from_slice::<Header, _>(body, config) {
            Ok((h, n)) if n == body.len() => Ok(h),
            Ok(_) => Err("its header has bytes after its end".into()),
            Err(e) => Err(format!("its header is damaged ({e})")),
        }
    }
}
