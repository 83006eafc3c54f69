//! The linear model h(x) = sgn(w·x + b) that the perceptron family produces.

use super::Classifier;
use crate::features::{RowRef, ops};
use crate::raw::CowVec;
use serde::{Deserialize, Serialize};

/// Weights over the vocabulary and a bias.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinearModel {
    /// One weight per feature id.
    pub w: CowVec<f32>,
    /// The bias b (0 when the learner uses none).
    pub bias: f32,
}

impl LinearModel {
    /// The zero model over `n` features.
    pub(crate) fn zeros(n: usize) -> Self {
        LinearModel {
            w: vec![0.0; n].into(),
            bias: 0.0,
        }
    }

    /// Feature ids sorted by weight, most positive first.
    pub fn ranked_features(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = (0..self.w.len() as u32).collect();
        ids.sort_by(|&a, &b| self.w[b as usize].total_cmp(&self.w[a as usize]));
        ids
    }
}

impl Classifier for LinearModel {
    #[inline]
    fn score(&self, row: RowRef<'_>) -> f32 {
        // Ids beyond w (a wider matrix than the model) contribute nothing.
        if let Some(&last) = row.ids.last()
            && last as usize >= self.w.len()
        {
            let keep = row.ids.partition_point(|&j| (j as usize) < self.w.len());
            let vals = row.vals.map(|v| &v[..keep]);
            return ops::dot(
                &self.w,
                RowRef {
                    ids: &row.ids[..keep],
                    vals,
                    ..row
                },
            ) + self.bias;
        }
        ops::dot(&self.w, row) + self.bias
    }
}
