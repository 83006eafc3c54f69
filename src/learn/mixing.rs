//! Iterative parameter mixing (McDonald, Hall and Mann, NAACL 2010, "Distributed training
//! strategies for the structured perceptron"): the training rows are split into shards,
//! one per worker; in every round each worker runs one epoch of its learner over its own
//! shard, starting from the shared weights, and the next round starts from the workers'
//! weights mixed in proportion to the updates each made (the paper's error-weighted
//! mixing; a worker that made none brings nothing). For the perceptron the mistake bound
//! carries over for any such convex mix.
//!
//! This module holds the parts every way of running it shares — which learners mix, a
//! worker's epoch, the mix, how rounds end — and [`fit_mixed`], the whole schedule run in
//! one process: the reference a run spread over threads or processes must equal.
//!
//! Averaged learners: each worker also keeps the sum, over its rounds, of its epoch's
//! average weights times the epoch's visits; the final model is the sum over workers
//! divided by all visits, the average of the weights after every visit of every worker.
//! Only the last weights travel in each round, the sums once at the end. With one shard
//! every learner here fits exactly the model it fits alone.

use super::into_any::IntoAny;
use super::{AnyLearner, AnyModel, Checked, Fitted, Label, LinearModel, TrainReport};
use crate::features::{RowSubset, SparseRows};
use crate::{Error, Result};
use rayon::prelude::*;

/// How a learner's rounds run under parameter mixing: how many, and whether the model is
/// the average of the weights after every visit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MixPlan {
    /// Rounds at most (the learner's epochs).
    pub rounds: usize,
    /// Averaged learners.
    pub average: bool,
}

/// The learner's [`MixPlan`]; `None` for learners that do not mix.
pub(crate) fn mix_plan(learner: &AnyLearner) -> Option<MixPlan> {
    learner.mix_plan()
}

/// The model a mixing learner's weights make: logistic regression's gives probabilities.
#[cfg_attr(not(feature = "cluster"), allow(dead_code))]
pub(crate) fn mixed_model(learner: &AnyLearner, w: LinearModel) -> AnyModel {
    w.into_any(learner.probabilistic())
}

/// Whether a learner can be trained by parameter mixing, or the sentence that says why not.
pub fn check_mixable(learner: &AnyLearner) -> Result<()> {
    mix_plan(learner)
        .map(|_| ())
        .ok_or_else(|| not_mixable(learner))
}

/// The refusal of a learner that does not mix.
fn not_mixable(learner: &AnyLearner) -> Error {
    Error::Unsupported(format!(
        "{} does not train by parameter mixing; the perceptron (epochs, no R² bias), \
         averaged-perceptron, margin-perceptron, pa and logistic (without early stopping) do",
        learner.name()
    ))
}

/// Rows of shard `s` of `n` rows split over `shards`: row i goes to shard i mod shards,
/// so every shard sees a slice of every part of the input.
pub(crate) fn shard_rows(n: usize, shards: usize, s: usize) -> Vec<usize> {
    (s..n).step_by(shards.max(1)).collect()
}

/// Checks that `n` rows give each of `shards` workers at least one.
pub(crate) fn check_split(n: usize, shards: usize) -> Result<()> {
    if shards == 0 || n < shards {
        return Err(Error::Data(format!(
            "{n} rows cannot be split over {shards} workers: each needs at least one"
        )));
    }
    Ok(())
}

/// Adds a round's totals over all workers to `report`; returns whether the problem has
/// converged: a round without an update ends training for the non-averaged learners, as
/// a lone learner stops at convergence.
pub(crate) fn close_round(
    report: &mut TrainReport,
    updates: u64,
    mistakes: u64,
    visits: u64,
    averaged: bool,
) -> bool {
    report.epochs += 1;
    report.updates += updates;
    report.steps += visits;
    report.mistakes_per_epoch.push(mistakes);
    let converged = updates == 0 && !averaged;
    if converged {
        report.converged = Some(true);
    }
    converged
}

/// What a worker brings to the mixing after one round.
#[derive(Debug, Clone)]
pub(crate) struct LocalEpoch {
    /// Its weights after the epoch.
    pub last: LinearModel,
    /// Averaged learners: the epoch's average weights (after each visit).
    pub average: Option<LinearModel>,
    /// Rows visited.
    pub visits: u64,
    /// Updates made.
    pub updates: u64,
    /// Mistakes made.
    pub mistakes: u64,
}

/// A worker's epoch `round` over its rows `x` with labels `y`, from the mixed weights
/// `start`; the shuffle of the epoch depends on the round as a lone learner's on its epoch.
pub(crate) fn local_epoch<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    y: &[Label],
    start: &LinearModel,
    round: usize,
) -> Result<LocalEpoch> {
    learner
        .local_epoch(x, y, start, round)
        .unwrap_or_else(|| Err(not_mixable(learner)))
}

