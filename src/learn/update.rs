//! The rules a spam filter learns by, one message at a time: the step `learn` and the
//! TREC online protocol take after scoring a message, and the state they carry from one
//! message to the next (AdaGrad's per-feature sums, the count a decaying rate reads).
//!
//! The rule is part of the model: `train --spam/--ham` records the one that belongs to its
//! learner, `eval --online` the one it was given, and every later `learn` applies it, so a
//! filter goes on learning the way it started. Each step touches only the row's nonzeros
//! (and the bias, the weight of a constant feature 1):
//!
//! - perceptron: on a mistake (y·s ≤ 0), w ← w + y·x;
//! - margin (thick threshold τ): whenever y·s ≤ τ, w ← w + y·x;
//! - PA-I: whenever y·s < 1, w ← w + min(C, (1 − y·s)/(‖x‖² + 1))·y·x;
//! - logistic: after every message, w ← w + η·y·θ(−y·s)·x, with η constant, η/√(1 + t)
//!   after t messages, or AdaGrad's per-feature η/√Gⱼ, where Gⱼ sums the squared
//!   gradients feature j has seen.

use super::loss::sigmoid;
use super::step::pa1_step;
use super::{AnyModel, Classifier, LinearModel};
use crate::RowRef;
use crate::error::{ConfigError, Param, non_negative, positive};
use crate::features::SparseRows;
use crate::raw::CowVec;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How a logistic rule's step size changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Rate {
    /// η on every message.
    Constant,
    /// η/√(1 + t) after t messages learned.
    Decaying,
    /// η/√Gⱼ per feature, Gⱼ the sum of the squared gradients of feature j (AdaGrad).
    AdaGrad,
}

impl Rate {
    /// The rate's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Rate::Constant => "constant",
            Rate::Decaying => "decaying",
            Rate::AdaGrad => "adagrad",
        }
    }
}

/// One message's update, as a filter applies it after scoring the message.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum UpdateRule {
    /// Rosenblatt's rule: add y·x on a mistake.
    Perceptron,
    /// The thick-threshold perceptron: add y·x whenever y·s ≤ τ.
    Margin {
        /// The threshold τ ≥ 0.
        tau: f32,
    },
    /// Passive-Aggressive PA-I with aggressiveness C.
    PassiveAggressive {
        /// The cap C > 0 on a step.
        c: f32,
    },
    /// Online logistic regression: a gradient step on ln(1 + e^(−y·s)) after every message.
    Logistic {
        /// The base step size η > 0.
        eta: f32,
        /// How η changes.
        rate: Rate,
    },
}

/// Rosenblatt's rule, the filter's update before rules were recorded.
impl Default for UpdateRule {
    fn default() -> Self {
        UpdateRule::Perceptron
    }
}

impl UpdateRule {
    /// Checks the rule's constants.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match *self {
            UpdateRule::Perceptron => Ok(()),
            UpdateRule::Margin { tau } => non_negative(Param::Tau, tau),
            UpdateRule::PassiveAggressive { c } => positive(Param::C, c),
            UpdateRule::Logistic { eta, .. } => positive(Param::Eta, eta),
        }
    }

    /// Whether the rule keeps per-feature sums.
    pub(crate) fn adaptive(&self) -> bool {
        matches!(
            self,
            UpdateRule::Logistic {
                rate: Rate::AdaGrad,
                ..
            }
        )
    }

    /// The rule's name as `--learner` spells it (`margin-perceptron`), for messages that
    /// name the flag a constant belongs to.
    pub fn name(&self) -> &'static str {
        match self {
            UpdateRule::Perceptron => "perceptron",
            UpdateRule::Margin { .. } => "margin-perceptron",
            UpdateRule::PassiveAggressive { .. } => "pa",
            UpdateRule::Logistic { .. } => "logistic",
        }
    }
}

impl fmt::Display for UpdateRule {
    /// The rule as `inspect` and the online report show it, in the command line's words
    /// (`logistic, adagrad, η 0.5`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            UpdateRule::Perceptron => f.write_str("perceptron, on mistakes"),
            UpdateRule::Margin { tau } => write!(f, "margin perceptron, τ {tau}"),
            UpdateRule::PassiveAggressive { c } => write!(f, "pa, C {c}"),
            UpdateRule::Logistic { eta, rate } => write!(f, "logistic, {}, η {eta}", rate.name()),
        }
    }
}

