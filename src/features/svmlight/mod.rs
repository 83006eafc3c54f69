//! SVMlight / libsvm files: `<label> <id>:<value> … [# comment]`, the interchange format
//! of LIBLINEAR, Vowpal Wabbit and scikit-learn. Feature ids are 1-based in the file and
//! 0-based everywhere else; this module is the only place that knows.
//!
//! Labels are kept as strings, with numeric ones normalized (`+1` → `1`, `1.0` → `1`), so
//! ±1, 0/1 and multiclass files all work. Blank lines and `#` comments are skipped; `qid:`
//! tokens are ignored; a malformed line is an error naming the file and line. Files whose
//! values are all 1 load as a [`BinaryMatrix`]; others as a [`RealMatrix`].

mod chunks;
mod labels;
mod write;

pub use chunks::{SvmChunk, SvmChunks};
pub use labels::{class_labels, classes_of_labels};
pub use write::{write_svmlight, write_svmlight_with};

use crate::features::{BinaryMatrix, RealMatrix, SparseRows};
use crate::{Error, Result};
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

/// The labels of a file seen so far, for the check that a file holding both +1 and -1
/// rows has no other label: in a two-class file such a row would silently become a third
/// class.
#[derive(Debug, Default)]
pub(crate) struct TwoClass {
    has_pos: bool,
    has_neg: bool,
    /// The first label outside {+1, -1} and its line.
    other: Option<(String, usize)>,
}

impl TwoClass {
    /// Records the (normalized) label of the row on line `line`.
    pub(crate) fn see(&mut self, label: &str, line: usize) {
        match label {
            "1" => self.has_pos = true,
            "-1" => self.has_neg = true,
            _ if self.other.is_none() => self.other = Some((label.to_string(), line)),
            _ => {}
        }
    }

    /// Refuses the file at `path` once all of its rows are seen, naming its first label
    /// outside {+1, -1} when it holds both +1 and -1 rows.
    pub(crate) fn check(&self, path: &Path) -> Result<()> {
        match &self.other {
            Some((label, line)) if self.has_pos && self.has_neg => Err(Error::parse(
                path,
                Some(*line),
                format!("the label {label:?} is outside the file's two classes +1 and -1"),
            )),
            _ => Ok(()),
        }
    }
}

pub(crate) fn normalize_label(s: &str) -> String {
    match s.parse::<f64>() {
        Ok(v) if v.fract() == 0.0 && v.abs() < 1e15 => format!("{}", v as i64),
        _ => s.to_string(),
    }
}

/// The largest feature id read by default: 2²⁴ = 16,777,216 features. Rows are sized
/// by their largest id (a learner keeps a weight per feature), so one stray id must not
/// ask for gigabytes; `parse_svmlight_limited` takes another limit.
pub const DEFAULT_MAX_FEATURE_ID: u32 = 1 << 24;

/// What a feature id token holds.
enum Id {
    /// A 1-based id that fits the file format's `u32`.
    Valid(u32),
    /// All digits, but above 2³² − 1.
    TooLarge,
    /// Not a number at all, or 0.
    Bad,
}

fn parse_id(tok: &[u8]) -> Id {
    if tok.is_empty() || !tok.iter().all(u8::is_ascii_digit) {
        return Id::Bad;
    }
    let mut v: u64 = 0;
    for &c in tok {
        v = v.saturating_mul(10).saturating_add(u64::from(c - b'0'));
    }
    match u32::try_from(v) {
        Ok(0) => Id::Bad,
        Ok(v) => Id::Valid(v),
        Err(_) => Id::TooLarge,
    }
}

/// Parses SVMlight bytes with ids up to [`DEFAULT_MAX_FEATURE_ID`]; `path` names the
/// file in errors.
pub fn parse_svmlight(bytes: &[u8], path: &Path) -> Result<SvmData> {
    parse_svmlight_limited(bytes, path, DEFAULT_MAX_FEATURE_ID)
}

/// Parses SVMlight bytes whose feature ids are at most `max_id`; a larger id is an error
/// naming its line and the limit, before anything is sized by it.
/// `limit` is a number of features: ids run from 1 to `limit`.
pub(crate) fn parse_svmlight_limited(bytes: &[u8], path: &Path, limit: u32) -> Result<SvmData> {
    let mut b = RowsBuilder::with_capacity(bytes.len() / 6);
    let mut two = TwoClass::default();
    let mut row: Vec<(u32, f32)> = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = n + 1;
        let Some(label) = parse_line(line, line_no, path, limit, &mut row)? else {
            continue;
        };
        two.see(&label, line_no);
        b.push(label, line_no, &row);
    }
    two.check(path)?;
    let binary = b.binary;
    Ok(b.finish(binary))
}

