//! How far this process's fits are, for a front end that shows progress on long runs:
//! epochs planned and epochs finished, counted over every fit the process makes (each
//! class of one-vs-rest, the calibration and threshold folds, the mixing workers). A
//! front end reads the counters before a job and subtracts. Counting costs one relaxed
//! atomic addition per fit and one per epoch.

use std::sync::atomic::{AtomicU64, Ordering};

static PLANNED: AtomicU64 = AtomicU64::new(0);
static DONE: AtomicU64 = AtomicU64::new(0);
static FITS: AtomicU64 = AtomicU64::new(0);

/// Epochs begun and epochs planned by the fits of this process so far: `(begun,
/// planned)`. A fit that stops early (converged, or its loss no longer falling) leaves
/// the rest of its plan undone.
pub fn epochs() -> (u64, u64) {
    (
        DONE.load(Ordering::Relaxed),
        PLANNED.load(Ordering::Relaxed),
    )
}

/// Fits begun by this process so far: the epochs of [`epochs`] are summed over them, so a
/// front end says over how many fits (classes, folds, the model) they are counted.
pub fn fits() -> u64 {
    FITS.load(Ordering::Relaxed)
}

/// A fit is about to run `epochs` epochs.
pub(crate) fn plan(epochs: usize) {
    FITS.fetch_add(1, Ordering::Relaxed);
    PLANNED.fetch_add(epochs as u64, Ordering::Relaxed);
}

/// A fit begins an epoch.
pub(crate) fn epoch_begun() {
    DONE.fetch_add(1, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fit_counts_its_plan_and_its_epochs() {
        use crate::features::synthetic::zipf_rows;
        use crate::learn::{AnyLearner, Check, Learner, Perceptron, Schedule};
        let (x, y) = zipf_rows(200, 300, 10, 3);
        let learner = AnyLearner::Perceptron(Perceptron {
            schedule: Schedule::Epochs(4),
            ..Perceptron::default()
        })
        .check()
        .unwrap();
        let ((done, planned), fit) = (epochs(), fits());
        learner.fit(&x, &y[..]).unwrap();
        let ((done2, planned2), fit2) = (epochs(), fits());
        assert!(fit2 > fit);
        // Other tests fit at the same time: at least this fit's four are counted.
        assert!(planned2 - planned >= 4);
        assert!(done2 - done >= 4);
    }
}
