//! FNV-1a, 64 bits: the checksum of model payloads before format 10 and the hash of
//! hashed features. A leaf: it knows nothing of the rest of the crate. Public so that
//! other files of the project's own (the Python package's pickled vectorizers) carry the
//! same checksum.

/// FNV-1a of `bytes`: stable across releases and platforms, unlike std's hashers.
#[inline]
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a::new();
    h.update(bytes);
    h.finish()
}

/// FNV-1a fed in pieces: the hash of their concatenation, as [`fnv1a`] gives it, so that
/// a file's checksum is computed a buffer at a time without holding the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fnv1a(u64);

impl Fnv1a {
    /// The hash of no bytes yet (FNV-1a's offset basis).
    #[inline]
    pub(crate) fn new() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    /// Hashes `bytes` after those hashed before.
    #[inline]
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }

    /// The hash of all the bytes hashed so far.
    #[inline]
    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv1a {
    fn default() -> Fnv1a {
        Fnv1a::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_hash_as_their_concatenation() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let mut h = Fnv1a::new();
        for piece in bytes.chunks(37) {
            h.update(piece);
        }
        assert_eq!(h.finish(), fnv1a(&bytes));
        // The published FNV-1a 64 values of "" and "a".
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
