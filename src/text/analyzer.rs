//! The analyzer saved in every model: how a document becomes tokens, named step by step.
//!
//! An [`Analyzer`] is a [`Source`] (plain text, or mail with its rules) and an ordered list
//! of named [`Step`]s (`words`, `lowercase`, `ngrams(N)`, `hash(B)`). It is written into
//! the model as exactly that — the source and the step names — and checked again when
//! read, so `classify`, `eval` and `learn` rebuild the analyzer training used from the
//! model alone.
//!
//! Running it costs nothing per token beyond the steps themselves: the steps are compiled
//! once, when the analyzer is built, into the word tokenizer with the lowercase step
//! folded into its loop, and the n-gram step, if any, around it. The hashing step changes
//! no token: it tells the vocabulary to map tokens to ids by their hash
//! ([`Analyzer::hashing`]).

use super::buffer::Flush;
use super::step::check_order;
use super::{
    AnalyzerBuilder, CharGrams, Hashing, Ngrams, Source, Step, TokenBuffer, Tokenizer, Words,
};
use crate::input::Document;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A document's way to tokens: the source it is read from and the steps it goes through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "Record", try_from = "Record")]
pub struct Analyzer {
    source: Source,
    steps: Vec<Step>,
    /// The steps compiled: the word tokenizer with its filters folded in.
    words: Words,
    /// Whether the word tokenizer runs (an analyzer of character n-grams alone has none).
    word_tokens: bool,
    /// The character n-gram tokenizer, if any.
    chars: Option<CharGrams>,
    /// The n-gram step, if any.
    ngrams: Option<Ngrams>,
    /// The hashing step, if any.
    hashing: Option<Hashing>,
}

/// The analyzer as a model file stores it: the source and the step names.
#[derive(Serialize, Deserialize)]
struct Record {
    source: Source,
    steps: Vec<Step>,
}

impl From<Analyzer> for Record {
    fn from(a: Analyzer) -> Record {
        Record {
            source: a.source,
            steps: a.steps,
        }
    }
}

impl TryFrom<Record> for Analyzer {
    type Error = String;

    fn try_from(r: Record) -> Result<Analyzer, String> {
        Analyzer::compile(r.source, r.steps)
    }
}

/// The standard analyzer: plain text, UAX #29 words, lowercased.
impl Default for Analyzer {
    fn default() -> Self {
        Analyzer::standard(Source::Text, true)
    }
}

impl Analyzer {
    /// Starts an analyzer reading `source`; add steps in order, then
    /// [`build`](AnalyzerBuilder::build).
    pub fn builder(source: Source) -> AnalyzerBuilder {
        AnalyzerBuilder::new(source)
    }

    /// The analyzer `train` builds: words, then lowercase unless `lowercase` is false
    /// (`--keep-case`).
    pub fn standard(source: Source, lowercase: bool) -> Analyzer {
        let steps = if lowercase {
            vec![Step::Words, Step::Lowercase]
        } else {
            vec![Step::Words]
        };
        Analyzer::compile(source, steps).expect("the standard steps are in order")
    }

    /// Checks the order of `steps` and compiles them.
    pub(super) fn compile(source: Source, steps: Vec<Step>) -> Result<Analyzer, String> {
        check_order(&steps)?;
        let mut words = Words { lowercase: false };
        let (mut ngrams, mut hashing, mut chars, mut word_tokens) = (None, None, None, false);
        for s in &steps {
            match *s {
                Step::Words => word_tokens = true,
                Step::Chars(n) => chars = Some(CharGrams::new(n)?),
                Step::Lowercase => words.lowercase = true,
                Step::Ngrams(n) => ngrams = Some(Ngrams::new(n)?),
                Step::Hash(b) => hashing = Some(Hashing::new(b)?),
            }
        }
        Ok(Analyzer {
            source,
            steps,
            words,
            word_tokens,
            chars,
            ngrams,
            hashing,
        })
    }

    /// The same steps reading from `source`.
    pub fn with_source(mut self, source: Source) -> Analyzer {
        self.source = source;
        self
    }

    /// Where documents come from and how they are read.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The steps, in the order they run.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The compiled word tokenizer (with the lowercase step folded in when present).
    pub fn words(&self) -> Words {
        self.words
    }

    /// The character n-gram tokenizer, when the analyzer has one.
    pub fn chars(&self) -> Option<CharGrams> {
        self.chars
    }

    /// The n-gram step, when the analyzer makes n-grams.
    pub fn ngrams(&self) -> Option<Ngrams> {
        self.ngrams
    }

