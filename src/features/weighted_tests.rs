//! The geometry's tests: feature weights and row scaling against hand-computed rows, and
//! weighted rows read through every op as their copies would be.

use super::*;
use crate::features::{MatrixBuilder, RowAccess, RowSubset, ops};
use proptest::prelude::*;

#[test]
fn naive_bayes_ratios_are_the_hand_computed_ones() {
    // Positive rows {0, 1} and {0}; negative {1, 2}; α = 1. Counts plus α: p = (3, 2,
    // 1), |p| = 6; q = (1, 2, 2), |q| = 5. r = ln((p/6) / (q/5)); an unseen feature
    // has p = q = α: ln((1/6) / (1/5)).
    let x = matrix(&[vec![0, 1], vec![0], vec![1, 2]], 3);
    let spec = GeometrySpec {
        weighting: Weighting::Nb { alpha: 1.0 },
        normalize: Normalize::None,
    };
    let g = Geometry::fit_labelled(spec, &x, &[true, true, false]);
    let want = [2.5f64.ln(), (5.0f64 / 6.0).ln(), (5.0f64 / 12.0).ln()];
    for (j, w) in want.iter().enumerate() {
        assert!(
            (f64::from(g.weight(j as u32)) - w).abs() < 1e-6,
            "feature {j}"
        );
    }
    assert!((f64::from(g.weight(7)) - (5.0f64 / 6.0).ln()).abs() < 1e-6);
    assert_eq!(g.check(3), Ok(()));
    assert_eq!(spec.name(), "nb");
    // Another α: p = (2.5, 1.5, 0.5) over 4.5 against q = (0.5, 1.5, 1.5) over 3.5.
    let half = GeometrySpec {
        weighting: Weighting::Nb { alpha: 0.5 },
        ..spec
    };
    let g = Geometry::fit_labelled(half, &x, &[true, true, false]);
    let r0 = ((2.5f64 / 4.5) / (0.5 / 3.5)).ln();
    assert!((f64::from(g.weight(0)) - r0).abs() < 1e-6);
    // Scored rows read the ratios: row 0 is r0 + r1 under binary storage.
    let rows = g.apply(&x);
    let sum = f64::from(g.weight(0)) + f64::from(g.weight(1));
    let dot = ops::dot(&[1.0, 1.0, 1.0], rows.row(0));
    assert!((f64::from(dot) - sum).abs() < 1e-5);
}

fn matrix(rows: &[Vec<u32>], n_cols: usize) -> crate::BinaryMatrix {
    let mut b = MatrixBuilder::with_capacity(rows.len(), 0);
    for r in rows {
        b.push_sorted(r);
    }
    b.finish(n_cols)
}

/// The weighted rows written out densely: x_ij = scale_i · idf_j for present j.
fn dense(rows: &[Vec<u32>], n_cols: usize, spec: GeometrySpec) -> Vec<Vec<f64>> {
    let n = rows.len();
    let df: Vec<usize> = (0..n_cols as u32)
        .map(|j| rows.iter().filter(|r| r.contains(&j)).count())
        .collect();
    rows.iter()
        .map(|r| {
            let mut d = vec![0f64; n_cols];
            for &j in r {
                d[j as usize] = match spec.weighting {
                    Weighting::Binary => 1.0,
                    Weighting::Idf => ((n as f64 + 1.0) / (df[j as usize] as f64 + 1.0)).ln() + 1.0,
                    Weighting::Nb { .. } => unreachable!("the properties fit no labels"),
                };
            }
            let norm = d.iter().map(|v| v * v).sum::<f64>().sqrt();
            if spec.normalize == Normalize::L2 && norm > 0.0 {
                d.iter_mut().for_each(|v| *v /= norm);
            }
            d
        })
        .collect()
}

fn rows_strategy() -> impl Strategy<Value = Vec<Vec<u32>>> {
    proptest::collection::vec(
        proptest::collection::btree_set(0u32..12, 0..8)
            .prop_map(|s| s.into_iter().collect::<Vec<u32>>()),
        1..10,
    )
}

