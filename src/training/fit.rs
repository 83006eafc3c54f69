//! `Model::fit`: the front door for training, one call from labelled documents to a
//! model ready to classify and save.

use super::{is_multilabel, train, train_multilabel};
use crate::Result;
use crate::input::Document;
use crate::learn::compose::multilabel::MultiLabelOptions;
use crate::model::Model;
use crate::training::TrainConfig;

impl Model {
    /// Trains a model on labelled documents: two classes, more (one-vs-rest), or several
    /// labels per document (one-vs-rest with tuned thresholds), as the labels say.
    ///
    /// ```
    /// use rosenblatt::{Document, Model, TrainConfig};
    ///
    /// let docs = [
    ///     Document::labelled("sport", "the match ended in a draw"),
    ///     Document::labelled("markets", "shares fell as rates rose"),
    ///     Document::labelled("weather", "rain and wind by the evening"),
    /// ];
    /// let model = Model::fit(&docs, &TrainConfig::default().learner("perceptron")?)?;
    /// assert_eq!(model.classes(), ["markets", "sport", "weather"]);
    /// assert_eq!(model.classify("rates and shares")?.label, "markets");
    /// # Ok::<(), rosenblatt::Error>(())
    /// ```
    pub fn fit(docs: &[Document], config: &TrainConfig) -> Result<Model> {
        let trained = if is_multilabel(docs) {
            train_multilabel(docs, config, &MultiLabelOptions::default(), Vec::new())?
        } else {
            train(docs, config, Vec::new())?
        };
        Ok(trained.model)
    }
}
