//! Logistic regression as the seed lecture gives it: P(y = 1 | x) = θ(w·x + b) with
//! θ(s) = 1/(1 + e^−s), fitted by minimizing the mean cross-entropy
//! J(w, b) = (1/n)·Σ ln(1 + e^(−yᵢ(w·xᵢ + b))) + (λ/2)·‖w‖² with steepest (batch)
//! gradient descent, SGD or mini-batches; a learning-rate schedule; and early stopping on
//! a seeded held-out fraction of the training rows.
//!
//! L2 is applied lazily: w is stored as s·v, and the shrink w ← (1 − ηλ)·w is one
//! multiplication of the scalar s, so an SGD step touches only the row's nonzeros. The
//! batch solver is the mini-batch solver with one batch of all rows, so it takes exactly
//! the step w ← w − η·∇J(w) that the objective in `loss` computes.

pub(crate) use super::loss::log_loss;
#[cfg(test)]
use super::loss::objective;
pub(crate) use super::loss::sigmoid;

use super::kind::{LearnerKind, bias_of};
pub(crate) use super::loss::Scaled;
use super::mixing::{LocalEpoch, MixPlan};
use super::online::on_off_bias;
use super::online::{epoch_order, epoch_order_in};
use super::{Bias, Rate, Setting, UpdateRule};
use super::{Check, Checked, Fitted, Label, Learner, LinearModel, TrainReport, check_binary};
use crate::error::{ConfigError, Param, at_least_one, non_negative, positive};
use crate::features::SparseRows;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// How many rows each gradient step looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Solver {
    /// Steepest descent: one step per epoch on the gradient over all rows.
    Batch,
    /// Stochastic gradient descent: one step per row.
    Sgd,
    /// One step per this many rows.
    MiniBatch(usize),
}

impl Solver {
    /// Rows per gradient step over `n` rows.
    pub(crate) fn rows_per_step(self, n: usize) -> usize {
        match self {
            Solver::Batch => n,
            Solver::Sgd => 1,
            Solver::MiniBatch(b) => b.min(n),
        }
    }
}

/// The learning rate η after `e` epochs (fractional) for an initial rate η₀.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RateSchedule {
    /// η = η₀.
    Constant,
    /// η = η₀ / √(1 + e).
    InverseSqrt,
    /// η = η₀ / (1 + e).
    Inverse,
}

impl RateSchedule {
    /// The rate after `e` epochs.
    pub(crate) fn rate(self, eta0: f32, e: f32) -> f32 {
        match self {
            RateSchedule::Constant => eta0,
            RateSchedule::InverseSqrt => eta0 / (1.0 + e).sqrt(),
            RateSchedule::Inverse => eta0 / (1.0 + e),
        }
    }
}

/// Early stopping: hold out a seeded fraction of the rows, and stop when the held-out
/// log-loss has not improved for `patience` epochs; the best epoch's model is kept.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EarlyStopping {
    /// Fraction of the training rows held out (0 < f < 1).
    pub fraction: f64,
    /// Epochs without improvement before stopping.
    pub patience: usize,
}

/// Logistic regression's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LogisticRegression {
    /// Batch, SGD or mini-batch.
    pub solver: Solver,
    /// Initial learning rate η₀.
    pub eta: f32,
    /// How η decays.
    pub schedule: RateSchedule,
    /// L2 strength λ (0: none).
    pub l2: f32,
    /// Passes over the data (the cap, with early stopping).
    pub epochs: usize,
    /// Learn an (unregularized) bias.
    pub bias: bool,
    /// Stop on a held-out fraction.
    pub early_stopping: Option<EarlyStopping>,
    /// Seed for the visiting order and the held-out split.
    pub seed: u64,
    /// Weight of positive examples in the loss (1: none).
    pub positive_weight: f32,
}

impl Default for LogisticRegression {
    fn default() -> Self {
        LogisticRegression {
            solver: Solver::Sgd,
            eta: 1.0,
            schedule: RateSchedule::InverseSqrt,
            l2: 1e-5,
            epochs: 10,
            bias: true,
            early_stopping: None,
            seed: 42,
            positive_weight: 1.0,
        }
    }
}

