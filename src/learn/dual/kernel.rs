//! Kernels for the dual perceptron: K(x, z) as a function of x·z, ‖x‖² and ‖z‖², so that
//! one sparse dot product (for binary rows the size of the intersection) is all a pair
//! costs, whether it comes from [`ops::sparse_dot`] or from a postings walk.
//!
//! - linear: K = x·z (binary rows: |x ∩ z|);
//! - polynomial: K = (x·z + c)^d;
//! - RBF: K = exp(−γ‖x − z‖²) with ‖x − z‖² = ‖x‖² + ‖z‖² − 2x·z
//!   (binary rows: |x| + |z| − 2|x ∩ z|).

use crate::error::{ConfigError, Param, positive};
use crate::features::{RowRef, ops};
use serde::{Deserialize, Serialize};

/// The largest polynomial degree accepted (higher degrees overflow `f32` on text rows).
pub(crate) const MAX_DEGREE: u32 = 16;

/// A positive semi-definite kernel over sparse rows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Kernel {
    /// K(x, z) = x·z: the dual of the primal perceptron.
    Linear,
    /// K(x, z) = (x·z + coef0)^degree: conjunctions of up to `degree` words.
    Polynomial {
        /// The degree d ≥ 1.
        degree: u32,
        /// The constant c ≥ 0.
        coef0: f32,
    },
    /// K(x, z) = exp(−gamma·‖x − z‖²).
    Rbf {
        /// The width γ > 0.
        gamma: f32,
    },
}

impl Kernel {
    /// Checks the parameters before any work.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        match *self {
            Kernel::Linear => Ok(()),
            Kernel::Polynomial { degree, coef0 } => {
                if !(1..=MAX_DEGREE).contains(&degree) {
                    return Err(ConfigError::new(
                        Param::Degree,
                        degree,
                        format!("must be between 1 and {MAX_DEGREE}"),
                    ));
                }
                if !(coef0.is_finite() && coef0 >= 0.0) {
                    return Err(ConfigError::new(
                        Param::Coef0,
                        coef0,
                        "must be a number ≥ 0 (a negative one is not a kernel)",
                    ));
                }
                Ok(())
            }
            Kernel::Rbf { gamma } => positive(Param::Gamma, gamma),
        }
    }

    /// K from the dot product and the two squared norms.
    #[inline]
    pub(crate) fn of_dot(&self, dot: f32, sq_x: f32, sq_z: f32) -> f32 {
        match *self {
            Kernel::Linear => dot,
            Kernel::Polynomial { degree, coef0 } => (dot + coef0).powi(degree as i32),
            Kernel::Rbf { gamma } => {
                let d2 = (sq_x + sq_z - 2.0 * dot).max(0.0);
                (-gamma * d2).exp()
            }
        }
    }

    /// K(x, z) for two rows.
    #[inline]
    pub(crate) fn eval(&self, x: RowRef<'_>, z: RowRef<'_>) -> f32 {
        self.of_dot(ops::sparse_dot(x, z), ops::nrm2_sq(x), ops::nrm2_sq(z))
    }

    /// A short description for model metadata and messages.
    pub fn describe(&self) -> String {
        match *self {
            Kernel::Linear => "linear kernel".into(),
            Kernel::Polynomial { degree, coef0 } => {
                format!("polynomial kernel (x·z + {coef0})^{degree}")
            }
            Kernel::Rbf { gamma } => format!("rbf kernel exp(-{gamma}·‖x − z‖²)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::real_from_dense;
    use crate::features::{RowRef, SparseRows};

    #[test]
    fn binary_rows_hand_computed() {
        // x = {1, 3, 5}, z = {3, 5, 7, 9}: |x ∩ z| = 2, ‖x − z‖² = 3 + 4 − 4 = 3.
        let (x, z) = (RowRef::binary(&[1, 3, 5]), RowRef::binary(&[3, 5, 7, 9]));
        assert_eq!(Kernel::Linear.eval(x, z), 2.0);
        let poly = Kernel::Polynomial {
            degree: 3,
            coef0: 1.0,
        };
        assert_eq!(poly.eval(x, z), 27.0);
        let rbf = Kernel::Rbf { gamma: 0.5 };
        assert!((rbf.eval(x, z) - (-1.5f32).exp()).abs() < 1e-7);
        assert_eq!(rbf.eval(x, x), 1.0);
    }

    #[test]
    fn real_rows_match_dense_formulas() {
        let m = real_from_dense(&[vec![1., -2., 0.5], vec![0., 3., -1.]]);
        let (x, z) = (m.row(0), m.row(1));
        // x·z = −6.5, ‖x‖² = 5.25, ‖z‖² = 10, ‖x − z‖² = 1 + 25 + 2.25 = 28.25.
        assert_eq!(Kernel::Linear.eval(x, z), -6.5);
        let poly = Kernel::Polynomial {
            degree: 2,
            coef0: 2.0,
        };
        assert_eq!(poly.eval(x, z), 20.25);
        let rbf = Kernel::Rbf { gamma: 0.1 };
        assert!((rbf.eval(x, z) - (-2.825f32).exp()).abs() < 1e-7);
    }

    #[test]
    fn bad_parameters_are_refused_with_a_sentence() {
        let bad = [
            Kernel::Polynomial {
                degree: 0,
                coef0: 1.0,
            },
            Kernel::Polynomial {
                degree: 2,
                coef0: -1.0,
            },
            Kernel::Rbf { gamma: 0.0 },
            Kernel::Rbf { gamma: f32::NAN },
        ];
        let params = [Param::Degree, Param::Coef0, Param::Gamma, Param::Gamma];
        for (k, param) in bad.into_iter().zip(params) {
            let e = k.validate().unwrap_err();
            assert_eq!(e.param, param);
            assert!(e.to_string().starts_with(param.noun()), "{e}");
        }
        assert!(Kernel::Linear.validate().is_ok());
    }
}
