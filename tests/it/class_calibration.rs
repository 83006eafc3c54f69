//! `train --calibrate`: a one-vs-rest perceptron or PA model of several classes gets a
//! sigmoid per class fitted on out-of-fold scores, so `classify -k` prints probabilities
//! that sum to 1 over the classes (at most 1 over the best few) and `eval` reports the
//! log loss and calibration error of them — the same numbers computed here from what
//! `classify` printed. The per-class calibration survives the model file and is refused
//! where it does not belong.

use crate::common::{bin, stderr_of_failure, stdout_of};
use rosenblatt::learn::ClassCalibration;
use rosenblatt::model::Model;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Each class and the word its documents repeat.
const CLASSES: [(&str, &str); 4] = [
    ("cars", "wheel"),
    ("fruit", "apple"),
    ("pets", "dog"),
    ("tools", "hammer"),
];

/// A training corpus of ten documents a class (`label<TAB>text`), each with its class's
/// word once or twice beside words every class shares, and some with a second class's
/// word too (so that scores are not all certain), written under `dir`.
fn corpus(dir: &Path) -> PathBuf {
    let fillers = ["red big", "small old", "new blue", "red old", "blue small"];
    let mut train = String::new();
    for (i, filler) in fillers.iter().enumerate() {
        for (c, (class, word)) in CLASSES.iter().enumerate() {
            let other = CLASSES[(c + i) % CLASSES.len()].1;
            train += &format!("{class}\t{word} {word} {filler}\n");
            train += &format!("{class}\t{word} {other} {filler}\n");
        }
    }
    let t = dir.join("train.tsv");
    std::fs::write(&t, train).unwrap();
    t
}

/// Trains `flags` on the corpus under `dir`; returns the model and the corpus.
fn trained(dir: &Path, name: &str, flags: &[&str]) -> (PathBuf, PathBuf) {
    let train = corpus(dir);
    let model = dir.join(format!("{name}.model"));
    bin()
        .arg("train")
        .args(flags)
        .arg("-o")
        .arg(&model)
        .arg(&train)
        .assert()
        .success();
    (model, train)
}

/// The ranked classes of each line of `classify -k K --format jsonl`: (label,
/// probability) best first, the probability `None` where it is null.
fn ranked(model: &Path, docs: &Path, k: &str) -> Vec<Vec<(String, Option<f64>)>> {
    ranked_with(model, docs, &["-k", k])
}

/// [`ranked`] of `classify --format jsonl` with `options` (`-k` and any floor).
fn ranked_with(model: &Path, docs: &Path, options: &[&str]) -> Vec<Vec<(String, Option<f64>)>> {
    let out = stdout_of(
        bin()
            .args(["classify", "--input-format", "tsv", "--format", "jsonl"])
            .args(options)
            .arg("-m")
            .arg(model)
            .arg(docs),
    );
    out.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["classes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c["label"].as_str().unwrap().to_string(),
                        c["probability"].as_f64(),
                    )
                })
                .collect()
        })
        .collect()
}

/// `eval --json` of `model` on `docs`.
fn eval_json(model: &Path, docs: &Path) -> Value {
    let out = stdout_of(bin().args(["eval", "--json", "-m"]).arg(model).arg(docs));
    serde_json::from_str(&out).unwrap()
}

#[test]
fn calibrated_classes_rank_with_probabilities_that_sum_to_one() {
    let dir = tempfile::tempdir().unwrap();
    for learner in ["pa", "perceptron", "averaged-perceptron"] {
        let (model, docs) = trained(dir.path(), learner, &["--learner", learner, "--calibrate"]);
        let m = Model::load(&model).unwrap();
        let c = m
            .class_calibration()
            .expect("a calibrated one-vs-rest model");
        assert_eq!(c.per_class.len(), 4, "{learner}");
        // Ten documents a class: each gets its own sigmoid.
        assert_eq!(c.pooled, 0, "{learner}");
        for (top3, all) in ranked(&model, &docs, "3")
            .iter()
            .zip(ranked(&model, &docs, "4"))
        {
            assert_eq!(top3.len(), 3);
            let p3: f64 = top3.iter().map(|c| c.1.unwrap()).sum();
            let p4: f64 = all.iter().map(|c| c.1.unwrap()).sum();
            assert!(p3 <= 1.0 + 1e-6, "{learner}: {top3:?}");
            assert!((p4 - 1.0).abs() < 1e-5, "{learner}: {all:?}");
            assert_eq!(top3[..], all[..3], "{learner}");
        }
        // A probability floor applies now.
        let floor = ranked_with(&model, &docs, &["-k", "4", "--min-probability", "0.3"]);
        assert!(floor.iter().all(|l| l.iter().all(|c| c.1.unwrap() >= 0.3)));
    }
}

/// The mean of −ln P(true class) and the expected calibration error over ten bins,
/// computed from what `classify -k 4` printed for documents of the given classes.
fn measured(rows: &[Vec<(String, Option<f64>)>], truth: &[String]) -> (f64, f64) {
    let n = rows.len() as f64;
    let mut loss = 0.0;
    let mut bins = [(0.0f64, 0.0f64); 10];
    for (row, t) in rows.iter().zip(truth) {
        let p = row.iter().find(|c| &c.0 == t).unwrap().1.unwrap();
        loss -= p.max(1e-15).ln();
        // The most probable class (the first of equal ones in class order).
        let mut best = row.clone();
        best.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap().then(a.0.cmp(&b.0)));
        let (label, conf) = (&best[0].0, best[0].1.unwrap());
        let b = ((conf * 10.0) as usize).min(9);
        bins[b].0 += f64::from(u8::from(label == t));
        bins[b].1 += conf;
    }
    let ece = bins.iter().map(|(r, c)| (r - c).abs()).sum::<f64>() / n;
    (loss / n, ece)
}

