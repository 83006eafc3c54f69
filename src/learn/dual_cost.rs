//! What the dual (kernel) perceptron will cost, predicted before any work: Gram matrix
//! bytes, peak memory and seconds, and the refusal when they exceed the limits.

use super::dual::KernelPerceptron;
use super::gram::Gram;
use super::kernel::Kernel;
use super::perceptron::Schedule;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What the dual form will cost, predicted before any work.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Training rows n.
    pub rows: usize,
    /// Bytes of the full Gram matrix (4n²).
    pub gram_bytes: u64,
    /// Whether all of it fits the memory budget (else rows above it are recomputed).
    pub fits: bool,
    /// Peak bytes: Gram row cache, postings index and per-example state.
    pub memory_bytes: u64,
    /// The part of `memory_bytes` that is not Gram cache (needed whatever the budget).
    pub state_bytes: u64,
    /// Gram rows expected to be computed: one per update, assuming about n updates.
    pub rows_computed: u64,
    /// Estimated seconds, on the same assumption.
    pub seconds: f64,
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} rows: about {} of memory and {:.1} s (Gram matrix {}, {})",
            self.rows,
            human_bytes(self.memory_bytes),
            self.seconds,
            human_bytes(self.gram_bytes),
            if self.fits {
                "cached"
            } else {
                "above the budget: rows computed on the fly"
            }
        )
    }
}

/// Bytes as KiB/MiB/GiB for messages.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let (mut v, mut u) = (b as f64, 0);
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

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

impl KernelPerceptron {
    /// Predicts time and memory for training on the rows indexed by `gram`, assuming
    /// about one update per example (text usually needs fewer; noisy data more).
    pub fn estimate(&self, gram: &Gram) -> Estimate {
        let n = gram.n() as u64;
        let gram_bytes = n * n * 4;
        let nnz = gram.nnz() as u64;
        let state_bytes = nnz * 12 + (n + gram.n_cols() as u64) * 8 + n * 40;
        let updates = n;
        let threads = rayon::current_num_threads().max(1) as f64;
        let per_row_ns = if n == 0 {
            0.0
        } else {
            gram.pair_ops() as f64 / n as f64 * NS_ADD + n as f64 * ns_kernel(&self.kernel)
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
            memory_bytes: state_bytes + gram_bytes.min(self.memory),
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

/// The dual form's predicted cost, above the memory budget or the time limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverBudget {
    /// The prediction.
    pub estimate: Estimate,
    /// The memory budget, in bytes.
    pub memory: u64,
    /// The time limit, in seconds.
    pub max_seconds: f64,
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the dual (kernel) perceptron is meant for small corpora; here it would need {}, \
             above the limit of {} and {:.0} s",
            self.estimate,
            human_bytes(self.memory),
            self.max_seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_picks_the_unit() {
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
        assert_eq!(human_bytes(8), "8 B");
    }
}
