//! Multi-label thresholds tuned by cross-validation: scorers fitted on k − 1 folds score
//! the held-out fold, and each label gets the F1-best cut of its out-of-fold ranking —
//! what lets rare labels be predicted at all, since their scores rarely clear 0.
//!
//! `learn` fits the scorers and finds the best cut of a ranking; the fold loop that
//! produces the rankings lives here, over [`RowSubset`] views, folds in parallel.

use super::{kfold, run_splits};
use crate::Result;
use crate::error::{ConfigError, Param};
use crate::features::{RowSubset, SparseRows};
use crate::learn::compose::multilabel::{
    LabelScorer, MultiLabelOptions, Thresholds, best_threshold, fit_scorer, label_counts,
};
use crate::learn::{AnyLearner, Checked, Fitted, MultiLabel, MultiLabelModel};

/// Fits a multi-label model: the scorer on all rows, thresholds as `opt` says.
pub(crate) fn fit_multilabel<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    sets: &[Vec<usize>],
    k: usize,
    opt: &MultiLabelOptions,
) -> Result<Fitted<MultiLabelModel>> {
    MultiLabel::new(sets, k).check(x)?;
    let full = fit_scorer(learner, x, sets, k)?;
    let thresholds = tune_thresholds(learner, x, sets, &full.model, opt)?;
    Ok(Fitted {
        model: MultiLabelModel {
            scorer: full.model,
            thresholds,
            train_counts: label_counts(sets, k),
            at_least_one: opt.at_least_one,
        },
        report: full.report,
    })
}

