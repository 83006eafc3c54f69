//! `SparseRows` is a public trait that code outside the crate implements; a safe
//! implementation, however it behaves, cannot make the crate read out of bounds. Here
//! `csr()` shows a large matrix on its first call and a one-row matrix afterwards: a
//! [`RowSubset`] keeps the view it read its row spans from, so its rows are still the
//! large matrix's, and a learner fits on it.

use rosenblatt::features::{BinaryMatrix, CsrView, MatrixBuilder, RowRef, RowSubset, SparseRows};
use rosenblatt::learn::{Check, Learner, Perceptron};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Rows whose CSR view changes after the first call.
struct Shifting {
    large: BinaryMatrix,
    small: BinaryMatrix,
    calls: AtomicUsize,
}

impl SparseRows for Shifting {
    fn n_rows(&self) -> usize {
        self.large.n_rows()
    }
    fn n_cols(&self) -> usize {
        self.large.n_cols()
    }
    fn row(&self, i: usize) -> RowRef<'_> {
        self.large.row(i)
    }
    fn nnz(&self) -> usize {
        self.large.nnz()
    }
    fn csr(&self) -> Option<CsrView<'_>> {
        match self.calls.fetch_add(1, Ordering::Relaxed) {
            0 => self.large.csr(),
            _ => self.small.csr(),
        }
    }
}

fn rows(rows: &[&[u32]], n_cols: usize) -> BinaryMatrix {
    let mut b = MatrixBuilder::with_capacity(rows.len(), 16);
    for r in rows {
        b.push_sorted(r);
    }
    b.finish(n_cols)
}

#[test]
fn a_subset_reads_the_view_it_was_made_from() {
    let wide: Vec<u32> = (0..1000).collect();
    let x = Shifting {
        large: rows(&[&[1], &[2], &wide, &[3, 999]], 1000),
        small: rows(&[&[0]], 1000),
        calls: AtomicUsize::new(0),
    };
    let idx = [3, 2];
    let sub = RowSubset::new(&x, &idx);
    for _ in 0..3 {
        let view = sub.csr().expect("a subset of CSR rows has a view");
        assert_eq!(view.row(0).ids, &[3, 999]);
        assert_eq!(view.row(1).ids.len(), 1000);
    }
    let p = Perceptron::default().check().unwrap();
    let fitted = p.fit(&sub, &[1, -1]).unwrap();
    assert!(fitted.report.updates >= 1);
}
