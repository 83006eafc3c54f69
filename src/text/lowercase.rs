//! The lowercase step: every token in lowercase, so `Free`, `FREE` and `free` are one
//! feature. Lowercasing writes into a reused scratch buffer, so a token costs no allocation.
//!
//! Placed right after the word tokenizer (as the standard analyzer has it), the step is
//! folded into the tokenizer's loop ([`Words::lowercase`](super::Words::lowercase)), which
//! lowercases only the words that hold an uppercase letter; a property test checks that
//! the folded loop gives exactly what [`Lowercase::apply`] gives on each word.

/// The lowercase step of an analyzer (stored in the model as `lowercase`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Lowercase;

impl Lowercase {
    /// The step's name in a model file and in `inspect`.
    pub(crate) const NAME: &'static str = "lowercase";

    /// The lowercase form of `token`: `token` itself when it has nothing to lowercase
    /// (ASCII without capitals), else written into `scratch`.
    pub(crate) fn apply<'a>(&self, token: &'a str, scratch: &'a mut String) -> &'a str {
        if token.is_ascii() && !token.bytes().any(|b| b.is_ascii_uppercase()) {
            return token;
        }
        lowercase_into(token, scratch);
        scratch
    }
}

/// Writes the lowercase form of `word` into `out` (cleared first); ASCII takes a fast path
/// that gives the same result as the Unicode one.
pub(crate) fn lowercase_into(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
    } else {
        for c in word.chars() {
            out.extend(c.to_lowercase());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases_ascii_and_unicode() {
        let mut s = String::new();
        lowercase_into("FrEE", &mut s);
        assert_eq!(s, "free");
        lowercase_into("ÉCOLE", &mut s);
        assert_eq!(s, "école");
        lowercase_into("İ", &mut s);
        assert_eq!(s, "i\u{307}");
    }

    #[test]
    fn apply_passes_lowercase_ascii_through_and_lowercases_the_rest() {
        let mut s = String::new();
        assert_eq!(Lowercase.apply("free", &mut s), "free");
        assert!(s.is_empty(), "no copy for a word already in lowercase");
        assert_eq!(Lowercase.apply("FrEE", &mut s), "free");
        assert_eq!(Lowercase.apply("Ωmega", &mut s), "ωmega");
        assert_eq!(Lowercase.apply("école", &mut s), "école");
    }
}
