//! Large outputs written atomically while they stream out: an [`AtomicFile`] writes to a
//! temporary file beside the target and renames it over the target only on
//! [`commit`](AtomicFile::commit), so a reader never sees half a file and a failed run
//! leaves the old one in place. Model files, held in memory, are written through it too.

use crate::{Error, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A buffered file that appears at its path only when committed.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Creates the temporary file for `path` in the same folder.
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path.file_name().ok_or_else(|| {
            let not_a_name =
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name");
            Error::io(path, not_a_name)
        })?;
        let tmp = dir.join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let f = File::create(&tmp).map_err(|e| Error::io(path, e))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: Some(BufWriter::with_capacity(1 << 20, f)),
        })
    }

    /// The target path (for error messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes, syncs and renames the file over its target.
    pub fn commit(mut self) -> Result<()> {
        let out = self.out.take().expect("an uncommitted file has its writer");
        let result = (|| {
            let f = out.into_inner().map_err(|e| e.into_error())?;
            f.sync_all()?;
            std::fs::rename(&self.tmp, &self.path)
        })();
        result.map_err(|e| Error::io(&self.path, e))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.as_mut().expect("not committed").write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out.as_mut().expect("not committed").write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    /// A file dropped without [`commit`](AtomicFile::commit) (an error midway) is removed.
    fn drop(&mut self) {
        if self.out.take().is_some() || self.tmp.exists() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appears_only_on_commit_and_vanishes_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.svm");
        std::fs::write(&p, "old").unwrap();
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(b"new contents").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new contents");

        let mut g = AtomicFile::create(&p).unwrap();
        g.write_all(b"half").unwrap();
        drop(g);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new contents");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "the temporary file is removed");
    }
}
