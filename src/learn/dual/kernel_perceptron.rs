//! The dual (kernel) perceptron from the seed lecture: αᵢ counts the updates on example i
//! and h(x) = sgn(Σᵢ αᵢ yᵢ K(xᵢ, x) + b). With the linear kernel it makes exactly the
//! primal perceptron's mistakes, in the same order, and ends with the same scores.
//!
//! Training keeps the score fⱼ = Σᵢ αᵢ yᵢ (K(xᵢ, xⱼ) + β) of every example up to date: an
//! update on example i adds yᵢ·(row i of the Gram matrix + β) to f, so a visit costs O(1)
//! and an update O(n). The bias is the augmented constant feature β (1, or R² for the R²
//! step), which is the primal perceptron's bias in the feature space of K + β.
//!
//! The dual form costs O(n²) time and memory: `KernelPerceptron::estimate_rows` predicts
//! both before any work — before anything is allocated by the rows' size or width — and
//! `fit` refuses when they exceed the limits (unless `force`).

use super::gram::Gram;
use super::gram_rows::GramRows;
use super::kernel::Kernel;
use super::kernel_model::{KernelModel, SupportRows, Vote};
use crate::Result;
use crate::error::{ConfigError, Param};
use crate::features::SparseRows;
use crate::learn::Setting;
use crate::learn::kind::LearnerKind;
use crate::learn::perceptron::drive;
use crate::learn::{Bias, Check, Checked, Fitted, Label, Learner, Schedule, check_binary};
use serde::{Deserialize, Serialize};

/// The default memory budget for the Gram matrix: 1 GiB.
pub(crate) const DEFAULT_MEMORY: u64 = 1 << 30;
/// The default limit on the estimated training time, in seconds.
pub(crate) const DEFAULT_MAX_SECONDS: f64 = 300.0;

/// How the final hypothesis is formed from the sequence of prediction vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Averaging {
    /// The last vector: cᵢ = αᵢ yᵢ.
    None,
    /// The average of the vectors after every step (the averaged perceptron).
    Averaged,
    /// Each vector votes sgn(v·x) weighted by how many steps it survived (Freund and
    /// Schapire's voted perceptron).
    Voted,
}

/// The dual perceptron's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KernelPerceptron {
    /// The kernel.
    pub kernel: Kernel,
    /// Bias handling, as for the primal perceptron.
    pub bias: Bias,
    /// Visiting order and stopping rule, as for the primal perceptron.
    pub schedule: Schedule,
    /// Seeded random order per pass, as for the primal perceptron (`None`: input order).
    pub shuffle: Option<u64>,
    /// Last, averaged or voted hypothesis.
    pub averaging: Averaging,
    /// Bytes the Gram matrix may use; above it rows are computed on demand.
    pub memory: u64,
    /// Refuse to start when the estimated time exceeds this many seconds.
    pub max_seconds: f64,
    /// Start even when the estimate is above the limits.
    pub force: bool,
}

impl Default for KernelPerceptron {
    fn default() -> Self {
        KernelPerceptron {
            kernel: Kernel::Linear,
            bias: Bias::Augmented,
            schedule: Schedule::Epochs(10),
            shuffle: Some(42),
            averaging: Averaging::None,
            memory: DEFAULT_MEMORY,
            max_seconds: DEFAULT_MAX_SECONDS,
            force: false,
        }
    }
}

/// One update of the dual perceptron, reported to an observer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DualUpdate {
    /// The example that caused it.
    pub example: usize,
    /// The epoch (0-based) it happened in.
    pub epoch: usize,
}

impl Check for KernelPerceptron {
    fn validate(&self) -> Result<(), ConfigError> {
        self.kernel.validate()?;
        self.schedule.validate()?;
        if self.memory == 0 {
            return Err(ConfigError::new(Param::Memory, 0, "must be positive"));
        }
        if self.max_seconds.is_nan() || self.max_seconds <= 0.0 {
            return Err(ConfigError::new(
                Param::MaxSeconds,
                self.max_seconds,
                "must be positive",
            ));
        }
        Ok(())
    }
}

