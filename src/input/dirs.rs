//! `DIR/<class>/...`: one document per file, labelled by its first-level folder.
//!
//! Folders are walked without opening anything but folders: only regular files (or links
//! to them) become documents, while FIFOs, sockets and devices are passed over and listed
//! in the corpus's `skipped` — opening a FIFO found in a folder would wait forever for a
//! writer. A link to a folder already read (a cycle such as `loop -> ..`, or a second link
//! to one folder) is not followed again, so a walk always ends and no file is read twice.

use super::{Corpus, Document, decode_text};
use crate::atomic::not_regular;
use crate::{Error, Result};
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// (label, file) pairs to read.
pub(crate) type Jobs = Vec<(Option<String>, PathBuf)>;

/// The regular files found by walking folders, the entries passed over with the reason,
/// and the folders read so far (canonical paths), which a link may not lead back to, nor
/// to a folder above where the walk started.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    /// Regular files, in the order found (sorted by [`walk_files`]).
    pub(crate) files: Vec<PathBuf>,
    /// Entries that are not regular files, links that cannot be followed: (path, reason).
    pub(crate) skipped: Vec<(String, String)>,
    visited: HashSet<PathBuf>,
    roots: Vec<PathBuf>,
}

impl Walk {
    /// Records the folder a walk starts from as read; no link may lead to it or above it.
    pub(crate) fn visit_root(&mut self, dir: &Path) -> Result<()> {
        let real = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
        self.roots.push(real.clone());
        self.visited.insert(real);
        Ok(())
    }

    /// Records `dir` as read; false, with the reason listed as skipped, when it was read
    /// already, holds a folder the walk started from, or cannot be resolved.
    pub(crate) fn visit(&mut self, dir: &Path) -> bool {
        match std::fs::canonicalize(dir) {
            Ok(real) if self.roots.iter().any(|r| r.starts_with(&real)) => {
                self.skip(
                    dir,
                    "a link back to a folder being read (a cycle); not followed",
                );
                false
            }
            Ok(real) if !self.visited.contains(&real) => self.visited.insert(real),
            Ok(_) => {
                self.skip(dir, "a link to a folder already read; not followed");
                false
            }
            Err(e) => {
                self.skip(dir, e.to_string());
                false
            }
        }
    }

    /// Lists `path` as passed over for `why`.
    pub(crate) fn skip(&mut self, path: &Path, why: impl Into<String>) {
        self.skipped.push((path.display().to_string(), why.into()));
    }

    /// Walks `top` (already visited) recursively, hidden entries skipped.
    pub(crate) fn add_tree(&mut self, top: &Path) -> Result<()> {
        let mut stack = vec![top.to_path_buf()];
        while let Some(d) = stack.pop() {
            let mut entries = Vec::new();
            for entry in std::fs::read_dir(&d).map_err(|e| Error::io(&d, e))? {
                let entry = entry.map_err(|e| Error::io(&d, e))?;
                if !entry.file_name().to_string_lossy().starts_with('.') {
                    entries.push(entry);
                }
            }
            entries.sort_by_key(|e| e.file_name());
            let mut subdirs = Vec::new();
            for entry in entries {
                let p = entry.path();
                let ft = entry.file_type().map_err(|e| Error::io(&p, e))?;
                let ft = if ft.is_symlink() {
                    match std::fs::metadata(&p) {
                        Ok(m) => m.file_type(),
                        Err(e) => {
                            self.skip(&p, e.to_string());
                            continue;
                        }
                    }
                } else {
                    ft
                };
                if ft.is_dir() {
                    if self.visit(&p) {
                        subdirs.push(p);
                    }
                } else if ft.is_file() {
                    self.files.push(p);
                } else {
                    self.skip(&p, not_regular(&ft));
                }
            }
            // Popped in name order.
            stack.extend(subdirs.into_iter().rev());
        }
        Ok(())
    }
}

/// Every regular file under `dir`, recursively, in sorted order (hidden files skipped),
/// with the entries passed over.
pub(crate) fn walk_files(dir: &Path) -> Result<Walk> {
    let mut walk = Walk::default();
    walk.visit_root(dir)?;
    walk.add_tree(dir)?;
    walk.files.sort();
    Ok(walk)
}

