//! Helpers shared by the integration tests: the binary, fixtures, the shared corpora.

#![allow(dead_code)]

use assert_cmd::Command;
use std::path::PathBuf;

/// The `rosenblatt` binary under test.
pub fn bin() -> Command {
    Command::cargo_bin("rosenblatt").unwrap()
}

/// A file under tests/data.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// `../shared/corpora/<rel>` when present; otherwise prints a note and returns `None`,
/// so the calling test skips.
pub fn shared_corpus(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        // Written to stderr directly, past the test harness's capture, so the note shows
        // even when the test passes.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "note: {} is absent; skipping this test",
            p.display()
        );
        None
    }
}

/// Stdout of a successful run, as text.
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}
