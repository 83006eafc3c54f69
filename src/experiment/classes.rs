//! Single-label targets: a learner fitted on the class of every row, and a split scored —
//! the unit of work that holdout and every cross-validation fold run.
//!
//! Two classes make one binary problem (positive: the second class); more make one
//! binary problem per class (one-vs-rest, in parallel), or one softmax model. Folds fit
//! on [`RowSubset`] views of the one matrix, so nothing is copied or re-vectorized.

use super::{Split, run_folds};
use crate::Result;
use crate::eval::Metrics;
use crate::features::{RowSubset, SparseRows};
use crate::learn::{AnyLearner, Checked, Fitted, LabelScorer, Learner, Multiclass, Predictor};
use rayon::prelude::*;

/// The class of every row of a matrix: row `i` belongs to `names[of_row[i]]`. With two
/// classes, `names[1]` is the positive one.
#[derive(Debug, Clone, Copy)]
pub struct Classes<'a> {
    /// The class names, in index order.
    pub names: &'a [String],
    /// Each row's class index.
    pub of_row: &'a [usize],
}

impl Classes<'_> {
    fn of(&self, rows: &[usize]) -> Vec<usize> {
        rows.iter().map(|&i| self.of_row[i]).collect()
    }
}

/// Fits `learner` on rows `x` whose classes are `classes` (indices below `k`): a binary
/// model for two classes, else one-vs-rest (softmax: one model over all classes).
pub(crate) fn fit_classes<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    classes: &[usize],
    k: usize,
) -> Result<Fitted<Predictor>> {
    let target = Multiclass::new(classes, k);
    if k == 2 {
        target.check(x)?;
        let f = learner.fit(x, &target.one_vs_rest(1)[..])?;
        return Ok(Fitted {
            model: Predictor::Binary(f.model),
            report: f.report,
        });
    }
    let f = learner.fit(x, &target)?;
    Ok(Fitted {
        model: match f.model {
            LabelScorer::OneVsRest(ms) => Predictor::OneVsRest(ms),
            LabelScorer::Softmax(m) => Predictor::Softmax(m),
        },
        report: f.report,
    })
}

/// The scores of `split`'s test rows by a two-class model fitted on its training rows
/// (`of_row[i]` is row i's class, 0 or 1): a fold's out-of-fold scores, as calibration and
/// ranking take them.
pub(crate) fn fold_scores<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    of_row: &[usize],
    split: &Split,
) -> Result<Vec<f32>> {
    let classes: Vec<usize> = split.train.iter().map(|&i| of_row[i]).collect();
    let train = RowSubset::new(x, &split.train);
    let model = fit_classes(learner, &train, &classes, 2)?.model;
    let test = RowSubset::new(x, &split.test);
    Ok((0..test.n_rows())
        .map(|i| model.decide(test.row(i)).score)
        .collect())
}

/// The decided class of every row, in parallel, in row order.
pub(crate) fn predict_classes<X: SparseRows>(model: &Predictor, x: &X) -> Vec<usize> {
    (0..x.n_rows())
        .into_par_iter()
        .map(|i| model.decide(x.row(i)).class)
        .collect()
}

/// Fits `learner` on the split's training rows of `x` and scores its test rows.
pub(crate) fn score_split<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    classes: Classes<'_>,
    split: &Split,
) -> Result<Metrics> {
    let k = classes.names.len();
    let train = RowSubset::new(x, &split.train);
    let model = fit_classes(learner, &train, &classes.of(&split.train), k)?.model;
    let predicted = predict_classes(&model, &RowSubset::new(x, &split.test));
    Ok(Metrics::new(
        classes.names.to_vec(),
        &classes.of(&split.test),
        &predicted,
    ))
}

/// Cross-validates `learner`: every split fitted on its training rows and scored on its
/// test rows, folds in parallel, results in fold order (equal to a sequential run). A data error names the
/// fold (1-based) it happened in.
pub fn cross_validate<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    classes: Classes<'_>,
    splits: &[Split],
) -> Result<Vec<Metrics>> {
    run_folds(splits, |_, s| score_split(learner, x, classes, s))
}

