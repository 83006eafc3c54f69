//! Ranked classes: the N best classes of a document, best first, each with its score and
//! its probability where the model has one (fastText's `predict -k N -t P`,
//! scikit-learn's `predict_proba`), where [`Model::classify_batch`] gives the best class
//! alone. `rosenblatt classify -k` prints these.
//!
//! Probabilities: a softmax model's are its softmax over the classes; a logistic
//! one-vs-rest model's are its classes' sigmoids normalised to sum to 1 (a single-label
//! model gives one class per document), and so are a one-vs-rest model's calibrated
//! sigmoids (`train --calibrate`: one Platt sigmoid per class on out-of-fold scores); a
//! two-class model's are its calibration's (or a logistic model's own) P(class) and
//! 1 − P; a multi-label model's are each label's own (they need not sum to 1). Other
//! models (perceptron, passive-aggressive, … one-vs-rest trained without `--calibrate`)
//! have no calibration, and no probability is made up for them. Classes are ranked by
//! score, so the first is the class the model decides.

use super::Model;
use crate::features::SparseRows;
use crate::input::Document;
use crate::learn::Predictor;
use crate::learn::compose::blocked::ClassBlock;
use crate::{Error, Result, RowRef};
use rayon::prelude::*;

/// One class of a document's ranking: what `classify -k` prints per class.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedClass {
    /// Index into the model's classes.
    pub class: usize,
    /// The class name.
    pub label: String,
    /// The class's raw score: w·x + b of its one-vs-rest model, its softmax logit, a
    /// multi-label scorer's score (a softmax scorer's probability); for two classes the
    /// discriminant s for the positive class and −s for the other.
    pub score: f32,
    /// P(class | document), where the model has probabilities (see the module docs).
    pub probability: Option<f32>,
}

/// How many classes a ranking keeps, and the probability they must reach.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranking {
    /// The best classes kept per document (`usize::MAX`: all of them).
    pub top: usize,
    /// Classes whose probability is below this are dropped (fastText's `-t`); only for
    /// models with probabilities ([`Model::has_class_probabilities`]).
    pub min_probability: Option<f32>,
}

impl Model {
    /// Whether [`Model::rank_rows`] gives probabilities: softmax models, one-vs-rest and
    /// multi-label models whose every class is logistic (or a softmax scorer), and
    /// two-class models with a calibration or a logistic score.
    pub fn has_class_probabilities(&self) -> bool {
        match &self.predictor {
            Predictor::Binary(_) => self.probability(0.0).is_some(),
            Predictor::Softmax(_) => true,
            Predictor::OneVsRest(ms) => {
                self.class_calibration.is_some() || ms.iter().all(|m| m.probability(0.0).is_some())
            }
            Predictor::MultiLabel(m) => {
                (0..m.scorer.len()).all(|c| m.scorer.probability(c, 0.0).is_some())
            }
        }
    }

    /// Each text's ranked classes, best first, read as [`Model::classify_batch`] reads
    /// them.
    pub fn rank_batch<S: AsRef<str> + Sync>(
        &self,
        texts: &[S],
        ranking: Ranking,
    ) -> Result<Vec<Vec<RankedClass>>> {
        self.rank_documents(&self.documents(texts), ranking)
    }

    /// [`Model::rank_batch`] for documents already read.
    pub fn rank_documents(
        &self,
        docs: &[Document],
        ranking: Ranking,
    ) -> Result<Vec<Vec<RankedClass>>> {
        self.rank_rows(&self.text_rows(docs)?, ranking)
    }

    /// Each stored row's ranked classes (rows read in the model's geometry here), best
    /// first, rows in parallel and in order. A probability floor on a model without
    /// probabilities is refused: it would drop every class or none, and say nothing.
    pub fn rank_rows<X: SparseRows>(
        &self,
        x: &X,
        ranking: Ranking,
    ) -> Result<Vec<Vec<RankedClass>>> {
        if ranking.min_probability.is_some() && !self.has_class_probabilities() {
            return Err(Error::Unsupported(format!(
                "a probability floor needs class probabilities, and this model ({}) has \
                 none: only softmax, logistic and calibrated models (two-class ones, and \
                 one-vs-rest ones trained with --calibrate) give them",
                self.meta.learner
            )));
        }
        let x = self.geometry.apply(x);
        let block = self.block_for(x.n_rows());
        Ok((0..x.n_rows())
            .into_par_iter()
            .map(|i| self.rank_row(x.row(i), ranking, block))
            .collect())
    }

    /// Each stored row's probability of every class, in the model's class order (rows
    /// read in the model's geometry here, in parallel and in order): what `eval` measures
    /// log loss and calibration on, and scikit-learn's `predict_proba`. `None` for a
    /// model without probabilities ([`Model::has_class_probabilities`]).
    pub fn class_probability_rows<X: SparseRows>(&self, x: &X) -> Option<Vec<Vec<f32>>> {
        if !self.has_class_probabilities() {
            return None;
        }
        let x = self.geometry.apply(x);
        let block = self.block_for(x.n_rows());
        (0..x.n_rows())
            .into_par_iter()
            .map(|i| self.scored(x.row(i), block).1)
            .collect()
    }

