//! The word tokenizer step: Unicode word segmentation (UAX #29) with an ASCII fast path.
//!
//! `unicode-segmentation`'s `unicode_words` is the reference. Text is cut into ASCII and
//! non-ASCII stretches ([`stretches`]); pure-ASCII text, the common case in mail and
//! newswire, takes the block scanner (`scan`: the word-boundary rules restricted to ASCII,
//! WB5–WB13b, and the same "contains a letter or digit" filter, 64 bytes at a time) and the
//! rest the Unicode path. The byte-at-a-time state machine the scanner replaced stays as
//! [`Words::tokens_scalar`]: a second oracle for the tests and the baseline of the
//! benchmark. Property tests check that all of them give identical tokens.

use super::{Lowercase, TokenBuffer, Tokenizer};
use std::cell::RefCell;
use unicode_segmentation::UnicodeSegmentation;

/// The word tokenizer (stored in the model as `words`): UAX #29 words, with a following
/// [`Lowercase`] step folded into its loop when `lowercase` is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    /// Lowercase every word: the analyzer's lowercase step, run inside this loop (only
    /// words holding a capital are copied and lowercased).
    pub lowercase: bool,
}

impl Default for Words {
    fn default() -> Self {
        Words { lowercase: true }
    }
}

impl Words {
    /// The step's name in a model file and in `inspect`.
    pub(crate) const NAME: &'static str = "words";

    /// The reference path: `unicode_words`, then lowercasing. Used for non-ASCII text.
    pub fn tokens_unicode(&self, text: &str, sink: &mut dyn FnMut(&str)) {
        let mut scratch = String::new();
        for w in text.unicode_words() {
            if self.lowercase {
                sink(Lowercase.apply(w, &mut scratch));
            } else {
                sink(w);
            }
        }
    }

    /// The byte-at-a-time ASCII path the block scanner replaced; `text` must be ASCII.
    pub(crate) fn tokens_ascii_scalar(&self, text: &str, sink: &mut dyn FnMut(&str)) {
        debug_assert!(text.is_ascii());
        let b = text.as_bytes();
        let mut scratch = Vec::<u8>::with_capacity(64);
        let mut i = 0;
        while i < b.len() {
            if CLASS[b[i] as usize] & WORD == 0 {
                i += 1;
                continue;
            }
            let start = i;
            let mut flags = CLASS[b[i] as usize];
            i += 1;
            while i < b.len() {
                let c = CLASS[b[i] as usize];
                if c & WORD != 0 {
                    flags |= c;
                    i += 1;
                } else if i + 1 < b.len() && joins(b[i - 1], b[i], b[i + 1]) {
                    flags |= CLASS[b[i + 1] as usize];
                    i += 2;
                } else {
                    break;
                }
            }
            if flags & ALNUM == 0 {
                continue;
            }
            let word = &b[start..i];
            if self.lowercase && flags & UPPER != 0 {
                scratch.clear();
                scratch.extend(word.iter().map(u8::to_ascii_lowercase));
                // SAFETY: lowercasing ASCII bytes keeps them ASCII, hence valid UTF-8.
                sink(unsafe { std::str::from_utf8_unchecked(&scratch) });
            } else {
                // SAFETY: a slice of ASCII text at ASCII boundaries is valid UTF-8.
                sink(unsafe { std::str::from_utf8_unchecked(word) });
            }
        }
    }
}

/// Byte classes of the ASCII path: part of a word (letter, digit, `_`), a letter or digit,
/// an uppercase letter.
const WORD: u8 = 1;
const ALNUM: u8 = 2;
const UPPER: u8 = 4;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() {
            t[c] = WORD | ALNUM;
        }
        if b.is_ascii_uppercase() {
            t[c] |= UPPER;
        }
        if b == b'_' {
            t[c] = WORD;
        }
        c += 1;
    }
    t
};

/// Whether `prev mid next` stays one word: letters around MidLetter/MidNumLet/quote (WB6/7),
/// digits around MidNum/MidNumLet/quote (WB11/12).
#[inline]
fn joins(prev: u8, mid: u8, next: u8) -> bool {
    let letters = prev.is_ascii_alphabetic() && next.is_ascii_alphabetic();
    let digits = prev.is_ascii_digit() && next.is_ascii_digit();
    match mid {
        b'.' | b'\'' => letters || digits,
        b':' => letters,
        b',' | b';' => digits,
        _ => false,
    }
}

