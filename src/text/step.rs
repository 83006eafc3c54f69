//! The named steps an analyzer is made of, and the order they must come in.
//!
//! A model file stores each step by its name (`words`, `lowercase`, `ngrams(2)`,
//! `hash(18)`, `chars(4)`), so a file says in words what it does, and a build that meets a step it
//! does not know says which one instead of misreading the bytes that follow. Each step's
//! behaviour lives in its own file ([`Words`], [`CharGrams`], [`Lowercase`], [`Ngrams`],
//! [`Hashing`]);
//! this enum only names them and gives their stage.

use super::{CharGrams, Hashing, Lowercase, Ngrams, Words};
use std::fmt;

/// One step of an analyzer, in the order the analyzer runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Step {
    /// Split text into UAX #29 words (`Words`); a tokenizer, first.
    Words,
    /// Every run of N characters of each field ([`CharGrams`]), N = 2 to
    /// [`CharGrams::MAX`]; a tokenizer, first or right after `words`; stored as `chars(N)`.
    Chars(u8),
    /// Lowercase every token (`Lowercase`).
    Lowercase,
    /// Add the n-grams of 2 to N adjacent tokens of a field ([`Ngrams`]), N = 2 to
    /// [`Ngrams::MAX`]; stored as `ngrams(N)`.
    Ngrams(u8),
    /// Map every token to one of 2^B ids by its hash ([`Hashing`]) instead of a
    /// vocabulary of words, B = 1 to [`Hashing::MAX_BITS`]; stored as `hash(B)`.
    Hash(u8),
}

/// Where a step may stand: every analyzer has one or two tokenizers, first (words, then
/// character n-grams), then token filters, then the n-gram step, then hashing. Stages only go forward along the list of steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Text → tokens.
    Tokenizer,
    /// Tokens → tokens.
    Filter,
    /// Tokens → tokens and the n-grams they form (after the filters, so n-grams are made
    /// of filtered tokens).
    Combiner,
    /// Tokens → feature ids (last: it names ids, not tokens).
    Ids,
}

impl Step {
    /// The stored form of every step this build knows, for messages.
    pub(crate) const KNOWN: [&'static str; 5] =
        ["words", "chars(N)", "lowercase", "ngrams(N)", "hash(B)"];

    /// The step's name, as stored in a model file before its parameter (`ngrams` of
    /// `ngrams(2)`).
    pub fn name(self) -> &'static str {
        match self {
            Step::Words => Words::NAME,
            Step::Chars(_) => CharGrams::NAME,
            Step::Lowercase => Lowercase::NAME,
            Step::Ngrams(_) => Ngrams::NAME,
            Step::Hash(_) => Hashing::NAME,
        }
    }

    /// The step's stage.
    pub(crate) fn stage(self) -> Stage {
        match self {
            Step::Words | Step::Chars(_) => Stage::Tokenizer,
            Step::Lowercase => Stage::Filter,
            Step::Ngrams(_) => Stage::Combiner,
            Step::Hash(_) => Stage::Ids,
        }
    }

    /// Checks the step's parameter, if it has one; the error is a sentence.
    pub(crate) fn check(self) -> Result<(), String> {
        match self {
            Step::Words | Step::Lowercase => Ok(()),
            Step::Ngrams(n) => Ngrams::new(n).map(drop),
            Step::Chars(n) => CharGrams::new(n).map(drop),
            Step::Hash(b) => Hashing::new(b).map(drop),
        }
    }

    /// The step stored as `name` (`words`, `ngrams(2)`, …), or a sentence saying that this
    /// build knows no such step or that its parameter is out of range.
    pub(crate) fn from_name(name: &str) -> Result<Step, String> {
        let unknown = || {
            format!(
                "unknown analyzer step {name:?} (this build knows {})",
                Step::KNOWN.join(", ")
            )
        };
        let step = match name {
            "words" => Step::Words,
            "lowercase" => Step::Lowercase,
            _ => {
                let (kind, rest) = name.split_once('(').ok_or_else(unknown)?;
                let arg = rest.strip_suffix(')').ok_or_else(unknown)?;
                let make: fn(u8) -> Step = match kind {
                    Ngrams::NAME => Step::Ngrams,
                    CharGrams::NAME => Step::Chars,
                    Hashing::NAME => Step::Hash,
                    _ => return Err(unknown()),
                };
                let v: u8 = arg
                    .parse()
                    .map_err(|_| format!("analyzer step {name:?}: {arg:?} is not a size"))?;
                make(v)
            }
        };
        step.check()
            .map_err(|e| format!("analyzer step {name:?}: {e}"))?;
        Ok(step)
    }
}

impl fmt::Display for Step {
    /// The stored form of the step, as `Step::from_name` reads it back: its name, and
    /// its parameter in parentheses (`ngrams(2)`, `hash(18)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match self {
            Step::Words | Step::Lowercase => Ok(()),
            Step::Ngrams(v) | Step::Hash(v) | Step::Chars(v) => write!(f, "({v})"),
        }
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

