//! The dual (kernel) perceptron on real text: it replays the primal perceptron with the
//! linear kernel, and polynomial / RBF models train, save, load and evaluate via the CLI.

use crate::common::{bin, stdout_of};
use rosenblatt::features::{SparseRows, vectorize};
use rosenblatt::input::{self, Document};
use rosenblatt::learn::{Bias, KernelPerceptron, Perceptron, Schedule};
use rosenblatt::learn::{Check, Classifier, Learner};
use rosenblatt::text::Analyzer;
use rosenblatt::training::fit_vocab;
use rosenblatt::vocab::VocabConfig;
use std::path::PathBuf;

fn sms() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/sms/SMSSpamCollection.tsv")
}

/// Every `step`-th message of the SMS collection.
fn sms_sample(step: usize) -> Vec<Document> {
    let corpus = input::read(&sms(), None).unwrap();
    corpus.docs.into_iter().step_by(step).collect()
}

#[test]
fn linear_kernel_makes_the_primal_mistakes_in_order_on_sms_text() {
    let docs = sms_sample(6);
    let (train, test) = docs.split_at(docs.len() * 4 / 5);
    let an = Analyzer::default();
    let vocab = fit_vocab(&an, &VocabConfig::default(), train);
    let x = vectorize(&an, &vocab, train).matrix;
    let xt = vectorize(&an, &vocab, test).matrix;
    let y: Vec<i8> = train
        .iter()
        .map(|d| if d.labels[0] == "spam" { 1 } else { -1 })
        .collect();
    assert!(x.n_rows() > 700 && y.contains(&1) && y.contains(&-1));
    let schedules = [
        Schedule::Epochs(3),
        Schedule::UntilConvergence { max_epochs: 30 },
        Schedule::Randomized {
            rounds: 3000,
            seed: 3,
            patience: Some(500),
        },
    ];
    for bias in [Bias::None, Bias::Augmented, Bias::R2] {
        for schedule in schedules {
            let primal = Perceptron {
                eta: 1.0,
                bias,
                schedule,
                shuffle: Some(5),
            };
            let mut p_seq = Vec::new();
            let p = primal
                .check()
                .unwrap()
                .fit_observed(&x, &y, |u| p_seq.push((u.example, u.epoch)))
                .unwrap();
            let dual = KernelPerceptron {
                bias,
                schedule,
                shuffle: Some(5),
                ..Default::default()
            };
            let mut d_seq = Vec::new();
            let d = dual
                .check()
                .unwrap()
                .fit_observed(&x, &y, |u| d_seq.push((u.example, u.epoch)))
                .unwrap();
            assert!(p_seq.len() > 20, "{bias:?} {schedule:?}: too easy a test");
            assert_eq!(p_seq, d_seq, "{bias:?} {schedule:?}");
            assert_eq!(p.report, d.report);
            // Integer-valued sums are exact in f32 and f64: the scores are identical.
            for m in [&x, &xt] {
                for i in 0..m.n_rows() {
                    assert_eq!(p.model.score(m.row(i)), d.model.score(m.row(i)));
                }
            }
            // α counts the updates on each example.
            let total: u64 = d.model.alpha.iter().map(|&a| u64::from(a)).sum();
            assert_eq!(total, d.report.updates);
        }
    }
}

#[test]
fn poly_and_rbf_train_save_and_evaluate_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("sms.tsv");
    let text = std::fs::read_to_string(sms()).unwrap();
    let lines: Vec<&str> = text.lines().step_by(8).collect();
    std::fs::write(&sample, lines.join("\n")).unwrap();
    for kernel in [
        &["--kernel", "poly", "--degree", "2"][..],
        // The default γ = 1 suits the default unit-length rows.
        &["--kernel", "rbf"][..],
    ] {
        let model = dir.path().join(format!("{}.model", kernel[1]));
        let out = stdout_of(
            bin()
                .args(["train", "--learner", "kernel-perceptron", "--json"])
                .args(kernel)
                .arg("--holdout")
                .arg("0.2")
                .arg("-o")
                .arg(&model)
                .arg(&sample),
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["learner"], "kernel-perceptron");
        let held = v["held_out"]["accuracy"].as_f64().unwrap();
        assert!(held > 0.9, "{kernel:?}: held-out accuracy {held}");
        // The saved model scores its training documents as in memory.
        let train_acc = v["training_accuracy"].as_f64().unwrap();
        let t = v["theory"].clone();
        assert_eq!(t["updates"], v["updates"]);
        let info = stdout_of(bin().args(["inspect", "--json", "-m"]).arg(&model));
        let info: serde_json::Value = serde_json::from_str(&info).unwrap();
        assert_eq!(info["training_accuracy"].as_f64(), Some(train_acc));
        assert!(info["support_vectors"].as_u64().unwrap() > 0);
        assert_eq!(info["theory"], t);
        let eval = stdout_of(
            bin()
                .args(["eval", "--json", "-m"])
                .arg(&model)
                .arg(&sample),
        );
        let eval: serde_json::Value = serde_json::from_str(&eval).unwrap();
        assert!(eval["accuracy"].as_f64().unwrap() > 0.95);
    }
}

#[test]
fn refuses_a_corpus_too_large_for_the_dual_form_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let sample = dir.path().join("sms.tsv");
    let text = std::fs::read_to_string(sms()).unwrap();
    let lines: Vec<&str> = text.lines().take(300).collect();
    std::fs::write(&sample, lines.join("\n")).unwrap();
    let train = || {
        let mut c = bin();
        c.args([
            "train",
            "--learner",
            "kernel-perceptron",
            "--memory",
            "1K",
            "-o",
        ])
        .arg(&model)
        .arg(&sample);
        c
    };
    let out = train().assert().failure().get_output().stderr.clone();
    let err = String::from_utf8(out).unwrap();
    assert!(
        err.contains("300 rows") && err.contains("--learner perceptron"),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    assert!(!model.exists());
    train().arg("--force").assert().success();
    assert!(model.exists());
    // Kernel flags with another learner are refused.
    bin()
        .args(["train", "--kernel", "rbf", "-o"])
        .arg(&model)
        .arg(&sample)
        .assert()
        .failure();
}

#[test]
fn xor_is_learned_with_a_polynomial_kernel_only() {
    let x = rosenblatt::features::real_from_dense(&[
        vec![1., 1.],
        vec![-1., -1.],
        vec![1., -1.],
        vec![-1., 1.],
    ]);
    let y = vec![1, 1, -1, -1];
    let schedule = Schedule::UntilConvergence { max_epochs: 100 };
    let lin = KernelPerceptron {
        schedule,
        ..Default::default()
    }
    .check()
    .unwrap()
    .fit(&x, &y)
    .unwrap();
    assert_eq!(lin.report.converged, Some(false));
    let poly = KernelPerceptron {
        kernel: rosenblatt::learn::Kernel::Polynomial {
            degree: 2,
            coef0: 0.0,
        },
        schedule,
        ..Default::default()
    }
    .check()
    .unwrap()
    .fit(&x, &y)
    .unwrap();
    assert_eq!(poly.report.converged, Some(true));
}
