//! What a fitted classifier is, whatever its shape: two classes, one-vs-rest, softmax or
//! multi-label, and the decision it makes for a row.

use super::compose::blocked::ClassBlock;
use super::{AnyModel, Classifier, LabelScorer, MultiLabelModel, SoftmaxModel};
use crate::RowRef;
use crate::features::SparseRows;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How the classifier turns rows into class decisions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Predictor {
    /// Two classes; a positive score means `classes[1]`.
    Binary(AnyModel),
    /// One binary model per class; the class with the highest score wins.
    OneVsRest(Vec<AnyModel>),
    /// One softmax model over the classes; the most probable class wins.
    Softmax(SoftmaxModel),
    /// Several labels per document: every label whose score clears its threshold.
    MultiLabel(MultiLabelModel),
}

/// One decision: the class index and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassDecision {
    /// Index into the model's classes.
    pub class: usize,
    /// The discriminant (binary: w·x + b; one-vs-rest: the winning class's).
    pub score: f32,
}

impl Predictor {
    /// The decision for one row.
    pub(crate) fn decide(&self, row: RowRef<'_>) -> ClassDecision {
        match self {
            Predictor::Binary(m) => {
                let score = m.score(row);
                ClassDecision {
                    class: usize::from(score > 0.0),
                    score,
                }
            }
            Predictor::OneVsRest(ms) => best_of(ms.iter().map(|m| m.score(row))),
            Predictor::Softmax(m) => {
                let (class, score) = m.decide(row);
                ClassDecision { class, score }
            }
            Predictor::MultiLabel(m) => {
                let (class, score) = m.labels(row).first().copied().unwrap_or((0, f32::NAN));
                ClassDecision { class, score }
            }
        }
    }

    /// The class-blocked weights of a one-vs-rest or multi-label model of three classes
    /// or more whose models are linear: what scores every class in one pass over a row.
    pub(crate) fn class_block(&self) -> Option<ClassBlock> {
        match self {
            Predictor::OneVsRest(ms)
            | Predictor::MultiLabel(MultiLabelModel {
                scorer: LabelScorer::OneVsRest(ms),
                ..
            }) if ms.len() >= 3 => ClassBlock::of(ms),
            _ => None,
        }
    }

    /// [`Predictor::decide`], every class scored through `block` (this predictor's
    /// [`Predictor::class_block`]) where there is one: the same decision.
    pub(crate) fn decide_blocked(
        &self,
        row: RowRef<'_>,
        block: Option<&ClassBlock>,
    ) -> ClassDecision {
        let Some(b) = block else {
            return self.decide(row);
        };
        with_scores(b, row, |scores| match self {
            Predictor::MultiLabel(m) => {
                let (class, score) = m
                    .labels_of_scores(scores)
                    .first()
                    .copied()
                    .unwrap_or((0, f32::NAN));
                ClassDecision { class, score }
            }
            _ => best_of(scores.iter().copied()),
        })
    }

    /// Every label of a row with its score (probability where the model has one), best
    /// first: all labels above threshold for multi-label models, else the one decision.
    /// Every class is scored through `block` (this predictor's
    /// [`Predictor::class_block`]) where there is one: the same labels.
    pub(crate) fn labels(&self, row: RowRef<'_>, block: Option<&ClassBlock>) -> Vec<(usize, f32)> {
        match self {
            Predictor::MultiLabel(m) => {
                let labels = match block {
                    Some(b) => with_scores(b, row, |scores| m.labels_of_scores(scores)),
                    None => m.labels(row),
                };
                labels
                    .into_iter()
                    .map(|(c, s)| (c, m.scorer.probability(c, s).unwrap_or(s)))
                    .collect()
            }
            _ => {
                let d = self.decide_blocked(row, block);
                vec![(d.class, self.probability(row, &d).unwrap_or(d.score))]
            }
        }
    }

    /// Every class's (or label's) score of a row, through `block` (this predictor's
    /// [`Predictor::class_block`]) where there is one: what ranking a row's classes
    /// sorts. A multi-label model's are its scorer's (a softmax scorer's probabilities,
    /// as its thresholds read them); other models' are [`Predictor::scores`].
    pub(crate) fn class_scores(&self, row: RowRef<'_>, block: Option<&ClassBlock>) -> Vec<f32> {
        match (self, block) {
            (Predictor::OneVsRest(_) | Predictor::MultiLabel(_), Some(b)) => {
                with_scores(b, row, |s| s.to_vec())
            }
            (Predictor::MultiLabel(m), None) => m.scorer.scores(row),
            _ => self.scores(row),
        }
    }

