//! One-vs-rest: one binary problem per class (class c against the rest), trained in
//! parallel with rayon; a row goes to the class with the largest discriminant (the seed
//! lecture's argmax). The same machinery trains the per-label models of multi-label
//! corpora, where a row may be positive for several classes.

use super::ovr_online::Rule;
use super::{AnyLearner, AnyModel, Classifier, Fitted, Label, OnlineOptions};
use crate::Result;
use crate::features::{RowRef, SparseRows};
use rayon::prelude::*;

/// Fits `k` binary models in parallel; `labels(c)` gives the ±1 labels of problem c.
pub fn fit_one_vs_rest<X, F>(
    learner: &AnyLearner,
    x: &X,
    k: usize,
    labels: F,
) -> Result<Vec<Fitted<AnyModel>>>
where
    X: SparseRows,
    F: Fn(usize) -> Vec<Label> + Sync,
{
    learner.validate()?;
    if let Some((opt, rule)) = online_rule(learner) {
        // All classes in one pass over the rows (same models as class by class).
        let ys: Vec<Vec<Label>> = (0..k).map(&labels).collect();
        let fits = super::ovr_online::fit_online_ovr(x, &ys, &opt, rule)?;
        return Ok(fits
            .into_iter()
            .map(|f| Fitted {
                model: AnyModel::Linear(f.model),
                report: f.report,
            })
            .collect());
    }
    (0..k)
        .into_par_iter()
        .map(|c| learner.fit(x, &labels(c)))
        .collect()
}

/// The online settings and step rule of the additive online learners.
fn online_rule(learner: &AnyLearner) -> Option<(OnlineOptions, Rule)> {
    match learner {
        AnyLearner::AveragedPerceptron(p) => Some((
            OnlineOptions {
                average: true,
                ..p.online
            },
            Rule::Perceptron,
        )),
        AnyLearner::MarginPerceptron(p) => Some((
            p.online,
            Rule::Margin {
                tau: p.tau,
                eta: p.eta,
            },
        )),
        AnyLearner::PassiveAggressive(p) => Some((p.online, Rule::PassiveAggressive { c: p.c })),
        _ => None,
    }
}

/// ±1 labels of problem `c` for single-label rows (`classes[i]` is row i's class).
pub fn single_label(classes: &[usize], c: usize) -> Vec<Label> {
    classes
        .iter()
        .map(|&i| if i == c { 1 } else { -1 })
        .collect()
}

/// ±1 labels of problem `c` for label sets.
pub fn multi_label(sets: &[Vec<usize>], c: usize) -> Vec<Label> {
    sets.iter()
        .map(|s| if s.contains(&c) { 1 } else { -1 })
        .collect()
}

/// The class with the largest score, and that score (ties: the lower index).
pub fn argmax(models: &[AnyModel], row: RowRef<'_>) -> (usize, f32) {
    models
        .iter()
        .enumerate()
        .fold((0, f32::NEG_INFINITY), |best, (c, m)| {
            let s = m.score(row);
            if s > best.1 { (c, s) } else { best }
        })
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // indices name rows and features
mod tests {
    use super::*;
    use crate::features::{RowSubset, real_from_dense};
    use crate::learn::{AveragedPerceptron, Learner, MarginPerceptron, PassiveAggressive};

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
        let ap = AveragedPerceptron::default();
        let learner = AnyLearner::AveragedPerceptron(ap);
        let fits = fit_one_vs_rest(&learner, &x, 3, |c| single_label(&classes, c)).unwrap();
        let models: Vec<AnyModel> = fits.into_iter().map(|f| f.model).collect();
        for c in 0..3 {
            let alone = ap.fit(&x, &single_label(&classes, c)).unwrap().model;
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
            let joint = fit_one_vs_rest(&l, &x, 3, |c| single_label(&classes, c)).unwrap();
            for (c, f) in joint.iter().enumerate() {
                let alone = l.fit(&x, &single_label(&classes, c)).unwrap();
                let (AnyModel::Linear(a), AnyModel::Linear(b)) = (&f.model, &alone.model) else {
                    panic!("linear models expected");
                };
                for (p, q) in a.w.iter().zip(&b.w) {
                    assert!((p - q).abs() < 1e-5, "{l:?} class {c}: {p} vs {q}");
                }
                assert!((a.bias - b.bias).abs() < 1e-5);
                if matches!(l, AnyLearner::MarginPerceptron(_)) {
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
        assert_eq!(multi_label(&[vec![0, 2], vec![1]], 2), vec![1, -1]);
    }
}
