//! A closed stderr (`2>&-`, or a reader that went away) loses the program's messages,
//! never its exit code: nothing panics for want of a place to print.

use crate::common::data;
use std::process::{Command, Output, Stdio};

/// Runs `rosenblatt ARGS…` with stderr a pipe whose reading end is already closed, so
/// that every write to stderr fails.
fn with_stderr_closed(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(writer)
        .output()
        .unwrap()
}

#[test]
fn an_error_on_a_closed_stderr_keeps_its_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let missing = dir.path().join("missing");
    let (model, missing) = (model.to_str().unwrap(), missing.to_str().unwrap());
    assert_eq!(
        with_stderr_closed(&["train", "-o", model, missing])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        with_stderr_closed(&["classify", "-m", missing, missing])
            .status
            .code(),
        Some(3)
    );
}

#[test]
fn notes_on_a_closed_stderr_do_not_stop_the_work() {
    let dir = tempfile::tempdir().unwrap();
    // One unreadable line: `train` notes it on stderr, then trains on the rest.
    let input = dir.path().join("c.jsonl");
    let good = std::fs::read_to_string(data("tiny.jsonl")).unwrap();
    std::fs::write(&input, format!("not json\n{good}")).unwrap();
    let model = dir.path().join("m");
    let out = with_stderr_closed(&[
        "train",
        "-o",
        model.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(model.exists());
}
