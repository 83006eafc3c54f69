//! Configuration errors as data: which parameter, what value, which rule. A library user
//! reads them as sentences; a front end (the command line) renders the parameter under its
//! own name, so no message here names a flag.

use std::fmt;

/// A configurable parameter, by the name the library gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Param {
    /// A learning rate η.
    Eta,
    /// Passes over the data (or their cap).
    Epochs,
    /// Random draws of the randomized perceptron.
    Rounds,
    /// Draws without an update before the randomized perceptron stops.
    Patience,
    /// The multiplier of steps on positive examples.
    PositiveWeight,
    /// The margin perceptron's τ.
    Tau,
    /// C: Passive-Aggressive's aggressiveness, the linear SVM's penalty.
    C,
    /// Winnow's promotion factor α.
    Alpha,
    /// Winnow's update margin.
    Margin,
    /// The L2 strength λ.
    L2,
    /// Rows per gradient step.
    BatchSize,
    /// The held-out fraction of early stopping.
    EarlyStopFraction,
    /// Epochs without held-out improvement before early stopping.
    EarlyStopPatience,
    /// The polynomial kernel's degree.
    Degree,
    /// The polynomial kernel's constant.
    Coef0,
    /// The RBF kernel's width γ.
    Gamma,
    /// The kernel perceptron's memory budget.
    Memory,
    /// The kernel perceptron's time limit.
    MaxSeconds,
    /// The vocabulary's minimum document frequency.
    MinDf,
    /// The vocabulary's size cap.
    MaxFeatures,
    /// The positive class of a binary problem.
    Positive,
    /// Folds of the multi-label threshold tuning.
    ThresholdFolds,
    /// Folds of a cross-validation.
    Folds,
    /// The fraction of rows held out for testing.
    HoldoutFraction,
    /// The learner's name.
    Learner,
    /// How the bias is learnt.
    Bias,
    /// The perceptrons' visiting order and stopping rule.
    Schedule,
    /// Shuffled or input order.
    Shuffle,
    /// Averaged or last weights.
    Average,
    /// The gradient solver.
    Solver,
    /// The learning-rate decay.
    RateSchedule,
    /// The dual perceptron's kernel.
    Kernel,
    /// The dual perceptron's final hypothesis.
    Averaging,
    /// Training above the estimated limits.
    Force,
}

impl Param {
    /// The library's name for it (the field that holds it).
    pub fn name(self) -> &'static str {
        match self {
            Param::Learner => "learner",
            Param::Bias => "bias",
            Param::Schedule => "schedule",
            Param::Shuffle => "shuffle",
            Param::Average => "average",
            Param::Solver => "solver",
            Param::RateSchedule => "schedule",
            Param::Kernel => "kernel",
            Param::Averaging => "averaging",
            Param::Force => "force",
            Param::Eta => "eta",
            Param::Epochs => "epochs",
            Param::Rounds => "rounds",
            Param::Patience => "patience",
            Param::PositiveWeight => "positive_weight",
            Param::Tau => "tau",
            Param::C => "c",
            Param::Alpha => "alpha",
            Param::Margin => "margin",
            Param::L2 => "l2",
            Param::BatchSize => "batch_size",
            Param::EarlyStopFraction => "early_stopping.fraction",
            Param::EarlyStopPatience => "early_stopping.patience",
            Param::Degree => "degree",
            Param::Coef0 => "coef0",
            Param::Gamma => "gamma",
            Param::Memory => "memory",
            Param::MaxSeconds => "max_seconds",
            Param::MinDf => "min_df",
            Param::MaxFeatures => "max_features",
            Param::Positive => "positive",
            Param::ThresholdFolds => "threshold_folds",
            Param::Folds => "folds",
            Param::HoldoutFraction => "test_fraction",
        }
    }

    /// What it is, in words, for messages.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Param::Learner => "the learner",
            Param::Bias => "the bias",
            Param::Schedule => "the schedule",
            Param::Shuffle => "the visiting order",
            Param::Average => "the averaging of the weights",
            Param::Solver => "the solver",
            Param::RateSchedule => "the learning-rate schedule",
            Param::Kernel => "the kernel",
            Param::Averaging => "the final hypothesis",
            Param::Force => "forcing",
            Param::Eta => "the learning rate",
            Param::Epochs => "the number of epochs",
            Param::Rounds => "the number of random draws",
            Param::Patience => "the patience",
            Param::PositiveWeight => "the positive-class weight",
            Param::Tau => "the margin τ",
            Param::C => "C (PA's aggressiveness, the SVM's penalty)",
            Param::Alpha => "Winnow's promotion factor",
            Param::Margin => "Winnow's margin",
            Param::L2 => "the L2 strength",
            Param::BatchSize => "the mini-batch size",
            Param::EarlyStopFraction => "the early-stopping fraction",
            Param::EarlyStopPatience => "the early-stopping patience",
            Param::Degree => "the polynomial degree",
            Param::Coef0 => "the polynomial constant",
            Param::Gamma => "the RBF width",
            Param::Memory => "the memory budget",
            Param::MaxSeconds => "the time limit",
            Param::MinDf => "the minimum document frequency",
            Param::MaxFeatures => "the vocabulary size",
            Param::Positive => "the positive class",
            Param::ThresholdFolds => "the number of threshold folds",
            Param::Folds => "the number of cross-validation folds",
            Param::HoldoutFraction => "the held-out fraction",
        }
    }
}

