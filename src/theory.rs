//! The perceptron's theory in the open: radius R, functional and geometric margins of a
//! learned hyperplane, separation, and Novikoff's mistake bound (R/γ)².
//!
//! The bias is folded in as an augmented feature: x̃ = (x, c), w̃ = (w, b/c), so that
//! w̃·x̃ = w·x + b; c = 1 for the usual augmented bias and c = R for the R² step (whose
//! update b ← b + y·R² is the perceptron's update of the last coordinate of x̃ = (x, R)).
//! R is the radius of the augmented rows and the bound applies to the updates k of any
//! perceptron that found a separator with margin γ. Kernel models are linear in the
//! feature space φ of K + β (β = c²), and get the same diagnostics computed through K.

use crate::features::{SparseRows, ops};
use crate::learn::Gram;
use crate::learn::{AnyLearner, AnyModel, Bias, Classifier, KernelModel, Label, LinearModel};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The diagnostics of one linear model on its training set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Theory {
    /// R = max ‖x̃ᵢ‖ (augmented with the constant 1 when the model has a bias).
    pub radius: f64,
    /// minᵢ yᵢ(w·xᵢ + b).
    pub functional_margin: f64,
    /// The functional margin divided by ‖w̃‖.
    pub geometric_margin: f64,
    /// Whether every training example is on its side (functional margin > 0).
    pub separated: bool,
    /// Novikoff's bound (R/γ)² for γ the geometric margin; `None` when not separated.
    pub novikoff_bound: Option<f64>,
    /// Updates k the learner made (when known).
    pub updates: Option<u64>,
}

/// R = max ‖xᵢ‖ over the rows.
pub(crate) fn radius<X: SparseRows>(x: &X) -> f64 {
    (0..x.n_rows())
        .into_par_iter()
        .map(|i| f64::from(ops::nrm2_sq(x.row(i))))
        .reduce(|| 0.0, f64::max)
        .sqrt()
}

/// The diagnostics of `model` on rows `x` with labels `y`; `with_bias` folds the bias in
/// as the constant feature 1.
#[cfg(test)]
pub(crate) fn diagnose<X: SparseRows>(
    model: &LinearModel,
    x: &X,
    y: &[Label],
    with_bias: bool,
    updates: Option<u64>,
) -> Theory {
    diagnose_augmented(model, x, y, if with_bias { 1.0 } else { 0.0 }, updates)
}

/// The diagnostics with the bias folded in as the constant feature `c` (0: no bias).
pub(crate) fn diagnose_augmented<X: SparseRows>(
    model: &LinearModel,
    x: &X,
    y: &[Label],
    c: f64,
    updates: Option<u64>,
) -> Theory {
    let r_sq = (0..x.n_rows())
        .into_par_iter()
        .map(|i| f64::from(ops::nrm2_sq(x.row(i))) + c * c)
        .reduce(|| 0.0, f64::max);
    let functional = functional_margin(model, x, y);
    let norm_sq: f64 = model
        .w
        .iter()
        .map(|&w| f64::from(w) * f64::from(w))
        .sum::<f64>()
        + if c > 0.0 {
            (f64::from(model.bias) / c).powi(2)
        } else {
            0.0
        };
    assemble(r_sq, functional, norm_sq, updates)
}

/// The diagnostics of a kernel model in the feature space of K + β: R² = maxᵢ K(xᵢ, xᵢ) + β,
/// ‖w̃‖² = Σ_s Σ_t c_s c_t (K(x_s, x_t) + β). `None` for a voted model (no single
/// hyperplane).
pub(crate) fn diagnose_kernel<X: SparseRows>(
    model: &KernelModel,
    x: &X,
    y: &[Label],
    updates: Option<u64>,
) -> Option<Theory> {
    if model.votes.is_some() {
        return None;
    }
    let beta = f64::from(model.beta);
    let r_sq = (0..x.n_rows())
        .into_par_iter()
        .map(|i| {
            let r = x.row(i);
            f64::from(model.kernel.eval(r, r)) + beta
        })
        .reduce(|| 0.0, f64::max);
    // ‖w̃‖² = cᵀ(G + β)c over the support vectors, one Gram row at a time per thread.
    let gram = Gram::new(&model.support, model.kernel);
    let m = model.n_support();
    let norm_sq: f64 = (0..m)
        .into_par_iter()
        .map_init(
            || vec![0f32; m],
            |row, s| {
                gram.row_range_into(s, 0, row);
                let inner: f64 = model
                    .coef
                    .iter()
                    .zip(row.iter())
                    .map(|(&c, &k)| f64::from(c) * (f64::from(k) + beta))
                    .sum();
                f64::from(model.coef[s]) * inner
            },
        )
        .sum();
    let functional = functional_margin(model, x, y);
    Some(assemble(r_sq, functional, norm_sq, updates))
}

