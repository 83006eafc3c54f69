//! Scoring every row of a matrix, in parallel (rayon) or sequentially; both give the same
//! scores in the same order.

use crate::features::SparseRows;
use crate::learn::Classifier;
use rayon::prelude::*;

/// Rows per parallel work item: large enough to amortize scheduling.
const CHUNK: usize = 1024;

/// The score of each row, computed in parallel.
pub fn scores<C: Classifier + ?Sized, X: SparseRows>(model: &C, x: &X) -> Vec<f32> {
    let mut out = vec![0.0; x.n_rows()];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            for (k, s) in chunk.iter_mut().enumerate() {
                *s = model.score(x.row(c * CHUNK + k));
            }
        });
    out
}

/// The sequential reference path of [`scores`].
pub fn scores_sequential<C: Classifier + ?Sized, X: SparseRows>(model: &C, x: &X) -> Vec<f32> {
    (0..x.n_rows()).map(|i| model.score(x.row(i))).collect()
}
