//! Text → tokens: the analyzer that every document goes through, in training and in
//! classification alike, so both see exactly the same words.
//!
//! An [`Analyzer`] is a [`Source`] — plain text, or mail with its [`MailRules`] — and an
//! ordered list of named [`Step`]s: the UAX #29 word tokenizer (`Words`) and the
//! character n-gram tokenizer ([`CharGrams`]), one or both, then `Lowercase`, word
//! n-grams ([`Ngrams`]) and feature hashing ([`Hashing`]). The model stores it as the source and the step names, so `inspect`
//! shows what a model does and `classify`, `eval` and `learn` replay it exactly. An
//! analyzer tokenizes a whole [`Document`](crate::input::Document): its body, its prefixed
//! fields (`subject:free`) and its literal tags.
//!
//! Each step lives in its own file as a small type; [`Step`] names it and gives its
//! [`Stage`] (tokenizer, filters, n-grams, hashing), the `AnalyzerBuilder` checks the
//! order, and the analyzer compiles the list once into the loop that runs per token. A new
//! step arrives as its file, a variant of [`Step`] with its name and stage, and its place
//! in that loop.
//!
//! A [`Tokenizer`] pushes tokens into a sink (no allocation per token).
//!
//! [`MailRules`]: crate::input::mail::MailRules

mod analyzer;
mod buffer;
mod builder;
mod chars;
mod hash;
mod key;
mod lowercase;
mod ngrams;
#[cfg(test)]
mod oracle_tests;
mod scan;
mod source;
mod step;
mod unique;
mod words;

pub use analyzer::Analyzer;
pub(crate) use buffer::TokenBuffer;
pub use builder::AnalyzerBuilder;
pub use chars::CharGrams;
pub use hash::Hashing;
pub(crate) use key::{Key, head_of, key, same_bytes};
pub(crate) use lowercase::Lowercase;
pub use ngrams::Ngrams;
pub use source::Source;
pub use step::{Stage, Step};
pub(crate) use unique::UniqueWords;
#[cfg(feature = "store")]
pub(crate) use unique::word_hash;
pub(crate) use words::{Words, with_batch};

/// Splits text into tokens, handing each one to `sink`; shared read-only across threads.
pub trait Tokenizer: Send + Sync {
    /// Calls `sink` once per token of `text`, in order (duplicates included).
    fn tokens(&self, text: &str, sink: &mut dyn FnMut(&str));
}
