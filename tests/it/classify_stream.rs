//! `classify` reads, scores and writes its inputs a batch at a time (`--batch`): whatever
//! the batch size, every input gives the lines (and the notes on stderr) of one batch
//! holding everything, in input order — line files, JSON lines with broken lines, folders
//! whose files are skipped, stdin, and SVMlight rows (binary, real, and a real file whose
//! rows in a batch may all hold 1s).

use crate::common::{bin, shared_corpus, stdout_of};
use std::path::{Path, PathBuf};

/// Batch sizes tried against one batch holding every document.
const BATCHES: [&str; 4] = ["1", "2", "7", "1000"];

/// Stdout, stderr and exit code of `classify ARGS --batch BATCH`, fed `stdin`, which
/// printed every line: it exits 0, or 4 when it skipped inputs.
fn classify(args: &[&str], batch: &str, stdin: &str) -> (String, String, i32) {
    let out = bin()
        .arg("classify")
        .args(args)
        .args(["--batch", batch])
        .write_stdin(stdin)
        .assert()
        .get_output()
        .clone();
    let code = out.status.code().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(code == 0 || code == 4, "{args:?}: {stderr}");
    (String::from_utf8(out.stdout).unwrap(), stderr, code)
}

/// Classifies with every batch size of [`BATCHES`] and checks each run against one
/// batch of everything; returns that run's stdout.
fn same_in_every_batch(args: &[&str], stdin: &str) -> String {
    let whole = classify(args, "1000000", stdin);
    for batch in BATCHES {
        assert_eq!(
            classify(args, batch, stdin),
            whole,
            "--batch {batch}: {args:?}"
        );
    }
    whole.0
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn sms() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/sms/SMSSpamCollection.tsv")
}

#[test]
fn documents_classified_in_batches_are_those_of_one_batch_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("sms.model");
    stdout_of(
        bin()
            .args(["train", "--learner", "logistic", "-o"])
            .arg(&model)
            .arg(sms()),
    );
    let text = std::fs::read_to_string(sms()).unwrap();
    // JSON lines: some with ids, some broken (skipped and counted), blank ones.
    let mut jsonl = String::new();
    let folder = dir.path().join("folder");
    std::fs::create_dir_all(folder.join("sub")).unwrap();
    for (i, line) in text.lines().take(300).enumerate() {
        let (label, body) = line.split_once('\t').unwrap();
        let mut v = serde_json::json!({ "label": label, "text": body });
        if i % 7 == 0 {
            v["id"] = format!("sms-{i}").into();
        }
        jsonl.push_str(&if i % 13 == 0 {
            format!("not json {i}\n")
        } else {
            format!("{v}\n")
        });
        if i % 19 == 0 {
            jsonl.push('\n');
        }
        // Files of a folder, those over --max-document-bytes skipped (runs of them
        // fill whole batches).
        if i < 60 {
            let sub = if i % 2 == 0 { "" } else { "sub" };
            std::fs::write(folder.join(sub).join(format!("{i:03}.txt")), body).unwrap();
        }
    }
    let jsonl_path = dir.path().join("some.jsonl");
    std::fs::write(&jsonl_path, jsonl).unwrap();
    let m = path(&model);
    let sms = sms();

    // A line file alone: ids are its line numbers, in order.
    let out = same_in_every_batch(&["-m", m, path(&sms)], "");
    let ids: Vec<usize> = out
        .lines()
        .map(|l| l.split('\t').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ids.len(), text.lines().count());
    assert!(ids.windows(2).all(|w| w[0] < w[1]));

    // Every kind of input at once, stdin among them, with skipped documents noted.
    let args = [
        "-m",
        m,
        "--format",
        "jsonl",
        "--max-document-bytes",
        "60",
        path(&jsonl_path),
        "-",
        path(&folder),
        path(&sms),
    ];
    let out = same_in_every_batch(&args, "WINNER!! claim your free prize now");
    assert!(out.lines().any(|l| l.contains("\"id\":\"-\"")), "stdin");
    assert!(
        out.contains("sms-7") && !out.contains("sms-0\""),
        "{out:.300}"
    );
    // One note for each input that skipped some: the broken lines, the long files.
    let (_, err, _) = classify(&args, "1", "free prize");
    assert_eq!(err.matches("rosenblatt: skipped").count(), 2, "{err}");
    assert!(err.contains("… and"), "{err}");
}

/// `rows` with every `k`-th row's values made 1 (a real file, some of whose rows are
/// binary).
fn ones_every(rows: &str, k: usize) -> String {
    let mut out = String::new();
    for (i, line) in rows.lines().enumerate() {
        if i % k == 0 {
            let mut toks = line.split(' ');
            out.push_str(toks.next().unwrap());
            for t in toks {
                out.push_str(&format!(" {}:1", t.split(':').next().unwrap()));
            }
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[test]
fn svmlight_rows_classified_in_batches_are_those_of_one_batch_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("sms.svm");
    stdout_of(
        bin()
            .args(["vectorize", "--weighting", "idf", "--normalize", "l2", "-o"])
            .arg(&real)
            .arg(sms()),
    );
    let text = std::fs::read_to_string(&real).unwrap();
    let mixed = dir.path().join("mixed.svm");
    std::fs::write(&mixed, ones_every(&text, 3)).unwrap();
    let ones: String = ones_every(&text, 1)
        .lines()
        .step_by(5)
        .map(|l| l.to_string() + "\n")
        .collect();
    let ones_path = dir.path().join("ones.svm");
    std::fs::write(&ones_path, ones).unwrap();
    for flags in [&["--weighting", "idf", "--normalize", "l2"][..], &[]] {
        let model = dir.path().join("sms-svm.model");
        stdout_of(
            bin()
                .arg("train")
                .args(flags)
                .arg("-o")
                .arg(&model)
                .arg(&real),
        );
        let m = path(&model);
        let out = same_in_every_batch(&["-m", m, path(&mixed)], "");
        let ids: Vec<usize> = out
            .lines()
            .map(|l| l.split('\t').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(ids, (1..=text.lines().count()).collect::<Vec<_>>());
        let out = same_in_every_batch(&["-m", m, path(&ones_path), path(&mixed)], "");
        let first = out.lines().next().unwrap();
        assert!(
            first.starts_with(&format!("{}:1\t", ones_path.display())),
            "{first}"
        );
        same_in_every_batch(&["-m", m, path(&ones_path), "--format", "jsonl"], "");
    }
    // A shared corpus of binary rows, when present.
    let Some(a8a) = shared_corpus("libsvm/a8a") else {
        return;
    };
    let model = dir.path().join("a8a.model");
    stdout_of(
        bin()
            .args(["train", "--format", "svmlight", "-o"])
            .arg(&model)
            .arg(&a8a),
    );
    same_in_every_batch(&["-m", path(&model), path(&a8a)], "");
}