    /// The probability of the decided class, where the model has one: P(class | x) for
    /// logistic and softmax models (one-vs-rest: the winning model's own probability).
    pub fn probability(&self, row: RowRef<'_>, d: &ClassDecision) -> Option<f32> {
        match self {
            Predictor::Binary(m) => m
                .probability(d.score)
                .map(|p| if d.class == 1 { p } else { 1.0 - p }),
            Predictor::OneVsRest(ms) => ms[d.class].probability(d.score),
            Predictor::Softmax(m) => Some(m.probabilities(row)[d.class]),
            Predictor::MultiLabel(m) => m.scorer.probability(d.class, d.score),
        }
    }

    /// How many scores a row gets: 1 for two classes (the positive class's), else one
    /// per class or label.
    pub fn n_scores(&self) -> usize {
        match self {
            Predictor::Binary(_) => 1,
            Predictor::OneVsRest(ms) => ms.len(),
            Predictor::Softmax(m) => m.k,
            Predictor::MultiLabel(m) => m.scorer.len(),
        }
    }

    /// A row's raw scores, [`Predictor::n_scores`] of them: w·x + b of each binary model,
    /// or softmax's logits (a multi-label softmax scorer's too, not the probabilities it
    /// compares with its thresholds). It exists for front ends that report every class's
    /// score beside the weights (scikit-learn's `decision_function` beside `coef_`),
    /// which the logits match.
    pub fn scores(&self, row: RowRef<'_>) -> Vec<f32> {
        match self {
            Predictor::Binary(m) => vec![m.score(row)],
            Predictor::OneVsRest(ms) => ms.iter().map(|m| m.score(row)).collect(),
            Predictor::Softmax(m)
            | Predictor::MultiLabel(MultiLabelModel {
                scorer: LabelScorer::Softmax(m),
                ..
            }) => {
                let mut z = vec![0.0; m.k];
                m.logits(row, &mut z);
                z
            }
            Predictor::MultiLabel(m) => m.scorer.scores(row),
        }
    }

    /// Every row's [`Predictor::scores`], row after row (`n_rows · n_scores` values),
    /// rows in parallel: the same as row by row.
    pub fn score_rows<X: SparseRows>(&self, x: &X) -> Vec<f32> {
        let rows: Vec<Vec<f32>> = (0..x.n_rows())
            .into_par_iter()
            .map(|i| self.scores(x.row(i)))
            .collect();
        rows.concat()
    }

    /// The binary models inside (one for two classes, one per class or label), or `None`
    /// for a softmax scorer.
    fn binary_models(&self) -> Option<&[AnyModel]> {
        match self {
            Predictor::Binary(m) => Some(std::slice::from_ref(m)),
            Predictor::OneVsRest(ms)
            | Predictor::MultiLabel(MultiLabelModel {
                scorer: LabelScorer::OneVsRest(ms),
                ..
            }) => Some(ms),
            Predictor::Softmax(_) | Predictor::MultiLabel(_) => None,
        }
    }

    /// Whether every score is a logit (logistic and softmax models), so that it reads
    /// as a probability.
    pub fn probabilistic(&self) -> bool {
        self.binary_models()
            .is_none_or(|ms| ms.iter().all(|m| matches!(m, AnyModel::Logistic(_))))
    }

    /// The weights as one row per score ([`Predictor::scores`]: one for two classes, one
    /// per class or label; a softmax model's feature-major weights read out per class)
    /// and the bias of each; `None` when a kernel model is inside. It exists for front
    /// ends that show a linear model's weights (scikit-learn's `coef_`, `intercept_`).
    pub fn linear_weights(&self) -> Option<(Vec<Vec<f32>>, Vec<f32>)> {
        if let Some(ms) = self.binary_models() {
            let ls = ms
                .iter()
                .map(AnyModel::as_linear)
                .collect::<Option<Vec<_>>>()?;
            let w = ls.iter().map(|m| m.w.to_vec()).collect();
            return Some((w, ls.iter().map(|m| m.bias).collect()));
        }
        let (Predictor::Softmax(m)
        | Predictor::MultiLabel(MultiLabelModel {
            scorer: LabelScorer::Softmax(m),
            ..
        })) = self
        else {
            unreachable!("the predictors without binary models are softmax models")
        };
        let w = (0..m.k)
            .map(|c| m.w.iter().skip(c).step_by(m.k).copied().collect())
            .collect();
        Some((w, m.bias.clone()))
    }
}

