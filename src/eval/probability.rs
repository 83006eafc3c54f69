//! How good a model's class probabilities are on labelled documents, beside how often its
//! decisions are right: the multi-class log loss (what scikit-learn's `log_loss` and
//! `neg_log_loss` compute) and the expected calibration error — whether the documents a
//! model gives 80% to its best class are right about 80% of the time. `eval` reports
//! both for every model with probabilities.
//!
//! Expected calibration error (Guo et al. 2017, "On calibration of modern neural
//! networks"): each document's confidence is the probability of its most probable class
//! (the first of equal ones); documents fall into [`ECE_BINS`] equal-width bins of
//! confidence, [0, 0.1), [0.1, 0.2), … [0.9, 1] (a confidence of 1 into the last); ECE is
//! Σ_b (n_b / N)·|accuracy_b − mean confidence_b|, accuracy_b the share of the bin's
//! documents whose most probable class is their true one.

/// The bins of [`expected_calibration_error`] as `eval` reports it: ten, of width 0.1.
pub const ECE_BINS: usize = 10;

/// The smallest probability a log loss takes the logarithm of: a certain mistake costs
/// −ln 1e-15 ≈ 34.5 rather than infinity (scikit-learn's former clamp).
const FLOOR: f64 = 1e-15;

/// What the two measures need of one document's probabilities: enough to gather from
/// processes that each scored a share of the documents.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// P(the document's true class).
    pub truth_probability: f32,
    /// The probability of its most probable class (the first of equal ones).
    pub confidence: f32,
    /// Whether that class is the true one.
    pub right: bool,
}

impl Outcome {
    /// The outcome of a document of class `truth` given `probabilities` of every class.
    pub fn of(probabilities: &[f32], truth: usize) -> Outcome {
        let p = probabilities;
        let best = (0..p.len()).fold(0, |b, c| if p[c] > p[b] { c } else { b });
        Outcome {
            truth_probability: p[truth],
            confidence: p[best],
            right: best == truth,
        }
    }
}

/// Each document's [`Outcome`].
fn outcomes(probabilities: &[Vec<f32>], truth: &[usize]) -> Vec<Outcome> {
    assert_eq!(probabilities.len(), truth.len(), "one class per document");
    probabilities
        .iter()
        .zip(truth)
        .map(|(p, &t)| Outcome::of(p, t))
        .collect()
}

/// The mean of −ln P(true class) over documents (`probabilities[i]` every class's
/// probability for document i, `truth[i]` its class), each probability clamped to
/// [1e-15, 1]; 0 for no documents.
pub fn class_log_loss(probabilities: &[Vec<f32>], truth: &[usize]) -> f64 {
    log_loss_of(&outcomes(probabilities, truth))
}

/// [`class_log_loss`] of documents' outcomes.
fn log_loss_of(outcomes: &[Outcome]) -> f64 {
    let sum: f64 = outcomes
        .iter()
        .map(|o| -f64::from(o.truth_probability).clamp(FLOOR, 1.0).ln())
        .sum();
    sum / outcomes.len().max(1) as f64
}

/// The expected calibration error of `probabilities` against `truth` over `bins`
/// equal-width bins of confidence (see the module docs); 0 for no documents.
pub fn expected_calibration_error(probabilities: &[Vec<f32>], truth: &[usize], bins: usize) -> f64 {
    ece_of(&outcomes(probabilities, truth), bins)
}

/// [`expected_calibration_error`] of documents' outcomes.
fn ece_of(outcomes: &[Outcome], bins: usize) -> f64 {
    assert!(bins > 0, "at least one bin");
    // Per bin: right documents and the sum of their confidences.
    let mut tally = vec![(0usize, 0f64); bins];
    for o in outcomes {
        let confidence = f64::from(o.confidence).clamp(0.0, 1.0);
        let b = &mut tally[((confidence * bins as f64) as usize).min(bins - 1)];
        b.0 += usize::from(o.right);
        b.1 += confidence;
    }
    let n = outcomes.len().max(1) as f64;
    // (n_b / N)·|right_b / n_b − confidence_b / n_b| = |right_b − confidence_b| / N.
    tally
        .iter()
        .map(|&(right, conf)| (right as f64 - conf).abs() / n)
        .sum()
}