/// One line of an SVMlight file (numbered `line_no`, of the file `path`, named in
/// errors): its normalized label, with its nonzeros in `row` (0-based ids, sorted), or
/// `None` for a blank or comment line.
pub(crate) fn parse_line(
    line: &[u8],
    line_no: usize,
    path: &Path,
    limit: u32,
    row: &mut Vec<(u32, f32)>,
) -> Result<Option<String>> {
    let line = match line.iter().position(|&b| b == b'#') {
        Some(p) => &line[..p],
        None => line,
    };
    let mut toks = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty());
    let Some(label) = toks.next() else {
        return Ok(None);
    };
    let err = |m: String| Error::parse(path, Some(line_no), m);
    let label = std::str::from_utf8(label).map_err(|_| err("label is not UTF-8".into()))?;
    if label.contains(':') {
        return Err(err(format!("expected a label first, found {label:?}")));
    }
    row.clear();
    for t in toks {
        let colon = t.iter().position(|&b| b == b':').ok_or_else(|| {
            err(format!(
                "expected id:value, found {:?}",
                String::from_utf8_lossy(t)
            ))
        })?;
        let (id, val) = (&t[..colon], &t[colon + 1..]);
        if id == b"qid" {
            continue;
        }
        let id = match parse_id(id) {
            Id::Valid(i) if i <= limit => i,
            Id::Valid(i) => return Err(err(above_limit(i, limit))),
            Id::TooLarge => {
                return Err(err(format!(
                    "feature id {} is beyond the largest id SVMlight files may hold, \
                     {} (2^32 - 1)",
                    String::from_utf8_lossy(id),
                    u32::MAX
                )));
            }
            Id::Bad => {
                return Err(err(format!(
                    "bad feature id {:?} (ids start at 1)",
                    String::from_utf8_lossy(id)
                )));
            }
        };
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
            row.push((id - 1, v));
        }
    }
    if !label.parse::<f64>().is_ok_and(f64::is_finite) {
        return Err(err(format!("the label {label:?} is not a number")));
    }
    if !row.windows(2).all(|w| w[0].0 < w[1].0) {
        row.sort_unstable_by_key(|p| p.0);
        if let Some(w) = row.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(err(format!("feature id {} appears twice", w[0].0 + 1)));
        }
    }
    Ok(Some(normalize_label(label)))
}

/// Rows being gathered into an [`SvmData`].
#[derive(Debug)]
pub(crate) struct RowsBuilder {
    labels: Vec<String>,
    lines: Vec<usize>,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f32>,
    /// Whether every value so far is 1.
    pub(crate) binary: bool,
    max_id: u64,
}

impl RowsBuilder {
    /// An empty set of rows, room reserved for `nnz` nonzeros.
    pub(crate) fn with_capacity(nnz: usize) -> RowsBuilder {
        RowsBuilder {
            labels: Vec::new(),
            lines: Vec::new(),
            indptr: vec![0],
            indices: Vec::with_capacity(nnz),
            values: Vec::with_capacity(nnz),
            binary: true,
            max_id: 0,
        }
    }

    /// Adds the row of line `line_no`: its label and its sorted nonzeros.
    pub(crate) fn push(&mut self, label: String, line_no: usize, row: &[(u32, f32)]) {
        self.binary &= row.iter().all(|p| p.1 == 1.0);
        if let Some(&(last, _)) = row.last() {
            self.max_id = self.max_id.max(u64::from(last) + 1);
        }
        self.indices.extend(row.iter().map(|p| p.0));
        self.values.extend(row.iter().map(|p| p.1));
        self.indptr.push(self.indices.len());
        self.labels.push(label);
        self.lines.push(line_no);
    }

    /// The rows read so far.
    pub(crate) fn len(&self) -> usize {
        self.labels.len()
    }

    /// The rows gathered, binary when `binary` (every value must then be 1), real
    /// otherwise; as many columns as the largest id needs.
    pub(crate) fn finish(self, binary: bool) -> SvmData {
        debug_assert!(!binary || self.binary);
        let shape = (self.labels.len(), self.max_id as usize);
        let rows = if binary {
            let nnz = self.indices.len();
            Rows::Binary(BinaryMatrix::new(
                shape,
                self.indptr,
                self.indices,
                vec![(); nnz],
            ))
        } else {
            Rows::Real(RealMatrix::new(
                shape,
                self.indptr,
                self.indices,
                self.values,
            ))
        };
        SvmData {
            labels: self.labels,
            rows,
            lines: self.lines,
        }
    }
}

/// The sentence for an id above the limit.
fn above_limit(id: u32, max_id: u32) -> String {
    format!(
        "feature id {id} is above the limit of {max_id} features (memory grows with the \
         largest id); if the file really has that many, raise the limit with \
         --max-feature-id N"
    )
}

