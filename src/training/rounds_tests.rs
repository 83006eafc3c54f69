//! Parameter mixing on timely workers equals the single-process reference over the same
//! shards (to float rounding), for every mixing learner, two- and many-problem; with one
//! worker it is the lone learner.

use super::rounds::{shards, train_mixed};
use crate::distributed::Cluster;
use crate::features::{RealMatrix, real_from_dense};
use crate::learn::mixing::fit_mixed;
use crate::learn::{AnyLearner, Check, Label, Learner, LinearModel};

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
