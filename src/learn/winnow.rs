//! Winnow, balanced (Littlestone 1988; Dagan, Karov & Roth 1997): multiplicative updates.
//! Each feature has a positive and a negative weight, both starting at 1, so the
//! effective weight starts at 0; on a mistake the row's features are promoted or demoted
//! by α^(y·xⱼ). Its mistake bound grows with the logarithm of the number of features
//! (O(k log d) for k relevant ones), where the perceptron's grows with d: the attribute-
//! efficient choice when few features matter.
//!
//! Both weights of a feature move in opposite directions, so their product stays 1 and one
//! log-weight θⱼ per feature suffices: wⱼ = e^θⱼ − e^−θⱼ. The effective weights are kept
//! materialized (updated only at the row's nonzeros), so scoring is the perceptron's dot
//! product. Scores are compared with 0 only, so all weights may share a common factor:
//! when θ grows large the weights are recomputed with a smaller one (rare, amortized).

use super::kind::{LearnerKind, bias_of};
use super::online::epoch_order;
use super::online::on_off_bias;
use super::{Bias, Setting};
use super::{Check, Checked, Fitted, Label, Learner, LinearModel, TrainReport, check_binary};
use crate::Result;
use crate::error::{ConfigError, Param, at_least_one, non_negative};
use crate::features::{SparseRows, ops};
use serde::{Deserialize, Serialize};

/// Winnow's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Winnow {
    /// The promotion factor α > 1 (demotion is 1/α).
    pub alpha: f32,
    /// Passes over the data.
    pub epochs: usize,
    /// Learn a bias as the balanced weight of a constant feature 1.
    pub bias: bool,
    /// Update also when the signed margin is at most this (0: on mistakes only).
    pub margin: f32,
    /// Seeded random order each epoch (`None`: input order).
    pub shuffle: Option<u64>,
}

impl Default for Winnow {
    fn default() -> Self {
        Winnow {
            alpha: 1.5,
            epochs: 10,
            bias: true,
            margin: 0.0,
            shuffle: Some(42),
        }
    }
}

impl Check for Winnow {
    fn validate(&self) -> Result<(), ConfigError> {
        if !(self.alpha.is_finite() && self.alpha > 1.0) {
            return Err(ConfigError::new(
                Param::Alpha,
                self.alpha,
                "must be a number above 1",
            ));
        }
        at_least_one(Param::Epochs, self.epochs)?;
        non_negative(Param::Margin, self.margin)
    }
}

impl Checked<Winnow> {
    /// Fits, calling `on_mistake()` after every online mistake (for mistake-bound studies).
    pub fn fit_counting<X: SparseRows>(
        &self,
        x: &X,
        y: &[Label],
        mut on_mistake: impl FnMut(),
    ) -> Result<Fitted<LinearModel>> {
        check_binary(x, y)?;
        let ln_a = self.alpha.ln();
        let d = x.n_cols();
        // theta[d] is the bias feature's log-weight.
        let mut theta = vec![0f32; d + 1];
        let mut w = vec![0f32; d];
        let mut b = 0f32;
        let mut shift = 0f32; // weights are e^(θ−shift) − e^(−θ−shift)
        let eff = |t: f32, shift: f32| (t - shift).exp() - (-t - shift).exp();
        let mut order: Vec<usize> = (0..x.n_rows()).collect();
        let mut report = TrainReport::default();
        crate::learn::progress::plan(self.epochs);
        for epoch in 0..self.epochs {
            crate::learn::progress::epoch_begun();
            epoch_order(&mut order, self.shuffle, epoch);
            let (mut mistakes, mut updates) = (0u64, 0u64);
            for &i in &order {
                let row = x.row(i);
                let yi = f32::from(y[i]);
                let m = yi * (ops::dot(&w, row) + b);
                report.steps += 1;
                if m <= 0.0 {
                    mistakes += 1;
                    on_mistake();
                }
                if m > self.margin * (-shift).exp() && m > 0.0 {
                    continue;
                }
                updates += 1;
                let mut top = 0f32;
                for (k, &j) in row.ids.iter().enumerate() {
                    let v = row.value(k);
                    let t = &mut theta[j as usize];
                    *t += yi * v * ln_a;
                    top = top.max(t.abs());
                    w[j as usize] = eff(*t, shift);
                }
                if self.bias {
                    theta[d] += yi * ln_a;
                    top = top.max(theta[d].abs());
                    b = eff(theta[d], shift);
                }
                if top - shift > 60.0 {
                    // Rescale every weight by e^−30 (the sign of each score is kept).
                    shift += 30.0;
                    for (wj, &t) in w.iter_mut().zip(&theta) {
                        *wj = eff(t, shift);
                    }
                    b = if self.bias { eff(theta[d], shift) } else { 0.0 };
                }
            }
            report.epochs += 1;
            report.updates += updates;
            report.mistakes_per_epoch.push(mistakes);
            if updates == 0 {
                report.converged = Some(true);
                break;
            }
        }
        Ok(Fitted {
            model: LinearModel {
                w: w.into(),
                bias: b,
            },
            report,
        })
    }
}

