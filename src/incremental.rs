//! Learning after training, one document at a time: the perceptron's train-on-error step
//! applied to a saved model, as a mail filter does when a user files a message as spam or
//! ham (`rosenblatt learn`) and as the TREC online protocol does after every message.
//!
//! The document is scored with the current model; when that is a mistake
//! (y·(w·x + b) ≤ 0, a zero score counting as one), the update w ← w + y·x, b ← b + y runs
//! (η = 1, the bias learned as the weight of a constant feature, as `train` does by
//! default). Words the vocabulary has never seen are added with the next ids and a weight
//! of 0 before the update, so new spam vocabulary is learned too: the vocabulary grows with
//! every update (pruning settings of the original training apply no more). A hashed model
//! has an id for every word already: it learns new words without growing. A correctly
//! classified document changes no weight and no vocabulary entry. Every document counts
//! in the model's `meta.learned`; updates in `meta.report.updates`. Rows are read in the
//! model's geometry, as in training: x is the document's idf-weighted, scaled row when
//! the model was trained so, and a new word weighs as a word no training document had.

use crate::input::Document;
use crate::learn::{AnyModel, LinearModel};
use crate::model::{FeatureSpace, Metadata, Predictor, SavedModel};
use crate::text::Analyzer;
use crate::vocab::Vocabulary;
use crate::{Error, Result};
use hashbrown::HashSet;

/// A model that knows nothing yet: an empty vocabulary (the empty hashed space of a
/// hashing analyzer), zero weights, classes `[negative, positive]`, reading documents as
/// `analyzer` says (its source decides whether inputs are parsed as mail). Learning starts
/// from it in the TREC online protocol.
pub fn empty_model(analyzer: Analyzer, negative: &str, positive: &str) -> SavedModel {
    let vocab = analyzer
        .hashing()
        .map_or_else(Vocabulary::default, Vocabulary::hashed);
    SavedModel {
        analyzer,
        vocab,
        features: FeatureSpace::Text,
        geometry: Default::default(),
        classes: vec![negative.to_string(), positive.to_string()],
        predictor: Predictor::Binary(AnyModel::Linear(LinearModel::zeros(0))),
        meta: Metadata {
            version: env!("CARGO_PKG_VERSION").to_string(),
            learner: "perceptron".to_string(),
            options: "online, train on error".to_string(),
            ..Default::default()
        },
    }
}

/// What learning one document did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LearnOutcome {
    /// The score before learning (positive: the positive class).
    pub score: f32,
    /// Whether it was a mistake, hence an update.
    pub updated: bool,
    /// Words added to the vocabulary.
    pub new_words: usize,
}

/// The binary linear model inside `model`, or an error saying why learning cannot work.
fn linear_mut(predictor: &mut Predictor) -> Result<&mut LinearModel> {
    match predictor {
        Predictor::Binary(AnyModel::Linear(m)) => Ok(m),
        Predictor::Binary(_) => Err(Error::Unsupported(
            "learning one message at a time needs a linear model from the perceptron family \
             (train with the perceptron or the averaged perceptron)"
                .into(),
        )),
        _ => Err(Error::Unsupported(
            "learning one message at a time needs a two-class model (e.g. spam/ham)".into(),
        )),
    }
}

/// The ±1 label of class `class` in a two-class model.
pub(crate) fn binary_label(model: &SavedModel, class: &str) -> Result<f32> {
    match model.classes.iter().position(|c| c == class) {
        Some(1) if model.classes.len() == 2 => Ok(1.0),
        Some(0) if model.classes.len() == 2 => Ok(-1.0),
        _ => Err(Error::Unsupported(format!(
            "class {class:?} is not one of the model's two classes {:?}",
            model.classes
        ))),
    }
}

/// The unique tokens of `doc` under the model's analyzer.
fn unique_tokens(model: &SavedModel, doc: &Document) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::new();
    model.analyzer.tokens(doc, &mut |t| {
        if !seen.contains(t) {
            seen.insert(t.to_string());
        }
    });
    let mut v: Vec<String> = seen.into_iter().collect();
    v.sort_unstable(); // new words get ids in a deterministic order
    v
}

/// The row of `tokens`: the ids the vocabulary knows, sorted and unique (in a hashed
/// space two tokens may share an id).
fn row_of(model: &SavedModel, tokens: &[String]) -> Vec<u32> {
    let mut ids: Vec<u32> = tokens.iter().filter_map(|t| model.vocab.get(t)).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The current score of `doc`: w·x + b over the words the vocabulary knows.
#[cfg(test)]
fn score_document(model: &SavedModel, doc: &Document) -> Result<f32> {
    let Predictor::Binary(m) = &model.predictor else {
        return Err(Error::Unsupported("scoring needs a two-class model".into()));
    };
    let ids = row_of(model, &unique_tokens(model, doc));
    Ok(crate::Classifier::score(m, crate::RowRef::binary(&ids)))
}

/// Learns `doc` as a member of `class` (train-on-error); see the module docs.
pub fn learn_document(model: &mut SavedModel, doc: &Document, class: &str) -> Result<LearnOutcome> {
    let y = binary_label(model, class)?;
    linear_mut(&mut model.predictor)?;
    let tokens = unique_tokens(model, doc);
    let score = {
        let ids = row_of(model, &tokens);
        let row = model.geometry.row(crate::RowRef::binary(&ids));
        crate::Classifier::score(&*linear_mut(&mut model.predictor)?, row)
    };
    model.meta.learned += 1;
    if y * score > 0.0 {
        return Ok(LearnOutcome {
            score,
            updated: false,
            new_words: 0,
        });
    }
    let before = model.vocab.len();
    let mut ids = model.vocab.add_document(tokens.iter().map(String::as_str));
    ids.sort_unstable();
    ids.dedup(); // hashed words may share an id
    let n = model.vocab.len();
    model.geometry.cover(n);
    let m = linear_mut(&mut model.predictor)?;
    m.w.resize(n, 0.0);
    crate::features::ops::axpy(y, model.geometry.row(crate::RowRef::binary(&ids)), &mut m.w);
    m.bias += y;
    model.meta.report.updates += 1;
    Ok(LearnOutcome {
        score,
        updated: true,
        new_words: n - before,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> SavedModel {
        empty_model(Analyzer::default(), "ham", "spam")
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
        let mut m = empty_model(a, "ham", "spam");
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
}
