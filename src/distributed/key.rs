//! The cluster key: a secret every process of a cluster holds, proved at the join by an
//! HMAC-SHA-256 challenge–response in both directions ([`super::connect`]), so that no data
//! moves to or from a program that does not hold it. Kept in a file only its owner can
//! read: 32 random bytes from the operating system, written as 64 hex digits.

use crate::atomic::write_new_private;
use crate::{Error, Result};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::io::Read;
use std::path::Path;

/// Bytes of a key.
pub(crate) const KEY_BYTES: usize = 32;

/// A cluster's shared secret.
#[derive(Clone, PartialEq, Eq)]
pub struct ClusterKey([u8; KEY_BYTES]);

/// Never printed: a debug print shows only that there is a key.
impl std::fmt::Debug for ClusterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterKey(..)")
    }
}

impl ClusterKey {
    /// A fresh key from the operating system's random source.
    pub(crate) fn generate() -> Result<ClusterKey> {
        let mut k = [0u8; KEY_BYTES];
        random(&mut k)?;
        Ok(ClusterKey(k))
    }

    /// A key from its bytes (tests and fuzzing; real keys come from [`ClusterKey::generate`]).
    pub(crate) fn from_bytes(bytes: [u8; KEY_BYTES]) -> ClusterKey {
        ClusterKey(bytes)
    }

    /// Writes a fresh key to `path`, which must not exist yet, readable by its owner only.
    pub fn create(path: &Path) -> Result<ClusterKey> {
        let key = ClusterKey::generate()?;
        let hex: String = key.0.iter().map(|b| format!("{b:02x}")).collect();
        write_new_private(path, format!("{hex}\n").as_bytes())?;
        Ok(key)
    }

    /// Reads the key at `path`; refused when others than its owner may read the file, or
    /// when it is not 64 hex digits.
    pub fn load(path: &Path) -> Result<ClusterKey> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        private(path, &meta)?;
        let mut text = String::new();
        file.take(1024)
            .read_to_string(&mut text)
            .map_err(|e| Error::parse(path, None, format!("not a cluster key: {e}")))?;
        let text = text.trim();
        let bad = || {
            Error::parse(
                path,
                None,
                "not a cluster key: expected 64 hex digits (create one with `rosenblatt \
                 cluster-key FILE`)",
            )
        };
        if text.len() != 2 * KEY_BYTES || !text.is_ascii() {
            return Err(bad());
        }
        let mut k = [0u8; KEY_BYTES];
        for (i, b) in k.iter_mut().enumerate() {
            *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(ClusterKey(k))
    }

    /// HMAC-SHA-256 of the parts, in order, under this key.
    pub(crate) fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        self.hmac(parts).finalize().into_bytes().into()
    }

    /// Whether `tag` is the HMAC of the parts under this key (in constant time).
    pub(crate) fn verify(&self, parts: &[&[u8]], tag: &[u8]) -> bool {
        self.hmac(parts).verify_slice(tag).is_ok()
    }

    fn hmac(&self, parts: &[&[u8]]) -> Hmac<Sha256> {
        let mut m = <Hmac<Sha256> as Mac>::new_from_slice(&self.0).expect("any key length");
        for p in parts {
            m.update(p);
        }
        m
    }
}

/// Fills `buf` from the operating system's random source.
pub(crate) fn random(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf)
        .map_err(|e| Error::Unsupported(format!("no random numbers from the system: {e}")))
}

/// Refuses a key file that its group or others may read or write.
#[cfg(unix)]
fn private(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode();
    if mode & 0o077 != 0 {
        return Err(Error::parse(
            path,
            None,
            format!(
                "the cluster key may be read by others (mode {:o}): run `chmod 600` on it",
                mode & 0o777
            ),
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn private(_: &Path, _: &std::fs::Metadata) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_key_loads_and_macs_agree_only_under_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k");
        let k = ClusterKey::create(&p).unwrap();
        assert_eq!(ClusterKey::load(&p).unwrap(), k);
        let e = ClusterKey::create(&p).unwrap_err().to_string();
        assert!(e.contains("exists"), "{e}");
        let tag = k.mac(&[b"a", b"bc"]);
        assert!(k.verify(&[b"ab", b"c"], &tag));
        assert!(!k.verify(&[b"ab", b"d"], &tag));
        let other = ClusterKey::generate().unwrap();
        assert_ne!(other, k);
        assert!(!other.verify(&[b"abc"], &tag));
        assert_eq!(format!("{k:?}"), "ClusterKey(..)");
    }

    #[test]
    fn hmac_sha256_matches_rfc_4231_case_2() {
        // Key "Jefe", data "what do ya want for nothing?" (RFC 4231, test case 2).
        let mut m = <Hmac<Sha256> as Mac>::new_from_slice(b"Jefe").unwrap();
        m.update(b"what do ya want for nothing?");
        let hex: String = m
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_key_others_may_read_or_that_is_not_hex_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k");
        ClusterKey::create(&p).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = ClusterKey::load(&p).unwrap_err().to_string();
        assert!(
            e.contains("read by others (mode 644)") && e.contains("chmod 600"),
            "{e}"
        );
        std::fs::write(&p, "zz\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        let e = ClusterKey::load(&p).unwrap_err().to_string();
        assert!(e.contains("64 hex digits"), "{e}");
    }
}
