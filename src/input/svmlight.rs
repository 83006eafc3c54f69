//! SVMlight / libsvm files: `<label> <id>:<value> … [# comment]`, the interchange format
//! of LIBLINEAR, Vowpal Wabbit and scikit-learn. Feature ids are 1-based in the file and
//! 0-based everywhere else; this module is the only place that knows.
//!
//! Labels are kept as strings, with numeric ones normalized (`+1` → `1`, `1.0` → `1`), so
//! ±1, 0/1 and multiclass files all work. Blank lines and `#` comments are skipped; `qid:`
//! tokens are ignored; a malformed line is an error naming the file and line. Files whose
//! values are all 1 load as a [`BinaryMatrix`]; others as a [`RealMatrix`].

use crate::features::{BinaryMatrix, MatrixBuilder, RealMatrix, SparseRows};
use crate::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Rows read from an SVMlight file: binary when every value is 1.
#[derive(Debug, Clone)]
pub enum Rows {
    /// All values 1.
    Binary(BinaryMatrix),
    /// Real values.
    Real(RealMatrix),
}

impl Rows {
    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        match self {
            Rows::Binary(m) => m.n_rows(),
            Rows::Real(m) => m.n_rows(),
        }
    }

    /// Number of nonzeros.
    pub fn nnz(&self) -> usize {
        match self {
            Rows::Binary(m) => m.nnz(),
            Rows::Real(m) => m.nnz(),
        }
    }
}

/// A parsed SVMlight file.
#[derive(Debug, Clone)]
pub struct SvmData {
    /// One label per row (normalized strings).
    pub labels: Vec<String>,
    /// The feature rows (0-based ids).
    pub rows: Rows,
    /// The 1-based line number of each row.
    pub lines: Vec<usize>,
}

fn normalize_label(s: &str) -> String {
    match s.parse::<f64>() {
        Ok(v) if v.fract() == 0.0 && v.abs() < 1e15 => format!("{}", v as i64),
        _ => s.to_string(),
    }
}

fn parse_id(tok: &[u8]) -> Option<u32> {
    if tok.is_empty() || tok.len() > 10 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in tok {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(c - b'0');
    }
    u32::try_from(v).ok()
}

/// Parses SVMlight bytes; `path` names the file in errors.
pub fn parse_svmlight(bytes: &[u8], path: &Path) -> Result<SvmData> {
    let mut labels = Vec::new();
    let mut lines = Vec::new();
    let mut indptr = vec![0usize];
    let mut indices: Vec<u32> = Vec::with_capacity(bytes.len() / 6);
    let mut values: Vec<f32> = Vec::with_capacity(bytes.len() / 6);
    let mut binary = true;
    let mut max_id: u64 = 0;
    let mut row: Vec<(u32, f32)> = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = n + 1;
        let line = match line.iter().position(|&b| b == b'#') {
            Some(p) => &line[..p],
            None => line,
        };
        let mut toks = line.split(|b| b.is_ascii_whitespace()).filter(|t| !t.is_empty());
        let Some(label) = toks.next() else { continue };
        let err = |m: String| Error::parse(path, Some(line_no), m);
        let label = std::str::from_utf8(label).map_err(|_| err("label is not UTF-8".into()))?;
        if label.contains(':') {
            return Err(err(format!("expected a label first, found {label:?}")));
        }
        row.clear();
        for t in toks {
            let colon = t
                .iter()
                .position(|&b| b == b':')
                .ok_or_else(|| err(format!("expected id:value, found {:?}", String::from_utf8_lossy(t))))?;
            let (id, val) = (&t[..colon], &t[colon + 1..]);
            if id == b"qid" {
                continue;
            }
            let id = parse_id(id)
                .filter(|&i| i >= 1)
                .ok_or_else(|| err(format!("bad feature id {:?} (ids start at 1)", String::from_utf8_lossy(id))))?;
            let v: f32 = if val == b"1" {
                1.0
            } else {
                std::str::from_utf8(val)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .filter(|v: &f32| v.is_finite())
                    .ok_or_else(|| err(format!("bad value {:?}", String::from_utf8_lossy(val))))?
            };
            if v != 0.0 {
                binary &= v == 1.0;
                row.push((id - 1, v));
            }
        }
        if !row.windows(2).all(|w| w[0].0 < w[1].0) {
            row.sort_unstable_by_key(|p| p.0);
            if let Some(w) = row.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(err(format!("feature id {} appears twice", w[0].0 + 1)));
            }
        }
        if let Some(&(last, _)) = row.last() {
            max_id = max_id.max(u64::from(last) + 1);
        }
        indices.extend(row.iter().map(|p| p.0));
        values.extend(row.iter().map(|p| p.1));
        indptr.push(indices.len());
        labels.push(normalize_label(label));
        lines.push(line_no);
    }
    let shape = (labels.len(), max_id as usize);
    let rows = if binary {
        let nnz = indices.len();
        Rows::Binary(BinaryMatrix::new(shape, indptr, indices, vec![(); nnz]))
    } else {
        Rows::Real(RealMatrix::new(shape, indptr, indices, values))
    };
    Ok(SvmData { labels, rows, lines })
}

