//! Learning after training, one document at a time: a saved two-class model learns a
//! message the way a mail filter does when a user files it as spam or ham
//! (`rosenblatt learn`), and as the TREC online protocol does after every message.
//!
//! The document is scored with the current model, then the model's update rule
//! ([`UpdateRule`], recorded in the model by `train` or by the online protocol) decides
//! the step: the perceptron's on a mistake (y·(w·x + b) ≤ 0, a zero score counting as
//! one), the margin perceptron's within its threshold, PA-I's, or logistic regression's
//! gradient step after every message. The bias is learned as the weight of a constant
//! feature. Before a step, words the vocabulary has never seen are added with the next ids
//! and a weight of 0, so new spam vocabulary is learned too: the vocabulary grows with
//! every step (pruning settings of the original training apply no more). A hashed model
//! has an id for every word already: it learns new words without growing. A document the
//! rule takes no step on changes no weight and no vocabulary entry. Every document counts
//! in the model's `meta.learned`; steps in `meta.report.updates`. Rows are read in the
//! model's geometry, as in training: x is the document's idf-weighted, scaled row when
//! the model was trained so, and a new word weighs as a word no training document had.
//!
//! Rows of feature vectors are learned one at a time too, by models of any number of
//! classes (`rows`: [`learn_rows`], [`empty_rows_model`]; the Python package's
//! `partial_fit`).

use crate::features::Geometry;
use crate::input::Document;
use crate::learn::{AnyModel, LinearModel, OnlineState, UpdateRule};
use crate::model::{Model, Predictor};
use crate::text::{Analyzer, UniqueWords};
use crate::{Error, Result};

mod empty;
mod filter;
mod rows;
mod spam_filter;
#[cfg(feature = "mail")]
pub mod trec;
pub use empty::{empty_model, empty_rows_model};
pub use filter::Filter;
pub use rows::learn_rows;
pub(crate) use spam_filter::spam_filter;
pub use spam_filter::{FILTER_CLASSES, SpamCut, SpamFilter};

/// What a filter that starts from no message is made of: how it reads mail, the geometry
/// of its rows and its update rule. [`Default`] is what `eval --online` starts from
/// without a model: the settings measured best on SpamAssassin's mail in date order.
#[derive(Debug, Clone, PartialEq)]
pub struct OnlineFilter {
    /// How messages become tokens (its source reads mail).
    pub analyzer: Analyzer,
    /// The geometry of its rows (binary weighting: there are no document counts yet).
    pub geometry: Geometry,
    /// How it learns each message.
    pub rule: UpdateRule,
    /// The score above which a message is spam (see [`Model::threshold`]).
    pub threshold: f32,
}

impl Default for OnlineFilter {
    /// Words and word pairs of the header fields and of the body's first 1,000 bytes,
    /// hashed into 2^22 ids, rows of unit length, and online logistic regression with
    /// AdaGrad rates (η = 1), calling spam at P(spam) > 0.9. On SpamAssassin's 6,047 messages in date order this ranked
    /// best of the rules, rates, features and lengths measured (README, "Spam filters").
    fn default() -> Self {
        // The tags of left-out fields and the recipients' local parts stay: on the
        // date-ordered stream this filter is measured on, leaving them out ranked
        // slightly worse (docs/MAIL.md).
        let rules = crate::input::mail::MailRules {
            max_body_bytes: Self::TRUNCATE,
            routing_tags: true,
            recipient_local_parts: true,
            ..Default::default()
        };
        let analyzer = Analyzer::builder(crate::text::Source::Mail(rules))
            .step(crate::text::Step::Words)
            .step(crate::text::Step::Lowercase)
            .step(crate::text::Step::Ngrams(2))
            .step(crate::text::Step::Hash(22))
            .build()
            .expect("the default filter's steps are in order");
        OnlineFilter {
            analyzer,
            geometry: Geometry::binary(crate::features::Normalize::L2),
            rule: Self::LOGISTIC,
            threshold: Self::threshold_for(Self::LOGISTIC),
        }
    }
}