fn spec_strategy() -> impl Strategy<Value = GeometrySpec> {
    (any::<bool>(), any::<bool>()).prop_map(|(idf, l2)| GeometrySpec {
        weighting: if idf {
            Weighting::Idf
        } else {
            Weighting::Binary
        },
        normalize: if l2 { Normalize::L2 } else { Normalize::None },
    })
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-4 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn idf_of_a_hand_computed_case() {
    // 3 rows; feature 0 in all, feature 1 in one, feature 2 in none.
    let x = matrix(&[vec![0, 1], vec![0], vec![0]], 3);
    let g = Geometry::fit(GeometrySpec::IDF_L2, &x);
    let w = g.feature_weights().unwrap();
    assert!((w[0] - 1.0).abs() < 1e-6, "ln(4/4)+1 = 1");
    assert!((w[1] - (2f32.ln() + 1.0)).abs() < 1e-6, "ln(4/2)+1");
    assert!((w[2] - (4f32.ln() + 1.0)).abs() < 1e-6, "ln(4/1)+1");
    // Row 0 = (1, 1+ln 2): its scale is 1/sqrt(1 + (1+ln 2)²).
    let s = g.scale(x.row(0));
    let want = 1.0 / (1.0 + (1.0 + 2f32.ln()).powi(2)).sqrt();
    assert!((s - want).abs() < 1e-6);
    // Within rounding: ln may differ in its last bit between two calls (Miri varies it).
    assert!(
        (g.weight(99) - (4f32.ln() + 1.0)).abs() < 1e-6,
        "unseen features weigh as df = 0"
    );
}

proptest! {
    /// Every path a learner takes through weighted rows — the row's own ops, the CSR
    /// view's unchecked loops, a subset's view — equals the dense computation.
    #[test]
    fn weighted_dot_and_update_equal_dense(
        rows in rows_strategy(), spec in spec_strategy(),
        w in proptest::collection::vec(-8i8..8, 12), a in -3i8..4,
    ) {
        let x = matrix(&rows, 12);
        let g = Geometry::fit(spec, &x);
        let wx = g.apply(&x);
        let d = dense(&rows, 12, spec);
        let w: Vec<f32> = w.into_iter().map(f32::from).collect();
        let a = f32::from(a);
        let view = wx.csr().unwrap();
        let order: Vec<usize> = (0..rows.len()).rev().collect();
        let sub = RowSubset::new(&wx, &order);
        let sub_view = sub.csr().unwrap();
        for i in 0..rows.len() {
            let want: f64 = d[i].iter().zip(&w).map(|(x, w)| x * f64::from(*w)).sum();
            prop_assert!(close(f64::from(ops::dot(&w, wx.row(i))), want));
            prop_assert!(close(f64::from(view.dot(i, &w)), want));
            let k = rows.len() - 1 - i;
            prop_assert!(close(f64::from(sub_view.dot(k, &w)), want));
            let sq: f64 = d[i].iter().map(|v| v * v).sum();
            prop_assert!(close(f64::from(ops::nrm2_sq(wx.row(i))), sq));
            prop_assert!(close(f64::from(RowAccess::nrm2_sq(&view, i)), sq));
            for upd in [0, 1, 2] {
                let mut ws = w.clone();
                match upd {
                    0 => ops::axpy(a, wx.row(i), &mut ws),
                    1 => view.axpy(i, a, &mut ws),
                    _ => sub_view.axpy(k, a, &mut ws),
                }
                for j in 0..12 {
                    prop_assert!(close(f64::from(ws[j]), f64::from(w[j]) + f64::from(a) * d[i][j]));
                }
            }
            for z in 0..rows.len() {
                let want: f64 = d[i].iter().zip(&d[z]).map(|(p, q)| p * q).sum();
                prop_assert!(close(f64::from(ops::sparse_dot(wx.row(i), wx.row(z))), want));
            }
        }
    }

    /// Under l2 every nonempty training row has length 1, so R = 1.
    #[test]
    fn l2_rows_have_unit_length(rows in rows_strategy(), idf in any::<bool>()) {
        let x = matrix(&rows, 12);
        let spec = GeometrySpec {
            weighting: if idf { Weighting::Idf } else { Weighting::Binary },
            normalize: Normalize::L2,
        };
        let g = Geometry::fit(spec, &x);
        let wx = g.apply(&x);
        for (i, r) in rows.iter().enumerate() {
            let sq = ops::nrm2_sq(wx.row(i));
            prop_assert!(r.is_empty() || (sq - 1.0).abs() < 1e-5);
        }
        if rows.iter().any(|r| !r.is_empty()) {
            // The radius R: the longest row.
            let r = (0..wx.n_rows()).map(|i| ops::nrm2_sq(wx.row(i))).fold(0.0, f32::max).sqrt();
            prop_assert!((r - 1.0).abs() < 1e-5, "R = {r}");
        }
    }
}

#[test]
fn rows_beyond_the_training_features_weigh_as_unseen() {
    let x = matrix(&[vec![0], vec![0, 1]], 2);
    let g = Geometry::fit(GeometrySpec::IDF_L2, &x);
    let wider = matrix(&[vec![1, 3]], 4);
    let wx = g.apply(&wider);
    let r = wx.row(0);
    assert_eq!(r.feature_weights.unwrap().len(), 4);
    assert_eq!(r.value(1) / r.value(0), g.weight(3) / g.weight(1));
}
