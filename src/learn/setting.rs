//! A hyper-parameter value as a front end states it, before it is known which learner
//! will read it. Each learner says which [`Param`]s it takes
//! ([`super::AnyLearner::accepts`]); setting one it does not take is refused, so a flag that
//! would be silently ignored is an error instead.

use super::{Averaging, Bias, EarlyStopping, Kernel, RateSchedule, Schedule, Solver};
use crate::error::Param;

/// One hyper-parameter and its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Setting {
    /// The learning rate η (or the initial rate of a decaying schedule).
    Eta(f32),
    /// Passes over the data (the perceptrons: the epoch cap of their schedule).
    Epochs(usize),
    /// How the bias is learnt; learners with an on/off bias take `None` and `Augmented`.
    Bias(Bias),
    /// The perceptrons' visiting order and stopping rule.
    Schedule(Schedule),
    /// A seeded shuffle per epoch, or input order (`None`).
    Shuffle(Option<u64>),
    /// Return the average of the weights after every visit instead of the last ones.
    Average(bool),
    /// The update margin: the margin perceptron's τ, Winnow's margin.
    Margin(f32),
    /// C: Passive-Aggressive's aggressiveness, the linear SVM's penalty.
    C(f32),
    /// Winnow's promotion factor α.
    Alpha(f32),
    /// The L2 strength λ.
    L2(f32),
    /// The gradient solver.
    Solver(Solver),
    /// How the learning rate decays.
    RateSchedule(RateSchedule),
    /// Stop on held-out log-loss.
    EarlyStopping(EarlyStopping),
    /// The multiplier of steps on positive examples.
    PositiveWeight(f32),
    /// The kernel of the dual perceptron.
    Kernel(Kernel),
    /// Last, averaged or voted hypothesis of the dual perceptron.
    Averaging(Averaging),
    /// Memory for the Gram matrix, in bytes.
    Memory(u64),
    /// Train even when the estimate is above the limits.
    Force(bool),
}

impl Setting {
    /// The parameter it sets.
    pub fn param(&self) -> Param {
        match self {
            Setting::Eta(_) => Param::Eta,
            Setting::Epochs(_) => Param::Epochs,
            Setting::Bias(_) => Param::Bias,
            Setting::Schedule(_) => Param::Schedule,
            Setting::Shuffle(_) => Param::Shuffle,
            Setting::Average(_) => Param::Average,
            Setting::Margin(_) => Param::Margin,
            Setting::C(_) => Param::C,
            Setting::Alpha(_) => Param::Alpha,
            Setting::L2(_) => Param::L2,
            Setting::Solver(_) => Param::Solver,
            Setting::RateSchedule(_) => Param::RateSchedule,
            Setting::EarlyStopping(_) => Param::EarlyStopFraction,
            Setting::PositiveWeight(_) => Param::PositiveWeight,
            Setting::Kernel(_) => Param::Kernel,
            Setting::Averaging(_) => Param::Averaging,
            Setting::Memory(_) => Param::Memory,
            Setting::Force(_) => Param::Force,
        }
    }
}
