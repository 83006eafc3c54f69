//! The area under the ROC curve, computed from scores by ranks (Mann–Whitney U), with tied
//! scores sharing their average rank, as scikit-learn's `roc_auc_score` does; and the TREC
//! spam track's (1-ROCA)%, 100·(1 − AUC).

/// The positives and negatives among `positive` (one per score), or `None` when one
/// class is absent and no ROC measure is defined.
fn class_counts(scores: &[f32], positive: &[bool]) -> Option<(usize, usize)> {
    assert_eq!(scores.len(), positive.len(), "one label per score");
    let n_pos = positive.iter().filter(|&&p| p).count();
    let n_neg = positive.len() - n_pos;
    (n_pos > 0 && n_neg > 0).then_some((n_pos, n_neg))
}

/// The ROC AUC of `scores` for the labels `positive`: the probability that a random
/// positive scores above a random negative (ties count one half). `None` when one class
/// is absent (the AUC is undefined then).
pub fn roc_auc(scores: &[f32], positive: &[bool]) -> Option<f64> {
    let (n_pos, n_neg) = class_counts(scores, positive)?;
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_unstable_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    // Sum of the (1-based, tie-averaged) ranks of the positives.
    let mut rank_sum = 0.0f64;
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && scores[order[j]] == scores[order[i]] {
            j += 1;
        }
        let avg_rank = (i + 1 + j) as f64 / 2.0; // ranks i+1 ..= j
        let pos_in_run = order[i..j].iter().filter(|&&k| positive[k]).count();
        rank_sum += avg_rank * pos_in_run as f64;
        i = j;
    }
    let (p, n) = (n_pos as f64, n_neg as f64);
    Some((rank_sum - p * (p + 1.0) / 2.0) / (p * n))
}

/// The ROC curve of `scores` for the labels `positive`: (false-positive rate,
/// true-positive rate) after each distinct score, highest first, from (0, 0) to (1, 1);
/// tied scores make one step (a diagonal one when the tie holds both classes). `None`
/// when one class is absent.
pub fn roc_points(scores: &[f32], positive: &[bool]) -> Option<Vec<(f64, f64)>> {
    let (n_pos, n_neg) = class_counts(scores, positive)?;
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_unstable_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut points = vec![(0.0, 0.0)];
    let (mut tp, mut fp) = (0usize, 0usize);
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j < order.len() && scores[order[j]] == scores[order[i]] {
            if positive[order[j]] {
                tp += 1;
            } else {
                fp += 1;
            }
            j += 1;
        }
        points.push((fp as f64 / n_neg as f64, tp as f64 / n_pos as f64));
        i = j;
    }
    Some(points)
}

/// The TREC spam track's (1-ROCA)%: 100·(1 − AUC).
pub fn one_minus_roca_pct(auc: f64) -> f64 {
    100.0 * (1.0 - auc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hand_computed_cases() {
        // Pairs (pos, neg): (0.35 vs 0.1 ✓, vs 0.4 ✗), (0.8 ✓ ✓) → 3/4.
        let auc = roc_auc(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true]).unwrap();
        assert!((auc - 0.75).abs() < 1e-12);
        // A tie counts one half.
        assert_eq!(roc_auc(&[1.0, 1.0], &[false, true]), Some(0.5));
        assert_eq!(roc_auc(&[0.0, 1.0], &[false, true]), Some(1.0));
        assert_eq!(roc_auc(&[1.0, 0.0], &[false, true]), Some(0.0));
        assert_eq!(roc_auc(&[1.0, 2.0], &[true, true]), None);
        assert!((one_minus_roca_pct(0.9983) - 0.17).abs() < 1e-9);
    }

    #[test]
    fn roc_points_step_through_the_ranking() {
        // Highest first: 0.8 (pos), 0.4 (neg), 0.35 (pos), 0.1 (neg).
        let pts = roc_points(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true]).unwrap();
        assert_eq!(
            pts,
            vec![(0.0, 0.0), (0.0, 0.5), (0.5, 0.5), (0.5, 1.0), (1.0, 1.0)]
        );
        // A tie of both classes is one diagonal step.
        assert_eq!(
            roc_points(&[1.0, 1.0], &[false, true]).unwrap(),
            vec![(0.0, 0.0), (1.0, 1.0)]
        );
        assert_eq!(roc_points(&[1.0, 2.0], &[true, true]), None);
    }

    proptest! {
        /// The ROC path is monotone from (0, 0) to (1, 1), and the area under it (by
        /// trapezoids) is the rank AUC.
        #[test]
        fn roc_points_are_monotone_and_enclose_the_auc(data in proptest::collection::vec((0u8..6, any::<bool>()), 2..40)) {
            let scores: Vec<f32> = data.iter().map(|d| f32::from(d.0)).collect();
            let pos: Vec<bool> = data.iter().map(|d| d.1).collect();
            let Some(pts) = roc_points(&scores, &pos) else {
                prop_assert_eq!(roc_auc(&scores, &pos), None);
                return Ok(());
            };
            prop_assert_eq!(pts[0], (0.0, 0.0));
            prop_assert_eq!(*pts.last().unwrap(), (1.0, 1.0));
            let mut area = 0.0;
            for w in pts.windows(2) {
                prop_assert!(w[1].0 >= w[0].0 && w[1].1 >= w[0].1);
                area += (w[1].0 - w[0].0) * (w[1].1 + w[0].1) / 2.0;
            }
            prop_assert!((area - roc_auc(&scores, &pos).unwrap()).abs() < 1e-9);
        }

        /// The rank formula equals counting every (positive, negative) pair.
        #[test]
        fn equals_pair_counting(data in proptest::collection::vec((0u8..6, any::<bool>()), 2..40)) {
            let scores: Vec<f32> = data.iter().map(|d| f32::from(d.0)).collect();
            let pos: Vec<bool> = data.iter().map(|d| d.1).collect();
            let (mut wins, mut pairs) = (0.0, 0.0);
            for i in 0..scores.len() {
                for j in 0..scores.len() {
                    if pos[i] && !pos[j] {
                        pairs += 1.0;
                        wins += if scores[i] > scores[j] { 1.0 } else if scores[i] == scores[j] { 0.5 } else { 0.0 };
                    }
                }
            }
            let auc = roc_auc(&scores, &pos);
            if pairs == 0.0 {
                prop_assert_eq!(auc, None);
            } else {
                prop_assert!((auc.unwrap() - wins / pairs).abs() < 1e-9);
            }
        }
    }
}
