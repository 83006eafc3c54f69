//! Softmax (multinomial logistic) regression: one weight vector per class and
//! P(c | x) = e^(z_c) / Σₖ e^(z_k) with z_c = w_c·x + b_c, fitted by SGD or mini-batches
//! on the cross-entropy, with lazily scaled L2 (all K vectors share one scale) and the
//! same learning-rate schedules as [`super::LogisticRegression`].
//!
//! Weights are stored feature-major (the K weights of a feature side by side), so a row's
//! nonzeros touch K contiguous floats each. Targets are class distributions: one class
//! (single-label), or a document's labels with equal shares (multi-label).
//!
//! With two classes the model is logistic regression on w₁ − w₀: softmax with rate η and
//! L2 λ takes exactly the steps of logistic regression with rate 2η and L2 λ/2.

use super::kind::LearnerKind;
use super::logistic::{RateSchedule, Scaled, check_l2};
use super::online::epoch_order_in;
use super::{Bias, Setting, Solver};
use super::{
    Check, Checked, Fitted, Label, Learner, LinearModel, MultiLabel, Multiclass, TrainReport,
    check_binary,
};
use crate::error::{ConfigError, Param, at_least_one, positive};
use crate::features::{RowRef, SparseRows};
use crate::raw::CowVec;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Softmax regression's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SoftmaxRegression {
    /// Initial learning rate η₀.
    pub eta: f32,
    /// How η decays.
    pub schedule: RateSchedule,
    /// L2 strength λ.
    pub l2: f32,
    /// Passes over the data.
    pub epochs: usize,
    /// Rows per step (1: SGD).
    pub batch: usize,
    /// Seed of the visiting order.
    pub seed: u64,
}

impl Default for SoftmaxRegression {
    fn default() -> Self {
        SoftmaxRegression {
            eta: 1.0,
            schedule: RateSchedule::InverseSqrt,
            l2: 1e-5,
            epochs: 10,
            batch: 1,
            seed: 42,
        }
    }
}

/// A fitted softmax model over `k` classes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SoftmaxModel {
    /// Number of classes.
    pub k: usize,
    /// Feature-major weights: `w[j·k + c]` is feature j's weight for class c.
    pub w: CowVec<f32>,
    /// One bias per class.
    #[serde(with = "crate::raw::array")]
    pub bias: Vec<f32>,
}

impl SoftmaxModel {
    /// The logits z_c = w_c·x + b_c into `out` (length k): the per-class scores a
    /// front end reports beside the probabilities.
    pub(crate) fn logits(&self, row: RowRef<'_>, out: &mut [f32]) {
        out.copy_from_slice(&self.bias);
        accumulate_logits(&self.w, self.k, 1.0, row, out);
    }

    /// The class probabilities.
    pub(crate) fn probabilities(&self, row: RowRef<'_>) -> Vec<f32> {
        let mut z = vec![0.0; self.k];
        self.logits(row, &mut z);
        softmax_in_place(&mut z);
        z
    }

    /// The most probable class and its logit.
    pub(crate) fn decide(&self, row: RowRef<'_>) -> (usize, f32) {
        let mut z = vec![0.0; self.k];
        self.logits(row, &mut z);
        z.iter()
            .enumerate()
            .fold((0, f32::NEG_INFINITY), |best, (c, &s)| {
                if s > best.1 { (c, s) } else { best }
            })
    }

    /// Rows learned in order, one stochastic gradient step on the cross-entropy each, at
    /// rate η/√(1 + t) after t rows (t counting on from `seen`): for the row's
    /// probabilities p, class c's weights move by −rate·(p_c − [c = y])·x. It exists so
    /// that a softmax model goes on learning row by row (the Python package's
    /// `partial_fit`) where [`SoftmaxRegression`]'s epochs have stopped; no L2. `y` holds
    /// each row's class; every id of `x` must have its weights. Returns the rows seen
    /// after these.
    pub fn learn_rows<X: SparseRows>(&mut self, x: &X, y: &[usize], eta: f32, seen: u64) -> u64 {
        let k = self.k;
        let mut z = vec![0.0f32; k];
        let mut seen = seen;
        for (i, &yi) in y.iter().enumerate() {
            let row = x.row(i);
            self.logits(row, &mut z);
            softmax_in_place(&mut z);
            let rate = RateSchedule::InverseSqrt.rate(eta, seen as f32);
            for (c, g) in z.iter_mut().enumerate() {
                *g = rate * (*g - if c == yi { 1.0 } else { 0.0 });
            }
            for (j, v) in row.iter() {
                let w = &mut self.w[j as usize * k..(j as usize + 1) * k];
                w.iter_mut().zip(&z).for_each(|(wc, g)| *wc -= g * v);
            }
            self.bias.iter_mut().zip(&z).for_each(|(b, g)| *b -= g);
            seen += 1;
        }
        seen
    }

