//! [`CsrView`]: the raw CSR arrays of a binary or real matrix behind a checked boundary,
//! so the learners' inner loops run without per-element bounds checks.
//!
//! The invariants (indptr non-decreasing from 0 to nnz, every id below `n_cols`) are
//! checked once when the view is made; `dot` and `axpy` then check only that the weight
//! vector covers `n_cols`, once per call, and index without further checks.
//!
//! A view may instead show chosen rows of its arrays through a list of row spans (row `i`
//! of the view is `indices[start_i..end_i]`): how a [`RowSubset`](super::RowSubset) — a
//! fold, a held-out part — keeps the fast path without copying rows. Reading a row costs
//! the same as in a full matrix (one span lookup where a full matrix reads two indptr
//! entries), so a learner's randomly ordered passes touch no more memory than on a copy.

use super::RowRef;
use super::ops;

/// Borrowed CSR rows with validated structure.
#[derive(Debug, Clone, Copy)]
pub struct CsrView<'a> {
    indptr: &'a [usize],
    indices: &'a [u32],
    vals: Option<&'a [f32]>,
    n_cols: usize,
    /// `(start, end)` into `indices` of each row, when the view shows chosen rows.
    spans: Option<&'a [(usize, usize)]>,
    /// Per-feature weights (length ≥ `n_cols`), when the rows are read weighted.
    feature_weights: Option<&'a [f32]>,
    /// One scale per row of the view, when the rows are read scaled.
    scales: Option<&'a [f32]>,
}

impl<'a> CsrView<'a> {
    /// Validates and wraps raw CSR arrays; panics on a broken structure (a bug, not input:
    /// every matrix is validated by sprs when built).
    pub fn new(
        indptr: &'a [usize],
        indices: &'a [u32],
        vals: Option<&'a [f32]>,
        n_cols: usize,
    ) -> Self {
        assert!(!indptr.is_empty() && indptr[0] == 0 && indptr[indptr.len() - 1] == indices.len());
        assert!(indptr.windows(2).all(|w| w[0] <= w[1]));
        assert!(vals.is_none_or(|v| v.len() == indices.len()));
        assert!(
            ops::ids_below(indices, n_cols),
            "feature id beyond the matrix width"
        );
        // SAFETY: the invariants were checked just above.
        unsafe { Self::trusted(indptr, indices, vals, n_cols) }
    }

    /// Wraps arrays without checking them, for callers that just did.
    ///
    /// # Safety
    /// The arrays must satisfy the invariants [`CsrView::new`] checks.
    pub(crate) unsafe fn trusted(
        indptr: &'a [usize],
        indices: &'a [u32],
        vals: Option<&'a [f32]>,
        n_cols: usize,
    ) -> Self {
        debug_assert!(ops::ids_below(indices, n_cols));
        CsrView {
            indptr,
            indices,
            vals,
            n_cols,
            spans: None,
            feature_weights: None,
            scales: None,
        }
    }