/// How many rows of `x` (already read in the predictor's geometry) get exactly their
/// label set in `sets`: the training accuracy of a multi-label model.
pub(crate) fn exact_label_sets<X: SparseRows>(
    predictor: &Predictor,
    x: &X,
    sets: &[Vec<usize>],
) -> usize {
    labels_of(predictor, x)
        .iter()
        .zip(sets)
        .filter(|(p, t)| {
            let mut p: Vec<usize> = p.iter().map(|l| l.0).collect();
            let mut t = (*t).clone();
            p.sort_unstable();
            t.sort_unstable();
            p == t
        })
        .count()
}

/// The labels of every row as given (already read in the predictor's geometry), every
/// class of a row scored in one pass where the predictor allows it.
fn labels_of<X: SparseRows>(predictor: &Predictor, x: &X) -> Vec<Vec<(usize, f32)>> {
    let block = predictor.class_block();
    (0..x.n_rows())
        .into_par_iter()
        .map(|i| predictor.labels(x.row(i), block.as_ref()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::{kfold, run_splits_sequential, stratified_kfold};
    use crate::features::synthetic::zipf_rows;
    use crate::learn::{AveragedPerceptron, Check, LogisticRegression, Perceptron};

    fn names(k: usize) -> Vec<String> {
        (0..k).map(|c| format!("c{c}")).collect()
    }

    #[test]
    fn parallel_folds_equal_sequential_folds() {
        let (x, y) = zipf_rows(600, 2000, 30, 5);
        // Three classes: the binary label split again by a column.
        let of_row: Vec<usize> = (0..600)
            .map(|i| usize::from(y[i] > 0) + usize::from(x.row(i).ids.contains(&0)))
            .collect();
        let names = names(3);
        let classes = Classes {
            names: &names,
            of_row: &of_row,
        };
        let learners = [
            AnyLearner::Perceptron(Perceptron::default()),
            AnyLearner::AveragedPerceptron(AveragedPerceptron::default()),
            AnyLearner::Logistic(LogisticRegression::default()),
        ]
        .map(|l| l.check().unwrap());
        let splits = stratified_kfold(&of_row, 5, 11).unwrap();
        for l in &learners {
            let par = cross_validate(l, &x, classes, &splits).unwrap();
            let seq =
                run_splits_sequential(&splits, |_, s| score_split(l, &x, classes, s)).unwrap();
            let acc = |m: &[Metrics]| m.iter().map(Metrics::accuracy).collect::<Vec<_>>();
            assert_eq!(acc(&par), acc(&seq), "{}", l.name());
            assert!(
                acc(&par).iter().all(|&a| a > 0.4),
                "{}: {:?}",
                l.name(),
                acc(&par)
            );
        }
    }

    #[test]
    fn a_fold_fits_what_a_copied_training_part_fits() {
        let (x, y) = zipf_rows(300, 500, 20, 9);
        let of_row: Vec<usize> = y.iter().map(|&l| usize::from(l > 0)).collect();
        let learner = AnyLearner::AveragedPerceptron(AveragedPerceptron::default())
            .check()
            .unwrap();
        let split = &kfold(300, 3, 2).unwrap()[1];
        let view = fit_classes(
            &learner,
            &RowSubset::new(&x, &split.train),
            &split.train.iter().map(|&i| of_row[i]).collect::<Vec<_>>(),
            2,
        )
        .unwrap();
        let copy = fit_classes(
            &learner,
            &crate::features::select_rows(&x, &split.train),
            &split.train.iter().map(|&i| of_row[i]).collect::<Vec<_>>(),
            2,
        )
        .unwrap();
        assert_eq!(view.model, copy.model);
        assert_eq!(view.report, copy.report);
    }

    #[test]
    fn a_data_error_names_its_fold() {
        let (x, _) = zipf_rows(10, 50, 5, 1);
        let names = names(2);
        let of_row = vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1];
        let classes = Classes {
            names: &names,
            of_row: &of_row,
        };
        let mut splits = kfold(10, 2, 0).unwrap();
        splits[1].train.clear();
        let learner = AnyLearner::Perceptron(Perceptron::default())
            .check()
            .unwrap();
        let err = cross_validate(&learner, &x, classes, &splits).unwrap_err();
        assert!(err.to_string().starts_with("fold 2: "), "{err}");
        assert!(fit_classes(&learner, &x, &[0, 2], 2).is_err());
    }
}