    /// For two classes: the binary linear model w₁ − w₀, b₁ − b₀ (a logit for class 1).
    pub(crate) fn to_binary(&self) -> Option<super::LinearModel> {
        (self.k == 2).then(|| super::LinearModel {
            w: self.w.chunks_exact(2).map(|c| c[1] - c[0]).collect(),
            bias: self.bias[1] - self.bias[0],
        })
    }
}

/// out += scale · (row's weights summed per class). Ids beyond the weights (a wider
/// matrix than the model, e.g. SVMlight rows with larger ids) contribute nothing.
#[inline]
fn accumulate_logits(w: &[f32], k: usize, scale: f32, row: RowRef<'_>, out: &mut [f32]) {
    for (n, &j) in row.ids.iter().enumerate() {
        let v = scale * row.value(n);
        let Some(wj) = w.get(j as usize * k..(j as usize + 1) * k) else {
            break; // ids are sorted: the rest are beyond the weights too
        };
        for (o, &wc) in out.iter_mut().zip(wj) {
            *o += v * wc;
        }
    }
}

/// z ← softmax(z), stably.
pub(crate) fn softmax_in_place(z: &mut [f32]) {
    let max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in z.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in z.iter_mut() {
        *v /= sum;
    }
}

impl Check for SoftmaxRegression {
    fn validate(&self) -> Result<(), ConfigError> {
        positive(Param::Eta, self.eta)?;
        check_l2(self.eta, self.l2)?;
        at_least_one(Param::Epochs, self.epochs)?;
        at_least_one(Param::BatchSize, self.batch)
    }
}

/// Two classes: the logit of the positive class, w₁ − w₀ (see the module notes).
impl Learner for Checked<SoftmaxRegression> {
    type Model = LinearModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<LinearModel>> {
        check_binary(x, y)?;
        let targets: Vec<Vec<usize>> = y.iter().map(|&l| vec![usize::from(l > 0)]).collect();
        let f = self.fit_targets(x, &targets, 2)?;
        let model = f.model.to_binary().expect("two classes");
        Ok(Fitted {
            model,
            report: f.report,
        })
    }
}

/// One class per row: each row's target puts all its mass on its class.
impl Learner<Multiclass<'_>> for Checked<SoftmaxRegression> {
    type Model = SoftmaxModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &Multiclass<'_>) -> Result<Fitted<SoftmaxModel>> {
        y.check(x)?;
        let targets: Vec<Vec<usize>> = y.classes.iter().map(|&c| vec![c]).collect();
        self.fit_targets(x, &targets, y.k)
    }
}

/// Label sets: row i's target gives each of its labels an equal share (rows with no label
/// are skipped).
impl Learner<MultiLabel<'_>> for Checked<SoftmaxRegression> {
    type Model = SoftmaxModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &MultiLabel<'_>) -> Result<Fitted<SoftmaxModel>> {
        y.check(x)?;
        self.fit_targets(x, y.sets, y.k)
    }
}

