//! Cross-validation: `train --cv` reports the library's cross-validation, for documents
//! (each fold scored as a model trained on its training part scores its test part) and
//! for SVMlight rows.

use crate::common::{bin, data, stdout_of};
use rosenblatt::experiment::kfold;
use rosenblatt::features::svmlight::{Rows, read_svmlight};
use rosenblatt::learn::{AnyLearner, AveragedPerceptron, Perceptron};
use rosenblatt::training;
use rosenblatt::training::TrainConfig;

fn cv_of(out: &str) -> Vec<f64> {
    let v: serde_json::Value = serde_json::from_str(out).unwrap();
    v["cv_accuracy"]
        .as_array()
        .expect("cv_accuracy")
        .iter()
        .map(|a| a.as_f64().unwrap())
        .collect()
}

#[test]
fn train_cv_reports_the_library_cross_validation_of_the_documents() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let run = |extra: &[&str]| {
        stdout_of(
            bin()
                .args(["train", "--json", "--learner", "averaged-perceptron"])
                .args(["--cv", "4", "--seed", "3", "-o"])
                .arg(&model)
                .args(extra)
                .arg(data("tiny.tsv")),
        )
    };
    let plain = cv_of(&run(&[]));
    assert_eq!(plain.len(), 4);
    // With a held-out part the folds still cover every document.
    assert_eq!(cv_of(&run(&["--holdout", "0.25"])), plain);
    let docs = rosenblatt::input::read(&data("tiny.tsv"), None)
        .unwrap()
        .docs;
    let cfg = TrainConfig {
        analyzer: Default::default(),
        vocab: Default::default(),
        // `--seed 3` seeds the folds and the learner's shuffle alike.
        learner: rosenblatt::learn::Check::check(AnyLearner::AveragedPerceptron(
            AveragedPerceptron {
                online: rosenblatt::learn::OnlineOptions {
                    shuffle: Some(3),
                    ..Default::default()
                },
            },
        ))
        .unwrap(),
        positive: None,
        options: String::new(),
        // The command line's default geometry: idf-weighted, unit-length rows.
        geometry: rosenblatt::features::GeometrySpec::IDF_L2,
        term_counts: Default::default(),
        workers: None,
        threshold: None,
        calibrate: false,
    };
    let splits = kfold(docs.len(), 4, 3).unwrap();
    let lib: Vec<f64> = training::cross_validate_documents(&docs, &cfg, &splits)
        .unwrap()
        .iter()
        .map(|m| m.accuracy())
        .collect();
    assert_eq!(plain, lib);
    bin()
        .args(["train", "--cv", "500", "-o"])
        .arg(&model)
        .arg(data("tiny.tsv"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("--cv 500: only"));
}

#[test]
fn svmlight_cv_and_holdout_run_on_views_of_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let svm = dir.path().join("rows.svm");
    // Feature 1 marks class +1, feature 2 class -1; feature 3 is noise.
    let lines: String = (0..40)
        .map(|i| {
            let (label, f) = if i % 3 == 0 { ("+1", 1) } else { ("-1", 2) };
            let noise = if i % 4 == 0 { " 3:1" } else { "" };
            format!("{label} {f}:1{noise}\n")
        })
        .collect();
    std::fs::write(&svm, lines).unwrap();
    let model = dir.path().join("m");
    let out = stdout_of(
        bin()
            .args(["train", "--json", "--cv", "5", "--holdout", "0.25", "-o"])
            .arg(&model)
            .arg(&svm),
    );
    let folds = cv_of(&out);
    assert_eq!(folds, vec![1.0; 5]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["documents"], 30);
    assert_eq!(v["held_out"]["documents"], 10);
    // The same folds through the library, on the rows read.
    let data = read_svmlight(&svm).unwrap();
    let classes = rosenblatt::features::svmlight::classes_of_labels(&data.labels, None).unwrap();
    let idx = rosenblatt::training::label_indices(&data.labels, &classes).unwrap();
    let Rows::Binary(x) = &data.rows else {
        panic!("binary rows expected")
    };
    let cfg = TrainConfig {
        analyzer: Default::default(),
        vocab: Default::default(),
        learner: rosenblatt::learn::Check::check(AnyLearner::Perceptron(Perceptron::default()))
            .unwrap(),
        positive: None,
        options: String::new(),
        geometry: Default::default(),
        term_counts: Default::default(),
        workers: None,
        threshold: None,
        calibrate: false,
    };
    let lib =
        training::cross_validate_rows(x, &idx, &classes, &cfg, &kfold(40, 5, 42).unwrap()).unwrap();
    assert_eq!(lib.iter().map(|m| m.accuracy()).collect::<Vec<_>>(), folds);
}

