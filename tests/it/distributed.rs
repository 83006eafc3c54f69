//! Parameter mixing on timely workers equals the single-process reference over the same
//! shards (to float rounding), for every mixing learner, two- and many-problem; with one
//! worker it is the lone learner.

use rosenblatt::distributed::Cluster;
use rosenblatt::features::{RealMatrix, real_from_dense};
use rosenblatt::learn::mixing::fit_mixed;
use rosenblatt::learn::{AnyLearner, Check, Label, Learner, LinearModel};
use rosenblatt::training::{shards, train_mixed};

/// 120 rows of 30 features from a seeded generator; three problems: the sign of a fixed
/// linear score with some noise, and two others on other feature pairs.
fn data() -> (RealMatrix, Vec<Vec<Label>>) {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 1000) as f32 / 1000.0
    };
    let mut rows = Vec::new();
    let mut ys = vec![Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..120 {
        let r: Vec<f32> = (0..30)
            .map(|_| {
                let v = next();
                if v < 0.7 { 0.0 } else { v }
            })
            .collect();
        let s = [
            r[0] + r[1] - r[2] - r[3],
            r[4] - r[5] + 0.1,
            r[6] + r[7] - 0.5,
        ];
        for (y, s) in ys.iter_mut().zip(s) {
            y.push(if s + 0.2 * (next() - 0.5) > 0.0 {
                1
            } else {
                -1
            });
        }
        rows.push(r);
    }
    (real_from_dense(&rows), ys)
}

fn close(a: &LinearModel, b: &LinearModel, what: &str) {
    assert_eq!(a.w.len(), b.w.len(), "{what}");
    for (p, q) in a.w.iter().zip(&b.w).chain([(&a.bias, &b.bias)]) {
        assert!(
            (p - q).abs() <= 1e-4 * (1.0 + q.abs()),
            "{what}: {p} vs {q}"
        );
    }
}

#[test]
fn workers_mix_as_the_single_process_reference_does() {
    let (x, ys) = data();
    for name in [
        "perceptron",
        "averaged-perceptron",
        "margin-perceptron",
        "pa",
        "logistic",
    ] {
        let learner = AnyLearner::from_name(name).unwrap().check().unwrap();
        for workers in [1, 2, 3] {
            let fits = train_mixed(
                &Cluster::Threads(workers),
                &learner,
                shards(&x, &ys, workers).unwrap(),
                30,
            )
            .unwrap();
            assert_eq!(fits.len(), 3);
            for (c, (fit, y)) in fits.iter().zip(&ys).enumerate() {
                let what = format!("{name}, {workers} workers, problem {c}");
                let reference = fit_mixed(&learner, &x, y, workers).unwrap();
                close(&fit.model, &reference.model, &what);
                assert_eq!(fit.report, reference.report, "{what}");
                if workers == 1 {
                    let alone = learner.fit(&x, &y[..]).unwrap();
                    close(&fit.model, alone.model.as_linear().unwrap(), &what);
                }
            }
        }
    }
}

#[test]
fn learners_that_do_not_mix_and_too_few_rows_are_refused() {
    let (x, ys) = data();
    let winnow = AnyLearner::from_name("winnow").unwrap().check().unwrap();
    let err = train_mixed(
        &Cluster::Threads(2),
        &winnow,
        shards(&x, &ys, 2).unwrap(),
        30,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("winnow does not train by parameter mixing"),
        "{err}"
    );
    let err = shards(&x, &ys, 121).unwrap_err().to_string();
    assert!(
        err.contains("120 rows cannot be split over 121 workers"),
        "{err}"
    );
}

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