impl Check for LogisticRegression {
    fn validate(&self) -> Result<(), ConfigError> {
        positive(Param::Eta, self.eta)?;
        positive(Param::PositiveWeight, self.positive_weight)?;
        check_l2(self.eta, self.l2)?;
        at_least_one(Param::Epochs, self.epochs)?;
        if let Solver::MiniBatch(b) = self.solver {
            at_least_one(Param::BatchSize, b)?;
        }
        if let Some(es) = self.early_stopping {
            if !(es.fraction > 0.0 && es.fraction < 1.0) {
                return Err(ConfigError::new(
                    Param::EarlyStopFraction,
                    es.fraction,
                    "must be between 0 and 1",
                ));
            }
            at_least_one(Param::EarlyStopPatience, es.patience)?;
        }
        Ok(())
    }
}

/// Checks an L2 strength: a number ≥ 0 whose product with the learning rate is below 1
/// (else each step's shrink w ← (1 − ηλ)·w would flip the weights).
pub(crate) fn check_l2(eta: f32, l2: f32) -> Result<(), ConfigError> {
    non_negative(Param::L2, l2)?;
    if eta * l2 >= 1.0 {
        return Err(ConfigError::new(
            Param::L2,
            format!("{l2} with a learning rate of {eta}"),
            "times the learning rate must be below 1 (each step would flip the weights)",
        ));
    }
    Ok(())
}

/// A seeded (fit, held-out) partition of `0..n`, each part sorted.
fn holdout(n: usize, fraction: f64, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut idx: Vec<usize> = (0..n).collect();
    epoch_order(&mut idx, Some(seed ^ 0x5eed), 0);
    let k = ((n as f64) * fraction).round() as usize;
    let (mut held, mut fit) = (idx[..k].to_vec(), idx[k..].to_vec());
    held.sort_unstable();
    fit.sort_unstable();
    (fit, held)
}

impl LogisticRegression {
    /// The rows a fit over `n` rows trains on and those it holds out for early stopping
    /// (none without it); an error where holding out leaves none to train on.
    pub(crate) fn split_rows(&self, n: usize) -> Result<(Vec<usize>, Vec<usize>)> {
        let (rows, held) = match self.early_stopping {
            Some(es) if n >= 2 => holdout(n, es.fraction, self.seed),
            _ => ((0..n).collect(), Vec::new()),
        };
        if rows.is_empty() {
            return Err(Error::Data(
                "no rows left to train on after holding out".into(),
            ));
        }
        Ok((rows, held))
    }

    /// Epochs without improvement before early stopping stops a fit (never without it).
    pub(crate) fn patience(&self) -> usize {
        self.early_stopping.map_or(usize::MAX, |e| e.patience)
    }
}

/// Early stopping's record of one fit: the best held-out loss so far with its model, and
/// the epochs since it.
#[derive(Debug, Default)]
pub(crate) struct BestEpoch {
    best: Option<(f64, LinearModel)>,
    since: usize,
}

impl BestEpoch {
    /// Records an epoch's model `m` and its held-out `loss`; whether `patience` epochs
    /// have passed without improving on the best, so that the fit stops.
    pub(crate) fn stops(&mut self, loss: f64, m: LinearModel, patience: usize) -> bool {
        if self.best.as_ref().is_none_or(|(l, _)| loss < *l - 1e-7) {
            self.best = Some((loss, m));
            self.since = 0;
            return false;
        }
        self.since += 1;
        self.since >= patience
    }

    /// The best epoch's model, if any epoch was scored.
    pub(crate) fn into_model(self) -> Option<LinearModel> {
        self.best.map(|(_, m)| m)
    }
}

/// Mean log-loss of `m` on rows `idx`.
pub(crate) fn held_out_loss<X: SparseRows>(
    m: &LinearModel,
    x: &X,
    y: &[Label],
    idx: &[usize],
) -> f64 {
    use super::Classifier;
    let sum: f64 = idx
        .iter()
        .map(|&i| f64::from(log_loss(f32::from(y[i]) * m.score(x.row(i)))))
        .sum();
    sum / idx.len().max(1) as f64
}