    /// The hashing step, when tokens are mapped to ids by their hash rather than by a
    /// vocabulary of words.
    pub fn hashing(&self) -> Option<Hashing> {
        self.hashing
    }

    /// Every token of `doc`: body words, then `field:word` for each prefixed field, then
    /// the document's literal tags. With an n-gram step, each word is followed by the
    /// n-grams ending with it, within its field (`new york`, `subject:cheap meds`).
    /// With a character n-gram tokenizer, the grams of the body and of each field
    /// (`#free`, `subject:#free`) come after the words, before the tags. Duplicates are
    /// passed on; the vectorizer removes them.
    pub fn tokens(&self, doc: &Document, sink: &mut dyn FnMut(&str)) {
        if self.word_tokens {
            self.word_tokens(doc, sink);
        }
        if let Some(c) = self.chars {
            let mut bufs = Default::default();
            let lowercase = self.words.lowercase;
            c.field(&doc.text, "", lowercase, &mut bufs, sink);
            let mut prefix = String::new();
            for (name, text) in &doc.fields {
                prefix.clear();
                prefix.push_str(name);
                prefix.push(':');
                c.field(text, &prefix, lowercase, &mut bufs, sink);
            }
        }
        for tag in &doc.tags {
            sink(tag);
        }
    }

    /// Every token of `doc` as [`tokens`](Self::tokens) gives them, with its key, handed
    /// to `flush` in batches of `buf` (one for most documents; a large one in several).
    /// An analyzer of words alone (the standard one) scans straight into the batch, the
    /// words' keys computed as they are found; any other copies its tokens in.
    pub(crate) fn scan(&self, doc: &Document, buf: &mut TokenBuffer, flush: &mut Flush<'_>) {
        buf.clear();
        if self.word_tokens && self.ngrams.is_none() && self.chars.is_none() {
            buf.push_words(self.words, &doc.text, "", flush);
            let mut prefix = String::new();
            for (name, text) in &doc.fields {
                prefix.clear();
                prefix.push_str(name);
                prefix.push(':');
                buf.push_words(self.words, text, &prefix, flush);
            }
            for tag in &doc.tags {
                buf.push("", tag);
                buf.flush_if_full(flush);
            }
        } else {
            self.tokens(doc, &mut |t| {
                buf.push("", t);
                buf.flush_if_full(flush);
            });
        }
        if !buf.is_empty() {
            flush(buf);
            buf.clear();
        }
    }

