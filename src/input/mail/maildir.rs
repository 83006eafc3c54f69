//! Maildir folders: one message per file under `cur/` and `new/` (`tmp/` holds deliveries in
//! progress and is skipped), with Maildir++ subfolders (`.Name/`) read as well.
//!
//! Only regular files are messages: a FIFO, socket or device in `cur/` or `new/` is listed
//! as skipped without being opened, and a subfolder link back to a folder already read is
//! not followed.

use crate::atomic::not_regular;
use crate::input::dirs::Walk;
use crate::{Error, Result};
use std::path::Path;

/// Whether `dir` is a Maildir: it has a `cur` or a `new` subfolder.
pub(crate) fn is_maildir(dir: &Path) -> bool {
    dir.join("cur").is_dir() || dir.join("new").is_dir()
}

/// The message files of the Maildir at `dir` and of its Maildir++ subfolders, sorted
/// (hidden files skipped), with the entries passed over.
pub(crate) fn maildir_files(dir: &Path) -> Result<Walk> {
    let mut walk = Walk::default();
    walk.visit_root(dir)?;
    collect(dir, &mut walk, 0)?;
    walk.files.sort();
    Ok(walk)
}

fn collect(dir: &Path, walk: &mut Walk, depth: usize) -> Result<()> {
    for sub in ["cur", "new"] {
        let d = dir.join(sub);
        if !d.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&d).map_err(|e| Error::io(&d, e))? {
            let entry = entry.map_err(|e| Error::io(&d, e))?;
            let p = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            // Follows links without opening: a link to a message is a message.
            match std::fs::metadata(&p) {
                Ok(m) if m.is_file() => walk.files.push(p),
                Ok(m) if m.is_dir() => {}
                Ok(m) => walk.skip(&p, not_regular(&m.file_type())),
                Err(e) => walk.skip(&p, e.to_string()),
            }
        }
    }
    if depth >= 8 {
        return Ok(());
    }
    let mut subs = Vec::new();
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
            subs.push(p);
        }
    }
    subs.sort();
    for p in subs {
        if walk.visit(&p) {
            collect(&p, walk, depth + 1)?;
        }
    }
    Ok(())
}
