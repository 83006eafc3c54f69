//! A folder one level above a class-folder corpus, told apart from the corpus itself.
//!
//! A corpus kept as `DIR/train/<class>/` and `DIR/test/<class>/` has the shape of class
//! folders too: given `DIR`, the walk would read two classes, `train` and `test`, and train
//! "test vs train" without a word. Such a folder is refused with a sentence when its folders
//! (two or more) hold no files of their own, only folders, a name among those folders
//! recurs in two or more of them — the same classes under each part — and two of the
//! folders are named as parts are (`train`, `test`, `dev`, `validation`, …, or a name with
//! such a word, `20news-bydate-train`): a team's `dev/` beside `ops/` is a class. A Maildir (`cur`, `new`, `tmp`) is not such a
//! folder, and neither is a class folder holding a file beside its subfolders, class
//! folders whose subfolders all differ (`spam/easy`, `ham/hard`), nor classes that each keep
//! the same subfolders under a class's name (`spam/2002`, `ham/2002`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How many names a sentence lists before it ends the list with `…`.
const SHOWN: usize = 4;

/// Why `dir`, whose folders are `classes` (name, path, in name order), holds corpora
/// instead of being one: the sentence naming what it found and what to give instead.
/// `None` when the folders read as class folders.
pub(super) fn folders_of_corpora(dir: &Path, classes: &[(String, PathBuf)]) -> Option<String> {
    let parts = classes
        .iter()
        .filter(|(name, _)| names_a_part(name))
        .count();
    if classes.len() < 2 || parts < 2 {
        return None;
    }
    // Each inner folder's name, with how many of the folders hold one of that name.
    let mut inner: BTreeMap<String, usize> = BTreeMap::new();
    for (_, path) in classes {
        for name in only_folders(path)? {
            *inner.entry(name).or_default() += 1;
        }
    }
    if !inner.values().any(|&n| n >= 2) {
        return None;
    }
    let outer: Vec<&str> = classes.iter().map(|(n, _)| n.as_str()).collect();
    let example = outer
        .iter()
        .copied()
        .find(|n| *n == "train")
        .unwrap_or(outer[0]);
    Some(format!(
        "its folders {} hold no files, only class folders ({}), so they would be read as \
         the classes: give one of them, such as {}, as the input",
        listed(outer.iter().copied()),
        listed(inner.keys().map(String::as_str)),
        dir.join(example).display()
    ))
}

/// The words that name a part of a corpus rather than a class, as in `train/`, `test/` or
/// `20news-bydate-train/`.
const PARTS: &[&str] = &[
    "train",
    "training",
    "test",
    "testing",
    "dev",
    "devel",
    "development",
    "val",
    "valid",
    "validation",
    "eval",
    "evaluation",
    "holdout",
    "heldout",
];

/// Whether a folder's name names a part of a corpus: one of its words (split at anything
/// but letters and digits) is one of [`PARTS`], in any case.
fn names_a_part(name: &str) -> bool {
    name.split(|c: char| !c.is_alphanumeric())
        .any(|w| PARTS.iter().any(|p| p.eq_ignore_ascii_case(w)))
}

/// The names of the folders in `dir` when it holds only folders (hidden entries aside) and
/// at least one, none of them a Maildir's own (`cur`, `new`, `tmp`) nor a Maildir; `None`
/// when it holds a file, is a Maildir, or cannot be listed (the walk reports that).
fn only_folders(dir: &Path) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        // Links are followed, as the walk follows them.
        let meta = std::fs::metadata(&path).ok()?;
        if !meta.is_dir() {
            return None;
        }
        if matches!(name.as_str(), "cur" | "new" | "tmp") || is_mailbox(&path) {
            return None;
        }
        names.push(name);
    }
    (!names.is_empty()).then_some(names)
}

/// Whether `dir` is a Maildir: it has a `cur` or a `new` folder.
fn is_mailbox(dir: &Path) -> bool {
    dir.join("cur").is_dir() || dir.join("new").is_dir()
}

/// `names` joined by commas, the first [`SHOWN`] of them, then `…` if there are more.
fn listed<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    let mut out = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        out.push_str(", …");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Makes `files` (paths relative to a fresh folder) and returns the folder with its
    /// first-level folders as `list_dirs` finds them.
    fn tree(files: &[&str]) -> (tempfile::TempDir, Vec<(String, PathBuf)>) {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            let p = dir.path().join(f);
            if let Some(folder) = f.strip_suffix('/') {
                std::fs::create_dir_all(dir.path().join(folder)).unwrap();
            } else {
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, "x").unwrap();
            }
        }
        let mut classes: Vec<(String, PathBuf)> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (e.file_name().to_string_lossy().into_owned(), e.path())
            })
            .filter(|(_, p)| p.is_dir())
            .collect();
        classes.sort();
        (dir, classes)
    }

    #[test]
    fn parts_holding_the_same_class_folders_are_refused() {
        let (dir, classes) = tree(&[
            "train/acq/1",
            "train/crude/2",
            "test/acq/3",
            "test/crude/4",
            "test/grain/5",
        ]);
        let why = folders_of_corpora(dir.path(), &classes).unwrap();
        assert!(
            why.starts_with("its folders test, train hold no files"),
            "{why}"
        );
        assert!(why.contains("(acq, crude, grain)"), "{why}");
        assert!(
            why.contains(&format!("such as {},", dir.path().join("train").display())),
            "{why}"
        );
    }

    #[test]
    fn part_names_are_words_of_a_folder_name() {
        for name in [
            "train",
            "TEST",
            "20news-bydate-train",
            "dev_set",
            "Validation",
        ] {
            assert!(names_a_part(name), "{name}");
        }
        for name in ["spam", "ham", "contest", "trainers", "2002", "devices"] {
            assert!(!names_a_part(name), "{name}");
        }
    }

    #[test]
    fn long_lists_end_with_an_ellipsis() {
        assert_eq!(listed(["a", "b", "c", "d"].into_iter()), "a, b, c, d");
        assert_eq!(
            listed(["a", "b", "c", "d", "e"].into_iter()),
            "a, b, c, d, …"
        );
    }

    #[test]
    fn corpora_of_class_folders_are_read() {
        for files in [
            // Files in each class folder, nested folders beside them.
            &["spam/1", "spam/old/2", "ham/3", "ham/old/4"][..],
            // One class folder of files is enough.
            &["spam/1", "ham/old/2", "spam/old/3"],
            // Maildir class folders.
            &[
                "spam/cur/1",
                "spam/new/",
                "spam/tmp/",
                "ham/cur/2",
                "ham/new/3",
            ],
            // Class folders holding Maildirs of the same name.
            &["spam/inbox/cur/1", "ham/inbox/cur/2"],
            // Subfolders that differ from class to class.
            &["spam/easy/1", "ham/easy_ham/2", "ham/hard_ham/3"],
            // One folder only.
            &["train/acq/1", "train/crude/2"],
            // Classes that keep the same subfolders (years), named as classes.
            &["spam/2002/1", "spam/2003/2", "ham/2002/3", "ham/2003/4"],
            // One class whose name is also a part's.
            &["dev/2019/1", "dev/2020/2", "ops/2019/3", "ops/2020/4"],
        ] {
            let (dir, classes) = tree(files);
            assert_eq!(folders_of_corpora(dir.path(), &classes), None, "{files:?}");
        }
    }

    #[test]
    fn hidden_entries_do_not_count() {
        let (dir, classes) = tree(&["dev/x/1", "dev/.DS_Store", "test/x/2", "test/.git/3"]);
        assert!(folders_of_corpora(dir.path(), &classes).is_some());
    }
}
