//! The seed lecture notes' worked examples, run through the library.

use crate::features::real_from_dense;
use crate::learn::{Bias, Check, Learner, Perceptron, Schedule};

/// The notes' four points, (1, 2) and (2, 1) positive, (−1, −1) and (−1, 1) negative: the
/// separable set the learners' own tests fit too.
pub(super) fn four_points() -> (crate::RealMatrix, Vec<i8>) {
    let x = real_from_dense(&[vec![1., 2.], vec![2., 1.], vec![-1., -1.], vec![-1., 1.]]);
    (x, vec![1, 1, -1, -1])
}

#[test]
fn four_point_batch_perceptron_weight_sequence() {
    // Epoch 1: x1 scores 0 (a mistake, y·0 ≤ 0) → w = (1,2); x2: 4 > 0; x3: y·(−3) > 0;
    // x4: w·x = 1, y = −1 → mistake, w = (1,2) − (−1,1) = (2,1). Epoch 2 makes no mistake.
    let (x, y) = four_points();
    let p = Perceptron {
        eta: 1.0,
        bias: Bias::None,
        schedule: Schedule::UntilConvergence { max_epochs: 10 },
        shuffle: None,
    };
    let mut seq = Vec::new();
    let fit = p
        .check()
        .unwrap()
        .fit_observed(&x, &y, |u| seq.push((u.example, u.epoch, u.w.to_vec())))
        .unwrap();
    assert_eq!(seq, vec![(0, 0, vec![1., 2.]), (3, 0, vec![2., 1.])]);
    assert_eq!(fit.model.w, vec![2., 1.]);
    assert_eq!(fit.report.updates, 2);
    assert_eq!(fit.report.mistakes_per_epoch, vec![2, 0]);
    assert_eq!(fit.report.converged, Some(true));
}

#[test]
fn learning_rate_scales_the_weights_only() {
    // With w₀ = 0 and no bias, η only rescales w: same mistakes, w multiplied by η.
    let (x, y) = four_points();
    let p = |eta| Perceptron {
        eta,
        bias: Bias::None,
        schedule: Schedule::Epochs(3),
        shuffle: None,
    };
    let a = p(1.0).check().unwrap().fit(&x, &y).unwrap();
    let b = p(0.5).check().unwrap().fit(&x, &y).unwrap();
    assert_eq!(a.report.updates, b.report.updates);
    assert_eq!(
        b.model.w,
        a.model.w.iter().map(|w| w * 0.5).collect::<Vec<_>>()
    );
}

#[test]
fn xor_never_converges() {
    let x = real_from_dense(&[vec![1., 1.], vec![-1., -1.], vec![1., -1.], vec![-1., 1.]]);
    let y = vec![1, 1, -1, -1];
    for bias in [Bias::None, Bias::Augmented, Bias::R2] {
        let p = Perceptron {
            eta: 1.0,
            bias,
            schedule: Schedule::UntilConvergence { max_epochs: 50 },
            shuffle: None,
        };
        let fit = p.check().unwrap().fit(&x, &y).unwrap();
        assert_eq!(fit.report.converged, Some(false), "{bias:?}");
        assert_eq!(fit.report.epochs, 50);
        assert!(fit.report.mistakes_per_epoch.iter().all(|&m| m > 0));
    }
}

#[test]
fn augmented_and_r2_bias_updates() {
    // One point on each side of x = 1.5 on a line: needs a bias to separate.
    let x = real_from_dense(&[vec![2.], vec![1.]]);
    let y = vec![1, -1];
    let aug = Perceptron {
        eta: 1.0,
        bias: Bias::Augmented,
        schedule: Schedule::UntilConvergence { max_epochs: 100 },
        shuffle: None,
    }
    .check()
    .unwrap()
    .fit(&x, &y)
    .unwrap();
    assert_eq!(aug.report.converged, Some(true));
    // Hand trace with x̃ = (x, 1), as (w, b) after each update:
    // epoch 1: (2,1) (1,0); 2: (0,−1); 3: (2,0) (1,−1); 4: (0,−2); 5: (2,−1) (1,−2);
    // 6: (3,−1) (2,−2); 7: (1,−3); 8: (3,−2) (2,−3); epoch 9 makes no mistake.
    assert_eq!((aug.model.w.to_vec(), aug.model.bias), (vec![2.], -3.));
    assert_eq!(aug.report.updates, 13);
    let r2 = Perceptron {
        eta: 1.0,
        bias: Bias::R2,
        schedule: Schedule::UntilConvergence { max_epochs: 100 },
        shuffle: None,
    }
    .check()
    .unwrap()
    .fit(&x, &y)
    .unwrap();
    assert_eq!(r2.report.converged, Some(true));
    // R² = 4: every bias step is ±4. Traced by hand the same way: 9 updates, w = 3, b = −4
    // (3·2 − 4 = 2 > 0, 3·1 − 4 = −1 < 0).
    assert_eq!(
        (r2.model.w.to_vec(), r2.model.bias, r2.report.updates),
        (vec![3.], -4., 9)
    );
}

#[test]
fn randomized_is_seeded_and_stops_on_patience() {
    let (x, y) = four_points();
    let p = |seed| Perceptron {
        eta: 1.0,
        bias: Bias::None,
        schedule: Schedule::Randomized {
            rounds: 1000,
            seed,
            patience: Some(20),
        },
        shuffle: None,
    };
    let a = p(7).check().unwrap().fit(&x, &y).unwrap();
    assert_eq!(a.report.converged, Some(true));
    assert!(a.report.steps < 1000);
    let b = p(7).check().unwrap().fit(&x, &y).unwrap();
    assert_eq!(
        (a.model.w.to_vec(), a.report.steps),
        (b.model.w.to_vec(), b.report.steps)
    );
    // The result separates the four points.
    for (i, &yi) in y.iter().enumerate() {
        use crate::{Classifier, SparseRows};
        assert!(f32::from(yi) * a.model.score(x.row(i)) > 0.0);
    }
}

#[test]
fn online_mode_counts_mistakes_of_one_pass() {
    let (x, y) = four_points();
    let p = Perceptron {
        eta: 1.0,
        bias: Bias::None,
        schedule: Schedule::Online,
        shuffle: None,
    };
    let fit = p.check().unwrap().fit(&x, &y).unwrap();
    assert_eq!(fit.report.epochs, 1);
    assert_eq!(fit.report.mistakes_per_epoch, vec![2]);
}

#[test]
fn invalid_rates_are_refused_before_work() {
    for eta in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let p = Perceptron {
            eta,
            bias: Bias::None,
            schedule: Schedule::Epochs(1),
            shuffle: None,
        };
        let e = p.check().unwrap_err();
        assert_eq!(e.param, crate::error::Param::Eta);
        assert_eq!(e.value, eta.to_string());
        assert!(e.to_string().contains("learning rate"), "{e}");
    }
}