/// Per-label thresholds for a fitted `scorer` as `opt` says: its default, or the F1-best
/// cut of out-of-fold scores from scorers fitted like it on k − 1 seeded folds (a label
/// whose best F1 stays below `min_f1` keeps the default).
pub(crate) fn tune_thresholds<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    sets: &[Vec<usize>],
    scorer: &LabelScorer,
    opt: &MultiLabelOptions,
) -> Result<Vec<f32>> {
    let k = scorer.len();
    MultiLabel::new(sets, k).check(x)?;
    let mut thresholds = vec![scorer.default_threshold(); k];
    let Thresholds::CrossValidated {
        folds,
        seed,
        min_f1,
    } = opt.thresholds
    else {
        return Ok(thresholds);
    };
    let folds = match folds {
        MultiLabelOptions::FOLDS => MultiLabelOptions::folds_for(learner, x.n_rows()),
        given => given,
    };
    if folds < 2 || folds > x.n_rows() {
        return Err(ConfigError::new(
            Param::ThresholdFolds,
            folds,
            format!("must be between 2 and the number of rows, {}", x.n_rows()),
        )
        .into());
    }
    let splits = kfold(x.n_rows(), folds, seed)?;
    let per_fold = run_splits(&splits, |_, s| {
        let train = RowSubset::new(x, &s.train);
        let train_sets: Vec<Vec<usize>> = s.train.iter().map(|&i| sets[i].clone()).collect();
        let scorer = fit_scorer(learner, &train, &train_sets, k)?.model;
        Ok(s.test
            .iter()
            .map(|&i| scorer.scores(x.row(i)))
            .collect::<Vec<_>>())
    })?;
    let mut oof: Vec<Vec<f32>> = vec![Vec::new(); x.n_rows()];
    for (s, scores) in splits.iter().zip(per_fold) {
        for (&i, row_scores) in s.test.iter().zip(scores) {
            oof[i] = row_scores;
        }
    }
    for (c, t) in thresholds.iter_mut().enumerate() {
        let mut pairs: Vec<(f32, bool)> = oof
            .iter()
            .zip(sets)
            .map(|(s, set)| (s[c], set.contains(&c)))
            .collect();
        if let Some((best, f1)) = best_threshold(&mut pairs)
            && f1 >= min_f1
        {
            *t = best;
        }
    }
    Ok(thresholds)
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // indices name rows
mod tests {
    use super::*;
    use crate::features::real_from_dense;
    use crate::learn::{AveragedPerceptron, Check};

    #[test]
    fn several_labels_per_row_and_tuned_thresholds() {
        // Feature j signals label j; row 3 carries labels 0 and 1.
        let rows: Vec<Vec<f32>> = (0..40)
            .map(|i| match i % 4 {
                0 => vec![1.0, 0.0, 0.0, 1.0],
                1 => vec![0.0, 1.0, 0.0, 1.0],
                2 => vec![0.0, 0.0, 1.0, 1.0],
                _ => vec![1.0, 1.0, 0.0, 1.0],
            })
            .collect();
        let sets: Vec<Vec<usize>> = (0..40)
            .map(|i| match i % 4 {
                0 => vec![0],
                1 => vec![1],
                2 => vec![2],
                _ => vec![0, 1],
            })
            .collect();
        let x = real_from_dense(&rows);
        let learner = AnyLearner::AveragedPerceptron(AveragedPerceptron::default())
            .check()
            .unwrap();
        let m = fit_multilabel(&learner, &x, &sets, 3, &MultiLabelOptions::default())
            .unwrap()
            .model;
        assert_eq!(m.train_counts, vec![20, 20, 10]);
        for i in 0..4 {
            let mut got: Vec<usize> = m.labels(x.row(i)).iter().map(|l| l.0).collect();
            got.sort_unstable();
            assert_eq!(got, sets[i], "row {i}");
        }
        assert!(fit_multilabel(&learner, &x, &sets, 2, &MultiLabelOptions::default()).is_err());
        let too_many = MultiLabelOptions {
            thresholds: Thresholds::CrossValidated {
                folds: 41,
                seed: 0,
                min_f1: 0.3,
            },
            ..MultiLabelOptions::default()
        };
        assert!(fit_multilabel(&learner, &x, &sets, 3, &too_many).is_err());
    }

    #[test]
    fn parallel_threshold_folds_equal_a_sequential_loop() {
        let (x, y) = crate::features::synthetic::zipf_rows(400, 300, 20, 3);
        let sets: Vec<Vec<usize>> = (0..400)
            .map(|i| {
                let mut s = vec![];
                if y[i] > 0 {
                    s.push(0);
                }
                if x.row(i).ids.contains(&1) {
                    s.push(1);
                }
                s
            })
            .collect();
        let learner = AnyLearner::AveragedPerceptron(AveragedPerceptron::default())
            .check()
            .unwrap();
        let (folds, seed, min_f1) = (5, 42, 0.3);
        let opt = MultiLabelOptions {
            thresholds: Thresholds::CrossValidated {
                folds,
                seed,
                min_f1,
            },
            at_least_one: true,
        };
        let scorer = fit_scorer(&learner, &x, &sets, 2).unwrap().model;
        let tuned = tune_thresholds(&learner, &x, &sets, &scorer, &opt).unwrap();
        // The same folds, one after another, on copied training rows.
        let mut oof = vec![Vec::new(); 400];
        for s in kfold(400, folds, seed).unwrap() {
            let copy = crate::features::select_rows(&x, &s.train);
            let sub: Vec<Vec<usize>> = s.train.iter().map(|&i| sets[i].clone()).collect();
            let m = fit_scorer(&learner, &copy, &sub, 2).unwrap().model;
            for &i in &s.test {
                oof[i] = m.scores(x.row(i));
            }
        }
        for c in 0..2 {
            let mut pairs: Vec<(f32, bool)> = (0..400)
                .map(|i| (oof[i][c], sets[i].contains(&c)))
                .collect();
            let expect = best_threshold(&mut pairs)
                .filter(|b| b.1 >= min_f1)
                .map_or(0.0, |b| b.0);
            assert_eq!(tuned[c], expect, "label {c}");
        }
    }
}
