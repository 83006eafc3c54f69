//! Training over worker threads through the command line: `train --workers` mixes, and
//! one worker is plain training. (Mixing itself is a unit test of `training::rounds`.)

/// `classify`'s scores for the tiny corpus's files under `model`.
fn scores(model: &std::path::Path) -> Vec<f32> {
    let files: Vec<_> = ["ham/h1.txt", "ham/h4.txt", "spam/s1.txt", "spam/s4.txt"]
        .iter()
        .map(|f| crate::common::data("tiny").join(f))
        .collect();
    let out = crate::common::stdout_of(
        crate::common::bin()
            .args(["classify", "-m"])
            .arg(model)
            .args(&files),
    );
    out.lines()
        .map(|l| l.split('\t').nth(2).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn train_with_workers_mixes_and_one_worker_is_plain_training() {
    use crate::common::{bin, data};
    let dir = tempfile::tempdir().unwrap();
    let model = |name: &str, extra: &[&str]| {
        let p = dir.path().join(name);
        bin()
            .args(["train", "-o"])
            .arg(&p)
            .args(extra)
            .arg(data("tiny"))
            .assert()
            .success();
        p
    };
    let plain = scores(&model("plain.model", &[]));
    let one = scores(&model("one.model", &["--workers", "1"]));
    for (a, b) in one.iter().zip(&plain) {
        assert!((a - b).abs() < 1e-4, "{one:?} vs {plain:?}");
    }
    // Two workers: a model of its own that still tells the tiny corpus apart.
    let two = scores(&model("two.model", &["--workers", "2"]));
    assert!(
        two[0] < 0.0 && two[1] < 0.0 && two[2] > 0.0 && two[3] > 0.0,
        "{two:?}"
    );
    // A three-class corpus trains one-vs-rest over the workers.
    let tsv = dir.path().join("three.tsv");
    let mut text = String::new();
    for i in 0..12 {
        text.push_str(&format!("sport\tthe match ended {i} goals to nil\n"));
        text.push_str(&format!("money\tshares fell {i} points on the exchange\n"));
        text.push_str(&format!("food\ta recipe with {i} eggs and flour\n"));
    }
    std::fs::write(&tsv, text).unwrap();
    let m3 = dir.path().join("three.model");
    bin()
        .args(["train", "--workers", "3", "-o"])
        .arg(&m3)
        .arg(&tsv)
        .assert()
        .success();
    let m = rosenblatt::model::Model::load(&m3).unwrap();
    assert!(matches!(m.predictor(), rosenblatt::model::Predictor::OneVsRest(v) if v.len() == 3));
    assert_eq!(m.meta().training_accuracy, 1.0);
    // Refusals, before any work.
    let refused = |args: &[&str], input: &std::path::Path, says: &str| {
        bin()
            .args(["train", "-o"])
            .arg(dir.path().join("x.model"))
            .args(args)
            .arg(input)
            .assert()
            .failure()
            .stderr(predicates::str::contains(says.to_string()));
    };
    refused(
        &["--workers", "2", "--learner", "winnow"],
        &data("tiny"),
        "winnow does not train by parameter mixing",
    );
    refused(
        &["--workers", "0"],
        &data("tiny"),
        "--workers must be at least 1",
    );
    refused(
        &["--workers", "2", "--tune"],
        &data("tiny"),
        "--tune chooses one first",
    );
    refused(
        &["--workers", "2", "--cv", "3"],
        &data("tiny"),
        "does not run with --workers",
    );
}
