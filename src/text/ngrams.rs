//! The n-gram step: besides every token, the runs of 2 to N adjacent tokens, so that
//! `new york` or `click here` can weigh differently from their words.
//!
//! An n-gram is its tokens joined by one space (`new york`); tokens never hold a space,
//! so an n-gram never equals a word. N-grams are formed within one field: the body of a
//! document is one field, and each mail header field another, whose n-grams carry the
//! field's prefix once (`subject:cheap meds`). No n-gram joins two fields, and tags are
//! left alone. The step comes after the filters, so its n-grams are made of lowercased
//! tokens when the analyzer lowercases.
//!
//! Each field costs two reused buffers (the window of the last N − 1 tokens and the
//! n-gram being written), not an allocation per token; an analyzer without this step
//! (N = 1) never reaches this code.

use super::{Tokenizer, Words};

/// The n-gram step (stored in the model as `ngrams(N)`): every token and every run of
/// 2 to `n` adjacent tokens of one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ngrams {
    /// The longest n-gram, in tokens (2 to [`Ngrams::MAX`]).
    pub n: u8,
}

impl Ngrams {
    /// The step's name in a model file and in `inspect`, before its `(N)`.
    pub(crate) const NAME: &'static str = "ngrams";
    /// The longest n-grams an analyzer makes: beyond that, nearly every n-gram is seen
    /// once, and a document's features grow with N.
    pub const MAX: u8 = 8;

    /// Checks `n`: n-grams of 2 to [`Ngrams::MAX`] tokens (1 is the analyzer without
    /// the step).
    pub fn new(n: u8) -> Result<Ngrams, String> {
        if (2..=Self::MAX).contains(&n) {
            Ok(Ngrams { n })
        } else {
            Err(format!(
                "n-grams are 2 to {} tokens long, not {n} (1 is no n-gram step)",
                Self::MAX
            ))
        }
    }

    /// Tokens of one field of `text` as `words` gives them, each followed by the n-grams
    /// that end with it, shortest first; every one is written after `prefix` (empty for
    /// the body, `subject:` for a header field).
    pub(crate) fn field(&self, words: Words, text: &str, prefix: &str, sink: &mut dyn FnMut(&str)) {
        let n = usize::from(self.n);
        // The last tokens joined by spaces, and where each starts in `window`.
        let mut window = String::new();
        let mut starts: Vec<usize> = Vec::with_capacity(n);
        let mut out = String::new();
        let mut emit = |s: &str, sink: &mut dyn FnMut(&str)| {
            if prefix.is_empty() {
                sink(s);
            } else {
                out.clear();
                out.push_str(prefix);
                out.push_str(s);
                sink(&out);
            }
        };
        words.tokens(text, &mut |t| {
            emit(t, sink);
            if !starts.is_empty() {
                window.push(' ');
            }
            starts.push(window.len());
            window.push_str(t);
            for &s in starts.iter().rev().skip(1) {
                emit(&window[s..], sink);
            }
            if starts.len() == n {
                // Keep the last N − 1 tokens: the ones the next n-grams start with.
                let cut = starts[1];
                window.drain(..cut);
                starts.remove(0);
                for s in &mut starts {
                    *s -= cut;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grams(n: u8, text: &str, prefix: &str) -> Vec<String> {
        let mut out = Vec::new();
        Ngrams { n }.field(Words::default(), text, prefix, &mut |t| {
            out.push(t.to_string())
        });
        out
    }

    #[test]
    fn bigrams_and_trigrams_of_a_short_text() {
        assert_eq!(
            grams(2, "New York, new YORK!", ""),
            [
                "new", "york", "new york", "new", "york new", "york", "new york"
            ]
        );
        assert_eq!(
            grams(3, "a b c d", ""),
            ["a", "b", "a b", "c", "b c", "a b c", "d", "c d", "b c d"]
        );
        assert_eq!(grams(2, "alone", ""), ["alone"]);
        assert!(grams(2, " ,; ", "").is_empty());
    }

    #[test]
    fn a_prefix_is_written_once_before_each_token_and_n_gram() {
        assert_eq!(
            grams(2, "Cheap meds", "subject:"),
            ["subject:cheap", "subject:meds", "subject:cheap meds"]
        );
    }

    #[test]
    fn long_n_grams_slide_over_unicode_tokens() {
        let g = grams(Ngrams::MAX, "ÉTÉ à paris", "");
        assert_eq!(g, ["été", "à", "été à", "paris", "à paris", "été à paris"]);
    }

    #[test]
    fn sizes_outside_two_to_max_are_refused() {
        assert!(Ngrams::new(2).is_ok() && Ngrams::new(Ngrams::MAX).is_ok());
        assert_eq!(
            Ngrams::new(1).unwrap_err(),
            "n-grams are 2 to 8 tokens long, not 1 (1 is no n-gram step)"
        );
        assert!(Ngrams::new(0).is_err() && Ngrams::new(9).is_err());
    }
}