    /// The same rows read through per-feature weights and one scale per row of this
    /// view (a [`Weighted`](super::Weighted) geometry); panics when the weights do not
    /// cover every column or the scales every row.
    pub(crate) fn weighted<'b>(
        self,
        feature_weights: Option<&'b [f32]>,
        scales: Option<&'b [f32]>,
    ) -> CsrView<'b>
    where
        'a: 'b,
    {
        assert!(feature_weights.is_none_or(|f| f.len() >= self.n_cols));
        assert!(scales.is_none_or(|s| s.len() == self.n_rows()));
        CsrView {
            feature_weights,
            scales,
            ..self
        }
    }

    /// The row scales of this view, when it has them (one per row).
    pub(crate) fn scales(&self) -> Option<&'a [f32]> {
        self.scales
    }

    /// The same arrays showing, as row `i`, the stored stretch `spans[i]` — spans taken
    /// from this view or one made from the same arrays ([`CsrView::span`]) — scaled by
    /// `scales[i]` when the rows are read scaled (the feature weights stay).
    ///
    /// # Safety
    /// Every span must satisfy `start ≤ end ≤ nnz` of these arrays.
    pub(crate) unsafe fn with_spans<'b>(
        self,
        spans: &'b [(usize, usize)],
        scales: Option<&'b [f32]>,
    ) -> CsrView<'b>
    where
        'a: 'b,
    {
        debug_assert!(
            spans
                .iter()
                .all(|&(s, e)| s <= e && e <= self.indices.len())
        );
        assert!(scales.is_none_or(|s| s.len() == spans.len()));
        CsrView {
            spans: Some(spans),
            scales,
            ..self
        }
    }

    /// Where row `i` lies in the arrays: `(start, end)` into the ids (panics when `i` is
    /// out of range).
    #[inline]
    pub(crate) fn span(&self, i: usize) -> (usize, usize) {
        match self.spans {
            Some(sp) => sp[i],
            None => (self.indptr[i], self.indptr[i + 1]),
        }
    }

    /// Number of rows.
    #[inline]
    pub(crate) fn n_rows(&self) -> usize {
        match self.spans {
            Some(sp) => sp.len(),
            None => self.indptr.len() - 1,
        }
    }

    /// Row `i` (panics when `i` is out of range).
    #[inline]
    pub fn row(&self, i: usize) -> RowRef<'a> {
        let (s, e) = self.span(i);
        // SAFETY: the constructor checked indptr is non-decreasing and ends at nnz, and
        // spans are made from such an indptr (`with_spans`).
        unsafe {
            RowRef {
                ids: self.indices.get_unchecked(s..e),
                vals: self.vals.map(|v| v.get_unchecked(s..e)),
                feature_weights: self.feature_weights,
                scale: self.scales.map_or(1.0, |sc| sc[i]),
            }
        }
    }

    /// `w · xᵢ`.
    #[inline]
    pub(crate) fn dot(&self, i: usize, w: &[f32]) -> f32 {
        assert!(w.len() >= self.n_cols);
        let r = self.row(i);
        // SAFETY (every arm): ids < n_cols ≤ w.len() (checked in `new` and above), and
        // feature weights cover n_cols (checked in `weighted`).
        let s = match (r.vals, r.feature_weights) {
            (None, None) => unsafe { ops::dot_binary_unchecked(w, r.ids) },
            (None, Some(f)) => r
                .ids
                .iter()
                .map(|&j| unsafe { *w.get_unchecked(j as usize) * *f.get_unchecked(j as usize) })
                .sum(),
            (Some(v), None) => r
                .ids
                .iter()
                .zip(v)
                .map(|(&j, &v)| unsafe { *w.get_unchecked(j as usize) } * v)
                .sum(),
            (Some(v), Some(f)) => r
                .ids
                .iter()
                .zip(v)
                .map(|(&j, &v)| unsafe {
                    *w.get_unchecked(j as usize) * v * *f.get_unchecked(j as usize)
                })
                .sum(),
        };
        r.scale * s
    }

    /// `w ← w + a·xᵢ`.
    #[inline]
    pub(crate) fn axpy(&self, i: usize, a: f32, w: &mut [f32]) {
        assert!(w.len() >= self.n_cols);
        let r = self.row(i);
        let a = a * r.scale;
        // SAFETY (every arm): ids < n_cols ≤ w.len() (checked in `new` and above), and
        // feature weights cover n_cols (checked in `weighted`).
        match (r.vals, r.feature_weights) {
            (None, None) => unsafe { ops::axpy_binary_unchecked(a, r.ids, w) },
            (None, Some(f)) => {
                for &j in r.ids {
                    unsafe { *w.get_unchecked_mut(j as usize) += a * *f.get_unchecked(j as usize) };
                }
            }
            (Some(v), None) => {
                for (&j, &v) in r.ids.iter().zip(v) {
                    unsafe { *w.get_unchecked_mut(j as usize) += a * v };
                }
            }
            (Some(v), Some(f)) => {
                for (&j, &v) in r.ids.iter().zip(v) {
                    unsafe {
                        *w.get_unchecked_mut(j as usize) += a * v * *f.get_unchecked(j as usize)
                    };
                }
            }
        }
    }

    /// `‖xᵢ‖²`.
    #[inline]
    pub(crate) fn nrm2_sq(&self, i: usize) -> f32 {
        ops::nrm2_sq(self.row(i))
    }
}

