//! Rosenblatt's perceptron exactly as the seed notes state it: w₀ = 0; a mistake when
//! y·(w·x) ≤ 0 (a zero score is a mistake); update w ← w + η·y·x; k counts updates.
//!
//! Schedules: online (one predict-then-learn pass), batch (I epochs in order), until
//! convergence (epochs until one makes no mistake, with a cap) and randomized (seeded
//! draws, optionally stopping after N consecutive examples without an update). Bias: none,
//! an augmented constant feature x̃ = (x, 1), or the R² step b ← b + η·y·R².

use super::kind::{LearnerKind, order};
use super::online::OnlineOptions;
use super::online::epoch_order;
use super::step::Rule;
use super::{Check, Checked, Fitted, Label, Learner, LinearModel, TrainReport, check_binary};
use super::{Setting, UpdateRule};
use crate::Result;
use crate::error::{ConfigError, Param, at_least_one, positive};
use crate::features::{RowAccess, RowTask, SparseRows, with_rows};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// How the bias is learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bias {
    /// No bias: h(x) = sgn(w·x).
    None,
    /// A constant feature 1 appended to every x: b ← b + η·y.
    Augmented,
    /// The R² step: b ← b + η·y·R², R = max‖xᵢ‖.
    R2,
}

/// The order in which examples are visited and when training stops.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Schedule {
    /// One pass, predict then learn; the mistakes are the online mistakes.
    Online,
    /// This many epochs over the data in order.
    Epochs(usize),
    /// Epochs in order until one makes no mistake, at most `max_epochs`.
    UntilConvergence {
        /// The epoch cap.
        max_epochs: usize,
    },
    /// Examples drawn uniformly at random (seeded) for `rounds` draws; stops early after
    /// `patience` consecutive draws without an update when given.
    Randomized {
        /// Number of draws.
        rounds: u64,
        /// RNG seed.
        seed: u64,
        /// Stop after this many consecutive draws with no update.
        patience: Option<u64>,
    },
}

/// The perceptron's configuration (the configuration is the learner).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Perceptron {
    /// Learning rate η (default 1).
    pub eta: f32,
    /// Bias handling.
    pub bias: Bias,
    /// Visiting order and stopping rule.
    pub schedule: Schedule,
    /// Visit the examples of each pass in a fresh seeded random order (`None`: input
    /// order, the seed notes' schedule). Input sorted by class makes an in-order
    /// perceptron collapse towards the last class, hence the default.
    pub shuffle: Option<u64>,
}

impl Default for Perceptron {
    fn default() -> Self {
        Perceptron {
            eta: 1.0,
            bias: Bias::Augmented,
            schedule: Schedule::Epochs(10),
            shuffle: Some(42),
        }
    }
}

/// One update, reported to an observer (for traces and tests).
#[derive(Debug)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Update<'a> {
    /// The example that caused it.
    pub example: usize,
    /// The epoch (0-based) it happened in.
    pub epoch: usize,
    /// The weights after the update.
    pub w: &'a [f32],
}

impl Schedule {
    /// Checks the epoch count, or the draws and patience of the randomized schedule.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        match *self {
            Schedule::Online => Ok(()),
            Schedule::Epochs(e) | Schedule::UntilConvergence { max_epochs: e } => {
                at_least_one(Param::Epochs, e)
            }
            Schedule::Randomized {
                rounds, patience, ..
            } => {
                at_least_one(Param::Rounds, rounds)?;
                patience.map_or(Ok(()), |p| at_least_one(Param::Patience, p))
            }
        }
    }
}

impl Check for Perceptron {
    fn validate(&self) -> Result<(), ConfigError> {
        positive(Param::Eta, self.eta)?;
        self.schedule.validate()
    }
}

