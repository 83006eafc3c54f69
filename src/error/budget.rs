//! The dual (kernel) perceptron's predicted cost and the refusal when it exceeds the
//! limits: data of the error type, so that a front end can word the advice its own way.

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
