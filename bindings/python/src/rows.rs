//! scipy CSR arrays as rows the learners read.
//!
//! The learners read feature ids as `u32`, row offsets as `usize` and values as `f32`,
//! and their inner loops read ids and offsets without bounds checks, so those two arrays
//! are copied (one pass each, checked as they are copied): the interpreter's lock is
//! released while the library works, and another Python thread changing an array it
//! reads in place must not make it read out of bounds. Values of dtype float32 are read
//! where they lie (a change by another thread meanwhile can only change the result);
//! float64 values are narrowed to `f32`; values that are all 1 are not read at all, and
//! the rows take the learners' binary path.

use numpy::{PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rosenblatt::SparseRows;
use rosenblatt::features::{CsrView, RowRef};
use std::borrow::Cow;

/// The largest value a row may hold.
const MAX_VALUE: f32 = 1e18;

/// An integer array of either dtype scipy uses for CSR structure.
pub enum Ints<'py> {
    /// int32, scipy's default.
    I32(PyReadonlyArray1<'py, i32>),
    /// int64, for matrices past 2^31 nonzeros or made so.
    I64(PyReadonlyArray1<'py, i64>),
}

/// A value array of either float dtype.
pub enum Floats<'py> {
    /// float32: read in place.
    F32(PyReadonlyArray1<'py, f32>),
    /// float64: narrowed.
    F64(PyReadonlyArray1<'py, f64>),
}

fn contiguous<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray1<'_, T>,
    what: &str,
) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{what} must be a contiguous array")))
}

impl<'py> Ints<'py> {
    /// The array `ob`, which must be a 1-D int32 or int64 NumPy array.
    pub fn extract(ob: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        if let Ok(a) = ob.extract::<PyReadonlyArray1<'py, i32>>() {
            return Ok(Ints::I32(a));
        }
        if let Ok(a) = ob.extract::<PyReadonlyArray1<'py, i64>>() {
            return Ok(Ints::I64(a));
        }
        Err(PyValueError::new_err(format!(
            "{what} must be a 1-D int32 or int64 array"
        )))
    }

    fn len(&self) -> usize {
        match self {
            Ints::I32(a) => a.len(),
            Ints::I64(a) => a.len(),
        }
    }

    /// The values as feature ids (a copy), each checked to lie in `0..n_cols`.
    fn ids(&self, n_cols: usize) -> PyResult<Vec<u32>> {
        let id = |v: i64| {
            u32::try_from(v)
                .ok()
                .filter(|&j| (j as usize) < n_cols)
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "feature index {v} is outside 0..{n_cols} (the matrix has {n_cols} \
                         columns)"
                    ))
                })
        };
        let ids = match self {
            Ints::I32(a) => contiguous(a, "indices")?
                .iter()
                .map(|&v| id(i64::from(v)))
                .collect::<PyResult<Vec<u32>>>()?,
            Ints::I64(a) => contiguous(a, "indices")?
                .iter()
                .map(|&v| id(v))
                .collect::<PyResult<Vec<u32>>>()?,
        };
        Ok(ids)
    }

    /// The values as row offsets (negative ones refused).
    fn offsets(&self) -> PyResult<Vec<usize>> {
        let bad = |v: i64| PyValueError::new_err(format!("indptr holds a negative offset {v}"));
        match self {
            Ints::I32(a) => contiguous(a, "indptr")?
                .iter()
                .map(|&v| usize::try_from(v).map_err(|_| bad(i64::from(v))))
                .collect(),
            Ints::I64(a) => contiguous(a, "indptr")?
                .iter()
                .map(|&v| usize::try_from(v).map_err(|_| bad(v)))
                .collect(),
        }
    }
}

impl<'py> Floats<'py> {
    fn len(&self) -> usize {
        match self {
            Floats::F32(a) => a.len(),
            Floats::F64(a) => a.len(),
        }
    }

