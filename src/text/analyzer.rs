//! The analyzer configuration saved in every model: how a document becomes tokens.

use super::{Tokenizer, Words};
use crate::input::Document;
use serde::{Deserialize, Serialize};

/// Serializable tokenizer settings; `classify` rebuilds exactly the tokenizer `train` used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analyzer {
    /// Lowercase words (default true).
    pub lowercase: bool,
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer { lowercase: true }
    }
}

impl Analyzer {
    /// The word tokenizer this configuration describes.
    pub fn words(&self) -> Words {
        Words {
            lowercase: self.lowercase,
        }
    }

    /// Every token of `doc`: body words, then `field:word` for each prefixed field, then
    /// the document's literal tags. Duplicates are passed on; the vectorizer removes them.
    pub fn tokens(&self, doc: &Document, sink: &mut dyn FnMut(&str)) {
        let words = self.words();
        words.tokens(&doc.text, sink);
        let mut scratch = String::new();
        for (name, text) in &doc.fields {
            words.tokens(text, &mut |t| {
                scratch.clear();
                scratch.push_str(name);
                scratch.push(':');
                scratch.push_str(t);
                sink(&scratch);
            });
        }
        for tag in &doc.tags {
            sink(tag);
        }
    }
}