impl Checked<SoftmaxRegression> {
    /// The SGD loop over target distributions (rows and labels already checked).
    fn fit_targets<X: SparseRows>(
        &self,
        x: &X,
        targets: &[Vec<usize>],
        k: usize,
    ) -> Result<Fitted<SoftmaxModel>> {
        if k < 2 {
            return Err(Error::Data(
                "softmax regression needs at least two classes".into(),
            ));
        }
        let mut rows: Vec<usize> = (0..x.n_rows())
            .filter(|&i| !targets[i].is_empty())
            .collect();
        if rows.is_empty() {
            return Err(Error::Data("no labelled training examples".into()));
        }
        let n = rows.len();
        let mut w = Scaled::zeros(x.n_cols() * k);
        let mut b = vec![0f32; k];
        let batch = self.batch.min(n);
        let mut grads: Vec<f32> = Vec::with_capacity(batch * k);
        let mut z = vec![0f32; k];
        let mut report = TrainReport::default();
        let mut seen = 0u64;
        crate::learn::progress::plan(self.epochs);
        for epoch in 0..self.epochs {
            crate::learn::progress::epoch_begun();
            epoch_order_in(&mut rows, Some(self.seed), epoch, x.shuffle_block());
            let mut mistakes = 0u64;
            for chunk in rows.chunks(batch) {
                let eta = self.schedule.rate(self.eta, seen as f32 / n as f32);
                grads.clear();
                for &i in chunk {
                    z.copy_from_slice(&b);
                    accumulate_logits(&w.v, k, w.s, x.row(i), &mut z);
                    let top = (0..k).fold(0, |a, c| if z[c] > z[a] { c } else { a });
                    mistakes += u64::from(!targets[i].contains(&top));
                    softmax_in_place(&mut z);
                    let share = 1.0 / targets[i].len() as f32;
                    for &c in &targets[i] {
                        z[c] -= share;
                    }
                    // The gradient of the cross-entropy in z is p − t; store t − p.
                    grads.extend(z.iter().map(|g| -g));
                }
                let step = eta / chunk.len() as f32;
                w.shrink(1.0 - eta * self.l2);
                for (&i, g) in chunk.iter().zip(grads.chunks_exact(k)) {
                    let row = x.row(i);
                    let a = step / w.s;
                    for (nz, &j) in row.ids.iter().enumerate() {
                        let v = a * row.value(nz);
                        let wj = &mut w.v[j as usize * k..(j as usize + 1) * k];
                        for (wc, &gc) in wj.iter_mut().zip(g) {
                            *wc += v * gc;
                        }
                    }
                    for (bc, &gc) in b.iter_mut().zip(g) {
                        *bc += step * gc;
                    }
                }
                seen += chunk.len() as u64;
                report.updates += 1;
            }
            report.epochs += 1;
            report.mistakes_per_epoch.push(mistakes);
        }
        report.steps = seen;
        Ok(Fitted {
            model: SoftmaxModel {
                k,
                w: w.to_vec().into(),
                bias: b,
            },
            report,
        })
    }
}