impl Checked<LogisticRegression> {
    /// One pass over `rows` (in that order) in chunks of `batch`, moving the weights
    /// `(w, b)`; `seen` counts the rows visited before (the rate schedule reads it) and
    /// grows by this pass's. Returns the pass's mistakes and gradient steps.
    fn epoch<X: SparseRows>(
        &self,
        x: &X,
        y: &[Label],
        rows: &[usize],
        batch: usize,
        (w, b): (&mut Scaled, &mut f32),
        seen: &mut u64,
    ) -> (u64, u64) {
        let n = rows.len();
        let (mut mistakes, mut steps) = (0u64, 0u64);
        let mut coef = Vec::with_capacity(batch);
        for chunk in rows.chunks(batch) {
            let eta = self.schedule.rate(self.eta, *seen as f32 / n as f32);
            coef.clear();
            for &i in chunk {
                let yi = f32::from(y[i]);
                let m = yi * (w.dot(x.row(i)) + *b);
                mistakes += u64::from(m <= 0.0);
                let weight = if yi > 0.0 { self.positive_weight } else { 1.0 };
                // −∂/∂z of the loss: y·θ(−y z)
                coef.push(weight * yi / (1.0 + m.exp()));
            }
            let step = eta / chunk.len() as f32;
            w.shrink(1.0 - eta * self.l2);
            for (&i, &c) in chunk.iter().zip(&coef) {
                if c != 0.0 {
                    w.add(step * c, x.row(i));
                }
                if self.bias {
                    *b += step * c;
                }
            }
            *seen += chunk.len() as u64;
            steps += 1;
        }
        (mistakes, steps)
    }

    /// Pass `epoch` (from 0) over all of `x` from the weights `start`, as the lone
    /// learner makes it: the same visiting order and the rate at `epoch` passes done.
    /// Returns the weights after it, the rows visited, the gradient steps and the
    /// mistakes (a worker's round of parameter mixing; no early stopping there).
    pub(crate) fn epoch_from<X: SparseRows>(
        &self,
        x: &X,
        y: &[Label],
        start: &LinearModel,
        epoch: usize,
    ) -> Result<(LinearModel, u64, u64, u64)> {
        check_binary(x, y)?;
        let n = x.n_rows();
        let mut rows: Vec<usize> = (0..n).collect();
        let batch = self.solver.rows_per_step(n);
        epoch_order_in(
            &mut rows,
            (self.solver != Solver::Batch).then_some(self.seed),
            epoch,
            x.shuffle_block(),
        );
        let mut w = Scaled {
            v: start.w.to_vec(),
            s: 1.0,
        };
        let mut b = start.bias;
        let mut seen = (epoch * n) as u64;
        let (mistakes, steps) = self.epoch(x, y, &rows, batch, (&mut w, &mut b), &mut seen);
        let last = LinearModel {
            w: w.to_vec().into(),
            bias: b,
        };
        Ok((last, n as u64, steps, mistakes))
    }
}

impl Learner for Checked<LogisticRegression> {
    type Model = LinearModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<LinearModel>> {
        check_binary(x, y)?;
        let (mut rows, held) = self.split_rows(x.n_rows())?;
        let n = rows.len();
        let batch = self.solver.rows_per_step(n);
        let shuffle = (self.solver != Solver::Batch).then_some(self.seed);
        let mut w = Scaled::zeros(x.n_cols());
        let mut b = 0f32;
        let mut report = TrainReport::default();
        let mut best = BestEpoch::default();
        let mut seen = 0u64;
        crate::learn::progress::plan(self.epochs);
        for epoch in 0..self.epochs {
            crate::learn::progress::epoch_begun();
            epoch_order_in(&mut rows, shuffle, epoch, x.shuffle_block());
            let (mistakes, steps) = self.epoch(x, y, &rows, batch, (&mut w, &mut b), &mut seen);
            report.updates += steps;
            report.epochs += 1;
            report.mistakes_per_epoch.push(mistakes);
            if !held.is_empty() {
                let m = LinearModel {
                    w: w.to_vec().into(),
                    bias: b,
                };
                let loss = held_out_loss(&m, x, y, &held);
                if best.stops(loss, m, self.patience()) {
                    report.converged = Some(true);
                    break;
                }
            }
        }
        report.steps = seen;
        if self.early_stopping.is_some() && report.converged.is_none() {
            report.converged = Some(false);
        }
        let model = best.into_model().unwrap_or_else(|| LinearModel {
            w: w.to_vec().into(),
            bias: b,
        });
        Ok(Fitted { model, report })
    }
}