impl OnlineFilter {
    /// The default filter's body length: its first 1,000 bytes.
    pub const TRUNCATE: u32 = 1000;
    /// The logistic filter's threshold: ln 9, so a message is spam when P(spam) > 0.9
    /// (see [`crate::learn::SPAM_ODDS`], where batch filters decide too).
    pub const SPAM_ODDS: f32 = crate::learn::SPAM_ODDS;
    /// The threshold a filter learning by `rule` starts with: [`Self::SPAM_ODDS`] for
    /// logistic regression, whose scores are log-odds; 0 for the rules whose scores are
    /// not probabilities.
    pub fn threshold_for(rule: UpdateRule) -> f32 {
        match rule {
            UpdateRule::Logistic { .. } => Self::SPAM_ODDS,
            _ => 0.0,
        }
    }

    /// The default rule, and the constants `--learner logistic` starts from.
    pub const LOGISTIC: UpdateRule = UpdateRule::Logistic {
        eta: 1.0,
        rate: crate::learn::Rate::AdaGrad,
    };
}

/// What learning one document did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LearnOutcome {
    /// The score before learning (positive: the positive class).
    pub score: f32,
    /// Whether the rule took a step.
    pub updated: bool,
    /// Words added to the vocabulary.
    pub new_words: usize,
}

/// The binary linear model inside `predictor`, or an error saying why learning cannot work.
fn linear_mut(predictor: &mut Predictor) -> Result<&mut LinearModel> {
    match predictor {
        Predictor::Binary(AnyModel::Linear(m) | AnyModel::Logistic(m)) => Ok(m),
        Predictor::Binary(_) => Err(Error::Unsupported(
            "learning one message at a time needs a linear model (train with the perceptron, \
             the averaged or margin perceptron, pa or logistic)"
                .into(),
        )),
        _ => Err(Error::Unsupported(
            "learning one message at a time needs a two-class model (e.g. spam/ham)".into(),
        )),
    }
}

/// The ±1 label of class `class` in a two-class model.
pub(crate) fn binary_label(model: &Model, class: &str) -> Result<f32> {
    label_of(model.classes(), class)
}

/// The ±1 label of class `class` among two `classes` (`classes[1]` is +1).
pub(crate) fn label_of(classes: &[String], class: &str) -> Result<f32> {
    match classes.iter().position(|c| c == class) {
        Some(1) if classes.len() == 2 => Ok(1.0),
        Some(0) if classes.len() == 2 => Ok(-1.0),
        _ => Err(Error::Unsupported(format!(
            "class {class:?} is not one of the model's two classes {classes:?}"
        ))),
    }
}

/// A document under an analyzer: in a hashed space the ids of all its tokens (two
/// tokens may share an id), else its distinct tokens: in first-seen order for reading,
/// sorted for learning (the order in which a step gives new words their ids).
pub(crate) enum DocTokens {
    /// Hashed ids, sorted and unique.
    Hashed(Vec<u32>),
    /// Distinct words.
    Words(UniqueWords),
}

impl DocTokens {
    /// How many tokens (ids or words).
    #[cfg(feature = "store")]
    pub(crate) fn len(&self) -> usize {
        match self {
            DocTokens::Hashed(ids) => ids.len(),
            DocTokens::Words(words) => words.len(),
        }
    }

    /// The tokens of `doc` under `analyzer`, words in first-seen order: enough to read
    /// their weights.
    pub(crate) fn of(analyzer: &Analyzer, doc: &Document) -> DocTokens {
        if let Some(h) = analyzer.hashing() {
            let mut ids = Vec::new();
            analyzer.tokens(doc, &mut |t| ids.push(h.id(t)));
            ids.sort_unstable();
            ids.dedup();
            return DocTokens::Hashed(ids);
        }
        DocTokens::Words(UniqueWords::of(analyzer, doc))
    }

    /// The tokens of `doc` under `analyzer`, words sorted: the order in which learning
    /// gives new words their ids, the same wherever the document is learned.
    pub(crate) fn sorted(analyzer: &Analyzer, doc: &Document) -> DocTokens {
        let mut tokens = DocTokens::of(analyzer, doc);
        if let DocTokens::Words(words) = &mut tokens {
            words.sort();
        }
        tokens
    }
}