/// Checks that `steps` can run in this order: one or two tokenizers, first (`words`
/// before `chars(N)`); stages only going forward; no step twice (whatever its
/// parameter); word n-grams only with the word tokenizer; every parameter in range.
pub(super) fn check_order(steps: &[Step]) -> Result<(), String> {
    let list = || {
        let names: Vec<String> = steps.iter().map(|s| s.to_string()).collect();
        names.join(", ")
    };
    for s in steps {
        s.check().map_err(|e| format!("step {s}: {e}"))?;
    }
    match steps.first() {
        None => return Err("an analyzer needs a tokenizer step (words or chars(N))".to_string()),
        Some(s) if s.stage() != Stage::Tokenizer => {
            return Err(format!(
                "an analyzer starts with its tokenizer (words or chars(N)), not {s} (steps: {})",
                list()
            ));
        }
        Some(_) => {}
    }
    for (i, pair) in steps.windows(2).enumerate() {
        let second_tokenizer = pair[0] == Step::Words && matches!(pair[1], Step::Chars(_));
        if pair[1].stage() < pair[0].stage()
            || (pair[1].stage() == Stage::Tokenizer && !second_tokenizer)
        {
            return Err(format!(
                "step {} ({}) cannot follow {} (steps: {})",
                i + 2,
                pair[1],
                pair[0],
                list()
            ));
        }
    }
    if steps.iter().any(|s| matches!(s, Step::Ngrams(_))) && !steps.contains(&Step::Words) {
        return Err(format!(
            "word n-grams need the words tokenizer (steps: {})",
            list()
        ));
    }
    for (i, s) in steps.iter().enumerate() {
        if steps[..i].iter().any(|p| p.name() == s.name()) {
            return Err(format!(
                "step {} is listed twice (steps: {})",
                s.name(),
                list()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_named() {
        for s in [
            Step::Words,
            Step::Lowercase,
            Step::Ngrams(2),
            Step::Hash(18),
        ] {
            assert_eq!(Step::from_name(&s.to_string()), Ok(s));
        }
        assert_eq!(Step::Ngrams(3).to_string(), "ngrams(3)");
        assert_eq!(Step::Hash(20).to_string(), "hash(20)");
        let known = "(this build knows words, chars(N), lowercase, ngrams(N), hash(B))";
        assert_eq!(
            Step::from_name("ngrams").unwrap_err(),
            format!("unknown analyzer step \"ngrams\" {known}")
        );
        assert_eq!(
            Step::from_name("stem(2)").unwrap_err(),
            format!("unknown analyzer step \"stem(2)\" {known}")
        );
        assert_eq!(
            Step::from_name("ngrams(1)").unwrap_err(),
            "analyzer step \"ngrams(1)\": n-grams are 2 to 8 tokens long, not 1 (1 is no \
             n-gram step)"
        );
        assert_eq!(
            Step::from_name("hash(40)").unwrap_err(),
            "analyzer step \"hash(40)\": features are hashed into 2^1 to 2^28 ids, not 2^40"
        );
        assert!(
            Step::from_name("hash(x)")
                .unwrap_err()
                .contains("is not a size")
        );
        assert!(Step::from_name("hash(300)").is_err());
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

    #[test]
    fn character_grams_tokenize_alone_or_right_after_words() {
        let both = [Step::Words, Step::Chars(4), Step::Lowercase, Step::Hash(20)];
        assert_eq!(check_order(&both), Ok(()));
        assert_eq!(check_order(&[Step::Chars(4), Step::Lowercase]), Ok(()));
        assert_eq!(Step::from_name("chars(4)"), Ok(Step::Chars(4)));
        assert!(
            check_order(&[Step::Chars(4), Step::Words])
                .unwrap_err()
                .contains("cannot follow chars(4)")
        );
        assert!(
            check_order(&[Step::Words, Step::Lowercase, Step::Chars(4)])
                .unwrap_err()
                .contains("cannot follow lowercase")
        );
        assert!(
            check_order(&[Step::Chars(4), Step::Ngrams(2)])
                .unwrap_err()
                .contains("word n-grams need the words tokenizer")
        );
        assert!(Step::from_name("chars(1)").is_err());
    }

    #[test]
    fn n_grams_follow_the_filters_and_hashing_comes_last() {
        let all = [
            Step::Words,
            Step::Lowercase,
            Step::Ngrams(2),
            Step::Hash(18),
        ];
        assert_eq!(check_order(&all), Ok(()));
        assert_eq!(check_order(&[Step::Words, Step::Hash(4)]), Ok(()));
        assert_eq!(
            check_order(&[Step::Words, Step::Ngrams(2), Step::Lowercase]).unwrap_err(),
            "step 3 (lowercase) cannot follow ngrams(2) (steps: words, ngrams(2), lowercase)"
        );
        assert!(
            check_order(&[Step::Words, Step::Hash(4), Step::Ngrams(2)])
                .unwrap_err()
                .contains("cannot follow hash(4)")
        );
        assert!(
            check_order(&[Step::Words, Step::Ngrams(2), Step::Ngrams(3)])
                .unwrap_err()
                .contains("step ngrams is listed twice")
        );
        assert_eq!(
            check_order(&[Step::Words, Step::Ngrams(9)]).unwrap_err(),
            "step ngrams(9): n-grams are 2 to 8 tokens long, not 9 (1 is no n-gram step)"
        );
    }
}