impl Learner for Checked<Winnow> {
    type Model = LinearModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<LinearModel>> {
        self.fit_counting(x, y, || {})
    }
}

impl LearnerKind for Winnow {
    const NAME: &'static str = "winnow";
    const ABOUT: &'static str = "balanced Winnow, multiplicative updates";
    const ACCEPTS: &'static [Param] = &[
        Param::Epochs,
        Param::Bias,
        Param::Shuffle,
        Param::Alpha,
        Param::Margin,
    ];

    fn set(&mut self, setting: Setting) -> Result<(), ConfigError> {
        match setting {
            Setting::Epochs(e) => self.epochs = e,
            Setting::Bias(b) => self.bias = on_off_bias(Self::NAME, b)?,
            Setting::Shuffle(s) => self.shuffle = s,
            Setting::Alpha(a) => self.alpha = a,
            Setting::Margin(m) => self.margin = m,
            _ => {}
        }
        Ok(())
    }

    fn set_seed(&mut self, seed: u64) {
        self.shuffle = self.shuffle.map(|_| seed);
    }

    fn bias(&self) -> Bias {
        bias_of(self.bias)
    }

    fn describe(&self) -> String {
        format!(
            "alpha {}, margin {}, {} epochs",
            self.alpha, self.margin, self.epochs
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::real_from_dense;
    use crate::learn::{Bias, Perceptron, Schedule};
    use rand::{Rng, SeedableRng};

    /// `n` uniform points of {−1, 1}^d labelled by the conjunction x₀ ∧ … ∧ x_{k−1}.
    fn conjunction(n: usize, d: usize, k: usize, seed: u64) -> (Vec<Vec<f32>>, Vec<Label>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let rows: Vec<Vec<f32>> = (0..n)
            .map(|_| {
                (0..d)
                    .map(|_| if rng.gen_bool(0.5) { 1.0 } else { -1.0 })
                    .collect()
            })
            .collect();
        let y = rows
            .iter()
            .map(|r| {
                if r[..k].iter().all(|&v| v > 0.0) {
                    1
                } else {
                    -1
                }
            })
            .collect();
        (rows, y)
    }

    /// Online mistakes (one pass over 1500 points) of Winnow and the perceptron,
    /// averaged over three seeds.
    fn mistakes(d: usize, k: usize) -> (f64, f64) {
        let (mut w, mut p) = (0u64, 0u64);
        for seed in 0..3 {
            let (rows, y) = conjunction(1500, d, k, seed);
            let x = real_from_dense(&rows);
            let winnow = Winnow {
                alpha: 1.5,
                epochs: 1,
                bias: true,
                margin: 0.0,
                shuffle: None,
            };
            let winnow = winnow.check().unwrap();
            winnow.fit_counting(&x, &y, || w += 1).unwrap();
            let perceptron = Perceptron {
                eta: 1.0,
                bias: Bias::Augmented,
                schedule: Schedule::Online,
                shuffle: None,
            };
            p += perceptron
                .check()
                .unwrap()
                .fit(&x, &y)
                .unwrap()
                .report
                .mistakes_per_epoch[0];
        }
        (w as f64 / 3.0, p as f64 / 3.0)
    }

    #[test]
    fn conjunction_mistakes_grow_with_log_d_for_winnow_and_with_d_for_the_perceptron() {
        let k = 2;
        let (w16, p16) = mistakes(16, k);
        let (w256, p256) = mistakes(256, k);
        eprintln!("d=16: winnow {w16} perceptron {p16}; d=256: winnow {w256} perceptron {p256}");
        // d grows 16×, log d 2×: Winnow's mistakes stay within a small factor of log d,
        // the perceptron's grow several times more.
        assert!(w256 < 3.0 * w16, "winnow: {w16} → {w256}");
        assert!(p256 > 4.0 * p16, "perceptron: {p16} → {p256}");
        assert!(p256 > 3.0 * w256);
        // Multiplicative updates stay finite however far they go.
        let (rows, y) = conjunction(300, 64, 3, 9);
        let m = Winnow {
            alpha: 3.0,
            epochs: 50,
            ..Winnow::default()
        }
        .check()
        .unwrap()
        .fit(&real_from_dense(&rows), &y)
        .unwrap()
        .model;
        assert!(m.w.iter().all(|v| v.is_finite()) && m.bias.is_finite());
    }
}
