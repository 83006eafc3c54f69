//! [`TokenBuffer`]: a batch of a document's tokens, each with its [`Key`], so that the
//! code that looks them up sees them all at once.
//!
//! The word tokenizer writes into it directly: an ASCII stretch is copied in lowercased
//! and its words become spans of that copy, their keys computed as they are found
//! (`scan`); the rest of the text takes the Unicode path, and any other token (a field's
//! `name:word`, a tag, an n-gram) is copied in with its key. Nothing is allocated per token,
//! and a reader of the batch can ask for the table slots of words further on while it looks
//! up the current one (`WordTable::prefetch`), which hides the wait for memory that a
//! lookup a word at a time pays in full.
//!
//! A batch is handed on when it holds [`BATCH_TOKENS`] tokens or [`BATCH_BYTES`] bytes,
//! so a very large document is tokenized in bounded memory, in pieces cut at ASCII
//! whitespace (where UAX #29 always breaks).

use super::Words;
use super::key::{Key, key, key_at};
use super::scan::scan_ascii;
use super::words::{Stretch, stretches};

/// Tokens after which a batch is handed on.
pub(crate) const BATCH_TOKENS: usize = 4096;
/// Bytes after which a batch is handed on.
pub(crate) const BATCH_BYTES: usize = 1 << 20;
/// The longest ASCII piece scanned at once (longer stretches are cut at whitespace).
const PIECE: usize = 1 << 16;

/// Where a token's bytes lie in the buffer, and its key.
#[derive(Debug, Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    key: Key,
}

/// A batch of tokens: their bytes in one buffer, a span and a key each, in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct TokenBuffer {
    bytes: Vec<u8>,
    tokens: Vec<Token>,
    /// A field's words before they get its prefix.
    scratch: Vec<u8>,
}

/// What a full batch is handed to.
pub(crate) type Flush<'a> = dyn FnMut(&TokenBuffer) + 'a;

