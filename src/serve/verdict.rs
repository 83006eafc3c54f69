//! A message's verdict as a filter daemon states it, from the saved classifier's own
//! decision: spam or not, P(spam), the strongest features, and the two scales the mail
//! protocols speak.
//!
//! The score clients see is `10 × P(spam)`, from 0 to 10, and the score from which mail is
//! spam is `10 ×` P(spam) at the filter's threshold (9.0 for the default filter, which
//! decides at P(spam) > 0.9); a filter without a probability reports its raw score and
//! threshold. spamd's `Spam: True ; 9.9 / 9.0` and rspamd's `score`/`required_score` are
//! both in that scale. rspamd's action comes from P(spam): `reject` from the reject
//! probability on (0.99 by default), `add header` for other spam, `no action` for ham.

use crate::Result;
use crate::classifier::SavedClassifier;
use crate::incremental::Filter;

/// How many of a message's strongest features a verdict names.
pub const SYMBOLS: usize = 10;

/// A message judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Whether the filter calls it spam (its own decision).
    pub spam: bool,
    /// The filter's score (w·x + b).
    pub score: f32,
    /// P(spam), where the filter has a probability.
    pub probability: Option<f32>,
    /// The score the client sees (see the module docs).
    pub shown: f64,
    /// The shown score from which mail is spam.
    pub required: f64,
    /// The strongest features, with what each adds to the score, strongest first.
    pub symbols: Vec<(String, f32)>,
}

/// What an rspamd client is told to do with the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Ham: deliver.
    NoAction,
    /// Spam: deliver with the verdict in the header.
    AddHeader,
    /// Spam past the reject probability: refuse it.
    Reject,
}

impl Action {
    /// rspamd's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Action::NoAction => "no action",
            Action::AddHeader => "add header",
            Action::Reject => "reject",
        }
    }
}

impl Verdict {
    /// The action for this verdict when mail is rejected from P(spam) `reject` on.
    pub fn action(&self, reject: f32) -> Action {
        match (self.spam, self.probability) {
            (false, _) => Action::NoAction,
            (true, Some(p)) if p >= reject => Action::Reject,
            (true, _) => Action::AddHeader,
        }
    }
}

/// Judges the raw message `raw` with `classifier`, a spam filter, read once and in one
/// view of the filter; with `symbols`, also takes its score apart for the strongest
/// features.
pub fn judge(classifier: &SavedClassifier, raw: &[u8], symbols: bool) -> Result<Verdict> {
    let view = classifier.view()?;
    let filter = view.spam_filter()?;
    crate::model::refuse_empty_message(raw)?;
    let doc = crate::model::document_of(view.analyzer(), raw);
    // With its symbols, the explanation is the decision (its class and score are the
    // filter's), so the message's features are read once either way.
    let (decision, explained) = if symbols {
        let e = view.explain_strongest(&doc, SYMBOLS)?;
        let d = crate::learn::ClassDecision {
            class: e.class,
            score: e.score,
        };
        (d, Some(e))
    } else {
        let d = view.decide_documents(std::slice::from_ref(&doc))?.remove(0);
        (d, None)
    };
    let spam = decision.class == filter.spam;
    let probability = view.probability(decision.score);
    let (shown, required) = match (probability, view.probability(view.threshold())) {
        (Some(p), Some(at)) => (10.0 * f64::from(p), 10.0 * f64::from(at)),
        _ => (f64::from(decision.score), f64::from(view.threshold())),
    };
    let symbols = explained.map_or_else(Vec::new, |e| {
        e.features
            .into_iter()
            .map(|c| (c.feature, c.contribution))
            .collect()
    });
    Ok(Verdict {
        spam,
        score: decision.score,
        probability,
        shown,
        required,
        symbols,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(spam: bool, probability: Option<f32>) -> Verdict {
        Verdict {
            spam,
            score: 0.0,
            probability,
            shown: 0.0,
            required: 9.0,
            symbols: Vec::new(),
        }
    }

    #[test]
    fn the_action_follows_the_decision_and_the_reject_probability() {
        assert_eq!(verdict(false, Some(0.95)).action(0.99), Action::NoAction);
        assert_eq!(verdict(true, Some(0.95)).action(0.99), Action::AddHeader);
        assert_eq!(verdict(true, Some(0.995)).action(0.99), Action::Reject);
        // Without a probability nothing is rejected.
        assert_eq!(verdict(true, None).action(0.99), Action::AddHeader);
        assert_eq!(Action::Reject.name(), "reject");
    }
}
