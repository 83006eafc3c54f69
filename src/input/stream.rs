//! Documents in batches, for corpora too large to hold as strings: a [`DocStream`] yields
//! a few thousand documents at a time, so a consumer (the streaming vectorizer, `classify`)
//! can tokenize a batch and drop its text before the next one is read.
//!
//! Folders are listed first (paths only), then their files are read batch by batch in
//! parallel; TSV and JSONL files are read line by line through a buffered reader (from a
//! stream or device — a FIFO, a pipe, `/dev/zero` — each line at most the bound of
//! `--max-document-bytes`, so an endless line stops with a sentence). Each
//! batch equals the corresponding slice of what the whole-corpus readers return (they
//! too decode line files line by line: a line that is not UTF-8 is read as latin-1 on its
//! own), line ends and byte-order marks included. Formats without a streaming reader
//! (Reuters SGML) are read whole and handed out in batches. `-` reads standard input as a
//! stream in the format given. An input refused part-way (a line over the bound, a JSONL
//! line that is refused) ends the stream, but the documents read before it come first, as
//! a batch of their own, and the error after them.

use super::{Document, Format, Share, Split, decode_line, dirs, jsonl, read_part, stdin, tsv};
use crate::{Error, Result};
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

/// Documents per batch unless told otherwise.
pub const DEFAULT_BATCH: usize = 2048;

/// A source of document batches; one or more inputs read in order.
#[derive(Debug)]
pub struct DocStream {
    inputs: std::vec::IntoIter<(PathBuf, Format)>,
    split: Option<Split>,
    current: Option<Source>,
    batch: usize,
    /// Documents that could not be read so far: (id, reason).
    pub skipped: Vec<(String, String)>,
    prefix_ids: bool,
    share: Share,
    /// Units (files, non-blank lines, documents read whole) numbered so far.
    units: usize,
    /// The unit number of each document of the batch last yielded.
    last_units: Vec<usize>,
    /// The error that ends the stream, held back while the documents read before it are
    /// handed out.
    pending: Option<Error>,
}

#[derive(Debug)]
enum Source {
    /// Files still to read, with their unit numbers and labels.
    Files(std::vec::IntoIter<(usize, (Option<String>, PathBuf))>),
    /// A line file (or standard input) being read.
    Lines {
        /// What ids are prefixed with (`-` for standard input).
        path: PathBuf,
        /// What errors and skipped lines name (`standard input` for `-`).
        name: PathBuf,
        reader: BufReader<LineSource>,
        /// A stream or device (a FIFO, `/dev/zero`): each line is read up to the bound.
        bounded: bool,
        jsonl: bool,
        line_no: usize,
    },
    /// Documents read whole, with their unit numbers, handed out in batches.
    Whole(std::vec::IntoIter<(usize, Document)>),
}

/// Where a line source's bytes come from: a file or standard input.
#[derive(Debug)]
enum LineSource {
    File(std::fs::File),
    Stdin(std::io::Stdin),
}

impl Read for LineSource {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            LineSource::File(f) => f.read(buf),
            LineSource::Stdin(s) => s.read(buf),
        }
    }
}

impl DocStream {
    /// Streams `paths` in `format` (each detected with [`Format::detect`] when `None`),
    /// `batch` documents at a time. With several line files, ids are `FILE:LINE`.
    /// Every path is checked to exist before any is read.
    pub fn open(
        paths: &[PathBuf],
        format: Option<Format>,
        split: Option<Split>,
        batch: usize,
    ) -> Result<DocStream> {
        DocStream::open_detected(paths, format, split, batch, Format::detect)
    }

    /// As [`DocStream::open`], detecting each path's format with `detect` when `format`
    /// is `None` (e.g. [`Format::detect_unlabelled`], as documents to classify are read).
    pub fn open_detected(
        paths: &[PathBuf],
        format: Option<Format>,
        split: Option<Split>,
        batch: usize,
        detect: fn(&std::path::Path) -> Format,
    ) -> Result<DocStream> {
        let mut inputs = Vec::with_capacity(paths.len());
        for p in paths {
            let f = format.unwrap_or_else(|| detect(p));
            if stdin::is_stdin(p) {
                stdin::check_format(f)?;
            } else {
                super::require_exists(p)?;
            }
            if f == Format::Svmlight {
                return Err(Error::Unsupported(format!(
                    "{}: SVMlight files hold vectors, not documents",
                    p.display()
                )));
            }
            inputs.push((p.clone(), f));
        }
        Ok(DocStream {
            prefix_ids: paths.len() > 1,
            inputs: inputs.into_iter(),
            split,
            current: None,
            batch: batch.max(1),
            skipped: Vec::new(),
            share: Share::ALL,
            units: 0,
            last_units: Vec::new(),
            pending: None,
        })
    }

