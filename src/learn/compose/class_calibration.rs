//! Probabilities for a one-vs-rest model whose scores are not probabilities (perceptrons,
//! PA, … of three classes or more): one Platt sigmoid per class, each fitted on the
//! out-of-fold scores of that class's model against whether the row was the class, and
//! for a single-label model the classes' sigmoids normalised to sum to 1 — what
//! scikit-learn's `CalibratedClassifierCV(method="sigmoid")` does for one-vs-rest models.
//! A class too small to fit a sigmoid of its own borrows the sigmoid fitted on every
//! class's scores together.

use super::calibration::Calibration;
use serde::{Deserialize, Serialize};

/// One calibration per class of a one-vs-rest model: `per_class[c]` maps class c's score
/// to P(c | x) before normalisation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassCalibration {
    /// Each class's sigmoid, in the model's class order.
    pub per_class: Vec<Calibration>,
    /// How many classes had too few rows (or scores that did not rank them) for a sigmoid
    /// of their own and use the one fitted on all classes' scores together.
    pub pooled: u32,
}

impl ClassCalibration {
    /// The calibration of out-of-fold `scores` (row-major, `k` per row) of rows whose true
    /// classes are `truth`: each class's own sigmoid where it can be fitted, else the
    /// pooled one. `None` when not even the pooled scores give one (a single class, or
    /// scores that rank the classes the wrong way round).
    pub(crate) fn fit(scores: &[f32], truth: &[usize], k: usize) -> Option<ClassCalibration> {
        assert_eq!(scores.len(), truth.len() * k, "k scores per row");
        let positive: Vec<bool> = (0..scores.len()).map(|j| truth[j / k] == j % k).collect();
        let pooled = Calibration::fit(scores, &positive)?;
        let mut used_pooled = 0u32;
        let per_class = (0..k)
            .map(|c| {
                let column: Vec<f32> = scores.iter().skip(c).step_by(k).copied().collect();
                let is_c: Vec<bool> = truth.iter().map(|&t| t == c).collect();
                let rows = is_c.iter().filter(|&&p| p).count();
                let own = (rows >= MIN_CLASS_ROWS)
                    .then(|| Calibration::fit(&column, &is_c))
                    .flatten();
                own.unwrap_or_else(|| {
                    used_pooled += 1;
                    pooled
                })
            })
            .collect();
        Some(ClassCalibration {
            per_class,
            pooled: used_pooled,
        })
    }

    /// Whether it can belong to a model of `k` classes: a valid sigmoid per class.
    pub(crate) fn fits(&self, k: usize) -> bool {
        self.per_class.len() == k && self.per_class.iter().all(Calibration::is_valid)
    }

    /// Each class's own P(c | x) from its score (`scores[c]`), not normalised: what a
    /// multi-label reading of the scores gives.
    pub fn sigmoids(&self, scores: &[f32]) -> Vec<f32> {
        self.per_class
            .iter()
            .zip(scores)
            .map(|(c, &s)| c.probability(s))
            .collect()
    }
}

/// The fewest rows of a class from which it gets a sigmoid of its own: a class of one
/// row has a single score to fit, and the pooled sigmoid is the better guess. On R52 a
/// sigmoid of their own from 2 rows on gave the lowest log loss (0.2604, against 0.2673
/// from 5 rows on, 0.2709 from 10 and 0.2811 pooled for every class; docs/ACCURACY.md).
pub const MIN_CLASS_ROWS: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    /// Three classes, every row's true class scoring 1 and the others −1: each class
    /// gets a sigmoid of its own, increasing, equal for the three (the same scores).
    #[test]
    fn separated_classes_get_their_own_sigmoids() {
        let truth: Vec<usize> = (0..30).map(|i| i % 3).collect();
        let scores: Vec<f32> = (0..90)
            .map(|j| if truth[j / 3] == j % 3 { 1.0 } else { -1.0 })
            .collect();
        let c = ClassCalibration::fit(&scores, &truth, 3).unwrap();
        assert_eq!(c.pooled, 0);
        assert!(c.fits(3));
        // Ten positives, twenty negatives per class: Platt's targets 11/12 and 1/22
        // are reached exactly at scores 1 and −1.
        let p = c.sigmoids(&[1.0, -1.0, -1.0]);
        assert!((p[0] - 11.0 / 12.0).abs() < 1e-4, "{p:?}");
        assert!((p[1] - 1.0 / 22.0).abs() < 1e-4, "{p:?}");
        assert_eq!(c.per_class[0], c.per_class[2]);
    }

    /// A class of one row borrows the pooled sigmoid.
    #[test]
    fn a_small_class_uses_the_pooled_sigmoid() {
        let mut truth: Vec<usize> = (0..40).map(|i| i % 2).collect();
        truth[0] = 2;
        let scores: Vec<f32> = (0..120)
            .map(|j| if truth[j / 3] == j % 3 { 0.5 } else { -0.5 })
            .collect();
        let c = ClassCalibration::fit(&scores, &truth, 3).unwrap();
        assert_eq!(c.pooled, 1);
        let positive: Vec<bool> = (0..120).map(|j| truth[j / 3] == j % 3).collect();
        assert_eq!(
            c.per_class[2],
            Calibration::fit(&scores, &positive).unwrap()
        );
        assert_ne!(c.per_class[0], c.per_class[2]);
    }
}
