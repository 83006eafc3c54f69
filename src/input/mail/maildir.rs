//! Maildir folders: one message per file under `cur/` and `new/` (`tmp/` holds deliveries in
//! progress and is skipped), with Maildir++ subfolders (`.Name/`) read as well.

use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// Whether `dir` is a Maildir: it has a `cur` or a `new` subfolder.
pub fn is_maildir(dir: &Path) -> bool {
    dir.join("cur").is_dir() || dir.join("new").is_dir()
}

/// The message files of the Maildir at `dir` and of its Maildir++ subfolders, sorted
/// (hidden files skipped).
pub fn maildir_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    collect(dir, &mut out, 0)?;
    out.sort();
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) -> Result<()> {
    for sub in ["cur", "new"] {
        let d = dir.join(sub);
        if !d.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&d).map_err(|e| Error::io(&d, e))? {
            let entry = entry.map_err(|e| Error::io(&d, e))?;
            let p = entry.path();
            if !entry.file_name().to_string_lossy().starts_with('.') && p.is_file() {
                out.push(p);
            }
        }
    }
    if depth >= 8 {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        let p = entry.path();
        if name.to_string_lossy().starts_with('.')
            && name != "."
            && name != ".."
            && p.is_dir()
            && is_maildir(&p)
        {
            collect(&p, out, depth + 1)?;
        }
    }
    Ok(())
}