    /// Reads only `share`'s units: files of folders, non-blank lines of line files, and
    /// documents of corpora read whole, numbered across all inputs in order.
    pub fn share(mut self, share: Share) -> DocStream {
        self.share = share;
        self
    }

    /// Whether the ids of line-file documents name their file (`FILE:LINE`); by default
    /// they do when there are several inputs. `classify` numbers each file's lines alone.
    pub fn prefix_ids(mut self, on: bool) -> DocStream {
        self.prefix_ids = on;
        self
    }

    /// The unit number (counted from 0 across all inputs, as [`Share`] counts them) of
    /// each document of the batch last yielded, in order: what puts the documents that
    /// several shares read back in input order.
    pub fn units(&self) -> &[usize] {
        &self.last_units
    }

    fn start(&mut self, path: PathBuf, format: Format) -> Result<Source> {
        Ok(match format {
            Format::Tsv | Format::Jsonl if stdin::is_stdin(&path) => Source::Lines {
                reader: BufReader::with_capacity(1 << 20, LineSource::Stdin(std::io::stdin())),
                bounded: true,
                path,
                name: PathBuf::from(stdin::NAME),
                jsonl: format == Format::Jsonl,
                line_no: 0,
            },
            _ if stdin::is_stdin(&path) => {
                let c = read_part(&path, Some(format), self.split)?;
                Source::Whole(
                    self.share
                        .pick_numbered(c.docs, &mut self.units)
                        .into_iter(),
                )
            }
            Format::Dir => {
                let (jobs, skipped) = dirs::list_dirs(&path)?;
                self.skipped.extend(skipped);
                Source::Files(self.share.pick_numbered(jobs, &mut self.units).into_iter())
            }
            Format::Text => {
                let files = if path.is_dir() {
                    let w = dirs::walk_files(&path)?;
                    self.skipped.extend(w.skipped);
                    w.files
                } else {
                    vec![path]
                };
                let files = files.into_iter().map(|f| (None, f)).collect();
                Source::Files(self.share.pick_numbered(files, &mut self.units).into_iter())
            }
            Format::Tsv | Format::Jsonl => {
                let f = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
                let meta = f.metadata().map_err(|e| Error::io(&path, e))?;
                Source::Lines {
                    reader: BufReader::with_capacity(1 << 20, LineSource::File(f)),
                    // A regular file's size is known; a stream's lines are bounded, so an
                    // endless one stops with a sentence and a long one streams.
                    bounded: !meta.is_file(),
                    name: path.clone(),
                    path,
                    jsonl: format == Format::Jsonl,
                    line_no: 0,
                }
            }
            Format::Reuters | Format::Svmlight => {
                let c = read_part(&path, Some(format), self.split)?;
                self.skipped.extend(c.skipped);
                Source::Whole(
                    self.share
                        .pick_numbered(c.docs, &mut self.units)
                        .into_iter(),
                )
            }
        })
    }

