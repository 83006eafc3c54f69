//! The logistic loss ln(1 + e^−m), the sigmoid, the regularized objective with its
//! gradient (the reference the gradient solvers are tested against), and weights stored
//! as a scale times a vector so that L2's shrink costs one multiplication; shared by
//! logistic and softmax regression.

#[cfg(test)]
use super::{Label, LinearModel};
#[cfg(test)]
use crate::features::SparseRows;
use crate::features::{RowRef, ops};

/// ln(1 + e^−m), without overflow.
#[inline]
pub(crate) fn log_loss(m: f32) -> f32 {
    if m > 0.0 {
        (-m).exp().ln_1p()
    } else {
        -m + m.exp().ln_1p()
    }
}

/// θ(s) = 1 / (1 + e^−s).
#[inline]
pub(crate) fn sigmoid(s: f32) -> f32 {
    1.0 / (1.0 + (-s).exp())
}

/// J(w, b) (mean log-loss plus (λ/2)‖w‖²) and its gradient (∂J/∂w, ∂J/∂b), in double
/// precision; the reference the solvers' steps are checked against.
#[cfg(test)]
pub(crate) fn objective<X: SparseRows>(
    m: &LinearModel,
    x: &X,
    y: &[Label],
    l2: f64,
) -> (f64, Vec<f64>, f64) {
    let n = x.n_rows() as f64;
    let mut grad: Vec<f64> = m.w.iter().map(|&w| l2 * f64::from(w)).collect();
    let mut gb = 0f64;
    let mut loss = 0.5 * l2 * m.w.iter().map(|&w| f64::from(w).powi(2)).sum::<f64>();
    for (i, &yi) in y.iter().enumerate() {
        let row = x.row(i);
        let yi = f64::from(yi);
        let z: f64 = dot64(&m.w, row) + f64::from(m.bias);
        let mg = yi * z;
        loss += (if mg > 0.0 {
            (-mg).exp().ln_1p()
        } else {
            -mg + mg.exp().ln_1p()
        }) / n;
        // d/dz ln(1 + e^(−y z)) = −y·θ(−y z)
        let c = -yi / (1.0 + mg.exp()) / n;
        for (k, &j) in row.ids.iter().enumerate() {
            grad[j as usize] += c * f64::from(row.value(k));
        }
        gb += c;
    }
    (loss, grad, gb)
}

#[cfg(test)]
fn dot64(w: &[f32], row: RowRef<'_>) -> f64 {
    row.ids
        .iter()
        .enumerate()
        .map(|(k, &j)| f64::from(w[j as usize]) * f64::from(row.value(k)))
        .sum()
}

/// Weights stored as s·v so that the L2 shrink is a scalar multiplication.
#[derive(Debug, Clone)]
pub(crate) struct Scaled {
    pub v: Vec<f32>,
    pub s: f32,
}

impl Scaled {
    pub(crate) fn zeros(n: usize) -> Self {
        Scaled {
            v: vec![0.0; n],
            s: 1.0,
        }
    }
    #[inline]
    pub(crate) fn dot(&self, x: RowRef<'_>) -> f32 {
        self.s * ops::dot(&self.v, x)
    }
    /// w ← w + a·x.
    #[inline]
    pub(crate) fn add(&mut self, a: f32, x: RowRef<'_>) {
        ops::axpy(a / self.s, x, &mut self.v);
    }
    /// The scale below which [`Scaled::shrink`] folds it into the weights.
    pub(crate) const FOLD_BELOW: f32 = 1e-4;

    /// w ← f·w; folds s into v when it gets small (rare, amortized).
    pub(crate) fn shrink(&mut self, f: f32) {
        self.s *= f;
        if self.s < Self::FOLD_BELOW {
            self.fold();
        }
    }
    pub(crate) fn fold(&mut self) {
        for v in &mut self.v {
            *v *= self.s;
        }
        self.s = 1.0;
    }
    pub(crate) fn to_vec(&self) -> Vec<f32> {
        self.v.iter().map(|v| v * self.s).collect()
    }
}