/// The workers' weights mixed, each weighted by its share of the round's updates
/// (McDonald et al.'s error-weighted mixing): the next round's start. A worker that made
/// no update brings back `start` and weighs nothing, so a rare class's updates, made on
/// the one shard that holds its examples, are not divided by the number of workers. With
/// no update anywhere the start stays.
pub(crate) fn mix(start: &LinearModel, parts: &[(&LinearModel, u64)]) -> LinearModel {
    let total: u64 = parts.iter().map(|p| p.1).sum();
    if total == 0 {
        return start.clone();
    }
    let mut w: Vec<f64> = vec![0.0; start.w.len()];
    let mut bias = 0f64;
    for &(p, updates) in parts {
        let mu = updates as f64;
        for ((s, &v), &v0) in w.iter_mut().zip(&p.w).zip(&start.w) {
            *s += mu * (f64::from(v) - f64::from(v0));
        }
        bias += mu * (f64::from(p.bias) - f64::from(start.bias));
    }
    let t = total as f64;
    LinearModel {
        w: w.iter()
            .zip(&start.w)
            .map(|(s, &v0)| (f64::from(v0) + s / t) as f32)
            .collect(),
        bias: (f64::from(start.bias) + bias / t) as f32,
    }
}

/// A worker's running sum of (epoch average × visits), for averaged learners.
#[derive(Debug, Clone, Default)]
pub(crate) struct AverageSum {
    /// Σ visits·average weights.
    pub w: Vec<f64>,
    /// Σ visits·average bias.
    pub bias: f64,
    /// Σ visits.
    pub visits: u64,
}

impl AverageSum {
    /// Adds an epoch's average over `visits` visits.
    pub(crate) fn add(&mut self, average: &LinearModel, visits: u64) {
        if self.w.len() < average.w.len() {
            self.w.resize(average.w.len(), 0.0);
        }
        let c = visits as f64;
        for (s, &v) in self.w.iter_mut().zip(&average.w) {
            *s += c * f64::from(v);
        }
        self.bias += c * f64::from(average.bias);
        self.visits += visits;
    }

    /// Adds another worker's sum.
    pub(crate) fn merge(&mut self, other: &AverageSum) {
        if self.w.len() < other.w.len() {
            self.w.resize(other.w.len(), 0.0);
        }
        for (s, &v) in self.w.iter_mut().zip(&other.w) {
            *s += v;
        }
        self.bias += other.bias;
        self.visits += other.visits;
    }

    /// The average of the weights after every visit summed in.
    pub(crate) fn model(&self) -> LinearModel {
        let t = self.visits.max(1) as f64;
        LinearModel {
            w: self.w.iter().map(|&s| (s / t) as f32).collect(),
            bias: (self.bias / t) as f32,
        }
    }
}