    /// The array `ob`, which must be a 1-D float32 or float64 NumPy array.
    pub fn extract(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(a) = ob.extract::<PyReadonlyArray1<'py, f32>>() {
            return Ok(Floats::F32(a));
        }
        if let Ok(a) = ob.extract::<PyReadonlyArray1<'py, f64>>() {
            return Ok(Floats::F64(a));
        }
        Err(PyValueError::new_err(
            "data must be a 1-D float32 or float64 array",
        ))
    }

    /// The values as `f32`; `None` when every one is 1 (binary rows).
    fn values(&self) -> PyResult<Option<Cow<'_, [f32]>>> {
        // Beyond 1e18 a product of a value and a weight leaves float32's range.
        let finite = |ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(PyValueError::new_err(
                    "Input X contains NaN, infinity or a value beyond ±1e18, which the \
                     learners' float32 arithmetic cannot hold: scale X",
                ))
            }
        };
        let fits = |v: f32| v.is_finite() && v.abs() <= MAX_VALUE;
        match self {
            Floats::F32(a) => {
                let s = contiguous(a, "data")?;
                finite(s.iter().all(|&v| fits(v)))?;
                Ok((!s.iter().all(|&v| v == 1.0)).then_some(Cow::Borrowed(s)))
            }
            Floats::F64(a) => {
                let s = contiguous(a, "data")?;
                if s.iter().all(|&v| v == 1.0) {
                    return Ok(None);
                }
                let v: Vec<f32> = s.iter().map(|&v| v as f32).collect();
                finite(v.iter().all(|&v| fits(v)))?;
                Ok(Some(Cow::Owned(v)))
            }
        }
    }
}

/// The three arrays of a CSR matrix and its width, as handed over from Python.
pub struct Arrays<'py> {
    indptr: Ints<'py>,
    indices: Ints<'py>,
    data: Floats<'py>,
    n_cols: usize,
}

impl<'py> Arrays<'py> {
    /// The arrays of a scipy CSR matrix (`X.indptr`, `X.indices`, `X.data`, `X.shape[1]`).
    pub fn extract(
        indptr: &Bound<'py, PyAny>,
        indices: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        n_cols: usize,
    ) -> PyResult<Self> {
        Ok(Arrays {
            indptr: Ints::extract(indptr, "indptr")?,
            indices: Ints::extract(indices, "indices")?,
            data: Floats::extract(data)?,
            n_cols,
        })
    }

    /// The rows, checked: offsets from 0 to the number of nonzeros, never decreasing;
    /// ids within the width, sorted and unique in each row; finite values.
    pub fn rows(&self) -> PyResult<Rows<'_>> {
        let indptr = self.indptr.offsets()?;
        let indices = self.indices.ids(self.n_cols)?;
        let vals = self.data.values()?;
        let nnz = indices.len();
        if indptr.is_empty() || indptr[0] != 0 || indptr[indptr.len() - 1] != nnz {
            return Err(PyValueError::new_err(format!(
                "indptr must run from 0 to the number of nonzeros ({nnz}); got {} offsets \
                 from {:?} to {:?}",
                indptr.len(),
                indptr.first(),
                indptr.last()
            )));
        }
        if self.data.len() != nnz || self.indices.len() != nnz {
            return Err(PyValueError::new_err(format!(
                "data has {} values but indices {} ids",
                self.data.len(),
                nnz
            )));
        }
        for w in indptr.windows(2) {
            if w[0] > w[1] {
                return Err(PyValueError::new_err("indptr decreases"));
            }
            if indices[w[0]..w[1]].windows(2).any(|p| p[0] >= p[1]) {
                return Err(PyValueError::new_err(
                    "the column indices of a row must be sorted and unique \
                     (scipy: X.sum_duplicates() makes them so)",
                ));
            }
        }
        Ok(Rows {
            indptr,
            indices,
            vals,
            n_cols: self.n_cols,
        })
    }
}

/// Checked CSR rows: offsets and ids copied, values borrowed from NumPy or converted.
pub struct Rows<'a> {
    indptr: Vec<usize>,
    indices: Vec<u32>,
    vals: Option<Cow<'a, [f32]>>,
    n_cols: usize,
}

impl SparseRows for Rows<'_> {
    fn n_rows(&self) -> usize {
        self.indptr.len() - 1
    }
    fn n_cols(&self) -> usize {
        self.n_cols
    }
    fn row(&self, i: usize) -> RowRef<'_> {
        let (a, b) = (self.indptr[i], self.indptr[i + 1]);
        RowRef::stored(&self.indices[a..b], self.vals.as_deref().map(|v| &v[a..b]))
    }
    fn nnz(&self) -> usize {
        self.indices.len()
    }
    fn csr(&self) -> Option<CsrView<'_>> {
        Some(CsrView::new(
            &self.indptr,
            &self.indices,
            self.vals.as_deref(),
            self.n_cols,
        ))
    }
}
