//! SVMlight files read a chunk of rows at a time, for files too large to hold: memory
//! holds one chunk, never the file.
//!
//! The files are read twice. The first pass checks every line as the whole-file reader
//! does (the same errors, for the same first line, file by file) and learns whether every
//! value of every file is 1; the second hands out the rows in chunks, each binary when the
//! files are and real otherwise — as the whole-file reader types them — so a model scores
//! every chunk's rows exactly as it scores them read whole.

use super::{RowsBuilder, SvmData, TwoClass, parse_line};
use crate::{Error, Result};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// Some rows of SVMlight files with their ids.
#[derive(Debug)]
pub struct SvmChunk {
    /// The rows with their labels and line numbers; as many columns as their largest id
    /// needs.
    pub data: SvmData,
    /// Each row's id: its line number, or `FILE:LINE` when several files are read.
    pub ids: Vec<String>,
}

/// The rows of one or more SVMlight files in chunks of at most `batch` rows, in order:
/// the chunks together hold the rows, labels, line numbers and ids that
/// [`read_svmlight_files_limited`](super::read_svmlight_files_limited) returns, and are
/// binary exactly when it returns binary rows. A chunk may hold rows of two files.
#[derive(Debug)]
pub struct SvmChunks {
    paths: Vec<PathBuf>,
    /// The index in `paths` of the next file to open.
    next: usize,
    current: Option<Lines>,
    named: bool,
    max_id: u32,
    batch: usize,
    binary: bool,
    rows: usize,
    row: Vec<(u32, f32)>,
}

/// One file being read line by line.
#[derive(Debug)]
struct Lines {
    path: PathBuf,
    reader: BufReader<File>,
    line_no: usize,
    buf: Vec<u8>,
}

impl Lines {
    /// Opens `path`, which must be a regular file: it is read twice.
    fn open(path: &Path) -> Result<Lines> {
        let f = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = f.metadata().map_err(|e| Error::io(path, e))?;
        if !meta.is_file() {
            return Err(Error::Unsupported(format!(
                "{}: not a regular file; SVMlight rows are read in chunks from regular \
                 files only",
                path.display()
            )));
        }
        Ok(Lines {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(1 << 20, f),
            line_no: 0,
            buf: Vec::new(),
        })
    }

    /// Reads the next line into `buf`, without its line end, and numbers it `line_no`;
    /// false at the end.
    fn next_line(&mut self) -> Result<bool> {
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| Error::io(&self.path, e))?;
        if n == 0 {
            return Ok(false);
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        }
        self.line_no += 1;
        Ok(true)
    }
}

impl SvmChunks {
    /// Checks every file in `paths` (regular files), feature ids up to `max_id`, and
    /// returns the reader of their rows, `batch` (at least 1) at a time. A file the
    /// whole-file reader refuses is refused here with the same error, before any row is
    /// handed out.
    pub fn open(paths: &[PathBuf], max_id: u32, batch: usize) -> Result<SvmChunks> {
        let (mut rows, mut binary) = (0, true);
        let mut row = Vec::new();
        for p in paths {
            let mut lines = Lines::open(p)?;
            let mut two = TwoClass::default();
            while lines.next_line()? {
                let line_no = lines.line_no;
                if let Some(label) = parse_line(&lines.buf, line_no, p, max_id, &mut row)? {
                    two.see(&label, line_no);
                    binary &= row.iter().all(|v| v.1 == 1.0);
                    rows += 1;
                }
            }
            two.check(p)?;
        }
        Ok(SvmChunks {
            paths: paths.to_vec(),
            next: 0,
            current: None,
            named: paths.len() > 1,
            max_id,
            batch: batch.max(1),
            binary,
            rows,
            row,
        })
    }

    /// The number of rows in all the files.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Whether every value of every file is 1 (the chunks are binary rows).
    pub fn binary(&self) -> bool {
        self.binary
    }

