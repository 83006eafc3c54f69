//! The TREC spam track's online protocol: messages in the order of an index file, each one
//! classified by the current filter and then learned from by its update rule, as a filter
//! meets mail in real life. The figures cover the whole run: accuracy, spam recall, ham
//! false-positive rate and (1-ROCA)% of the scores given before each message was learned.
//!
//! The index is TREC's `full/index` format: one `spam PATH` or `ham PATH` line per
//! message, paths relative to the index file's folder.
//!
//! The run changes the model it is given, so it belongs beside the filter it runs, not to `eval`:
//! it chains reading, parsing, scoring and learning, and hands the scores to
//! [`SpamMetrics`].

use crate::eval::SpamMetrics;
use crate::incremental::learn_document;
use crate::input::mail::{ParsedMessage, parse_message};
use crate::model::Model;
use crate::{Error, Result};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Messages read and parsed ahead, in parallel, while the filter runs in order.
const AHEAD: usize = 256;

/// One line of a TREC index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    /// Whether the message is spam.
    pub spam: bool,
    /// The message file (resolved against the index's folder).
    pub path: PathBuf,
}

/// Reads a TREC index file (`spam|ham PATH` lines; blank lines skipped).
pub fn read_index(index: &Path) -> Result<Vec<IndexEntry>> {
    let bytes = crate::input::limit::read_corpus_file(index)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::parse(index, None, "not UTF-8 text: not a TREC index"))?;
    let base = index.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (label, rel) = line.split_once(char::is_whitespace).ok_or_else(|| {
            Error::parse(index, Some(i + 1), "expected `spam PATH` or `ham PATH`")
        })?;
        let spam = match label.to_ascii_lowercase().as_str() {
            "spam" => true,
            "ham" => false,
            other => {
                return Err(Error::parse(
                    index,
                    Some(i + 1),
                    format!("label {other:?} is neither spam nor ham"),
                ));
            }
        };
        out.push(IndexEntry {
            spam,
            path: base.join(rel.trim()),
        });
    }
    if out.is_empty() {
        return Err(Error::parse(index, None, "the index lists no messages"));
    }
    Ok(out)
}

/// What an online run did.
#[derive(Debug, Clone)]
pub struct OnlineRun {
    /// Figures over every message, from the scores given before learning it.
    pub metrics: SpamMetrics,
    /// Those scores, in index order (messages that could not be read are left out).
    pub scores: Vec<f32>,
    /// Whether each scored message is spam, aligned with `scores`.
    pub truth: Vec<bool>,
    /// Mistakes, hence updates.
    pub updates: u64,
    /// Messages read from raw bytes because they did not parse as mail (id, reason).
    pub unparsed: Vec<(String, String)>,
    /// Messages that could not be read at all (path, reason).
    pub skipped: Vec<(String, String)>,
    /// Wall-clock seconds for the whole run (reading included).
    pub seconds: f64,
}

impl OnlineRun {
    /// Milliseconds per message.
    pub fn ms_per_message(&self) -> f64 {
        1e3 * self.seconds / self.metrics.documents.max(1) as f64
    }
}

/// Runs the protocol over `entries` with `model` (spam must be its positive class, and
/// its analyzer must read mail: messages are parsed under its rules), which ends up
/// having learned every message.
pub fn run_online(model: &mut Model, entries: &[IndexEntry]) -> Result<OnlineRun> {
    crate::incremental::binary_label(model, "spam")?;
    crate::incremental::binary_label(model, "ham")?;
    let rules = model
        .analyzer()
        .source()
        .mail_rules()
        .cloned()
        .ok_or_else(|| {
            Error::Unsupported(
                "the TREC online protocol reads mail: the model's analyzer reads text".into(),
            )
        })?;
    let start = Instant::now();
    let (mut scores, mut truth) = (Vec::new(), Vec::new());
    let (mut unparsed, mut skipped) = (Vec::new(), Vec::new());
    let updates_before = model.meta.report.updates;
    for chunk in entries.chunks(AHEAD) {
        let parsed: Vec<std::result::Result<ParsedMessage, String>> = chunk
            .par_iter()
            .map(|e| {
                let bytes = crate::input::limit::read_document(&e.path)
                    .map_err(|err| crate::input::skip_reason(&e.path, &err).1)?;
                let label = if e.spam { "spam" } else { "ham" };
                Ok(parse_message(
                    &bytes,
                    e.path.display().to_string(),
                    Some(label),
                    &rules,
                ))
            })
            .collect();
        for (e, p) in chunk.iter().zip(parsed) {
            match p {
                Ok(p) => {
                    if let Some(why) = p.unparsed {
                        unparsed.push((p.doc.id.clone(), why.to_string()));
                    }
                    let label = if e.spam { "spam" } else { "ham" };
                    let out = learn_document(model, &p.doc, label)?;
                    scores.push(out.score);
                    truth.push(e.spam);
                }
                Err(why) => skipped.push((e.path.display().to_string(), why)),
            }
        }
    }
    Ok(OnlineRun {
        metrics: SpamMetrics::new(&scores, &truth, model.threshold()),
        scores,
        truth,
        updates: model.meta.report.updates - updates_before,
        unparsed,
        skipped,
        seconds: start.elapsed().as_secs_f64(),
    })
}
