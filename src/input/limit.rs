//! Bounded reads: no input is read without a bound. A document or message read on its
//! own (a file of a class folder, a message file given to `classify`/`learn`, standard
//! input) holds at most `max_document_bytes`; a corpus file (TSV, JSONL, SVMlight,
//! mbox, Reuters SGML, an index) is read whole when it is a regular file — its size is
//! known before reading — and is bounded the same way when it is not (a FIFO, a device
//! such as `/dev/zero`, a pipe), so an endless stream stops at the bound with a sentence.
//! Memory for what is read is reserved without aborting: a size the machine cannot hold
//! is a sentence too.

use crate::{Error, Result};
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The default bound: 64 MiB, far above any mail message or document measured.
pub(crate) const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 64 << 20;

static MAX_DOCUMENT_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_DOCUMENT_BYTES);

/// Sets the bound for this process (the command line's `--max-document-bytes`).
pub fn set_max_document_bytes(bytes: u64) {
    MAX_DOCUMENT_BYTES.store(bytes.max(1), Ordering::Relaxed);
}

/// The bound in force.
pub(crate) fn max_document_bytes() -> u64 {
    MAX_DOCUMENT_BYTES.load(Ordering::Relaxed)
}

/// Reads at most the bound from `r` (named `name` in the error); more is an error.
pub fn read_bounded(r: impl Read, name: &str) -> Result<Vec<u8>> {
    let cap = max_document_bytes();
    let mut bytes = Vec::new();
    r.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Data(format!("{name}: {e}")))?;
    if bytes.len() as u64 > cap {
        return Err(Error::Data(too_long(name, cap)));
    }
    Ok(bytes)
}

/// Why a message of `len` bytes read from a larger file (a message file, an mbox) is
/// skipped, or `None` when it is within the bound (mail reading's: built with `mail`).
#[cfg(feature = "mail")]
pub(crate) fn over_bound(len: usize) -> Option<String> {
    let cap = max_document_bytes();
    (len as u64 > cap).then(|| {
        format!(
            "more than {cap} bytes, the most read as one message (--max-document-bytes \
             raises it)"
        )
    })
}

/// The sentence for an input longer than the bound.
pub(crate) fn too_long(name: &str, cap: u64) -> String {
    format!(
        "{name}: more than {cap} bytes, the most read as one document or from a stream \
         (max_document_bytes; the command line's --max-document-bytes raises it)"
    )
}

/// One document or message in a file of its own: at most the bound.
pub fn read_document(path: &Path) -> Result<Vec<u8>> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let cap = max_document_bytes();
    if f.metadata().is_ok_and(|m| m.is_file() && m.len() > cap) {
        return Err(Error::Data(too_long(&path.display().to_string(), cap)));
    }
    read_bounded(f, &path.display().to_string())
}

/// A corpus file: whole when it is a regular file (memory reserved without aborting),
/// at most the bound when it is a stream or device.
pub(crate) fn read_corpus_file(path: &Path) -> Result<Vec<u8>> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = f.metadata().map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return read_bounded(f, &path.display().to_string());
    }
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(meta.len() as usize).map_err(|_| {
        Error::Data(format!(
            "{}: {} bytes do not fit in this machine's free memory",
            path.display(),
            meta.len()
        ))
    })?;
    f.read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_and_documents_stop_at_the_bound_corpus_files_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.tsv");
        let big = vec![b'x'; (DEFAULT_MAX_DOCUMENT_BYTES + 10) as usize];
        std::fs::write(&p, &big).unwrap();
        let e = read_document(&p).unwrap_err().to_string();
        assert!(e.contains("a.tsv: more than 67108864 bytes"), "{e}");
        assert_eq!(read_corpus_file(&p).unwrap().len(), big.len());
        let e = read_bounded(&big[..], "stdin").unwrap_err().to_string();
        assert!(
            e.starts_with("stdin: more than") && e.contains("--max-document-bytes"),
            "{e}"
        );
        let at = &big[..DEFAULT_MAX_DOCUMENT_BYTES as usize];
        assert_eq!(read_bounded(at, "stdin").unwrap().len(), at.len());
        #[cfg(unix)]
        {
            let e = read_corpus_file(Path::new("/dev/zero"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("/dev/zero: more than"), "{e}");
        }
    }
}
