//! Input: files on disk → [`Document`]s with their labels.
//!
//! One reader per format, each in its own file. Readers never see a weight or a vocabulary;
//! a document that cannot be read is counted and skipped ([`Corpus::skipped`]), while a
//! path that cannot be opened at all is an error naming it.

mod decode;
mod dirs;
mod jsonl;
mod label;
pub mod limit;
pub mod mail;
mod nested;
mod reuters;
mod share;
pub mod stdin;
pub mod stream;
mod tsv;

pub(crate) use decode::decode_latin1;
pub(crate) use decode::decode_line;
pub(crate) use decode::decode_lines;
pub use decode::decode_text;
pub(crate) use dirs::{read_dirs, walk_files};
pub use jsonl::parse_jsonl;
pub(crate) use jsonl::read_jsonl;
pub(crate) use label::label_problem;
pub use reuters::{Split, parse_reuters, read_reuters};
pub use share::Share;
pub use stream::DocStream;
pub use tsv::parse_tsv;
pub(crate) use tsv::read_tsv;

use crate::{Error, Result};
use std::path::Path;

/// One document: an id (file path or line number), its text and its labels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    /// Where it came from: a file path, or `FILE:LINE` for line formats.
    pub id: String,
    /// The body text.
    pub text: String,
    /// Named fields tokenized with a prefix (`subject` → `subject:free`).
    pub fields: Vec<(Box<str>, String)>,
    /// Literal features added as they are (e.g. `attach:image/png`).
    pub tags: Vec<String>,
    /// Class labels; empty when unlabelled, several for multi-label corpora.
    pub labels: Vec<String>,
}

impl Document {
    /// A labelled document: training data in one call. Its id (shown in messages) is
    /// the start of its text.
    ///
    /// ```
    /// let d = rosenblatt::Document::labelled("spam", "cheap meds, buy now");
    /// assert_eq!(d.labels, ["spam"]);
    /// ```
    pub fn labelled(label: &str, text: impl Into<String>) -> Self {
        let text = text.into();
        let id: String = text.chars().take(32).collect();
        Document::new(format!("{id:?}"), text, Some(label))
    }

    /// A document with a body and at most one label.
    pub fn new(id: impl Into<String>, text: impl Into<String>, label: Option<&str>) -> Self {
        Document {
            id: id.into(),
            text: text.into(),
            labels: label.map(|l| vec![l.to_string()]).unwrap_or_default(),
            ..Default::default()
        }
    }
}

/// Documents read from one or more inputs, with the count of those skipped.
#[derive(Debug, Default)]
pub struct Corpus {
    /// The documents, in input order.
    pub docs: Vec<Document>,
    /// Documents that could not be read: (id, reason).
    pub skipped: Vec<(String, String)>,
}

impl Corpus {
    /// Appends another corpus.
    pub fn extend(&mut self, other: Corpus) {
        self.docs.extend(other.docs);
        self.skipped.extend(other.skipped);
    }
}

/// The input formats; [`Format::detect`] picks one from a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `DIR/<class>/...`: labels from first-level folder names, files found recursively.
    Dir,
    /// Unlabelled: each file is one document (folders are walked recursively).
    Text,
    /// One JSON object per line: `{"label": …, "text": …}` (`labels` for several).
    Jsonl,
    /// `label<TAB>text` lines.
    Tsv,
    /// Reuters-21578 SGML (a folder of `reut2-*.sgm` or one file), ModApte documents of
    /// the 90 categories; a [`Split`] picks the training or the test part.
    Reuters,
    /// SVMlight/libsvm vectors (`label id:value …`); detected from `.svm`, `.svmlight`,
    /// `.libsvm`. These are rows, not documents: read them with `features::svmlight::read_svmlight`.
    Svmlight,
}

impl Format {
    /// For labelled input: folder → `Dir`, `.jsonl`/`.json`/`.ndjson` → `Jsonl`, any other
    /// file → `Tsv`.
    pub fn detect(path: &Path) -> Format {
        if path.is_dir() {
            return Format::Dir;
        }
        match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl" | "json" | "ndjson") => Format::Jsonl,
            Some("svm" | "svmlight" | "libsvm") => Format::Svmlight,
            _ => Format::Tsv,
        }
    }

    /// For documents to classify: folder → `Text`, `.jsonl` → `Jsonl`, `.tsv` → `Tsv`,
    /// any other file → `Text` (one document).
    pub fn detect_unlabelled(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            _ if path.is_dir() => Format::Text,
            Some("jsonl" | "json" | "ndjson") => Format::Jsonl,
            Some("tsv") => Format::Tsv,
            Some("svm" | "svmlight" | "libsvm") => Format::Svmlight,
            _ => Format::Text,
        }
    }
}

/// Reads `path` in `format` (detected when `None`).
pub fn read(path: &Path, format: Option<Format>) -> Result<Corpus> {
    read_part(path, format, None)
}

/// Reads `path` in `format`, only the `split` part for formats with a fixed split
/// (Reuters ModApte); other formats ignore `split`. `-` reads standard input.
pub fn read_part(path: &Path, format: Option<Format>, split: Option<Split>) -> Result<Corpus> {
    if stdin::is_stdin(path) {
        return stdin::read(format.unwrap_or_else(|| Format::detect(path)));
    }
    require_exists(path)?;
    match format.unwrap_or_else(|| Format::detect(path)) {
        Format::Dir => read_dirs(path),
        Format::Text => read_text(path),
        Format::Jsonl => read_jsonl(path),
        Format::Tsv => read_tsv(path),
        Format::Reuters => read_reuters(path, split),
        Format::Svmlight => Err(Error::Unsupported(format!(
            "{}: SVMlight files hold vectors, not documents",
            path.display()
        ))),
    }
}

/// Refuses a path that does not exist, naming it, as every reader refuses it before
/// reading anything.
pub fn require_exists(path: &Path) -> Result<()> {
    if path.exists() {
        return Ok(());
    }
    Err(Error::io(
        path,
        std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or folder"),
    ))
}

/// Reads unlabelled documents: each file (or each regular file under a folder) is one
/// document. A path named directly is read whatever it is (a FIFO, `/dev/stdin`).
pub fn read_text(path: &Path) -> Result<Corpus> {
    let (files, skipped) = if path.is_dir() {
        let w = dirs::walk_files(path)?;
        (w.files, w.skipped)
    } else {
        (vec![path.to_path_buf()], Vec::new())
    };
    let mut corpus = dirs::read_files(files.into_iter().map(|f| (None, f)).collect())?;
    corpus.skipped.splice(0..0, skipped);
    Ok(corpus)
}

/// A skipped file and why, the reason without the file's name at its start.
pub(crate) fn skip_reason(path: &Path, e: &Error) -> (String, String) {
    let id = path.display().to_string();
    let why = e.to_string();
    let why = why
        .strip_prefix(&format!("{id}: "))
        .unwrap_or(&why)
        .to_string();
    (id, why)
}

/// Reads a whole corpus file as bytes (bounded where it is not a regular file), naming
/// it on failure.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    limit::read_corpus_file(path)
}
