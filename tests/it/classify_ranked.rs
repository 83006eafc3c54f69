//! `classify -k N` (`--top-classes`) and `--min-probability P`: each document's N best
//! classes, best first, with their scores and probabilities where the model has them —
//! a softmax model's softmax, a logistic one-vs-rest model's normalised sigmoids, none
//! (null) for a perceptron's — and, without `-k`, the lines of old.

use crate::common::{bin, data, stderr_of_failure, stdout_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Each class and the word its documents repeat.
const CLASSES: [(&str, &str); 4] = [
    ("cars", "wheel"),
    ("fruit", "apple"),
    ("pets", "dog"),
    ("tools", "hammer"),
];

/// Writes the training corpus (`label<TAB>text` lines, five documents a class, each its
/// class's word twice beside words every class shares) and the documents to classify
/// (one per class, in `CLASSES` order) under `dir`.
fn corpus(dir: &Path) -> (PathBuf, PathBuf) {
    let fillers = ["red big", "small old", "new blue", "red old", "blue small"];
    let mut train = String::new();
    for filler in fillers {
        for (class, word) in CLASSES {
            train += &format!("{class}\t{word} {word} {filler}\n");
        }
    }
    let test: String = CLASSES
        .iter()
        .map(|(_, word)| format!("{word} {word} big new\n"))
        .collect();
    let (t, d) = (dir.join("train.tsv"), dir.join("docs.tsv"));
    std::fs::write(&t, train).unwrap();
    std::fs::write(&d, test).unwrap();
    (t, d)
}

/// Trains `learner` on the corpus under `dir`; returns the model and the documents.
fn trained(dir: &Path, learner: &str) -> (PathBuf, PathBuf) {
    let (train, docs) = corpus(dir);
    let model = dir.join(format!("{learner}.model"));
    bin()
        .args(["train", "--learner", learner, "-o"])
        .arg(&model)
        .arg(&train)
        .assert()
        .success();
    (model, docs)
}

/// `classify --input-format tsv -m MODEL EXTRA… DOCS`'s standard output.
fn classify(model: &Path, docs: &Path, extra: &[&str]) -> String {
    stdout_of(
        bin()
            .args(["classify", "--input-format", "tsv", "-m"])
            .arg(model)
            .args(extra)
            .arg(docs),
    )
}

/// The JSON lines of `classify --format jsonl`.
fn json_lines(model: &Path, docs: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["--format", "jsonl"];
    args.extend_from_slice(extra);
    classify(model, docs, &args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// One ranked class of a tab-separated line.
#[derive(Debug)]
struct Ranked {
    label: String,
    score: f32,
    probability: Option<f32>,
}

/// A `-k` line's id and classes: `id` then `label<TAB>score<TAB>probability` triples.
fn ranked_line(line: &str) -> (String, Vec<Ranked>) {
    let f: Vec<&str> = line.split('\t').collect();
    assert_eq!((f.len() - 1) % 3, 0, "not id + triples: {line:?}");
    let classes = f[1..]
        .chunks(3)
        .map(|t| Ranked {
            label: t[0].to_string(),
            score: t[1].parse().unwrap(),
            probability: (t[2] != "-").then(|| t[2].parse().unwrap()),
        })
        .collect();
    (f[0].to_string(), classes)
}

#[test]
fn the_true_class_ranks_first_and_classes_fall_in_score() {
    let dir = tempfile::tempdir().unwrap();
    for learner in ["softmax", "logistic", "perceptron", "pa"] {
        let (model, docs) = trained(dir.path(), learner);
        let plain = classify(&model, &docs, &[]);
        let out = classify(&model, &docs, &["-k", "3"]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), CLASSES.len(), "{learner}: {out}");
        for ((line, plain), (class, _)) in lines.iter().zip(plain.lines()).zip(CLASSES) {
            let (id, ranked) = ranked_line(line);
            assert_eq!(ranked.len(), 3, "{learner}: {line}");
            assert_eq!(ranked[0].label, class, "{learner}: {line}");
            // The best class is the label `classify` gives without -k, for the same id.
            let plain: Vec<&str> = plain.split('\t').collect();
            assert_eq!((plain[0], plain[1]), (id.as_str(), class), "{learner}");
            for pair in ranked.windows(2) {
                assert!(pair[0].score >= pair[1].score, "{learner}: {line}");
            }
            let mut labels: Vec<&str> = ranked.iter().map(|r| r.label.as_str()).collect();
            labels.dedup();
            assert_eq!(labels.len(), 3, "{learner}: a class listed twice: {line}");
        }
    }
}

#[test]
fn softmax_and_logistic_probabilities_sum_to_one_in_the_scores_order() {
    let dir = tempfile::tempdir().unwrap();
    for learner in ["softmax", "logistic"] {
        let (model, docs) = trained(dir.path(), learner);
        for v in json_lines(&model, &docs, &["-k", "4"]) {
            let classes = v["classes"].as_array().unwrap();
            assert_eq!(classes.len(), CLASSES.len(), "{learner}: {v}");
            let p: Vec<f64> = classes
                .iter()
                .map(|c| c["probability"].as_f64().unwrap())
                .collect();
            let sum: f64 = p.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "{learner}: {sum} {v}");
            assert!(p.iter().all(|p| (0.0..=1.0).contains(p)), "{learner}: {v}");
            for pair in classes.windows(2) {
                let s = |c: &Value| c["score"].as_f64().unwrap();
                assert!(s(&pair[0]) >= s(&pair[1]), "{learner}: {v}");
            }
            for pair in p.windows(2) {
                assert!(pair[0] >= pair[1], "{learner}: {v}");
            }
            assert_eq!(classes[0]["label"], v["label"], "{learner}: {v}");
        }
    }
}

#[test]
fn min_probability_drops_the_classes_below_it() {
    let dir = tempfile::tempdir().unwrap();
    let (model, docs) = trained(dir.path(), "softmax");
    let all = classify(&model, &docs, &["-k", "4"]);
    let floor = 0.2;
    let kept = classify(&model, &docs, &["-k", "4", "--min-probability", "0.2"]);
    let mut dropped = 0;
    for (all, kept) in all.lines().zip(kept.lines()) {
        let (id, all) = ranked_line(all);
        let (kept_id, kept) = ranked_line(kept);
        assert_eq!(id, kept_id);
        let above: Vec<&Ranked> = all
            .iter()
            .filter(|r| r.probability.unwrap() >= floor)
            .collect();
        let names = |rs: &[&Ranked]| rs.iter().map(|r| r.label.clone()).collect::<Vec<_>>();
        assert_eq!(names(&above), names(&kept.iter().collect::<Vec<_>>()));
        assert!(kept.iter().all(|r| r.probability.unwrap() >= floor));
        dropped += all.len() - kept.len();
    }
    // Four classes of which one is clearly the document's: most fall under 0.2.
    assert!(dropped > 0, "nothing dropped:\n{all}");
}

#[test]
fn k_above_the_class_count_lists_every_class() {
    let dir = tempfile::tempdir().unwrap();
    let (model, docs) = trained(dir.path(), "perceptron");
    for line in classify(&model, &docs, &["--top-classes", "50"]).lines() {
        let (_, ranked) = ranked_line(line);
        let mut labels: Vec<String> = ranked.iter().map(|r| r.label.clone()).collect();
        labels.sort();
        let every: Vec<&str> = CLASSES.iter().map(|c| c.0).collect();
        assert_eq!(labels, every, "{line}");
    }
}

#[test]
fn a_perceptron_has_no_probabilities_and_no_floor() {
    let dir = tempfile::tempdir().unwrap();
    let (model, docs) = trained(dir.path(), "perceptron");
    for v in json_lines(&model, &docs, &["-k", "2"]) {
        for c in v["classes"].as_array().unwrap() {
            assert!(c["probability"].is_null(), "{v}");
        }
    }
    for line in classify(&model, &docs, &["-k", "2"]).lines() {
        assert!(ranked_line(line).1.iter().all(|r| r.probability.is_none()));
    }
    let err = stderr_of_failure(
        bin()
            .args(["classify", "--input-format", "tsv", "-k", "2"])
            .args(["--min-probability", "0.1", "-m"])
            .arg(&model)
            .arg(&docs),
    );
    assert!(err.contains(&model.display().to_string()), "{err}");
    assert!(err.contains("--min-probability"), "{err}");
    assert!(err.contains("probabilit"), "{err}");
}

#[test]
fn without_k_the_output_is_as_before() {
    let dir = tempfile::tempdir().unwrap();
    for learner in ["softmax", "perceptron"] {
        let (model, docs) = trained(dir.path(), learner);
        for line in classify(&model, &docs, &[]).lines() {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 3, "{learner}: {line}");
            f[2].parse::<f32>().unwrap();
        }
        // A -k line is the line of old with "classes" added.
        let plain = json_lines(&model, &docs, &[]);
        let ranked = json_lines(&model, &docs, &["-k", "2"]);
        assert_eq!(plain.len(), ranked.len());
        for (p, mut r) in plain.into_iter().zip(ranked) {
            assert!(p.get("classes").is_none(), "{learner}: {p}");
            r.as_object_mut().unwrap().remove("classes").unwrap();
            assert_eq!(p, r, "{learner}");
        }
    }
}

