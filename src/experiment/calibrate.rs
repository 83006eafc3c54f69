//! A two-class model's probability from out-of-fold scores: each training row scored by
//! a model fitted on the other folds, then [`Calibration::fit`] (Platt scaling) on those
//! scores. Scores of the rows a model was fitted on are too confident (a perceptron
//! separates its own training set), so only rows a fold did not see count. The additive
//! online learners fit every fold's model in one pass over the rows per epoch, beside
//! the model's own fit ([`fit_calibrated`]).

use super::{Split, fit_classes, fold_scores, run_splits, stratified_kfold};
use crate::Result;
use crate::features::SparseRows;
use crate::learn::compose::ovr_online::fit_online_folds;
use crate::learn::{AnyLearner, Calibration, Checked, Classifier, Fitted, Multiclass, Predictor};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// Folds of the calibration: five, or fewer when a class has fewer training rows.
pub(crate) const CALIBRATION_FOLDS: usize = 5;
/// The seed of the calibration's folds (the learner keeps its own seed).
const FOLD_SEED: u64 = 42;
/// Rows from which the additive online learners fit the calibration's fold models in
/// one pass: where the folds' passes cost seconds. Below it all five folds take a
/// fraction of a second, and each is fitted apart, shuffled in its own order, so that the
/// models of small corpora (mail folders, the opinion corpora) keep their calibration.
pub(crate) const ONE_PASS_FROM: usize = 20_000;

/// The Platt calibration of `learner` on rows `x` of two classes (`classes[i]` is 0 or
/// 1, 1 the positive class), from the out-of-fold scores of [`CALIBRATION_FOLDS`]
/// stratified folds fitted in parallel. `None` when a class has fewer than two rows, or
/// when the scores do not rank the classes (see [`Calibration::fit`]).
pub(crate) fn calibrate<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    classes: &[usize],
) -> Result<Option<Calibration>> {
    let folds = folds_for(classes);
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

/// The calibration's folds for rows of `classes`: [`CALIBRATION_FOLDS`], or fewer when a
/// class has fewer rows (under 2: no calibration).
fn folds_for(classes: &[usize]) -> usize {
    let positives = classes.iter().filter(|&&c| c == 1).count();
    CALIBRATION_FOLDS
        .min(positives)
        .min(classes.len() - positives)
}

/// The two-class model of `learner` on rows `x` (`classes[i]` is 0 or 1) with its
/// calibration, as [`fit_classes`] and [`calibrate`] give them. For the additive online
/// learners on [`ONE_PASS_FROM`] rows or more, the calibration's fold models are fitted
/// together, one pass over the rows per epoch for all of them ([`fit_online_folds`]),
/// while the model is fitted beside them: the same model and the same folds, each fold
/// model meeting its rows in the order the model meets them rather than in a shuffle of
/// its own.
pub(crate) fn fit_calibrated<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    classes: &[usize],
) -> Result<Calibrated> {
    let fit = || {
        let start = Instant::now();
        fit_classes(learner, x, classes, 2).map(|f| (f, start.elapsed()))
    };
    let folds = folds_for(classes);
    let one_pass = folds >= 2 && classes.len() >= ONE_PASS_FROM;
    let Some((opt, rule)) = learner.online_rule().filter(|_| one_pass) else {
        let (fitted, fitting) = fit()?;
        let calibration = calibrate(learner, x, classes)?;
        return Ok(Calibrated {
            fitted,
            fitting,
            calibration,
        });
    };
    let mut fold_of_row = vec![0u8; classes.len()];
    for (f, s) in stratified_kfold(classes, folds, FOLD_SEED)?
        .iter()
        .enumerate()
    {
        for &i in &s.test {
            fold_of_row[i] = f as u8;
        }
    }
    let y = Multiclass::new(classes, 2).one_vs_rest(1);
    let (fitted, fold_models) = rayon::join(fit, || {
        fit_online_folds(x, &y, &fold_of_row, folds as u8, &opt, rule)
    });
    let ((fitted, fitting), fold_models) = (fitted?, fold_models?);
    let scores: Vec<f32> = (0..x.n_rows())
        .into_par_iter()
        .map(|i| {
            fold_models[usize::from(fold_of_row[i])]
                .model
                .score(x.row(i))
        })
        .collect();
    let positive: Vec<bool> = classes.iter().map(|&c| c == 1).collect();
    Ok(Calibrated {
        fitted,
        fitting,
        calibration: Calibration::fit(&scores, &positive),
    })
}

/// A two-class model with its calibration, as [`fit_calibrated`] gives them.
pub(crate) struct Calibrated {
    /// The model of every row.
    pub fitted: Fitted<Predictor>,
    /// How long the model's own fit took (the calibration's folds not counted).
    pub fitting: Duration,
    /// Its calibration; `None` where [`calibrate`] gives none.
    pub calibration: Option<Calibration>,
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

    /// From `ONE_PASS_FROM` rows the model fitted beside the one-pass fold models is the
    /// model `fit_classes` fits, bit for bit, and the calibration is the one the folds
    /// fitted apart give, up to the fold models' visiting order; below it both are the
    /// same bits as fitting, then calibrating.
    #[test]
    fn one_pass_folds_calibrate_as_folds_fitted_apart() {
        let learner = AnyLearner::default().check().unwrap();
        for n in [ONE_PASS_FROM - 1, ONE_PASS_FROM] {
            let (x, y) = zipf_rows(n, 3000, 12, 5);
            let w = crate::features::Geometry::fit(crate::features::GeometrySpec::IDF_L2, &x);
            let x = w.apply(&x);
            let classes: Vec<usize> = y.iter().map(|&l| usize::from(l > 0)).collect();
            let Calibrated {
                fitted,
                calibration: one_pass,
                ..
            } = fit_calibrated(&learner, &x, &classes).unwrap();
            let alone = fit_classes(&learner, &x, &classes, 2).unwrap();
            assert_eq!(fitted.model, alone.model, "{n} rows");
            let apart = calibrate(&learner, &x, &classes).unwrap().unwrap();
            let one_pass = one_pass.unwrap();
            if n < ONE_PASS_FROM {
                assert_eq!(one_pass, apart);
                continue;
            }
            assert_ne!(one_pass, apart);
            for score in [-2.0f32, -1.0, -0.3, 0.0, 0.3, 1.0, 2.0] {
                let (p, q) = (one_pass.probability(score), apart.probability(score));
                assert!((p - q).abs() < 0.02, "score {score}: {p} vs {q}");
            }
        }
    }
}