    /// One row's ranked classes (the row read in the model's geometry).
    fn rank_row(
        &self,
        row: RowRef<'_>,
        ranking: Ranking,
        block: Option<&ClassBlock>,
    ) -> Vec<RankedClass> {
        let (scores, probabilities, order) = self.scored(row, block);
        order
            .into_iter()
            .map(|c| RankedClass {
                class: c,
                label: self.classes[c].clone(),
                score: scores[c],
                probability: probabilities.as_ref().map(|p| p[c]),
            })
            .filter(|r| match (ranking.min_probability, r.probability) {
                (Some(floor), Some(p)) => p >= floor,
                _ => true,
            })
            .take(ranking.top)
            .collect()
    }

    /// One row's scores, its probabilities where the model has them, and the classes
    /// best first (the row read in the model's geometry).
    fn scored(&self, row: RowRef<'_>, block: Option<&ClassBlock>) -> Scored {
        match &self.predictor {
            Predictor::Binary(_) => {
                let s = self.predictor.scores(row)[0];
                let p = self.probability(s);
                // The decided class first, as the model decides at its threshold.
                let order = if s > self.threshold { [1, 0] } else { [0, 1] };
                let probabilities = p.map(|p| vec![1.0 - p, p]);
                (vec![-s, s], probabilities, order.to_vec())
            }
            Predictor::Softmax(_) => {
                let z = self.predictor.scores(row);
                let p = softmax(&z);
                let order = by_score(&z);
                (z, Some(p), order)
            }
            Predictor::OneVsRest(ms) => {
                let z = self.predictor.class_scores(row, block);
                let sigmoids: Option<Vec<f32>> = match &self.class_calibration {
                    Some(c) => Some(c.sigmoids(&z)),
                    None => ms.iter().zip(&z).map(|(m, &s)| m.probability(s)).collect(),
                };
                let p = sigmoids.map(|s| normalised(&s, &z));
                let order = by_score(&z);
                (z, p, order)
            }
            Predictor::MultiLabel(m) => {
                let z = self.predictor.class_scores(row, block);
                let p: Option<Vec<f32>> = z
                    .iter()
                    .enumerate()
                    .map(|(c, &s)| m.scorer.probability(c, s))
                    .collect();
                let order = by_score(&z);
                (z, p, order)
            }
        }
    }
}

/// A row's scores, its probabilities (where the model has them) and its classes best
/// first.
type Scored = (Vec<f32>, Option<Vec<f32>>, Vec<usize>);

/// Class indices by decreasing score, ties by index; a NaN score ranks last.
fn by_score(scores: &[f32]) -> Vec<usize> {
    let key = |c: usize| {
        let s = scores[c];
        if s.is_nan() { f32::NEG_INFINITY } else { s }
    };
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
    order
}

/// The softmax of `z` (the softmax model's own, stable against large logits); the even
/// split where a logit is NaN or infinite.
pub(crate) fn softmax(z: &[f32]) -> Vec<f32> {
    let mut p = z.to_vec();
    crate::learn::softmax_in_place(&mut p);
    if p.iter().all(|v| v.is_finite()) {
        p
    } else {
        vec![1.0 / z.len().max(1) as f32; z.len()]
    }
}

/// One-vs-rest sigmoids normalised to sum to 1; where every sigmoid has underflowed to 0
/// (all scores far below 0, where sigmoid(s) ≈ eˢ) the softmax of the scores `z`, their
/// limit.
fn normalised(sigmoids: &[f32], z: &[f32]) -> Vec<f32> {
    let sum: f32 = sigmoids.iter().sum();
    if sum.is_finite() && sum > 0.0 {
        sigmoids.iter().map(|p| p / sum).collect()
    } else {
        softmax(z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_matches_a_hand_computed_one() {
        // z = (ln 1, ln 2, ln 5): eᶻ = (1, 2, 5), sum 8.
        let z = [0.0, 2f32.ln(), 5f32.ln()];
        let p = softmax(&z);
        for (got, want) in p.iter().zip([0.125, 0.25, 0.625]) {
            assert!((got - want).abs() < 1e-6, "{p:?}");
        }
        // Shifting every logit changes nothing; huge ones do not overflow.
        let q = softmax(&[1000.0, 1000.0 + 2f32.ln(), 1000.0 + 5f32.ln()]);
        for (a, b) in p.iter().zip(&q) {
            assert!((a - b).abs() < 1e-4, "{q:?}");
        }
    }

    #[test]
    fn scores_rank_best_first_and_nan_last() {
        assert_eq!(by_score(&[0.5, 2.0, -1.0, 2.0]), [1, 3, 0, 2]);
        assert_eq!(by_score(&[f32::NAN, -5.0, 1.0]), [2, 1, 0]);
    }

    #[test]
    fn sigmoids_normalise_to_one() {
        let p = normalised(&[0.2, 0.6, 0.2], &[0.0; 3]);
        assert_eq!(p, [0.2, 0.6, 0.2]);
        let p = normalised(&[0.1, 0.1], &[0.0, 0.0]);
        assert_eq!(p, [0.5, 0.5]);
        // Underflowed sigmoids fall back to the softmax of the scores.
        let p = normalised(&[0.0, 0.0], &[-200.0, -200.0 + 3f32.ln()]);
        assert!(
            (p[0] - 0.25).abs() < 1e-5 && (p[1] - 0.75).abs() < 1e-5,
            "{p:?}"
        );
    }
}
