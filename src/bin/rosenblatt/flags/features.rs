//! How text becomes tokens (`train`, `vectorize`, `eval --online` from an empty filter):
//! case, word n-grams, character n-grams and hashed ids. The flags build the analyzer a
//! model records, so every later command reads text the same way.

use anyhow::{Result, bail};
use clap::Args;
use rosenblatt::text::{Analyzer, CharGrams, Hashing, Ngrams, Step};

/// The tokens a document gives, as `--features` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tokens {
    /// UAX #29 words.
    pub words: bool,
    /// Character n-grams of this many characters.
    pub chars: Option<CharGrams>,
}

impl Tokens {
    /// Words alone: what `--features` defaults to.
    pub const WORDS: Tokens = Tokens {
        words: true,
        chars: None,
    };

    /// Words and character n-grams of `n` characters.
    #[cfg(test)]
    pub fn words_and_chars(n: u8) -> Tokens {
        Tokens {
            words: true,
            chars: Some(CharGrams::new(n).expect("a valid gram length")),
        }
    }
}

/// Reads `--features`: `words`, `charN` or `words+charN` (N from 2 to 8).
pub fn parse_tokens(s: &str) -> std::result::Result<Tokens, String> {
    let bad = || {
        format!(
            "{s:?}: give words, charN or words+charN (N from 2 to {}), e.g. words+char4",
            CharGrams::MAX
        )
    };
    let chars = |p: &str| -> std::result::Result<CharGrams, String> {
        let n: u8 = p
            .strip_prefix("char")
            .ok_or_else(bad)?
            .parse()
            .map_err(|_| bad())?;
        CharGrams::new(n).map_err(|e| format!("{s:?}: {e}"))
    };
    match s {
        "words" => Ok(Tokens::WORDS),
        _ => match s.split_once('+') {
            Some(("words", c)) => Ok(Tokens {
                words: true,
                chars: Some(chars(c)?),
            }),
            Some(_) => Err(bad()),
            None => Ok(Tokens {
                words: false,
                chars: Some(chars(s)?),
            }),
        },
    }
}

/// The tokenizing flags.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Features")]
pub struct FeatureArgs {
    /// Keep letter case (words and character n-grams are lowercased by default).
    #[arg(long)]
    pub keep_case: bool,
    /// Also use word n-grams of 2 to N adjacent words (1 to 8; 2 adds pairs such as
    /// "new york"), made after lowercasing and within the body or one header field
    /// ("subject:cheap meds"); pruned by --min-df and --max-features as words are
    /// [default: 1; 2 for the filter eval --online starts from].
    #[arg(long, value_name = "N", value_parser = super::names::whole(1u32), allow_negative_numbers = true)]
    pub ngrams: Option<u32>,
    /// The tokens: `words`, `charN` (every run of N characters of the body and of each
    /// header field, whitespace runs as one space; N from 2 to 8) or `words+charN`
    /// [default: words]. Character n-grams catch obfuscated spam words ("v1agra",
    /// "f r e e"); they multiply a document's features, so pair them with --hash-bits.
    #[arg(long, value_name = "TOKENS", value_parser = parse_tokens)]
    pub features: Option<Tokens>,
    /// Hash every word and n-gram into 2^B feature ids (B from 1 to 28) instead of
    /// keeping a vocabulary: the model's size does not grow with new text, and `learn`
    /// weighs words that training never saw. Not with --min-df or --max-features. 0 keeps
    /// a vocabulary of words [default: a vocabulary; 22 for the filter eval --online
    /// starts from].
    #[arg(long, value_name = "B", value_parser = super::names::whole(0u32), allow_negative_numbers = true)]
    pub hash_bits: Option<u32>,
}

impl FeatureArgs {
    /// The n-gram and hashing steps asked for, checked.
    pub fn steps(&self) -> Result<(Option<Ngrams>, Option<Hashing>)> {
        let ngrams = match self.ngrams.unwrap_or(1) {
            1 => None,
            n => match u8::try_from(n).ok().and_then(|n| Ngrams::new(n).ok()) {
                Some(ng) => Some(ng),
                None => bail!(
                    "--ngrams must be from 1 (words only) to {}, got {n}",
                    Ngrams::MAX
                ),
            },
        };
        if ngrams.is_some() && self.features.is_some_and(|t| !t.words) {
            bail!("--ngrams makes n-grams of words: give --features words+charN, not charN alone");
        }
        let hashing = match self.hash_bits {
            None | Some(0) => None,
            Some(b) => match u8::try_from(b).ok().and_then(|b| Hashing::new(b).ok()) {
                Some(h) => Some(h),
                None => bail!(
                    "--hash-bits must be 0 (a vocabulary of words) or from 1 to {} (2^B \
                     feature ids), got {b}",
                    Hashing::MAX_BITS
                ),
            },
        };
        Ok((ngrams, hashing))
    }

    /// The analyzer these flags ask for: `default` (the library's analyzer for this
    /// input, whose source it keeps) with the tokenizers, n-grams and hashing the flags
    /// give instead of its own, lowercase unless --keep-case.
    pub fn analyzer(&self, default: &Analyzer) -> Result<Analyzer> {
        let (ngrams, hashing) = self.steps()?;
        let tokens = self.features.unwrap_or(Tokens {
            words: default.steps().contains(&Step::Words),
            chars: default.chars(),
        });
        let hashing = match self.hash_bits {
            None => default.hashing(),
            Some(_) => hashing, // 0: a vocabulary of words
        };
        // The default's word n-grams stay unless --ngrams is given or no words are made.
        let ngrams = match self.ngrams {
            Some(_) => ngrams,
            None => default.ngrams().filter(|_| tokens.words),
        };
        let mut b = Analyzer::builder(default.source().clone());
        if tokens.words {
            b = b.step(Step::Words);
        }
        if let Some(c) = tokens.chars {
            b = b.step(Step::Chars(c.n));
        }
        if !self.keep_case {
            b = b.step(Step::Lowercase);
        }
        if let Some(n) = ngrams {
            b = b.step(Step::Ngrams(n.n));
        }
        if let Some(h) = hashing {
            b = b.step(Step::Hash(h.bits));
        }
        Ok(b.build()?)
    }

    /// Whether any of them was given (they shape features made from text, which vectors
    /// lack).
    pub fn is_set(&self) -> bool {
        self.keep_case
            || self.ngrams.is_some()
            || self.hash_bits.is_some()
            || self.features.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_name_words_character_grams_or_both() {
        assert_eq!(parse_tokens("words"), Ok(Tokens::WORDS));
        assert_eq!(parse_tokens("words+char4"), Ok(Tokens::words_and_chars(4)));
        let c3 = parse_tokens("char3").unwrap();
        assert_eq!((c3.words, c3.chars.map(|c| c.n)), (false, Some(3)));
        assert!(
            parse_tokens("char1")
                .unwrap_err()
                .contains("2 to 8 characters")
        );
        assert!(parse_tokens("chars4").unwrap_err().contains("words+char4"));
        assert!(parse_tokens("char4+words").is_err());
    }
}
