//! `label<TAB>text` lines (the SMS Spam Collection's format); the line number is the id.
//! A line without a TAB is an unlabelled document (fine for `classify`, an error for
//! training, where every document needs a label). An empty label is no label.

use super::{Corpus, Document, decode_text, read_bytes};
use crate::Result;
use std::path::Path;

/// Reads a TSV file; blank lines are skipped.
pub fn read_tsv(path: &Path) -> Result<Corpus> {
    Ok(parse_tsv(read_bytes(path)?))
}

/// The documents of TSV text held in memory, as [`read_tsv`] reads a file.
pub fn parse_tsv(bytes: Vec<u8>) -> Corpus {
    let text = decode_text(bytes);
    let mut corpus = Corpus::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        corpus.docs.push(parse_line(line, i + 1));
    }
    corpus
}

/// One non-blank line (without its line end) as a document whose id is `line_no`.
pub(super) fn parse_line(line: &str, line_no: usize) -> Document {
    let id = line_no.to_string();
    match line.split_once('\t') {
        Some((label, body)) if !label.trim().is_empty() => {
            Document::new(id, body, Some(label.trim()))
        }
        Some((_, body)) => Document::new(id, body, None),
        None => Document::new(id, line, None),
    }
}