impl TokenBuffer {
    /// Empties the batch (keeping its memory).
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.tokens.clear();
    }

    /// How many tokens.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.tokens.len()
    }

    /// The bytes the batch holds room for, its tokens' spans included.
    pub(crate) fn capacity(&self) -> usize {
        self.bytes.capacity()
            + self.scratch.capacity()
            + self.tokens.capacity() * std::mem::size_of::<Token>()
    }

    /// Whether the batch holds no token.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Token `i`'s key.
    #[inline]
    pub(crate) fn key(&self, i: usize) -> Key {
        self.tokens[i].key
    }

    /// Token `i`.
    #[inline]
    pub(crate) fn word(&self, i: usize) -> &str {
        let t = self.tokens[i];
        // SAFETY: every span is a copy of a whole `&str` token, or of ASCII bytes at ASCII
        // boundaries, so it is valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(&self.bytes[t.start..t.end]) }
    }

    /// Calls `f` with each token and its key, in order, after `ahead` with the key of the
    /// token `AHEAD` places further on (and first with those of the first `AHEAD`): a
    /// reader asks for what it will look up a few tokens early.
    #[inline]
    pub(crate) fn each_ahead<const AHEAD: usize>(
        &self,
        mut ahead: impl FnMut(Key),
        mut f: impl FnMut(&str, Key),
    ) {
        let (bytes, tokens) = (&self.bytes[..], &self.tokens[..]);
        for t in tokens.iter().take(AHEAD) {
            ahead(t.key);
        }
        for (i, t) in tokens.iter().enumerate() {
            if let Some(next) = tokens.get(i + AHEAD) {
                ahead(next.key);
            }
            // SAFETY: as in `word`.
            f(
                unsafe { std::str::from_utf8_unchecked(&bytes[t.start..t.end]) },
                t.key,
            );
        }
    }

    /// The tokens with their keys, in order.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = (&str, Key)> + '_ {
        (0..self.len()).map(|i| (self.word(i), self.key(i)))
    }

    /// Appends `token`, after `prefix`.
    #[inline]
    pub(crate) fn push(&mut self, prefix: &str, token: &str) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(prefix.as_bytes());
        self.bytes.extend_from_slice(token.as_bytes());
        let end = self.bytes.len();
        // SAFETY: the bytes just copied from two `&str`s.
        let word = unsafe { std::str::from_utf8_unchecked(&self.bytes[start..end]) };
        let key = key(word);
        self.tokens.push(Token { start, end, key });
    }

    /// Hands the batch to `flush` and empties it, once it is full.
    #[inline]
    pub(crate) fn flush_if_full(&mut self, flush: &mut Flush<'_>) {
        if self.tokens.len() >= BATCH_TOKENS || self.bytes.len() >= BATCH_BYTES {
            flush(self);
            self.clear();
        }
    }

    /// Appends the words of `text` as `words` gives them, each after `prefix`, handing
    /// full batches to `flush` on the way.
    pub(crate) fn push_words(
        &mut self,
        words: Words,
        text: &str,
        prefix: &str,
        flush: &mut Flush<'_>,
    ) {
        stretches(text, &mut |s| match s {
            Stretch::Ascii(mut rest) => {
                while !rest.is_empty() {
                    let (piece, tail) = rest.split_at(cut(rest));
                    self.push_ascii(piece, words.lowercase, prefix);
                    self.flush_if_full(flush);
                    rest = tail;
                }
            }
            Stretch::Unicode(part) => words.tokens_unicode(part, &mut |w| {
                self.push(prefix, w);
                self.flush_if_full(flush);
            }),
        });
    }

    /// Scans one ASCII piece: its words become spans of its copy in the buffer, or, after
    /// a prefix, copies of their own.
    fn push_ascii(&mut self, text: &str, lowercase: bool, prefix: &str) {
        if prefix.is_empty() {
            let tokens = &mut self.tokens;
            scan_ascii(
                text.as_bytes(),
                lowercase,
                &mut self.bytes,
                |b, start, end| {
                    let key = key_at(b, start, end);
                    tokens.push(Token { start, end, key });
                },
            );
            return;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        scan_ascii(text.as_bytes(), lowercase, &mut scratch, |b, s, e| {
            // SAFETY: the scanner's words are ASCII.
            self.push(prefix, unsafe { std::str::from_utf8_unchecked(&b[s..e]) });
        });
        self.scratch = scratch;
    }
}

/// Where to end the first piece of ASCII `text`: all of it up to [`PIECE`] bytes, else
/// at the last whitespace within [`PIECE`] bytes (or the first one after).
fn cut(text: &str) -> usize {
    let b = text.as_bytes();
    if b.len() <= PIECE {
        return b.len();
    }
    let ws = |c: &u8| c.is_ascii_whitespace();
    b[..PIECE]
        .iter()
        .rposition(ws)
        .or_else(|| b[PIECE..].iter().position(ws).map(|p| PIECE + p))
        .map_or(b.len(), |p| p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(words: Words, text: &str, prefix: &str) -> (Vec<String>, usize) {
        let mut buf = TokenBuffer::default();
        let mut out = Vec::new();
        let mut batches = 0;
        let mut take = |b: &TokenBuffer| {
            batches += 1;
            for (w, k) in b.iter() {
                assert_eq!(k, key(w), "{w:?}");
                out.push(w.to_string());
            }
        };
        buf.push_words(words, text, prefix, &mut take);
        take(&buf);
        (out, batches)
    }

    #[test]
    fn tokens_carry_their_keys_and_prefixes() {
        let (out, _) = collect(Words::default(), "Free café, FREE École x", "subject:");
        assert_eq!(
            out,
            [
                "subject:free",
                "subject:café",
                "subject:free",
                "subject:école",
                "subject:x"
            ]
        );
    }

    #[test]
    fn a_large_text_comes_in_batches_with_the_same_tokens() {
        let text = "Word ab.cd 12,5 ".repeat(3 * PIECE / 16) + &"z".repeat(PIECE + 3);
        let (out, batches) = collect(Words::default(), &text, "");
        let mut reference = Vec::new();
        Words::default().tokens_unicode(&text, &mut |t| reference.push(t.to_string()));
        assert_eq!(out, reference);
        assert!(batches > 2, "{batches} batches");
    }
}
