//! A batch filter's probability: `train` records a calibration of its scores, the filter
//! decides at P(spam) > 0.9 unless `--threshold` says otherwise, and `classify`, `eval`
//! and `inspect` report the probability its decisions rest on.

use crate::common::{bin, corpus_and_filter, stderr_of_failure, stdout_of, train_filter};
use rosenblatt::model::Model;
use std::path::Path;

/// Every message of `corpus` classified by `model` as JSON lines: (label, score, P(spam)).
fn classified(model: &Path, corpus: &Path) -> Vec<(String, f64, f64)> {
    let out = stdout_of(
        bin()
            .args(["classify", "--format", "jsonl", "-m"])
            .arg(model)
            .arg(corpus.join("spam"))
            .arg(corpus.join("ham")),
    );
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let p = v["probability"]
                .as_f64()
                .expect("a probability on every line");
            (
                v["label"].as_str().unwrap().to_string(),
                v["score"].as_f64().unwrap(),
                p,
            )
        })
        .collect()
}

#[test]
fn a_batch_filter_decides_at_p_09_and_threshold_0_at_p_05() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = corpus_and_filter(dir.path());
    let m = Model::load(&model).unwrap();
    let c = m
        .calibration()
        .expect("a batch filter records a calibration");
    assert_eq!(
        c.scores, 60,
        "fitted on the out-of-fold score of every training message"
    );
    // The threshold is the score whose calibrated probability is 0.9.
    assert!((m.probability(m.threshold()).unwrap() - 0.9).abs() < 1e-4);
    let lines = classified(&model, &corpus);
    assert_eq!(lines.len(), 60);
    for (label, score, p) in &lines {
        assert!((p - f64::from(m.probability(*score as f32).unwrap())).abs() < 1e-6);
        assert_eq!(label == "spam", *p > 0.9, "{label} at P = {p}");
    }
    let inspect = stdout_of(bin().args(["inspect", "-m"]).arg(&model));
    assert!(inspect.contains("(P > 0.90)"), "{inspect}");
    // --threshold 0: spam when P(spam) > 0.5; the same weights and calibration.
    let half = dir.path().join("half.model");
    train_filter(
        &corpus.join("spam"),
        &corpus.join("ham"),
        &half,
        &["--threshold", "0"],
    );
    let h = Model::load(&half).unwrap();
    assert_eq!(h.predictor(), m.predictor());
    assert_eq!(h.calibration(), m.calibration());
    assert!((h.probability(h.threshold()).unwrap() - 0.5).abs() < 1e-4);
    assert!(h.threshold() < m.threshold());
    for (label, _, p) in classified(&half, &corpus) {
        assert_eq!(label == "spam", p > 0.5, "{label} at P = {p}");
    }
}

#[test]
fn eval_reports_where_a_filter_decides_and_how_well_its_probabilities_fit() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = corpus_and_filter(dir.path());
    let json: serde_json::Value = serde_json::from_str(&stdout_of(
        bin()
            .args(["eval", "--json", "-m"])
            .arg(&model)
            .arg("--spam")
            .arg(corpus.join("spam"))
            .arg("--ham")
            .arg(corpus.join("ham")),
    ))
    .unwrap();
    let p = json["threshold_probability"].as_f64().unwrap();
    assert!((p - 0.9).abs() < 1e-4, "{json}");
    let m = Model::load(&model).unwrap();
    assert_eq!(json["threshold"].as_f64().unwrap() as f32, m.threshold());
    // The mean log-loss, recomputed from the probabilities classify prints.
    let lines = classified(&model, &corpus);
    let (spam, ham) = lines.split_at(30);
    let loss: f64 = spam.iter().map(|l| -l.2.max(1e-15).ln()).sum::<f64>()
        + ham
            .iter()
            .map(|l| -(1.0 - l.2).max(1e-15).ln())
            .sum::<f64>();
    let reported = json["log_loss"].as_f64().unwrap();
    assert!(
        (reported - loss / 60.0).abs() < 1e-4,
        "{reported} vs {}",
        loss / 60.0
    );
}

