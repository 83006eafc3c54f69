//! Standard input as an input, named `-` on the command line: read in the format given
//! (TSV or JSON lines, a line-number id per document as for a file, or one text document),
//! within `max_document_bytes` as any stream is. Folders and Reuters SGML need a path.

use super::{Corpus, Document, Format, decode_text, jsonl, limit, tsv};
use crate::{Error, Result};
use std::path::Path;

/// How errors and skipped lines name standard input.
pub const NAME: &str = "standard input";

/// Whether `path` is `-`, standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Refuses a format standard input cannot be read in (folders, Reuters SGML, vectors).
pub(crate) fn check_format(format: Format) -> Result<()> {
    match format {
        Format::Tsv | Format::Jsonl | Format::Text => Ok(()),
        _ => Err(Error::Unsupported(format!(
            "-: {NAME} is read as TSV lines, JSON lines or one text document (--format/\
             --input-format tsv, jsonl or text); give a path for {format:?} input"
        ))),
    }
}

/// Standard input read whole in `format`, as [`super::read_part`] reads a file.
pub(crate) fn read(format: Format) -> Result<Corpus> {
    check_format(format)?;
    let bytes = limit::read_bounded(std::io::stdin().lock(), NAME)?;
    let name = Path::new(NAME);
    match format {
        Format::Jsonl => jsonl::parse_jsonl(bytes, name),
        Format::Tsv => tsv::parse_tsv(bytes, name),
        _ => Ok(Corpus {
            docs: vec![Document::new("-", decode_text(bytes), None)],
            skipped: Vec::new(),
        }),
    }
}
