//! Features: binary bag-of-words rows in CSR form, and the four sparse operations the
//! learners are built on.
//!
//! A [`BinaryMatrix`] stores no values at all (sprs with `()` values): 4 bytes per nonzero
//! plus 8 per row. A [`RealMatrix`] carries `f32` values for the few places that need them
//! (the seed examples over {−1, 1}^d, real-valued SVMlight files). Learners are generic over
//! [`SparseRows`], so the binary path compiles to its own tight loops.

mod build;
mod counts;
mod idset;
pub mod ops;
mod row_cache;
mod seen;
mod stream;
mod subset;
pub mod svmlight;
pub mod synthetic;
mod vectorize;
mod view;
mod weighted;

pub use build::MatrixBuilder;
pub(crate) use counts::document_frequencies;
pub use counts::{TermCounts, TextMatrix, sublinear_tf};
pub(crate) use idset::IdSet;
pub(crate) use row_cache::{RowCache, RowCacheWriter};
pub(crate) use seen::Seen;
pub(crate) use stream::Spill;
pub use stream::StreamVectorizer;
pub use subset::RowSubset;
pub(crate) use vectorize::count_df;
pub use vectorize::{Vectorized, vectorize, vectorize_counted, vectorize_scalar};
pub use view::CsrView;
pub(crate) use view::{RowAccess, RowTask, with_rows};
pub(crate) use weighted::nb_two_classes;
pub use weighted::{Geometry, GeometrySpec, Normalize, Weighted, Weighting, idf};

/// Binary bag-of-words rows: sprs CSR with zero-sized values, sorted unique ids per row.
pub type BinaryMatrix = sprs::CsMatI<(), u32, usize>;

/// Real-valued sparse rows, for data that is not binary.
pub type RealMatrix = sprs::CsMatI<f32, u32, usize>;

/// A borrowed row: feature ids (sorted, unique) and how to read their values.
///
/// A stored row is binary (`vals: None`, every value 1) or real (`vals`). A weighted
/// geometry ([`Weighted`]) reads the same stored ids through per-feature weights and a
/// row scale, so that value `k` is `scale · vals[k] · feature_weights[ids[k]]` — rows stay
/// 4 bytes per nonzero in memory while the learners see idf-weighted, unit-length rows.
#[derive(Debug, Clone, Copy)]
pub struct RowRef<'a> {
    /// Sorted, unique feature ids.
    pub ids: &'a [u32],
    /// Values aligned with `ids`; `None` for binary rows.
    pub vals: Option<&'a [f32]>,
    /// Per-feature weights indexed by feature id (not aligned with `ids`); `None`: all 1.
    pub feature_weights: Option<&'a [f32]>,
    /// A factor on every value of the row (1/‖x‖ under l2 normalization); 1 otherwise.
    pub scale: f32,
}

impl<'a> RowRef<'a> {
    /// A binary row.
    pub(crate) fn binary(ids: &'a [u32]) -> Self {
        RowRef::stored(ids, None)
    }

    /// A row as stored: ids and optional values, unweighted and unscaled.
    pub fn stored(ids: &'a [u32], vals: Option<&'a [f32]>) -> Self {
        RowRef {
            ids,
            vals,
            feature_weights: None,
            scale: 1.0,
        }
    }

    /// Number of nonzeros.
    pub fn nnz(&self) -> usize {
        self.ids.len()
    }

    /// Whether every value is exactly 1: the learners' fastest path.
    #[inline]
    pub(crate) fn is_binary(&self) -> bool {
        self.vals.is_none() && self.feature_weights.is_none() && self.scale == 1.0
    }

    /// Whether the values are one constant (`scale`) for every nonzero: stored binary and
    /// unweighted, perhaps scaled.
    #[inline]
    pub(crate) fn is_uniform(&self) -> bool {
        self.vals.is_none() && self.feature_weights.is_none()
    }

    /// The value of the `k`-th nonzero.
    #[inline]
    pub fn value(&self, k: usize) -> f32 {
        let v = self.vals.map_or(1.0, |v| v[k]);
        let f = self
            .feature_weights
            .map_or(1.0, |f| f[self.ids[k] as usize]);
        self.scale * v * f
    }

    /// `(id, value)` of every nonzero, in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, f32)> + '_ {
        self.ids
            .iter()
            .enumerate()
            .map(|(k, &j)| (j, self.value(k)))
    }
}

