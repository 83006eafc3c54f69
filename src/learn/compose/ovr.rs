//! One-vs-rest: one binary problem per class (class c against the rest), trained in
//! parallel with rayon; a row goes to the class with the largest discriminant (the seed
//! lecture's argmax). The same machinery trains the per-label models of multi-label
//! corpora, where a row may be positive for several classes. Softmax regression instead
//! fits one model over all classes. Both are what a checked [`AnyLearner`] fits to
//! [`Multiclass`] and [`MultiLabel`] targets.

use crate::Result;
use crate::features::SparseRows;
use crate::learn::{AnyLearner, AnyModel, Checked, Fitted, Label, LinearModel};
use crate::learn::{LabelScorer, Learner, MultiLabel, Multiclass, combine_reports};
use crate::learn::{SoftmaxModel, SoftmaxRegression};
use rayon::prelude::*;

/// One class per row: one binary model per class (in parallel), or one softmax model.
impl Learner<Multiclass<'_>> for Checked<AnyLearner> {
    type Model = LabelScorer;
    fn fit<X: SparseRows>(&self, x: &X, y: &Multiclass<'_>) -> Result<Fitted<LabelScorer>> {
        y.check(x)?;
        fit_scorer(self, x, y, y.k, |c| y.one_vs_rest(c))
    }
}

/// Label sets: one binary model per label (in parallel), or one softmax model over the
/// labels; thresholds are chosen apart (see `compose::multilabel`).
impl Learner<MultiLabel<'_>> for Checked<AnyLearner> {
    type Model = LabelScorer;
    fn fit<X: SparseRows>(&self, x: &X, y: &MultiLabel<'_>) -> Result<Fitted<LabelScorer>> {
        y.check(x)?;
        fit_scorer(self, x, y, y.k, |c| y.one_vs_rest(c))
    }
}

/// What both target kinds fit: one softmax model over the `k` classes, or one binary
/// model per class, `labels(c)` giving problem c's ±1 labels.
fn fit_scorer<X, T>(
    learner: &Checked<AnyLearner>,
    x: &X,
    y: &T,
    k: usize,
    labels: impl Fn(usize) -> Vec<Label> + Sync,
) -> Result<Fitted<LabelScorer>>
where
    X: SparseRows,
    Checked<SoftmaxRegression>: Learner<T, Model = SoftmaxModel>,
{
    if let AnyLearner::Softmax(s) = &**learner {
        let f = Checked::assume(*s).fit(x, y)?;
        return Ok(Fitted {
            model: LabelScorer::Softmax(f.model),
            report: f.report,
        });
    }
    let fits = fit_one_vs_rest(learner, x, k, labels)?;
    Ok(one_vs_rest_scorer(fits))
}

/// The binary models as one scorer, with their reports combined.
fn one_vs_rest_scorer(fits: Vec<Fitted<AnyModel>>) -> Fitted<LabelScorer> {
    let report = combine_reports(&fits.iter().map(|f| f.report.clone()).collect::<Vec<_>>());
    Fitted {
        model: LabelScorer::OneVsRest(fits.into_iter().map(|f| f.model).collect()),
        report,
    }
}

/// Fits `k` binary models in parallel; `labels(c)` gives the ±1 labels of problem c.
pub(crate) fn fit_one_vs_rest<X, F>(
    learner: &Checked<AnyLearner>,
    x: &X,
    k: usize,
    labels: F,
) -> Result<Vec<Fitted<AnyModel>>>
where
    X: SparseRows,
    F: Fn(usize) -> Vec<Label> + Sync,
{
    if let Some((opt, rule)) = learner.online_rule() {
        // All classes in one pass over the rows (same models as class by class).
        let ys: Vec<Vec<Label>> = (0..k).map(&labels).collect();
        let fits = super::ovr_online::fit_online_ovr(x, &ys, &opt, rule)?;
        return Ok(as_any(fits, AnyModel::Linear));
    }
    if let AnyLearner::Logistic(l) = &**learner
        && super::ovr_logistic::in_one_pass(l, x.n_rows(), k)
    {
        // The same, for logistic regression's gradient steps.
        let ys: Vec<Vec<Label>> = (0..k).map(&labels).collect();
        let fits = super::ovr_logistic::fit_logistic_ovr(x, &ys, l)?;
        return Ok(as_any(fits, AnyModel::Logistic));
    }
    (0..k)
        .into_par_iter()
        .map(|c| learner.fit(x, &labels(c)[..]))
        .collect()
}