/// Parameter mixing of a binary problem over `shards` shards, in one process (shards in
/// parallel): rounds = the learner's epochs; a round in which no worker updated ends it
/// for the non-averaged learners, as a lone learner stops at convergence.
pub fn fit_mixed<X: SparseRows>(
    learner: &Checked<AnyLearner>,
    x: &X,
    y: &[Label],
    shards: usize,
) -> Result<Fitted<LinearModel>> {
    let opt = mix_plan(learner).ok_or_else(|| not_mixable(learner))?;
    check_split(x.n_rows(), shards)?;
    let parts: Vec<Vec<usize>> = (0..shards)
        .map(|s| shard_rows(x.n_rows(), shards, s))
        .collect();
    let labels: Vec<Vec<Label>> = parts
        .iter()
        .map(|idx| idx.iter().map(|&i| y[i]).collect())
        .collect();
    let mut w = LinearModel::zeros(x.n_cols());
    let mut sums = vec![AverageSum::default(); shards];
    let mut report = TrainReport::default();
    for round in 0..opt.rounds {
        let locals: Vec<LocalEpoch> = parts
            .par_iter()
            .zip(&labels)
            .map(|(idx, yl)| local_epoch(learner, &RowSubset::new(x, idx), yl, &w, round))
            .collect::<Result<_>>()?;
        let converged = close_round(
            &mut report,
            locals.iter().map(|l| l.updates).sum(),
            locals.iter().map(|l| l.mistakes).sum(),
            locals.iter().map(|l| l.visits).sum(),
            opt.average,
        );
        for (s, l) in sums.iter_mut().zip(&locals) {
            if let Some(a) = &l.average {
                s.add(a, l.visits);
            }
        }
        w = mix(
            &w,
            &locals
                .iter()
                .map(|l| (&l.last, l.updates))
                .collect::<Vec<_>>(),
        );
        if converged {
            break;
        }
    }
    let model = if opt.average {
        let mut total = AverageSum::default();
        for s in &sums {
            total.merge(s);
        }
        total.model()
    } else {
        w
    };
    Ok(Fitted { model, report })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::real_from_dense;
    use crate::learn::{
        AveragedPerceptron, Bias, Check, Learner, OnlineOptions, PassiveAggressive, Perceptron,
        Schedule,
    };

    /// 40 rows of 6 features, separable by the sign of x₀ − x₁ with a margin.
    fn data() -> (crate::features::RealMatrix, Vec<Label>) {
        let mut rows = Vec::new();
        let mut y = Vec::new();
        for i in 0..40u32 {
            let a = (i % 7) as f32 / 7.0;
            let b = (i % 5) as f32 / 5.0;
            let pos = i % 2 == 0;
            let (x0, x1) = if pos { (1.0 + a, b) } else { (b, 1.0 + a) };
            rows.push(vec![x0, x1, a, b, (i % 3) as f32, 1.0 - a]);
            y.push(if pos { 1 } else { -1 });
        }
        (real_from_dense(&rows), y)
    }

    fn close(a: &LinearModel, b: &LinearModel) {
        assert_eq!(a.w.len(), b.w.len());
        for (p, q) in a.w.iter().zip(&b.w).chain([(&a.bias, &b.bias)]) {
            assert!((p - q).abs() <= 1e-4 * (1.0 + q.abs()), "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn one_shard_is_the_lone_learner() {
        let (x, y) = data();
        for learner in [
            AnyLearner::Perceptron(Perceptron::default()),
            AnyLearner::AveragedPerceptron(AveragedPerceptron::default()),
            AnyLearner::PassiveAggressive(PassiveAggressive::default()),
            AnyLearner::PassiveAggressive(PassiveAggressive {
                online: OnlineOptions {
                    average: true,
                    ..PassiveAggressive::default().online
                },
                ..PassiveAggressive::default()
            }),
            AnyLearner::from_name("logistic").unwrap(),
            AnyLearner::Logistic(crate::learn::LogisticRegression {
                solver: crate::learn::Solver::MiniBatch(8),
                ..Default::default()
            }),
        ] {
            let l = learner.check().unwrap();
            let alone = l.fit(&x, &y[..]).unwrap();
            let mixed = fit_mixed(&l, &x, &y, 1).unwrap();
            if l.name() == "logistic" {
                // Its passes are the lone learner's, one per round (which never stop early).
                assert_eq!(mixed.report, alone.report);
            }
            let alone = alone.model.as_linear().unwrap().clone();
            close(&mixed.model, &alone);
        }
    }

    #[test]
    fn two_shards_mix_by_hand() {
        // Round 0 from w = 0, perceptron, no shuffle, no bias, 1 epoch.
        // Shard 0 = rows 0, 2: x = (1, 0) +1, (0, 1) +1 → mistakes on both (score 0):
        // w₀ = (1, 1). Shard 1 = rows 1, 3: (0, 1) −1 → w = (0, −1); (1, 1) −1 scores −1,
        // right → w₁ = (0, −1). Mixed by updates (2 and 1):
        // (2·(1, 1) + 1·(0, −1)) / 3 = (2/3, 1/3); the uniform mean would be (0.5, 0).
        let x = real_from_dense(&[
            vec![1.0, 0.0],
            vec![0.0, 1.0],
            vec![0.0, 1.0],
            vec![1.0, 1.0],
        ]);
        let y = [1, -1, 1, -1];
        let p = AnyLearner::Perceptron(Perceptron {
            bias: Bias::None,
            schedule: Schedule::Epochs(1),
            shuffle: None,
            ..Perceptron::default()
        })
        .check()
        .unwrap();
        let m = fit_mixed(&p, &x, &y, 2).unwrap();
        assert_eq!(m.model.w, vec![2.0 / 3.0, 1.0 / 3.0]);
        assert_eq!((m.report.updates, m.report.steps), (3, 4));
    }

    #[test]
    fn refusals_say_why() {
        let (x, y) = data();
        let l = AnyLearner::from_name("winnow").unwrap().check().unwrap();
        let e = fit_mixed(&l, &x, &y, 2).unwrap_err().to_string();
        assert!(
            e.contains("winnow does not train by parameter mixing"),
            "{e}"
        );
        let early = crate::learn::LogisticRegression {
            early_stopping: Some(crate::learn::EarlyStopping {
                fraction: 0.2,
                patience: 2,
            }),
            ..Default::default()
        };
        let l = AnyLearner::Logistic(early).check().unwrap();
        let e = fit_mixed(&l, &x, &y, 2).unwrap_err().to_string();
        assert!(
            e.contains("logistic does not train by parameter mixing"),
            "{e}"
        );
        let p = AnyLearner::Perceptron(Perceptron::default())
            .check()
            .unwrap();
        let e = fit_mixed(&p, &x, &y, 41).unwrap_err().to_string();
        assert!(e.contains("40 rows cannot be split over 41 workers"), "{e}");
    }
}