    /// Every token of `doc` as the analyzer did before the block scanner (the standard
    /// analyzer's words a byte at a time, `Words::tokens_scalar`): the same tokens as
    /// [`tokens`](Self::tokens). The baseline the benchmark compares with, and an oracle.
    pub fn tokens_scalar(&self, doc: &Document, sink: &mut dyn FnMut(&str)) {
        if !(self.word_tokens && self.ngrams.is_none() && self.chars.is_none()) {
            return self.tokens(doc, sink);
        }
        let words = self.words;
        words.tokens_scalar(&doc.text, sink);
        let mut scratch = String::new();
        for (name, text) in &doc.fields {
            words.tokens_scalar(text, &mut |t| {
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

    /// The word tokens of `doc` (with their n-grams), body first, then each field.
    fn word_tokens(&self, doc: &Document, sink: &mut dyn FnMut(&str)) {
        let words = self.words;
        if let Some(ng) = self.ngrams {
            ng.field(words, &doc.text, "", sink);
            let mut prefix = String::new();
            for (name, text) in &doc.fields {
                prefix.clear();
                prefix.push_str(name);
                prefix.push(':');
                ng.field(words, text, &prefix, sink);
            }
            return;
        }
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
    }
}

impl fmt::Display for Analyzer {
    /// `SOURCE → step → step`, e.g. `text → words → lowercase` (mail rules left out:
    /// [`Source`]'s own `Display` gives them).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.source.name())?;
        for s in &self.steps {
            write!(f, " → {s}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(a: &Analyzer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        a.tokens(&Document::new("d", text, None), &mut |t| {
            out.push(t.to_string())
        });
        out
    }

    #[test]
    fn standard_analyzers_name_their_steps_and_run_them() {
        let a = Analyzer::default();
        assert_eq!(a.steps(), [Step::Words, Step::Lowercase]);
        assert_eq!(a.to_string(), "text → words → lowercase");
        assert_eq!(tokens(&a, "Free MONEY"), ["free", "money"]);
        let kept = Analyzer::standard(Source::mail(), false);
        assert_eq!(kept.to_string(), "mail → words");
        assert_eq!(tokens(&kept, "Free MONEY"), ["Free", "MONEY"]);
    }

    #[test]
    fn fields_are_prefixed_and_tags_kept_as_they_are() {
        let mut d = Document::new("d", "Body", None);
        d.fields.push(("subject".into(), "FREE offer".into()));
        d.tags.push("hdr:Subject".into());
        let mut out = Vec::new();
        Analyzer::default().tokens(&d, &mut |t| out.push(t.to_string()));
        assert_eq!(
            out,
            ["body", "subject:free", "subject:offer", "hdr:Subject"]
        );
    }

    #[test]
    fn a_stored_analyzer_reads_back_equal_and_a_bad_one_is_refused() {
        let cfg = bincode::config::standard();
        for a in [
            Analyzer::default(),
            Analyzer::standard(Source::mail(), false),
        ] {
            let bytes = bincode::serde::encode_to_vec(&a, cfg).unwrap();
            let (back, _): (Analyzer, _) = bincode::serde::decode_from_slice(&bytes, cfg).unwrap();
            assert_eq!(back, a);
            assert_eq!(back.words(), a.words());
        }
        // The steps are stored by name: a list out of order is refused when read.
        let bad = Record {
            source: Source::Text,
            steps: vec![Step::Lowercase, Step::Words],
        };
        let bytes = bincode::serde::encode_to_vec(&bad, cfg).unwrap();
        let err = bincode::serde::decode_from_slice::<Analyzer, _>(&bytes, cfg).unwrap_err();
        assert!(
            err.to_string().contains("starts with its tokenizer"),
            "{err}"
        );
        let json = serde_json::to_value(Analyzer::default()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"source": "text", "steps": ["words", "lowercase"]})
        );
    }

    fn with(steps: &[Step], source: Source) -> Analyzer {
        Analyzer::compile(source, steps.to_vec()).unwrap()
    }

    #[test]
    fn bigrams_of_a_short_text_are_its_adjacent_lowercased_words() {
        let a = with(
            &[Step::Words, Step::Lowercase, Step::Ngrams(2)],
            Source::Text,
        );
        assert_eq!(a.to_string(), "text → words → lowercase → ngrams(2)");
        assert_eq!(
            tokens(&a, "Flights to New York"),
            [
                "flights",
                "to",
                "flights to",
                "new",
                "to new",
                "york",
                "new york"
            ]
        );
    }

    #[test]
    fn mail_n_grams_stay_within_their_field() {
        let a = with(
            &[Step::Words, Step::Lowercase, Step::Ngrams(2)],
            Source::mail(),
        );
        let mut d = Document::new("d", "Buy now", None);
        d.fields.push(("subject".into(), "Cheap meds".into()));
        d.fields.push(("from".into(), "Pharmacy Desk".into()));
        d.tags.push("hdr:Subject".into());
        let mut out = Vec::new();
        a.tokens(&d, &mut |t| out.push(t.to_string()));
        // No `now subject:cheap`, no `subject:meds from:pharmacy`: the body and each
        // field are n-grammed on their own, and tags are left as they are.
        assert_eq!(
            out,
            [
                "buy",
                "now",
                "buy now",
                "subject:cheap",
                "subject:meds",
                "subject:cheap meds",
                "from:pharmacy",
                "from:desk",
                "from:pharmacy desk",
                "hdr:Subject"
            ]
        );
    }

    #[test]
    fn hashing_changes_no_token_and_is_named_last() {
        let a = with(
            &[
                Step::Words,
                Step::Lowercase,
                Step::Ngrams(3),
                Step::Hash(18),
            ],
            Source::Text,
        );
        assert_eq!(
            a.to_string(),
            "text → words → lowercase → ngrams(3) → hash(18)"
        );
        assert_eq!(a.hashing(), Some(Hashing { bits: 18 }));
        assert_eq!(a.ngrams(), Some(Ngrams { n: 3 }));
        assert_eq!(Analyzer::default().hashing(), None);
        assert_eq!(tokens(&a, "a B"), ["a", "b", "a b"]);
        let json = serde_json::to_value(&a).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "source": "text",
                "steps": ["words", "lowercase", "ngrams(3)", "hash(18)"]
            })
        );
        let cfg = bincode::config::standard();
        let bytes = bincode::serde::encode_to_vec(&a, cfg).unwrap();
        let (back, _): (Analyzer, _) = bincode::serde::decode_from_slice(&bytes, cfg).unwrap();
        assert_eq!(back, a);
        assert_eq!((back.ngrams(), back.hashing()), (a.ngrams(), a.hashing()));
    }
}
