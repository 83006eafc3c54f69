//! `--progress` and `--quiet`: progress goes to stderr as plain lines when asked for on a
//! pipe, never by default there, and never with `--quiet`; the output is the same.

use crate::common::{bin, data};

/// `train` on the tiny corpus with `flags`: (stdout, stderr, exit code).
fn train(flags: &[&str]) -> (String, String, Option<i32>) {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .arg("train")
        .args(flags)
        .arg("-o")
        .arg(dir.path().join("m.model"))
        .arg(data("tiny"))
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code(),
    )
}

#[test]
fn progress_lines_are_written_to_a_pipe_only_when_asked_for() {
    let (quiet_out, quiet_err, code) = train(&[]);
    assert_eq!(code, Some(0));
    assert!(!quiet_err.contains("rosenblatt: "), "{quiet_err}");
    for flags in [&["--progress"][..], &["--progress=always"]] {
        let (out, err, code) = train(flags);
        assert_eq!(code, Some(0));
        let phases: Vec<&str> = err
            .lines()
            .filter(|l| l.starts_with("rosenblatt: "))
            .collect();
        assert_eq!(
            phases,
            [
                "rosenblatt: reading documents",
                "rosenblatt: training",
                "rosenblatt: saving"
            ],
            "{err}"
        );
        // Progress goes to stderr: the summary is the same (but for its timings).
        let strip = |s: &str| -> Vec<String> {
            s.lines()
                .filter(|l| !l.contains(" s") && !l.contains("/s") && !l.starts_with("model "))
                .map(String::from)
                .collect()
        };
        assert_eq!(strip(&out), strip(&quiet_out));
    }
    for flags in [&["--quiet"][..], &["-q"], &["--progress=never"]] {
        let (_, err, code) = train(flags);
        assert_eq!(code, Some(0));
        assert!(!err.contains("rosenblatt: "), "{flags:?}: {err}");
    }
    let (_, err, code) = train(&["--quiet", "--progress"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot be used with"), "{err}");
    // `--progress` takes no value but by `=`: the argument after it stays an argument.
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["train", "--progress"])
        .arg(data("tiny"))
        .arg("-o")
        .arg(dir.path().join("m.model"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