impl Checked<KernelPerceptron> {
    /// Fits, calling `observer` after every update.
    pub(crate) fn fit_observed<X: SparseRows>(
        &self,
        x: &X,
        y: &[Label],
        mut observer: impl FnMut(DualUpdate),
    ) -> Result<Fitted<KernelModel>> {
        check_binary(x, y)?;
        check_kernel_range(x, self.kernel)?;
        // Refused before the Gram index, whose size follows the rows and their width.
        let estimate = self.estimate_rows(x);
        self.refuse_over_budget(&estimate)?;
        let gram = Gram::new(x, self.kernel);
        let n = x.n_rows();
        let beta = match self.bias {
            Bias::None => 0.0,
            Bias::Augmented => 1.0,
            Bias::R2 => (0..n).map(|i| gram.diag(i)).fold(0.0, f32::max),
        };
        let beta64 = f64::from(beta);
        let mut rows = GramRows::new(gram, self.memory);
        let mut f = vec![0f64; n];
        let mut alpha = vec![0u32; n];
        let mut step_sum = vec![0u64; n];
        let mut votes: Vec<(usize, u64)> = Vec::new();
        // The same visiting order as the primal perceptron: both run `drive`.
        let report = drive(
            self.schedule,
            self.shuffle,
            n,
            |_| {},
            |i, epoch, step| {
                let yi = f64::from(y[i]);
                if yi * f[i] > 0.0 {
                    return false;
                }
                alpha[i] += 1;
                step_sum[i] += step;
                votes.push((i, step));
                for (fj, &k) in f.iter_mut().zip(rows.row(i)) {
                    *fj += yi * (f64::from(k) + beta64);
                }
                observer(DualUpdate { example: i, epoch });
                true
            },
        );
        let mut model = self.build(x, y, &rows, beta, &alpha, &step_sum, &votes, report.steps);
        model.cost = Some((estimate, rows.rows_computed()));
        Ok(Fitted { model, report })
    }

    #[allow(clippy::too_many_arguments)]
    fn build<X: SparseRows>(
        &self,
        x: &X,
        y: &[Label],
        rows: &GramRows,
        beta: f32,
        alpha: &[u32],
        step_sum: &[u64],
        updates: &[(usize, u64)],
        steps: u64,
    ) -> KernelModel {
        let sv: Vec<usize> = (0..alpha.len()).filter(|&i| alpha[i] > 0).collect();
        let t = steps as f64;
        let coef: Vec<f32> = sv
            .iter()
            .map(|&i| {
                let yi = f64::from(y[i]);
                match self.averaging {
                    Averaging::Averaged => {
                        let c = f64::from(alpha[i]) * (t + 1.0) - step_sum[i] as f64;
                        (yi * c / t) as f32
                    }
                    _ => (yi * f64::from(alpha[i])) as f32,
                }
            })
            .collect();
        let votes = (self.averaging == Averaging::Voted).then(|| {
            let mut slot = vec![u32::MAX; alpha.len()];
            for (s, &i) in sv.iter().enumerate() {
                slot[i] = s as u32;
            }
            updates
                .iter()
                .enumerate()
                .map(|(k, &(i, at))| Vote {
                    sv: slot[i],
                    y: y[i],
                    count: updates.get(k + 1).map_or(steps + 1, |u| u.1) - at,
                })
                .collect()
        });
        let bias = (f64::from(beta) * coef.iter().map(|&c| f64::from(c)).sum::<f64>()) as f32;
        KernelModel {
            kernel: self.kernel,
            beta,
            support: SupportRows::select(x, &sv),
            sq_norms: sv.iter().map(|&i| rows.gram().sq_norms()[i]).collect(),
            coef,
            alpha: sv.iter().map(|&i| alpha[i]).collect(),
            bias,
            votes,
            index: Default::default(),
            cost: None,
        }
    }
}

/// Refuses rows on which the kernel overflows `f32`: a polynomial kernel is at most
/// (‖x‖² + c)^d over the rows (Cauchy–Schwarz), and sums of n such values must stay
/// finite, or scores turn to ±∞ and NaN and every prediction to one class.
fn check_kernel_range<X: SparseRows>(x: &X, kernel: Kernel) -> Result<()> {
    let Kernel::Polynomial { degree, coef0 } = kernel else {
        return Ok(());
    };
    let longest = (0..x.n_rows())
        .map(|i| f64::from(crate::features::ops::nrm2_sq(x.row(i))))
        .fold(0.0, f64::max);
    let largest = (longest + f64::from(coef0)).powi(degree as i32);
    let room = f64::from(f32::MAX) / (x.n_rows().max(1) as f64);
    if largest.is_nan() || largest > room {
        return Err(crate::Error::Data(format!(
            "the polynomial kernel overflows on these rows: (‖x‖² + {coef0})^{degree} reaches \
             {largest:.3e} on the longest row (‖x‖² = {longest}), past what scores over \
             {} rows hold; scale the rows (l2 normalization, or values within [0, 1]) or \
             lower the degree",
            x.n_rows()
        )));
    }
    Ok(())
}

impl Learner for Checked<KernelPerceptron> {
    type Model = KernelModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<KernelModel>> {
        self.fit_observed(x, y, |_| {})
    }
}