/// A stretch of text that one path tokenizes whole.
pub(crate) enum Stretch<'a> {
    /// ASCII text (the fast paths).
    Ascii(&'a str),
    /// Text holding non-ASCII characters (the Unicode path).
    Unicode(&'a str),
}

/// Cuts `text` into ASCII and Unicode stretches, in order, and hands each to `f`. The text
/// is cut only at an ASCII whitespace byte that follows ASCII text or precedes it: UAX #29
/// always breaks there (no rule joins a letter, digit or mark to such whitespace, and
/// whitespace itself is never part of a word), so tokenizing the stretches one by one gives
/// exactly the Unicode path's tokens of the whole.
#[inline]
pub(crate) fn stretches<'a>(text: &'a str, f: &mut impl FnMut(Stretch<'a>)) {
    let b = text.as_bytes();
    let mut start = 0;
    while start < b.len() {
        let rest = &b[start..];
        // `is_ascii` checks a word at a time: the common all-ASCII case costs little.
        let found = if rest.is_ascii() {
            None
        } else {
            rest.iter().position(|&c| c >= 0x80)
        };
        let Some(off) = found else {
            f(Stretch::Ascii(&text[start..]));
            return;
        };
        let first = start + off;
        // The ASCII part ends at the last whitespace before the first non-ASCII byte.
        let cut = b[start..first]
            .iter()
            .rposition(u8::is_ascii_whitespace)
            .map_or(start, |p| start + p);
        if cut > start {
            f(Stretch::Ascii(&text[start..cut]));
        }
        // The Unicode part ends at the first whitespace followed by ASCII (or the end).
        let mut end = first;
        while end < b.len()
            && !(b[end].is_ascii_whitespace() && b.get(end + 1).is_none_or(|&c| c < 0x80))
        {
            end += 1;
        }
        f(Stretch::Unicode(&text[cut..end]));
        start = end;
    }
}

impl Words {
    /// The tokenizer as it was before the block scanner: ASCII stretches a byte at a
    /// time, the rest through the Unicode path. The same tokens as [`Tokenizer::tokens`];
    /// kept as an oracle for the tests and as the baseline the benchmark compares with.
    pub fn tokens_scalar(&self, text: &str, sink: &mut dyn FnMut(&str)) {
        stretches(text, &mut |s| match s {
            Stretch::Ascii(t) => self.tokens_ascii_scalar(t, sink),
            Stretch::Unicode(t) => self.tokens_unicode(t, sink),
        });
    }
}

thread_local! {
    /// A batch for each thread's calls of [`Tokenizer::tokens`], so that a call allocates
    /// nothing once the thread's first calls have sized it.
    static BATCH: RefCell<TokenBuffer> = RefCell::default();
}

/// A thread's batch is dropped after a call that grew it past this (a huge word), so that
/// an idle thread does not hold it.
const KEEP_BYTES: usize = 4 << 20;

/// Runs `f` with this thread's batch, emptied (a batch of its own when the thread's is in
/// use: a call from within a sink), so that a thread's calls allocate nothing once its
/// first calls have sized the batch.
pub(crate) fn with_batch<R>(f: impl FnOnce(&mut TokenBuffer) -> R) -> R {
    BATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            buf.clear();
            let r = f(&mut buf);
            if buf.capacity() > KEEP_BYTES {
                *buf = TokenBuffer::default();
            }
            r
        }
        Err(_) => f(&mut TokenBuffer::default()),
    })
}

impl Words {
    fn tokens_in(&self, buf: &mut TokenBuffer, text: &str, sink: &mut dyn FnMut(&str)) {
        buf.clear();
        let mut each = |b: &TokenBuffer| {
            for i in 0..b.len() {
                sink(b.word(i));
            }
        };
        buf.push_words(*self, text, "", &mut each);
        each(buf);
        buf.clear();
    }
}

impl Tokenizer for Words {
    /// ASCII stretches take the block scanner and the rest the Unicode path (see
    /// [`stretches`]), through a [`TokenBuffer`] kept per thread, in batches.
    fn tokens(&self, text: &str, sink: &mut dyn FnMut(&str)) {
        with_batch(|buf| self.tokens_in(buf, text, sink));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn both(text: &str) -> (Vec<String>, Vec<String>) {
        let w = Words::default();
        let (mut a, mut u) = (Vec::new(), Vec::new());
        w.tokens_ascii_scalar(text, &mut |t| a.push(t.to_string()));
        w.tokens_unicode(text, &mut |t| u.push(t.to_string()));
        (a, u)
    }

    #[test]
    fn known_segmentation() {
        let (a, u) = both("Can't stop: U.S.A. 3.14, 1,000 e-mail FREE__ __ a:b x_1");
        assert_eq!(a, u);
        assert_eq!(
            a,
            [
                "can't", "stop", "u.s.a", "3.14", "1,000", "e", "mail", "free__", "a:b", "x_1"
            ]
        );
    }

    fn mixed(text: &str) -> (Vec<String>, Vec<String>) {
        let w = Words::default();
        let (mut a, mut u) = (Vec::new(), Vec::new());
        w.tokens(text, &mut |t| a.push(t.to_string()));
        w.tokens_unicode(text, &mut |t| u.push(t.to_string()));
        (a, u)
    }

    #[test]
    fn mixed_text_known_cases() {
        for t in [
            "café au lait",
            "naïve\tfaçade x",
            "a \u{301}b c",
            "日本語 text 123",
            "x\u{200d} y",
        ] {
            let (a, u) = mixed(t);
            assert_eq!(a, u, "{t:?}");
        }
    }

    proptest! {
        /// The lowercase step folded into the tokenizer's loop gives what the two steps
        /// give one after the other.
        #[test]
        fn folded_lowercase_equals_the_separate_step(s in "([a-zA-Z0-9 .,:'_-]|É|ß|İ|Ω|日|\u{301}){0,60}") {
            let (mut folded, mut separate) = (Vec::new(), Vec::new());
            Words { lowercase: true }.tokens(&s, &mut |t| folded.push(t.to_string()));
            let mut scratch = String::new();
            Words { lowercase: false }.tokens(&s, &mut |t| {
                separate.push(Lowercase.apply(t, &mut scratch).to_string())
            });
            prop_assert_eq!(folded, separate);
        }

        #[test]
        fn mixed_path_equals_unicode_path(s in "([a-zA-Z0-9 \t\n.,:'_-]|é|ß|İ|日|\u{301}|\u{200d}|\u{a0}|\u{2019}|😀|Ω){0,60}") {
            let (a, u) = mixed(&s);
            prop_assert_eq!(a, u);
        }

        #[test]
        fn ascii_path_equals_unicode_path(s in "[a-zA-Z0-9_.,;:' \n\t!?@#$%&()\"-]{0,80}") {
            let (a, u) = both(&s);
            prop_assert_eq!(a, u);
        }
    }
}
