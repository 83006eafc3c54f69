//! The margin perceptron: the perceptron's additive step, taken whenever the signed
//! margin y·(w·x + b) is at most τ rather than only on mistakes, so the learned
//! hyperplane keeps a functional margin τ from the training points it can separate.

use super::kind::{LearnerKind, bias_of};
use super::online::{OnlineOptions, train_online};
use super::step::Rule;
use super::{Bias, Setting, UpdateRule};
use super::{Check, Checked, Fitted, Label, Learner, LinearModel};
use crate::Result;
use crate::error::{ConfigError, Param, non_negative, positive};
use crate::features::SparseRows;
use serde::{Deserialize, Serialize};

/// The margin perceptron's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MarginPerceptron {
    /// Update when y·(w·x + b) ≤ τ (τ = 0 is Rosenblatt's rule).
    pub tau: f32,
    /// Step size η.
    pub eta: f32,
    /// Epochs, bias, averaging, shuffling.
    pub online: OnlineOptions,
}

impl Default for MarginPerceptron {
    fn default() -> Self {
        MarginPerceptron {
            tau: 1.0,
            eta: 1.0,
            online: OnlineOptions::default(),
        }
    }
}

impl Check for MarginPerceptron {
    fn validate(&self) -> Result<(), ConfigError> {
        positive(Param::Eta, self.eta)?;
        non_negative(Param::Tau, self.tau)?;
        self.online.validate()
    }
}

impl Learner for Checked<MarginPerceptron> {
    type Model = LinearModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<LinearModel>> {
        let (tau, eta) = (self.tau, self.eta);
        train_online(x, y, &self.online, |m, q| {
            Rule::Margin { tau, eta }.step(m, q)
        })
    }
}

impl LearnerKind for MarginPerceptron {
    const NAME: &'static str = "margin-perceptron";
    const ABOUT: &'static str = "the margin perceptron: updates when y·(w·x + b) ≤ τ";
    const ACCEPTS: &'static [Param] = &[
        Param::Epochs,
        Param::Bias,
        Param::Shuffle,
        Param::PositiveWeight,
        Param::Average,
        Param::Eta,
        Param::Margin,
    ];

    fn set(&mut self, setting: Setting) -> Result<(), ConfigError> {
        match setting {
            Setting::Eta(eta) => self.eta = eta,
            Setting::Margin(tau) => self.tau = tau,
            s => {
                self.online.set(Self::NAME, s)?;
            }
        }
        Ok(())
    }

    fn set_seed(&mut self, seed: u64) {
        self.online.set_seed(seed);
    }

    fn bias(&self) -> Bias {
        bias_of(self.online.bias)
    }

    fn describe(&self) -> String {
        format!(
            "margin {}, eta {}, {}",
            self.tau,
            self.eta,
            self.online.describe()
        )
    }

    fn update_rule(&self) -> Option<UpdateRule> {
        Some(UpdateRule::Margin { tau: self.tau })
    }

    fn online_rule(&self) -> Option<(OnlineOptions, Rule)> {
        let rule = Rule::Margin {
            tau: self.tau,
            eta: self.eta,
        };
        Some((self.online, rule))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::SparseRows;
    use crate::learn::Classifier;
    use crate::learn::seed_examples::four_points;

    #[test]
    fn keeps_the_margin_on_separable_data() {
        let (x, y) = four_points();
        let learner = MarginPerceptron {
            tau: 2.0,
            eta: 1.0,
            online: OnlineOptions {
                epochs: 100,
                average: false,
                shuffle: None,
                ..OnlineOptions::default()
            },
        };
        let f = learner.check().unwrap().fit(&x, &y).unwrap();
        assert_eq!(f.report.converged, Some(true));
        for (i, &yi) in y.iter().enumerate() {
            assert!(f32::from(yi) * f.model.score(x.row(i)) > 2.0);
        }
        assert!(
            MarginPerceptron {
                tau: -1.0,
                ..learner
            }
            .validate()
            .is_err()
        );
    }
}
