//! `DIR/<class>/...`: one document per file, labelled by its first-level folder.

use super::{Corpus, Document, decode_text};
use crate::{Error, Result};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Every regular file under `dir`, recursively, in sorted order (hidden files skipped).
pub(crate) fn walk_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let rd = std::fs::read_dir(&d).map_err(|e| Error::io(&d, e))?;
        for entry in rd {
            let entry = entry.map_err(|e| Error::io(&d, e))?;
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let p = entry.path();
            let ft = entry.file_type().map_err(|e| Error::io(&p, e))?;
            if ft.is_dir() || (ft.is_symlink() && p.is_dir()) {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Reads a class-per-folder corpus; files are read in parallel, order is sorted by path.
pub fn read_dirs(dir: &Path) -> Result<Corpus> {
    read_files(list_dirs(dir)?)
}

/// The (class, file) pairs of a class-per-folder corpus, classes and files in sorted order.
pub(super) fn list_dirs(dir: &Path) -> Result<Vec<(Option<String>, PathBuf)>> {
    let mut jobs = Vec::new();
    let mut classes = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() && !name.starts_with('.') {
            classes.push((name, entry.path()));
        }
    }
    classes.sort();
    if classes.is_empty() {
        return Err(Error::parse(
            dir,
            None,
            "no class folders (expected DIR/<class>/<files>)",
        ));
    }
    for (class, path) in classes {
        for f in walk_files(&path)? {
            jobs.push((Some(class.clone()), f));
        }
    }
    Ok(jobs)
}

/// Reads (label, file) pairs in parallel, one document per file, keeping their order;
/// a file that cannot be read is counted and skipped.
pub(crate) fn read_files(jobs: Vec<(Option<String>, PathBuf)>) -> Result<Corpus> {
    let results: Vec<_> = jobs
        .into_par_iter()
        .map(|(class, f)| match std::fs::read(&f) {
            Ok(bytes) => Ok(Document::new(
                f.display().to_string(),
                decode_text(bytes),
                class.as_deref(),
            )),
            Err(e) => Err((f.display().to_string(), e.to_string())),
        })
        .collect();
    let mut corpus = Corpus::default();
    for r in results {
        match r {
            Ok(d) => corpus.docs.push(d),
            Err(s) => corpus.skipped.push(s),
        }
    }
    Ok(corpus)
}