#[test]
fn eval_reports_the_log_loss_and_calibration_error_of_the_printed_probabilities() {
    let dir = tempfile::tempdir().unwrap();
    for (name, flags) in [
        ("pa", &["--calibrate"][..]),
        ("softmax", &["--learner", "softmax"][..]),
    ] {
        let (model, docs) = trained(dir.path(), name, flags);
        let truth: Vec<String> = std::fs::read_to_string(&docs)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_string())
            .collect();
        let (loss, ece) = measured(&ranked(&model, &docs, "4"), &truth);
        let e = eval_json(&model, &docs);
        let got = e["log_loss"].as_f64().unwrap();
        assert!((got - loss).abs() < 1e-4, "{name}: {got} vs {loss}");
        let got = e["ece"].as_f64().unwrap();
        assert!((got - ece).abs() < 1e-4, "{name}: {got} vs {ece}");
        assert_eq!(e["ece_bins"], 10);
        let text = stdout_of(bin().args(["eval", "-m"]).arg(&model).arg(&docs));
        assert!(text.contains("log loss"), "{text}");
    }
}

#[test]
fn without_calibrate_a_perceptron_has_no_probabilities() {
    let dir = tempfile::tempdir().unwrap();
    let (model, docs) = trained(dir.path(), "plain", &["--learner", "pa"]);
    assert!(Model::load(&model).unwrap().class_calibration().is_none());
    assert!(
        ranked(&model, &docs, "2")
            .iter()
            .flatten()
            .all(|c| c.1.is_none())
    );
    let e = eval_json(&model, &docs);
    assert!(e.get("log_loss").is_none(), "{e}");
    // Nor with --processes, which fits the calibration's folds nowhere.
    let hosts = crate::cluster::hostfile(dir.path(), 2);
    let err = stderr_of_failure(
        bin()
            .args(["train", "--calibrate", "--processes", "2", "--process", "0"])
            .arg("--hostfile")
            .arg(&hosts)
            .arg("--cluster-key")
            .arg(crate::cluster::key(dir.path()))
            .arg("-o")
            .arg(dir.path().join("x.model"))
            .arg(&docs),
    );
    assert!(
        err.contains("--calibrate does not apply with --processes"),
        "{err}"
    );
}

#[test]
fn a_class_calibration_where_it_does_not_belong_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (model, _) = trained(dir.path(), "pa", &["--calibrate"]);
    let m = Model::load(&model).unwrap();
    // It survives the file, bit for bit.
    let again = Model::from_bytes(&m.to_bytes().unwrap(), Path::new("again.model")).unwrap();
    assert_eq!(again.class_calibration(), m.class_calibration());
    // One sigmoid too few, or a decreasing one, is refused with a sentence.
    let short = |c: &mut ClassCalibration| {
        c.per_class.pop();
    };
    let decreasing = |c: &mut ClassCalibration| c.per_class[1].a = -1.0;
    for change in [&short as &dyn Fn(&mut ClassCalibration), &decreasing] {
        let mut parts = m.clone().into_parts();
        change(parts.class_calibration.as_mut().unwrap());
        let err = Model::new(parts).unwrap_err().to_string();
        assert!(err.contains("per-class calibration"), "{err}");
    }
    // A two-class model has no per-class calibration.
    let two = crate::common::data("format8.model");
    let mut parts = Model::load(two).unwrap().into_parts();
    parts.class_calibration = m.class_calibration().cloned();
    let err = Model::new(parts).unwrap_err().to_string();
    assert!(err.contains("only one-vs-rest models"), "{err}");
}

#[test]
fn calibrate_is_refused_for_a_multi_label_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("ml.jsonl");
    let mut lines = String::new();
    for i in 0..12 {
        let labels = match i % 3 {
            0 => r#"["cars"]"#,
            1 => r#"["fruit"]"#,
            _ => r#"["cars", "fruit"]"#,
        };
        lines += &format!("{{\"labels\": {labels}, \"text\": \"wheel apple {i}\"}}\n");
    }
    std::fs::write(&train, lines).unwrap();
    let model = dir.path().join("m");
    let err = stderr_of_failure(
        bin()
            .args(["train", "--calibrate", "-o"])
            .arg(&model)
            .arg(&train),
    );
    assert!(
        err.contains("--calibrate is for models of three classes or more with one label"),
        "{err}"
    );
    assert!(!model.exists(), "no model is written");
}

#[test]
fn inspect_says_where_the_class_probabilities_come_from() {
    let dir = tempfile::tempdir().unwrap();
    let shown = |name: &str, flags: &[&str]| {
        let (model, _) = trained(dir.path(), name, flags);
        let v: Value = serde_json::from_str(&stdout_of(
            bin().args(["inspect", "--json", "-m"]).arg(&model),
        ))
        .unwrap();
        let text = stdout_of(bin().args(["inspect", "-m"]).arg(&model));
        let line = text
            .lines()
            .find(|l| l.starts_with("probabilities"))
            .map(str::to_string);
        (v["class_probabilities"].clone(), line)
    };
    let (json, line) = shown("calibrated", &["--learner", "pa", "--calibrate"]);
    assert!(
        json.as_str().unwrap().starts_with("a sigmoid per class"),
        "{json}"
    );
    assert!(line.unwrap().contains("a sigmoid per class"));
    let (json, _) = shown("plain", &["--learner", "pa"]);
    assert!(json.as_str().unwrap().starts_with("none"), "{json}");
    let (json, _) = shown("softmax", &["--learner", "softmax"]);
    assert_eq!(json, "softmax");
}
