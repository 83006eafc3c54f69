//! A two-class model's probability from out-of-fold scores: each training row scored by
//! a model fitted on the other folds, then [`Calibration::fit`] (Platt scaling) on those
//! scores. Scores of the rows a model was fitted on are too confident (a perceptron
//! separates its own training set), so only rows a fold did not see count.

use super::{Split, fold_scores, run_splits, stratified_kfold};
use crate::Result;
use crate::features::SparseRows;
use crate::learn::{AnyLearner, Calibration, Checked};

/// Folds of the calibration: five, or fewer when a class has fewer training rows.
pub(crate) const CALIBRATION_FOLDS: usize = 5;
/// The seed of the calibration's folds (the learner keeps its own seed).
const FOLD_SEED: u64 = 42;

/// The Platt calibration of `learner` on rows `x` of two classes (`classes[i]` is 0 or
/// 1, 1 the positive class), from the out-of-fold scores of [`CALIBRATION_FOLDS`]
/// stratified folds fitted in parallel. `None` when a class has fewer than two rows, or
/// when the scores do not rank the classes (see [`Calibration::fit`]).
pub(crate) fn calibrate<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    classes: &[usize],
) -> Result<Option<Calibration>> {
    let positives = classes.iter().filter(|&&c| c == 1).count();
    let folds = CALIBRATION_FOLDS
        .min(positives)
        .min(classes.len() - positives);
    if folds < 2 {
        return Ok(None);
    }
    let splits = stratified_kfold(classes, folds, FOLD_SEED)?;
    let scored = run_splits(&splits, |_, s: &Split| {
        let scores = fold_scores(learner, x, classes, s)?;
        Ok(s.test.iter().copied().zip(scores).collect::<Vec<_>>())
    })?;
    let mut scores = vec![0f32; classes.len()];
    for (i, s) in scored.into_iter().flatten() {
        scores[i] = s;
    }
    let positive: Vec<bool> = classes.iter().map(|&c| c == 1).collect();
    Ok(Calibration::fit(&scores, &positive))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::fit_classes;
    use crate::features::RowSubset;
    use crate::features::synthetic::zipf_rows;
    use crate::learn::{AnyLearner, Check};

    /// On noisy synthetic rows the calibrated probability is honest: of the rows a model
    /// (fitted on other rows) gives P ≈ p, about p are positive.
    #[test]
    fn probabilities_match_frequencies_on_unseen_rows() {
        let (x, y) = zipf_rows(3000, 2000, 20, 11);
        let classes: Vec<usize> = y.iter().map(|&l| usize::from(l > 0)).collect();
        let learner = AnyLearner::default().check().unwrap();
        let (fit_rows, held): (Vec<usize>, Vec<usize>) = (0..3000).partition(|i| i % 3 != 0);
        let train = RowSubset::new(&x, &fit_rows);
        let of = |rows: &[usize]| rows.iter().map(|&i| classes[i]).collect::<Vec<_>>();
        let cal = calibrate(&learner, &train, &of(&fit_rows))
            .unwrap()
            .unwrap();
        let model = fit_classes(&learner, &train, &of(&fit_rows), 2)
            .unwrap()
            .model;
        let test = RowSubset::new(&x, &held);
        let (mut expected, mut observed) = (0.0, 0.0);
        for (k, &i) in held.iter().enumerate() {
            expected += f64::from(cal.probability(model.decide(test.row(k)).score));
            observed += classes[i] as f64;
        }
        // The predicted number of positives is within 5% of the true one.
        assert!(
            (expected - observed).abs() < 0.05 * observed,
            "{expected} vs {observed}"
        );
    }

    #[test]
    fn a_class_of_one_row_is_not_calibrated() {
        let (x, _) = zipf_rows(10, 50, 5, 1);
        let mut classes = vec![0; 10];
        classes[3] = 1;
        let learner = AnyLearner::default().check().unwrap();
        assert_eq!(calibrate(&learner, &x, &classes).unwrap(), None);
    }
}
