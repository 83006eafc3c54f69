//! A filter's update rule travels with it: `train --spam/--ham` records its learner's
//! rule, `eval --online` the rule it was given, and `learn` applies the recorded rule —
//! replaying one stream through `learn` (one process per message) and through
//! `eval --online -m` gives identical weights, vocabulary and rule state.

use crate::common::{bin, stdout_of, train_filter};
use rosenblatt::learn::{Rate, UpdateRule};
use rosenblatt::model::Model;
use std::path::{Path, PathBuf};

fn spam(i: usize) -> String {
    format!(
        "From: Deals <deals{i}@cheap-offers.biz>\nSubject: FREE CASH {i}\n\nWin free cash \
         now, cheap pills {i}, click here\n"
    )
}

fn ham(i: usize) -> String {
    format!(
        "From: Dan <dan@lists.example.org>\nSubject: meeting agenda {i}\n\nHi team, the \
         agenda for the meeting {i} is in the wiki; review the patch\n"
    )
}

/// Training folders of `n` messages each, and a stream of 6 messages in `dir/stream`
/// with its TREC index: alternating spam and ham, with words training never saw; the
/// first spam reads like ham and the second ham like spam, so every filter errs on them.
fn corpus(dir: &Path, n: usize) -> (PathBuf, PathBuf, PathBuf) {
    let (s, h, st) = (dir.join("spam"), dir.join("ham"), dir.join("stream"));
    for d in [&s, &h, &st] {
        std::fs::create_dir_all(d).unwrap();
    }
    for i in 0..n {
        std::fs::write(s.join(format!("{i}.eml")), spam(i)).unwrap();
        std::fs::write(h.join(format!("{i}.eml")), ham(i)).unwrap();
    }
    let mut index = String::new();
    for i in 0..6 {
        let (label, text) = match i {
            0 => ("spam", ham(100 + i) + "lottery winner unclaimed\n"),
            3 => ("ham", spam(100 + i) + "lottery of the office party\n"),
            _ if i % 2 == 0 => ("spam", spam(100 + i) + "lottery winner unclaimed\n"),
            _ => ("ham", ham(100 + i) + "lottery of the office party\n"),
        };
        std::fs::write(st.join(format!("{i}.eml")), text).unwrap();
        index.push_str(&format!("{label} {i}.eml\n"));
    }
    std::fs::write(st.join("index"), index).unwrap();
    (s, h, st)
}

/// Replays the stream into a copy of `model` with one `learn` per message, and into
/// another through `eval --online -m … --save`; returns both results.
fn replay_both_ways(dir: &Path, model: &Path, stream: &Path) -> (Model, Model) {
    let by_learn = dir.join("by_learn.model");
    std::fs::copy(model, &by_learn).unwrap();
    let index = std::fs::read_to_string(stream.join("index")).unwrap();
    for line in index.lines() {
        let (label, file) = line.split_once(' ').unwrap();
        bin()
            .args(["learn", &format!("--{label}"), "-m"])
            .arg(&by_learn)
            .arg(stream.join(file))
            .assert()
            .success();
    }
    let by_eval = dir.join("by_eval.model");
    bin()
        .args(["eval", "--json", "--online"])
        .arg(stream.join("index"))
        .arg("-m")
        .arg(model)
        .arg("--save")
        .arg(&by_eval)
        .assert()
        .success();
    (
        Model::load(&by_learn).unwrap(),
        Model::load(&by_eval).unwrap(),
    )
}

fn assert_same_learning(a: &Model, b: &Model, before: &Model) {
    assert_eq!(a.predictor(), b.predictor());
    assert_eq!(a.online(), b.online());
    assert_eq!(a.vocab().len(), b.vocab().len());
    assert_eq!(a.meta().learned, before.meta().learned + 6);
    assert_eq!(a.meta().report.updates, b.meta().report.updates);
    assert_ne!(
        a.predictor(),
        before.predictor(),
        "the stream changed no weight"
    );
}

