//! A word's [`Key`]: its first 8 bytes and a hash, the two things the vocabulary's table
//! compares and indexes by.
//!
//! It lives beside the tokenizer so that the scanner can compute it while the word is still
//! in the cache line it was just found in, from its lowercased copy ([`key_at`]: 8-byte
//! loads masked to the word's length, no branch on the length); [`key`] computes the same
//! key from any word, and a test holds the two equal.

/// A word's precomputed key: its first 8 bytes (zero-padded, little-endian) and its hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    /// The word's first 8 bytes, zero-padded, little-endian.
    pub(crate) head: u64,
    /// The word's hash, which picks its slot in a table.
    pub(crate) hash: u64,
}

const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// The first 8 bytes of `b`, zero-padded, little-endian — without a call to memcpy for
/// short words: two overlapping 4-byte loads (4–7 bytes) or three single bytes (1–3).
#[inline]
pub(crate) fn head_of(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 8 {
        u64::from_le_bytes(b[..8].try_into().unwrap())
    } else if n >= 4 {
        let lo = u64::from(u32::from_le_bytes(b[..4].try_into().unwrap()));
        let hi = u64::from(u32::from_le_bytes(b[n - 4..].try_into().unwrap()));
        lo | (hi << ((n - 4) * 8))
    } else if n > 0 {
        u64::from(b[0])
            | (u64::from(b[n / 2]) << (n / 2 * 8))
            | (u64::from(b[n - 1]) << ((n - 1) * 8))
    } else {
        0
    }
}

/// Whether two byte strings of the same length are equal, compared 8 bytes at a time
/// (no call to `memcmp` for the short strings of words and keys).
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    a.chunks(8)
        .zip(b.chunks(8))
        .all(|(x, y)| head_of(x) == head_of(y))
}

/// The key of `word`: a multiply-rotate hash over 8-byte chunks (fast, and good enough for
/// words; the table is not exposed to adversarial keys that matter).
#[inline]
pub(crate) fn key(word: &str) -> Key {
    let b = word.as_bytes();
    let head = head_of(b);
    let mut h = (head ^ (b.len() as u64).wrapping_mul(K)).wrapping_mul(K);
    if b.len() > 8 {
        for c in b[8..].chunks(8) {
            h = (h.rotate_left(23) ^ head_of(c)).wrapping_mul(K);
        }
    }
    Key {
        head,
        hash: h ^ (h >> 29),
    }
}

/// The 8 bytes at `at`, with those from `end` on cleared.
#[inline(always)]
fn masked(bytes: &[u8], at: usize, end: usize) -> u64 {
    let v = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let n = end - at;
    if n >= 8 {
        v
    } else {
        v & ((1u64 << (8 * n)) - 1)
    }
}

/// The key of the word `bytes[start..end]`, equal to [`key`] of it, read 8 bytes at a
/// time. `bytes` must hold 8 bytes past `end` (the scanner's buffer keeps that padding).
#[inline]
pub(crate) fn key_at(bytes: &[u8], start: usize, end: usize) -> Key {
    let len = end - start;
    let head = if len == 0 {
        0
    } else {
        masked(bytes, start, end)
    };
    let mut h = (head ^ (len as u64).wrapping_mul(K)).wrapping_mul(K);
    let mut at = start + 8;
    while at < end {
        h = (h.rotate_left(23) ^ masked(bytes, at, end)).wrapping_mul(K);
        at += 8;
    }
    Key {
        head,
        hash: h ^ (h >> 29),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn head_is_the_zero_padded_prefix() {
        for w in [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "abcde",
            "abcdef",
            "abcdefg",
            "abcdefgh",
            "abcdefghij",
        ] {
            let mut buf = [0u8; 8];
            let n = w.len().min(8);
            buf[..n].copy_from_slice(&w.as_bytes()[..n]);
            assert_eq!(head_of(w.as_bytes()), u64::from_le_bytes(buf), "{w:?}");
        }
    }

    proptest! {
        /// A word's key read in place, with other bytes around it, is its key.
        #[test]
        fn key_in_place_equals_key(
            before in "[a-z.]{0,9}",
            word in "[a-zé0-9_]{0,40}",
            after in "[A-Z ]{8,16}",
        ) {
            let text = format!("{before}{word}{after}");
            let start = before.len();
            prop_assert_eq!(key_at(text.as_bytes(), start, start + word.len()), key(&word));
        }
    }
}
