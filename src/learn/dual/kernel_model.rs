//! The model the dual perceptron produces: h(x) = sgn(Σ_s c_s K(x_s, x) + b) over the
//! support vectors only (the training rows with α > 0), c_s = α_s·y_s (or its average).
//!
//! The support rows are stored as plain CSR vectors (indptr / ids / optional values) so the
//! model serializes with serde like every other model. Scoring walks a postings index of
//! the support vectors (built on first use), so a row costs Σ_{f ∈ x} df_SV(f) additions
//! plus one kernel transform per support vector, instead of one sparse merge per vector.

use super::kernel::Kernel;
use super::postings::Postings;
use crate::error::Estimate;
use crate::features::{RowRef, SparseRows, ops};
use crate::learn::Classifier;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::sync::OnceLock;

thread_local! {
    /// Per-thread scratch for the dot products of one row with every support vector.
    static DOTS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Sparse rows kept by a model: the support vectors.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SupportRows {
    /// Row i is `ids[indptr[i]..indptr[i + 1]]`.
    pub indptr: Vec<usize>,
    /// Sorted, unique feature ids of each row.
    pub ids: Vec<u32>,
    /// Values aligned with `ids`; `None` for binary rows.
    pub vals: Option<Vec<f32>>,
    /// Number of features of the training matrix.
    pub n_cols: usize,
}

impl SupportRows {
    /// Rows `idx` of `x`, in that order.
    pub(crate) fn select<X: SparseRows>(x: &X, idx: &[usize]) -> Self {
        let real = idx.iter().any(|&i| !x.row(i).is_binary());
        let mut s = SupportRows {
            indptr: vec![0],
            vals: real.then(Vec::new),
            n_cols: x.n_cols(),
            ..Default::default()
        };
        for &i in idx {
            let r = x.row(i);
            s.ids.extend_from_slice(r.ids);
            if let Some(v) = &mut s.vals {
                // Weighted rows are kept with their values as read.
                v.extend((0..r.nnz()).map(|k| r.value(k)));
            }
            s.indptr.push(s.ids.len());
        }
        s
    }
}

impl SparseRows for SupportRows {
    fn n_rows(&self) -> usize {
        self.indptr.len().saturating_sub(1)
    }
    fn n_cols(&self) -> usize {
        self.n_cols
    }
    #[inline]
    fn row(&self, i: usize) -> RowRef<'_> {
        let r = self.indptr[i]..self.indptr[i + 1];
        RowRef::stored(&self.ids[r.clone()], self.vals.as_ref().map(|v| &v[r]))
    }
    fn nnz(&self) -> usize {
        self.ids.len()
    }
}

/// One step of the voted perceptron: the update that created a prediction vector, and
/// how many examples that vector survived (its vote).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Vote {
    /// The support vector updated on.
    pub sv: u32,
    /// Its label.
    pub y: i8,
    /// The vector's survival count c_k.
    pub count: u64,
}

/// A kernel expansion over support vectors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelModel {
    /// The kernel K.
    pub kernel: Kernel,
    /// The constant feature β the bias stands for (0 none, 1 augmented, R² for the R² step):
    /// the model is linear in the feature space of K(x, z) + β.
    pub beta: f32,
    /// The support vectors.
    pub support: SupportRows,
    /// ‖x_s‖² of each support vector.
    pub sq_norms: Vec<f32>,
    /// c_s = α_s·y_s (averaged: the averaged coefficient).
    pub coef: Vec<f32>,
    /// α_s: updates made on each support vector.
    pub alpha: Vec<u32>,
    /// b = β·Σ c_s.
    pub bias: f32,
    /// For the voted perceptron: the update sequence with each vector's vote; the score is
    /// then Σ_k c_k·sgn(v_k·x) / Σ_k c_k.
    pub votes: Option<Vec<Vote>>,
    /// The cost predicted before training, and the Gram rows it actually computed.
    pub cost: Option<(Estimate, u64)>,
    /// The support vectors by feature, built on first use (not saved).
    #[serde(skip)]
    pub index: OnceLock<Postings>,
}

impl KernelModel {
    /// Number of support vectors.
    pub fn n_support(&self) -> usize {
        self.coef.len()
    }

    /// K(x_s, x) for every support vector s, written into `out`.
    pub(crate) fn kernel_values_into(&self, row: RowRef<'_>, out: &mut Vec<f32>) {
        out.resize(self.n_support(), 0.0);
        let index = self.index.get_or_init(|| Postings::new(&self.support));
        index.dots_into(row, 0, out);
        if self.kernel != Kernel::Linear {
            let sq = ops::nrm2_sq(row);
            for (k, &s) in out.iter_mut().zip(&self.sq_norms) {
                *k = self.kernel.of_dot(*k, s, sq);
            }
        }
    }

    /// Scores every row in parallel (rayon), in row order.
    pub fn scores<X: SparseRows>(&self, x: &X) -> Vec<f32> {
        (0..x.n_rows())
            .into_par_iter()
            .map(|i| self.score(x.row(i)))
            .collect()
    }

    fn voted_score(&self, votes: &[Vote], k: &[f32]) -> f32 {
        let (mut v, mut total, mut weight) = (0f64, 0f64, 0f64);
        for u in votes {
            v += f64::from(u.y) * (f64::from(k[u.sv as usize]) + f64::from(self.beta));
            let sign = if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else {
                0.0
            };
            total += u.count as f64 * sign;
            weight += u.count as f64;
        }
        if weight > 0.0 {
            (total / weight) as f32
        } else {
            0.0
        }
    }
}

impl Classifier for KernelModel {
    fn score(&self, row: RowRef<'_>) -> f32 {
        DOTS.with_borrow_mut(|k| {
            self.kernel_values_into(row, k);
            if let Some(votes) = &self.votes {
                return self.voted_score(votes, k);
            }
            let s: f64 = self
                .coef
                .iter()
                .zip(k.iter())
                .map(|(&c, &k)| f64::from(c) * f64::from(k))
                .sum();
            (s + f64::from(self.bias)) as f32
        })
    }
}
