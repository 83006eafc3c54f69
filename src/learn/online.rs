//! The loop shared by the additive online learners (averaged and margin perceptrons,
//! Passive-Aggressive): visit rows, ask the learner's rule for a step size τ from the
//! signed margin y·(w·x + b), and add τ·y·x. Only the row's nonzeros are touched.
//!
//! Averaging uses the accumulator trick: beside `w` keep `u`, and on an update at visit
//! `t` (1-based) add `(t − 1)·τ·y·x` to `u`; after `T` visits the average of the weights
//! after each visit, (1/T)·Σₜ wₜ, equals `w − u/T`. No dense work per example.

use super::Bias;
use super::Setting;
use super::{Fitted, Label, LinearModel, TrainReport, check_binary};
use crate::Result;
use crate::error::ConfigError as BiasError;
use crate::error::{ConfigError, Param, at_least_one, positive};
use crate::features::{RowAccess, RowTask, SparseRows, with_rows};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

/// The settings every additive online learner shares.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OnlineOptions {
    /// Passes over the data.
    pub epochs: usize,
    /// Learn a bias b as the weight of a constant feature 1.
    pub bias: bool,
    /// Return the average of the weights after every visit instead of the last ones.
    pub average: bool,
    /// Visit the rows in a fresh seeded random order each epoch (`None`: input order).
    pub shuffle: Option<u64>,
    /// Multiplies the steps taken on positive examples (1: none); a value above 1 helps
    /// rare positive classes in one-vs-rest problems.
    pub positive_weight: f32,
}

impl Default for OnlineOptions {
    fn default() -> Self {
        OnlineOptions {
            epochs: 10,
            bias: true,
            average: false,
            shuffle: Some(42),
            positive_weight: 1.0,
        }
    }
}

impl OnlineOptions {
    /// Checks the settings (each learner that holds them checks them as part of its own).
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        at_least_one(Param::Epochs, self.epochs)?;
        positive(Param::PositiveWeight, self.positive_weight)
    }

    /// The parameters every additive online learner takes (averaging apart).
    pub(crate) const PARAMS: [Param; 4] = [
        Param::Epochs,
        Param::Bias,
        Param::Shuffle,
        Param::PositiveWeight,
    ];

    /// Applies one of [`OnlineOptions::PARAMS`] or averaging; `false`: not one of them.
    pub(crate) fn set(&mut self, learner: &str, setting: Setting) -> Result<bool, ConfigError> {
        match setting {
            Setting::Epochs(e) => self.epochs = e,
            Setting::Bias(b) => self.bias = on_off_bias(learner, b)?,
            Setting::Shuffle(s) => self.shuffle = s,
            Setting::PositiveWeight(w) => self.positive_weight = w,
            Setting::Average(a) => self.average = a,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Keeps the shuffle on, seeded by `seed`.
    pub(crate) fn set_seed(&mut self, seed: u64) {
        self.shuffle = self.shuffle.map(|_| seed);
    }

    /// The settings in words.
    pub(crate) fn describe(&self) -> String {
        format!(
            "{} epochs, bias {}, averaged {}, shuffle {}",
            self.epochs,
            self.bias,
            self.average,
            self.shuffle.is_some()
        )
    }
}

/// The order of the rows in `epoch`: input order, or a seeded shuffle of the sorted rows
/// that depends only on the seed, the epoch and the set of rows (`order` holds distinct
/// row indices).
pub(crate) fn epoch_order(order: &mut [usize], shuffle: Option<u64>, epoch: usize) {
    epoch_order_in(order, shuffle, epoch, None);
}

/// [`epoch_order`] for rows best read a block at a time
/// ([`SparseRows::shuffle_block`]): with `Some(b)`, the sorted rows are cut into runs of
/// `b`, and the shuffle visits the runs in a seeded random order and each run's rows in a
/// seeded random order, so that consecutive visits stay within one stretch of the rows.
pub(crate) fn epoch_order_in(
    order: &mut [usize],
    shuffle: Option<u64>,
    epoch: usize,
    block: Option<usize>,
) {
    let Some(seed) = shuffle else {
        return;
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed.wrapping_add(epoch as u64));
    let n = order.len();
    // Distinct and below n: a permutation of 0..n, sorted in O(n). (A sort costs as much
    // as a perceptron epoch on short rows.)
    let all = order.iter().all(|&i| i < n);
    if all {
        for (i, o) in order.iter_mut().enumerate() {
            *o = i;
        }
    } else {
        order.sort_unstable();
    }
    match block.filter(|&b| b > 0 && b < n) {
        None => order.shuffle(&mut rng),
        Some(b) => {
            // The runs in a shuffled order, then each run's rows shuffled in place. All
            // the rows: run r is r·b.., written where it lands, with no copy of the order.
            let mut runs: Vec<usize> = (0..n.div_ceil(b)).collect();
            runs.shuffle(&mut rng);
            let sorted = if all { Vec::new() } else { order.to_vec() };
            let mut at = 0;
            for r in runs {
                let rows = r * b..((r + 1) * b).min(n);
                let len = rows.len();
                let dst = &mut order[at..at + len];
                if all {
                    dst.iter_mut().zip(rows).for_each(|(o, i)| *o = i);
                } else {
                    dst.copy_from_slice(&sorted[rows]);
                }
                dst.shuffle(&mut rng);
                at += len;
            }
        }
    }
}

/// Runs the online loop with checked options. `rule(m, q)` gets the signed margin
/// `m = y·(w·x + b)` and the squared norm `q` of the (augmented) row, and returns the step
/// size τ ≥ 0 (0: no update).
pub(crate) fn train_online<X: SparseRows>(
    x: &X,
    y: &[Label],
    opt: &OnlineOptions,
    rule: impl FnMut(f32, f32) -> f32,
) -> Result<Fitted<LinearModel>> {
    let run = run_epochs(x, y, opt, rule, None, 0)?;
    Ok(Fitted {
        model: run.average.unwrap_or(run.last),
        report: run.report,
    })
}

/// What a run of the loop ends with.
pub(crate) struct OnlineRun {
    /// The weights after the last visit.
    pub last: LinearModel,
    /// With averaging: the average of the weights after every visit of this run.
    pub average: Option<LinearModel>,
    /// Epochs, visits, updates, mistakes.
    pub report: TrainReport,
}

/// The loop from `start` (zero weights when `None`), its epochs numbered from
/// `first_epoch` for the shuffle: a later call goes on where an earlier one stopped, as
/// iterative parameter mixing needs (one epoch per round from the mixed weights).
pub(crate) fn run_epochs<X: SparseRows>(
    x: &X,
    y: &[Label],
    opt: &OnlineOptions,
    rule: impl FnMut(f32, f32) -> f32,
    start: Option<&LinearModel>,
    first_epoch: usize,
) -> Result<OnlineRun> {
    check_binary(x, y)?;
    if let Some(s) = start.filter(|s| s.w.len() != x.n_cols()) {
        return Err(crate::Error::Data(format!(
            "the starting weights cover {} features, the rows {}",
            s.w.len(),
            x.n_cols()
        )));
    }
    Ok(with_rows(
        x,
        Online {
            y,
            opt,
            rule,
            n_cols: x.n_cols(),
            start,
            first_epoch,
            block: x.shuffle_block(),
        },
    ))
}

/// The loop itself, written once over [`RowAccess`] so binary CSR runs unchecked.
struct Online<'a, R> {
    y: &'a [Label],
    opt: &'a OnlineOptions,
    rule: R,
    n_cols: usize,
    start: Option<&'a LinearModel>,
    first_epoch: usize,
    /// Rows per block of the visiting order ([`SparseRows::shuffle_block`]).
    block: Option<usize>,
}