/// A document under the model's analyzer: the ids of its tokens that the model knows
/// (sorted, unique; in a hashed space every token, two tokens may share an id), and —
/// for a vocabulary of words — its unique tokens, which a step adds to the vocabulary.
struct Tokens {
    ids: Vec<u32>,
    words: UniqueWords,
}

impl Tokens {
    fn of(model: &Model, doc: &Document) -> Tokens {
        match DocTokens::sorted(model.analyzer(), doc) {
            DocTokens::Hashed(ids) => Tokens {
                ids,
                words: UniqueWords::default(),
            },
            DocTokens::Words(words) => {
                let mut ids: Vec<u32> = words.iter().filter_map(|t| model.vocab().get(t)).collect();
                ids.sort_unstable();
                Tokens { ids, words }
            }
        }
    }
}

/// The current score of a row of known ids: w·x + b, the row read in the model's
/// geometry.
fn score_of(model: &Model, ids: &[u32]) -> Result<f32> {
    let Predictor::Binary(m) = &model.predictor() else {
        return Err(Error::Unsupported("scoring needs a two-class model".into()));
    };
    let row = model.geometry().row(crate::RowRef::binary(ids));
    Ok(crate::Classifier::score(m, row))
}

/// The current score of `doc`: w·x + b over the words the vocabulary knows.
#[cfg(test)]
fn score_document(model: &Model, doc: &Document) -> Result<f32> {
    score_of(model, &Tokens::of(model, doc).ids)
}

/// Learns `doc` as a member of `class` by the model's update rule; see the module docs.
/// A model that records no rule learns by the perceptron's, which it then records.
pub fn learn_document(model: &mut Model, doc: &Document, class: &str) -> Result<LearnOutcome> {
    if model.term_counts().counted() {
        return Err(Error::Unsupported(
            "this model was trained on term counts (--term-counts sublinear); one document \
             at a time is learned over binary rows: train it again with the new documents"
                .into(),
        ));
    }
    let y = binary_label(model, class)?;
    linear_mut(&mut model.predictor)?;
    let tokens = Tokens::of(model, doc);
    let score = score_of(model, &tokens.ids)?;
    model.meta.learned += 1;
    let mut state = model.online.take().unwrap_or_default();
    let outcome = step(model, &mut state, tokens, y, score);
    model.online = Some(state);
    outcome
}

