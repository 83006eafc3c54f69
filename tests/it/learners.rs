//! The learners beside the perceptron through the CLI: `--learner NAME`, probabilities in
//! `classify`, and Reuters-21578 ModApte as a multi-label task (micro/macro-F1).

use crate::common::{bin, data, stderr_of_failure, stdout_of};
use std::path::PathBuf;

fn reuters() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/reuters21578")
}

#[test]
fn every_learner_trains_and_classifies_the_tiny_set() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "averaged-perceptron",
        "margin-perceptron",
        "pa",
        "winnow",
        "centroid",
        "logistic",
        "softmax",
        "svm",
    ] {
        let model = dir.path().join(format!("{name}.model"));
        bin()
            .args(["train", "--learner", name, "-o"])
            .arg(&model)
            .arg(data("tiny.tsv"))
            .assert()
            .success();
        let out = stdout_of(
            bin()
                .args(["classify", "--input-format", "tsv", "-m"])
                .arg(&model)
                .arg(data("tiny.tsv")),
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 6, "{name}: {out}");
        for l in &lines {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f[1] == "spam" || f[1] == "ham", "{name}: {l}");
            let score: f32 = f[2].parse().unwrap();
            if matches!(name, "logistic" | "softmax") {
                // Probabilities of the printed label: at least ½ for a binary decision.
                assert!((0.5..=1.0).contains(&score), "{name}: {l}");
            }
        }
    }
}

#[test]
fn bad_learner_flags_are_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    for args in [
        vec!["--learner", "logistic", "--eta", "0"],
        vec!["--learner", "pa", "--pa-c=-1"],
        vec!["--learner", "winnow", "--alpha", "0.5"],
        vec!["--learner", "perceptron", "--alpha", "2"],
        vec!["--learner", "centroid", "--early-stop", "0.1"],
    ] {
        bin()
            .arg("train")
            .args(&args)
            .arg("-o")
            .arg(&model)
            .arg(data("tiny.tsv"))
            .assert()
            .failure()
            .code(1);
        assert!(!model.exists());
    }
}

#[test]
fn reuters_modapte_multilabel_end_to_end() {
    let sgml = reuters();
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("reuters.model");
    let out = stdout_of(
        bin()
            .args([
                "train",
                "--format",
                "reuters",
                "--split",
                "train",
                "--learner",
                "pa",
            ])
            .args([
                "--average",
                "--epochs",
                "3",
                "--thresholds",
                "default",
                "--json",
                "-o",
            ])
            .arg(&model)
            .arg(&sgml),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["documents"], 7770);
    assert_eq!(v["classes"].as_array().unwrap().len(), 90);
    let out = stdout_of(
        bin()
            .args([
                "eval", "--format", "reuters", "--split", "test", "--json", "-m",
            ])
            .arg(&model)
            .arg(&sgml),
    );
    let e: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["documents"], 3019);
    let (micro, macro_, top) = (
        e["micro_f1"].as_f64().unwrap(),
        e["macro_f1"].as_f64().unwrap(),
        e["micro_f1_top10"].as_f64().unwrap(),
    );
    // scikit-learn's LinearSVC on the same split: micro 0.839, macro 0.390.
    assert!(
        micro > 0.8 && macro_ > 0.3 && top > micro,
        "{micro} {macro_} {top}"
    );
    assert_eq!(e["top10"][0], "earn");
    let out = stdout_of(
        bin()
            .args([
                "classify",
                "--input-format",
                "reuters",
                "--split",
                "test",
                "-m",
            ])
            .arg(&model)
            .arg(&sgml),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3019);
    let several = lines
        .iter()
        .filter(|l| l.split('\t').nth(1).unwrap().contains(','))
        .count();
    assert!(
        several > 50,
        "multi-label documents get several labels ({several})"
    );
    for l in &lines {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f[1].split(',').count(), f[2].split(',').count(), "{l}");
    }
    // --split is for Reuters only.
    bin()
        .args(["eval", "--split", "test", "-m"])
        .arg(&model)
        .arg(data("tiny.tsv"))
        .assert()
        .failure();
}

#[test]
fn a_tiny_multi_label_corpus_trains_with_the_default_threshold_folds() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("ml.jsonl");
    std::fs::write(
        &corpus,
        concat!(
            r#"{"labels": ["a"], "text": "apple apricot"}"#,
            "\n",
            r#"{"labels": ["a", "b"], "text": "apple banana"}"#,
            "\n",
            r#"{"labels": ["b"], "text": "banana blueberry"}"#,
            "\n",
            r#"{"labels": ["a"], "text": "apricot avocado"}"#,
            "\n",
        ),
    )
    .unwrap();
    let m = dir.path().join("m");
    // Four documents: the default five threshold folds shrink to four.
    stdout_of(bin().arg("train").arg(&corpus).arg("-o").arg(&m));
    let out = stdout_of(bin().arg("eval").arg("-m").arg(&m).arg(&corpus));
    assert!(out.contains("micro"), "{out}");
    // A fold count the user gives is kept, and refused when it cannot work.
    let err = stderr_of_failure(
        bin()
            .arg("train")
            .arg(&corpus)
            .arg("-o")
            .arg(&m)
            .args(["--threshold-folds", "5"]),
    );
    assert!(
        err.contains("--threshold-folds") && err.contains('4'),
        "{err}"
    );
}
