//! `--spam-probability` and `--spam-score`, shared by `classify` and `eval` of a saved
//! spam filter: decide at another cut than the filter's recorded one (bogofilter's
//! `spam_cutoff` changed at run time), without changing the filter.

use clap::Args;
use rosenblatt::incremental::SpamCut;

/// Where a saved filter calls a message spam, when not where it was trained to.
#[derive(Debug, Args, Clone, Copy, Default)]
#[command(next_help_heading = "Mail")]
pub struct SpamCutArgs {
    /// Call a message spam when its P(spam) is above P, instead of where the filter
    /// decides (0.9 for `train --spam --ham`), e.g. --spam-probability 0.5. For filters
    /// that record a probability; the filter is not changed.
    #[arg(long, value_name = "P", value_parser = parse_probability, conflicts_with = "spam_score")]
    pub spam_probability: Option<f32>,
    /// Call a message spam when its score is above S, instead of where the filter
    /// decides; the filter is not changed.
    #[arg(long, value_name = "S", value_parser = parse_score, allow_negative_numbers = true)]
    pub spam_score: Option<f32>,
}

impl SpamCutArgs {
    /// The cut given, if any.
    pub fn cut(self) -> Option<SpamCut> {
        match (self.spam_probability, self.spam_score) {
            (Some(p), _) => Some(SpamCut::Probability(p)),
            (None, Some(s)) => Some(SpamCut::Score(s)),
            (None, None) => None,
        }
    }
}

/// Parses `--spam-probability P`: a probability within [0, 1].
fn parse_probability(s: &str) -> Result<f32, String> {
    let p = parse_score(s)?;
    if !(0.0..=1.0).contains(&p) {
        return Err(format!(
            "probabilities lie in [0, 1], got {s:?} (for a cut in scores use --spam-score)"
        ));
    }
    Ok(p)
}

/// Parses `--spam-score S`: a finite number.
fn parse_score(s: &str) -> Result<f32, String> {
    s.trim()
        .parse::<f32>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("{s:?} is not a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_parse() {
        assert_eq!(parse_probability("0.5"), Ok(0.5));
        assert!(parse_probability("1.5").is_err());
        assert!(parse_probability("x").is_err());
        assert_eq!(parse_score("-2.5"), Ok(-2.5));
        assert!(parse_score("inf").is_err());
    }
}