/// Row access shared by binary and real matrices; what every learner is generic over.
///
/// Code outside the crate may implement it: a safe implementation cannot make the crate
/// read out of bounds, however its answers vary from call to call — a [`CsrView`] is
/// checked when it is made, and a [`RowSubset`] applies the row spans it found only to
/// the view it found them in.
pub trait SparseRows: Sync {
    /// Number of rows (examples).
    fn n_rows(&self) -> usize;
    /// Number of columns (features).
    fn n_cols(&self) -> usize;
    /// Row `i`.
    fn row(&self, i: usize) -> RowRef<'_>;
    /// Total number of nonzeros.
    fn nnz(&self) -> usize;
    /// The raw CSR arrays as a [`CsrView`], what the learners' tight loops run on; `None`
    /// for row sources that are not stored as one CSR block (they take the generic path).
    fn csr(&self) -> Option<CsrView<'_>> {
        None
    }
    /// Refuses rows a learner cannot read: `Ok` for every row source except a sprs matrix
    /// stored by column (CSC), whose outer dimension is its columns. Learners call it
    /// before any work, so such a matrix is an error rather than rows read wrongly.
    fn check_rows(&self) -> crate::Result<()> {
        Ok(())
    }
    /// Rows per block when the rows are best visited a block at a time (a cache on disk,
    /// read in long runs): a shuffled epoch then visits the blocks in a random order and
    /// each block's rows in a random order. `None` (rows in memory): any order.
    fn shuffle_block(&self) -> Option<usize> {
        None
    }
}

/// Why a sprs matrix stored by column is refused.
const CSC_REFUSED: &str =
    "the matrix is stored as CSC (by column) but rows are read by row: convert it with `to_csr()`";

/// What a stored value adds to a row: nothing (binary rows, `()`) or its `f32`. Sealed:
/// the crate's two matrix types are the only CSR storage it reads without checks.
mod stored {
    /// The value type of a CSR matrix the crate reads.
    pub(crate) trait Stored: Sized + Sync {
        /// The values as row weights (`None`: every value is 1).
        fn weights(data: &[Self]) -> Option<&[f32]>;
    }
    impl Stored for () {
        fn weights(_: &[()]) -> Option<&[f32]> {
            None
        }
    }
    impl Stored for f32 {
        fn weights(data: &[f32]) -> Option<&[f32]> {
            Some(data)
        }
    }
}

/// [`BinaryMatrix`] and [`RealMatrix`] alike, stored by row (CSR). sprs can also hold
/// them by column (CSC: `new_csc`, `transpose_mut`), where its outer dimension — the one
/// `indptr` walks — is the columns and only row ids are bounded: `check_rows` refuses
/// that storage, `csr` never wraps it and `row` panics on it (a bug in the caller, never
/// an out-of-bounds read or write).
impl<N: stored::Stored> SparseRows for sprs::CsMatI<N, u32, usize> {
    fn n_rows(&self) -> usize {
        self.rows()
    }
    fn n_cols(&self) -> usize {
        self.cols()
    }
    #[inline]
    fn row(&self, i: usize) -> RowRef<'_> {
        assert!(self.is_csr(), "{CSC_REFUSED}");
        let r = self.indptr().outer_inds_sz(i);
        RowRef::stored(
            &self.indices()[r.clone()],
            N::weights(self.data()).map(|v| &v[r]),
        )
    }
    fn nnz(&self) -> usize {
        self.indices().len()
    }
    fn csr(&self) -> Option<CsrView<'_>> {
        // Stored by column, the arrays are columns with row ids: no CSR view of them.
        if !self.is_csr() {
            return None;
        }
        // Checked, not trusted: one pass over the ids per fit, against sprs's own checks,
        // which safe code can get around (a panic caught inside `CsMatI::modify`).
        Some(CsrView::new(
            proper_indptr(self.indptr()),
            self.indices(),
            N::weights(self.data()),
            self.cols(),
        ))
    }
    fn check_rows(&self) -> crate::Result<()> {
        if self.is_csr() {
            Ok(())
        } else {
            Err(crate::Error::Unsupported(CSC_REFUSED.into()))
        }
    }
}

/// sprs matrices built by [`MatrixBuilder`] or `new` have an indptr starting at 0; a view
/// into a larger one may not, and would need offsets the tight loops do not handle.
fn proper_indptr(p: sprs::IndPtrView<'_, usize>) -> &[usize] {
    assert!(
        p.is_proper(),
        "CSR matrices here always start their indptr at 0"
    );
    p.into_raw_storage()
}

/// Copies rows `idx` of a binary matrix into a matrix of their own, keeping their order
/// (folds and held-out parts use the copy-free [`RowSubset`] instead).
pub fn select_rows(m: &BinaryMatrix, idx: &[usize]) -> BinaryMatrix {
    let mut b = MatrixBuilder::with_capacity(idx.len(), 0);
    for &i in idx {
        b.push_sorted(m.row(i).ids);
    }
    b.finish(m.cols())
}

/// A real matrix from dense rows (zeros dropped); handy for small worked examples.
pub fn real_from_dense(rows: &[Vec<f32>]) -> RealMatrix {
    let n_cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut indptr = vec![0usize];
    let (mut indices, mut data) = (Vec::new(), Vec::new());
    for r in rows {
        for (j, &v) in r.iter().enumerate() {
            if v != 0.0 {
                indices.push(j as u32);
                data.push(v);
            }
        }
        indptr.push(indices.len());
    }
    RealMatrix::new((rows.len(), n_cols), indptr, indices, data)
}