/// The class with the highest score (the first on ties; class 0 when every score is NaN).
fn best_of(scores: impl Iterator<Item = f32>) -> ClassDecision {
    let mut best = ClassDecision {
        class: 0,
        score: f32::NEG_INFINITY,
    };
    for (c, s) in scores.enumerate() {
        if s > best.score {
            best = ClassDecision { class: c, score: s };
        }
    }
    best
}

thread_local! {
    /// Each thread's scores and partial sums for [`ClassBlock::scores`].
    static SCRATCH: std::cell::RefCell<(Vec<f32>, Vec<f32>)> = const {
        std::cell::RefCell::new((Vec::new(), Vec::new()))
    };
}

/// `f` of a row's class scores computed through `block`.
fn with_scores<T>(block: &ClassBlock, row: RowRef<'_>, f: impl FnOnce(&[f32]) -> T) -> T {
    SCRATCH.with(|s| {
        let (out, acc) = &mut *s.borrow_mut();
        out.resize(block.k(), 0.0);
        block.scores(row, out, acc);
        f(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::{LinearModel, MultiLabelModel};

    fn softmax() -> SoftmaxModel {
        // Feature-major: feature 0 weighs (1, 2, 3), feature 1 (4, 5, 6).
        SoftmaxModel {
            k: 3,
            w: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0].into(),
            bias: vec![0.5, 0.0, -0.5],
        }
    }

    #[test]
    fn scores_are_each_models_or_softmaxs_logits() {
        let row = RowRef::binary(&[1]);
        let lin = |w: Vec<f32>, bias| AnyModel::Linear(LinearModel { w: w.into(), bias });
        let b = Predictor::Binary(lin(vec![1.0, 2.0], 0.5));
        assert_eq!((b.n_scores(), b.scores(row)), (1, vec![2.5]));
        let ovr = Predictor::OneVsRest(vec![lin(vec![0.0, 1.0], 0.0), lin(vec![1.0, 3.0], -1.0)]);
        assert_eq!(ovr.scores(row), vec![1.0, 2.0]);
        let sm = Predictor::Softmax(softmax());
        assert_eq!((sm.n_scores(), sm.scores(row)), (3, vec![4.5, 5.0, 5.5]));
        // A multi-label softmax scorer reports logits too, not its probabilities.
        let ml = Predictor::MultiLabel(MultiLabelModel {
            scorer: LabelScorer::Softmax(softmax()),
            thresholds: vec![0.5; 3],
            train_counts: vec![1; 3],
            at_least_one: true,
        });
        assert_eq!(ml.scores(row), vec![4.5, 5.0, 5.5]);
        let x = crate::features::real_from_dense(&[vec![0.0, 1.0], vec![1.0, 0.0]]);
        assert_eq!(sm.score_rows(&x), vec![4.5, 5.0, 5.5, 1.5, 2.0, 2.5]);
    }

    #[test]
    fn weights_read_out_one_row_per_class() {
        let (w, b) = Predictor::Softmax(softmax()).linear_weights().unwrap();
        assert_eq!(w, vec![vec![1.0, 4.0], vec![2.0, 5.0], vec![3.0, 6.0]]);
        assert_eq!(b, vec![0.5, 0.0, -0.5]);
        let m = LinearModel {
            w: vec![1.0, -1.0].into(),
            bias: 2.0,
        };
        let p = Predictor::Binary(AnyModel::Logistic(m.clone()));
        assert_eq!(p.linear_weights(), Some((vec![m.w.to_vec()], vec![2.0])));
        assert!(p.probabilistic());
        assert!(!Predictor::OneVsRest(vec![AnyModel::Linear(m); 3]).probabilistic());
        assert!(Predictor::Softmax(softmax()).probabilistic());
    }
}
