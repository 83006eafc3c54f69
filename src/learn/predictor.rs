//! What a fitted classifier is, whatever its shape: two classes, one-vs-rest, softmax or
//! multi-label, and the decision it makes for a row.

use super::{AnyModel, Classifier, MultiLabelModel, SoftmaxModel};
use crate::RowRef;
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
    pub fn decide(&self, row: RowRef<'_>) -> ClassDecision {
        match self {
            Predictor::Binary(m) => {
                let score = m.score(row);
                ClassDecision {
                    class: usize::from(score > 0.0),
                    score,
                }
            }
            Predictor::OneVsRest(ms) => {
                let mut best = ClassDecision {
                    class: 0,
                    score: f32::NEG_INFINITY,
                };
                for (c, m) in ms.iter().enumerate() {
                    let s = m.score(row);
                    if s > best.score {
                        best = ClassDecision { class: c, score: s };
                    }
                }
                best
            }
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

    /// Every label of a row with its score (probability where the model has one), best
    /// first: all labels above threshold for multi-label models, else the one decision.
    pub fn labels(&self, row: RowRef<'_>) -> Vec<(usize, f32)> {
        match self {
            Predictor::MultiLabel(m) => m
                .labels(row)
                .into_iter()
                .map(|(c, s)| (c, m.scorer.probability(c, s).unwrap_or(s)))
                .collect(),
            _ => {
                let d = self.decide(row);
                vec![(d.class, self.probability(row, &d).unwrap_or(d.score))]
            }
        }
    }
}
