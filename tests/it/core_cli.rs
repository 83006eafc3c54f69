//! End to end through the binary: train → classify → eval → inspect, bad input, and the
//! SMS Spam Collection when the shared corpora are present.

use crate::common::{bin, data, shared_corpus, stdout_of};
use predicates::str::contains;

fn train_tiny(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let model = dir.path().join("tiny.model");
    let out = stdout_of(
        bin()
            .args(["train", "--learner", "perceptron", "--mode", "converge"])
            .args([
                "--weighting",
                "binary",
                "--normalize",
                "none",
                "--epochs",
                "50",
                "-o",
            ])
            .arg(&model)
            .arg(data("tiny")),
    );
    assert!(out.contains("documents      12 (0 skipped)"), "{out}");
    assert!(out.contains("converged      yes"), "{out}");
    assert!(out.contains("training acc   1.0000"), "{out}");
    model
}

#[test]
fn train_classify_eval_inspect_on_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let model = train_tiny(&dir);
    // Classify the training folder's files: every line is id<TAB>label<TAB>score, in order.
    let out = stdout_of(
        bin()
            .args(["classify", "-m"])
            .arg(&model)
            .arg(data("tiny/spam")),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6);
    for (i, l) in lines.iter().enumerate() {
        let f: Vec<&str> = l.split('\t').collect();
        assert!(f[0].ends_with(&format!("s{}.txt", i + 1)), "{l}");
        assert_eq!(f[1], "spam", "{l}");
        assert!(f[2].parse::<f32>().unwrap() > 0.0);
    }
    let json = stdout_of(
        bin()
            .args(["classify", "--format", "jsonl", "-m"])
            .arg(&model)
            .arg(data("tiny/ham/h1.txt")),
    );
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["label"], "ham");
    assert!(v["score"].as_f64().unwrap() <= 0.0);
    // eval --json on the training data of a converged perceptron: everything right.
    let ev = stdout_of(
        bin()
            .args(["eval", "--json", "-m"])
            .arg(&model)
            .arg(data("tiny")),
    );
    let v: serde_json::Value = serde_json::from_str(ev.trim()).unwrap();
    assert_eq!(v["accuracy"], 1.0);
    assert_eq!(v["documents"], 12);
    assert_eq!(v["confusion"], serde_json::json!([[6, 0], [0, 6]]));
    assert_eq!(v["per_class"]["spam"]["f1"], 1.0);
    let ins = stdout_of(bin().args(["inspect", "-m"]).arg(&model));
    assert!(ins.contains("classes        ham, spam"), "{ins}");
    assert!(ins.contains("most spam words:"), "{ins}");
}

#[test]
fn stdin_document_and_line_formats() {
    let dir = tempfile::tempdir().unwrap();
    let model = train_tiny(&dir);
    let out = stdout_of(
        bin()
            .args(["classify", "-m"])
            .arg(&model)
            .arg("-")
            .write_stdin("claim your FREE cash prize now"),
    );
    assert!(out.starts_with("-\tspam\t"), "{out}");
    // TSV ids are line numbers; unlabelled lines are fine for classify.
    let tsv = dir.path().join("docs.tsv");
    std::fs::write(
        &tsv,
        "ham\tsee you at the meeting tomorrow\nwin a free prize now\n",
    )
    .unwrap();
    let out = stdout_of(bin().args(["classify", "-m"]).arg(&model).arg(&tsv));
    let ids: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(ids, ["1", "2"]);
    // A JSONL file with one malformed line: counted, skipped, the rest evaluated.
    bin()
        .args(["eval", "-m"])
        .arg(&model)
        .arg(data("tiny.jsonl"))
        .assert()
        .success()
        .stderr(contains("skipped 1"));
}

#[test]
fn corrupt_truncated_and_foreign_models_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = train_tiny(&dir);
    let bytes = std::fs::read(&model).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", bytes[..bytes.len() / 2].to_vec(), "truncated"),
        ("header", bytes[..10].to_vec(), "truncated"),
        (
            "foreign",
            b"PK\x03\x04 this is a zip file".to_vec(),
            "not a rosenblatt model",
        ),
        (
            "corrupt",
            {
                let mut b = bytes.clone();
                let n = b.len();
                b[n - 3] ^= 0xff;
                b
            },
            "corrupted",
        ),
        (
            "newer",
            {
                let mut b = bytes.clone();
                b[8] = 99;
                b
            },
            "newer",
        ),
        ("empty", Vec::new(), "not a rosenblatt model"),
    ];
    for (name, content, msg) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, content).unwrap();
        let assert = bin()
            .args(["classify", "-m"])
            .arg(&p)
            .arg(data("tiny/ham/h1.txt"))
            .assert()
            .failure();
        let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert!(
            err.contains(msg) && err.contains(&p.display().to_string()),
            "{name}: {err}"
        );
        bin()
            .args(["inspect", "-m"])
            .arg(&p)
            .assert()
            .failure()
            .stderr(contains(msg));
    }
    bin()
        .args(["inspect", "-m", "/nonexistent/model"])
        .assert()
        .failure()
        .stderr(contains("/nonexistent/model"));
}

#[test]
fn bad_flags_get_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    let tiny = data("tiny");
    let missing = dir.path().join("missing.tsv");
    for (flags, input, says) in [
        (
            &["--learner", "perceptron", "--eta", "0"][..],
            &tiny,
            "learning rate",
        ),
        (
            &["--learner", "perceptron", "--eta", "0"],
            &tiny,
            "(--eta) must be a positive number, got 0",
        ),
        (&["--learner", "pa", "--pa-c=-1"], &tiny, "(--pa-c) must be"),
        (
            &[
                "--learner",
                "perceptron",
                "--mode",
                "random",
                "--rounds",
                "0",
            ],
            &tiny,
            "(--rounds) must be at least 1",
        ),
        (&["--holdout", "1.5"], &tiny, "--holdout"),
        (&["--min-df", "0"], &tiny, "--min-df"),
        (&["--learner", "nonsense"], &tiny, "invalid value"),
        (&["--cv", "1"], &tiny, "--cv needs at least 2 folds"),
        (
            &["--rounds", "5"],
            &tiny,
            "--rounds and --patience apply to --mode random only",
        ),
        (
            &["--split", "train"],
            &tiny,
            "--split applies to --format reuters only",
        ),
        (
            &["--learner", "pa", "--alpha", "2"],
            &tiny,
            "--alpha does not apply to --learner pa: only --learner winnow reads it",
        ),
        (&[], &missing, "missing.tsv"),
    ] {
        bin()
            .arg("train")
            .args(flags)
            .arg("-o")
            .arg(&m)
            .arg(input)
            .assert()
            .failure()
            .stderr(contains(says));
    }
    // One class only.
    bin()
        .args(["train", "-o"])
        .arg(&m)
        .arg(data("tiny/ham"))
        .assert()
        .failure();
    assert!(!m.exists(), "no model is written on failure");
}

#[test]
fn sms_collection_held_out_accuracy() {
    let Some(sms) = shared_corpus("sms-spam-collection/SMSSpamCollection") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("sms.model");
    let out = stdout_of(
        bin()
            .args(["train", "--json", "--holdout", "0.2", "--seed", "42", "-o"])
            .arg(&model)
            .arg("--format")
            .arg("tsv")
            .arg(&sms),
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["documents"], 4459);
    let acc = v["held_out"]["accuracy"].as_f64().unwrap();
    assert!(acc >= 0.975, "held-out accuracy {acc}");
    assert_eq!(v["held_out"]["documents"], 1115);
}
