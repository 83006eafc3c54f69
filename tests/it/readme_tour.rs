//! The README's commands run as written: every shell command of its Install and tour
//! sections, in order, from a folder laid out as the checkout's root (its `corpora/` and
//! `tests/` linked in) with the program on PATH and a fresh home folder, each exiting
//! with status 0–2; what they write is where the README says and out of `git status`.
//! `cargo install` is left out: it builds the program this suite already built.

use std::path::Path;
use std::process::{Command, Stdio};

/// The shell commands of `markdown`'s `sh` blocks and the `$ ` lines of its `console`
/// blocks, in order, continuation lines joined.
fn commands(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<&str> = None;
    let mut pending = String::new();
    for line in markdown.lines() {
        if let Some(kind) = line.strip_prefix("```") {
            block = match block {
                None => Some(kind.trim()),
                Some(_) => None,
            };
            continue;
        }
        let command = match block {
            Some("sh") if !pending.is_empty() || !line.trim().is_empty() => line,
            Some("console") if !pending.is_empty() => line,
            Some("console") => match line.strip_prefix("$ ") {
                Some(c) => c,
                None => continue,
            },
            _ => continue,
        };
        match command.strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(command);
                out.push(std::mem::take(&mut pending).trim().to_string());
            }
        }
    }
    out
}

#[cfg(unix)]
#[test]
fn the_readme_tour_runs_as_written_from_the_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme.find("## Install").expect("an Install section");
    let end = readme.find("## The library").expect("a library section");
    let commands = commands(&readme[start..end]);
    assert!(commands.len() >= 20, "{commands:#?}");
    let dir = tempfile::tempdir().unwrap();
    let (home, work) = (dir.path().join("home"), dir.path().join("checkout"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    for linked in ["corpora", "tests"] {
        std::os::unix::fs::symlink(root.join(linked), work.join(linked)).unwrap();
    }
    let program = Path::new(env!("CARGO_BIN_EXE_rosenblatt"));
    let path = format!(
        "{}:{}",
        program.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for c in commands.iter().filter(|c| !c.starts_with("cargo ")) {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("set -o pipefail; {c}"))
            .current_dir(&work)
            .env("HOME", &home)
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0..=2)),
            "`{c}` exited with {:?}:\n{stderr}",
            out.status.code()
        );
        assert!(!stderr.contains("panicked"), "`{c}`:\n{stderr}");
    }
    let completions = home.join(".local/share/bash-completion/completions/rosenblatt");
    assert!(std::fs::metadata(&completions).unwrap().len() > 1000);
    // What the tour wrote at the root is there, and git would not list it.
    let mut written: Vec<String> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "corpora" && n != "tests")
        .collect();
    written.sort();
    for f in [
        "spam.model",
        "sms.model",
        "tiny.model",
        "confusion.svg",
        "spam.store",
    ] {
        assert!(
            written.iter().any(|w| w == f),
            "{f} missing from {written:?}"
        );
    }
    let git = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["check-ignore", "--no-index", "--verbose", "--non-matching"])
        .args(&written)
        .output();
    match git {
        Ok(o) if o.status.code().is_some_and(|c| c <= 1) => {
            let listed = String::from_utf8_lossy(&o.stdout);
            let kept: Vec<&str> = listed.lines().filter(|l| l.starts_with("::")).collect();
            assert!(kept.is_empty(), "not ignored by .gitignore: {kept:?}");
        }
        _ => eprintln!("note: git is not available; .gitignore not checked"),
    }
}

#[test]
fn commands_are_read_from_sh_and_console_blocks() {
    let md = "text\n```sh\na --x \\\n    b\n\nc # note\n```\n```console\n$ d \\\n  e\noutput\n```\n```rust\nf\n```\n";
    assert_eq!(commands(md), ["a --x     b", "c # note", "d   e"]);
}
