//! Tuning: the default grid's order and flags, the winner against `cross_validate`, a
//! spent budget, multi-label scoring, and fixed dimensions.

use super::*;
use crate::experiment::{Classes, LabelSets, cross_validate, stratified_kfold};
use crate::features::synthetic::zipf_rows;
use crate::features::{Geometry, GeometrySpec, Normalize, TermCounts, Weighting};
use crate::learn::AnyLearner;
use std::time::Duration;

/// The default grid's points over rows that have no words to count: binary rows only.
fn default_points() -> Vec<GridPoint> {
    let grid = Grid {
        counts: vec![TermCounts::Binary],
        ..Grid::default()
    };
    grid.points()
        .iter()
        .map(|p| p.with_defaults().unwrap())
        .collect()
}

#[test]
fn the_default_grid_runs_cheap_points_first_and_spells_their_flags() {
    let points = default_points();
    assert_eq!(points.len(), 24);
    let flags: Vec<String> = points.iter().map(GridPoint::flags).collect();
    assert_eq!(
        flags[0],
        "--learner averaged-perceptron --epochs 5 --weighting binary --normalize none"
    );
    assert_eq!(
        flags[1],
        "--learner averaged-perceptron --epochs 5 --weighting binary --normalize l2"
    );
    assert_eq!(
        flags[2],
        "--learner averaged-perceptron --epochs 5 --weighting idf --normalize l2"
    );
    assert_eq!(
        flags[6],
        "--learner pa --average --pa-c 0.1 --weighting binary --normalize none"
    );
    assert_eq!(
        flags[17],
        "--learner logistic --l2 0.0001 --weighting idf --normalize l2"
    );
    let AnyLearner::PassiveAggressive(p) = &*points[6].learner else {
        panic!("pa expected");
    };
    assert_eq!((p.c, p.online.average), (0.1, true));
    assert_eq!(
        flags[23],
        "--learner svm --svm-c 3 --weighting idf --normalize l2"
    );
    let AnyLearner::Svm(s) = &*points[23].learner else {
        panic!("svm expected");
    };
    assert_eq!(s.c, 3.0);
}

#[test]
fn the_default_grid_tries_sublinear_counts_on_idf_weighted_unit_length_rows() {
    let points = Grid::default().points();
    assert_eq!(points.len(), 32);
    let counted: Vec<&PointSpec> = points.iter().filter(|p| p.counts.counted()).collect();
    assert_eq!(counted.len(), 8, "one a learner choice");
    assert!(counted.iter().all(|p| p.geometry == GeometrySpec::IDF_L2));
    let last = points[23].with_defaults().unwrap();
    assert_eq!(
        last.flags(),
        "--learner logistic --l2 0.0001 --weighting idf --normalize l2 --term-counts sublinear"
    );
    // The linear SVM costs as much as logistic regression, and comes after it.
    let last = points[31].with_defaults().unwrap();
    assert_eq!(
        last.flags(),
        "--learner svm --svm-c 3 --weighting idf --normalize l2 --term-counts sublinear"
    );
    // Counts fixed by flag are tried with every geometry.
    let fixed = Grid {
        counts: vec![TermCounts::Sublinear],
        ..Grid::default()
    };
    assert_eq!(fixed.points().len(), 24);
    assert!(
        fixed
            .points()
            .iter()
            .all(|p| p.counts == TermCounts::Sublinear)
    );
}

#[test]
fn the_winner_has_the_best_mean_as_cross_validate_computes_it() {
    let (x, y) = zipf_rows(400, 600, 20, 3);
    let of_row: Vec<usize> = y.iter().map(|&l| usize::from(l > 0)).collect();
    let names = ["no".to_string(), "yes".to_string()];
    let classes = Classes {
        names: &names,
        of_row: &of_row,
    };
    let points = default_points();
    let opt = TuneOptions::default();
    let table = tune_rows(&x, Target::Classes(classes), &points, opt, &|_| {}).unwrap();
    assert_eq!(table.evaluated(), 24);
    assert_eq!(table.documents, 400);
    let means: Vec<f64> = table
        .rows
        .iter()
        .map(|r| r.result.as_ref().unwrap().mean)
        .collect();
    let top = means.iter().cloned().fold(f64::MIN, f64::max);
    assert_eq!(means[table.best], top);
    assert!(
        means[..table.best].iter().all(|&m| m < top),
        "ties go to the earlier row"
    );
    // The same figure, independently: the best point through `cross_validate`.
    let p = &points[table.best];
    let splits = stratified_kfold(&of_row, 5, 42).unwrap();
    let g = Geometry::fit(p.spec.geometry, &x);
    let m = cross_validate(&p.learner, &g.apply(&x), classes, &splits).unwrap();
    let accs: Vec<f64> = m.iter().map(|m| m.accuracy()).collect();
    assert_eq!(table.winner().result.as_ref().unwrap().folds, accs);
}

#[test]
fn a_spent_budget_skips_the_rest_after_the_first_batch() {
    let (x, y) = zipf_rows(200, 300, 10, 4);
    let of_row: Vec<usize> = y.iter().map(|&l| usize::from(l > 0)).collect();
    let names = ["no".to_string(), "yes".to_string()];
    let target = Target::Classes(Classes {
        names: &names,
        of_row: &of_row,
    });
    let opt = TuneOptions {
        budget: Some(Duration::ZERO),
        ..TuneOptions::default()
    };
    let seen = std::sync::Mutex::new(Vec::new());
    let table = tune_rows(&x, target, &default_points(), opt, &|p| {
        seen.lock().unwrap().push(*p)
    })
    .unwrap();
    let done = table.evaluated();
    assert!((1..24).contains(&done), "{done} points done");
    assert!(table.rows[done..].iter().all(|r| r.result.is_none()));
    assert!(table.best < done);
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].done, seen[0].total), (done, 24));
}

#[test]
fn multi_label_rows_are_scored_by_micro_f1() {
    let (x, y) = zipf_rows(300, 300, 20, 8);
    let sets = crate::features::synthetic::two_label_sets(&x, &y);
    let names = vec!["a".to_string(), "b".to_string()];
    let target = Target::Labels(LabelSets {
        names: &names,
        of_row: &sets,
    });
    let points: Vec<GridPoint> = default_points().into_iter().take(2).collect();
    let table = tune_rows(&x, target, &points, TuneOptions::default(), &|_| {}).unwrap();
    assert_eq!(table.score, Score::MicroF1);
    let r = table.winner().result.as_ref().unwrap();
    assert!(r.mean > 0.5 && r.mean <= 1.0, "{r:?}");
    assert!(table.thresholds.as_deref().unwrap().contains("quarter"));
}

#[test]
fn fixed_dimensions_shrink_the_grid() {
    let g = Grid::geometries_with(Some(Weighting::Idf), None);
    assert_eq!(g.len(), 2);
    assert!(g.iter().all(|s| s.weighting == Weighting::Idf));
    assert_eq!(
        Grid::geometries_with(Some(Weighting::Binary), Some(Normalize::L2)).len(),
        1
    );
    assert_eq!(LearnerChoice::defaults_for("winnow", false).len(), 1);
    assert!(
        TuneRun::new(
            Target::Classes(Classes {
                names: &["a".into(), "b".into()],
                of_row: &[0, 1, 0, 1]
            }),
            1,
            TuneOptions {
                folds: 1,
                ..TuneOptions::default()
            },
            &|_| {}
        )
        .is_err()
    );
}
