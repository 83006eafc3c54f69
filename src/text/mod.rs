//! Text → tokens: the analyzer that every document goes through, in training and in
//! classification alike, so both see exactly the same words.
//!
//! A [`Tokenizer`] pushes tokens into a sink (no allocation per token). The [`Analyzer`]
//! is the serializable configuration saved inside a model; it tokenizes a whole
//! [`Document`](crate::input::Document): its body, its prefixed fields (`subject:free`) and
//! its literal tags.

mod analyzer;
mod lowercase;
mod words;

pub use analyzer::Analyzer;
pub use lowercase::lowercase_into;
pub use words::Words;

/// Splits text into tokens, handing each one to `sink`; shared read-only across threads.
pub trait Tokenizer: Send + Sync {
    /// Calls `sink` once per token of `text`, in order (duplicates included).
    fn tokens(&self, text: &str, sink: &mut dyn FnMut(&str));
}
