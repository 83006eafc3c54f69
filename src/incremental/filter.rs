//! A spam filter as a program meets it, whichever form it is kept in: a model file
//! loaded whole, or a store read per message (one read transaction, `store::Snapshot`).
//! Both classify messages read under their own analyzer and give P(spam) where they
//! record a calibration, so `classify` and library users write one path for both.

use super::SpamFilter;
use crate::Result;
use crate::input::Document;
use crate::model::{ClassDecision, Explanation, Model};
use crate::text::Analyzer;

/// A two-class filter that classifies messages: a [`Model`] or a store's snapshot.
pub trait Filter {
    /// How the filter reads its inputs (mail rules and steps).
    fn analyzer(&self) -> &Analyzer;

    /// Its classes, in the order decisions index them.
    fn classes(&self) -> &[String];

    /// P(positive class) for `score`, where the filter records a calibration.
    fn probability(&self, score: f32) -> Option<f32>;

    /// The decision for each document (read under [`Filter::analyzer`]), in order.
    fn decide_documents(&self, docs: &[Document]) -> Result<Vec<ClassDecision>>;

    /// The score above which a document is `classes()[1]` (where the filter decides).
    fn threshold(&self) -> f32;

    /// Why `doc` gets its verdict: its score taken apart into the bias and its features'
    /// contributions, the same from a model file and from its store.
    fn explain(&self, doc: &Document) -> Result<Explanation>;

    /// [`Filter::explain`] with only its `n` strongest features: what a verdict's
    /// symbols show, which a filter may find without naming every feature.
    fn explain_strongest(&self, doc: &Document, n: usize) -> Result<Explanation> {
        let mut e = self.explain(doc)?;
        e.features.truncate(n);
        Ok(e)
    }

    /// This filter as a spam filter (mail rules, classes ham and spam), or the one
    /// sentence that says it is not one: the definition every command asks, of a model
    /// file and of a store alike.
    fn spam_filter(&self) -> Result<SpamFilter<'_>> {
        let probability = self.probability(0.0).is_some();
        super::spam_filter::spam_filter(self.analyzer(), self.classes(), probability)
    }

    /// Classifies one raw message, parsed under the filter's mail rules (text otherwise).
    #[cfg(feature = "mail")]
    fn classify_mail(&self, raw: &[u8]) -> Result<crate::model::Decision> {
        crate::model::refuse_empty_message(raw)?;
        let doc = crate::model::document_of(self.analyzer(), raw);
        let d = self.decide_documents(std::slice::from_ref(&doc))?.remove(0);
        Ok(crate::model::Decision {
            label: self.classes()[d.class].clone(),
            score: d.score,
        })
    }
}

impl Filter for Model {
    fn analyzer(&self) -> &Analyzer {
        Model::analyzer(self)
    }

    fn classes(&self) -> &[String] {
        Model::classes(self)
    }

    fn probability(&self, score: f32) -> Option<f32> {
        Model::probability(self, score)
    }

    fn decide_documents(&self, docs: &[Document]) -> Result<Vec<ClassDecision>> {
        Ok(self.decide_rows(&self.text_rows(docs)?))
    }

    fn threshold(&self) -> f32 {
        Model::threshold(self)
    }

    fn explain(&self, doc: &Document) -> Result<Explanation> {
        self.explain_document(doc, None)
    }

    fn explain_strongest(&self, doc: &Document, n: usize) -> Result<Explanation> {
        Model::explain_strongest(self, doc, None, n)
    }
}
