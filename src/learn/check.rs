//! The parameter guard (as linfa has it): a learner's hyper-parameters are checked once,
//! before any work, and only the [`Checked`] form that checking returns can fit. A
//! configuration struct can be built and changed freely; it cannot train until it passes.

use crate::error::ConfigError;
use std::ops::Deref;

/// Hyper-parameters with rules, checked once before any work.
pub trait Check: Sized {
    /// Every rule the parameters must satisfy; the first one broken is the error.
    fn validate(&self) -> Result<(), ConfigError>;

    /// Checks the parameters and returns the only form that can fit.
    fn check(self) -> Result<Checked<Self>, ConfigError> {
        self.validate()?;
        Ok(Checked(self))
    }
}

/// Parameters that passed their [`Check`]: read-only (through `Deref`), and the only form
/// that implements [`super::Learner`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Checked<P>(P);

impl<P> Checked<P> {
    /// The parameters, to change and check again.
    pub fn into_inner(self) -> P {
        self.0
    }

    /// Wraps parameters already checked as part of a checked whole (a variant of a
    /// checked `AnyLearner`).
    pub(crate) fn assume(p: P) -> Self {
        Checked(p)
    }
}

impl<P> Deref for Checked<P> {
    type Target = P;
    fn deref(&self) -> &P {
        &self.0
    }
}
