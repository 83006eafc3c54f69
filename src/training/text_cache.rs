//! What a training row cache (`train --cache FILE`) keeps beside its rows, so that a rerun
//! trains from the file without reading or tokenizing the text again: the vocabulary,
//! every document's labels, and the stamp of what made it — the inputs (name, size,
//! modification time), the analyzer, the pruning rules and how the inputs were read. A
//! cache whose stamp differs from the run's is stale and refused, never silently used.

use super::label_column::LabelColumn;
use crate::text::Analyzer;
use crate::vocab::{VocabConfig, Vocabulary};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// What made a row cache: checked against a later run before its rows are used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CacheStamp {
    /// Each input: its name, and its size and modification time (nanoseconds since
    /// 1970) where it is a file that can be checked again (`None` for standard input or
    /// a pipe).
    inputs: Vec<(String, Option<(u64, u128)>)>,
    /// How the inputs were read (format, splitting), in the caller's words.
    reading: String,
}

impl CacheStamp {
    /// The stamp of reading `inputs` as `reading` says (a folder counts as its name, size
    /// and time: a file added to a class folder changes the folder's time).
    pub(crate) fn of_inputs(inputs: &[PathBuf], reading: &str) -> CacheStamp {
        let inputs = inputs
            .iter()
            .map(|p| {
                let meta = std::fs::metadata(p)
                    .ok()
                    .filter(|m| m.is_file() || m.is_dir());
                let stamp = meta.and_then(|m| {
                    let t = m.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
                    Some((m.len(), t.as_nanos()))
                });
                (p.display().to_string(), stamp)
            })
            .collect();
        CacheStamp {
            inputs,
            reading: reading.to_string(),
        }
    }
}

/// The head of a [`CachePayload`]: what a cache is checked against, before its rows are
/// (a nested struct is encoded as its fields in line, so the head decodes alone from the
/// payload's first bytes).
#[derive(Serialize, Deserialize)]
pub(crate) struct CacheHead {
    pub stamp: CacheStamp,
    pub analyzer: Analyzer,
    pub vocab_config: VocabConfig,
}

/// The most bytes the head of a payload not yet checked may claim when decoded: a stamp
/// names a few inputs, an analyzer a few steps.
const HEAD_LIMIT: usize = 16 << 20;

/// The payload stored after the rows.
#[derive(Serialize, Deserialize)]
pub(crate) struct CachePayload {
    pub head: CacheHead,
    pub vocab: Vocabulary,
    pub labels: LabelColumn,
}

impl CachePayload {
    pub(crate) fn encode(&self) -> Result<Vec<u8>> {
        bincode::serde::encode_to_vec(self, bincode::config::standard())
            .map_err(|e| Error::Data(format!("the row cache's vocabulary: {e}")))
    }

    /// Decodes the payload of the cache at `path` and refuses it unless it was made by
    /// the same inputs, analyzer, pruning rules and reading as this run.
    pub(crate) fn check(
        path: &Path,
        bytes: &[u8],
        stamp: &CacheStamp,
        analyzer: &Analyzer,
        vocab_config: &VocabConfig,
    ) -> Result<CachePayload> {
        let (p, _): (CachePayload, _) =
            bincode::serde::decode_from_slice(bytes, bincode::config::standard()).map_err(|e| {
                Error::Parse {
                    path: path.to_path_buf(),
                    line: None,
                    message: format!("its vocabulary and labels cannot be read: {e}"),
                }
            })?;
        match staleness(&p.head, stamp, analyzer, vocab_config) {
            Some(why) => Err(stale(path, why)),
            None => Ok(p),
        }
    }

    /// Refuses a cache whose payload (its bytes not yet checked) says it is stale: run
    /// before the rows are checked, so that a stale cache of billions of nonzeros is
    /// refused at once. A head that cannot be decoded (within a bound, whatever its
    /// lengths claim) is left to the full check, which names the corruption.
    pub(crate) fn refuse_stale(
        path: &Path,
        bytes: &[u8],
        stamp: &CacheStamp,
        analyzer: &Analyzer,
        vocab_config: &VocabConfig,
    ) -> Result<()> {
        let config = bincode::config::standard().with_limit::<HEAD_LIMIT>();
        let Ok((h, _)) = bincode::serde::decode_from_slice::<CacheHead, _>(bytes, config) else {
            return Ok(());
        };
        match staleness(&h, stamp, analyzer, vocab_config) {
            Some(why) => Err(stale(path, why)),
            None => Ok(()),
        }
    }
}

/// The refusal of the stale cache at `path`, saying `why`.
fn stale(path: &Path, why: String) -> Error {
    Error::Data(format!(
        "{}: this row cache is stale ({why}); remove it to rebuild it from the inputs",
        path.display()
    ))
}

/// Why a cache made under `was` cannot serve a run of stamp `now`, `analyzer` and pruning
/// rules `config`; `None` when it can.
fn staleness(
    was: &CacheHead,
    now: &CacheStamp,
    analyzer: &Analyzer,
    config: &VocabConfig,
) -> Option<String> {
    if let Some((name, _)) = now.inputs.iter().find(|(_, s)| s.is_none()) {
        return Some(format!(
            "{name} is not a file whose size and time can be checked"
        ));
    }
    if was.stamp.inputs != now.inputs {
        let names: Vec<&str> = was.stamp.inputs.iter().map(|(n, _)| n.as_str()).collect();
        return Some(format!(
            "it was made from {}, as they were then",
            names.join(" ")
        ));
    }
    if was.stamp.reading != now.reading {
        return Some(format!("it was read as {}", was.stamp.reading));
    }
    if &was.analyzer != analyzer {
        return Some("it was tokenized with other text options".into());
    }
    if &was.vocab_config != config {
        return Some("its vocabulary was pruned under other rules".into());
    }
    None
}