#[test]
fn learn_applies_the_rule_each_learner_trained_the_filter_with() {
    let cases: [(&str, &[&str], UpdateRule); 5] = [
        ("perceptron", &[], UpdateRule::Perceptron),
        ("averaged-perceptron", &[], UpdateRule::Perceptron),
        (
            "margin-perceptron",
            &["--margin", "0.5"],
            UpdateRule::Margin { tau: 0.5 },
        ),
        (
            "pa",
            &["--pa-c", "0.5"],
            UpdateRule::PassiveAggressive { c: 0.5 },
        ),
        (
            "logistic",
            &["--eta", "0.25", "--lr-schedule", "constant"],
            UpdateRule::Logistic {
                eta: 0.25,
                rate: Rate::Constant,
            },
        ),
    ];
    for (learner, flags, rule) in cases {
        let dir = tempfile::tempdir().unwrap();
        let (s, h, stream) = corpus(dir.path(), 4);
        let model = dir.path().join("f.model");
        train_filter(&s, &h, &model, &[&["--learner", learner], flags].concat());
        let trained = Model::load(&model).unwrap();
        assert_eq!(
            trained.online().as_ref().map(|o| o.rule),
            Some(rule),
            "{learner}"
        );
        let (a, b) = replay_both_ways(dir.path(), &model, &stream);
        assert_same_learning(&a, &b, &trained);
        assert_eq!(a.online().as_ref().unwrap().seen, 6, "{learner}");
        // Logistic regression steps after every message; the perceptron only on its
        // mistakes: at least the two planted ones, not the four plain messages.
        let steps = a.meta().report.updates - trained.meta().report.updates;
        match rule {
            UpdateRule::Logistic { .. } => assert_eq!(steps, 6, "{learner}"),
            UpdateRule::Perceptron => assert!((2..6).contains(&steps), "{learner}: {steps}"),
            _ => assert!(steps >= 2, "{learner}: {steps}"),
        }
    }
}

#[test]
fn an_adagrad_filter_keeps_its_sums_across_learn_calls() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, stream) = corpus(dir.path(), 1);
    // Start an AdaGrad filter on the stream itself, then replay the stream again.
    let start = dir.path().join("start.model");
    let out = stdout_of(
        bin()
            .args(["eval", "--json", "--online"])
            .arg(stream.join("index"))
            .args([
                "--learner",
                "logistic",
                "--rate",
                "adagrad",
                "--hash-bits",
                "12",
            ])
            .arg("--save")
            .arg(&start),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["rule"], "logistic, adagrad, η 1");
    let before = Model::load(&start).unwrap();
    let sums = &before.online().as_ref().unwrap().sq_grads;
    assert_eq!(sums.len(), 1 << 12);
    assert!(sums.iter().any(|&g| g > 0.0));
    let (a, b) = replay_both_ways(dir.path(), &start, &stream);
    assert_same_learning(&a, &b, &before);
    assert_eq!(a.online().as_ref().unwrap().seen, 12);
}

#[test]
fn hash_bits_zero_gives_the_online_filter_a_vocabulary_of_words() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, stream) = corpus(dir.path(), 1);
    let saved = dir.path().join("v.model");
    bin()
        .args(["eval", "--online"])
        .arg(stream.join("index"))
        .args(["--hash-bits", "0", "--save"])
        .arg(&saved)
        .assert()
        .success();
    let m = Model::load(&saved).unwrap();
    assert_eq!(m.analyzer().hashing(), None);
    assert!(m.vocab().get("lottery").is_some() && m.vocab().get("never-seen").is_none());
    // Without the flag the default filter hashes.
    bin()
        .args(["eval", "--online"])
        .arg(stream.join("index"))
        .arg("--save")
        .arg(&saved)
        .assert()
        .success();
    let m = Model::load(&saved).unwrap();
    assert_eq!(m.analyzer().hashing().map(|h| h.bits), Some(22));
}

