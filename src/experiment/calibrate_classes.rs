//! A one-vs-rest model's probabilities from out-of-fold scores: each training row scored
//! by every class's model fitted on the other folds (five stratified folds fitted in
//! parallel, as a two-class model's calibration is), then one Platt sigmoid per class
//! ([`ClassCalibration::fit`]). Scores of rows a model was fitted on are too confident,
//! so only rows a fold did not see count.

use super::{Split, fit_classes, run_splits, stratified_kfold};
use crate::Result;
use crate::features::{RowSubset, SparseRows};
use crate::learn::{AnyLearner, Checked, ClassCalibration};
use rayon::prelude::*;

use super::calibrate::CALIBRATION_FOLDS;
/// The seed of the calibration's folds (the learner keeps its own seed).
const FOLD_SEED: u64 = 42;

/// The per-class calibration of `learner`'s one-vs-rest model of `k` classes on rows `x`
/// (`classes[i]` the class of row i), from the out-of-fold scores of
/// [`CALIBRATION_FOLDS`] stratified folds. `None` when there are too few rows to fold
/// or the scores do not rank the classes (see [`ClassCalibration::fit`]).
pub(crate) fn calibrate_classes<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    classes: &[usize],
    k: usize,
) -> Result<Option<ClassCalibration>> {
    let folds = CALIBRATION_FOLDS.min(classes.len());
    if folds < 2 {
        return Ok(None);
    }
    let splits = stratified_kfold(classes, folds, FOLD_SEED)?;
    let scored = run_splits(&splits, |_, s: &Split| {
        let of: Vec<usize> = s.train.iter().map(|&i| classes[i]).collect();
        let train = RowSubset::new(x, &s.train);
        let model = fit_classes(learner, &train, &of, k)?.model;
        let test = RowSubset::new(x, &s.test);
        let scores: Vec<Vec<f32>> = (0..test.n_rows())
            .into_par_iter()
            .map(|i| model.scores(test.row(i)))
            .collect();
        Ok(s.test.iter().copied().zip(scores).collect::<Vec<_>>())
    })?;
    let mut scores = vec![0f32; classes.len() * k];
    for (i, s) in scored.into_iter().flatten() {
        scores[i * k..(i + 1) * k].copy_from_slice(&s);
    }
    Ok(ClassCalibration::fit(&scores, classes, k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::synthetic::zipf_rows;
    use crate::learn::Check;

    /// Three classes of synthetic rows: every class is calibrated on its own, and on
    /// rows the model never saw the normalised probabilities predict about as many rows
    /// of each class as there are.
    #[test]
    fn probabilities_match_frequencies_on_unseen_rows() {
        let (x, _) = zipf_rows(3000, 2000, 20, 3);
        // The class of a row: which of three word ranges holds most of its nonzeros.
        let classes: Vec<usize> = (0..3000)
            .map(|i| {
                let mut n = [0usize; 3];
                for &j in x.row(i).ids {
                    n[(j as usize % 3).min(2)] += 1;
                }
                (0..3).max_by_key(|&c| (n[c], c)).unwrap()
            })
            .collect();
        let learner = AnyLearner::default().check().unwrap();
        let (fit_rows, held): (Vec<usize>, Vec<usize>) = (0..3000).partition(|i| i % 3 != 0);
        let train = RowSubset::new(&x, &fit_rows);
        let of = |rows: &[usize]| rows.iter().map(|&i| classes[i]).collect::<Vec<_>>();
        let cal = calibrate_classes(&learner, &train, &of(&fit_rows), 3)
            .unwrap()
            .unwrap();
        assert_eq!(cal.pooled, 0);
        let model = fit_classes(&learner, &train, &of(&fit_rows), 3)
            .unwrap()
            .model;
        let test = RowSubset::new(&x, &held);
        let mut expected = [0f64; 3];
        let mut observed = [0f64; 3];
        for (r, &i) in held.iter().enumerate() {
            let p = cal.sigmoids(&model.scores(test.row(r)));
            let sum: f32 = p.iter().sum();
            for (e, p) in expected.iter_mut().zip(&p) {
                *e += f64::from(p / sum);
            }
            observed[classes[i]] += 1.0;
        }
        for (e, o) in expected.iter().zip(&observed) {
            assert!((e - o).abs() < 0.1 * o, "{expected:?} vs {observed:?}");
        }
    }
}
