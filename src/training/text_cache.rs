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

/// The payload stored after the rows.
#[derive(Serialize, Deserialize)]
pub(crate) struct CachePayload {
    pub stamp: CacheStamp,
    pub analyzer: Analyzer,
    pub vocab_config: VocabConfig,
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
        let stale = |why: String| {
            Error::Data(format!(
                "{}: this row cache is stale ({why}); remove it to rebuild it from the inputs",
                path.display()
            ))
        };
        let (p, _): (CachePayload, _) =
            bincode::serde::decode_from_slice(bytes, bincode::config::standard()).map_err(|e| {
                Error::Parse {
                    path: path.to_path_buf(),
                    line: None,
                    message: format!("its vocabulary and labels cannot be read: {e}"),
                }
            })?;
        if let Some((name, _)) = stamp.inputs.iter().find(|(_, s)| s.is_none()) {
            return Err(stale(format!(
                "{name} is not a file whose size and time can be checked"
            )));
        }
        if p.stamp.inputs != stamp.inputs {
            let was: Vec<&str> = p.stamp.inputs.iter().map(|(n, _)| n.as_str()).collect();
            return Err(stale(format!(
                "it was made from {}, as they were then",
                was.join(" ")
            )));
        }
        if p.stamp.reading != stamp.reading {
            return Err(stale(format!("it was read as {}", p.stamp.reading)));
        }
        if &p.analyzer != analyzer {
            return Err(stale("it was tokenized with other text options".into()));
        }
        if &p.vocab_config != vocab_config {
            return Err(stale("its vocabulary was pruned under other rules".into()));
        }
        Ok(p)
    }
}