impl LearnerKind for KernelPerceptron {
    const NAME: &'static str = "kernel-perceptron";
    const ABOUT: &'static str = "the dual (kernel) perceptron, for small corpora";
    const ACCEPTS: &'static [Param] = &[
        Param::Epochs,
        Param::Bias,
        Param::Schedule,
        Param::Shuffle,
        Param::Kernel,
        Param::Averaging,
        Param::Memory,
        Param::Force,
    ];
    const COST_PER_EPOCH: f64 = 10.0;

    fn set(&mut self, setting: Setting) -> Result<(), ConfigError> {
        match setting {
            Setting::Epochs(e) => self.schedule.set_epochs(e),
            Setting::Bias(b) => self.bias = b,
            Setting::Schedule(s) => self.schedule = s,
            Setting::Shuffle(s) => self.shuffle = s,
            Setting::Kernel(k) => self.kernel = k,
            Setting::Averaging(a) => self.averaging = a,
            Setting::Memory(m) => self.memory = m,
            Setting::Force(f) => self.force = f,
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
        format!(
            "{}, bias {:?}, {}, averaging {:?}",
            self.schedule.describe(self.shuffle),
            self.bias,
            self.kernel.describe(),
            self.averaging
        )
        .to_lowercase()
    }

    fn schedule_mut(&mut self) -> Option<&mut Schedule> {
        Some(&mut self.schedule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{MatrixBuilder, real_from_dense};
    use crate::learn::{Classifier, Perceptron};
    use proptest::prelude::*;

    fn four_points() -> (crate::RealMatrix, Vec<Label>) {
        let x = real_from_dense(&[vec![1., 2.], vec![2., 1.], vec![-1., -1.], vec![-1., 1.]]);
        (x, vec![1, 1, -1, -1])
    }

    fn dual(kernel: Kernel, averaging: Averaging) -> KernelPerceptron {
        KernelPerceptron {
            kernel,
            averaging,
            schedule: Schedule::UntilConvergence { max_epochs: 50 },
            ..Default::default()
        }
    }

    fn checked(p: KernelPerceptron) -> Checked<KernelPerceptron> {
        p.check().unwrap()
    }

    #[test]
    fn a_polynomial_kernel_that_overflows_f32_is_refused() {
        // (30² + 1)^16 ≈ 1.9e47 is past f32: scores would be ±∞ and NaN.
        let x = real_from_dense(&[vec![30., 0.], vec![0., 30.], vec![30., 10.], vec![10., 30.]]);
        let y = vec![1, -1, 1, -1];
        let poly = |degree| Kernel::Polynomial { degree, coef0: 1.0 };
        let err = checked(dual(poly(16), Averaging::None))
            .fit(&x, &y)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("overflows") && err.contains("scale the rows"),
            "{err}"
        );
        // Degree 2 stays finite and separates them.
        let fit = checked(dual(poly(2), Averaging::None)).fit(&x, &y).unwrap();
        for (i, &l) in y.iter().enumerate() {
            assert_eq!(fit.model.score(x.row(i)) > 0.0, l > 0);
        }
    }

    #[test]
    fn four_points_alpha_counts_updates() {
        // The seed's trace: mistakes on x1 then x4 in epoch 1, none in epoch 2.
        let (x, y) = four_points();
        let mut seq = Vec::new();
        let fit = checked(dual(Kernel::Linear, Averaging::None))
            .fit_observed(&x, &y, |u| seq.push((u.example, u.epoch)))
            .unwrap();
        assert_eq!(seq, vec![(0, 0), (3, 0)]);
        assert_eq!(fit.model.alpha, vec![1, 1]);
        assert_eq!(fit.model.coef, vec![1.0, -1.0]);
        assert_eq!(fit.report.mistakes_per_epoch, vec![2, 0]);
        // w = x1 − x4 = (2, 1): scores equal the primal w·x.
        for (i, s) in [(0, 4.0), (1, 5.0), (2, -3.0), (3, -1.0)] {
            assert_eq!(fit.model.score(x.row(i)), s);
        }
    }

    #[test]
    fn averaged_and_voted_coefficients_by_hand() {
        // Updates at steps 1 (x1) and 4 (x4) of T = 8: w_t = x1 for t = 1..3 and
        // x1 − x4 for t = 4..8, so the average is x1 − (5/8)·x4; the votes are 3 and 5.
        let (x, y) = four_points();
        let avg = checked(dual(Kernel::Linear, Averaging::Averaged))
            .fit(&x, &y)
            .unwrap();
        assert_eq!(avg.model.coef, vec![1.0, -0.625]);
        let voted = checked(dual(Kernel::Linear, Averaging::Voted))
            .fit(&x, &y)
            .unwrap();
        let votes = voted.model.votes.as_ref().unwrap();
        assert_eq!(
            votes
                .iter()
                .map(|v| (v.sv, v.y, v.count))
                .collect::<Vec<_>>(),
            vec![(0, 1, 3), (1, -1, 5)]
        );
        // x3 = (−1, −1): v1·x3 = −3 and v2·x3 = −3 → (3·(−1) + 5·(−1)) / 8 = −1.
        assert_eq!(voted.model.score(x.row(2)), -1.0);
        // x4 = (−1, 1): v1·x4 = 1 (vote +3), v2·x4 = −1 (vote −5) → −2/8.
        assert_eq!(voted.model.score(x.row(3)), -0.25);
    }

    #[test]
    fn xor_needs_a_product_feature() {
        // Linearly inseparable: never converges with the linear kernel, with or without a
        // bias; (x·z + 1)² contains x₁x₂, which separates it.
        let x = real_from_dense(&[vec![1., 1.], vec![-1., -1.], vec![1., -1.], vec![-1., 1.]]);
        let y = vec![1, 1, -1, -1];
        for bias in [Bias::None, Bias::Augmented] {
            let p = KernelPerceptron {
                bias,
                ..dual(Kernel::Linear, Averaging::None)
            };
            let fit = checked(p).fit(&x, &y).unwrap();
            assert_eq!(fit.report.converged, Some(false));
            assert!(fit.report.mistakes_per_epoch.iter().all(|&m| m > 0));
        }
        let poly = Kernel::Polynomial {
            degree: 2,
            coef0: 1.0,
        };
        let fit = checked(dual(poly, Averaging::None)).fit(&x, &y).unwrap();
        assert_eq!(fit.report.converged, Some(true));
        for (i, &yi) in y.iter().enumerate() {
            assert_eq!(fit.model.predict(x.row(i)), yi);
        }
    }

    #[test]
    fn refuses_above_the_limits_unless_forced() {
        let (x, y) = four_points();
        let tight = KernelPerceptron {
            max_seconds: 1e-12,
            ..dual(Kernel::Linear, Averaging::None)
        };
        let e = checked(tight).fit(&x, &y).unwrap_err().to_string();
        assert!(
            e.contains("4 rows") && e.contains("primal perceptron"),
            "{e}"
        );
        assert!(e.contains("force"), "{e}");
        let forced = KernelPerceptron {
            force: true,
            ..tight
        };
        assert!(checked(forced).fit(&x, &y).is_ok());
        let small = KernelPerceptron {
            memory: 8,
            ..dual(Kernel::Linear, Averaging::None)
        };
        let e = checked(small).fit(&x, &y).unwrap_err().to_string();
        assert!(e.contains("memory") && e.contains("8 B"), "{e}");
    }

    proptest! {
        #[test]
        fn linear_kernel_replays_the_primal_perceptron(
            rows in proptest::collection::vec(
                (proptest::collection::vec(0u32..25, 0..10), any::<bool>()), 2..60),
            bias in prop_oneof![Just(Bias::None), Just(Bias::Augmented), Just(Bias::R2)],
            random in any::<bool>(),
            budget_rows in 0u64..70,
        ) {
            let mut b = MatrixBuilder::default();
            let mut y = Vec::new();
            for (mut r, pos) in rows {
                b.push_unsorted(&mut r);
                y.push(if pos { 1 } else { -1 });
            }
            let x = b.finish(25);
            let schedule = if random {
                Schedule::Randomized { rounds: 200, seed: 7, patience: Some(40) }
            } else {
                Schedule::Epochs(4)
            };
            let primal = Perceptron { eta: 1.0, bias, schedule, shuffle: Some(3) }.check().unwrap();
            let mut p_seq = Vec::new();
            let p = primal.fit_observed(&x, &y, |u| p_seq.push((u.example, u.epoch))).unwrap();
            let d_cfg = KernelPerceptron {
                bias,
                schedule,
                shuffle: Some(3),
                memory: (budget_rows * x.n_rows() as u64 * 4).max(1),
                force: true,
                ..Default::default()
            }
            .check()
            .unwrap();
            let mut d_seq = Vec::new();
            let d = d_cfg.fit_observed(&x, &y, |u| d_seq.push((u.example, u.epoch))).unwrap();
            prop_assert_eq!(p_seq, d_seq);
            prop_assert_eq!(&p.report, &d.report);
            for i in 0..x.n_rows() {
                prop_assert_eq!(p.model.score(x.row(i)), d.model.score(x.row(i)));
            }
        }
    }
}
