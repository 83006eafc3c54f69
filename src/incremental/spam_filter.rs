//! What makes a model a spam filter, and where one calls a message spam. Every command
//! that needs a filter asks [`crate::incremental::Filter::spam_filter`], of a model file
//! or a store alike, so they all agree on what a filter is and refuse a model that is not
//! one with the same sentence.

use crate::input::mail::MailRules;
use crate::text::Analyzer;
use crate::{Error, Result};

/// A spam filter's classes, in the order its decisions index them (spam is the positive
/// class, whose score is above the threshold).
pub const FILTER_CLASSES: [&str; 2] = ["ham", "spam"];

/// The facts of a spam filter that a command needs: how it reads mail, which class is
/// spam, and whether it records P(spam).
#[derive(Debug, Clone, Copy)]
pub struct SpamFilter<'a> {
    /// The mail rules its messages are parsed under.
    pub rules: &'a MailRules,
    /// The index of `spam` among its classes.
    pub spam: usize,
    /// Whether it gives P(spam) for a score (a calibration, or a logistic filter's own).
    pub probability: bool,
}

/// The spam filter that a model or a store reading with `analyzer`, of `classes`, is: one
/// whose source reads mail and whose classes are ham and spam. Anything else (a text
/// model whose classes happen to be named ham and spam included) is refused with one
/// sentence, the same for every command.
pub(crate) fn spam_filter<'a>(
    analyzer: &'a Analyzer,
    classes: &[String],
    probability: bool,
) -> Result<SpamFilter<'a>> {
    let rules = analyzer.source().mail_rules();
    match rules {
        Some(rules) if classes == FILTER_CLASSES => Ok(SpamFilter {
            rules,
            spam: 1,
            probability,
        }),
        _ => {
            let this = if rules.is_none() {
                "this model reads plain text".to_string()
            } else {
                format!("this model's classes are {}", classes.join(", "))
            };
            Err(Error::Unsupported(format!(
                "not a spam filter: a spam filter reads mail and has the classes ham and spam, \
                 and {this}"
            )))
        }
    }
}

/// Where a message is called spam when not at the filter's recorded threshold: bogofilter
/// changes its `spam_cutoff` at run time; a saved filter is re-decided here without
/// changing it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpamCut {
    /// Spam when P(spam) is above this (for a filter that records a probability).
    Probability(f32),
    /// Spam when the score is above this.
    Score(f32),
}

impl SpamCut {
    /// Whether a message of `score` and P(spam) `probability` is spam at this cut; a
    /// probability cut calls nothing spam where there is no probability.
    pub fn is_spam(self, score: f32, probability: Option<f32>) -> bool {
        match self {
            SpamCut::Probability(p) => probability.is_some_and(|q| q > p),
            SpamCut::Score(s) => score > s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::Source;

    fn classes(c: &[&str]) -> Vec<String> {
        c.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_filter_reads_mail_and_has_the_classes_ham_and_spam() {
        let mail = Analyzer::default().with_source(Source::mail());
        let f = spam_filter(&mail, &classes(&["ham", "spam"]), true).unwrap();
        assert_eq!((f.spam, f.probability), (1, true));
        let text = Analyzer::default();
        let e = spam_filter(&text, &classes(&["ham", "spam"]), true).unwrap_err();
        assert!(e.to_string().contains("this model reads plain text"), "{e}");
        let e = spam_filter(&mail, &classes(&["a", "b"]), false).unwrap_err();
        assert!(e.to_string().contains("classes are a, b"), "{e}");
    }

    #[test]
    fn a_cut_decides_by_probability_or_by_score() {
        assert!(SpamCut::Probability(0.5).is_spam(-9.0, Some(0.6)));
        assert!(!SpamCut::Probability(0.5).is_spam(9.0, Some(0.5)));
        assert!(!SpamCut::Probability(0.5).is_spam(9.0, None));
        assert!(SpamCut::Score(-1.0).is_spam(-0.5, None));
        assert!(!SpamCut::Score(-1.0).is_spam(-1.0, Some(0.99)));
    }
}