/// Row arithmetic a learner needs, implemented by the fast [`CsrView`] and by
/// [`GenericRows`] for any [`SparseRows`](super::SparseRows); learners write their loop
/// once, generic over this, and pick the implementation with [`with_rows`].
pub(crate) trait RowAccess: Sync {
    /// Number of rows.
    fn n_rows(&self) -> usize;
    /// `w · xᵢ`.
    fn dot(&self, i: usize, w: &[f32]) -> f32;
    /// `w ← w + a·xᵢ`.
    fn axpy(&self, i: usize, a: f32, w: &mut [f32]);
    /// `‖xᵢ‖²`.
    fn nrm2_sq(&self, i: usize) -> f32;
    /// Row `i`.
    fn row_ref(&self, i: usize) -> RowRef<'_>;
    /// Hints that row `i` is visited next, so a shuffled pass need not wait for memory.
    #[inline]
    fn prefetch(&self, _i: usize) {}
}

impl RowAccess for CsrView<'_> {
    #[inline]
    fn n_rows(&self) -> usize {
        CsrView::n_rows(self)
    }
    #[inline]
    fn dot(&self, i: usize, w: &[f32]) -> f32 {
        CsrView::dot(self, i, w)
    }
    #[inline]
    fn axpy(&self, i: usize, a: f32, w: &mut [f32]) {
        CsrView::axpy(self, i, a, w)
    }
    #[inline]
    fn nrm2_sq(&self, i: usize) -> f32 {
        CsrView::nrm2_sq(self, i)
    }
    #[inline]
    fn row_ref(&self, i: usize) -> RowRef<'_> {
        self.row(i)
    }
    #[inline]
    fn prefetch(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let ids = self.row(i).ids;
            // The first 256 bytes of the row's ids (64 ids), a cache line at a time.
            for off in (0..ids.len().min(64)).step_by(16) {
                // SAFETY: a prefetch never faults, and `off` is inside the row.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(ids.as_ptr().add(off).cast()) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }
}

/// [`RowAccess`] through [`SparseRows::row`](super::SparseRows::row) and the checked ops.
pub(crate) struct GenericRows<'a, X>(pub &'a X);

impl<X: super::SparseRows> RowAccess for GenericRows<'_, X> {
    fn n_rows(&self) -> usize {
        self.0.n_rows()
    }
    #[inline]
    fn dot(&self, i: usize, w: &[f32]) -> f32 {
        ops::dot(w, self.0.row(i))
    }
    #[inline]
    fn axpy(&self, i: usize, a: f32, w: &mut [f32]) {
        ops::axpy(a, self.0.row(i), w)
    }
    #[inline]
    fn nrm2_sq(&self, i: usize) -> f32 {
        ops::nrm2_sq(self.0.row(i))
    }
    #[inline]
    fn row_ref(&self, i: usize) -> RowRef<'_> {
        self.0.row(i)
    }
}

/// Something to run over rows, whatever their access path (a generic closure).
pub(crate) trait RowTask {
    /// What the task returns.
    type Output;
    /// Runs the task.
    fn run<A: RowAccess>(self, rows: &A) -> Self::Output;
}

/// Runs `task` over `x`'s fast [`CsrView`] when it has one, else over [`GenericRows`].
pub(crate) fn with_rows<X: super::SparseRows, T: RowTask>(x: &X, task: T) -> T::Output {
    match x.csr() {
        Some(v) => task.run(&v),
        None => task.run(&GenericRows(x)),
    }
}
