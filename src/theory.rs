//! The perceptron's theory in the open: radius R, functional and geometric margins of a
//! learned hyperplane, separation, and Novikoff's mistake bound (R/γ)².
//!
//! The bias is folded in as an augmented feature: x̃ = (x, 1), w̃ = (w, b), so R is the
//! radius of the augmented rows when the model has a bias and the bound applies to the
//! updates k of any perceptron that found a separator with margin γ.

use crate::features::{SparseRows, ops};
use crate::learn::{Classifier, Label, LinearModel};
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
pub fn radius<X: SparseRows>(x: &X) -> f64 {
    (0..x.n_rows())
        .into_par_iter()
        .map(|i| f64::from(ops::nrm2_sq(x.row(i))))
        .reduce(|| 0.0, f64::max)
        .sqrt()
}

/// The diagnostics of `model` on rows `x` with labels `y`; `with_bias` folds the bias in.
pub fn diagnose<X: SparseRows>(
    model: &LinearModel,
    x: &X,
    y: &[Label],
    with_bias: bool,
    updates: Option<u64>,
) -> Theory {
    let aug = if with_bias { 1.0 } else { 0.0 };
    let r = (0..x.n_rows())
        .into_par_iter()
        .map(|i| f64::from(ops::nrm2_sq(x.row(i))) + aug)
        .reduce(|| 0.0, f64::max)
        .sqrt();
    let functional = (0..x.n_rows())
        .into_par_iter()
        .map(|i| f64::from(y[i]) * f64::from(model.score(x.row(i))))
        .reduce(|| f64::INFINITY, f64::min);
    let norm_sq: f64 = model
        .w
        .iter()
        .map(|&w| f64::from(w) * f64::from(w))
        .sum::<f64>()
        + if with_bias {
            f64::from(model.bias).powi(2)
        } else {
            0.0
        };
    let norm = norm_sq.sqrt();
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