impl Checked<Perceptron> {
    /// Fits, calling `observer` after every update.
    pub(crate) fn fit_observed<X: SparseRows>(
        &self,
        x: &X,
        y: &[Label],
        observer: impl FnMut(Update<'_>),
    ) -> Result<Fitted<LinearModel>> {
        check_binary(x, y)?;
        let task = Train {
            p: self,
            y,
            n_cols: x.n_cols(),
            observer,
        };
        Ok(with_rows(x, task))
    }
}

/// The training loop, written once over [`RowAccess`] so binary CSR runs unchecked.
struct Train<'a, F> {
    p: &'a Perceptron,
    y: &'a [Label],
    n_cols: usize,
    observer: F,
}

impl<F: FnMut(Update<'_>)> RowTask for Train<'_, F> {
    type Output = Fitted<LinearModel>;

    fn run<A: RowAccess>(mut self, x: &A) -> Fitted<LinearModel> {
        let (p, y, n) = (self.p, self.y, x.n_rows());
        let mut m = LinearModel::zeros(self.n_cols);
        let bias_step = match p.bias {
            Bias::None => 0.0,
            Bias::Augmented => p.eta,
            Bias::R2 => p.eta * (0..n).map(|i| x.nrm2_sq(i)).fold(0.0, f32::max),
        };
        // One visit: predict, and update on a mistake (y·(w·x + b) ≤ 0). Returns whether
        // it updated.
        let report = drive(
            p.schedule,
            p.shuffle,
            n,
            |i| x.prefetch(i),
            |i, epoch, _| {
                let yi = f32::from(y[i]);
                if yi * (x.dot(i, &m.w) + m.bias) <= 0.0 {
                    x.axpy(i, p.eta * yi, &mut m.w);
                    m.bias += bias_step * yi;
                    (self.observer)(Update {
                        example: i,
                        epoch,
                        w: &m.w,
                    });
                    true
                } else {
                    false
                }
            },
        );
        Fitted { model: m, report }
    }
}

impl Learner for Checked<Perceptron> {
    type Model = LinearModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<LinearModel>> {
        self.fit_observed(x, y, |_| {})
    }
}

/// Runs a schedule: visits examples pass by pass (in input order, or a seeded shuffle per
/// pass when `shuffle` is set) for fixed epochs or until a pass makes no mistake, or draws
/// them at random (seeded) with optional patience, and keeps the report.
/// `prefetch(i)` is told which example comes two visits ahead in a shuffled pass.
/// `visit(i, epoch, step)` gets the example, its 0-based epoch and the 1-based count of
/// visits so far, and says whether it updated. Shared by the primal and dual perceptrons,
/// so both visit examples in exactly the same order.
pub(crate) fn drive(
    schedule: Schedule,
    shuffle: Option<u64>,
    n: usize,
    prefetch: impl Fn(usize),
    mut visit: impl FnMut(usize, usize, u64) -> bool,
) -> TrainReport {
    let mut report = TrainReport::default();
    match schedule {
        Schedule::Randomized {
            rounds,
            seed,
            patience,
        } => {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let (mut quiet, mut mistakes) = (0u64, 0u64);
            let mut stopped = false;
            for round in 0..rounds {
                let i = rng.gen_range(0..n);
                report.steps += 1;
                if visit(i, (round / n as u64) as usize, report.steps) {
                    quiet = 0;
                    mistakes += 1;
                } else {
                    quiet += 1;
                }
                if patience.is_some_and(|p| quiet >= p) {
                    stopped = true;
                    break;
                }
            }
            report.updates = mistakes;
            report.epochs = report.steps.div_ceil(n as u64) as usize;
            report.mistakes_per_epoch.push(mistakes);
            report.converged = patience.map(|_| stopped);
        }
        fixed => {
            let (epochs, stop_clean) = match fixed {
                Schedule::Epochs(e) => (e, false),
                Schedule::UntilConvergence { max_epochs } => (max_epochs, true),
                _ => (1, false),
            };
            let mut order: Vec<usize> = (0..n).collect();
            crate::learn::progress::plan(epochs);
            for epoch in 0..epochs {
                crate::learn::progress::epoch_begun();
                let mut mistakes = 0;
                let base = report.steps;
                epoch_order(&mut order, shuffle, epoch);
                for (t, &i) in order.iter().enumerate() {
                    if shuffle.is_some()
                        && let Some(&next) = order.get(t + 2)
                    {
                        prefetch(next);
                    }
                    mistakes += u64::from(visit(i, epoch, base + t as u64 + 1));
                }
                report.steps += n as u64;
                report.updates += mistakes;
                report.epochs += 1;
                report.mistakes_per_epoch.push(mistakes);
                if stop_clean && mistakes == 0 {
                    break;
                }
            }
            if stop_clean {
                report.converged = Some(report.mistakes_per_epoch.last() == Some(&0));
            }
        }
    }
    report
}

impl Schedule {
    /// The schedule and visiting order in words.
    pub(crate) fn describe(&self, shuffle: Option<u64>) -> String {
        let order = order(shuffle);
        match *self {
            Schedule::Online => format!("online, {order}"),
            Schedule::Epochs(e) => format!("batch, {e} epochs, {order}"),
            Schedule::UntilConvergence { max_epochs } => {
                format!("until convergence, at most {max_epochs} epochs, {order}")
            }
            Schedule::Randomized { seed, .. } => format!("random, seed {seed}"),
        }
    }

    /// Sets the epochs of the epoch schedules (online and random draws make none).
    pub(crate) fn set_epochs(&mut self, epochs: usize) {
        match self {
            Schedule::Epochs(e) | Schedule::UntilConvergence { max_epochs: e } => *e = epochs,
            Schedule::Online | Schedule::Randomized { .. } => {}
        }
    }

    /// Seeds random draws.
    pub(crate) fn set_seed(&mut self, seed: u64) {
        if let Schedule::Randomized { seed: s, .. } = self {
            *s = seed;
        }
    }
}

impl LearnerKind for Perceptron {
    const NAME: &'static str = "perceptron";
    const ABOUT: &'static str = "Rosenblatt's perceptron";
    const ACCEPTS: &'static [Param] = &[
        Param::Eta,
        Param::Epochs,
        Param::Bias,
        Param::Schedule,
        Param::Shuffle,
    ];

    fn set(&mut self, setting: Setting) -> Result<(), ConfigError> {
        match setting {
            Setting::Eta(eta) => self.eta = eta,
            Setting::Epochs(e) => self.schedule.set_epochs(e),
            Setting::Bias(b) => self.bias = b,
            Setting::Schedule(s) => self.schedule = s,
            Setting::Shuffle(s) => self.shuffle = s,
            _ => {}
        }
        Ok(())
    }

    fn set_seed(&mut self, seed: u64) {
        self.shuffle = self.shuffle.map(|_| seed);
        self.schedule.set_seed(seed);
    }

    fn bias(&self) -> Bias {
        self.bias
    }

    fn describe(&self) -> String {
        let mode = self.schedule.describe(self.shuffle);
        format!("{mode}, eta {}, bias {:?}", self.eta, self.bias).to_lowercase()
    }

    fn update_rule(&self) -> Option<UpdateRule> {
        Some(UpdateRule::Perceptron)
    }

    /// A step η on a mistake (margin ≤ 0) is the thick-threshold rule at τ = 0; random
    /// draws and the R² bias do not mix.
    fn mixing_rule(&self) -> Option<(OnlineOptions, Rule)> {
        let epochs = match self.schedule {
            Schedule::Epochs(e) | Schedule::UntilConvergence { max_epochs: e } => e,
            Schedule::Online => 1,
            Schedule::Randomized { .. } => return None,
        };
        let bias = match self.bias {
            Bias::None => false,
            Bias::Augmented => true,
            Bias::R2 => return None,
        };
        let opt = OnlineOptions {
            epochs,
            bias,
            average: false,
            shuffle: self.shuffle,
            positive_weight: 1.0,
        };
        Some((
            opt,
            Rule::Margin {
                tau: 0.0,
                eta: self.eta,
            },
        ))
    }

    fn schedule_mut(&mut self) -> Option<&mut Schedule> {
        Some(&mut self.schedule)
    }
}
