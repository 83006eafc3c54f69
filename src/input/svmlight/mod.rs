//! SVMlight / libsvm files: `<label> <id>:<value> … [# comment]`, the interchange format
//! of LIBLINEAR, Vowpal Wabbit and scikit-learn. Feature ids are 1-based in the file and
//! 0-based everywhere else; this module is the only place that knows.
//!
//! Labels are kept as strings, with numeric ones normalized (`+1` → `1`, `1.0` → `1`), so
//! ±1, 0/1 and multiclass files all work. Blank lines and `#` comments are skipped; `qid:`
//! tokens are ignored; a malformed line is an error naming the file and line. Files whose
//! values are all 1 load as a [`BinaryMatrix`]; others as a [`RealMatrix`].

mod write;

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

/// Refuses a label outside {+1, -1} in a file that holds both +1 and -1 rows: in a
/// two-class file such a row would silently become a third class.
fn check_two_class(labels: &[String], lines: &[usize], path: &Path) -> Result<()> {
    let pm = |l: &str| l == "1" || l == "-1";
    let (has_pos, has_neg) = (
        labels.iter().any(|l| l == "1"),
        labels.iter().any(|l| l == "-1"),
    );
    if let Some(i) = labels.iter().position(|l| !pm(l))
        && has_pos
        && has_neg
    {
        return Err(Error::parse(
            path,
            Some(lines[i]),
            format!(
                "the label {:?} is outside the file's two classes +1 and -1",
                labels[i]
            ),
        ));
    }
    Ok(())
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
        let mut toks = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty());
        let Some(label) = toks.next() else { continue };
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
            let id = parse_id(id).filter(|&i| i >= 1).ok_or_else(|| {
                err(format!(
                    "bad feature id {:?} (ids start at 1)",
                    String::from_utf8_lossy(id)
                ))
            })?;
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
        if !label.parse::<f64>().is_ok_and(f64::is_finite) {
            return Err(err(format!("the label {label:?} is not a number")));
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
    check_two_class(&labels, &lines, path)?;
    let shape = (labels.len(), max_id as usize);
    let rows = if binary {
        let nnz = indices.len();
        Rows::Binary(BinaryMatrix::new(shape, indptr, indices, vec![(); nnz]))
    } else {
        Rows::Real(RealMatrix::new(shape, indptr, indices, values))
    };
    Ok(SvmData {
        labels,
        rows,
        lines,
    })
}

/// Reads an SVMlight file.
pub fn read_svmlight(path: &Path) -> Result<SvmData> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    parse_svmlight(&bytes, path)
}

/// How a feature id is shown to users of indexed models: its 1-based SVMlight id.
pub fn feature_name(id: u32) -> String {
    (u64::from(id) + 1).to_string()
}

fn numeric(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The classes of SVMlight labels, sorted numerically when all are numbers (else as
/// strings); for two classes the positive one (`positive`, else the larger) comes last,
/// as [`crate::pipeline::classes_of`] orders text classes.
pub fn classes_of_labels(labels: &[String], positive: Option<&str>) -> Result<Vec<String>> {
    let mut classes: Vec<String> = labels.to_vec();
    classes.sort_unstable();
    classes.dedup();
    if classes.iter().all(|c| numeric(c).is_some()) {
        classes.sort_by(|a, b| numeric(a).unwrap().total_cmp(&numeric(b).unwrap()));
    }
    if classes.len() < 2 {
        return Err(Error::Data(format!(
            "training needs at least two classes, found {}: {:?}",
            classes.len(),
            classes
        )));
    }
    if let Some(p) = positive {
        let p = normalize_label(p);
        let i = classes.iter().position(|c| *c == p).ok_or_else(|| {
            crate::error::ConfigError::new(
                crate::error::Param::Positive,
                &p,
                format!("must be a label of the rows ({classes:?})"),
            )
        })?;
        if classes.len() == 2 {
            classes.swap(i, 1);
        }
    }
    Ok(classes)
}

/// The SVMlight label written for each class of a corpus whose classes are `classes`
/// (ordered as [`crate::pipeline::classes_of`] orders them): `-1`/`+1` for two classes
/// (the positive one, last, is `+1`); the class names themselves when they are all
/// numbers; otherwise `1..=k` in class order — numeric labels, as LIBLINEAR, Vowpal
/// Wabbit and scikit-learn require.
pub fn class_labels(classes: &[String]) -> Vec<String> {
    if classes.len() == 2 {
        return vec!["-1".into(), "+1".into()];
    }
    if classes.iter().all(|c| numeric(c).is_some()) {
        return classes.iter().map(|c| normalize_label(c)).collect();
    }
    (1..=classes.len()).map(|i| i.to_string()).collect()
}

impl Rows {
    /// Rows `idx`, in that order (for splits and folds).
    pub fn select(&self, idx: &[usize]) -> Rows {
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
    pub fn n_cols(&self) -> usize {
        match self {
            Rows::Binary(m) => m.cols(),
            Rows::Real(m) => m.cols(),
        }
    }
}

/// Several SVMlight files read as one, in order. Row `lines` stay per file; the returned
/// ids name each row (`LINE`, or `FILE:LINE` with several files).
pub fn read_svmlight_files(paths: &[std::path::PathBuf]) -> Result<(SvmData, Vec<String>)> {
    let mut parts = Vec::with_capacity(paths.len());
    for p in paths {
        parts.push(read_svmlight(p)?);
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
