//! Building binary CSR row by row: sort and dedup each row, append to indices/indptr.
//! (Not `TriMat`: it sums duplicates and needs values that add.)

use super::BinaryMatrix;

/// Accumulates binary rows and produces a [`BinaryMatrix`].
#[derive(Debug, Default, Clone)]
pub struct MatrixBuilder {
    indptr: Vec<usize>,
    indices: Vec<u32>,
}

impl MatrixBuilder {
    /// A builder with room for `rows` rows and `nnz` nonzeros.
    pub fn with_capacity(rows: usize, nnz: usize) -> Self {
        let mut indptr = Vec::with_capacity(rows + 1);
        indptr.push(0);
        MatrixBuilder {
            indptr,
            indices: Vec::with_capacity(nnz),
        }
    }

    /// Appends a row given as any ids; they are sorted and deduplicated in place.
    pub(crate) fn push_unsorted(&mut self, ids: &mut Vec<u32>) {
        ids.sort_unstable();
        ids.dedup();
        self.push_sorted(ids);
    }

    /// Appends a row whose ids are already sorted and unique.
    pub fn push_sorted(&mut self, ids: &[u32]) {
        debug_assert!(ids.windows(2).all(|w| w[0] < w[1]));
        if self.indptr.is_empty() {
            self.indptr.push(0);
        }
        self.indices.extend_from_slice(ids);
        self.indptr.push(self.indices.len());
    }

    /// Appends all rows of another builder.
    pub(crate) fn append(&mut self, other: &MatrixBuilder) {
        if self.indptr.is_empty() {
            self.indptr.push(0);
        }
        let base = self.indices.len();
        self.indices.extend_from_slice(&other.indices);
        self.indptr
            .extend(other.indptr.iter().skip(1).map(|p| p + base));
    }

    /// Replaces the contents with raw CSR arrays (rows sorted and unique).
    pub(crate) fn set_raw(&mut self, indptr: Vec<usize>, indices: Vec<u32>) {
        self.indptr = indptr;
        self.indices = indices;
    }

    /// Number of rows so far.
    pub(crate) fn rows(&self) -> usize {
        self.indptr.len().saturating_sub(1)
    }

    /// The matrix with `n_cols` columns; every id must be below `n_cols`.
    pub fn finish(mut self, n_cols: usize) -> BinaryMatrix {
        if self.indptr.is_empty() {
            self.indptr.push(0);
        }
        let nnz = self.indices.len();
        let rows = self.indptr.len() - 1;
        BinaryMatrix::new((rows, n_cols), self.indptr, self.indices, vec![(); nnz])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SparseRows;

    #[test]
    fn rows_sorted_unique_and_no_values_stored() {
        let mut b = MatrixBuilder::default();
        b.push_unsorted(&mut vec![5, 1, 5, 3]);
        b.push_unsorted(&mut vec![]);
        b.push_unsorted(&mut vec![0]);
        let m = b.finish(6);
        assert_eq!(m.row(0).ids, &[1, 3, 5]);
        assert!(m.row(1).ids.is_empty());
        assert_eq!(m.row(2).ids, &[0]);
        assert_eq!(std::mem::size_of_val(m.data()), 0);
    }
}