/// Linear fits as the models a file holds (`AnyModel::Linear`, or `Logistic` for logits).
fn as_any(
    fits: Vec<Fitted<LinearModel>>,
    model: fn(LinearModel) -> AnyModel,
) -> Vec<Fitted<AnyModel>> {
    fits.into_iter()
        .map(|f| Fitted {
            model: model(f.model),
            report: f.report,
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // indices name rows and features
mod tests {
    use super::*;
    use crate::learn::Classifier;

    /// The class with the largest score, and that score (ties: the lower index).
    fn argmax(models: &[AnyModel], row: crate::features::RowRef<'_>) -> (usize, f32) {
        models
            .iter()
            .enumerate()
            .fold((0, f32::NEG_INFINITY), |best, (c, m)| {
                let s = m.score(row);
                if s > best.1 { (c, s) } else { best }
            })
    }

    use crate::features::{RowSubset, real_from_dense};
    use crate::learn::{
        AveragedPerceptron, Check, Learner, MarginPerceptron, OnlineOptions, PassiveAggressive,
    };

    #[test]
    fn parallel_problems_equal_sequential_fits_and_argmax_picks_the_class() {
        let x = real_from_dense(&[
            vec![1.0, 0.0, 0.0, 1.0],
            vec![0.0, 1.0, 0.0, 1.0],
            vec![0.0, 0.0, 1.0, 1.0],
            vec![1.0, 0.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0, 0.0],
            vec![0.0, 0.0, 1.0, 0.0],
        ]);
        let classes = [0, 1, 2, 0, 1, 2];
        let target = Multiclass::new(&classes, 3);
        let ap = AveragedPerceptron::default().check().unwrap();
        let learner = AnyLearner::AveragedPerceptron(*ap).check().unwrap();
        let LabelScorer::OneVsRest(models) = learner.fit(&x, &target).unwrap().model else {
            panic!("one-vs-rest expected");
        };
        for c in 0..3 {
            let alone = ap.fit(&x, &target.one_vs_rest(c)).unwrap().model;
            assert_eq!(models[c], AnyModel::Linear(alone));
        }
        // The joint pass of the other online learners equals their class-by-class fits.
        let online = OnlineOptions {
            epochs: 3,
            ..OnlineOptions::default()
        };
        let others = [
            AnyLearner::PassiveAggressive(PassiveAggressive { c: 0.5, online }),
            AnyLearner::MarginPerceptron(MarginPerceptron {
                tau: 1.0,
                eta: 0.5,
                online: OnlineOptions {
                    average: false,
                    ..online
                },
            }),
        ];
        for l in others {
            let l = l.check().unwrap();
            let joint = fit_one_vs_rest(&l, &x, 3, |c| target.one_vs_rest(c)).unwrap();
            for (c, f) in joint.iter().enumerate() {
                let alone = l.fit(&x, &target.one_vs_rest(c)[..]).unwrap();
                let (AnyModel::Linear(a), AnyModel::Linear(b)) = (&f.model, &alone.model) else {
                    panic!("linear models expected");
                };
                for (p, q) in a.w.iter().zip(&b.w) {
                    assert!((p - q).abs() < 1e-5, "{l:?} class {c}: {p} vs {q}");
                }
                assert!((a.bias - b.bias).abs() < 1e-5);
                if matches!(*l, AnyLearner::MarginPerceptron(_)) {
                    // Steps of 0.5 on 0/1 rows are exact: the same updates, in any order.
                    assert_eq!(f.report.updates, alone.report.updates);
                }
            }
        }
        for (i, &c) in classes.iter().enumerate() {
            assert_eq!(argmax(&models, x.row(i)).0, c);
        }
        let idx = [5, 0];
        let sub = RowSubset::new(&x, &idx);
        assert_eq!((sub.n_rows(), sub.nnz()), (2, 3));
        assert_eq!(sub.row(0).ids, &[2]);
        assert_eq!(
            MultiLabel::new(&[vec![0, 2], vec![1]], 3).one_vs_rest(2),
            vec![1, -1]
        );
    }
}