/// A filter's rule with the state it carries between messages; saved in the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OnlineState {
    /// The rule.
    pub rule: UpdateRule,
    /// Messages learned under the rule (the t of a decaying rate).
    pub seen: u64,
    /// AdaGrad's sums of squared gradients, one per feature id (empty for other rules;
    /// grown with the weights).
    pub sq_grads: CowVec<f32>,
    /// AdaGrad's sum for the bias.
    pub bias_sq_grad: f32,
}

impl OnlineState {
    /// A fresh state for `rule`.
    pub fn new(rule: UpdateRule) -> OnlineState {
        OnlineState {
            rule,
            ..OnlineState::default()
        }
    }

    /// Whether the rule takes a step at signed margin y·s (logistic regression takes one
    /// after every message whose loss has a gradient left).
    pub(crate) fn steps_at(&self, margin: f32) -> bool {
        match self.rule {
            UpdateRule::Perceptron => margin <= 0.0,
            UpdateRule::Margin { tau } => margin <= tau,
            UpdateRule::PassiveAggressive { .. } => margin < 1.0,
            UpdateRule::Logistic { .. } => sigmoid(-margin) > 0.0,
        }
    }

    /// Learns one row `x` (already in the model's geometry) with label `y` = ±1, whose
    /// score before learning was `score`; returns whether the rule took a step (see
    /// `OnlineState::steps_at`). `m.w` must cover every id of `x`.
    pub(crate) fn step(&mut self, m: &mut LinearModel, x: RowRef<'_>, y: f32, score: f32) -> bool {
        self.step_sized(m, x, y, score, 1.0)
    }

    /// [`OnlineState::step`] with the perceptron's and the margin rule's step `size`·y·x
    /// in place of y·x: scikit-learn's `eta0`, which the Python package's `partial_fit`
    /// passes on. The other rules take their own steps (`size` unused); at size 1 this is
    /// `step`, bit for bit.
    pub(crate) fn step_sized(
        &mut self,
        m: &mut LinearModel,
        x: RowRef<'_>,
        y: f32,
        score: f32,
        size: f32,
    ) -> bool {
        let margin = y * score;
        if !self.steps_at(margin) {
            self.skip();
            return false;
        }
        self.seen += 1;
        match self.rule {
            UpdateRule::Perceptron | UpdateRule::Margin { .. } => additive(m, x, y, size),
            UpdateRule::PassiveAggressive { c } => {
                let q = crate::features::ops::nrm2_sq(x) + 1.0;
                additive(m, x, y, pa1_step(margin, q, c));
            }
            UpdateRule::Logistic { eta, rate } => {
                let g = y * sigmoid(-margin);
                match rate {
                    Rate::Constant => additive(m, x, g, eta),
                    Rate::Decaying => additive(m, x, g, eta / (self.seen as f32).sqrt()),
                    Rate::AdaGrad => self.adagrad(m, x, g, eta),
                }
            }
        }
        true
    }

    /// Counts a message the rule takes no step on, for a caller that asked
    /// `OnlineState::steps_at` first and so never built its row.
    pub(crate) fn skip(&mut self) {
        self.seen += 1;
    }

    /// AdaGrad's step along gradient factor `g` (the gradient of feature j is g·xⱼ).
    fn adagrad(&mut self, m: &mut LinearModel, x: RowRef<'_>, g: f32, eta: f32) {
        if self.sq_grads.len() < m.w.len() {
            self.sq_grads.resize(m.w.len(), 0.0);
        }
        let (sq, w) = (self.sq_grads.to_mut(), m.w.to_mut());
        for (j, v) in x.iter() {
            let gj = g * v;
            if gj == 0.0 {
                continue;
            }
            let s = &mut sq[j as usize];
            *s += gj * gj;
            // A gradient so small that its square is 0 in f32 takes no step (its
            // sum may still be 0: no division by it).
            if *s > 0.0 {
                w[j as usize] += eta * gj / s.sqrt();
            }
        }
        self.bias_sq_grad += g * g;
        if self.bias_sq_grad > 0.0 {
            m.bias += eta * g / self.bias_sq_grad.sqrt();
        }
    }

    /// Makes room for `n` features (new words join with no history).
    pub(crate) fn cover(&mut self, n: usize) {
        if self.rule.adaptive() && self.sq_grads.len() < n {
            self.sq_grads.resize(n, 0.0);
        }
    }
}

