//! scipy CSR arrays as rows the learners read, in place where their dtypes allow.
//!
//! The learners read feature ids as `u32`, row offsets as `usize` and values as `f32`.
//! `indices` of dtype int32 (scipy's usual choice) are read where they lie, as `u32`,
//! after one pass that checks every id is within `0..n_features`; int64 ids are copied
//! into `u32`. `indptr` of dtype int64 is read where it lies (on 64-bit machines) and
//! int32 is widened (one word per row). Values of dtype float32 are read where they lie
//! and float64 narrowed to `f32`; values that are all 1 are not read at all, and the
//! rows take the learners' binary path.
//!
//! The arrays are read while the interpreter's lock is released: like NumPy's own
//! functions that release it, they must not be changed by another thread meanwhile.

use numpy::{PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rosenblatt::SparseRows;
use rosenblatt::features::{CsrView, RowRef};
use std::borrow::Cow;

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

    /// The values as feature ids, each checked to lie in `0..n_cols`.
    fn ids(&self, n_cols: usize) -> PyResult<Cow<'_, [u32]>> {
        let bad = |v: i64| {
            PyValueError::new_err(format!(
                "feature index {v} is outside 0..{n_cols} (the matrix has {n_cols} columns)"
            ))
        };
        match self {
            Ints::I32(a) => {
                let s = contiguous(a, "indices")?;
                if let Some(&v) = s.iter().find(|&&v| v < 0 || v as usize >= n_cols) {
                    return Err(bad(i64::from(v)));
                }
                // SAFETY: i32 and u32 have the same size and alignment, and every value
                // was just checked to be non-negative, so each reads as the same number.
                let ids = unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u32>(), s.len()) };
                Ok(Cow::Borrowed(ids))
            }
            Ints::I64(a) => contiguous(a, "indices")?
                .iter()
                .map(|&v| {
                    if v < 0 || v as u64 >= n_cols as u64 || v > i64::from(u32::MAX) {
                        Err(bad(v))
                    } else {
                        Ok(v as u32)
                    }
                })
                .collect::<PyResult<Vec<u32>>>()
                .map(Cow::Owned),
        }
    }

    /// The values as row offsets (negative ones refused).
    fn offsets(&self) -> PyResult<Cow<'_, [usize]>> {
        let bad = |v: i64| PyValueError::new_err(format!("indptr holds a negative offset {v}"));
        match self {
            Ints::I32(a) => contiguous(a, "indptr")?
                .iter()
                .map(|&v| usize::try_from(v).map_err(|_| bad(i64::from(v))))
                .collect::<PyResult<Vec<usize>>>()
                .map(Cow::Owned),
            Ints::I64(a) => {
                let s = contiguous(a, "indptr")?;
                if let Some(&v) = s.iter().find(|&&v| v < 0) {
                    return Err(bad(v));
                }
                #[cfg(target_pointer_width = "64")]
                {
                    // SAFETY: on 64-bit targets usize and i64 have the same size and
                    // alignment, and every value is non-negative.
                    let s =
                        unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<usize>(), s.len()) };
                    Ok(Cow::Borrowed(s))
                }
                #[cfg(not(target_pointer_width = "64"))]
                s.iter()
                    .map(|&v| usize::try_from(v).map_err(|_| bad(v)))
                    .collect::<PyResult<Vec<usize>>>()
                    .map(Cow::Owned)
            }
        }
    }
}

impl<'py> Floats<'py> {
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
        let finite = |ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(PyValueError::new_err(
                    "Input X contains NaN or infinity (or a value too large for float32)",
                ))
            }
        };
        match self {
            Floats::F32(a) => {
                let s = contiguous(a, "data")?;
                finite(s.iter().all(|v| v.is_finite()))?;
                Ok((!s.iter().all(|&v| v == 1.0)).then_some(Cow::Borrowed(s)))
            }
            Floats::F64(a) => {
                let s = contiguous(a, "data")?;
                if s.iter().all(|&v| v == 1.0) {
                    return Ok(None);
                }
                let v: Vec<f32> = s.iter().map(|&v| v as f32).collect();
                finite(v.iter().all(|v| v.is_finite()))?;
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

impl Floats<'_> {
    fn len(&self) -> usize {
        match self {
            Floats::F32(a) => a.len(),
            Floats::F64(a) => a.len(),
        }
    }
}

/// Checked CSR rows, borrowed from NumPy arrays or converted from them.
pub struct Rows<'a> {
    indptr: Cow<'a, [usize]>,
    indices: Cow<'a, [u32]>,
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
