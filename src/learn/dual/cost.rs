//! What the dual (kernel) perceptron will cost, predicted before any work: Gram matrix
//! bytes, peak memory and seconds, and the refusal when they exceed the limits.

use super::kernel::Kernel;
use super::kernel_perceptron::KernelPerceptron;
use super::postings::feature_bytes;
use crate::error::{Estimate, OverBudget};
use crate::features::SparseRows;
use crate::learn::perceptron::Schedule;
use crate::{Error, Result};

/// Nanoseconds per postings addition, per kernel transform and per score update, measured
/// on one core of a small machine (see benches/gram.rs); estimates, not promises.
const NS_ADD: f64 = 1.0;
const NS_UPDATE: f64 = 0.5;
const NS_VISIT: f64 = 2.0;

fn ns_kernel(k: &Kernel) -> f64 {
    match k {
        Kernel::Linear => 0.2,
        Kernel::Polynomial { .. } => 1.5,
        Kernel::Rbf { .. } => 4.0,
    }
}

/// Σ_f df(f)² of the rows of `x`, from a sorted copy of their ids: what the postings
/// index would say, without an array sized by the number of columns.
fn pair_ops<X: SparseRows>(x: &X) -> u64 {
    let mut ids: Vec<u32> = Vec::with_capacity(x.nnz());
    for i in 0..x.n_rows() {
        ids.extend_from_slice(x.row(i).ids);
    }
    ids.sort_unstable();
    ids.chunk_by(|a, b| a == b)
        .map(|run| (run.len() as u64).pow(2))
        .sum()
}

impl KernelPerceptron {
    /// The same prediction as [`KernelPerceptron::estimate`], from the rows themselves:
    /// what `fit` checks before it allocates anything sized by them (the postings index
    /// holds 8 bytes per column, however few of the columns the rows use).
    pub(crate) fn estimate_rows<X: SparseRows>(&self, x: &X) -> Estimate {
        self.predict(x.n_rows(), x.nnz(), x.n_cols(), pair_ops(x))
    }

    /// The prediction for `n` rows with `nnz` nonzeros over `n_cols` columns whose
    /// pairwise dot products cost `pair_ops` postings additions.
    fn predict(&self, n: usize, nnz: usize, n_cols: usize, pair_ops: u64) -> Estimate {
        let n = n as u64;
        let gram_bytes = n.saturating_mul(n).saturating_mul(4);
        let nnz = nnz as u64;
        // Rows and postings (4 + 4 + 4 per nonzero), the postings' features (at most a
        // pointer per column, and never many more than the nonzeros), the row pointers
        // (8 each), per-example state (scores, α, step sums, norms).
        let state_bytes = nnz
            .saturating_mul(12)
            .saturating_add(feature_bytes(n_cols, nnz as usize))
            .saturating_add(n * 8)
            .saturating_add(n * 40);
        let updates = n;
        let threads = rayon::current_num_threads().max(1) as f64;
        let per_row_ns = if n == 0 {
            0.0
        } else {
            pair_ops as f64 / n as f64 * NS_ADD + n as f64 * ns_kernel(&self.kernel)
        };
        let epochs = match self.schedule {
            Schedule::Online => 1.0,
            Schedule::Epochs(e) | Schedule::UntilConvergence { max_epochs: e } => e as f64,
            Schedule::Randomized { rounds, .. } => rounds as f64 / (n.max(1)) as f64,
        };
        let ns = updates as f64 * (per_row_ns / threads + n as f64 * NS_UPDATE)
            + epochs * n as f64 * NS_VISIT;
        Estimate {
            rows: n as usize,
            gram_bytes,
            fits: gram_bytes <= self.memory,
            memory_bytes: state_bytes.saturating_add(gram_bytes.min(self.memory)),
            state_bytes,
            rows_computed: updates,
            seconds: ns * 1e-9,
        }
    }

    /// Refuses an estimate above the limits, unless `force`.
    pub(crate) fn refuse_over_budget(&self, e: &Estimate) -> Result<()> {
        let over_time = e.seconds > self.max_seconds;
        let over_memory = e.state_bytes > self.memory;
        if !self.force && (over_time || over_memory) {
            return Err(Error::OverBudget(Box::new(OverBudget {
                estimate: *e,
                memory: self.memory,
                max_seconds: self.max_seconds,
            })));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::features::BinaryMatrix;
    use crate::learn::{Check, Classifier, Learner};

    #[test]
    fn a_wide_matrix_costs_its_nonzeros_not_its_width() {
        // Three nonzeros, but 2³² − 1 columns: a pointer per column would be 32 GiB. The
        // index keeps only the features present, and the estimate says so.
        let x = BinaryMatrix::new(
            (2, u32::MAX as usize),
            vec![0, 2, 3],
            vec![0, u32::MAX - 1, 2],
            vec![(); 3],
        );
        let p = KernelPerceptron::default();
        let e = p.estimate_rows(&x);
        assert!(e.state_bytes < 64 << 10, "{e}");
        let fit = p.check().unwrap().fit(&x, &[1, -1][..]).unwrap();
        assert!(fit.model.score(x.row(0)) > 0.0);
        // Under a budget smaller than the index, the refusal comes first.
        let small = KernelPerceptron {
            memory: 1 << 10,
            ..p
        };
        let e = small.check().unwrap().fit(&x, &[1, -1][..]).unwrap_err();
        assert!(e.to_string().contains("above the limit of 1.0 KiB"), "{e}");
    }
}