/// Reads a class-per-folder corpus; files are read in parallel, order is sorted by path.
pub(crate) fn read_dirs(dir: &Path) -> Result<Corpus> {
    let (jobs, skipped) = list_dirs(dir)?;
    let mut corpus = read_files(jobs)?;
    corpus.skipped.splice(0..0, skipped);
    Ok(corpus)
}

/// The (class, file) pairs of a class-per-folder corpus, classes and files in sorted order,
/// with the entries passed over. Every class folder counts as read before any is walked,
/// so a link from one class into another is not followed. A folder whose folders are
/// corpora themselves (`train/` and `test/` of the same classes) is refused.
pub(super) fn list_dirs(dir: &Path) -> Result<(Jobs, Vec<(String, String)>)> {
    let mut walk = Walk::default();
    walk.visit_root(dir)?;
    let mut classes = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() && !name.starts_with('.') {
            if let Some(why) = super::label_problem(&name) {
                return Err(Error::parse(
                    entry.path(),
                    None,
                    format!("a class folder: {why}"),
                ));
            }
            classes.push((name, entry.path()));
        }
    }
    classes.sort();
    if classes.is_empty() {
        return Err(Error::parse(dir, None, no_class_folders(dir)));
    }
    if let Some(why) = super::nested::folders_of_corpora(dir, &classes) {
        return Err(Error::parse(dir, None, why));
    }
    let mut fresh = Vec::new();
    for (class, path) in classes {
        if walk.visit(&path) {
            fresh.push((class, path));
        }
    }
    let mut jobs = Vec::new();
    for (class, path) in fresh {
        walk.files.clear();
        walk.add_tree(&path)?;
        walk.files.sort();
        jobs.extend(walk.files.drain(..).map(|f| (Some(class.clone()), f)));
    }
    Ok((jobs, walk.skipped))
}

/// Why a folder without class folders cannot be read, with the format its files look like
/// where they say it: Reuters-21578's `.sgm` files, line files, SVMlight vectors.
fn no_class_folders(dir: &Path) -> String {
    const EXPECTED: &str = "no class folders (expected DIR/<class>/<files>)";
    let Ok(entries) = std::fs::read_dir(dir) else {
        return EXPECTED.into();
    };
    let mut extensions: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let p = e.path();
            p.extension()
                .map(|x| x.to_string_lossy().to_ascii_lowercase())
        })
        .collect();
    extensions.sort();
    extensions.dedup();
    let hint = |x: &str| extensions.iter().any(|e| e == x);
    if hint("sgm") {
        format!("{EXPECTED}; its .sgm files look like Reuters-21578: give --format reuters")
    } else if hint("jsonl") || hint("tsv") || hint("svm") {
        format!(
            "{EXPECTED}; it holds line files (.jsonl, .tsv, .svm): give their paths, or \
             --format"
        )
    } else {
        EXPECTED.into()
    }
}

/// Reads (label, file) pairs in parallel, keeping their order: each file's document, or
/// (id, reason) for a file that cannot be read.
pub(crate) fn read_each(jobs: Jobs) -> Vec<std::result::Result<Document, (String, String)>> {
    jobs.into_par_iter()
        .map(|(class, f)| match super::limit::read_document(&f) {
            Ok(bytes) => Ok(Document::new(
                f.display().to_string(),
                decode_text(bytes),
                class.as_deref(),
            )),
            Err(e) => Err(super::skip_reason(&f, &e)),
        })
        .collect()
}

/// Reads (label, file) pairs in parallel, one document per file, keeping their order;
/// a file that cannot be read is counted and skipped.
pub(crate) fn read_files(jobs: Jobs) -> Result<Corpus> {
    let mut corpus = Corpus::default();
    for r in read_each(jobs) {
        match r {
            Ok(d) => corpus.docs.push(d),
            Err(s) => corpus.skipped.push(s),
        }
    }
    Ok(corpus)
}
