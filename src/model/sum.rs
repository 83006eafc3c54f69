//! The payload's checksum: XXH3-64 from format 10 (memory speed: a millisecond for a
//! model of megabytes), FNV-1a 64 in the files of older formats, which read a byte at a
//! time took a quarter of opening a model. [`Summing`] takes it on the way in or out.

use crate::fnv::{Fnv1a, fnv1a};
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// The first format whose payload is checksummed with XXH3-64.
pub(super) const XXH3_FROM: u32 = 10;

/// A checksum fed in pieces: the one a format `version` file states.
pub(super) enum Sum {
    /// Formats up to 9.
    Fnv(Fnv1a),
    /// Format 10 on.
    Xxh3(Box<Xxh3>),
}

impl Sum {
    /// The checksum of no bytes yet, for a payload of format `version`.
    pub(super) fn new(version: u32) -> Sum {
        if version >= XXH3_FROM {
            Sum::Xxh3(Box::new(Xxh3::new()))
        } else {
            Sum::Fnv(Fnv1a::new())
        }
    }

    /// Takes `bytes` after those taken before.
    pub(super) fn update(&mut self, bytes: &[u8]) {
        match self {
            Sum::Fnv(h) => h.update(bytes),
            Sum::Xxh3(h) => h.update(bytes),
        }
    }

    /// The checksum of every byte taken.
    pub(super) fn finish(&self) -> u64 {
        match self {
            Sum::Fnv(h) => h.finish(),
            Sum::Xxh3(h) => h.digest(),
        }
    }
}

/// The checksum a model file of format `version` states for its payload `bytes`
/// (XXH3-64 from format 10, FNV-1a 64 before): public so that tools and tests seal a
/// payload as the writer does.
pub fn checksum(version: u32, bytes: &[u8]) -> u64 {
    if version >= XXH3_FROM {
        xxh3_64(bytes)
    } else {
        fnv1a(bytes)
    }
}

/// A writer (or reader) that counts and checksums the bytes it passes on, so a payload
/// encoded straight into a file gets its header without being held, and one decoded
/// straight from a file is checked without being held.
pub(super) struct Summing<W> {
    pub(super) inner: W,
    pub(super) len: u64,
    pub(super) sum: Sum,
}

impl<W> Summing<W> {
    /// Counts and checksums (for format `version`) what passes through `inner`.
    pub(super) fn new(inner: W, version: u32) -> Summing<W> {
        Summing {
            inner,
            len: 0,
            sum: Sum::new(version),
        }
    }
}

impl<R: std::io::Read> std::io::Read for Summing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.sum.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }
}

impl<W: std::io::Write> std::io::Write for Summing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.sum.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_in_pieces_are_the_sums_of_the_whole() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for version in [9, 10] {
            let mut s = Sum::new(version);
            for piece in bytes.chunks(333) {
                s.update(piece);
            }
            assert_eq!(s.finish(), checksum(version, &bytes), "format {version}");
        }
        assert_ne!(checksum(9, &bytes), checksum(10, &bytes));
    }
}