#[test]
fn rule_flags_are_checked_and_belong_to_an_empty_filter() {
    let dir = tempfile::tempdir().unwrap();
    let (s, h, stream) = corpus(dir.path(), 2);
    let index = stream.join("index");
    let refused = |args: &[&str], says: &str| {
        bin()
            .args(["eval", "--online"])
            .arg(&index)
            .args(args)
            .assert()
            .failure()
            .stderr(predicates::str::contains(says.to_string()));
    };
    refused(
        &["--learner", "pa", "--rate", "adagrad"],
        "--rate belongs to --learner logistic",
    );
    refused(
        &["--learner", "perceptron", "--margin", "1"],
        "--margin belongs to --learner margin-perceptron",
    );
    refused(&["--learner", "margin-perceptron", "--margin", "-1"], "τ");
    refused(&["--features", "words+char1"], "2 to 8 characters");
    let model = dir.path().join("f.model");
    train_filter(&s, &h, &model, &[]);
    let m = model.to_str().unwrap();
    refused(
        &["-m", m, "--learner", "logistic"],
        "a filter read with --model learns",
    );
}

#[test]
fn the_threshold_decides_and_travels_with_the_filter_but_never_moves_the_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, stream) = corpus(dir.path(), 1);
    let index = stream.join("index");
    let run = |args: &[&str], save: Option<&Path>| -> serde_json::Value {
        let mut cmd = bin();
        cmd.args(["eval", "--json", "--online"])
            .arg(&index)
            .args(args);
        if let Some(p) = save {
            cmd.arg("--save").arg(p);
        }
        serde_json::from_str(&stdout_of(&mut cmd)).unwrap()
    };
    // The logistic filter's default calls spam at P(spam) > 0.9: the log-odds ln 9.
    let saved = dir.path().join("t.model");
    let default = run(&[], Some(&saved));
    let t = default["threshold"].as_f64().unwrap();
    assert!((t - 9f64.ln()).abs() < 1e-6, "{t}");
    assert_eq!(run(&["--learner", "perceptron"], None)["threshold"], 0.0);
    // The stream holds 3 spam and 3 ham: a threshold below every score calls all 6 spam,
    // one above every score calls all ham; the ranking, (1-ROCA)%, is the same.
    let low = run(&["--threshold", "-1000"], None);
    let high = run(&["--threshold", "1000"], None);
    assert_eq!(
        (
            low["false_positives"].as_u64(),
            low["false_negatives"].as_u64()
        ),
        (Some(3), Some(0))
    );
    assert_eq!(
        (
            high["false_positives"].as_u64(),
            high["false_negatives"].as_u64()
        ),
        (Some(0), Some(3))
    );
    for v in [&low, &high] {
        assert_eq!(v["one_minus_roca_pct"], default["one_minus_roca_pct"]);
    }
    // The saved filter keeps it: `classify` calls spam exactly the scores above it, and
    // `inspect` says the rule in words.
    let m = Model::load(&saved).unwrap();
    assert_eq!(m.threshold() as f64, t);
    let files: Vec<PathBuf> = (0..6).map(|i| stream.join(format!("{i}.eml"))).collect();
    let out = stdout_of(bin().args(["classify", "-m"]).arg(&saved).args(&files));
    assert_eq!(out.lines().count(), 6);
    for line in out.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let score: f32 = cols[2].parse().unwrap();
        assert_eq!(cols[1] == "spam", score > m.threshold(), "{line}");
    }
    let shown = stdout_of(bin().args(["inspect", "-m"]).arg(&saved));
    assert!(
        shown.contains("spam when score > 2.197 (P > 0.90)"),
        "{shown}"
    );
    // A threshold that is not a number is refused, from the flag and from a file.
    bin()
        .args(["eval", "--online"])
        .arg(&index)
        .args(["--threshold", "NaN"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("--threshold must be a number"));
    // A model is built only through the checks a loaded file passes.
    let mut bad = m.clone().into_parts();
    bad.threshold = f32::NAN;
    let err = Model::new(bad).unwrap_err().to_string();
    assert!(err.contains("its decision threshold is NaN"), "{err}");
}
