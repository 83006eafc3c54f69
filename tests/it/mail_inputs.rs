//! A mail filter never reads mail as plain text: `eval` reads class folders `spam/` and
//! `ham/` as mail, line files given to `eval`, `classify` or `learn` under a mail model are
//! refused with a sentence, empty stdin is refused by `classify` and `learn` (exit 3, the
//! model untouched), and the messages that named the wrong flag name the right one.

use crate::common::{bin, corpus_and_filter, stderr_of_failure, stdout_of};
use std::fs;

#[test]
fn eval_reads_class_folders_as_mail_under_a_mail_model() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = corpus_and_filter(dir.path());
    let folders = stdout_of(
        bin()
            .args(["eval", "--json", "-m"])
            .arg(&model)
            .arg(&corpus),
    );
    let flags = stdout_of(
        bin()
            .args(["eval", "--json", "-m"])
            .arg(&model)
            .arg("--spam")
            .arg(corpus.join("spam"))
            .arg("--ham")
            .arg(corpus.join("ham")),
    );
    // The same figures as --spam/--ham: the folders were read as mail.
    assert_eq!(folders, flags);
    assert!(folders.contains("\"spam_recall\""), "{folders}");
}

#[test]
fn inputs_a_mail_model_cannot_read_are_refused_with_the_flags_to_use() {
    let dir = tempfile::tempdir().unwrap();
    let (_, model) = corpus_and_filter(dir.path());
    let tsv = dir.path().join("x.tsv");
    fs::write(&tsv, "ham\thello there\n").unwrap();
    let plain = dir.path().join("plain");
    fs::create_dir(&plain).unwrap();
    for input in [&tsv, &plain] {
        let e = stderr_of_failure(bin().args(["eval", "-m"]).arg(&model).arg(input));
        assert!(
            e.contains("is a mail filter") && e.contains("--spam PATH --ham PATH"),
            "{e}"
        );
    }
    let before = fs::read(&model).unwrap();
    for cmd in ["classify", "learn"] {
        let mut c = bin();
        c.args([cmd, "-m"]).arg(&model);
        if cmd == "learn" {
            c.arg("--ham");
        }
        let out = c.arg(&tsv).assert().code(3).get_output().stderr.clone();
        let e = String::from_utf8(out).unwrap();
        assert!(
            e.contains("x.tsv is a TSV file") && e.contains("line file"),
            "{cmd}: {e}"
        );
    }
    let msg = dir.path().join("corpus/spam/0.eml");
    let e = String::from_utf8(
        bin()
            .args(["classify", "--input-format", "jsonl", "-m"])
            .arg(&model)
            .arg(&msg)
            .assert()
            .code(3)
            .get_output()
            .stderr
            .clone(),
    )
    .unwrap();
    assert!(e.contains("given as JSONL"), "{e}");
    assert_eq!(fs::read(&model).unwrap(), before, "the model was changed");
}

#[test]
fn empty_stdin_is_refused_and_the_model_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let (_, model) = corpus_and_filter(dir.path());
    let before = fs::read(&model).unwrap();
    for args in [&["learn", "--spam"][..], &["classify"][..]] {
        let out = bin()
            .args(args)
            .arg("-m")
            .arg(&model)
            .write_stdin("")
            .assert()
            .code(3)
            .get_output()
            .clone();
        let e = String::from_utf8(out.stderr).unwrap();
        assert!(e.contains("on stdin is empty"), "{args:?}: {e}");
        assert!(out.stdout.is_empty(), "{args:?} printed a decision");
    }
    assert_eq!(fs::read(&model).unwrap(), before);
}

#[test]
fn messages_name_the_right_flags() {
    let dir = tempfile::tempdir().unwrap();
    let e = stderr_of_failure(bin().args(["learn", "-m", "x.model"]));
    assert!(e.contains("--spam|--ham"), "{e}");
    let help = stdout_of(bin().args(["classify", "--help"]));
    assert!(help.contains("line files with --input-format"), "{help}");
    assert!(!help.contains("line files with --format"), "{help}");
    // A JSON line in a file whose name says nothing: the sentence says how it was read.
    let j = dir.path().join("j.txt");
    fs::write(&j, "{\"label\":\"ham\",\"text\":\"hi\"}\n").unwrap();
    let e = stderr_of_failure(
        bin()
            .args(["train", "-o"])
            .arg(dir.path().join("m"))
            .arg(&j),
    );
    assert!(
        e.contains("was read as TSV lines") && e.contains("--format jsonl"),
        "{e}"
    );
}
