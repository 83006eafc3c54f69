//! Hostile input and faults through the binary: closed pipes, broken label lines, an
//! empty vocabulary, negative flag values, FIFOs in folders and a held model lock.

use crate::common::{bin, data, stdout_of};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The binary as a plain process, for tests that need control of its pipes.
fn raw() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("rosenblatt"))
}

/// A model trained on the tiny folder corpus.
fn tiny_model(dir: &Path) -> PathBuf {
    let model = dir.join("tiny.model");
    stdout_of(bin().args(["train", "-o"]).arg(&model).arg(data("tiny")));
    model
}

/// Runs `cmd` with a stdout pipe whose reader is closed before the child writes, and
/// asserts a quiet, successful end.
fn quiet_on_closed_pipe(cmd: &mut Command, what: &str) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(out.status.success(), "{what}: {:?} {err}", out.status);
}

#[test]
fn closed_stdout_ends_every_printing_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_model(dir.path());
    quiet_on_closed_pipe(raw().args(["inspect", "-m"]).arg(&model), "inspect");
    let m2 = dir.path().join("m2.model");
    quiet_on_closed_pipe(
        raw()
            .args(["train", "--json", "-o"])
            .arg(&m2)
            .arg(data("tiny")),
        "train --json",
    );
    quiet_on_closed_pipe(
        raw().args(["train", "-o"]).arg(&m2).arg(data("tiny")),
        "train",
    );
    quiet_on_closed_pipe(
        raw().args(["eval", "-m"]).arg(&model).arg(data("tiny")),
        "eval",
    );
    let svm = dir.path().join("v.svm");
    quiet_on_closed_pipe(
        raw().args(["vectorize", "-o"]).arg(&svm).arg(data("tiny")),
        "vectorize",
    );
}