    /// Up to `batch` documents from the current source; empty when it is exhausted. An
    /// error after some documents of the batch is held back in `pending`, and they are
    /// returned.
    fn next_from_current(&mut self) -> Result<Vec<Document>> {
        let pending = &mut self.pending;
        let batch = self.batch;
        let prefix = self.prefix_ids;
        let share = self.share;
        let units = &mut self.units;
        let numbers = &mut self.last_units;
        let Some(src) = &mut self.current else {
            return Ok(Vec::new());
        };
        match src {
            Source::Files(jobs) => {
                let mut docs = Vec::new();
                // Files that were all skipped are not the end of the source: read on.
                while docs.is_empty() {
                    let (ks, part): (Vec<usize>, Vec<_>) = jobs.by_ref().take(batch).unzip();
                    if part.is_empty() {
                        break;
                    }
                    for (k, r) in ks.into_iter().zip(dirs::read_each(part)) {
                        match r {
                            Ok(d) => {
                                numbers.push(k);
                                docs.push(d);
                            }
                            Err(s) => self.skipped.push(s),
                        }
                    }
                }
                Ok(docs)
            }
            Source::Whole(docs) => Ok(docs
                .by_ref()
                .take(batch)
                .map(|(k, d)| {
                    numbers.push(k);
                    d
                })
                .collect()),
            Source::Lines {
                path,
                name,
                reader,
                bounded,
                jsonl,
                line_no,
            } => {
                let mut out = Vec::with_capacity(batch);
                let mut buf = Vec::new();
                let cap = super::limit::max_document_bytes();
                let mut failed = None;
                while out.len() < batch {
                    buf.clear();
                    let read = if *bounded {
                        reader
                            .by_ref()
                            .take(cap.saturating_add(1))
                            .read_until(b'\n', &mut buf)
                    } else {
                        reader.read_until(b'\n', &mut buf)
                    };
                    let n = match read {
                        Ok(n) => n,
                        Err(e) => {
                            failed = Some(Error::io(&*name, e));
                            break;
                        }
                    };
                    if *bounded && buf.len() as u64 > cap {
                        let at = format!("{}:{}", name.display(), *line_no + 1);
                        failed = Some(Error::Data(super::limit::too_long(&at, cap)));
                        break;
                    }
                    if n == 0 {
                        break;
                    }
                    *line_no += 1;
                    if buf.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    *units += 1;
                    if !share.takes(*units - 1) {
                        continue;
                    }
                    // The line ends the whole-file readers drop: `str::lines` takes `\n`
                    // or `\r\n`, and a TSV line loses one more `\r`.
                    let newline = buf.last() == Some(&b'\n');
                    let mut crs = usize::from(newline) + usize::from(!*jsonl);
                    if newline {
                        buf.pop();
                    }
                    while crs > 0 && buf.last() == Some(&b'\r') {
                        buf.pop();
                        crs -= 1;
                    }
                    // A byte-order mark is dropped at the start of the file only.
                    if *line_no == 1 && buf.starts_with(b"\xEF\xBB\xBF") {
                        buf.drain(..3);
                    }
                    let line = decode_line(std::mem::take(&mut buf));
                    if line.trim().is_empty() {
                        continue;
                    }
                    let parsed = if *jsonl {
                        jsonl::parse_line(&line, *line_no)
                    } else {
                        tsv::parse_line(&line, *line_no).map_err(jsonl::LineError::Label)
                    };
                    match parsed {
                        Ok(mut d) => {
                            if prefix {
                                d.id = format!("{}:{}", path.display(), d.id);
                            }
                            numbers.push(*units - 1);
                            out.push(d)
                        }
                        Err(e) => match e.refusal(name, *line_no) {
                            Ok(why) => self
                                .skipped
                                .push((format!("{}:{}", name.display(), line_no), why)),
                            Err(e) => {
                                failed = Some(e);
                                break;
                            }
                        },
                    }
                }
                match failed {
                    Some(e) if out.is_empty() => Err(e),
                    Some(e) => {
                        *pending = Some(e);
                        Ok(out)
                    }
                    None => Ok(out),
                }
            }
        }
    }
}

impl Iterator for DocStream {
    type Item = Result<Vec<Document>>;

    /// The next non-empty batch, an error (after which the stream ends), or `None`.
    fn next(&mut self) -> Option<Self::Item> {
        self.last_units.clear();
        if let Some(e) = self.pending.take() {
            return self.fail(e);
        }
        loop {
            if self.current.is_none() {
                let (path, format) = self.inputs.next()?;
                match self.start(path, format) {
                    Ok(s) => self.current = Some(s),
                    Err(e) => return self.fail(e),
                }
            }
            match self.next_from_current() {
                Ok(b) if b.is_empty() => self.current = None,
                Ok(b) => return Some(Ok(b)),
                Err(e) => return self.fail(e),
            }
        }
    }
}

impl DocStream {
    fn fail(&mut self, e: Error) -> Option<Result<Vec<Document>>> {
        self.inputs = Vec::new().into_iter();
        self.current = None;
        Some(Err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(s: DocStream) -> Vec<Document> {
        s.flat_map(|b| b.unwrap()).collect()
    }

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name)
    }

    #[test]
    fn batches_equal_the_whole_corpus_readers() {
        for name in ["tiny", "tiny.tsv", "tiny.jsonl"] {
            let p = fixture(name);
            let whole = crate::input::read(&p, None).unwrap().docs;
            for batch in [1, 2, 5, 1000] {
                let s = DocStream::open(std::slice::from_ref(&p), None, None, batch).unwrap();
                let sizes: Vec<usize> =
                    DocStream::open(std::slice::from_ref(&p), None, None, batch)
                        .unwrap()
                        .map(|b| b.unwrap().len())
                        .collect();
                assert!(sizes.iter().all(|&n| n >= 1 && n <= batch), "{sizes:?}");
                assert_eq!(collect(s), whole, "{name}, batch {batch}");
            }
        }
    }

