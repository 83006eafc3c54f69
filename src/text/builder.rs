//! Composing an analyzer step by step, checked once when built: one tokenizer first, then
//! filters, each at most once.

use super::{Analyzer, Source, Step};
use crate::{Error, Result};

/// Collects an analyzer's source and steps; [`build`](Self::build) checks their order.
#[derive(Debug, Clone)]
pub struct AnalyzerBuilder {
    source: Source,
    steps: Vec<Step>,
}

impl AnalyzerBuilder {
    /// A builder for an analyzer reading `source`, with no steps yet.
    pub(crate) fn new(source: Source) -> Self {
        AnalyzerBuilder {
            source,
            steps: Vec::new(),
        }
    }

    /// Appends `step`.
    pub fn step(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    /// The analyzer, or an error saying which step is out of place.
    pub fn build(self) -> Result<Analyzer> {
        Analyzer::compile(self.source, self.steps).map_err(Error::Unsupported)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_standard_analyzer_and_refuses_a_bad_order() {
        let a = Analyzer::builder(Source::Text)
            .step(Step::Words)
            .step(Step::Lowercase)
            .build()
            .unwrap();
        assert_eq!(a, Analyzer::default());
        let err = Analyzer::builder(Source::Text)
            .step(Step::Lowercase)
            .build()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "an analyzer starts with its tokenizer (words or chars(N)), not lowercase (steps: \
             lowercase)"
        );
    }
}