/// Reads an SVMlight file with ids up to [`DEFAULT_MAX_FEATURE_ID`].
pub fn read_svmlight(path: &Path) -> Result<SvmData> {
    read_svmlight_limited(path, DEFAULT_MAX_FEATURE_ID)
}

/// Reads an SVMlight file whose feature ids are at most `max_id`.
pub fn read_svmlight_limited(path: &Path, max_id: u32) -> Result<SvmData> {
    let bytes = crate::input::limit::read_corpus_file(path)?;
    parse_svmlight_limited(&bytes, path, max_id)
}

/// How a feature id is shown to users of indexed models: its 1-based SVMlight id.
pub fn feature_name(id: u32) -> String {
    (u64::from(id) + 1).to_string()
}

impl Rows {
    #[cfg(test)]
    /// Rows `idx`, in that order (for splits and folds).
    pub(crate) fn select(&self, idx: &[usize]) -> Rows {
        match self {
            Rows::Binary(m) => Rows::Binary(crate::features::select_rows(m, idx)),
            Rows::Real(m) => {
                let mut indptr = Vec::with_capacity(idx.len() + 1);
                indptr.push(0);
                let (mut ids, mut vals) = (Vec::new(), Vec::new());
                for &i in idx {
                    let r = m.row(i);
                    ids.extend_from_slice(r.ids);
                    vals.extend_from_slice(r.vals.unwrap_or(&[]));
                    indptr.push(ids.len());
                }
                Rows::Real(RealMatrix::new((idx.len(), m.cols()), indptr, ids, vals))
            }
        }
    }

    /// Real-valued rows (binary rows get value 1), for joining with real files.
    fn into_real(self) -> RealMatrix {
        match self {
            Rows::Real(m) => m,
            Rows::Binary(m) => {
                let shape = (m.rows(), m.cols());
                let (indptr, indices, _) = m.into_raw_storage();
                let n = indices.len();
                RealMatrix::new(shape, indptr, indices, vec![1.0; n])
            }
        }
    }

    /// The number of features (columns).
    pub(crate) fn n_cols(&self) -> usize {
        match self {
            Rows::Binary(m) => m.cols(),
            Rows::Real(m) => m.cols(),
        }
    }
}

/// Several SVMlight files read as one, in order, ids up to [`DEFAULT_MAX_FEATURE_ID`].
/// Row `lines` stay per file; the returned ids name each row (`LINE`, or `FILE:LINE`
/// with several files).
#[cfg(test)]
pub(crate) fn read_svmlight_files(paths: &[std::path::PathBuf]) -> Result<(SvmData, Vec<String>)> {
    read_svmlight_files_limited(paths, DEFAULT_MAX_FEATURE_ID)
}

/// Several SVMlight files read as one, in order, ids up to `max_id`. Row `lines` stay per
/// file; the returned ids name each row (`LINE`, or `FILE:LINE` with several files).
pub fn read_svmlight_files_limited(
    paths: &[std::path::PathBuf],
    max_id: u32,
) -> Result<(SvmData, Vec<String>)> {
    let mut parts = Vec::with_capacity(paths.len());
    for p in paths {
        parts.push(read_svmlight_limited(p, max_id)?);
    }
    let mut ids = Vec::new();
    for (p, d) in paths.iter().zip(&parts) {
        ids.extend(d.lines.iter().map(|l| {
            if paths.len() > 1 {
                format!("{}:{l}", p.display())
            } else {
                l.to_string()
            }
        }));
    }
    if parts.len() == 1 {
        return Ok((parts.pop().unwrap(), ids));
    }
    let binary = parts.iter().all(|d| matches!(d.rows, Rows::Binary(_)));
    let n_cols = parts.iter().map(|d| d.rows.n_cols()).max().unwrap_or(0);
    let (mut labels, mut lines) = (Vec::new(), Vec::new());
    let mut indptr = vec![0usize];
    let (mut indices, mut values) = (Vec::new(), Vec::new());
    for d in parts {
        labels.extend(d.labels);
        lines.extend(d.lines);
        let (p, i, v) = if binary {
            let Rows::Binary(m) = d.rows else {
                unreachable!()
            };
            let (p, i, _) = m.into_raw_storage();
            (p, i, Vec::new())
        } else {
            d.rows.into_real().into_raw_storage()
        };
        let base = indices.len();
        indptr.extend(p[1..].iter().map(|&o| o + base));
        indices.extend(i);
        values.extend(v);
    }
    let shape = (labels.len(), n_cols);
    let rows = if binary {
        let nnz = indices.len();
        Rows::Binary(BinaryMatrix::new(shape, indptr, indices, vec![(); nnz]))
    } else {
        Rows::Real(RealMatrix::new(shape, indptr, indices, values))
    };
    Ok((
        SvmData {
            labels,
            rows,
            lines,
        },
        ids,
    ))
}

#[cfg(test)]
mod tests;