#[test]
fn a_two_class_model_ranks_both_classes() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("logistic.model");
    bin()
        .args(["train", "--learner", "logistic", "-o"])
        .arg(&model)
        .arg(data("tiny.tsv"))
        .assert()
        .success();
    let plain = classify(&model, &data("tiny.tsv"), &[]);
    let out = classify(&model, &data("tiny.tsv"), &["-k", "5"]);
    for (line, plain) in out.lines().zip(plain.lines()) {
        let (_, ranked) = ranked_line(line);
        assert_eq!(ranked.len(), 2, "{line}");
        assert_eq!(ranked[0].label, plain.split('\t').nth(1).unwrap(), "{line}");
        assert_eq!(ranked[0].score, -ranked[1].score, "{line}");
        let (p, q) = (
            ranked[0].probability.unwrap(),
            ranked[1].probability.unwrap(),
        );
        assert!((p + q - 1.0).abs() < 1e-5 && p >= q, "{line}");
    }
}

#[test]
fn bad_k_and_floors_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (model, docs) = trained(dir.path(), "softmax");
    for args in [
        vec!["-k", "0"],
        vec!["-k", "-2"],
        vec!["-k", "2", "--min-probability", "1.5"],
        vec!["-k", "2", "--min-probability", "x"],
        vec!["--min-probability", "0.1"],
        vec!["-k", "2", "--explain"],
    ] {
        bin()
            .args(["classify", "--input-format", "tsv", "-m"])
            .arg(&model)
            .args(&args)
            .arg(&docs)
            .assert()
            .failure()
            .stdout("");
    }
}

