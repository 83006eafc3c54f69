//! Fits on row views equal fits on copied rows, and parallel folds equal sequential
//! ones, for every learner over random sparse data (property tests).

use crate::experiment::{
    Classes, cross_validate, fit_classes, run_splits_sequential, score_split, stratified_kfold,
};
use crate::features::{
    BinaryMatrix, MatrixBuilder, RowSubset, SparseRows, real_from_dense, select_rows,
};
use crate::learn::{AnyLearner, Check};
use proptest::prelude::*;

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
            let l = Check::check(l).unwrap();
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
            let l = Check::check(l).unwrap();
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
            let l = Check::check(l).unwrap();
            let par = cross_validate(&l, &x, target, &splits);
            let seq = run_splits_sequential(&splits, |_, s| {
                score_split(&l, &x, target, s)
            });
            let acc = |r: crate::Result<Vec<crate::eval::Metrics>>| {
                r.map(|m| m.iter().map(|m| m.accuracy()).collect::<Vec<_>>()).ok()
            };
            prop_assert_eq!(acc(par), acc(seq), "{}", l.name());
        }
    }
}
