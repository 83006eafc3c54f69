//! The ASCII word scanner: UAX #29 word boundaries of pure-ASCII text found 64 bytes at a
//! time, the text lowercased on the way.
//!
//! The text is first copied into the caller's buffer (lowercased, when asked, in a loop the
//! compiler vectorizes), followed by zero padding. Each 64-byte block of the copy is then
//! classified into bit masks — letters, digits, `_`, and the joiners `.` `'` `:` `,` `;` —
//! with SSE2 on x86-64 (16 bytes per instruction) or a portable loop elsewhere. A joiner
//! belongs to a word when the rules of UAX #29 restricted to ASCII (WB6/7, WB11/12) keep it
//! inside: `.` and `'` between two letters or two digits, `:` between letters, `,` and `;`
//! between digits; their neighbours are the masks shifted by one bit. A word is then a run
//! of set bits of `word | joined`, found a word at a time with `trailing_zeros`, so the cost
//! is per block and per word, not per byte. A run of underscores alone is no word (UAX #29
//! words hold a letter or digit).
//!
//! `Words::tokens_scalar`, the byte-at-a-time state machine this replaced, and the Unicode
//! path are the oracles of its property tests.

/// Bytes of zero padding the scanner keeps after the text in its buffer: a whole block, so
/// the last block's masks read no byte outside the buffer and an 8-byte key load past any
/// word's end stays inside it.
pub(crate) const PAD: usize = 64;

/// One block's byte classes as bit masks (bit j = byte j of the block).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Masks {
    letter: u64,
    digit: u64,
    underscore: u64,
    /// `.` and `'`: join two letters or two digits.
    dot_quote: u64,
    /// `:`: joins two letters.
    colon: u64,
    /// `,` and `;`: join two digits.
    comma: u64,
}

/// The classes of one 64-byte block, portably (and the oracle of the SSE2 form).
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(crate) fn classify_portable(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (j, &c) in block.iter().enumerate() {
        let bit = |yes: bool| u64::from(yes) << j;
        m.letter |= bit((c | 0x20).wrapping_sub(b'a') < 26);
        m.digit |= bit(c.wrapping_sub(b'0') < 10);
        m.underscore |= bit(c == b'_');
        m.dot_quote |= bit(c == b'.' || c == b'\'');
        m.colon |= bit(c == b':');
        m.comma |= bit(c == b',' || c == b';');
    }
    m
}

/// The classes of one 64-byte block of ASCII bytes, 16 at a time with SSE2 (every x86-64
/// processor has it). Signed byte comparisons are exact here: ASCII bytes are below 0x80.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn classify(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::*;
    let mut m = Masks::default();
    // SAFETY: SSE2 is part of every x86-64 processor; the loads read bytes 16q..16q+16 of
    // the 64-byte block, unaligned.
    unsafe {
        let set = |c: u8| _mm_set1_epi8(c as i8);
        let bits = |v: __m128i| u64::from(_mm_movemask_epi8(v) as u16);
        let within = |v: __m128i, lo: u8, hi: u8| {
            _mm_and_si128(
                _mm_cmpgt_epi8(v, set(lo - 1)),
                _mm_cmplt_epi8(v, set(hi + 1)),
            )
        };
        for q in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * q).cast());
            let eq = |c: u8| _mm_cmpeq_epi8(v, set(c));
            let shift = 16 * q;
            m.letter |= bits(within(_mm_or_si128(v, set(0x20)), b'a', b'z')) << shift;
            m.digit |= bits(within(v, b'0', b'9')) << shift;
            m.underscore |= bits(eq(b'_')) << shift;
            m.dot_quote |= bits(_mm_or_si128(eq(b'.'), eq(b'\''))) << shift;
            m.colon |= bits(eq(b':')) << shift;
            m.comma |= bits(_mm_or_si128(eq(b','), eq(b';'))) << shift;
        }
    }
    m
}

/// The classes of one 64-byte block (no SIMD form on this architecture).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(crate) fn classify(block: &[u8; 64]) -> Masks {
    classify_portable(block)
}

#[inline]
fn is_letter(c: u8) -> bool {
    (c | 0x20).wrapping_sub(b'a') < 26
}

/// The bytes of a block that belong to words: letters, digits and `_`, and the joiners
/// that UAX #29 keeps between their neighbours. `prev` and `next` are the bytes just
/// before and after the block (0 at the text's ends).
#[inline]
pub(crate) fn word_bits(m: &Masks, prev: u8, next: u8) -> u64 {
    let after = |x: u64, c: bool| (x << 1) | u64::from(c);
    let before = |x: u64, c: bool| (x >> 1) | (u64::from(c) << 63);
    let letters = after(m.letter, is_letter(prev)) & before(m.letter, is_letter(next));
    let digits = after(m.digit, prev.is_ascii_digit()) & before(m.digit, next.is_ascii_digit());
    let joined = (m.dot_quote & (letters | digits)) | (m.colon & letters) | (m.comma & digits);
    m.letter | m.digit | m.underscore | joined
}

