//! Term counts: a word's count in its document kept beside each nonzero as sublinear term
//! frequency, 1 + ln tf, for corpora whose documents repeat their topic words.
//!
//! Counting is asked for ([`TermCounts::Sublinear`]); binary rows stay what they were —
//! a [`BinaryMatrix`] with no value array, read by the same loops — and only counted rows
//! carry a value (4 bytes) per nonzero, as a [`RealMatrix`]. A [`TextMatrix`] is either,
//! so the code that vectorizes documents hands the learners one type; the geometry's idf
//! weights and l2 scale apply on top of the values as on any real row.

use super::{BinaryMatrix, CsrView, MatrixBuilder, RealMatrix, RowRef, SparseRows};
use serde::{Deserialize, Serialize};

/// What a document's row records of each word.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TermCounts {
    /// Whether the word occurs: every present word is 1 (rows store no values).
    #[default]
    Binary,
    /// How often the word occurs, damped: 1 + ln tf, so a word said three times counts
    /// about twice as much as a word said once, not three times.
    Sublinear,
}

impl TermCounts {
    /// The value as `--term-counts` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            TermCounts::Binary => "binary",
            TermCounts::Sublinear => "sublinear",
        }
    }

    /// Whether rows keep each word's count.
    pub fn counted(&self) -> bool {
        *self != TermCounts::Binary
    }
}

/// The sublinear term frequency of a word seen `count` times (at least once): 1 + ln tf.
pub fn sublinear_tf(count: u32) -> f32 {
    (1.0 + f64::from(count.max(1)).ln()) as f32
}

/// Rows whose ids are sorted with repeats (one per occurrence) collapsed in place to
/// unique ids, returning each kept id's value, [`sublinear_tf`] of its repeats.
pub(crate) fn collapse_repeats(indptr: &mut [usize], indices: &mut Vec<u32>) -> Vec<f32> {
    let mut vals = Vec::with_capacity(indices.len());
    let (mut write, mut start) = (0, 0);
    for i in 0..indptr.len().saturating_sub(1) {
        let end = indptr[i + 1];
        let mut r = start;
        while r < end {
            let j = indices[r];
            let mut run = r + 1;
            while run < end && indices[run] == j {
                run += 1;
            }
            indices[write] = j;
            vals.push(sublinear_tf((run - r) as u32));
            write += 1;
            r = run;
        }
        start = end;
        indptr[i + 1] = write;
    }
    indices.truncate(write);
    indices.shrink_to_fit();
    vals
}

/// Document frequencies of the ids of rows whose repeats are adjacent (counted rows before
/// collapsing; binary rows have none): each id counts once per row it is in.
pub(crate) fn document_frequencies(
    indptr: &[usize],
    indices: &[u32],
    rows: impl Iterator<Item = usize>,
    df: &mut [u32],
) {
    for i in rows {
        let mut last = None;
        for &j in &indices[indptr[i]..indptr[i + 1]] {
            if last != Some(j) {
                df[j as usize] += 1;
                last = Some(j);
            }
        }
    }
}

/// A text corpus's rows as stored: binary, or with each word's sublinear count.
#[derive(Debug, Clone, PartialEq)]
pub enum TextMatrix {
    /// No values: every present word is 1.
    Binary(BinaryMatrix),
    /// 1 + ln tf beside every nonzero.
    Counts(RealMatrix),
}

impl TextMatrix {
    /// Rows from raw CSR arrays, ids sorted within each row: under binary counting unique
    /// ids as they are, under sublinear counting one id per occurrence, collapsed here.
    pub(crate) fn from_sorted(
        mut indptr: Vec<usize>,
        mut indices: Vec<u32>,
        n_cols: usize,
        counts: TermCounts,
    ) -> TextMatrix {
        match counts {
            TermCounts::Binary => {
                let mut b = MatrixBuilder::default();
                b.set_raw(indptr, indices);
                TextMatrix::Binary(b.finish(n_cols))
            }
            TermCounts::Sublinear => {
                let vals = collapse_repeats(&mut indptr, &mut indices);
                let rows = indptr.len() - 1;
                TextMatrix::Counts(RealMatrix::new((rows, n_cols), indptr, indices, vals))
            }
        }
    }

    /// What the rows record of each word.
    pub fn counts(&self) -> TermCounts {
        match self {
            TextMatrix::Binary(_) => TermCounts::Binary,
            TextMatrix::Counts(_) => TermCounts::Sublinear,
        }
    }

    /// The binary rows, if the rows are binary.
    pub fn binary(&self) -> Option<&BinaryMatrix> {
        match self {
            TextMatrix::Binary(x) => Some(x),
            TextMatrix::Counts(_) => None,
        }
    }
}

impl SparseRows for TextMatrix {
    fn n_rows(&self) -> usize {
        match self {
            TextMatrix::Binary(x) => x.n_rows(),
            TextMatrix::Counts(x) => x.n_rows(),
        }
    }
    fn n_cols(&self) -> usize {
        match self {
            TextMatrix::Binary(x) => x.n_cols(),
            TextMatrix::Counts(x) => x.n_cols(),
        }
    }
    #[inline]
    fn row(&self, i: usize) -> RowRef<'_> {
        match self {
            TextMatrix::Binary(x) => SparseRows::row(x, i),
            TextMatrix::Counts(x) => SparseRows::row(x, i),
        }
    }
    fn nnz(&self) -> usize {
        match self {
            TextMatrix::Binary(x) => SparseRows::nnz(x),
            TextMatrix::Counts(x) => SparseRows::nnz(x),
        }
    }
    fn csr(&self) -> Option<CsrView<'_>> {
        match self {
            TextMatrix::Binary(x) => x.csr(),
            TextMatrix::Counts(x) => x.csr(),
        }
    }
}

#[cfg(test)]
#[path = "counts_tests.rs"]
mod counted_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_collapse_to_one_id_with_its_sublinear_count() {
        // Row 0: id 1 once, id 4 three times; row 1 empty; row 2: id 0 twice.
        let (mut indptr, mut indices) = (vec![0, 4, 4, 6], vec![1, 4, 4, 4, 0, 0]);
        let vals = collapse_repeats(&mut indptr, &mut indices);
        assert_eq!(indptr, [0, 2, 2, 3]);
        assert_eq!(indices, [1, 4, 0]);
        let (three, two) = (1.0 + 3f32.ln(), 1.0 + 2f32.ln());
        assert_eq!(vals.len(), 3);
        assert!((vals[0] - 1.0).abs() < 1e-6);
        assert!((vals[1] - three).abs() < 1e-6 && (vals[2] - two).abs() < 1e-6);
    }

    #[test]
    fn document_frequency_counts_a_repeated_word_once_per_row() {
        let (indptr, indices) = (vec![0, 4, 6], vec![1, 4, 4, 4, 4, 7]);
        let mut df = vec![0; 8];
        document_frequencies(&indptr, &indices, 0..2, &mut df);
        assert_eq!(df, [0, 1, 0, 0, 2, 0, 0, 1]);
    }

    #[test]
    fn binary_rows_keep_no_values() {
        let m = TextMatrix::from_sorted(vec![0, 2], vec![0, 3], 4, TermCounts::Binary);
        assert_eq!(m.counts(), TermCounts::Binary);
        assert!(m.row(0).vals.is_none());
        let c = TextMatrix::from_sorted(vec![0, 3], vec![0, 3, 3], 4, TermCounts::Sublinear);
        assert_eq!(c.row(0).ids, [0, 3]);
        assert_eq!(c.nnz(), 2);
    }
}
