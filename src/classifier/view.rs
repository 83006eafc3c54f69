//! A saved classifier as of one moment: the model file's model, or a read transaction on
//! the store. Every question asked of one view sees the same state.

use crate::Result;
use crate::incremental::Filter;
use crate::input::Document;
use crate::model::{ClassDecision, Explanation, Model};
use crate::text::Analyzer;
use std::sync::Arc;

/// A [`super::SavedClassifier`] as of when [`super::SavedClassifier::view`] was called;
/// it answers as a [`Filter`].
#[derive(Debug)]
pub enum View<'c> {
    /// A model file's model.
    Model(Arc<Model>),
    /// A read transaction on a store.
    #[cfg(feature = "store")]
    Store(Box<crate::store::Snapshot<'c>>),
    #[doc(hidden)]
    #[cfg(not(feature = "store"))]
    _Borrow(std::marker::PhantomData<&'c ()>),
}

impl View<'_> {
    /// The filter it answers as.
    fn filter(&self) -> &dyn Filter {
        match self {
            View::Model(m) => &**m,
            #[cfg(feature = "store")]
            View::Store(s) => &**s,
            #[cfg(not(feature = "store"))]
            View::_Borrow(_) => unreachable!("never made"),
        }
    }
}

impl Filter for View<'_> {
    fn analyzer(&self) -> &Analyzer {
        self.filter().analyzer()
    }

    fn classes(&self) -> &[String] {
        self.filter().classes()
    }

    fn probability(&self, score: f32) -> Option<f32> {
        self.filter().probability(score)
    }

    fn decide_documents(&self, docs: &[Document]) -> Result<Vec<ClassDecision>> {
        self.filter().decide_documents(docs)
    }

    fn threshold(&self) -> f32 {
        self.filter().threshold()
    }

    fn explain(&self, doc: &Document) -> Result<Explanation> {
        self.filter().explain(doc)
    }

    fn explain_strongest(&self, doc: &Document, n: usize) -> Result<Explanation> {
        self.filter().explain_strongest(doc, n)
    }
}
