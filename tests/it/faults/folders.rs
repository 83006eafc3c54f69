//! Input folders holding what is not a file: FIFOs, sockets and devices are passed over
//! without being opened, links that lead back up a folder tree are not followed.

use super::{json_field, mkfifo, ok, raw, run, tiny_copy, tiny_model};
use crate::common::data;
use std::path::Path;
use std::process::Command;

/// Stdout and stderr of a `classify` that printed every line it could and skipped
/// something, which it says with exit code 4.
fn classified_but_skipped(cmd: &mut Command, what: &str) -> (String, String) {
    let o = run(cmd, what);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert_eq!(o.status.code(), Some(4), "{what}: {err}");
    (out, err)
}

/// `train --json` of the class folders under `corpus`: (stdout, stderr).
fn train_json(model: &Path, corpus: &Path, what: &str) -> (String, String) {
    ok(
        raw().args(["train", "--json", "-o"]).arg(model).arg(corpus),
        what,
    )
}

/// `train --json` of `corpus`'s `spam/` and `ham/` folders as mail: (stdout, stderr).
fn train_mail_json(model: &Path, corpus: &Path, what: &str) -> (String, String) {
    ok(
        raw()
            .args(["train", "--json", "-o"])
            .arg(model)
            .arg("--spam")
            .arg(corpus.join("spam"))
            .arg("--ham")
            .arg(corpus.join("ham")),
        what,
    )
}

#[test]
fn fifo_socket_and_device_in_folders_are_skipped_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = tiny_copy(dir.path());
    mkfifo(&corpus.join("ham/fifo"));
    let _socket = std::os::unix::net::UnixListener::bind(corpus.join("spam/sock")).unwrap();
    std::os::unix::fs::symlink("/dev/null", corpus.join("ham/null")).unwrap();
    let model = dir.path().join("m.model");

    let (out, err) = train_json(&model, &corpus, "train DIR");
    assert_eq!(json_field(&out, "documents"), 12, "{err}");
    assert_eq!(json_field(&out, "skipped"), 3, "{err}");
    for why in [
        "ham/fifo: not a regular file (FIFO)",
        "spam/sock: not a regular file (socket)",
        "ham/null: not a regular file (character device)",
    ] {
        assert!(err.contains(why), "train: {why} in {err}");
    }

    let (out, err) = classified_but_skipped(
        raw().args(["classify", "-m"]).arg(&model).arg(&corpus),
        "classify DIR",
    );
    assert_eq!(out.lines().count(), 12, "{err}");
    assert!(err.contains("not a regular file (FIFO)"), "{err}");

    let mail_model = dir.path().join("mail.model");
    let (out, err) = train_mail_json(&mail_model, &corpus, "train --spam DIR --ham DIR");
    assert_eq!(json_field(&out, "documents"), 12, "{err}");
    assert!(err.contains("not a regular file (FIFO)"), "{err}");

    let (out, err) = ok(
        raw()
            .args(["learn", "--json", "--ham", "-m"])
            .arg(&mail_model)
            .arg(corpus.join("ham")),
        "learn --ham DIR",
    );
    assert_eq!(json_field(&out, "messages"), 6, "{err}");
    assert!(err.contains("not a regular file (FIFO)"), "{err}");
}

#[test]
fn fifo_in_a_maildir_is_skipped_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("maildir");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).unwrap();
    }
    let src = data("mail/maildir/cur");
    for f in std::fs::read_dir(&src).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, md.join("cur").join(f.file_name().unwrap())).unwrap();
    }
    mkfifo(&md.join("new/fifo"));
    std::os::unix::fs::symlink("..", md.join(".Loop")).unwrap();
    let model = dir.path().join("mail.model");
    ok(
        raw()
            .args(["train", "-o"])
            .arg(&model)
            .arg("--spam")
            .arg(data("mail/escaped.mbox"))
            .arg("--ham")
            .arg(&md),
        "train with a Maildir",
    );
    let (out, err) = ok(
        raw()
            .args(["learn", "--json", "--spam", "-m"])
            .arg(&model)
            .arg(&md),
        "learn a Maildir",
    );
    assert_eq!(json_field(&out, "messages"), 2, "{err}");
    assert!(err.contains("new/fifo: not a regular file (FIFO)"), "{err}");
}

#[test]
fn a_fifo_named_on_the_command_line_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, "free cash prize now\n").unwrap())
    };
    let (out, _) = ok(
        raw().args(["classify", "-m"]).arg(&model).arg(&fifo),
        "classify FIFO",
    );
    writer.join().unwrap();
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("\tspam\t"), "{out}");
}

#[test]
fn symlink_cycles_in_folders_end_and_read_no_file_twice() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = tiny_copy(dir.path());
    std::os::unix::fs::symlink("..", corpus.join("ham/loop")).unwrap();
    std::fs::create_dir(corpus.join("spam/deep")).unwrap();
    std::os::unix::fs::symlink("../../spam", corpus.join("spam/deep/again")).unwrap();
    let model = dir.path().join("m.model");
    let (out, err) = train_json(&model, &corpus, "train DIR with cycles");
    assert_eq!(json_field(&out, "documents"), 12, "{err}");
    assert!(
        err.contains("ham/loop: a link back to a folder being read (a cycle)"),
        "{err}"
    );
    assert!(
        err.contains("deep/again: a link to a folder already read"),
        "{err}"
    );

    let (out, err) = train_mail_json(
        &dir.path().join("mail.model"),
        &corpus,
        "train --spam DIR --ham DIR with cycles",
    );
    assert_eq!(json_field(&out, "documents"), 12, "{err}");
    assert!(err.contains("a cycle"), "{err}");

    let (out, err) = classified_but_skipped(
        raw()
            .args(["classify", "-m"])
            .arg(&model)
            .arg(corpus.join("ham")),
        "classify DIR with a cycle",
    );
    assert_eq!(out.lines().count(), 6, "{out}\n{err}");
}
