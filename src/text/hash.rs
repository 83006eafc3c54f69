//! The hashing step: every token (word or n-gram) names the feature id its hash gives,
//! among 2^B ids, instead of an id in a vocabulary of words.
//!
//! A hashed model keeps no words, so its size does not grow with the text it meets and
//! `learn` can weigh words that training never saw; the price is that tokens whose hashes
//! agree share a weight, and that `inspect` can show only ids (`#12345`).
//!
//! The hash is fixed, so ids are the same on every platform and in every build: FNV-1a 64
//! over the token's UTF-8 bytes (the checksum model files use), xor-folded to B bits —
//! the high bits folded onto the low ones, `(h ^ (h >> B)) & (2^B − 1)`, since FNV-1a's
//! lowest bits mix poorly on their own.

/// The hashing step (stored in the model as `hash(B)`): tokens → ids below 2^`bits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hashing {
    /// Ids are below 2^`bits` (1 to [`Hashing::MAX_BITS`]).
    pub bits: u8,
}

impl Hashing {
    /// The step's name in a model file and in `inspect`, before its `(B)`.
    pub(crate) const NAME: &'static str = "hash";
    /// The widest hashed space: 2^28 ids, whose weights alone take 1 GiB per model.
    pub const MAX_BITS: u8 = 28;

    /// Checks `bits`: 1 to [`Hashing::MAX_BITS`].
    pub fn new(bits: u8) -> Result<Hashing, String> {
        if (1..=Self::MAX_BITS).contains(&bits) {
            Ok(Hashing { bits })
        } else {
            Err(format!(
                "features are hashed into 2^1 to 2^{} ids, not 2^{bits}",
                Self::MAX_BITS
            ))
        }
    }

    /// Number of ids: 2^`bits`.
    pub(crate) fn ids(self) -> usize {
        1 << self.bits
    }

    /// The id of `token`: FNV-1a 64 of its bytes, xor-folded to `bits` bits.
    #[inline]
    pub fn id(self, token: &str) -> u32 {
        let h = crate::fnv::fnv1a(token.as_bytes());
        ((h ^ (h >> self.bits)) & ((1u64 << self.bits) - 1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_fixed_and_below_the_width() {
        // FNV-1a 64 of "free" is 0x7f62_5478_d788_e11b; folded to 18 bits, 185593. These
        // are the ids every build on every platform gives.
        assert_eq!(crate::fnv::fnv1a(b"free"), 0x7f62_5478_d788_e11b);
        let h = Hashing::new(18).unwrap();
        assert_eq!(h.id("free"), 185_593);
        assert_eq!(h.id("new york"), 116_000);
        assert_eq!(h.id("subject:cheap meds"), 197_049);
        assert_eq!(Hashing::new(4).unwrap().id("free"), 10);
        for bits in 1..=Hashing::MAX_BITS {
            let h = Hashing::new(bits).unwrap();
            for t in ["free", "new york", "subject:cheap meds", "été", ""] {
                assert!((h.id(t) as usize) < h.ids());
            }
        }
    }

    #[test]
    fn widths_outside_one_to_max_are_refused() {
        assert_eq!(
            Hashing::new(0).unwrap_err(),
            "features are hashed into 2^1 to 2^28 ids, not 2^0"
        );
        assert!(Hashing::new(29).is_err());
    }
}