/// Appends `text` (ASCII) to `buf`, lowercased when `lowercase` is set, then [`PAD`] zero
/// bytes, and calls `word(buf, start, end)` for each word's range in `buf`, in order. The
/// padding stays in `buf` during the calls, so a word's key can be read 8 bytes at a time;
/// it is removed afterwards.
#[inline]
pub(crate) fn scan_ascii(
    text: &[u8],
    lowercase: bool,
    buf: &mut Vec<u8>,
    mut word: impl FnMut(&[u8], usize, usize),
) {
    debug_assert!(text.is_ascii());
    let base = buf.len();
    if lowercase {
        buf.extend(
            text.iter()
                .map(|&c| c | (u8::from(c.wrapping_sub(b'A') < 26) << 5)),
        );
    } else {
        buf.extend_from_slice(text);
    }
    buf.resize(base + text.len() + PAD, 0);
    let b: &[u8] = buf;
    let end = base + text.len();
    // Whether the byte before the current block is inside a word, and where that word began.
    let mut inside = 0u64;
    let mut start = base;
    let mut at = base;
    while at < end {
        let block: &[u8; 64] = b[at..at + 64].try_into().unwrap();
        let prev = if at > base { b[at - 1] } else { 0 };
        // The byte after a block inside the text, or the padding's zero.
        let next = b[(at + 64).min(end)];
        let bits = word_bits(&classify(block), prev, next) & valid(end - at);
        let mut edges = bits ^ ((bits << 1) | inside);
        while edges != 0 {
            let p = at + edges.trailing_zeros() as usize;
            edges &= edges - 1;
            if inside_at(bits, p - at) {
                start = p;
            } else {
                emit(b, start, p, &mut word);
            }
        }
        inside = bits >> 63;
        at += 64;
    }
    if inside != 0 {
        emit(b, start, end, &mut word);
    }
    buf.truncate(end);
}

/// The bits of a block's first `n` bytes (all 64 from 64 on).
#[inline]
fn valid(n: usize) -> u64 {
    if n >= 64 { !0 } else { (1u64 << n) - 1 }
}

/// Whether bit `j` of `bits` is set: an edge there starts a word, else ends one.
#[inline]
fn inside_at(bits: u64, j: usize) -> bool {
    (bits >> j) & 1 != 0
}

/// Hands on the run `b[start..end]` unless it is underscores alone.
#[inline]
fn emit(b: &[u8], start: usize, end: usize, word: &mut impl FnMut(&[u8], usize, usize)) {
    if b[start] == b'_' && b[start..end].iter().all(|&c| c == b'_') {
        return;
    }
    word(b, start, end);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(text: &str, lowercase: bool) -> Vec<String> {
        let mut buf = b"prefix".to_vec();
        let mut out = Vec::new();
        scan_ascii(text.as_bytes(), lowercase, &mut buf, |b, s, e| {
            out.push(String::from_utf8(b[s..e].to_vec()).unwrap())
        });
        assert_eq!(buf.len(), 6 + text.len(), "the padding is removed");
        out
    }

    #[test]
    fn known_segmentation() {
        assert_eq!(
            words(
                "Can't stop: U.S.A. 3.14, 1,000 e-mail FREE__ __ a:b x_1 a.1 1.a",
                true
            ),
            [
                "can't", "stop", "u.s.a", "3.14", "1,000", "e", "mail", "free__", "a:b", "x_1",
                "a", "1", "1", "a"
            ]
        );
        assert_eq!(words("Keep CASE", false), ["Keep", "CASE"]);
        assert!(words("", true).is_empty());
        assert!(words("... __ ,", true).is_empty());
    }

    #[test]
    fn words_cross_blocks_and_end_the_text() {
        // A word across the first block's end, a joiner on the boundary, one that fills a
        // whole block, and one that ends the text exactly at a block's end.
        let long = "x".repeat(64);
        let text = format!("{}ab.cd {} {}", " ".repeat(61), long, "y".repeat(60));
        assert_eq!(text.len() % 64, 0);
        assert_eq!(
            words(&text, true),
            ["ab.cd", long.as_str(), &"y".repeat(60)]
        );
        let at_joiner = format!("{}a.b", " ".repeat(62));
        assert_eq!(words(&at_joiner, true), ["a.b"]);
    }

    proptest! {
        /// SSE2 and the portable loop classify every byte alike.
        #[test]
        fn classes_agree(block in proptest::collection::vec(0u8..128, 64)) {
            let b: &[u8; 64] = block.as_slice().try_into().unwrap();
            prop_assert_eq!(classify(b), classify_portable(b));
        }
    }
}
