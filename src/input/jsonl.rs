//! JSON Lines: `{"label": "spam", "text": "…"}` per line (`"labels": [...]` for several,
//! an optional `"id"`); the line number is the id otherwise. A line that is not such an
//! object is counted and skipped; a label that breaks [the label rule](super::label_problem)
//! refuses the file, naming the line.

use super::label::first_problem;
use super::{Corpus, Document, decode_lines, read_bytes};
use crate::{Error, Result};
use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
struct Line {
    id: Option<serde_json::Value>,
    text: String,
    label: Option<serde_json::Value>,
    #[serde(default)]
    labels: Vec<serde_json::Value>,
}

/// An id as text: a string as it is, a number or anything else as JSON writes it.
fn label_string(v: serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

/// A label as a class name: a string, or a number or boolean as JSON writes it (`1`,
/// `true`); an array or object is no class name, and `field` says where it was met.
fn class_name(v: serde_json::Value, field: &str) -> std::result::Result<String, LineError> {
    match v {
        serde_json::Value::Array(_) | serde_json::Value::Object(_) | serde_json::Value::Null => {
            let hint = if field == "label" && v.is_array() {
                "; give several classes as \"labels\": [...]"
            } else {
                ""
            };
            Err(LineError::Label(format!(
                "\"{field}\" holds {v}, which is no class name (a string or a number){hint}"
            )))
        }
        other => Ok(label_string(other)),
    }
}

/// Why a line gives no document.
#[derive(Debug, PartialEq)]
pub(super) enum LineError {
    /// Not a JSON object with a `"text"`: the line is counted and skipped.
    Malformed(String),
    /// A label no class may have: the file is refused.
    Label(String),
}

impl LineError {
    /// The error that refuses `path` for line `line_no`, or the reason the line is skipped.
    pub(super) fn refusal(self, path: &Path, line_no: usize) -> std::result::Result<String, Error> {
        match self {
            LineError::Malformed(why) => Ok(why),
            LineError::Label(why) => Err(Error::parse(path, Some(line_no), why)),
        }
    }
}

/// Reads a JSONL file; a malformed line is counted and skipped with its reason, a label
/// that breaks the label rule is an error naming the file and line.
pub(crate) fn read_jsonl(path: &Path) -> Result<Corpus> {
    parse_jsonl(read_bytes(path)?, path)
}

/// The documents of JSONL text held in memory, as [`read`](super::read) reads a JSONL file;
/// `path` names the source in errors and in the skipped lines' ids (`PATH:LINE`).
pub fn parse_jsonl(bytes: Vec<u8>, path: &Path) -> Result<Corpus> {
    let text = decode_lines(bytes);
    let mut corpus = Corpus::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line, i + 1) {
            Ok(d) => corpus.docs.push(d),
            Err(e) => {
                let why = e.refusal(path, i + 1)?;
                corpus
                    .skipped
                    .push((format!("{}:{}", path.display(), i + 1), why));
            }
        }
    }
    Ok(corpus)
}

/// One non-blank line as a document (id: its `"id"`, else `line_no`), or why it is not one.
pub(super) fn parse_line(line: &str, line_no: usize) -> std::result::Result<Document, LineError> {
    let l = serde_json::from_str::<Line>(line).map_err(|e| LineError::Malformed(e.to_string()))?;
    let mut labels = l
        .labels
        .into_iter()
        .map(|v| class_name(v, "labels"))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    // `"label": null` is a line without a label, as a line without the field.
    if let Some(v) = l.label.filter(|v| !v.is_null()) {
        labels.push(class_name(v, "label")?);
    }
    if let Some(why) = first_problem(&labels) {
        return Err(LineError::Label(why));
    }
    let id =
        l.id.map(label_string)
            .unwrap_or_else(|| line_no.to_string());
    Ok(Document {
        id,
        text: l.text,
        labels,
        ..Default::default()
    })
}
