//! FNV-1a, 64 bits: the checksum of model payloads and the hash of hashed features. A
//! leaf: it knows nothing of the rest of the crate. Public so that other files of the
//! project's own (the Python package's pickled vectorizers) carry the same checksum.

/// FNV-1a of `bytes`: stable across releases and platforms, unlike std's hashers.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