/// The diagnostics of any binary model trained by `learner` on `x`, `y`, where the model is
/// a hyperplane (in input or kernel feature space).
pub fn diagnose_any<X: SparseRows>(
    model: &AnyModel,
    learner: &AnyLearner,
    x: &X,
    y: &[Label],
    updates: Option<u64>,
) -> Option<Theory> {
    if let Some(k) = model.as_kernel() {
        return diagnose_kernel(k, x, y, updates);
    }
    let m = model.as_linear()?;
    let c = match learner.bias() {
        Bias::R2 => radius(x),
        Bias::Augmented => 1.0,
        Bias::None => 0.0,
    };
    Some(diagnose_augmented(m, x, y, c, updates))
}

/// minᵢ yᵢ·score(xᵢ), computed in parallel.
fn functional_margin<C: Classifier, X: SparseRows>(model: &C, x: &X, y: &[Label]) -> f64 {
    (0..x.n_rows())
        .into_par_iter()
        .map(|i| f64::from(y[i]) * f64::from(model.score(x.row(i))))
        .reduce(|| f64::INFINITY, f64::min)
}

fn assemble(r_sq: f64, functional: f64, norm_sq: f64, updates: Option<u64>) -> Theory {
    let r = r_sq.sqrt();
    let norm = norm_sq.max(0.0).sqrt();
    let geometric = if norm > 0.0 { functional / norm } else { 0.0 };
    let separated = functional > 0.0;
    Theory {
        radius: r,
        functional_margin: functional,
        geometric_margin: geometric,
        separated,
        novikoff_bound: separated.then(|| (r / geometric).powi(2)),
        updates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::real_from_dense;
    use crate::learn::{Check, Kernel, KernelPerceptron, Learner, Perceptron, Schedule};
    use proptest::prelude::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn four_points_by_hand() {
        // w = (2, 1): margins y·w·x = 4, 5, 3, 1; ‖w‖ = √5; R = √5; (R/γ)² = 5·5 = 25.
        let x = real_from_dense(&[vec![1., 2.], vec![2., 1.], vec![-1., -1.], vec![-1., 1.]]);
        let y = vec![1, 1, -1, -1];
        let m = LinearModel {
            w: vec![2.0, 1.0].into(),
            bias: 0.0,
        };
        let t = diagnose(&m, &x, &y, false, Some(2));
        assert!(close(t.radius, 5f64.sqrt()));
        assert_eq!(t.functional_margin, 1.0);
        assert!(close(t.geometric_margin, 1.0 / 5f64.sqrt()));
        assert!(t.separated);
        assert!(close(t.novikoff_bound.unwrap(), 25.0));
        // A hyperplane that misclassifies x4 has no bound.
        let bad = LinearModel {
            w: vec![1.0, 1.0].into(),
            bias: 0.0,
        };
        let t = diagnose(&bad, &x, &y, false, None);
        assert_eq!((t.functional_margin, t.separated), (-0.0, false));
        assert_eq!(t.novikoff_bound, None);
    }

    #[test]
    fn r2_bias_folds_in_as_the_constant_r() {
        // x = 2 (+), x = 1 (−), b ← b + y·R² with R² = 4: nine updates end at w = 3,
        // b = −4. With x̃ = (x, R): R̃² = 8, ‖w̃‖² = 9 + (b/R)² = 13, margin 1/√13, so
        // (R̃/γ)² = 8·13 = 104. The dual form with β = R² gives the same numbers.
        let x = real_from_dense(&[vec![2.], vec![1.]]);
        let y = vec![1, -1];
        let schedule = Schedule::UntilConvergence { max_epochs: 100 };
        let p = Perceptron {
            eta: 1.0,
            bias: Bias::R2,
            schedule,
            shuffle: None,
        };
        let fit = p.check().unwrap().fit(&x, &y).unwrap();
        assert_eq!((fit.model.w.to_vec(), fit.model.bias), (vec![3.0], -4.0));
        assert_eq!(fit.report.updates, 9);
        let any = AnyModel::Linear(fit.model);
        let t = diagnose_any(&any, &AnyLearner::Perceptron(p), &x, &y, Some(9)).unwrap();
        assert!(close(t.radius, 8f64.sqrt()));
        assert!(close(t.novikoff_bound.unwrap(), 104.0));
        let d = KernelPerceptron {
            bias: Bias::R2,
            schedule,
            shuffle: None,
            ..Default::default()
        };
        let dfit = d.check().unwrap().fit(&x, &y).unwrap();
        let dual = AnyModel::Kernel(Box::new(dfit.model));
        let td = diagnose_any(&dual, &AnyLearner::KernelPerceptron(d), &x, &y, Some(9)).unwrap();
        assert!(close(td.radius, t.radius) && close(td.geometric_margin, t.geometric_margin));
        assert!(close(td.novikoff_bound.unwrap(), 104.0));
    }

    /// Points in {−1, 0, 1}^5 labelled by an integer vector u, keeping |u·x| ≥ 1: separable
    /// with margin ≥ 1/‖u‖, so the perceptron converges within (d + 1)·‖u‖² updates.
    fn separable() -> impl Strategy<Value = (Vec<Vec<f32>>, Vec<Label>)> {
        (
            proptest::collection::vec(-3i8..4, 5),
            proptest::collection::vec(proptest::collection::vec(-1i8..2, 5), 2..40),
        )
            .prop_filter_map("needs both classes", |(u, pts)| {
                let (mut xs, mut ys) = (Vec::new(), Vec::new());
                for p in pts {
                    let s: i32 = p
                        .iter()
                        .zip(&u)
                        .map(|(&a, &b)| i32::from(a) * i32::from(b))
                        .sum();
                    if s != 0 {
                        xs.push(p.iter().map(|&v| f32::from(v)).collect());
                        ys.push(if s > 0 { 1 } else { -1 });
                    }
                }
                (ys.contains(&1) && ys.contains(&-1)).then_some((xs, ys))
            })
    }

    proptest! {
        #[test]
        fn updates_never_exceed_the_novikoff_bound_of_the_learned_separator(
            (xs, y) in separable(),
            bias in prop_oneof![Just(Bias::None), Just(Bias::Augmented), Just(Bias::R2)],
        ) {
            let x = real_from_dense(&xs);
            let schedule = Schedule::UntilConvergence { max_epochs: 2000 };
            let learners = [
                AnyLearner::Perceptron(Perceptron { eta: 1.0, bias, schedule, shuffle: Some(1) }),
                AnyLearner::KernelPerceptron(KernelPerceptron { bias, schedule, ..Default::default() }),
                AnyLearner::KernelPerceptron(KernelPerceptron {
                    kernel: Kernel::Polynomial { degree: 2, coef0: 1.0 },
                    bias,
                    schedule,
                    ..Default::default()
                }),
            ];
            for l in learners {
                let l = l.check().unwrap();
                let fit = l.fit(&x, &y[..]).unwrap();
                prop_assert_eq!(fit.report.converged, Some(true));
                let k = fit.report.updates;
                let t = diagnose_any(&fit.model, &l, &x, &y, Some(k)).unwrap();
                prop_assert!(t.separated);
                let bound = t.novikoff_bound.unwrap();
                prop_assert!(k as f64 <= bound * (1.0 + 1e-9), "{} updates > bound {}", k, bound);
            }
        }
    }
}
