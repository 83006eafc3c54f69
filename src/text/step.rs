//! The named steps an analyzer is made of, and the order they must come in.
//!
//! A model file stores each step by its name (`words`, `lowercase`), so a file says in
//! words what it does, and a build that meets a step it does not know says which one
//! instead of misreading the bytes that follow. Each step's behaviour lives in its own
//! file ([`Words`], [`Lowercase`]); this enum only names them and gives their stage.

use super::{Lowercase, Words};
use std::fmt;

/// One step of an analyzer, in the order the analyzer runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Step {
    /// Split text into UAX #29 words ([`Words`]); the tokenizer, always first.
    Words,
    /// Lowercase every token ([`Lowercase`]).
    Lowercase,
}

/// Where a step may stand: every analyzer has one tokenizer, first, then token filters.
/// Stages only go forward along the list of steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Text → tokens.
    Tokenizer,
    /// Tokens → tokens.
    Filter,
}

impl Step {
    /// Every step this build knows.
    pub const ALL: [Step; 2] = [Step::Words, Step::Lowercase];

    /// The step's name, as stored in a model file.
    pub fn name(self) -> &'static str {
        match self {
            Step::Words => Words::NAME,
            Step::Lowercase => Lowercase::NAME,
        }
    }

    /// The step's stage.
    pub fn stage(self) -> Stage {
        match self {
            Step::Words => Stage::Tokenizer,
            Step::Lowercase => Stage::Filter,
        }
    }

    /// The step stored as `name`, or a sentence saying that this build knows no such step.
    pub fn from_name(name: &str) -> Result<Step, String> {
        Step::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = Step::ALL.iter().map(|s| s.name()).collect();
                format!(
                    "unknown analyzer step {name:?} (this build knows {})",
                    known.join(", ")
                )
            })
    }
}

impl fmt::Display for Step {
    /// The stored form of the step, as [`Step::from_name`] reads it back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Step> for String {
    fn from(s: Step) -> String {
        s.to_string()
    }
}

impl TryFrom<String> for Step {
    type Error = String;

    fn try_from(name: String) -> Result<Step, String> {
        Step::from_name(&name)
    }
}

/// Checks that `steps` can run in this order: one tokenizer, first; stages only going
/// forward; no step twice.
pub(super) fn check_order(steps: &[Step]) -> Result<(), String> {
    let list = || {
        let names: Vec<&str> = steps.iter().map(|s| s.name()).collect();
        names.join(", ")
    };
    match steps.first() {
        None => return Err("an analyzer needs a tokenizer step (words)".to_string()),
        Some(s) if s.stage() != Stage::Tokenizer => {
            return Err(format!(
                "an analyzer starts with its tokenizer (words), not {s} (steps: {})",
                list()
            ));
        }
        Some(_) => {}
    }
    for (i, pair) in steps.windows(2).enumerate() {
        if pair[1].stage() < pair[0].stage() || pair[1].stage() == Stage::Tokenizer {
            return Err(format!(
                "step {} ({}) cannot follow {} (steps: {})",
                i + 2,
                pair[1],
                pair[0],
                list()
            ));
        }
    }
    for (i, s) in steps.iter().enumerate() {
        if steps[..i].contains(s) {
            return Err(format!("step {s} is listed twice (steps: {})", list()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_named() {
        for s in Step::ALL {
            assert_eq!(Step::from_name(s.name()), Ok(s));
        }
        assert_eq!(
            Step::from_name("ngrams").unwrap_err(),
            "unknown analyzer step \"ngrams\" (this build knows words, lowercase)"
        );
    }

    #[test]
    fn order_is_one_tokenizer_first_then_filters_once_each() {
        assert_eq!(check_order(&[Step::Words, Step::Lowercase]), Ok(()));
        assert_eq!(check_order(&[Step::Words]), Ok(()));
        assert!(check_order(&[]).unwrap_err().contains("needs a tokenizer"));
        assert!(
            check_order(&[Step::Lowercase, Step::Words])
                .unwrap_err()
                .contains("starts with its tokenizer")
        );
        assert!(
            check_order(&[Step::Words, Step::Words])
                .unwrap_err()
                .contains("step 2 (words) cannot follow words")
        );
        assert!(
            check_order(&[Step::Words, Step::Lowercase, Step::Lowercase])
                .unwrap_err()
                .contains("listed twice")
        );
    }
}