#[test]
fn a_text_model_keeps_deciding_at_score_0_and_reports_its_probability() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("tiny.model");
    let tiny = crate::common::data("tiny");
    bin()
        .args(["train", "-o"])
        .arg(&model)
        .arg(&tiny)
        .assert()
        .success();
    let m = Model::load(&model).unwrap();
    assert_eq!(m.threshold(), 0.0);
    assert!(m.calibration().is_some());
    let out = stdout_of(
        bin()
            .args(["classify", "--format", "jsonl", "-m"])
            .arg(&model)
            .arg(tiny.join("spam"))
            .arg(tiny.join("ham")),
    );
    for l in out.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let score = v["score"].as_f64().unwrap() as f32;
        assert_eq!(v["label"] == "spam", score > 0.0, "{l}");
        let p = v["probability"].as_f64().unwrap();
        assert!(
            (p - f64::from(m.probability(score).unwrap())).abs() < 1e-6,
            "{l}"
        );
    }
    // A threshold that is no number is refused before anything is read.
    let err = stderr_of_failure(
        bin()
            .args(["train", "--threshold", "NaN", "-o"])
            .arg(dir.path().join("x.model"))
            .arg(&tiny),
    );
    assert!(err.contains("--threshold must be a number"), "{err}");
}

#[test]
fn a_file_whose_calibration_is_not_increasing_is_refused() {
    let model = Model::load(crate::common::data("format8.model")).unwrap();
    let mut parts = model.into_parts();
    let c = parts.calibration.as_mut().unwrap();
    c.a = -c.a;
    let bytes = parts.to_bytes_unchecked().unwrap();
    let err = Model::from_bytes(&bytes, Path::new("bad.model"))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("bad.model: "), "{err}");
    assert!(
        err.contains("does not make a higher score more probable"),
        "{err}"
    );
}

#[test]
fn unsure_probability_is_a_band_of_p_spam_and_needs_a_probability() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, model) = corpus_and_filter(dir.path());
    // The training messages' probabilities, sorted: a band between the 10th and the 50th
    // holds some of them and leaves some out on each side.
    let lines = classified(&model, &corpus);
    let mut ps: Vec<f64> = lines.iter().map(|l| l.2).collect();
    ps.sort_by(f64::total_cmp);
    let (low, high) = (ps[10], ps[50]);
    let band = format!("{low}:{high}");
    let out = stdout_of(
        bin()
            .args([
                "classify",
                "--format",
                "jsonl",
                "--unsure-probability",
                &band,
                "-m",
            ])
            .arg(&model)
            .arg(corpus.join("spam"))
            .arg(corpus.join("ham")),
    );
    let mut unsure = 0;
    for l in out.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let p = v["probability"].as_f64().unwrap();
        let want = if p >= low && p <= high {
            unsure += 1;
            "unsure"
        } else if p > 0.9 {
            "spam"
        } else {
            "ham"
        };
        assert_eq!(v["label"], want, "{l} in {band}");
    }
    assert!((41..60).contains(&unsure), "{unsure} unsure");
    // One message in the band exits 2, as --unsure's score band does.
    let one = corpus.join("spam").join("0.eml");
    bin()
        .args(["classify", "--unsure-probability", "0:1", "-m"])
        .arg(&model)
        .arg(&one)
        .assert()
        .code(2);
    // Bands outside [0, 1], or given with --unsure too, are refused by the flag parser.
    let err = stderr_of_failure(
        bin()
            .args(["classify", "--unsure-probability", "0.5:1.5", "-m"])
            .arg(&model)
            .arg(&one),
    );
    assert!(err.contains("probabilities lie in [0, 1]"), "{err}");
    let err = stderr_of_failure(
        bin()
            .args([
                "classify",
                "--unsure=-1:1",
                "--unsure-probability",
                "0:1",
                "-m",
            ])
            .arg(&model)
            .arg(&one),
    );
    assert!(err.contains("cannot be used with"), "{err}");
    // A filter without a calibration has no P(spam) to put in a band: an error naming it.
    let mut parts = Model::load(&model).unwrap().into_parts();
    parts.calibration = None;
    let bare = dir.path().join("bare.model");
    Model::new(parts).unwrap().save(&bare).unwrap();
    let out = bin()
        .args(["classify", "--unsure-probability", "0:1", "-m"])
        .arg(&bare)
        .arg(&one)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bare.model") && err.contains("records P(spam)"),
        "{err}"
    );
}
