//! The averaged perceptron (Freund & Schapire's voted perceptron, averaged): the
//! perceptron's mistake-driven updates, returning the average of the weights after every
//! visit. Averaging damps the last few updates' noise and generalizes much like a large
//! margin classifier; the accumulator trick keeps every update sparse.

use super::kind::{LearnerKind, bias_of};
use super::online::{OnlineOptions, train_online};
use super::step::Rule;
use super::{Bias, Setting, UpdateRule};
use super::{Check, Checked, Fitted, Label, Learner, LinearModel};
use crate::Result;
use crate::error::{ConfigError, Param};
use crate::features::SparseRows;
use serde::{Deserialize, Serialize};

/// The averaged perceptron's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AveragedPerceptron {
    /// Epochs, bias, shuffling (averaging is always on).
    pub online: OnlineOptions,
}

impl Default for AveragedPerceptron {
    fn default() -> Self {
        AveragedPerceptron {
            online: OnlineOptions {
                average: true,
                ..OnlineOptions::default()
            },
        }
    }
}

impl Check for AveragedPerceptron {
    fn validate(&self) -> Result<(), crate::ConfigError> {
        self.online.validate()
    }
}

impl Learner for Checked<AveragedPerceptron> {
    type Model = LinearModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<LinearModel>> {
        let opt = OnlineOptions {
            average: true,
            ..self.online
        };
        // A mistake (y·(w·x + b) ≤ 0) costs a unit step, as in Rosenblatt's rule.
        train_online(x, y, &opt, |m, q| Rule::Perceptron.step(m, q))
    }
}

impl LearnerKind for AveragedPerceptron {
    const NAME: &'static str = "averaged-perceptron";
    const ABOUT: &'static str = "the averaged perceptron";
    const ACCEPTS: &'static [Param] = &OnlineOptions::PARAMS;
    const TUNED: &'static [Setting] = &[Setting::Epochs(5), Setting::Epochs(10)];

    fn set(&mut self, setting: Setting) -> Result<(), ConfigError> {
        self.online.set(Self::NAME, setting).map(|_| ())
    }

    fn set_seed(&mut self, seed: u64) {
        self.online.set_seed(seed);
    }

    fn bias(&self) -> Bias {
        bias_of(self.online.bias)
    }

    fn describe(&self) -> String {
        self.online.describe()
    }

    fn update_rule(&self) -> Option<UpdateRule> {
        Some(UpdateRule::Perceptron)
    }

    fn online_rule(&self) -> Option<(OnlineOptions, Rule)> {
        let average = OnlineOptions {
            average: true,
            ..self.online
        };
        Some((average, Rule::Perceptron))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{RealMatrix, real_from_dense};
    use proptest::prelude::*;

    /// The textbook definition: keep a dense running sum of w after every visit.
    fn naive(rows: &[Vec<f32>], y: &[Label], epochs: usize, bias: bool) -> (Vec<f64>, f64) {
        let d = rows.iter().map(Vec::len).max().unwrap_or(0);
        let (mut w, mut b) = (vec![0f64; d], 0f64);
        let (mut sum, mut sb, mut t) = (vec![0f64; d], 0f64, 0f64);
        for _ in 0..epochs {
            for (r, &yi) in rows.iter().zip(y) {
                let yi = f64::from(yi);
                let s: f64 = r
                    .iter()
                    .zip(&w)
                    .map(|(a, b)| f64::from(*a) * b)
                    .sum::<f64>()
                    + b;
                if yi * s <= 0.0 {
                    for (wj, xj) in w.iter_mut().zip(r) {
                        *wj += yi * f64::from(*xj);
                    }
                    if bias {
                        b += yi;
                    }
                }
                for (sj, wj) in sum.iter_mut().zip(&w) {
                    *sj += wj;
                }
                sb += b;
                t += 1.0;
            }
        }
        (sum.iter().map(|s| s / t).collect(), sb / t)
    }

    proptest! {
        #[test]
        fn equals_naive_dense_average(
            rows in proptest::collection::vec(proptest::collection::vec(-2i8..3, 6), 1..25),
            signs in proptest::collection::vec(any::<bool>(), 25),
            epochs in 1usize..4,
            bias in any::<bool>(),
        ) {
            let rows: Vec<Vec<f32>> =
                rows.into_iter().map(|r| r.into_iter().map(f32::from).collect()).collect();
            let y: Vec<Label> = rows.iter().zip(&signs).map(|(_, &s)| if s { 1 } else { -1 }).collect();
            let x: RealMatrix = real_from_dense(&rows);
            let learner = AveragedPerceptron {
                online: OnlineOptions { epochs, bias, shuffle: None, ..OnlineOptions::default() },
            }.check().unwrap();
            let m = learner.fit(&x, &y).unwrap().model;
            let (w, b) = naive(&rows, &y, epochs, bias);
            for (j, wj) in w.iter().enumerate().take(m.w.len()) {
                prop_assert!((f64::from(m.w[j]) - wj).abs() < 1e-4, "w[{j}] {} vs {wj}", m.w[j]);
            }
            prop_assert!((f64::from(m.bias) - b).abs() < 1e-4);
        }
    }
}