/// Rows learned in order, one at a time, by one-vs-rest linear models, each with its own
/// state: `OnlineState::step_sized` for every model on every row. It exists so that a
/// fitted model of two or more classes goes on learning row by row (the Python package's
/// `partial_fit`) by the steps `learn` takes on a filter. `models` is one model (two
/// classes: the rows of class 1 are its positives) or one per class (model c's positives
/// are the rows of class c), with a state each; `y` holds each row's class; `size` is the
/// perceptron's step; without `bias` every bias stays 0. Kernel models are left as they
/// are. The models learn in parallel, each reading the rows in order: the result is that
/// of learning them one after another.
pub(crate) fn learn_rows_ovr<X: SparseRows>(
    models: &mut [AnyModel],
    states: &mut [OnlineState],
    x: &X,
    y: &[usize],
    size: f32,
    bias: bool,
) {
    use rayon::prelude::*;
    assert_eq!(models.len(), states.len(), "a state per model");
    let one = models.len() == 1;
    models
        .par_iter_mut()
        .zip(states.par_iter_mut())
        .enumerate()
        .for_each(|(c, (m, state))| {
            let (AnyModel::Linear(m) | AnyModel::Logistic(m)) = m else {
                return;
            };
            let positive = if one { 1 } else { c };
            for (i, &yi) in y.iter().enumerate() {
                let row = x.row(i);
                let y = if yi == positive { 1.0 } else { -1.0 };
                let score = m.score(row);
                state.step_sized(m, row, y, score, size);
                if !bias {
                    m.bias = 0.0;
                }
            }
        });
}