    /// The next chunk, or `None` after the last row.
    fn next_chunk(&mut self) -> Result<Option<SvmChunk>> {
        let mut b = RowsBuilder::with_capacity(0);
        let mut ids = Vec::new();
        while b.len() < self.batch {
            if self.current.is_none() {
                match self.paths.get(self.next) {
                    Some(p) => self.current = Some(Lines::open(p)?),
                    None => break,
                }
                self.next += 1;
            }
            let lines = self.current.as_mut().expect("a file is open");
            if !lines.next_line()? {
                self.current = None;
                continue;
            }
            let (line_no, path) = (lines.line_no, &lines.path);
            let Some(label) = parse_line(&lines.buf, line_no, path, self.max_id, &mut self.row)?
            else {
                continue;
            };
            ids.push(if self.named {
                format!("{}:{line_no}", path.display())
            } else {
                line_no.to_string()
            });
            b.push(label, line_no, &self.row);
            if self.binary && !b.binary {
                return Err(Error::Data(format!(
                    "{}: changed while being read (line {line_no} holds a value other than \
                     1, which no line held when the file was checked)",
                    path.display()
                )));
            }
        }
        Ok((b.len() > 0).then(|| SvmChunk {
            data: b.finish(self.binary),
            ids,
        }))
    }
}

impl Iterator for SvmChunks {
    type Item = Result<SvmChunk>;

    /// The next chunk, an error (after which the reader ends), or `None`.
    fn next(&mut self) -> Option<Self::Item> {
        match self.next_chunk() {
            Ok(c) => c.map(Ok),
            Err(e) => {
                self.next = self.paths.len();
                self.current = None;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Rows, read_svmlight_files_limited};
    use super::*;
    use crate::features::SparseRows;

    fn rows_of(r: &Rows) -> Vec<(Vec<u32>, Option<Vec<f32>>)> {
        let row = |i| match r {
            Rows::Binary(m) => (m.row(i).ids.to_vec(), None),
            Rows::Real(m) => (m.row(i).ids.to_vec(), m.row(i).vals.map(<[f32]>::to_vec)),
        };
        (0..r.n_rows()).map(row).collect()
    }

    #[test]
    fn chunks_together_are_the_files_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let bin = write("a.svm", "+1 3:1 1:1 # c\n\n# only\n-1 2:1 qid:4\n-1\n1 7:1");
        let real = write("b.svm", "2 1:0.5 4:-2\n0 2:1\r\n\n3 9:1 2:1\n");
        for paths in [
            vec![bin.clone()],
            vec![real.clone()],
            vec![bin.clone(), real.clone()],
            vec![real.clone(), bin.clone(), bin.clone()],
        ] {
            let (whole, whole_ids) = read_svmlight_files_limited(&paths, 100).unwrap();
            for batch in [1, 2, 3, 100] {
                let chunks = SvmChunks::open(&paths, 100, batch).unwrap();
                assert_eq!(chunks.rows(), whole.labels.len());
                let (mut labels, mut lines, mut ids, mut rows) = (vec![], vec![], vec![], vec![]);
                for c in chunks {
                    let c = c.unwrap();
                    assert!(c.ids.len() <= batch && !c.ids.is_empty());
                    let kinds = (&c.data.rows, &whole.rows);
                    assert!(matches!(
                        kinds,
                        (Rows::Binary(_), Rows::Binary(_)) | (Rows::Real(_), Rows::Real(_))
                    ));
                    labels.extend(c.data.labels);
                    lines.extend(c.data.lines);
                    ids.extend(c.ids);
                    rows.extend(rows_of(&c.data.rows));
                }
                assert_eq!(labels, whole.labels, "{paths:?}, batch {batch}");
                assert_eq!(lines, whole.lines);
                assert_eq!(ids, whole_ids);
                assert_eq!(rows, rows_of(&whole.rows));
            }
        }
    }

    #[test]
    fn a_file_refused_whole_is_refused_before_any_chunk() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.svm");
        std::fs::write(&good, "1 1:1\n").unwrap();
        for text in [
            "1 1:1\n-1 2:1\n1 x:1\n",
            "1 1:1\n3 1:1\n-1 2:1\n",
            "1 1:1\n-1 200:1\n",
            "1 1:1\n1 2:1 2:1\n",
        ] {
            let bad = dir.path().join("bad.svm");
            std::fs::write(&bad, text).unwrap();
            let paths = [good.clone(), bad];
            let whole = read_svmlight_files_limited(&paths, 100).unwrap_err();
            let chunked = SvmChunks::open(&paths, 100, 1).unwrap_err();
            assert_eq!(chunked.to_string(), whole.to_string(), "{text:?}");
        }
        let e = SvmChunks::open(&[dir.path().to_path_buf()], 100, 1).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}
