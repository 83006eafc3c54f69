//! [`RowSubset`]: some rows of a matrix, by index, as a matrix of their own — what a
//! held-out part or a cross-validation fold trains and scores on without copying a row.
//!
//! A subset of a matrix with a [`CsrView`] has one too: the same arrays with the span of
//! each chosen row, found once when the subset is made (16 bytes per row, against a
//! copy's 8 per row plus 4 per nonzero). Learners keep their unchecked fast path on folds,
//! and reading a row costs what it costs in a copy; a subset of a subset takes its spans
//! from the inner one. Rows read scaled (a [`Weighted`](super::Weighted) geometry) keep
//! their scale: the subset copies each chosen row's (4 bytes per row).

use super::{CsrView, RowRef, SparseRows};

/// Rows `idx` of a matrix, in that order, borrowed: row `i` of the subset is row
/// `idx[i]` of the matrix. Implements [`SparseRows`], so every learner fits on it.
#[derive(Debug, Clone)]
pub struct RowSubset<'a, X> {
    x: &'a X,
    idx: &'a [usize],
    /// The view of `x` the spans were read from, kept: the spans are applied to it and no
    /// other, so a `SparseRows` whose `csr()` changes between calls cannot make them
    /// point outside the arrays they index.
    view: Option<CsrView<'a>>,
    /// Where each chosen row lies in `view`'s CSR arrays, when `x` has them.
    spans: Option<Box<[(usize, usize)]>>,
    /// The scale of each chosen row, when `x`'s view reads its rows scaled.
    scales: Option<Box<[f32]>>,
    nnz: usize,
}

impl<'a, X: SparseRows> RowSubset<'a, X> {
    /// Rows `idx` of `x`. Indices may repeat (a bootstrap sample) and come in any order.
    ///
    /// # Panics
    /// When an index is not below `x.n_rows()` (a bug in the caller's split, not input).
    pub fn new(x: &'a X, idx: &'a [usize]) -> Self {
        let n = x.n_rows();
        if let Some(&bad) = idx.iter().find(|&&i| i >= n) {
            panic!("row {bad} of a subset is beyond the matrix's {n} rows");
        }
        let view = x.csr();
        let spans = view.map(|v| idx.iter().map(|&i| v.span(i)).collect());
        let scales = view
            .and_then(|v| v.scales())
            .map(|sc| idx.iter().map(|&i| sc[i]).collect());
        let nnz = idx.iter().map(|&i| x.row(i).nnz()).sum();
        RowSubset {
            x,
            idx,
            view,
            spans,
            scales,
            nnz,
        }
    }
}

impl<X: SparseRows> SparseRows for RowSubset<'_, X> {
    fn n_rows(&self) -> usize {
        self.idx.len()
    }
    fn n_cols(&self) -> usize {
        self.x.n_cols()
    }
    #[inline]
    fn row(&self, i: usize) -> RowRef<'_> {
        self.x.row(self.idx[i])
    }
    fn nnz(&self) -> usize {
        self.nnz
    }
    fn csr(&self) -> Option<CsrView<'_>> {
        let (base, spans) = (self.view?, self.spans.as_deref()?);
        // SAFETY: the spans were read from this very view in `new`.
        Some(unsafe { base.with_spans(spans, self.scales.as_deref()) })
    }
    fn check_rows(&self) -> crate::Result<()> {
        self.x.check_rows()
    }
    fn shuffle_block(&self) -> Option<usize> {
        self.x.shuffle_block()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{BinaryMatrix, MatrixBuilder, RowAccess, real_from_dense, select_rows};

    fn matrix() -> BinaryMatrix {
        let mut b = MatrixBuilder::with_capacity(4, 8);
        for r in [&[0u32, 2][..], &[1], &[], &[0, 1, 3]] {
            b.push_sorted(r);
        }
        b.finish(4)
    }

    #[test]
    fn rows_follow_the_index_and_match_a_copy() {
        let x = matrix();
        let idx = [3, 0, 3, 2];
        let sub = RowSubset::new(&x, &idx);
        let copy = select_rows(&x, &idx);
        assert_eq!((sub.n_rows(), sub.n_cols(), sub.nnz()), (4, 4, 8));
        assert_eq!(sub.nnz(), copy.nnz());
        let view = sub.csr().expect("a subset of CSR rows keeps the fast path");
        let w = [1.0, 10.0, 100.0, 1000.0];
        for i in 0..idx.len() {
            assert_eq!(sub.row(i).ids, copy.row(i).ids);
            assert_eq!(view.row(i).ids, copy.row(i).ids);
            assert_eq!(view.dot(i, &w), copy.csr().unwrap().dot(i, &w));
        }
        assert_eq!(RowAccess::n_rows(&view), 4);
    }

    #[test]
    fn a_subset_of_a_subset_composes_the_indices() {
        let x = real_from_dense(&[vec![1.0, 0.0], vec![0.0, 2.0], vec![3.0, 4.0]]);
        let outer_idx = [2, 1, 0];
        let outer = RowSubset::new(&x, &outer_idx);
        let inner_idx = [0, 2];
        let inner = RowSubset::new(&outer, &inner_idx);
        let view = inner.csr().unwrap();
        assert_eq!(view.row(0).vals, Some(&[3.0, 4.0][..]));
        assert_eq!(view.row(1).vals, Some(&[1.0][..]));
        assert_eq!(inner.row(1).ids, &[0]);
        assert_eq!(inner.nnz(), 3);
    }

    #[test]
    #[should_panic(expected = "beyond the matrix")]
    fn an_index_beyond_the_rows_is_refused() {
        let x = matrix();
        RowSubset::new(&x, &[4]);
    }
}
