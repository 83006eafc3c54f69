//! `label<TAB>text` lines (the SMS Spam Collection's format); the line number is the id.
//! A line without a TAB is an unlabelled document (fine for `classify`, an error for
//! training, where every document needs a label). An empty label is no label; a label
//! that breaks [the label rule](super::label_problem) refuses the file, naming the line.

use super::{Corpus, Document, decode_lines, label_problem, read_bytes};
use crate::{Error, Result};
use std::path::Path;

/// Reads a TSV file; blank lines are skipped.
pub(crate) fn read_tsv(path: &Path) -> Result<Corpus> {
    parse_tsv(read_bytes(path)?, path)
}

/// The documents of TSV text held in memory, as [`read`](super::read) reads a TSV file;
/// `path` names the source in errors.
pub fn parse_tsv(bytes: Vec<u8>, path: &Path) -> Result<Corpus> {
    let text = decode_lines(bytes);
    let mut corpus = Corpus::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let d = parse_line(line, i + 1).map_err(|why| Error::parse(path, Some(i + 1), why))?;
        corpus.docs.push(d);
    }
    Ok(corpus)
}

/// One non-blank line (without its line end) as a document whose id is `line_no`, or
/// why its label cannot be a class name.
pub(super) fn parse_line(line: &str, line_no: usize) -> std::result::Result<Document, String> {
    let id = line_no.to_string();
    Ok(match line.split_once('\t') {
        Some((label, body)) if !label.trim().is_empty() => {
            let label = label.trim();
            if let Some(why) = label_problem(label) {
                return Err(why);
            }
            Document::new(id, body, Some(label))
        }
        Some((_, body)) => Document::new(id, body, None),
        None => Document::new(id, line, None),
    })
}
