//! Platt scaling: a probability for a two-class model whose scores are not one (the
//! perceptrons, PA), fitted on scores of documents the scoring model was not trained on.
//! A filter needs it to decide at a cost — P(spam) > 0.9 — rather than at the sign of
//! a score whose scale depends on the learner, its epochs and the corpus.
//!
//! The fit is Platt's (1999) sigmoid P(y = 1 | s) = σ(a·s + b) by maximum likelihood
//! against his smoothed targets ((N₊ + 1)/(N₊ + 2) for positives, 1/(N₋ + 2) for
//! negatives, so a separable set gives a finite slope), solved by Newton's method with
//! a backtracking line search, as Lin, Lin and Weng (2007) made it robust.

use serde::{Deserialize, Serialize};

/// ln 9, the log-odds of P = 0.9: a filter calls a message spam when P(spam) > 0.9 —
/// the Bayes decision when a wanted message lost costs nine spams let through
/// (SpamBayes' default spam cutoff is the same 0.9). Batch filters and the online
/// filter decide there by default.
pub const SPAM_ODDS: f32 = 2.197_224_6;

/// A fitted map from a two-class model's score to the probability of its positive class:
/// P = σ(a·s + b), with a > 0 so that a higher score is always more probable.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The slope a (> 0).
    pub a: f32,
    /// The offset b.
    pub b: f32,
    /// How many out-of-fold scores it was fitted on.
    pub scores: u32,
}

