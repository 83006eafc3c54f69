//! The word tokenizer against its oracles on random text: the block scanner (through
//! `Words::tokens` and `Analyzer::scan`) gives exactly the tokens of the Unicode path
//! (`unicode_words`, then lowercasing) and of the byte-at-a-time path it replaced, on text
//! mixing ASCII letters, digits, joiners and punctuation with non-ASCII letters, combining
//! marks, emoji and CJK; long enough to cross the scanner's 64-byte blocks.

use super::{Analyzer, Source, TokenBuffer, Tokenizer, Words, key};
use crate::input::Document;
use proptest::prelude::*;

/// Pieces of text: every byte class the scanner tells apart, and the Unicode neighbours
/// that must send a stretch down the Unicode path (letters, marks that extend a word,
/// format characters, apostrophes and dots of other scripts, emoji with modifiers).
const PIECES: &[&str] = &[
    "a",
    "Z",
    "word",
    "FREE",
    "Can't",
    "x_1",
    "_",
    "__",
    "0",
    "42",
    "3.14",
    "1,000",
    "a.b",
    "U.S.A.",
    "e-mail",
    "a:b",
    "1;2",
    "' ",
    ".",
    ",",
    ":",
    ";",
    "'",
    "-",
    "/",
    "@",
    "#",
    "!",
    "?",
    "\"",
    "(",
    ")",
    "=",
    "+",
    "~",
    "`",
    "^",
    "|",
    "\\",
    "<",
    ">",
    "%",
    "&",
    "*",
    "[",
    "]",
    "{",
    "}",
    "$",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\x0b",
    "\x0c",
    "\0",
    "\x7f",
    "é",
    "É",
    "ß",
    "İ",
    "Ω",
    "жук",
    "ﬁ",
    "\u{301}",
    "\u{308}",
    "\u{200d}",
    "\u{200b}",
    "\u{a0}",
    "\u{2019}",
    "\u{b7}",
    "\u{2024}",
    "\u{ff0e}",
    "\u{5f4}",
    "😀",
    "👍🏽",
    "🇫🇷",
    "日本語",
    "かな",
    "カタカナ",
    "한국어",
    "שלום",
    "عربي",
    "１２",
    "٣",
    "ǅ",
    "ÅNGSTRÖM",
    "naïve",
];

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(PIECES), 0..160).prop_map(|p| p.concat())
}

fn all(words: Words, text: &str, f: impl Fn(&Words, &str, &mut dyn FnMut(&str))) -> Vec<String> {
    let mut out = Vec::new();
    f(&words, text, &mut |t| out.push(t.to_string()));
    out
}

/// The document's tokens through `Analyzer::scan`, each checked against its key.
fn scanned(a: &Analyzer, doc: &Document) -> Vec<String> {
    let mut out = Vec::new();
    a.scan(doc, &mut TokenBuffer::default(), &mut |b| {
        for (w, k) in b.iter() {
            assert_eq!(k, key(w), "{w:?}");
            out.push(w.to_string());
        }
    });
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random Unicode text: the three paths agree, lowercased or not.
    #[test]
    fn the_scanner_gives_the_unicode_paths_tokens(s in text(), lowercase in any::<bool>()) {
        let w = Words { lowercase };
        let reference = all(w, &s, |w, t, k| w.tokens_unicode(t, k));
        prop_assert_eq!(&all(w, &s, |w, t, k| w.tokens(t, k)), &reference);
        prop_assert_eq!(&all(w, &s, |w, t, k| w.tokens_scalar(t, k)), &reference);
    }

    /// Long ASCII text, words across blocks: the scanner agrees with the Unicode path.
    #[test]
    fn long_ascii_text(s in "([a-zA-Z0-9_]{1,70}|[ .,:;'_\n\t-]{1,3}){0,40}") {
        let w = Words::default();
        let reference = all(w, &s, |w, t, k| w.tokens_unicode(t, k));
        prop_assert_eq!(all(w, &s, |w, t, k| w.tokens(t, k)), reference);
    }

    /// A document with fields and tags: scanned into batches with their keys, it gives
    /// the analyzer's tokens before the scanner, in the same order.
    #[test]
    fn a_documents_batches_hold_its_tokens(
        body in text(),
        fields in proptest::collection::vec(("[a-z]{1,8}", text()), 0..4),
        tags in proptest::collection::vec("[a-zA-Z:]{1,12}", 0..3),
        lowercase in any::<bool>(),
    ) {
        let mut doc = Document::new("d", body, None);
        doc.fields = fields.into_iter().map(|(n, t)| (n.into(), t)).collect();
        doc.tags = tags;
        let a = Analyzer::standard(Source::Text, lowercase);
        let mut before = Vec::new();
        a.tokens_scalar(&doc, &mut |t| before.push(t.to_string()));
        prop_assert_eq!(&scanned(&a, &doc), &before);
        let mut now = Vec::new();
        a.tokens(&doc, &mut |t| now.push(t.to_string()));
        prop_assert_eq!(&now, &before);
    }
}
