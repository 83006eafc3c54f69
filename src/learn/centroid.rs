//! The nearest-centroid classifier (the seed notes' class prototypes): c₊ and c₋ are the
//! means of the positive and negative rows, and x goes to the nearer one. Since
//! ‖x − c₋‖² − ‖x − c₊‖² = 2(c₊ − c₋)·x − (‖c₊‖² − ‖c₋‖²), this is the linear model
//! w = c₊ − c₋, b = (‖c₋‖² − ‖c₊‖²)/2 (halved). One pass, no hyper-parameters: the
//! baseline every other learner should beat.

use super::kind::LearnerKind;
use super::{Bias, Setting};
use super::{Check, Checked, Fitted, Label, Learner, LinearModel, TrainReport, check_binary};
use crate::Result;
use crate::error::ConfigError;
use crate::features::{SparseRows, ops};
use serde::{Deserialize, Serialize};

/// The nearest-centroid learner (no hyper-parameters).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct NearestCentroid;

impl Check for NearestCentroid {
    /// No hyper-parameters, so no rule to break.
    fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}

impl Learner for Checked<NearestCentroid> {
    type Model = LinearModel;
    fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<LinearModel>> {
        check_binary(x, y)?;
        let d = x.n_cols();
        let (mut pos, mut neg) = (vec![0f32; d], vec![0f32; d]);
        let (mut n_pos, mut n_neg) = (0u32, 0u32);
        for (i, &yi) in y.iter().enumerate() {
            if yi > 0 {
                ops::axpy(1.0, x.row(i), &mut pos);
                n_pos += 1;
            } else {
                ops::axpy(1.0, x.row(i), &mut neg);
                n_neg += 1;
            }
        }
        let report = TrainReport {
            epochs: 1,
            steps: y.len() as u64,
            updates: y.len() as u64,
            ..TrainReport::default()
        };
        if n_pos == 0 || n_neg == 0 {
            // One class only (e.g. a rare label absent from a fold): always predict it.
            let mut m = LinearModel::zeros(d);
            m.bias = if n_pos == 0 { -1.0 } else { 1.0 };
            return Ok(Fitted { model: m, report });
        }
        let (sp, sn) = (1.0 / n_pos as f32, 1.0 / n_neg as f32);
        let (mut np, mut nn) = (0f64, 0f64);
        let w: Vec<f32> = pos
            .iter()
            .zip(&neg)
            .map(|(&p, &q)| {
                let (p, q) = (p * sp, q * sn);
                np += f64::from(p * p);
                nn += f64::from(q * q);
                p - q
            })
            .collect();
        Ok(Fitted {
            model: LinearModel {
                w: w.into(),
                bias: ((nn - np) / 2.0) as f32,
            },
            report,
        })
    }
}

impl LearnerKind for NearestCentroid {
    const NAME: &'static str = "centroid";
    const ABOUT: &'static str = "the nearest class centroid";
    const ACCEPTS: &'static [crate::error::Param] = &[];

    fn set(&mut self, _: Setting) -> Result<(), ConfigError> {
        Ok(())
    }

    fn set_seed(&mut self, _: u64) {}

    fn bias(&self) -> Bias {
        Bias::Augmented
    }

    fn describe(&self) -> String {
        "class means".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::real_from_dense;
    use crate::learn::Classifier;
    use crate::learn::seed_examples::four_points;

    #[test]
    fn seed_points_prototypes() {
        // c₊ = (1.5, 1.5), c₋ = (−1, 0): w = (2.5, 1.5), b = (1 − 4.5)/2 = −1.75.
        let (x, y) = four_points();
        let centroid = NearestCentroid.check().unwrap();
        let m = centroid.fit(&x, &y).unwrap().model;
        assert_eq!(m.w, vec![2.5, 1.5]);
        assert!((m.bias + 1.75).abs() < 1e-6);
        // (0.5, 0.5) is nearer c₊ (distance² 2) than c₋ (2.5): score (2.5 − 2)/2 = 0.25.
        let p = real_from_dense(&[vec![0.5, 0.5]]);
        assert!((m.score(p.row(0)) - (2.0 - 1.75)).abs() < 1e-6);
        // One class only: that class, whatever the row.
        let all = centroid.fit(&x, &[-1, -1, -1, -1]).unwrap().model;
        assert!(all.score(x.row(0)) < 0.0 && all.score(p.row(0)) < 0.0);
    }
}
