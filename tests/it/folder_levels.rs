//! A folder holding corpora of class folders (`corpus/train/<class>/`, `corpus/test/<class>/`)
//! is refused with a sentence by every reader of class folders — `train`, `eval`,
//! `vectorize`, the whole-corpus reader and the streamed reader with its shares — instead
//! of training "test vs train"; the folder it names reads, and so do Maildir class folders
//! and class folders holding files beside their subfolders.

use crate::common::bin;
use predicates::str::contains;
use rosenblatt::input::{DocStream, Format, Share};
use std::path::{Path, PathBuf};

/// Writes `corpus/{train,test}/{acq,crude,grain}/N.txt` under `dir`; returns `corpus`.
fn split_corpus(dir: &Path) -> PathBuf {
    let corpus = dir.join("corpus");
    for part in ["train", "test"] {
        for class in ["acq", "crude", "grain"] {
            let d = corpus.join(part).join(class);
            std::fs::create_dir_all(&d).unwrap();
            for i in 0..3 {
                let text = format!("{class} {class} report {part} number {i}");
                std::fs::write(d.join(format!("{i}.txt")), text).unwrap();
            }
        }
    }
    corpus
}

/// The sentence every reader gives for `corpus`.
fn refusal(corpus: &Path) -> String {
    format!(
        "{}: its folders test, train hold no files, only class folders (acq, crude, grain), \
         so they would be read as the classes: give one of them, such as {}, as the input",
        corpus.display(),
        corpus.join("train").display()
    )
}

#[test]
fn a_folder_of_train_and_test_corpora_is_refused_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = split_corpus(dir.path());
    let model = dir.path().join("x.model");
    let why = refusal(&corpus);
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(&corpus)
        .assert()
        .code(1)
        .stderr(contains(why.as_str()));
    assert!(!model.exists(), "a model was written");
    // Cluster training over worker threads reads the same way.
    bin()
        .args(["train", "--workers", "2", "-o"])
        .arg(&model)
        .arg(&corpus)
        .assert()
        .code(1)
        .stderr(contains(why.as_str()));
    assert!(!model.exists(), "a model was written");
    let svm = dir.path().join("x.svm");
    bin()
        .args(["vectorize", "-o"])
        .arg(&svm)
        .arg(&corpus)
        .assert()
        .code(1)
        .stderr(contains(why.as_str()));
    // The folder the sentence names trains, with its own classes; eval of the folder
    // above is refused alike.
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(corpus.join("train"))
        .assert()
        .success()
        .stdout(contains("classes        acq, crude, grain"));
    bin()
        .args(["eval", "-m"])
        .arg(&model)
        .arg(&corpus)
        .assert()
        .code(1)
        .stderr(contains(why.as_str()));
    bin()
        .args(["eval", "-m"])
        .arg(&model)
        .arg(corpus.join("test"))
        .assert()
        .success();
}

#[test]
fn the_library_readers_refuse_it_and_read_class_folders() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = split_corpus(dir.path());
    let why = refusal(&corpus);
    let err = rosenblatt::input::read(&corpus, None).unwrap_err();
    assert_eq!(err.to_string(), why);
    // The streamed reader, whole and as one share of two.
    for share in [Share { index: 0, of: 1 }, Share { index: 1, of: 2 }] {
        let mut stream = DocStream::open(std::slice::from_ref(&corpus), None, None, 4)
            .unwrap()
            .share(share);
        let err = stream.next().unwrap().unwrap_err();
        assert_eq!(err.to_string(), why);
    }
    // Maildir class folders, and class folders holding files beside subfolders, read.
    let mail = dir.path().join("mail");
    for (f, text) in [
        ("spam/cur/1", "Subject: cheap meds\n\nbuy now\n"),
        ("spam/new/2", "Subject: offer\n\nbuy today\n"),
        ("ham/cur/3", "Subject: lunch\n\nsee you\n"),
        ("ham/new/4", "Subject: notes\n\nthe minutes\n"),
    ] {
        let p = mail.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::create_dir_all(mail.join("ham/tmp")).unwrap();
    std::fs::create_dir_all(mail.join("spam/tmp")).unwrap();
    let c = rosenblatt::input::read(&mail, Some(Format::Dir)).unwrap();
    assert_eq!(c.docs.len(), 4);
    let nested = dir.path().join("nested");
    for f in ["spam/1", "spam/2003/2", "ham/3", "ham/2003/4"] {
        let p = nested.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "words").unwrap();
    }
    assert_eq!(
        rosenblatt::input::read(&nested, None).unwrap().docs.len(),
        4
    );
}
