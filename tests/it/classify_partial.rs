//! `classify` when not every document can be classified: the documents before a refused
//! one are all printed, in input order, before the run ends (exit 3); a skipped line (bad
//! JSON) leaves every other line printed and exits 4; `-` reads standard input in the
//! format given, for `classify` and `train`; a full standard output is named.

use crate::common::{bin, exe, stdout_of};
use std::path::{Path, PathBuf};

/// A small two-class model trained in `dir`.
fn model(dir: &Path) -> PathBuf {
    let corpus = dir.join("train.tsv");
    std::fs::write(
        &corpus,
        "spam\tcheap meds buy now\nham\tmeeting at noon\nspam\tbuy cheap pills\nham\tlunch \
         tomorrow at noon\n",
    )
    .unwrap();
    let model = dir.join("m.model");
    stdout_of(bin().arg("train").arg("-o").arg(&model).arg(&corpus));
    model
}

/// 3,000 JSON lines, then `refused` as line 3,001, then ten more lines.
fn lines_then(refused: &str) -> String {
    let mut s = String::new();
    for i in 0..3000 {
        s.push_str(&format!("{{\"text\":\"cheap meds {i}\"}}\n"));
    }
    s.push_str(refused);
    s.push('\n');
    for _ in 0..10 {
        s.push_str("{\"text\":\"noon\"}\n");
    }
    s
}

/// The ids of `classify`'s lines.
fn ids(stdout: &[u8]) -> Vec<String> {
    String::from_utf8(stdout.to_vec())
        .unwrap()
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

#[test]
fn every_document_before_a_refused_line_is_printed_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let model = model(dir.path());
    let first: Vec<String> = (1..=3000).map(|i| i.to_string()).collect();
    // A line over the bound of a stream, and a refused label in a regular file.
    let long = format!("{{\"text\":\"{}\"}}", "x".repeat(5000));
    let file = dir.path().join("refused.jsonl");
    std::fs::write(&file, lines_then("{\"label\":[1],\"text\":\"x\"}")).unwrap();
    for batch in [None, Some("700")] {
        let mut stream = bin();
        stream
            .args(["--max-document-bytes", "1000", "classify", "-m"])
            .arg(&model)
            .args(["--input-format", "jsonl", "/dev/stdin"])
            .write_stdin(lines_then(&long));
        let mut regular = bin();
        regular.args(["classify", "-m"]).arg(&model).arg(&file);
        for cmd in [&mut stream, &mut regular] {
            if let Some(b) = batch {
                cmd.args(["--batch", b]);
            }
            let out = cmd.assert().code(3).get_output().clone();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(":3001"), "{err}");
            assert_eq!(ids(&out.stdout), first, "--batch {batch:?}: {err}");
        }
    }
}

#[test]
fn dash_reads_standard_input_in_the_input_format() {
    let dir = tempfile::tempdir().unwrap();
    let model = model(dir.path());
    let three = "{\"text\":\"cheap meds\"}\n{\"text\":\"noon\"}\n{\"text\":\"buy now\"}\n";
    let classify = |input: &str| {
        stdout_of(
            bin()
                .args(["classify", "-m"])
                .arg(&model)
                .args(["--input-format", "jsonl", input])
                .write_stdin(three),
        )
    };
    let dash = classify("-");
    assert_eq!(ids(dash.as_bytes()), ["1", "2", "3"], "{dash}");
    assert_eq!(dash, classify("/dev/stdin"));

    let labelled = "{\"label\":\"spam\",\"text\":\"cheap meds\"}\n\
                    {\"label\":\"ham\",\"text\":\"noon lunch\"}\n";
    let trained = dir.path().join("stdin.model");
    let report = stdout_of(
        bin()
            .args(["train", "--format", "jsonl", "-o"])
            .arg(&trained)
            .arg("-")
            .write_stdin(labelled),
    );
    assert!(report.contains("documents      2"), "{report}");
    let out = stdout_of(
        bin()
            .args(["classify", "-m"])
            .arg(&trained)
            .arg("-")
            .write_stdin("meds"),
    );
    assert!(out.starts_with("-\tspam\t"), "{out}");
}

#[test]
fn a_skipped_line_leaves_every_other_line_and_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let model = model(dir.path());
    let file = dir.path().join("x.jsonl");
    std::fs::write(
        &file,
        "{\"text\":\"meds\"}\nnot json\n{\"text\":\"noon\"}\n",
    )
    .unwrap();
    let out = bin()
        .args(["classify", "-m"])
        .arg(&model)
        .arg(&file)
        .assert()
        .code(4)
        .get_output()
        .clone();
    assert_eq!(ids(&out.stdout), ["1", "3"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("1 input(s) passed over, as listed above"),
        "{err}"
    );
}

#[test]
fn a_full_standard_output_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let model = model(dir.path());
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let text = dir.path().join("doc.txt");
    std::fs::write(&text, "cheap meds").unwrap();
    let mut classify = exe();
    classify.args(["classify", "-m"]).arg(&model).arg(&text);
    let mut inspect = exe();
    inspect.args(["inspect", "-m"]).arg(&model);
    for cmd in [&mut classify, &mut inspect] {
        let out = cmd.stdout(full()).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("standard output: No space left on device"),
            "{err}"
        );
    }
}

#[test]
fn a_filter_given_a_folder_of_one_message_and_one_passed_over_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, filter) = crate::common::corpus_and_filter(dir.path());
    let folder = dir.path().join("incoming");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(corpus.join("spam/0.eml"), folder.join("a.eml")).unwrap();
    let big = format!("Subject: long\n\n{}\n", "word ".repeat(20_000));
    std::fs::write(folder.join("b.eml"), big).unwrap();
    let out = bin()
        .args(["classify", "--max-document-bytes", "64K", "-m"])
        .arg(&filter)
        .arg(&folder)
        .output()
        .unwrap();
    // One verdict printed, but not the run's exit code: a message was passed over.
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The message alone keeps its verdict code.
    let one = bin()
        .args(["classify", "-m"])
        .arg(&filter)
        .arg(folder.join("a.eml"))
        .output()
        .unwrap();
    assert!(matches!(one.status.code(), Some(0..=2)), "{one:?}");
}