/// The rule's step on a scored document (new words added first when it takes one).
fn step(
    model: &mut Model,
    state: &mut OnlineState,
    tokens: Tokens,
    y: f32,
    score: f32,
) -> Result<LearnOutcome> {
    if !state.steps_at(y * score) {
        state.skip();
        return Ok(LearnOutcome {
            score,
            updated: false,
            new_words: 0,
        });
    }
    let before = model.vocab.len();
    let ids = if model.vocab.hashing().is_some() {
        model.vocab.add_hashed_row(&tokens.ids);
        tokens.ids
    } else {
        model.vocab.add_document(tokens.words.iter())
    };
    let n = model.vocab.len();
    model.geometry.cover(n);
    state.cover(n);
    let m = linear_mut(&mut model.predictor)?;
    m.w.resize(n, 0.0);
    let updated = state.step(m, model.geometry.row(crate::RowRef::binary(&ids)), y, score);
    model.meta.report.updates += u64::from(updated);
    Ok(LearnOutcome {
        score,
        updated,
        new_words: n - before,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perceptron(analyzer: Analyzer) -> OnlineFilter {
        OnlineFilter {
            analyzer,
            geometry: Geometry::default(),
            rule: UpdateRule::Perceptron,
            threshold: 0.0,
        }
    }

    fn empty() -> Model {
        empty_model(perceptron(Analyzer::default()), "ham", "spam").unwrap()
    }

    #[test]
    fn a_model_of_term_counts_is_refused_and_left_as_it_was() {
        let mut parts = empty().into_parts();
        parts.term_counts = crate::features::TermCounts::Sublinear;
        let mut m = Model::new(parts).unwrap();
        let spam = Document::new("1", "Free money free", None);
        let err = learn_document(&mut m, &spam, "spam")
            .unwrap_err()
            .to_string();
        assert!(err.contains("term counts"), "{err}");
        assert_eq!(m.meta().learned, 0);
    }

    #[test]
    fn mistake_updates_and_grows_then_correct_is_left_alone() {
        let mut m = empty();
        let spam = Document::new("1", "Free money free", None);
        // Zero score is a mistake: both words are added with weight +1, bias +1.
        let o = learn_document(&mut m, &spam, "spam").unwrap();
        assert_eq!((o.score, o.updated, o.new_words), (0.0, true, 2));
        assert_eq!(score_document(&m, &spam).unwrap(), 3.0);
        // Now correct (score 3 > 0): nothing changes but the count.
        let o = learn_document(&mut m, &spam, "spam").unwrap();
        assert_eq!((o.score, o.updated), (3.0, false));
        let ham = Document::new("2", "money meeting", None);
        // Score: money +1, bias +1 = 2 → a mistake for ham: money 0, meeting −1, bias 0.
        let o = learn_document(&mut m, &ham, "ham").unwrap();
        assert_eq!((o.score, o.updated, o.new_words), (2.0, true, 1));
        assert_eq!(score_document(&m, &ham).unwrap(), -1.0);
        assert_eq!(score_document(&m, &spam).unwrap(), 1.0);
        assert_eq!((m.meta.learned, m.meta.report.updates), (3, 2));
        assert_eq!(m.vocab.len(), 3);
        assert!(learn_document(&mut m, &ham, "eggs").is_err());
    }

    #[test]
    fn a_hashed_model_learns_words_it_never_saw_without_growing() {
        let a = Analyzer::builder(crate::text::Source::Text)
            .step(crate::text::Step::Words)
            .step(crate::text::Step::Lowercase)
            .step(crate::text::Step::Hash(10))
            .build()
            .unwrap();
        let mut m = empty_model(perceptron(a), "ham", "spam").unwrap();
        assert_eq!(m.vocab.len(), 1024);
        let spam = Document::new("1", "Free money", None);
        let o = learn_document(&mut m, &spam, "spam").unwrap();
        assert_eq!((o.score, o.updated, o.new_words), (0.0, true, 0));
        assert_eq!(score_document(&m, &spam).unwrap(), 3.0);
        let unseen = Document::new("2", "zyzzyva", None);
        assert_eq!(score_document(&m, &unseen).unwrap(), 1.0);
        // Filed as ham: a mistake (score 1), so the bias goes back to 0 and zyzzyva, a
        // word training never saw, gets its own weight −1 (it shares no id with free or
        // money at 2^10 ids).
        let o = learn_document(&mut m, &unseen, "ham").unwrap();
        assert_eq!((o.score, o.updated, o.new_words), (1.0, true, 0));
        assert_eq!(score_document(&m, &unseen).unwrap(), -1.0);
        assert_eq!(score_document(&m, &spam).unwrap(), 2.0);
        assert_eq!((m.vocab.len(), m.vocab.documents()), (1024, 2));
    }

    #[test]
    fn a_damaged_update_rule_is_refused_with_what_is_wrong() {
        let filter = OnlineFilter {
            analyzer: crate::text::Analyzer::default().with_source(crate::text::Source::mail()),
            ..OnlineFilter::default()
        };
        let good = empty_model(filter, "ham", "spam").unwrap();
        let path = std::path::Path::new("f.model");
        let bytes = good.to_bytes().unwrap();
        assert!(Model::from_bytes(&bytes, path).is_ok());
        let mut bad = good.clone();
        bad.online.as_mut().unwrap().rule = UpdateRule::PassiveAggressive { c: f32::NAN };
        let err = Model::from_bytes(&bad.to_bytes().unwrap(), path)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("its update rule (pa, C NaN) is not valid"),
            "{err}"
        );
        let mut bad = good;
        bad.online.as_mut().unwrap().sq_grads = vec![1.0; 3].into();
        let err = Model::from_bytes(&bad.to_bytes().unwrap(), path)
            .unwrap_err()
            .to_string();
        assert!(err.contains("keeps 3 sums for 0 features"), "{err}");
    }
}
