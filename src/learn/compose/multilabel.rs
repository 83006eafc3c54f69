//! Multi-label classification: one binary classifier per label (or one softmax model over
//! all labels), and a threshold per label; a row gets every label whose score is above
//! its threshold. Thresholds are tuned per label on out-of-fold scores of the training
//! rows (the F1-best cut of each label's ranking, `best_threshold`), which is what lets
//! rare labels be predicted at all: their scores rarely clear 0. `learn` only fits and
//! scores: the fold loop that produces those out-of-fold scores runs above this layer.

use crate::Result;
use crate::features::{RowRef, SparseRows};
use crate::learn::SoftmaxModel;
use crate::learn::{AnyLearner, AnyModel, Checked, Classifier, Fitted, Learner, MultiLabel};
use serde::{Deserialize, Serialize};

/// What scores the classes of a multiclass problem or the labels of a multi-label one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LabelScorer {
    /// One binary model per label; scores are their discriminants.
    OneVsRest(Vec<AnyModel>),
    /// One softmax model over the labels; scores are probabilities.
    Softmax(SoftmaxModel),
}

impl LabelScorer {
    /// Number of labels.
    pub(crate) fn len(&self) -> usize {
        match self {
            LabelScorer::OneVsRest(m) => m.len(),
            LabelScorer::Softmax(m) => m.k,
        }
    }

    /// Every label's score for `row`.
    pub fn scores(&self, row: RowRef<'_>) -> Vec<f32> {
        match self {
            LabelScorer::OneVsRest(ms) => ms.iter().map(|m| m.score(row)).collect(),
            LabelScorer::Softmax(m) => m.probabilities(row),
        }
    }

    /// The threshold used when none is tuned: 0 for discriminants, ½ for probabilities.
    pub(crate) fn default_threshold(&self) -> f32 {
        match self {
            LabelScorer::OneVsRest(_) => 0.0,
            LabelScorer::Softmax(_) => 0.5,
        }
    }

    /// The probability of label `c` given its score, where the scorer has one.
    pub fn probability(&self, c: usize, score: f32) -> Option<f32> {
        match self {
            LabelScorer::OneVsRest(ms) => ms[c].probability(score),
            LabelScorer::Softmax(_) => Some(score),
        }
    }
}

/// How label thresholds are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Thresholds {
    /// The scorer's default (0, or ½ for probabilities).
    Default,
    /// The F1-best cut of each label's out-of-fold scores, over `folds` seeded folds.
    CrossValidated {
        /// Number of folds (≥ 2), or [`MultiLabelOptions::FOLDS`] for the learner's own.
        folds: usize,
        /// Seed of the fold assignment.
        seed: u64,
        /// A label whose best out-of-fold F1 is below this keeps the default threshold
        /// (a poor ranking's "best" cut is usually far too low and floods the label with
        /// false positives; Yang's SCutFBR).
        min_f1: f64,
    },
}

/// The multi-label settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MultiLabelOptions {
    /// How thresholds are chosen.
    pub thresholds: Thresholds,
    /// Give a row its best-scoring label when no score clears its threshold.
    pub at_least_one: bool,
}

impl MultiLabelOptions {
    /// Folds given as 0: each learner's own default ([`MultiLabelOptions::folds_for`]),
    /// at most the number of rows.
    pub const FOLDS: usize = 0;

    /// The threshold cross-validation's folds by default for `learner` over `rows` rows:
    /// 3 for PA (two more fits of the whole training set), 10 for the others (nine
    /// more). On seeded validation parts of Reuters-21578's training documents PA's
    /// micro- and macro-F1 with 3 folds stayed within a standard deviation of 10 folds'
    /// at a third of the training time; the perceptron's, the averaged perceptron's and
    /// logistic regression's fell by more (docs/LEARNERS.md).
    pub fn folds_for(learner: &AnyLearner, rows: usize) -> usize {
        let folds = match learner {
            AnyLearner::PassiveAggressive(_) => 3,
            _ => 10,
        };
        folds.min(rows.max(2))
    }
}

