//! The learning curve of an online filter: how its figures change as it meets more mail.
//! Each point closes a block of messages (in the order they were scored) and gives the
//! block's own errors and (1-ROCA)%, and the figures of every message so far, so a user
//! sees the filter improve (TREC's spam track plots the same).

use super::SpamMetrics;
use serde::Serialize;

/// One point of the curve: the block that ends after `messages` messages.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Messages scored so far (the block's end).
    pub messages: u64,
    /// Messages in this block.
    pub block_messages: u64,
    /// Errors in this block (ham called spam plus spam called ham).
    pub block_errors: u64,
    /// The block's (1-ROCA)% (`None` when the block holds one class only).
    pub block_one_minus_roca_pct: Option<f64>,
    /// Errors so far.
    pub errors: u64,
    /// (1-ROCA)% of every score so far (`None` while one class only has been seen).
    pub one_minus_roca_pct: Option<f64>,
}

/// The curve of `scores` against `is_spam` in blocks of `block` messages (the last block
/// may be shorter), errors counted at the filter's `threshold`. `block` is at least 1.
pub fn learning_curve(
    scores: &[f32],
    is_spam: &[bool],
    block: usize,
    threshold: f32,
) -> Vec<CurvePoint> {
    assert!(block > 0, "a block holds at least one message");
    let defined = |m: &SpamMetrics| m.auc.is_finite().then_some(m.one_minus_roca_pct);
    let mut out = Vec::new();
    let mut errors = 0;
    let mut start = 0;
    while start < scores.len() {
        let end = (start + block).min(scores.len());
        let b = SpamMetrics::new(&scores[start..end], &is_spam[start..end], threshold);
        let so_far = SpamMetrics::new(&scores[..end], &is_spam[..end], threshold);
        let block_errors = b.false_positives + b.false_negatives;
        errors += block_errors;
        out.push(CurvePoint {
            messages: end as u64,
            block_messages: (end - start) as u64,
            block_errors,
            block_one_minus_roca_pct: defined(&b),
            errors,
            one_minus_roca_pct: defined(&so_far),
        });
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_count_their_own_errors_and_the_running_total() {
        // Block 1: spam 1.0 ✓, ham 2.0 ✗ (ranked above the spam: AUC 0, (1-ROCA)% 100).
        // Block 2: spam −1.0 ✗, ham −3.0 ✓ (AUC 1 → 0). Block 3 (short): spam 5.0 ✓, one
        // class only.
        let scores = [1.0, 2.0, -1.0, -3.0, 5.0];
        let truth = [true, false, true, false, true];
        let c = learning_curve(&scores, &truth, 2, 0.0);
        assert_eq!(c.len(), 3);
        assert_eq!((c[0].messages, c[0].block_errors, c[0].errors), (2, 1, 1));
        assert_eq!(c[0].block_one_minus_roca_pct, Some(100.0));
        assert_eq!((c[1].messages, c[1].block_errors, c[1].errors), (4, 1, 2));
        assert_eq!(c[1].block_one_minus_roca_pct, Some(0.0));
        // So far after 4: spam {1, −1}, ham {2, −3}: pairs won 1 + 0 + ... = (1>−3) + (−1>−3)
        // = 2 of 4 → AUC 0.5, (1-ROCA)% 50.
        assert_eq!(c[1].one_minus_roca_pct, Some(50.0));
        assert_eq!((c[2].messages, c[2].block_messages), (5, 1));
        assert_eq!(c[2].block_one_minus_roca_pct, None);
        assert_eq!(c[2].errors, 2);
    }
}
