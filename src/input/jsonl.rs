//! JSON Lines: `{"label": "spam", "text": "…"}` per line (`"labels": [...]` for several,
//! an optional `"id"`); the line number is the id otherwise.

use super::{Corpus, Document, decode_text, read_bytes};
use crate::Result;
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

fn label_string(v: serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

/// Reads a JSONL file; a malformed line is counted and skipped with its reason.
pub fn read_jsonl(path: &Path) -> Result<Corpus> {
    Ok(parse_jsonl(read_bytes(path)?, path))
}

/// The documents of JSONL text held in memory, as [`read_jsonl`] reads a file; `name`
/// names the source in the skipped lines' ids (`PATH:LINE`).
pub fn parse_jsonl(bytes: Vec<u8>, path: &Path) -> Corpus {
    let text = decode_text(bytes);
    let mut corpus = Corpus::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line, i + 1) {
            Ok(d) => corpus.docs.push(d),
            Err(e) => corpus
                .skipped
                .push((format!("{}:{}", path.display(), i + 1), e)),
        }
    }
    corpus
}

/// One non-blank line as a document (id: its `"id"`, else `line_no`), or why it is not one.
pub(super) fn parse_line(line: &str, line_no: usize) -> std::result::Result<Document, String> {
    let l = serde_json::from_str::<Line>(line).map_err(|e| e.to_string())?;
    let mut labels: Vec<String> = l.labels.into_iter().map(label_string).collect();
    labels.extend(l.label.map(label_string));
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
