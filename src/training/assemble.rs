//! The one step where training turns what it fitted into a [`Model`]: a fitted predictor
//! with its geometry, classes and metadata ([`Fit`]), the space its rows came from (a
//! text vocabulary, or indexed feature vectors) and the analyzer that reads documents.
//! A two-class linear model gets its update rule (so `learn` can go on from it), its
//! calibration and the threshold its decision probability stands for here; the parts are
//! checked once, by [`Model::new`], and nothing is set on the model afterwards.
//!
//! One process's training (`training::train`, `training::fit_rows`, the multi-label
//! path, the training job) and training over processes (`distributed`) both end here.

use super::TrainConfig;
use crate::Result;
use crate::features::TermCounts;
use crate::learn::{AnyModel, Calibration, OnlineState};
use crate::model::{FeatureSpace, Metadata, Model, ModelParts, Predictor};
use crate::vocab::Vocabulary;

/// What training fitted, before it is a model.
#[derive(Debug)]
pub(crate) struct Fit {
    /// How rows were read.
    pub geometry: crate::features::Geometry,
    /// The class names, in the predictor's order.
    pub classes: Vec<String>,
    /// The classifier.
    pub predictor: Predictor,
    /// The metadata as training knows it; callers that time or tune around the fit set
    /// theirs before assembling.
    pub meta: Metadata,
    /// A two-class model's map from scores to probabilities, where one was fitted.
    pub calibration: Option<Calibration>,
    /// A one-vs-rest model's sigmoid per class, where one was fitted (`--calibrate`).
    pub class_calibration: Option<crate::learn::ClassCalibration>,
    /// The score above which a two-class model calls `classes[1]`.
    pub threshold: f32,
    /// The training accuracy at score 0, where the model decides elsewhere (a filter's
    /// threshold): shown beside the accuracy at the model's decision, not saved.
    pub accuracy_at_zero: Option<f64>,
}

/// Where a model's rows come from.
#[derive(Debug)]
pub(crate) enum Space {
    /// Documents, through the analyzer and this vocabulary.
    Text(Vocabulary),
    /// Feature vectors of this many columns (SVMlight).
    Indexed(usize),
}

/// The threshold of a two-class model that decides at P(`classes[1]`) > the probability
/// whose log-odds are `log_odds` (`--threshold`): that score under `calibration`, or the
/// log-odds themselves where the scores are a logistic model's own; 0 without a
/// probability or without a requested threshold.
pub(crate) fn threshold_for(
    predictor: &Predictor,
    calibration: Option<&Calibration>,
    log_odds: Option<f32>,
) -> f32 {
    let logistic = matches!(predictor, Predictor::Binary(AnyModel::Logistic(_)));
    match log_odds {
        Some(t) if crate::learn::probability(calibration, logistic, 0.0).is_some() => {
            calibration.map_or(t, |c| c.score_at(t))
        }
        _ => 0.0,
    }
}

/// The model of `fit`, reading rows of `space` through `cfg`'s analyzer, learning by
/// its learner's update rule where it is a two-class linear model.
pub(crate) fn assemble(cfg: &TrainConfig, space: Space, fit: Fit) -> Result<Model> {
    let linear = matches!(
        fit.predictor,
        Predictor::Binary(AnyModel::Linear(_) | AnyModel::Logistic(_))
    );
    let (vocab, features) = match space {
        Space::Text(vocab) => (vocab, FeatureSpace::Text),
        Space::Indexed(n_features) => (Vocabulary::default(), FeatureSpace::Indexed { n_features }),
    };
    Model::new(ModelParts {
        analyzer: cfg.analyzer.clone(),
        vocab,
        features,
        geometry: fit.geometry,
        classes: fit.classes,
        predictor: fit.predictor,
        meta: fit.meta,
        // A model of counted rows is not stepped one message at a time: its update rule
        // reads a message's words once each.
        online: if linear && !cfg.term_counts.counted() {
            cfg.learner.update_rule().map(OnlineState::new)
        } else {
            None
        },
        threshold: fit.threshold,
        calibration: fit.calibration,
        term_counts: match features {
            FeatureSpace::Text => cfg.term_counts,
            FeatureSpace::Indexed { .. } => TermCounts::Binary,
        },
        class_calibration: fit.class_calibration,
    })
}
