//! How well probabilities fit the labels they were given for: the mean log-loss, which a
//! filter's evaluation reports for its P(spam) on mail it did not learn.

/// The mean log-loss of `probabilities` of the positive class (class index 1 in
/// `truth`), each clamped to [1e-15, 1 − 1e-15] so that one confident mistake costs
/// about 34.5 rather than infinity; 0 for no documents.
pub fn log_loss(probabilities: &[f32], truth: &[usize]) -> f64 {
    let sum: f64 = probabilities
        .iter()
        .zip(truth)
        .map(|(&p, &t)| {
            let p = f64::from(p).clamp(1e-15, 1.0 - 1e-15);
            -if t == 1 { p.ln() } else { (1.0 - p).ln() }
        })
        .sum();
    sum / probabilities.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_loss_of_hand_computed_cases() {
        // −(ln 0.9 + ln 0.8) / 2
        let expected = -(0.9f64.ln() + 0.8f64.ln()) / 2.0;
        assert!((log_loss(&[0.9, 0.2], &[1, 0]) - expected).abs() < 1e-7);
        // A certain mistake is clamped, not infinite.
        let worst = log_loss(&[0.0], &[1]);
        assert!((worst - 1e15f64.ln()).abs() < 1e-6, "{worst}");
        assert_eq!(log_loss(&[], &[]), 0.0);
    }
}