impl LearnerKind for SoftmaxRegression {
    const NAME: &'static str = "softmax";
    const ABOUT: &'static str = "softmax (multinomial) regression";
    const ACCEPTS: &'static [Param] = &[
        Param::Eta,
        Param::Epochs,
        Param::Solver,
        Param::RateSchedule,
        Param::L2,
    ];
    const TUNED: &'static [Setting] = &[Setting::L2(1e-5), Setting::L2(1e-4)];
    const COST_PER_EPOCH: f64 = 0.3;

    fn set(&mut self, setting: Setting) -> std::result::Result<(), ConfigError> {
        match setting {
            Setting::Eta(eta) => self.eta = eta,
            Setting::Epochs(e) => self.epochs = e,
            Setting::Solver(Solver::Sgd) => self.batch = 1,
            Setting::Solver(Solver::MiniBatch(b)) => self.batch = b,
            Setting::Solver(Solver::Batch) => {
                return Err(ConfigError::new(
                    Param::Solver,
                    "batch",
                    "must be sgd or minibatch for softmax regression",
                ));
            }
            Setting::RateSchedule(r) => self.schedule = r,
            Setting::L2(l2) => self.l2 = l2,
            _ => {}
        }
        Ok(())
    }

    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    fn bias(&self) -> Bias {
        Bias::Augmented
    }

    fn describe(&self) -> String {
        format!(
            "batch {}, eta {} ({:?}), l2 {}, {} epochs",
            self.batch, self.eta, self.schedule, self.l2, self.epochs
        )
        .to_lowercase()
    }

    fn probabilistic(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::real_from_dense;
    use crate::learn::{Classifier, Label, LogisticRegression, Solver};
    use rand::{Rng, SeedableRng};

    #[test]
    fn two_classes_make_the_logistic_models_decisions() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let rows: Vec<Vec<f32>> = (0..200)
            .map(|_| {
                (0..10)
                    .map(|_| if rng.gen_bool(0.5) { 1.0 } else { 0.0 })
                    .collect()
            })
            .collect();
        let y: Vec<Label> = rows
            .iter()
            .map(|r| {
                if r[0] + r[1] - r[2] + rng.gen_range(-0.8..0.8) > 0.5 {
                    1
                } else {
                    -1
                }
            })
            .collect();
        let x = real_from_dense(&rows);
        let sm = SoftmaxRegression {
            eta: 0.2,
            l2: 0.01,
            epochs: 5,
            ..SoftmaxRegression::default()
        };
        let classes: Vec<usize> = y.iter().map(|&l| usize::from(l > 0)).collect();
        let sm = sm.check().unwrap();
        let soft = sm.fit(&x, &Multiclass::new(&classes, 2)).unwrap().model;
        let lr = LogisticRegression {
            solver: Solver::Sgd,
            eta: 0.4,
            schedule: sm.schedule,
            l2: 0.005,
            epochs: 5,
            seed: sm.seed,
            ..LogisticRegression::default()
        };
        let logit = lr.check().unwrap().fit(&x, &y).unwrap().model;
        let bin = soft.to_binary().unwrap();
        assert_eq!(sm.fit(&x, &y[..]).unwrap().model, bin);
        let mut compared = 0;
        for i in 0..x.n_rows() {
            let (a, b) = (logit.score(x.row(i)), bin.score(x.row(i)));
            assert!((a - b).abs() < 1e-3, "row {i}: logistic {a}, softmax {b}");
            if a.abs() > 1e-3 {
                assert_eq!(soft.decide(x.row(i)).0, usize::from(a > 0.0));
                compared += 1;
            }
        }
        assert!(compared > 150);
        let p = soft.probabilities(x.row(0));
        assert!((p[0] + p[1] - 1.0).abs() < 1e-6);
    }

    #[test]
    fn rows_learned_one_at_a_time_take_the_steps_worked_by_hand() {
        // Three classes from zero: p = ⅓ each, so at rate 1 the row's feature and the
        // biases move by (⅔, −⅓, −⅓) toward class 0.
        let mut m = SoftmaxModel {
            k: 3,
            w: vec![0.0; 6].into(),
            bias: vec![0.0; 3],
        };
        let x = real_from_dense(&[vec![1.0, 0.0]]);
        assert_eq!(m.learn_rows(&x, &[0], 1.0, 0), 1);
        let (a, b) = (2.0 / 3.0, -1.0 / 3.0);
        let near = |u: &[f32], v: &[f32]| u.iter().zip(v).all(|(p, q)| (p - q).abs() < 1e-6);
        assert!(near(&m.w, &[a, b, b, 0.0, 0.0, 0.0]), "{:?}", m.w);
        assert!(near(&m.bias, &[a, b, b]), "{:?}", m.bias);
        // After 3 rows seen the rate is 1/√4: a second feature's step is half as long,
        // toward class 2 from the probabilities the biases give.
        let p = {
            let e: Vec<f32> = m.bias.iter().map(|v| v.exp()).collect();
            let s: f32 = e.iter().sum();
            e.iter().map(|v| v / s).collect::<Vec<f32>>()
        };
        let x = real_from_dense(&[vec![0.0, 1.0]]);
        assert_eq!(m.learn_rows(&x, &[2], 1.0, 3), 4);
        let want = [-0.5 * p[0], -0.5 * p[1], -0.5 * (p[2] - 1.0)];
        assert!(near(&m.w[3..], &want), "{:?} {want:?}", &m.w[3..]);
    }

    #[test]
    fn three_classes_are_learned_and_bad_targets_refused() {
        let x = real_from_dense(&[
            vec![1.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0],
            vec![0.0, 0.0, 1.0],
            vec![1.0, 0.0, 0.0],
        ]);
        let sm = SoftmaxRegression {
            epochs: 50,
            ..SoftmaxRegression::default()
        }
        .check()
        .unwrap();
        let m = sm
            .fit(&x, &Multiclass::new(&[0, 1, 2, 0], 3))
            .unwrap()
            .model;
        for (i, c) in [0, 1, 2, 0].into_iter().enumerate() {
            assert_eq!(m.decide(x.row(i)).0, c);
        }
        assert!(sm.fit(&x, &Multiclass::new(&[0, 1, 5, 0], 3)).is_err());
        assert!(sm.fit(&x, &Multiclass::new(&[0, 1], 3)).is_err());
    }
}