/// A parameter value that breaks a rule, found before any work starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The parameter.
    pub param: Param,
    /// The offending value, as text.
    pub value: String,
    /// The rule it breaks, a fragment that follows the parameter ("must be at least 1").
    pub rule: String,
}

impl ConfigError {
    /// `param`'s value `value` breaks `rule`.
    pub fn new(param: Param, value: impl fmt::Display, rule: impl Into<String>) -> Self {
        ConfigError {
            param,
            value: value.to_string(),
            rule: rule.into(),
        }
    }

    /// The message with the parameter called `name` (a front end passes its own spelling,
    /// such as a flag).
    pub fn message_naming(&self, name: &str) -> String {
        format!(
            "{} ({name}) {}, got {}",
            self.param.noun(),
            self.rule,
            self.value
        )
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message_naming(self.param.name()))
    }
}

impl std::error::Error for ConfigError {}

/// Checks a rate-like value: finite and positive.
pub(crate) fn positive(param: Param, v: f32) -> Result<(), ConfigError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ConfigError::new(param, v, "must be a positive number"))
    }
}

/// Checks a count: at least 1.
pub(crate) fn at_least_one<T: PartialEq + Default + fmt::Display>(
    param: Param,
    v: T,
) -> Result<(), ConfigError> {
    if v == T::default() {
        Err(ConfigError::new(param, v, "must be at least 1"))
    } else {
        Ok(())
    }
}

/// Checks a value that may be 0: finite and not negative.
pub(crate) fn non_negative(param: Param, v: f32) -> Result<(), ConfigError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(ConfigError::new(param, v, "must be a number ≥ 0"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_a_sentence_under_any_name() {
        let e = positive(Param::Eta, 0.0).unwrap_err();
        assert_eq!(e.param, Param::Eta);
        assert_eq!(e.value, "0");
        assert_eq!(
            e.to_string(),
            "the learning rate (eta) must be a positive number, got 0"
        );
        assert_eq!(
            e.message_naming("η"),
            "the learning rate (η) must be a positive number, got 0"
        );
        assert!(positive(Param::Eta, f32::NAN).is_err());
        assert!(at_least_one(Param::Epochs, 0usize).is_err());
        assert!(at_least_one(Param::Epochs, 3usize).is_ok());
        assert!(non_negative(Param::L2, 0.0).is_ok());
        assert!(non_negative(Param::L2, -1.0).is_err());
    }
}