#[test]
fn a_multi_label_model_ranks_every_label_by_score() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("ml.jsonl");
    let mut lines = String::new();
    let three = &CLASSES[..3];
    for (i, filler) in ["red big", "small old", "new blue", "red old"]
        .iter()
        .enumerate()
    {
        for (label, word) in three {
            lines +=
                &format!("{{\"labels\": [\"{label}\"], \"text\": \"{word} {word} {filler}\"}}\n");
        }
        let (a, b) = (three[i % 3], three[(i + 1) % 3]);
        lines += &format!(
            "{{\"labels\": [\"{}\", \"{}\"], \"text\": \"{} {} {filler}\"}}\n",
            a.0, b.0, a.1, b.1
        );
    }
    std::fs::write(&corpus, lines).unwrap();
    let docs = dir.path().join("docs.tsv");
    std::fs::write(&docs, "wheel wheel apple apple\ndog dog\n").unwrap();
    for learner in ["pa", "softmax"] {
        let model = dir.path().join(format!("{learner}.model"));
        bin()
            .args(["train", "--learner", learner, "-o"])
            .arg(&model)
            .arg(&corpus)
            .assert()
            .success();
        let plain = json_lines(&model, &docs, &[]);
        let ranked = json_lines(&model, &docs, &["-k", "3"]);
        for (p, mut r) in plain.into_iter().zip(ranked) {
            let classes = r["classes"].as_array().unwrap().clone();
            assert_eq!(classes.len(), 3, "{learner}: {r}");
            for pair in classes.windows(2) {
                let s = |c: &Value| c["score"].as_f64().unwrap();
                assert!(s(&pair[0]) >= s(&pair[1]), "{learner}: {r}");
            }
            // The labels above their thresholds are the best-ranked ones, as before.
            let labels = p["labels"].as_array().unwrap();
            for (l, c) in labels.iter().zip(&classes) {
                assert_eq!(l, &c["label"], "{learner}: {r}");
            }
            r.as_object_mut().unwrap().remove("classes");
            assert_eq!(p, r, "{learner}");
        }
    }
}

#[test]
fn svmlight_rows_rank_their_classes_too() {
    let dir = tempfile::tempdir().unwrap();
    let (train, docs) = (dir.path().join("t.svm"), dir.path().join("d.svm"));
    let rows = "1 1:1 4:0.5\n2 2:1 4:0.5\n3 3:1 5:0.5\n".repeat(4);
    std::fs::write(&train, rows).unwrap();
    std::fs::write(&docs, "0 1:1\n0 3:1 5:1\n").unwrap();
    let model = dir.path().join("v.model");
    bin()
        .args(["train", "--learner", "softmax", "-o"])
        .arg(&model)
        .arg(&train)
        .assert()
        .success();
    let out = stdout_of(
        bin()
            .args(["classify", "-k", "3", "-m"])
            .arg(&model)
            .arg(&docs),
    );
    let firsts: Vec<String> = out
        .lines()
        .map(|l| {
            let (_, ranked) = ranked_line(l);
            assert_eq!(ranked.len(), 3, "{l}");
            let sum: f32 = ranked.iter().map(|r| r.probability.unwrap()).sum();
            assert!((sum - 1.0).abs() < 1e-5, "{l}");
            ranked[0].label.clone()
        })
        .collect();
    assert_eq!(firsts, ["1", "3"]);
}