/// Each fold of `cross_validate_documents` is what training on the fold's training
/// documents and evaluating on its test documents gives: the vocabulary, its pruning and
/// the idf weights are the training part's. The corpus is made so that this matters:
/// every document has a word of its own and words shared by two documents, which a
/// vocabulary of every document (pruning at two documents) would keep for a test
/// document and the training part's drops.
#[test]
fn cv_folds_score_as_models_trained_on_their_training_part() {
    use rosenblatt::input::Document;
    let docs: Vec<Document> = (0..60)
        .map(|i| {
            let c = i % 2;
            let cue = ["good", "bad"][c];
            let other = ["bad", "good"][c];
            // A pair word shared by documents i and i + 1 (and so often across a fold),
            // a word of its own, and a cue that is wrong on every fifth document.
            let text = format!(
                "{} pair{} pair{} own{i} the film",
                if i % 5 == 0 { other } else { cue },
                i / 2,
                i.div_ceil(2)
            );
            Document::new(i.to_string(), text, Some(["pos", "neg"][c]))
        })
        .collect();
    let cfg = TrainConfig::default()
        .learner("perceptron")
        .unwrap()
        .min_df(2);
    let splits = kfold(docs.len(), 5, 7).unwrap();
    let folds = training::cross_validate_documents(&docs, &cfg, &splits).unwrap();
    let pick = |ids: &[usize]| ids.iter().map(|&i| docs[i].clone()).collect::<Vec<_>>();
    for (split, fold) in splits.iter().zip(&folds) {
        let model = training::train(&pick(&split.train), &cfg, vec![])
            .unwrap()
            .model;
        let held = training::evaluate_decisions(&model, &pick(&split.test)).unwrap();
        assert_eq!(format!("{fold:?}"), format!("{:?}", held.metrics));
    }
    // A vocabulary of every document, as the folds' views of one matrix would have: the
    // pair words of test documents survive pruning, and some fold scores otherwise.
    let (_, x) = training::vectorize_training(&cfg.analyzer, &cfg.vocab, &docs);
    let classes = training::classes_of(&docs, None).unwrap();
    let idx = training::class_indices(&docs, &classes).unwrap();
    let shared = training::cross_validate_rows(&x, &idx, &classes, &cfg, &splits).unwrap();
    assert_ne!(format!("{shared:?}"), format!("{folds:?}"));
}

#[test]
fn a_held_out_part_reports_the_log_loss_and_calibration_error_eval_gives_on_it() {
    let dir = tempfile::tempdir().unwrap();
    // Two classes whose words overlap: each document draws two words from its class's
    // four and three from all eight, so that probabilities are neither 0 nor 1.
    let words = [
        "offer", "prize", "free", "win", "meeting", "lunch", "notes", "call",
    ];
    let mut state = 7u64;
    let mut draw = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % n) as usize
    };
    let lines: Vec<String> = (0..160usize)
        .map(|i| {
            let spam = i % 3 == 0;
            let own = if spam { 0 } else { 4 };
            let mut text: Vec<&str> = (0..2).map(|_| words[own + draw(4)]).collect();
            text.extend((0..3).map(|_| words[draw(8)]));
            format!("{}\t{}", if spam { "spam" } else { "ham" }, text.join(" "))
        })
        .collect();
    let corpus = dir.path().join("all.tsv");
    std::fs::write(&corpus, lines.join("\n") + "\n").unwrap();
    let model = dir.path().join("m");
    let out = stdout_of(
        bin()
            .args(["train", "--json", "--holdout", "0.25", "--seed", "5", "-o"])
            .arg(&model)
            .arg(&corpus),
    );
    let held: serde_json::Value = serde_json::from_str(&out).unwrap();
    let held = &held["held_out"];
    // The same part through the library's split, evaluated by `eval`.
    let split = rosenblatt::experiment::holdout(lines.len(), 0.25, 5).unwrap();
    let part: Vec<&str> = split.test.iter().map(|&i| lines[i].as_str()).collect();
    let test = dir.path().join("held.tsv");
    std::fs::write(&test, part.join("\n") + "\n").unwrap();
    let eval: serde_json::Value = serde_json::from_str(&stdout_of(
        bin().args(["eval", "--json", "-m"]).arg(&model).arg(&test),
    ))
    .unwrap();
    assert_eq!(held["documents"], eval["documents"]);
    assert_eq!(held["accuracy"], eval["accuracy"]);
    for key in ["log_loss", "ece"] {
        let (h, e) = (held[key].as_f64(), eval[key].as_f64());
        assert!(h.is_some_and(|h| h > 0.0), "{key}: {held}");
        assert_eq!(h, e, "{key}");
    }
    assert_eq!(held["ece_bins"], 10);
}
