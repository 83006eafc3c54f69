//! Spam-filter figures from scores: accuracy, spam recall, ham false-positive rate, ROC AUC
//! and the TREC spam track's (1-ROCA)%. A message is called spam when its score is above
//! the model's threshold (its decision rule); the ROC figures do not depend on it.

use super::roc::{one_minus_roca_pct, roc_auc};
use serde::Serialize;

/// How well a spam filter did on labelled mail.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SpamMetrics {
    /// Messages scored.
    pub documents: u64,
    /// Of which spam.
    pub spam: u64,
    /// Of which ham.
    pub ham: u64,
    /// Fraction classified correctly.
    pub accuracy: f64,
    /// Fraction of spam called spam.
    pub spam_recall: f64,
    /// Fraction of ham called spam (the costly mistake).
    pub ham_fp_rate: f64,
    /// Ham called spam.
    pub false_positives: u64,
    /// Spam called ham.
    pub false_negatives: u64,
    /// ROC AUC of the scores (NaN when only one class is present).
    pub auc: f64,
    /// 100·(1 − AUC).
    pub one_minus_roca_pct: f64,
}

impl SpamMetrics {
    /// Figures for `scores` against the truth `is_spam`, a score above `threshold`
    /// calling its message spam.
    pub fn new(scores: &[f32], is_spam: &[bool], threshold: f32) -> SpamMetrics {
        let called: Vec<bool> = scores.iter().map(|&s| s > threshold).collect();
        SpamMetrics::of_verdicts(scores, is_spam, &called)
    }

    /// Figures for `scores` against the truth `is_spam` where `called_spam` says which
    /// messages were called spam (a filter re-decided at another cut); the AUC is the
    /// scores'.
    pub fn of_verdicts(scores: &[f32], is_spam: &[bool], called_spam: &[bool]) -> SpamMetrics {
        assert_eq!(scores.len(), is_spam.len(), "one label per score");
        assert_eq!(scores.len(), called_spam.len(), "one verdict per score");
        let spam = is_spam.iter().filter(|&&s| s).count() as u64;
        let ham = is_spam.len() as u64 - spam;
        let (mut fp, mut fnn) = (0u64, 0u64);
        for (&called, &y) in called_spam.iter().zip(is_spam) {
            match (called, y) {
                (true, false) => fp += 1,
                (false, true) => fnn += 1,
                _ => {}
            }
        }
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let auc = roc_auc(scores, is_spam).unwrap_or(f64::NAN);
        SpamMetrics {
            documents: spam + ham,
            spam,
            ham,
            accuracy: ratio(spam + ham - fp - fnn, spam + ham),
            spam_recall: ratio(spam - fnn, spam),
            ham_fp_rate: ratio(fp, ham),
            false_positives: fp,
            false_negatives: fnn,
            auc,
            one_minus_roca_pct: one_minus_roca_pct(auc),
        }
    }

    /// The figures as JSON (NaN, for an undefined AUC, becomes null).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// A short human-readable report.
    pub fn to_text(&self) -> String {
        format!(
            "messages       {} ({} spam, {} ham)\n\
             accuracy       {:.4}\n\
             spam recall    {:.4} ({} spam missed)\n\
             ham FP rate    {:.4}% ({} ham called spam)\n\
             ROC AUC        {:.6}\n\
             (1-ROCA)%      {:.4}\n",
            self.documents,
            self.spam,
            self.ham,
            self.accuracy,
            self.spam_recall,
            self.false_negatives,
            100.0 * self.ham_fp_rate,
            self.false_positives,
            self.auc,
            self.one_minus_roca_pct
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_filter() {
        // 2 spam (scores 3, -1), 3 ham (scores -2, 0.5, -4): one miss, one false positive.
        let m = SpamMetrics::new(
            &[3.0, -1.0, -2.0, 0.5, -4.0],
            &[true, true, false, false, false],
            0.0,
        );
        assert_eq!(
            (m.spam, m.ham, m.false_negatives, m.false_positives),
            (2, 3, 1, 1)
        );
        assert!((m.accuracy - 0.6).abs() < 1e-12);
        assert!((m.spam_recall - 0.5).abs() < 1e-12);
        assert!((m.ham_fp_rate - 1.0 / 3.0).abs() < 1e-12);
        // Pairs: 3 beats all 3 ham; -1 beats -2 and -4 → 5/6.
        assert!((m.auc - 5.0 / 6.0).abs() < 1e-12);
        assert!((m.one_minus_roca_pct - 100.0 / 6.0).abs() < 1e-9);
        assert_eq!(m.to_json()["false_positives"], 1);
    }

    #[test]
    fn the_threshold_moves_the_decisions_not_the_ranking() {
        // Threshold 1: the ham at 0.5 is ham now (no false positive), the spam at 3 stays
        // spam; the spam at −1 is still missed. AUC is the same 5/6.
        let m = SpamMetrics::new(
            &[3.0, -1.0, -2.0, 0.5, -4.0],
            &[true, true, false, false, false],
            1.0,
        );
        assert_eq!((m.false_negatives, m.false_positives), (1, 0));
        assert!((m.accuracy - 0.8).abs() < 1e-12);
        assert!((m.auc - 5.0 / 6.0).abs() < 1e-12);
        // Threshold 3: a score equal to it is not above it, so the spam at 3 is missed.
        let m = SpamMetrics::new(&[3.0, -1.0], &[true, true], 3.0);
        assert_eq!(m.false_negatives, 2);
    }
}
