//! Models that know nothing yet, for learning one document or row at a time: the empty
//! online filter the TREC protocol starts from ([`empty_model`]) and the empty model of
//! feature vectors the Python package's `partial_fit` starts from ([`empty_rows_model`]).
//! With the assembly of trained models (`training::assemble`) and the store's
//! conversion, these are the places a model is made from its parts.

use super::OnlineFilter;
use crate::learn::{AnyModel, LinearModel, OnlineState, SoftmaxModel, UpdateRule};
use crate::model::{FeatureSpace, Metadata, Model, ModelParts, Predictor};
use crate::vocab::Vocabulary;
use crate::{Error, Result};

/// A model that knows nothing yet: an empty vocabulary (the empty hashed space of a
/// hashing analyzer), zero weights, classes `[negative, positive]`, reading documents as
/// `filter`'s analyzer says (its source decides whether inputs are parsed as mail) and
/// rows in its geometry, learning by its rule. Learning starts from it in the TREC online
/// protocol. A logistic rule makes a logistic model, whose scores read as probabilities.
pub fn empty_model(filter: OnlineFilter, negative: &str, positive: &str) -> Result<Model> {
    let OnlineFilter {
        analyzer,
        geometry,
        rule,
        threshold,
    } = filter;
    let vocab = analyzer
        .hashing()
        .map_or_else(Vocabulary::default, Vocabulary::hashed);
    let logistic = matches!(rule, UpdateRule::Logistic { .. });
    let model = zero_model(vocab.len(), logistic);
    Model::new(ModelParts {
        analyzer,
        vocab,
        features: FeatureSpace::Text,
        geometry,
        classes: vec![negative.to_string(), positive.to_string()],
        predictor: Predictor::Binary(model),
        meta: Metadata {
            version: env!("CARGO_PKG_VERSION").to_string(),
            learner: "online".to_string(),
            options: rule.to_string(),
            ..Default::default()
        },
        online: Some(OnlineState::new(rule)),
        threshold,
        calibration: None,
        term_counts: Default::default(),
        class_calibration: None,
    })
}

/// A linear model of `n` zero weights; logistic (its scores are log-odds) when `logistic`.
fn zero_model(n: usize, logistic: bool) -> AnyModel {
    let zeros = LinearModel::zeros(n);
    if logistic {
        AnyModel::Logistic(zeros)
    } else {
        AnyModel::Linear(zeros)
    }
}

/// A model of zero weights over `n_features` columns for `classes`, for rows learned one
/// at a time ([`learn_rows`](super::learn_rows)): one linear model (two classes) or one per class, whose
/// scores are logits when `logistic`; one softmax model over three classes or more when
/// `softmax`. It reads rows as given (no geometry, no vocabulary). The caller checks
/// that a model so wide fits in a file first (`training::check_width`).
pub fn empty_rows_model(
    n_features: usize,
    classes: Vec<String>,
    logistic: bool,
    softmax: bool,
) -> Result<Model> {
    let k = classes.len();
    if k < 2 {
        return Err(Error::Data("a classifier needs two classes".into()));
    }
    let predictor = match k {
        _ if softmax && k > 2 => Predictor::Softmax(SoftmaxModel {
            k,
            w: vec![0.0; n_features * k].into(),
            bias: vec![0.0; k],
        }),
        2 => Predictor::Binary(zero_model(n_features, logistic)),
        k => Predictor::OneVsRest((0..k).map(|_| zero_model(n_features, logistic)).collect()),
    };
    Model::new(ModelParts {
        analyzer: Default::default(),
        vocab: Default::default(),
        features: FeatureSpace::Indexed { n_features },
        geometry: Default::default(),
        classes,
        predictor,
        meta: Metadata::default(),
        online: None,
        threshold: 0.0,
        calibration: None,
        term_counts: Default::default(),
        class_calibration: None,
    })
}