/// Reads an SVMlight file.
pub fn read_svmlight(path: &Path) -> Result<SvmData> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse_svmlight(&bytes, path)
}

/// Writes rows with their labels as SVMlight (1-based ids; binary values written as 1).
pub fn write_svmlight<X: SparseRows, W: Write>(x: &X, labels: &[String], out: &mut W) -> std::io::Result<()> {
    let mut line = String::new();
    for i in 0..x.n_rows() {
        use std::fmt::Write as _;
        line.clear();
        line.push_str(labels.get(i).map_or("0", String::as_str));
        let r = x.row(i);
        for (k, &j) in r.ids.iter().enumerate() {
            match r.vals {
                None => {
                    let _ = write!(line, " {}:1", j + 1);
                }
                Some(v) => {
                    let _ = write!(line, " {}:{}", j + 1, v[k]);
                }
            }
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Builds a binary matrix from rows given as 0-based id lists (for tests and tools).
pub fn binary_rows(rows: &[Vec<u32>], n_cols: usize) -> BinaryMatrix {
    let mut b = MatrixBuilder::default();
    for r in rows {
        b.push_unsorted(&mut r.clone());
    }
    b.finish(n_cols)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<SvmData> {
        parse_svmlight(s.as_bytes(), Path::new("t.svm"))
    }

    #[test]
    fn binary_file_with_blank_lines_and_comments() {
        let d = parse("+1 3:1 1:1 # first\n\n# only a comment\n-1 2:1 qid:4\n-1\n").unwrap();
        assert_eq!(d.labels, ["1", "-1", "-1"]);
        assert_eq!(d.lines, [1, 4, 5]);
        let Rows::Binary(m) = &d.rows else { panic!("expected binary rows") };
        assert_eq!(m.row(0).ids, &[0, 2]);
        assert_eq!(m.row(1).ids, &[1]);
        assert!(m.row(2).ids.is_empty());
        assert_eq!(m.cols(), 3);
    }

    #[test]
    fn real_values_and_round_trip() {
        let d = parse("2 1:0.5 4:-2\n0 2:1\n").unwrap();
        let Rows::Real(m) = &d.rows else { panic!("expected real rows") };
        assert_eq!(m.row(0).vals.unwrap(), &[0.5, -2.0]);
        let mut out = Vec::new();
        write_svmlight(m, &d.labels, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "2 1:0.5 4:-2\n0 2:1\n");
    }

    #[test]
    fn bad_lines_name_the_line() {
        for (text, msg) in [
            ("1 1:1\n1 0:1\n", ":2: bad feature id \"0\""),
            ("1 1:1\n1 a:1\n", ":2: bad feature id"),
            ("1 1:x\n", ":1: bad value"),
            ("1 2:1 2:1\n", ":1: feature id 2 appears twice"),
            ("1:1 2:1\n", ":1: expected a label first"),
            ("1 7\n", ":1: expected id:value"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with("t.svm") && e.contains(msg), "{text:?}: {e}");
        }
    }
}
