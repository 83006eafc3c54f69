//! Synthetic Zipf-shaped binary rows for benchmarks: the same generator as the workspace's
//! bare-loop yardstick (xorshift, column ≈ ⌊V^u⌋ − 1, sorted and deduplicated per row, labels
//! correlated with a few columns), so a learner's throughput can be read as a fraction of
//! what a bare loop over the very same rows achieves.

use super::{BinaryMatrix, MatrixBuilder};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `rows` binary rows over `features` columns with about `avg_nnz` nonzeros each (drawn
/// between avg/2 and 3·avg/2 before deduplication), and ±1 labels (plain `i8`, the
/// learners' label type: `features` knows nothing of `learn`).
pub fn zipf_rows(
    rows: usize,
    features: usize,
    avg_nnz: usize,
    seed: u64,
) -> (BinaryMatrix, Vec<i8>) {
    assert!(
        features > 0 && avg_nnz > 0,
        "zipf_rows needs features and nonzeros"
    );
    let mut r = XorShift(seed.max(1));
    let mut b = MatrixBuilder::with_capacity(rows, rows * avg_nnz);
    let mut y = Vec::with_capacity(rows);
    let lv = (features as f64).ln();
    let mut row = Vec::new();
    for _ in 0..rows {
        row.clear();
        let k = avg_nnz / 2 + (r.next() as usize % avg_nnz);
        for _ in 0..k {
            let c = ((r.unit() * lv).exp() as usize)
                .saturating_sub(1)
                .min(features - 1);
            row.push(c as u32);
        }
        b.push_unsorted(&mut row);
        let s: i64 = row.iter().map(|&c| if c % 7 == 0 { 1 } else { -1 }).sum();
        let noisy = s + (r.next() % 9) as i64 - 4;
        y.push(if noisy > -(row.len() as i64) * 5 / 7 {
            1
        } else {
            -1
        });
    }
    (b.finish(features), y)
}

/// Label sets for multi-label tests over [`zipf_rows`]: label 0 where `y` is positive,
/// label 1 where the row has the frequent column 2, so some rows have both and some none.
#[cfg(test)]
pub(crate) fn two_label_sets(x: &BinaryMatrix, y: &[i8]) -> Vec<Vec<usize>> {
    use super::SparseRows;
    (0..x.n_rows())
        .map(|i| {
            let mut s = Vec::new();
            if y[i] > 0 {
                s.push(0);
            }
            if x.row(i).ids.contains(&2) {
                s.push(1);
            }
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SparseRows;

    #[test]
    fn shape_and_determinism() {
        let (x, y) = zipf_rows(2000, 50_000, 120, 42);
        assert_eq!((x.n_rows(), x.n_cols(), y.len()), (2000, 50_000, 2000));
        let avg = x.nnz() as f64 / 2000.0;
        assert!((60.0..130.0).contains(&avg), "average nonzeros {avg}");
        assert!(y.contains(&1) && y.contains(&-1));
        let (x2, y2) = zipf_rows(2000, 50_000, 120, 42);
        assert_eq!((x, y), (x2, y2));
    }
}