impl Default for MultiLabelOptions {
    fn default() -> Self {
        MultiLabelOptions {
            thresholds: Thresholds::CrossValidated {
                folds: Self::FOLDS,
                seed: 42,
                min_f1: 0.3,
            },
            at_least_one: true,
        }
    }
}

/// A fitted multi-label model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultiLabelModel {
    /// The per-label scores.
    pub scorer: LabelScorer,
    /// One threshold per label.
    pub thresholds: Vec<f32>,
    /// Training documents per label (to rank labels by frequency, e.g. the top 10).
    pub train_counts: Vec<u32>,
    /// Give a row its best label when none clears its threshold.
    pub at_least_one: bool,
}

impl MultiLabelModel {
    /// The labels of `row` with their scores, best first.
    pub(crate) fn labels(&self, row: RowRef<'_>) -> Vec<(usize, f32)> {
        self.labels_of_scores(&self.scorer.scores(row))
    }

    /// [`MultiLabelModel::labels`] from a row's scores, however they were computed.
    pub(crate) fn labels_of_scores(&self, scores: &[f32]) -> Vec<(usize, f32)> {
        let mut out: Vec<(usize, f32)> = scores
            .iter()
            .enumerate()
            .filter(|&(c, &s)| s > self.thresholds[c])
            .map(|(c, &s)| (c, s))
            .collect();
        if out.is_empty() && self.at_least_one {
            // The best label relative to its threshold.
            let best = (0..scores.len()).max_by(|&a, &b| {
                (scores[a] - self.thresholds[a]).total_cmp(&(scores[b] - self.thresholds[b]))
            });
            out.extend(best.map(|c| (c, scores[c])));
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    }
}

/// Fits the scorer alone (no thresholds): the learner fitted to the label sets.
pub(crate) fn fit_scorer<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    sets: &[Vec<usize>],
    k: usize,
) -> Result<Fitted<LabelScorer>> {
    learner.fit(x, &MultiLabel::new(sets, k))
}

/// The F1-best threshold for scores with their truth, or `None` when no cut has F1 > 0.
/// The threshold lies halfway between the lowest score taken and the next one.
pub(crate) fn best_threshold(pairs: &mut [(f32, bool)]) -> Option<(f32, f64)> {
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let positives = pairs.iter().filter(|p| p.1).count() as f64;
    let (mut tp, mut best) = (0f64, None::<(f32, f64)>);
    for r in 0..pairs.len() {
        tp += f64::from(u8::from(pairs[r].1));
        let next = pairs.get(r + 1).map(|p| p.0);
        if next == Some(pairs[r].0) {
            continue; // a cut cannot split equal scores
        }
        let f1 = 2.0 * tp / ((r + 1) as f64 + positives);
        if f1 > best.map_or(0.0, |b| b.1) {
            let t = next.map_or(pairs[r].0 - 1.0, |n| (pairs[r].0 + n) / 2.0);
            best = Some((t, f1));
        }
    }
    best
}

/// Documents per label.
pub(crate) fn label_counts(sets: &[Vec<usize>], k: usize) -> Vec<u32> {
    let mut counts = vec![0u32; k];
    for &c in sets.iter().flatten() {
        counts[c] += 1;
    }
    counts
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // indices name rows and features
mod tests {
    use super::*;

    #[test]
    fn best_threshold_hand_computed() {
        // Ranking: 0.9(+) 0.8(−) 0.7(+) 0.1(−): cut after 0.7 gives tp 2, predicted 3,
        // F1 = 4/5; cut after 0.9 gives 2/3. Threshold halfway between 0.7 and 0.1.
        let mut p = vec![(0.1, false), (0.9, true), (0.7, true), (0.8, false)];
        let (t, f1) = best_threshold(&mut p).unwrap();
        assert!((t - 0.4).abs() < 1e-6 && (f1 - 0.8).abs() < 1e-12);
        assert_eq!(best_threshold(&mut [(0.3, false), (0.2, false)]), None);
        // Ties are never split.
        let (t, _) = best_threshold(&mut [(0.5, true), (0.5, false), (0.1, false)]).unwrap();
        assert!((t - 0.3).abs() < 1e-6);
    }
}