    #[test]
    fn line_ends_and_byte_order_marks_are_read_as_whole_files_read_them() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = b"\xEF\xBB\xBFa\tone\r\r\n\xEF\xBB\xBFb\ttwo\r\n".to_vec();
        text.extend(b"a\tcaf\xE9\r\n\r\r\n\xEF\xBB\xBF\n");
        for (name, end) in [("t.tsv", &b"b\tlast\r\r"[..]), ("t.jsonl", b"")] {
            let p = dir.path().join(name);
            let mut bytes = text.clone();
            if name.ends_with("jsonl") {
                bytes = concat!(
                    "\u{feff}{\"label\":\"a\",\"text\":\"x\"}\r\r\n",
                    "\u{feff}{\"text\":\"y\"}\r\n{\"text\":\"z\"}\r"
                )
                .as_bytes()
                .to_vec();
            }
            bytes.extend(end);
            std::fs::write(&p, &bytes).unwrap();
            let whole = crate::input::read(&p, None).unwrap();
            let mut s = DocStream::open(std::slice::from_ref(&p), None, None, 2).unwrap();
            let docs: Vec<Document> = s.by_ref().flat_map(|b| b.unwrap()).collect();
            assert_eq!(docs, whole.docs, "{name}");
            assert_eq!(s.skipped, whole.skipped, "{name}");
        }
    }

    #[test]
    fn shares_merged_by_unit_number_are_the_whole_corpus() {
        for name in ["tiny", "tiny.tsv", "tiny.jsonl"] {
            let p = fixture(name);
            let whole = crate::input::read(&p, None).unwrap().docs;
            for of in 1..4 {
                let mut all = Vec::new();
                for index in 0..of {
                    let mut s = DocStream::open(std::slice::from_ref(&p), None, None, 2)
                        .unwrap()
                        .share(Share { index, of });
                    while let Some(b) = s.next() {
                        let b = b.unwrap();
                        assert_eq!(s.units().len(), b.len());
                        assert!(s.units().iter().all(|k| k % of == index));
                        all.extend(s.units().iter().copied().zip(b));
                    }
                }
                all.sort_by_key(|(k, _)| *k);
                let docs: Vec<Document> = all.into_iter().map(|(_, d)| d).collect();
                assert_eq!(docs, whole, "{name}, {of} shares");
            }
        }
    }

    #[test]
    fn bad_json_lines_are_skipped_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.jsonl");
        std::fs::write(
            &p,
            "{\"label\":\"a\",\"text\":\"one\"}\n\nnot json\r\n{\"label\":\"b\",\"text\":\"two\"}",
        )
        .unwrap();
        let mut s = DocStream::open(&[p.clone(), p.clone()], None, None, 3).unwrap();
        let docs: Vec<Document> = s.by_ref().flat_map(|b| b.unwrap()).collect();
        let ids: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();
        let f = p.display();
        assert_eq!(
            ids,
            [
                format!("{f}:1"),
                format!("{f}:4"),
                format!("{f}:1"),
                format!("{f}:4")
            ]
        );
        assert_eq!(docs[1].labels, ["b"]);
        assert_eq!(s.skipped.len(), 2);
        assert_eq!(s.skipped[0].0, format!("{f}:3"));
    }

    #[test]
    fn the_documents_before_a_refused_line_come_before_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.jsonl");
        let ok = "{\"text\":\"a\"}\n".repeat(3);
        std::fs::write(&p, format!("{ok}{{\"label\":[1],\"text\":\"b\"}}\n{ok}")).unwrap();
        let mut s = DocStream::open(&[p], None, None, 10).unwrap();
        let ids: Vec<String> = s
            .next()
            .unwrap()
            .unwrap()
            .into_iter()
            .map(|d| d.id)
            .collect();
        assert_eq!(ids, ["1", "2", "3"]);
        assert!(s.next().unwrap().unwrap_err().to_string().contains(":4"));
        assert!(s.next().is_none());
    }

    #[test]
    fn missing_input_and_vectors_are_errors_before_reading() {
        let e = DocStream::open(&[PathBuf::from("/nonexistent/x.tsv")], None, None, 8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/x.tsv"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.svm");
        std::fs::write(&p, "1 1:1\n").unwrap();
        let e = DocStream::open(&[p], None, None, 8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("SVMlight"), "{e}");
    }
}