/// A model's probabilities on labelled documents, as `eval` reports them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbabilityMetrics {
    /// [`class_log_loss`].
    pub log_loss: f64,
    /// [`expected_calibration_error`] over [`ECE_BINS`] bins.
    pub ece: f64,
    /// The documents measured.
    pub documents: usize,
}

impl ProbabilityMetrics {
    /// The log loss and calibration error of `probabilities` against `truth`.
    pub fn new(probabilities: &[Vec<f32>], truth: &[usize]) -> ProbabilityMetrics {
        Self::of_outcomes(&outcomes(probabilities, truth))
    }

    /// The same of documents' outcomes (gathered from the processes that scored them).
    pub fn of_outcomes(outcomes: &[Outcome]) -> ProbabilityMetrics {
        ProbabilityMetrics {
            log_loss: log_loss_of(outcomes),
            ece: ece_of(outcomes, ECE_BINS),
            documents: outcomes.len(),
        }
    }

    /// The keys `eval --json` adds: `log_loss`, `ece` and `ece_bins`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "log_loss": self.log_loss,
            "ece": self.ece,
            "ece_bins": ECE_BINS,
        })
    }

    /// Two lines of text: the log loss, and the calibration error with its bins.
    pub fn to_text(&self) -> String {
        format!(
            "log loss       {:.4}\nECE            {:.4}  (expected calibration error, {ECE_BINS} bins)\n",
            self.log_loss, self.ece
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_loss_of_a_hand_computed_case() {
        let p = vec![
            vec![0.7, 0.2, 0.1],
            vec![0.1, 0.5, 0.4],
            vec![0.0, 0.0, 1.0],
        ];
        // −(ln 0.7 + ln 0.4 + ln 1e-15) / 3: the last document's true class had 0.
        let want = -(0.7f64.ln() + 0.4f64.ln() + 1e-15f64.ln()) / 3.0;
        let got = class_log_loss(&p, &[0, 2, 0]);
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        assert_eq!(class_log_loss(&[], &[]), 0.0);
    }

    /// Four documents: confidences 0.92 and 0.68 right, 0.83 wrong, 0.55 right.
    #[test]
    fn calibration_error_of_a_hand_computed_case() {
        let p = vec![
            vec![0.92, 0.08],
            vec![0.32, 0.68],
            vec![0.17, 0.83],
            vec![0.55, 0.45],
        ];
        let truth = [0, 1, 0, 0];
        // Two bins, [0, 0.5) and [0.5, 1]: all four in the second, accuracy 3/4, mean
        // confidence (0.92 + 0.68 + 0.83 + 0.55)/4 = 0.745: |0.75 − 0.745| = 0.005.
        let two = expected_calibration_error(&p, &truth, 2);
        assert!((two - 0.005).abs() < 1e-6, "{two}");
        // Ten bins: each document alone ([0.9, 1], [0.6, 0.7), [0.8, 0.9), [0.5, 0.6)):
        // (0.08 + 0.32 + 0.83 + 0.45) / 4 = 0.42.
        let ten = expected_calibration_error(&p, &truth, 10);
        assert!((ten - 0.42).abs() < 1e-6, "{ten}");
    }

    /// Perfectly calibrated: in a bin of confidence 0.75, three of four are right.
    #[test]
    fn honest_probabilities_have_no_calibration_error() {
        let p = vec![vec![0.75, 0.25]; 4];
        assert!(expected_calibration_error(&p, &[0, 0, 0, 1], ECE_BINS).abs() < 1e-7);
        let m = ProbabilityMetrics::new(&p, &[0, 0, 0, 1]);
        // −(3 ln 0.75 + ln 0.25) / 4.
        let want = -(3.0 * 0.75f64.ln() + 0.25f64.ln()) / 4.0;
        assert!((m.log_loss - want).abs() < 1e-6);
        assert_eq!(m.to_json()["ece_bins"], ECE_BINS);
    }
}
