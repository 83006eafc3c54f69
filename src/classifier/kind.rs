//! What a saved model is, as the commands ask it instead of looking at its analyzer and
//! feature space: a spam filter, another model that reads mail, a text model, or a model
//! of SVMlight vectors; and the refusal of inputs of the other kind.

use crate::features::svmlight;
use crate::model::{FeatureSpace, Model};
use crate::text::Analyzer;
use crate::{Error, Result};
use std::path::Path;

/// What a model reads and answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A spam filter: reads mail, classes ham and spam (see [`crate::incremental::Filter::spam_filter`]).
    SpamFilter,
    /// A model whose analyzer reads mail and whose classes are not ham and spam.
    Mail,
    /// A model of documents read as plain text.
    Text,
    /// A model of feature vectors (SVMlight rows): it has no analyzer of its own.
    Vectors,
}

impl Kind {
    /// The kind of `model`.
    pub fn of(model: &Model) -> Kind {
        if matches!(model.features(), FeatureSpace::Indexed { .. }) {
            Kind::Vectors
        } else {
            Kind::of_filter(model.analyzer(), model.classes())
        }
    }

    /// The kind of a model of documents (a model file or a store) reading with
    /// `analyzer`, of `classes`.
    pub(super) fn of_filter(analyzer: &Analyzer, classes: &[String]) -> Kind {
        if crate::incremental::spam_filter(analyzer, classes, false).is_ok() {
            Kind::SpamFilter
        } else if analyzer.source().mail_rules().is_some() {
            Kind::Mail
        } else {
            Kind::Text
        }
    }

    /// Whether its inputs are mail messages.
    pub fn reads_mail(self) -> bool {
        matches!(self, Kind::SpamFilter | Kind::Mail)
    }

    /// Refuses a model/input mismatch for the model at `path`: vectors for a model of
    /// documents, or documents for a model of vectors (`svm_input`: the inputs are
    /// SVMlight rows).
    pub fn check_input(self, path: &Path, svm_input: bool) -> Result<()> {
        match (self == Kind::Vectors, svm_input) {
            (true, false) => Err(Error::Unsupported(format!(
                "{} was trained on SVMlight vectors; give it SVMlight input (--format \
                 svmlight), not documents",
                path.display()
            ))),
            (false, true) => Err(Error::Unsupported(format!(
                "{} was trained on text; SVMlight vectors need a model trained on SVMlight \
                 input (or give the documents themselves)",
                path.display()
            ))),
            _ => Ok(()),
        }
    }
}

/// The largest feature id read for `model`'s SVMlight inputs: the one `given`, or else
/// the default raised to the model's own width, so that a model trained with a raised
/// `--max-feature-id` reads its training file again without the flag.
pub fn feature_limit(model: &Model, given: Option<u32>) -> Option<u32> {
    match (given, model.features()) {
        (None, FeatureSpace::Indexed { n_features }) => Some(
            u32::try_from(n_features)
                .unwrap_or(u32::MAX)
                .max(svmlight::DEFAULT_MAX_FEATURE_ID),
        ),
        _ => given,
    }
}
