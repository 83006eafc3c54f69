//! The dual (kernel) perceptron on real text: polynomial / RBF models train, save, load
//! and evaluate via the CLI. (That the linear kernel replays the primal perceptron is a
//! unit test of `learn::dual`.)

use crate::common::{bin, stdout_of};
use rosenblatt::learn::{Check, Learner};
use rosenblatt::learn::{KernelPerceptron, Schedule};
use std::path::PathBuf;

fn sms() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/sms/SMSSpamCollection.tsv")
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
