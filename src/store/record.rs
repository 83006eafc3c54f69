//! One feature's entry in a filter's store: its key (the word, or the hashed id) and its
//! record (id, weight, document frequency, AdaGrad sum, feature weight), fixed-width
//! little-endian so that a message's lookups decode without allocating.

use crate::fnv::fnv1a;

/// Bytes of a record.
pub(crate) const RECORD_BYTES: usize = 20;

/// The longest word kept whole as a key: LMDB keys hold at most 511 bytes. A longer word
/// is keyed by its first bytes, a 0xFF byte (never in UTF-8) and its FNV-1a hash, and
/// its record carries the whole word after the fixed part.
const LONG_WORD: usize = 400;

/// What the store keeps of one feature.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Record {
    /// The feature's id in the model (its column).
    pub id: u32,
    /// Its weight wⱼ.
    pub w: f32,
    /// Its document frequency among the documents the model counted.
    pub df: u32,
    /// Its AdaGrad sum of squared gradients (0 for rules without one).
    pub sq: f32,
    /// Its weight in the geometry (idf; 1 under binary weighting).
    pub fw: f32,
}

impl Record {
    /// The record of a hashed id the store has no entry for.
    pub(crate) fn absent(id: u32, unseen: f32) -> Record {
        Record {
            id,
            w: 0.0,
            df: 0,
            sq: 0.0,
            fw: unseen,
        }
    }

    /// Whether a hashed id's record says no more than its absence would, bit for bit (so
    /// a −0 weight is kept).
    pub(crate) fn is_absent(&self, unseen: f32) -> bool {
        self.w.to_bits() == 0
            && self.df == 0
            && self.sq.to_bits() == 0
            && self.fw.to_bits() == unseen.to_bits()
    }

    /// What is wrong with a record read from a store whose features take ids below `n`:
    /// an id out of range, or a value that is not a finite number (which would make every
    /// score it enters NaN); `None` for a sound record.
    pub(crate) fn fault(&self, n: u64) -> Option<String> {
        if u64::from(self.id) >= n {
            return Some(format!("has id {} of {n}", self.id));
        }
        let finite = self.w.is_finite() && self.sq.is_finite() && self.fw.is_finite();
        (!finite).then(|| "holds a value that is not a finite number".to_string())
    }

    /// The record's bytes, followed by `word` when its key could not hold it whole.
    pub(crate) fn encode(&self, word: Option<&str>) -> Vec<u8> {
        let mut out = Vec::with_capacity(RECORD_BYTES);
        out.extend_from_slice(&self.id.to_le_bytes());
        out.extend_from_slice(&self.w.to_le_bytes());
        out.extend_from_slice(&self.df.to_le_bytes());
        out.extend_from_slice(&self.sq.to_le_bytes());
        out.extend_from_slice(&self.fw.to_le_bytes());
        if let Some(w) = word.filter(|w| w.len() > LONG_WORD) {
            out.extend_from_slice(w.as_bytes());
        }
        out
    }

    /// A record from its bytes, with the whole word a long key carries; `None` when the
    /// bytes are not a record.
    pub(crate) fn decode(bytes: &[u8]) -> Option<(Record, &[u8])> {
        let (fixed, rest) = bytes.split_first_chunk::<RECORD_BYTES>()?;
        let u = |i: usize| u32::from_le_bytes([fixed[i], fixed[i + 1], fixed[i + 2], fixed[i + 3]]);
        let f = |i: usize| f32::from_bits(u(i));
        Some((
            Record {
                id: u(0),
                w: f(4),
                df: u(8),
                sq: f(12),
                fw: f(16),
            },
            rest,
        ))
    }
}

/// The key of a hashed id: its native bytes, which the `ids` table compares as integers
/// (LMDB files do not move between machines of another byte order anyway).
pub(crate) fn id_key(id: u32) -> [u8; 4] {
    id.to_ne_bytes()
}

/// The hashed id of a key, `None` when it is no id key.
pub(crate) fn key_id(key: &[u8]) -> Option<u32> {
    Some(u32::from_ne_bytes(key.try_into().ok()?))
}

/// The key of a word: the word itself, or for a word longer than LMDB keys allow, its
/// first bytes, 0xFF and its hash.
pub(crate) fn word_key(word: &str) -> std::borrow::Cow<'_, [u8]> {
    if word.len() <= LONG_WORD {
        return std::borrow::Cow::Borrowed(word.as_bytes());
    }
    let mut k = word.as_bytes()[..LONG_WORD].to_vec();
    k.push(0xFF);
    k.extend_from_slice(&fnv1a(word.as_bytes()).to_le_bytes());
    std::borrow::Cow::Owned(k)
}

/// The word a key and its record's tail stand for; `None` when they are not valid UTF-8
/// or disagree.
pub(crate) fn key_word<'a>(key: &'a [u8], tail: &'a [u8]) -> Option<&'a str> {
    let word = if tail.is_empty() { key } else { tail };
    let word = std::str::from_utf8(word).ok()?;
    (*word_key(word) == *key).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_keys_round_trip() {
        let r = Record {
            id: 7,
            w: -0.0,
            df: 3,
            sq: 0.25,
            fw: 1.5,
        };
        let bytes = r.encode(Some("short"));
        assert_eq!(bytes.len(), RECORD_BYTES);
        assert_eq!(Record::decode(&bytes), Some((r, &[][..])));
        assert!(Record::decode(&bytes[..19]).is_none());
        assert!(!r.is_absent(1.5)); // df 3
        assert!(Record::absent(7, 1.5).is_absent(1.5));
        let neg_zero = Record {
            df: 0,
            sq: 0.0,
            ..r
        };
        assert!(!neg_zero.is_absent(1.5), "a −0 weight is kept");
        assert_eq!(key_id(&id_key(0x0102_0304)), Some(0x0102_0304));

        let long = "x".repeat(600);
        let k = word_key(&long);
        assert_eq!(k.len(), LONG_WORD + 9);
        let bytes = r.encode(Some(&long));
        let (_, tail) = Record::decode(&bytes).unwrap();
        assert_eq!(key_word(&k, tail), Some(long.as_str()));
        assert_eq!(key_word(b"free", &[]), Some("free"));
        // A tail that is not the key's word is refused.
        assert_eq!(key_word(&k, b"other"), None);
    }
}