impl LearnerKind for LogisticRegression {
    const NAME: &'static str = "logistic";
    const ABOUT: &'static str = "logistic regression";
    const ACCEPTS: &'static [Param] = &[
        Param::Eta,
        Param::Epochs,
        Param::Bias,
        Param::Solver,
        Param::RateSchedule,
        Param::L2,
        Param::EarlyStopFraction,
        Param::PositiveWeight,
    ];
    const TUNED: &'static [Setting] = &[Setting::L2(1e-5), Setting::L2(1e-4)];
    const COST_PER_EPOCH: f64 = 0.3;

    fn set(&mut self, setting: Setting) -> Result<(), ConfigError> {
        match setting {
            Setting::Eta(eta) => self.eta = eta,
            Setting::Epochs(e) => self.epochs = e,
            Setting::Bias(b) => self.bias = on_off_bias(Self::NAME, b)?,
            Setting::Solver(s) => self.solver = s,
            Setting::RateSchedule(r) => self.schedule = r,
            Setting::L2(l2) => self.l2 = l2,
            Setting::EarlyStopping(e) => self.early_stopping = Some(e),
            Setting::PositiveWeight(w) => self.positive_weight = w,
            _ => {}
        }
        Ok(())
    }

    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    fn bias(&self) -> Bias {
        bias_of(self.bias)
    }

    /// The flags' words: `--early-stop F` shows as "early stop F (patience P)".
    fn describe(&self) -> String {
        let stop = match self.early_stopping {
            Some(e) => format!(", early stop {} (patience {})", e.fraction, e.patience),
            None => String::new(),
        };
        format!(
            "{:?}, eta {} ({:?}), l2 {}, {} epochs{stop}",
            self.solver, self.eta, self.schedule, self.l2, self.epochs
        )
        .to_lowercase()
    }

    fn probabilistic(&self) -> bool {
        true
    }

    /// A gradient step at η after every message (decaying when the schedule decays).
    fn update_rule(&self) -> Option<UpdateRule> {
        let rate = match self.schedule {
            RateSchedule::Constant => Rate::Constant,
            _ => Rate::Decaying,
        };
        Some(UpdateRule::Logistic {
            eta: self.eta,
            rate,
        })
    }

    /// Its passes mix (any solver) unless it stops early on held-out rows.
    fn mix_plan(&self) -> Option<MixPlan> {
        self.early_stopping.is_none().then_some(MixPlan {
            rounds: self.epochs,
            average: false,
        })
    }

    fn local_epoch<X: SparseRows>(
        &self,
        x: &X,
        y: &[Label],
        start: &LinearModel,
        round: usize,
    ) -> Option<Result<LocalEpoch>> {
        let epoch = Checked::assume(*self).epoch_from(x, y, start, round);
        Some(epoch.map(|(last, visits, updates, mistakes)| LocalEpoch {
            last,
            average: None,
            visits,
            updates,
            mistakes,
        }))
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // indices name rows and features
mod tests {
    use super::*;
    use crate::features::{RealMatrix, real_from_dense};
    use crate::learn::Classifier;
    use rand::{Rng, SeedableRng};

    /// The model's learner line names early stopping as its flag does, and leaves it out
    /// when off.
    #[test]
    fn the_description_names_early_stopping_in_words() {
        use crate::learn::kind::LearnerKind;
        let mut l = LogisticRegression::default();
        assert!(!l.describe().contains("early"), "{}", l.describe());
        l.early_stopping = Some(EarlyStopping {
            fraction: 0.2,
            patience: 3,
        });
        assert!(
            l.describe().ends_with(", early stop 0.2 (patience 3)"),
            "{}",
            l.describe()
        );
    }

    fn random_data(n: usize, d: usize, seed: u64) -> (RealMatrix, Vec<Label>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let rows: Vec<Vec<f32>> = (0..n)
            .map(|_| {
                (0..d)
                    .map(|j| {
                        if j < 2 || rng.gen_bool(0.4) {
                            rng.gen_range(-2.0..2.0)
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect();
        let y = rows
            .iter()
            .map(|r| {
                if r[0] - r[1] + rng.gen_range(-0.2..0.2) > 0.0 {
                    1
                } else {
                    -1
                }
            })
            .collect();
        (real_from_dense(&rows), y)
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let (x, y) = random_data(30, 6, 1);
        let m = LinearModel {
            w: vec![0.3, -0.7, 0.1, 0.0, 0.5, -0.2].into(),
            bias: 0.25,
        };
        let l2 = 0.1;
        let (_, g, gb) = objective(&m, &x, &y, l2);
        let h = 1e-3f32;
        for j in 0..6 {
            let (mut a, mut b) = (m.clone(), m.clone());
            a.w[j] += h;
            b.w[j] -= h;
            let fd =
                (objective(&a, &x, &y, l2).0 - objective(&b, &x, &y, l2).0) / (2.0 * f64::from(h));
            assert!((fd - g[j]).abs() < 1e-4, "w[{j}]: {fd} vs {}", g[j]);
        }
        let (mut a, mut b) = (m.clone(), m.clone());
        a.bias += h;
        b.bias -= h;
        let fd = (objective(&a, &x, &y, l2).0 - objective(&b, &x, &y, l2).0) / (2.0 * f64::from(h));
        assert!((fd - gb).abs() < 1e-4, "bias: {fd} vs {gb}");
    }

    #[test]
    fn batch_steps_follow_the_gradient_and_lower_the_objective() {
        let (x, y) = random_data(40, 5, 2);
        let lr = LogisticRegression {
            solver: Solver::Batch,
            eta: 0.5,
            schedule: RateSchedule::Constant,
            l2: 0.05,
            epochs: 1,
            ..LogisticRegression::default()
        };
        // From w = 0, one batch step is −η·∇J(0).
        let one = lr.check().unwrap().fit(&x, &y).unwrap().model;
        let (j0, g, gb) = objective(&LinearModel::zeros(5), &x, &y, 0.05);
        for j in 0..5 {
            assert!((f64::from(one.w[j]) + 0.5 * g[j]).abs() < 1e-5);
        }
        assert!((f64::from(one.bias) + 0.5 * gb).abs() < 1e-5);
        let many = LogisticRegression { epochs: 30, ..lr }
            .check()
            .unwrap()
            .fit(&x, &y)
            .unwrap()
            .model;
        let j1 = objective(&one, &x, &y, 0.05).0;
        let j30 = objective(&many, &x, &y, 0.05).0;
        assert!(j30 < j1 && j1 < j0, "{j0} {j1} {j30}");
    }

    #[test]
    fn sgd_and_minibatch_learn_and_stop_early() {
        let (x, y) = random_data(400, 8, 3);
        for solver in [Solver::Sgd, Solver::MiniBatch(16)] {
            let lr = LogisticRegression {
                solver,
                epochs: 50,
                early_stopping: Some(EarlyStopping {
                    fraction: 0.2,
                    patience: 2,
                }),
                ..LogisticRegression::default()
            };
            let f = lr.check().unwrap().fit(&x, &y).unwrap();
            let acc = (0..400)
                .filter(|&i| f.model.predict(x.row(i)) == y[i])
                .count() as f64
                / 400.0;
            assert!(acc > 0.85, "{solver:?}: accuracy {acc}");
            assert!(f.report.converged.is_some());
            if solver == Solver::Sgd {
                assert_eq!(f.report.converged, Some(true), "SGD did not stop early");
                assert!(f.report.epochs < 50);
            }
            let p = sigmoid(f.model.score(x.row(0)));
            assert!(p > 0.0 && p < 1.0);
        }
        let bad = LogisticRegression {
            eta: 2.0,
            l2: 0.6,
            ..LogisticRegression::default()
        };
        assert_eq!(bad.check().unwrap_err().param, Param::L2);
    }
}
