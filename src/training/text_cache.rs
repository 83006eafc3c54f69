//! What a training row cache (`train --cache FILE`) keeps beside its rows, so that a rerun
//! trains from the file without reading or tokenizing the text again: the vocabulary,
//! every document's labels, and the stamp of what made it — each input file's name, size
//! and modification time, and for a folder every regular file under it (its path below
//! the folder, which carries a class folder's class, its size and time: a count and a
//! digest), the document bound (`--max-document-bytes`), the analyzer, the pruning rules
//! and how the inputs were read. A cache whose stamp differs from the run's is stale and
//! refused with a sentence saying what changed, never silently used.

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
    /// Each input by name, as it was when the cache was made.
    inputs: Vec<(String, InputStamp)>,
    /// How the inputs were read (format, splitting), in the caller's words.
    reading: String,
    /// The most read as one document (`--max-document-bytes`): a file over it is skipped,
    /// so it decides which documents the rows hold.
    max_document_bytes: u64,
}

/// One input as a cache saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum InputStamp {
    /// A file: its size and modification time (nanoseconds since 1970).
    File { size: u64, modified: u128 },
    /// A folder: how many regular files its walk finds, and a digest of each one's path
    /// below the folder (which, for class folders, carries its class), size and time.
    Folder { files: u64, digest: u64 },
    /// Standard input, a pipe, or what cannot be examined: never reused.
    Unchecked,
}

impl CacheStamp {
    /// The stamp of reading `inputs` as `reading` says, under the document bound in force.
    pub(crate) fn of_inputs(inputs: &[PathBuf], reading: &str) -> CacheStamp {
        CacheStamp {
            inputs: inputs
                .iter()
                .map(|p| (p.display().to_string(), InputStamp::of(p)))
                .collect(),
            reading: reading.to_string(),
            max_document_bytes: crate::input::limit::max_document_bytes(),
        }
    }
}

impl InputStamp {
    /// `path` as it is now.
    fn of(path: &Path) -> InputStamp {
        if crate::input::stdin::is_stdin(path) {
            // `-` is standard input, whatever a file named `-` holds.
            return InputStamp::Unchecked;
        }
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => InputStamp::folder(path),
            Ok(m) if m.is_file() => match size_and_time(&m) {
                Some((size, modified)) => InputStamp::File { size, modified },
                None => InputStamp::Unchecked,
            },
            _ => InputStamp::Unchecked,
        }
    }

    /// Every regular file under `dir` as the readers' walk finds it (hidden entries left
    /// out, links followed once), in a fixed-size stamp however many files there are.
    fn folder(dir: &Path) -> InputStamp {
        let Ok(walk) = crate::input::walk_files(dir) else {
            return InputStamp::Unchecked;
        };
        let mut digest = crate::fnv::Fnv1a::new();
        for f in &walk.files {
            let below = f.strip_prefix(dir).unwrap_or(f);
            digest.update(below.as_os_str().as_encoded_bytes());
            let (size, modified) = std::fs::metadata(f)
                .ok()
                .and_then(|m| size_and_time(&m))
                .unwrap_or((u64::MAX, u128::MAX));
            digest.update(&[0xff]);
            digest.update(&size.to_le_bytes());
            digest.update(&modified.to_le_bytes());
        }
        InputStamp::Folder {
            files: walk.files.len() as u64,
            digest: digest.finish(),
        }
    }
}

/// A file's size and modification time (nanoseconds since 1970).
fn size_and_time(m: &std::fs::Metadata) -> Option<(u64, u128)> {
    let t = m.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some((m.len(), t.as_nanos()))
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
    if let Some((name, _)) = now.inputs.iter().find(|(_, s)| *s == InputStamp::Unchecked) {
        return Some(format!(
            "{name} is not a file or folder whose files can be checked again"
        ));
    }
    let names =
        |s: &CacheStamp| -> Vec<String> { s.inputs.iter().map(|(n, _)| n.clone()).collect() };
    if names(&was.stamp) != names(now) {
        return Some(format!(
            "it was made from {}, not {}",
            names(&was.stamp).join(" "),
            names(now).join(" ")
        ));
    }
    for ((name, then), (_, it)) in was.stamp.inputs.iter().zip(&now.inputs) {
        if let Some(why) = changed(name, then, it) {
            return Some(why);
        }
    }
    if was.stamp.max_document_bytes != now.max_document_bytes {
        return Some(format!(
            "it was made with --max-document-bytes {}, this run reads up to {} bytes a document",
            was.stamp.max_document_bytes, now.max_document_bytes
        ));
    }
    if was.stamp.reading != now.reading {
        return Some(format!(
            "it was read as {}, this run reads {}",
            was.stamp.reading, now.reading
        ));
    }
    if &was.analyzer != analyzer {
        return Some("it was tokenized with other text options".into());
    }
    if &was.vocab_config != config {
        return Some("its vocabulary was pruned under other rules".into());
    }
    None
}

/// How the input `name` changed from `then` (when the cache was made) to `now`, if it did.
fn changed(name: &str, then: &InputStamp, now: &InputStamp) -> Option<String> {
    if then == now {
        return None;
    }
    Some(match (then, now) {
        (InputStamp::File { size: a, .. }, InputStamp::File { size: b, .. }) if a != b => {
            format!("{name} changed: {a} bytes when the cache was made, {b} now")
        }
        (InputStamp::File { .. }, InputStamp::File { .. }) => {
            format!("{name} was modified after the cache was made")
        }
        (InputStamp::Folder { files: a, .. }, InputStamp::Folder { files: b, .. }) if a != b => {
            format!("the files under {name} changed: {a} when the cache was made, {b} now")
        }
        (InputStamp::Folder { .. }, InputStamp::Folder { .. }) => format!(
            "the files under {name} changed after the cache was made: a file moved, \
             renamed, rewritten or touched"
        ),
        (InputStamp::Folder { .. }, _) => format!("{name} was a folder when the cache was made"),
        _ => format!("{name} was a file when the cache was made"),
    })
}
