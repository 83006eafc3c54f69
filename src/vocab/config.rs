//! The pruning rules a vocabulary of words is built under (document-frequency floor and
//! ceiling, the most features kept), checked before any counting.

use crate::error::{ConfigError, Param, at_least_one};
use serde::{Deserialize, Serialize};

/// Pruning rules applied when a vocabulary of words is built from counts (a hashed
/// vocabulary keeps every id: these do not apply to it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VocabConfig {
    /// Keep words seen in at least this many documents (default 1).
    pub min_df: u32,
    /// Keep at most this many words, the most frequent first (`None`: all).
    pub max_features: Option<usize>,
    /// From this many documents on, a word must be in at least two of them (`min_df` is
    /// raised to 2): in a large corpus a word of one document is mostly a name, a number
    /// or a typo that no other document shares, while in a small one it may be all the
    /// evidence there is. `None`: `min_df` alone. Default: `Self::SINGLETONS_FROM`.
    pub singletons_from: Option<u64>,
}

impl Default for VocabConfig {
    fn default() -> Self {
        VocabConfig {
            min_df: 1,
            max_features: None,
            singletons_from: Some(Self::SINGLETONS_FROM),
        }
    }
}

impl VocabConfig {
    /// The corpus size from which words of one document are dropped by default: 1,000
    /// documents. Chosen on validation parts of Reuters-21578's training documents and
    /// on seeded splits of SpamAssassin and the SMS collection (docs/ACCURACY.md).
    pub(crate) const SINGLETONS_FROM: u64 = 1000;

    /// The corpus size from which words of one document are dropped on text of two
    /// classes (`rosenblatt train` sets it there): 20,000 documents. On every corpus of two
    /// classes measured (opinion corpora of 2,000 to 10,662 documents, the SMS collection),
    /// a word of one training document helped or was level on cross-validation folds whose
    /// vocabulary was the training part's: MPQA's three-word phrases gained a point. Above
    /// 20,000 no such corpus was measured, and the words of one document grow the
    /// vocabulary with the corpus (docs/ACCURACY.md).
    pub const TWO_CLASS_SINGLETONS_FROM: u64 = 20_000;

    /// Every word kept: no floor, no cap, whatever the corpus's size.
    pub fn every_word() -> Self {
        VocabConfig {
            min_df: 1,
            max_features: None,
            singletons_from: None,
        }
    }

    /// `min_df` as a floor given: kept whatever the corpus's size (no
    /// [`Self::singletons_from`]).
    pub fn with_min_df(self, min_df: u32) -> Self {
        VocabConfig {
            min_df,
            singletons_from: None,
            ..self
        }
    }

    /// The document frequency a word needs among `documents` documents.
    pub(crate) fn min_df_for(&self, documents: u64) -> u32 {
        match self.singletons_from {
            Some(n) if documents >= n => self.min_df.max(2),
            _ => self.min_df,
        }
    }

    /// Checks the settings before any work starts.
    pub fn validate(&self) -> Result<(), ConfigError> {
        at_least_one(Param::MinDf, self.min_df)?;
        self.max_features
            .map_or(Ok(()), |m| at_least_one(Param::MaxFeatures, m))
    }
}
