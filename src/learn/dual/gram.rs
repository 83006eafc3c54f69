//! The Gram matrix K(xᵢ, xⱼ) of a training set, for the dual perceptron.
//!
//! A row of it is computed by walking `Postings` (the transposed matrix: for each
//! feature, the rows that contain it) instead of n merge-based sparse dot products: row i
//! costs Σ_{f ∈ xᵢ} df(f) additions plus n kernel transforms. The additions for one pair
//! happen in increasing feature order starting from 0, exactly as in `ops::sparse_dot`,
//! so the values are bit-identical to `Kernel::eval`. The full matrix is computed in parallel
//! over rows (rayon); a single row is split over column ranges when it is long.
//! `GramRows` holds the full matrix when it fits a memory budget, and otherwise computes
//! rows on demand, keeping as many as the budget allows.

use super::kernel::Kernel;
use super::kernel_model::SupportRows;
use crate::features::{SparseRows, ops};
use rayon::prelude::*;

use super::postings::Postings;

/// The fewest columns per parallel work item when one row is computed in parallel.
const MIN_ROW_CHUNK: usize = 2048;

thread_local! {
    /// Per-thread integer scratch for binary rows' intersection counts.
    static COUNTS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// What a Gram matrix needs: the rows, their postings, squared norms and the kernel.
#[derive(Debug, Clone)]
pub struct Gram {
    kernel: Kernel,
    rows: SupportRows,
    post: Postings,
    sq_norms: Vec<f32>,
    /// For binary rows: K by integer dot product (polynomial) or squared distance (RBF).
    table: Option<Vec<f32>>,
    /// For binary rows: |xᵢ| as integers (`None` for real-valued rows).
    nnz: Option<Vec<u32>>,
}

/// The largest squared norm for which binary kernel values are tabulated.
const MAX_TABLE_NORM: f32 = 65536.0;

/// For binary rows every dot product and squared distance is a small integer, so the
/// kernel transform is a table lookup, bit-identical to [`Kernel::of_dot`] (the integers
/// are exact in `f32`).
fn binary_table(kernel: Kernel, max_sq: f32) -> Option<Vec<f32>> {
    if max_sq > MAX_TABLE_NORM {
        return None;
    }
    let m = max_sq as usize;
    match kernel {
        Kernel::Linear => None,
        Kernel::Polynomial { .. } => {
            Some((0..=m).map(|k| kernel.of_dot(k as f32, 0.0, 0.0)).collect())
        }
        Kernel::Rbf { .. } => Some(
            (0..=2 * m)
                .map(|k| kernel.of_dot(0.0, k as f32, 0.0))
                .collect(),
        ),
    }
}

impl Gram {
    /// Indexes the rows of `x` for kernel `kernel`.
    pub fn new<X: SparseRows>(x: &X, kernel: Kernel) -> Self {
        let all: Vec<usize> = (0..x.n_rows()).collect();
        let rows = SupportRows::select(x, &all);
        let sq_norms: Vec<f32> = (0..x.n_rows()).map(|i| ops::nrm2_sq(x.row(i))).collect();
        let binary = rows.vals.is_none();
        let table = if binary {
            binary_table(kernel, sq_norms.iter().copied().fold(0.0, f32::max))
        } else {
            None
        };
        let nnz = binary.then(|| {
            (0..rows.n_rows())
                .map(|i| rows.row(i).nnz() as u32)
                .collect()
        });
        Gram {
            kernel,
            rows,
            post: Postings::new(x),
            sq_norms,
            table,
            nnz,
        }
    }

    /// Number of rows n (the matrix is n × n).
    pub fn n(&self) -> usize {
        self.sq_norms.len()
    }

    /// ‖xᵢ‖² for every row.
    pub(crate) fn sq_norms(&self) -> &[f32] {
        &self.sq_norms
    }

    /// K(xᵢ, xᵢ).
    pub fn diag(&self, i: usize) -> f32 {
        let s = self.sq_norms[i];
        self.kernel.of_dot(s, s, s)
    }

    /// Postings additions a full matrix costs: Σ_f df(f)².
    pub fn pair_ops(&self) -> u64 {
        self.post.pair_ops()
    }

    /// Writes K(xᵢ, xⱼ) for j in `lo .. lo + out.len()` into `out`.
    pub(crate) fn row_range_into(&self, i: usize, lo: usize, out: &mut [f32]) {
        if let (Some(nnz), false) = (&self.nnz, self.kernel == Kernel::Linear) {
            // Binary rows: integer counts, then one pass writes K (exact: the counts are
            // the same integers `sparse_dot` sums in f32). The linear kernel is the f32
            // count itself, written in place below.
            return COUNTS.with_borrow_mut(|c| {
                c.resize(out.len(), 0);
                self.post.counts_into(self.rows.row(i).ids, lo, c);
                self.counts_to_kernel(nnz[i], &nnz[lo..lo + out.len()], c, out);
            });
        }
        self.post.dots_into(self.rows.row(i), lo, out);
        let hi = lo + out.len();
        let si = self.sq_norms[i];
        let norms = &self.sq_norms[lo..hi];
        match (&self.table, self.kernel) {
            (_, Kernel::Linear) => {}
            (Some(t), Kernel::Polynomial { .. }) => {
                for o in out.iter_mut() {
                    *o = t[*o as i32 as usize];
                }
            }
            (Some(t), Kernel::Rbf { .. }) => {
                // ‖xᵢ − xⱼ‖² = |xᵢ| + |xⱼ| − 2|xᵢ ∩ xⱼ|, exact in f32.
                for (o, &sj) in out.iter_mut().zip(norms) {
                    *o = t[(si + sj - 2.0 * *o) as i32 as usize];
                }
            }
            (None, k) => {
                for (o, &sj) in out.iter_mut().zip(norms) {
                    *o = k.of_dot(*o, si, sj);
                }
            }
        }
    }

    fn counts_to_kernel(&self, ni: u32, nj: &[u32], counts: &[u32], out: &mut [f32]) {
        match (&self.table, self.kernel) {
            (_, Kernel::Linear) => {
                for (o, &c) in out.iter_mut().zip(counts) {
                    *o = c as f32;
                }
            }
            (Some(t), Kernel::Polynomial { .. }) => {
                for (o, &c) in out.iter_mut().zip(counts) {
                    *o = t[c as usize];
                }
            }
            (Some(t), Kernel::Rbf { .. }) => {
                // ‖xᵢ − xⱼ‖² = |xᵢ| + |xⱼ| − 2|xᵢ ∩ xⱼ|.
                for ((o, &c), &n) in out.iter_mut().zip(counts).zip(nj) {
                    *o = t[(ni + n - 2 * c) as usize];
                }
            }
            (None, k) => {
                for ((o, &c), &n) in out.iter_mut().zip(counts).zip(nj) {
                    *o = k.of_dot(c as f32, ni as f32, n as f32);
                }
            }
        }
    }

    /// Row i, computed in parallel over column ranges when it is long.
    pub(crate) fn row_into(&self, i: usize, out: &mut [f32]) {
        let n = self.n();
        debug_assert_eq!(out.len(), n);
        let chunk = n
            .div_ceil(rayon::current_num_threads().max(1))
            .max(MIN_ROW_CHUNK);
        if n <= chunk {
            self.row_range_into(i, 0, out);
        } else {
            out.par_chunks_mut(chunk)
                .enumerate()
                .for_each(|(c, o)| self.row_range_into(i, c * chunk, o));
        }
    }

    #[cfg(test)]
    /// The whole n × n matrix, row-major, rows computed in parallel on the current rayon
    /// pool (run it inside `ThreadPool::install` to choose the number of threads).
    pub(crate) fn full(&self) -> Vec<f32> {
        let n = self.n();
        let mut g = vec![0f32; n * n];
        self.full_into(&mut g);
        g
    }

    /// `Gram::full` into a caller's n × n buffer (reused across calls, it spares the
    /// operating system's zeroing of fresh pages).
    ///
    /// # Panics
    /// When `out` does not hold exactly n² values.
    pub fn full_into(&self, out: &mut [f32]) {
        let n = self.n();
        assert_eq!(out.len(), n * n, "the Gram buffer must hold n² values");
        if n > 0 {
            out.par_chunks_mut(n)
                .enumerate()
                .for_each(|(i, row)| self.row_range_into(i, 0, row));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{MatrixBuilder, real_from_dense};
    use crate::learn::dual::gram_rows::GramRows;
    use proptest::prelude::*;

    fn kernels() -> [Kernel; 3] {
        [
            Kernel::Linear,
            Kernel::Polynomial {
                degree: 3,
                coef0: 1.0,
            },
            Kernel::Rbf { gamma: 0.25 },
        ]
    }

    proptest! {
        #[test]
        fn postings_rows_equal_pairwise_kernel(
            rows in proptest::collection::vec(proptest::collection::vec(0u32..40, 0..15), 1..40),
            budget_rows in 0usize..50,
        ) {
            let mut b = MatrixBuilder::default();
            for mut r in rows.clone() {
                b.push_unsorted(&mut r);
            }
            let x = b.finish(40);
            let n = x.n_rows();
            for k in kernels() {
                let g = Gram::new(&x, k);
                let full = g.full();
                for i in 0..n {
                    for j in 0..n {
                        prop_assert_eq!(full[i * n + j], k.eval(x.row(i), x.row(j)));
                    }
                }
                // Rows on demand with a partial cache give the same values.
                let mut lazy = GramRows::new(g.clone(), (budget_rows * n * 4) as u64);
                prop_assert_eq!(lazy.fits(), budget_rows >= n);
                for i in (0..n).rev().chain(0..n) {
                    prop_assert_eq!(lazy.row(i), &full[i * n..(i + 1) * n]);
                }
                prop_assert_eq!(lazy.rows_cached(), budget_rows.min(n));
                let recomputed = if budget_rows >= n { n } else { 2 * n - budget_rows };
                prop_assert_eq!(lazy.rows_computed(), recomputed as u64);
            }
        }
    }

    #[test]
    fn real_rows_and_long_rows_split_over_ranges() {
        let dense: Vec<Vec<f32>> = (0..5000)
            .map(|i| (0..6).map(|j| ((i * 7 + j * 3) % 5) as f32 - 2.0).collect())
            .collect();
        let x = real_from_dense(&dense);
        let g = Gram::new(&x, Kernel::Linear);
        let mut row = vec![0.0; 5000];
        for i in [0, 1234, 4999] {
            g.row_into(i, &mut row);
            for j in (0..5000).step_by(97) {
                assert_eq!(row[j], Kernel::Linear.eval(x.row(i), x.row(j)));
            }
        }
        assert_eq!(g.pair_ops(), 6 * 4000u64.pow(2));
    }
}