/// σ(z) = 1/(1 + e^(−z)), in f64 and without overflow for large |z|.
fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// ln(1 + e^z) without overflow.
fn softplus(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

impl Calibration {
    /// Fits the sigmoid to `scores` whose true classes are `positive`. `None` when a
    /// class is missing, a score is not finite, or the fit does not make a higher score
    /// more probable (scores that rank the classes the wrong way round).
    pub(crate) fn fit(scores: &[f32], positive: &[bool]) -> Option<Calibration> {
        Self::fit_counting(scores, positive).0
    }

    /// [`Self::fit`], with the number of Newton steps it took.
    fn fit_counting(scores: &[f32], positive: &[bool]) -> (Option<Calibration>, usize) {
        assert_eq!(scores.len(), positive.len(), "one class per score");
        let n_pos = positive.iter().filter(|&&p| p).count() as f64;
        let n_neg = positive.len() as f64 - n_pos;
        if n_pos == 0.0 || n_neg == 0.0 || scores.iter().any(|s| !s.is_finite()) {
            return (None, 0);
        }
        let (hi, lo) = ((n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0));
        let data: Vec<(f64, f64)> = scores
            .iter()
            .zip(positive)
            .map(|(&s, &p)| (f64::from(s), if p { hi } else { lo }))
            .collect();
        // The negative log-likelihood of (a, b) against the smoothed targets.
        let loss = |a: f64, b: f64| -> f64 {
            data.iter()
                .map(|&(s, t)| {
                    let z = a * s + b;
                    softplus(z) - t * z
                })
                .sum()
        };
        let (mut a, mut b) = (0.0f64, ((n_pos + 1.0) / (n_neg + 1.0)).ln());
        let mut f = loss(a, b);
        let mut steps = 0;
        while steps < 100 {
            steps += 1;
            // Gradient and Hessian (a small ridge keeps it invertible).
            let (mut g1, mut g2, mut h11, mut h22, mut h21) = (0.0, 0.0, 1e-12, 1e-12, 0.0);
            for &(s, t) in &data {
                let p = sigmoid(a * s + b);
                let (d1, d2) = (p - t, p * (1.0 - p));
                g1 += s * d1;
                g2 += d1;
                h11 += s * s * d2;
                h22 += d2;
                h21 += s * d2;
            }
            if g1.abs() < 1e-9 * data.len() as f64 && g2.abs() < 1e-9 * data.len() as f64 {
                break;
            }
            let det = h11 * h22 - h21 * h21;
            let (da, db) = (-(h22 * g1 - h21 * g2) / det, -(h11 * g2 - h21 * g1) / det);
            let slope = g1 * da + g2 * db;
            let before = f;
            let mut step = 1.0;
            while step >= 1e-10 {
                let (na, nb) = (a + step * da, b + step * db);
                let nf = loss(na, nb);
                if nf <= f + 1e-4 * step * slope {
                    (a, b, f) = (na, nb, nf);
                    break;
                }
                step /= 2.0;
            }
            // No step lowered the loss: at the optimum as far as the loss can tell (with many
            // scores its sum cannot resolve the last gradient digits, and the tolerance above
            // may never be met).
            if step < 1e-10 || f >= before {
                break;
            }
        }
        let c = Calibration {
            a: a as f32,
            b: b as f32,
            scores: data.len().min(u32::MAX as usize) as u32,
        };
        (c.is_valid().then_some(c), steps)
    }

    /// Whether the map is one a model can hold: finite, a higher score more probable.
    pub(crate) fn is_valid(&self) -> bool {
        self.a.is_finite() && self.b.is_finite() && self.a > 0.0
    }

    /// P(positive class | score).
    pub fn probability(&self, score: f32) -> f32 {
        sigmoid(f64::from(self.a) * f64::from(score) + f64::from(self.b)) as f32
    }

    #[cfg(test)]
    /// The calibrated log-odds ln(P/(1 − P)) of a score.
    pub(crate) fn log_odds(&self, score: f32) -> f32 {
        self.a * score + self.b
    }

    /// The score whose calibrated log-odds are `log_odds`: a decision threshold on the
    /// model's own scores (ln 9 gives the score above which P > 0.9).
    pub fn score_at(&self, log_odds: f32) -> f32 {
        (log_odds - self.b) / self.a
    }
}

/// P(positive class | score) of a two-class linear model: its calibration's where it has
/// one, else a logistic model's own σ(score); `None` for scores that are no probability.
/// The one rule a model file and a store both decide probabilities by.
pub fn probability(calibration: Option<&Calibration>, logistic: bool, score: f32) -> Option<f32> {
    match calibration {
        Some(c) => Some(c.probability(score)),
        None => logistic.then(|| crate::learn::loss::sigmoid(score)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores drawn from a known sigmoid (a = 2, b = −1) by a deterministic grid: the fit
    /// recovers it.
    #[test]
    fn recovers_a_known_sigmoid() {
        let (mut scores, mut positive) = (Vec::new(), Vec::new());
        for i in 0..400 {
            let s = -3.0 + 6.0 * i as f32 / 399.0;
            // 50 documents at each score, positives in proportion σ(2s − 1).
            let p = sigmoid(2.0 * f64::from(s) - 1.0);
            let k = (p * 50.0).round() as usize;
            for j in 0..50 {
                scores.push(s);
                positive.push(j < k);
            }
        }
        let c = Calibration::fit(&scores, &positive).unwrap();
        // Within the rounding of 50 documents per score.
        assert!((c.a - 2.0).abs() < 0.05, "{c:?}");
        assert!((c.b + 1.0).abs() < 0.05, "{c:?}");
        assert_eq!(c.scores, 20_000);
        // P > 0.9 above the score where 2s − 1 = ln 9.
        let t = c.score_at(9f32.ln());
        assert!((t - (1.0 + 9f32.ln()) / 2.0).abs() < 0.03, "{t}");
        assert!((c.probability(t) - 0.9).abs() < 1e-5);
        assert!((c.log_odds(t) - 9f32.ln()).abs() < 1e-5);
    }

    /// Separated scores still give a finite, increasing map: the smoothed targets.
    #[test]
    fn separable_scores_give_a_finite_slope() {
        let scores = [-2.0, -1.5, -1.0, 1.0, 1.5, 2.0];
        let positive = [false, false, false, true, true, true];
        let c = Calibration::fit(&scores, &positive).unwrap();
        assert!(c.is_valid());
        // Targets 4/5 and 1/5, symmetric about 0: by the likelihood's optimum (computed
        // apart with SciPy's minimize) a = 0.8828, b = 0, so P(2) = 0.8539.
        assert!((c.a - 0.8828).abs() < 1e-3, "{c:?}");
        assert!(c.b.abs() < 1e-4, "{c:?}");
        assert!((c.probability(2.0) - 0.8539).abs() < 1e-3);
        assert!((c.probability(-2.0) - 0.1461).abs() < 1e-3);
    }

    /// Many scores, drawn from a known sigmoid (a = 1, b = 0) by a fixed generator (whose
    /// draw is one where this happens): the loss's sum cannot resolve the gradient's last
    /// digits, so the gradient's tolerance is never met, and the fit stops once no step
    /// lowers the loss instead of running out its 100 steps of up to 35 sums each.
    #[test]
    fn many_scores_stop_at_the_optimum() {
        let mut state = 0x2545_f491_4f6c_dd1du64 ^ 2;
        let mut uniform = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut scores, mut positive) = (Vec::new(), Vec::new());
        for _ in 0..10_000 {
            let s = 12.0 * uniform() - 6.0;
            scores.push(s as f32);
            positive.push(uniform() < sigmoid(s));
        }
        let (c, steps) = Calibration::fit_counting(&scores, &positive);
        let c = c.unwrap();
        assert!((c.a - 1.0).abs() < 0.1 && c.b.abs() < 0.1, "{c:?}");
        assert!(steps < 20, "{steps} Newton steps");
    }

    #[test]
    fn refuses_one_class_reversed_scores_and_nan() {
        assert_eq!(Calibration::fit(&[1.0, 2.0], &[true, true]), None);
        let reversed = Calibration::fit(&[1.0, 2.0, -1.0, -2.0], &[false, false, true, true]);
        assert_eq!(reversed, None);
        assert_eq!(Calibration::fit(&[f32::NAN, 1.0], &[true, false]), None);
    }
}
