//! Holdout and cross-validation: folds as views fit what copies fit, and `train --cv`
//! reports the library's cross-validation over the one vectorized matrix.

use crate::common::{bin, data, stdout_of};
use proptest::prelude::*;
use rosenblatt::experiment::{Classes, cross_validate, fit_classes, kfold, stratified_kfold};
use rosenblatt::features::svmlight::{Rows, read_svmlight_files};
use rosenblatt::features::{
    BinaryMatrix, MatrixBuilder, RowSubset, SparseRows, real_from_dense, select_rows,
};
use rosenblatt::learn::{AnyLearner, AveragedPerceptron, Perceptron};
use rosenblatt::training;
use rosenblatt::training::TrainConfig;

/// Every learner, with its defaults.
fn learners() -> Vec<AnyLearner> {
    AnyLearner::NAMES
        .iter()
        .map(|n| AnyLearner::from_name(n).unwrap())
        .collect()
}

/// Random binary rows: `rows[i]` are the ids of row i (sorted, deduplicated here).
fn matrix(rows: &[Vec<u32>], n_cols: usize) -> BinaryMatrix {
    let mut b = MatrixBuilder::with_capacity(rows.len(), 0);
    for r in rows {
        b.push_unsorted(&mut r.clone());
    }
    b.finish(n_cols)
}

fn data_set() -> impl Strategy<Value = (Vec<Vec<u32>>, Vec<usize>, Vec<usize>)> {
    (8usize..40).prop_flat_map(|n| {
        (
            proptest::collection::vec(proptest::collection::vec(0u32..30, 0..8), n),
            proptest::collection::vec(0usize..3, n),
            // Rows of the subset: any order, repeats allowed.
            proptest::collection::vec(0..n, 4..2 * n),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn a_view_fits_what_a_copied_submatrix_fits((rows, classes, idx) in data_set(), k in 2usize..4) {
        let x = matrix(&rows, 30);
        let view = RowSubset::new(&x, &idx);
        let copy = select_rows(&x, &idx);
        prop_assert_eq!(view.nnz(), copy.nnz());
        let y: Vec<usize> = idx.iter().map(|&i| classes[i] % k).collect();
        for l in learners() {
            let l = rosenblatt::learn::Check::check(l).unwrap();
            let a = fit_classes(&l, &view, &y, k);
            let b = fit_classes(&l, &copy, &y, k);
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    prop_assert_eq!(&a.model, &b.model, "{}", l.name());
                    prop_assert_eq!(&a.report, &b.report, "{}", l.name());
                }
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => prop_assert!(false, "{}: {:?} vs {:?}", l.name(), a.is_ok(), b.is_ok()),
            }
        }
    }

    #[test]
    fn a_view_of_real_rows_fits_what_their_copy_fits((rows, classes, idx) in data_set()) {
        let dense: Vec<Vec<f32>> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut d = vec![0.0; 30];
                for &j in r {
                    d[j as usize] = 1.0 + (i % 3) as f32 * 0.5;
                }
                d
            })
            .collect();
        let x = real_from_dense(&dense);
        let copy = real_from_dense(&idx.iter().map(|&i| dense[i].clone()).collect::<Vec<_>>());
        let y: Vec<usize> = idx.iter().map(|&i| classes[i] % 2).collect();
        let view = RowSubset::new(&x, &idx);
        for l in learners() {
            let l = rosenblatt::learn::Check::check(l).unwrap();
            let a = fit_classes(&l, &view, &y, 2).map(|f| f.model);
            let b = fit_classes(&l, &copy, &y, 2).map(|f| f.model);
            prop_assert_eq!(a.ok(), b.ok(), "{}", l.name());
        }
    }

    #[test]
    fn parallel_folds_equal_sequential_folds((rows, classes, _) in data_set(), seed in any::<u64>()) {
        let x = matrix(&rows, 30);
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let target = Classes { names: &names, of_row: &classes };
        let splits = stratified_kfold(&classes, 3, seed).unwrap();
        for l in learners() {
            let l = rosenblatt::learn::Check::check(l).unwrap();
            let par = cross_validate(&l, &x, target, &splits);
            let seq = rosenblatt::experiment::run_splits_sequential(&splits, |_, s| {
                rosenblatt::experiment::score_split(&l, &x, target, s)
            });
            let acc = |r: rosenblatt::Result<Vec<rosenblatt::eval::Metrics>>| {
                r.map(|m| m.iter().map(|m| m.accuracy()).collect::<Vec<_>>()).ok()
            };
            prop_assert_eq!(acc(par), acc(seq), "{}", l.name());
        }
    }
}

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
        workers: None,
        threshold: None,
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
    let (data, _) = read_svmlight_files(std::slice::from_ref(&svm)).unwrap();
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
        workers: None,
        threshold: None,
    };
    let lib =
        training::cross_validate_rows(x, &idx, &classes, &cfg, &kfold(40, 5, 42).unwrap()).unwrap();
    assert_eq!(lib.iter().map(|m| m.accuracy()).collect::<Vec<_>>(), folds);
}
