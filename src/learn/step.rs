//! The step sizes of the additive online learners, written once: the perceptron's unit
//! step on a mistake, the margin perceptron's η under τ, and PA-I's min(C, loss/‖x‖²).
//! The binary fits, the one-vs-rest fits of every class in one pass and the filters'
//! one-message updates (`update`) all take their step from here.

/// The step-size rule of an additive online learner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Rule {
    /// A unit step on a mistake (y·(w·x + b) ≤ 0).
    Perceptron,
    /// A step η when y·(w·x + b) ≤ τ.
    Margin {
        /// τ.
        tau: f32,
        /// η.
        eta: f32,
    },
    /// PA-I: min(C, (1 − m)/‖x‖²) when the margin m is below 1.
    PassiveAggressive {
        /// C.
        c: f32,
    },
}

impl Rule {
    /// The step size for signed margin `m` and squared norm `q`.
    #[inline]
    pub(crate) fn step(self, m: f32, q: f32) -> f32 {
        match self {
            Rule::Perceptron => {
                if m <= 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Rule::Margin { tau, eta } => {
                if m <= tau {
                    eta
                } else {
                    0.0
                }
            }
            Rule::PassiveAggressive { c } => pa1_step(m, q, c),
        }
    }
}

/// PA-I's step for signed margin `m` and squared row norm `q`.
#[inline]
pub(crate) fn pa1_step(m: f32, q: f32, c: f32) -> f32 {
    let loss = 1.0 - m;
    if loss > 0.0 && q > 0.0 {
        (loss / q).min(c)
    } else {
        0.0
    }
}