/// `w ← w + a·y·x`, `b ← b + a·y`.
fn additive(m: &mut LinearModel, x: RowRef<'_>, y: f32, a: f32) {
    crate::features::ops::axpy(a * y, x, &mut m.w);
    m.bias += a * y;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(ids: &[u32]) -> RowRef<'_> {
        RowRef::binary(ids)
    }

    #[test]
    fn perceptron_and_margin_update_when_their_test_says() {
        let mut m = LinearModel::zeros(3);
        let mut s = OnlineState::new(UpdateRule::Perceptron);
        assert!(s.step(&mut m, row(&[0, 2]), 1.0, 0.0)); // zero score: a mistake
        assert_eq!((m.w.to_vec(), m.bias), (vec![1.0, 0.0, 1.0], 1.0));
        assert!(!s.step(&mut m, row(&[0, 2]), 1.0, 0.5)); // right side: nothing
        let mut s = OnlineState::new(UpdateRule::Margin { tau: 1.0 });
        assert!(s.step(&mut m, row(&[1]), 1.0, 0.5)); // right side, inside τ
        assert_eq!((m.w.to_vec(), m.bias), (vec![1.0, 1.0, 1.0], 2.0));
        assert!(!s.step(&mut m, row(&[1]), 1.0, 1.5));
        assert_eq!(s.seen, 2);
    }

    #[test]
    fn pa_step_reaches_margin_one_counting_the_bias() {
        // Row of two ones plus the bias feature: ‖x‖² = 3; score 0, so τ = 1/3 and the
        // new score is 3·(1/3) = 1.
        let mut m = LinearModel::zeros(2);
        let mut s = OnlineState::new(UpdateRule::PassiveAggressive { c: 1.0 });
        assert!(s.step(&mut m, row(&[0, 1]), 1.0, 0.0));
        let after = m.w[0] + m.w[1] + m.bias;
        assert!((after - 1.0).abs() < 1e-6, "{after}");
        // C caps the step: C = 0.1 gives 3·0.1 = 0.3 from a zero model.
        let mut m = LinearModel::zeros(2);
        let mut s = OnlineState::new(UpdateRule::PassiveAggressive { c: 0.1 });
        s.step(&mut m, row(&[0, 1]), -1.0, 0.0);
        assert!((m.w[0] + m.w[1] + m.bias + 0.3).abs() < 1e-6);
    }

    #[test]
    fn logistic_rates_take_the_steps_worked_by_hand() {
        // From a zero model, θ(0) = 1/2: the gradient factor is y/2.
        let mut m = LinearModel::zeros(2);
        let mut s = OnlineState::new(UpdateRule::Logistic {
            eta: 0.5,
            rate: Rate::Constant,
        });
        s.step(&mut m, row(&[1]), 1.0, 0.0);
        assert_eq!((m.w.to_vec(), m.bias), (vec![0.0, 0.25], 0.25));
        // Decaying: the second message's step is η/√2.
        let mut m = LinearModel::zeros(1);
        let mut s = OnlineState::new(UpdateRule::Logistic {
            eta: 1.0,
            rate: Rate::Decaying,
        });
        s.step(&mut m, row(&[0]), 1.0, 0.0);
        s.step(&mut m, row(&[0]), -1.0, 0.0);
        assert!((m.w[0] - (0.5 - 0.5 / 2f32.sqrt())).abs() < 1e-6);
        // AdaGrad: the first step on a feature is η·sign(g); the second on the same
        // feature with the same gradient is η·g/√(2g²) = η/√2.
        let mut m = LinearModel::zeros(2);
        let mut s = OnlineState::new(UpdateRule::Logistic {
            eta: 0.5,
            rate: Rate::AdaGrad,
        });
        s.step(&mut m, row(&[0]), 1.0, 0.0);
        assert_eq!((m.w[0], m.w[1], m.bias), (0.5, 0.0, 0.5));
        s.step(&mut m, row(&[0]), 1.0, 0.0);
        assert!((m.w[0] - (0.5 + 0.5 / 2f32.sqrt())).abs() < 1e-6);
        assert_eq!(s.sq_grads, vec![0.5, 0.0]);
    }

    #[test]
    fn a_vanishing_gradient_never_divides_by_a_zero_sum() {
        // At margin 60, θ(−60) ≈ 8.8e−27: its square underflows to 0 in f32.
        let mut m = LinearModel::zeros(1);
        let mut s = OnlineState::new(UpdateRule::Logistic {
            eta: 0.5,
            rate: Rate::AdaGrad,
        });
        s.step(&mut m, row(&[0]), 1.0, 60.0);
        assert!(m.w[0].is_finite() && m.bias.is_finite(), "{m:?}");
    }

    #[test]
    fn a_sized_perceptron_step_scales_the_unit_step() {
        let mut m = LinearModel::zeros(2);
        let mut s = OnlineState::new(UpdateRule::Perceptron);
        assert!(s.step_sized(&mut m, row(&[1]), -1.0, 0.0, 0.25));
        assert_eq!((m.w.to_vec(), m.bias), (vec![0.0, -0.25], -0.25));
        // PA-I's step is its own: the size is not read.
        let (mut a, mut b) = (LinearModel::zeros(2), LinearModel::zeros(2));
        let rule = UpdateRule::PassiveAggressive { c: 1.0 };
        OnlineState::new(rule).step_sized(&mut a, row(&[0, 1]), 1.0, 0.0, 7.0);
        OnlineState::new(rule).step(&mut b, row(&[0, 1]), 1.0, 0.0);
        assert_eq!(a, b);
    }

    #[test]
    fn one_vs_rest_rows_take_each_models_own_steps() {
        // Three classes, perceptron at size 0.5, rows [0] (class 0) then [1] (class 2).
        // Every model errs on the first row (score 0). On the second, model 0 scores 0.5
        // (its bias) for a negative and errs; model 1 scores −0.5 for a negative and does
        // not; model 2 scores −0.5 for a positive and errs.
        let x = crate::features::real_from_dense(&[vec![1.0, 0.0], vec![0.0, 1.0]]);
        let zero = || AnyModel::Linear(LinearModel::zeros(2));
        let mut models = vec![zero(), zero(), zero()];
        let mut states = vec![OnlineState::new(UpdateRule::Perceptron); 3];
        learn_rows_ovr(&mut models, &mut states, &x, &[0, 2], 0.5, true);
        let w = |c: usize| models[c].as_linear().map(|m| (m.w.to_vec(), m.bias));
        assert_eq!(w(0), Some((vec![0.5, -0.5], 0.0)));
        assert_eq!(w(1), Some((vec![-0.5, 0.0], -0.5)));
        assert_eq!(w(2), Some((vec![-0.5, 0.5], 0.0)));
        assert!(states.iter().all(|s| s.seen == 2));
        // One model: class 1 is its positive class; without a bias the bias stays 0.
        let mut models = vec![zero()];
        let mut states = vec![OnlineState::new(UpdateRule::Perceptron)];
        learn_rows_ovr(&mut models, &mut states, &x, &[1, 0], 1.0, false);
        let m = models[0].as_linear().unwrap();
        assert_eq!((m.w.to_vec(), m.bias), (vec![1.0, -1.0], 0.0));
    }

    #[test]
    fn rules_with_bad_constants_are_refused() {
        assert!(UpdateRule::Margin { tau: -1.0 }.validate().is_err());
        assert!(UpdateRule::PassiveAggressive { c: 0.0 }.validate().is_err());
        let bad = UpdateRule::Logistic {
            eta: 0.0,
            rate: Rate::AdaGrad,
        };
        assert!(bad.validate().is_err());
        assert!(UpdateRule::default().validate().is_ok());
    }
}