impl<R: FnMut(f32, f32) -> f32> RowTask for Online<'_, R> {
    type Output = OnlineRun;

    fn run<A: RowAccess>(mut self, x: &A) -> OnlineRun {
        let (y, opt) = (self.y, self.opt);
        let n = x.n_rows();
        let (mut w, mut b) = match self.start {
            Some(s) => (s.w.to_vec(), s.bias),
            None => (vec![0f32; self.n_cols], 0f32),
        };
        let mut u = vec![0f64; if opt.average { self.n_cols } else { 0 }];
        let mut ub = 0f64;
        let extra = if opt.bias { 1.0 } else { 0.0 };
        let mut order: Vec<usize> = (0..n).collect();
        let mut report = TrainReport::default();
        let mut t = 0u64; // visits so far
        crate::learn::progress::plan(opt.epochs);
        for epoch in self.first_epoch..self.first_epoch + opt.epochs {
            crate::learn::progress::epoch_begun();
            epoch_order_in(&mut order, opt.shuffle, epoch, self.block);
            let (mut mistakes, mut updates) = (0u64, 0u64);
            for &i in &order {
                let yi = f32::from(y[i]);
                let m = yi * (x.dot(i, &w) + b);
                mistakes += u64::from(m <= 0.0);
                let mut tau = (self.rule)(m, x.nrm2_sq(i) + extra);
                if yi > 0.0 {
                    tau *= opt.positive_weight;
                }
                if tau > 0.0 {
                    let step = tau * yi;
                    x.axpy(i, step, &mut w);
                    if opt.bias {
                        b += step;
                    }
                    if opt.average {
                        let c = t as f64 * f64::from(step);
                        accumulate(&mut u, x.row_ref(i), c);
                        if opt.bias {
                            ub += c;
                        }
                    }
                    updates += 1;
                }
                t += 1;
            }
            report.epochs += 1;
            report.updates += updates;
            report.mistakes_per_epoch.push(mistakes);
            if updates == 0 && !opt.average {
                report.converged = Some(true);
                break;
            }
        }
        report.steps = t;
        // The average of w after each visit is w − u/t (see the module docs); it holds
        // from any starting point, since u only counts this run's steps.
        let average = (opt.average && t > 0).then(|| {
            let tf = t as f64;
            LinearModel {
                w: w.iter()
                    .zip(&u)
                    .map(|(&wj, uj)| (f64::from(wj) - uj / tf) as f32)
                    .collect(),
                bias: (f64::from(b) - ub / tf) as f32,
            }
        });
        OnlineRun {
            last: LinearModel {
                w: w.into(),
                bias: b,
            },
            average,
            report,
        }
    }
}

/// `u ← u + c·x` in double precision (the accumulator can grow large).
fn accumulate(u: &mut [f64], x: crate::RowRef<'_>, c: f64) {
    if x.is_uniform() {
        let c = c * f64::from(x.scale);
        for &j in x.ids {
            u[j as usize] += c;
        }
    } else {
        for (j, v) in x.iter() {
            u[j as usize] += c * f64::from(v);
        }
    }
}

/// The on/off bias of the learners that have no R² bias.
pub(crate) fn on_off_bias(learner: &str, bias: Bias) -> Result<bool, BiasError> {
    match bias {
        Bias::None => Ok(false),
        Bias::Augmented => Ok(true),
        Bias::R2 => Err(BiasError::new(
            Param::Bias,
            "r2",
            format!(
                "must be none or augmented for {learner} (the R² bias is the perceptrons' \
                 and the kernel perceptron's)"
            ),
        )),
    }
}
