//! A saved classifier, whichever form it is kept in: a model file, or a filter store
//! (the `store` feature). [`SavedClassifier`] opens either from a path, says what it is
//! ([`Kind`]) and answers for documents and raw mail messages: decisions, explanations,
//! and learning one message as a class. The command line, the Python package and a
//! long-running service go through it, so none of them looks inside a model to decide
//! what it is.
//!
//! It is `Send + Sync` and cheap to ask: a model file is held once (behind an `Arc`,
//! replaced by the one written when it learns), a store is read in one read transaction
//! per call, so a call sees every learn committed before it.

mod kind;
mod learn;
pub mod lock;
mod view;

pub use kind::{Kind, feature_limit};
pub use learn::Learned;
pub use view::View;

use crate::incremental::{Filter, SpamFilter};
use crate::input::Document;
use crate::input::mail::MailRules;
use crate::model::{ClassDecision, Explanation, Model, RankedClass, Ranking};
use crate::text::Analyzer;
use crate::training::{LabelledRows, labels_and_probabilities, vectorize_for};
use crate::{Error, Result, SparseRows};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// A model file or a filter store, opened: see the module docs.
#[derive(Debug)]
pub struct SavedClassifier {
    path: PathBuf,
    form: Form,
    kind: Kind,
    /// How its inputs are read (a store's and a loaded file's never change).
    analyzer: Analyzer,
    /// Its classes, in the order decisions index them.
    classes: Vec<String>,
    /// Whether it gives a probability for a score.
    probabilistic: bool,
}

/// Where a saved classifier is kept.
#[derive(Debug)]
enum Form {
    /// A model file, loaded whole; `lock_timeout` is how long a learn waits for another.
    File {
        model: RwLock<Arc<Model>>,
        lock_timeout: Duration,
    },
    /// A filter store, read per call.
    #[cfg(feature = "store")]
    Store(Box<crate::store::Store>),
}

impl SavedClassifier {
    /// Opens the model file or store at `path` to classify: a folder that is not a
    /// store, a damaged file or store is refused with a sentence naming it.
    pub fn open(path: impl AsRef<Path>) -> Result<SavedClassifier> {
        SavedClassifier::open_as(path.as_ref(), None)
    }

    /// Opens it to classify and learn: a learn waits at most `lock_timeout` for another
    /// learn of the same model file or store (a process opens a store one way).
    pub fn open_to_learn(
        path: impl AsRef<Path>,
        lock_timeout: Duration,
    ) -> Result<SavedClassifier> {
        SavedClassifier::open_as(path.as_ref(), Some(lock_timeout))
    }

    /// Opens `path`, to learn when a lock timeout is given.
    fn open_as(path: &Path, learning: Option<Duration>) -> Result<SavedClassifier> {
        #[cfg(feature = "store")]
        if crate::store::Store::is_store(path) {
            use crate::store::Store;
            let store = match learning {
                Some(timeout) => Store::open_waiting(path, timeout)?,
                None => Store::open_read_only(path)?,
            };
            return Ok(SavedClassifier {
                path: path.to_path_buf(),
                kind: Kind::of_filter(store.analyzer(), store.classes()),
                analyzer: store.analyzer().clone(),
                classes: store.classes().to_vec(),
                probabilistic: store.probabilistic(),
                form: Form::Store(Box::new(store)),
            });
        }
        if path.is_dir() {
            return Err(Error::model(path, NOT_A_STORE));
        }
        let model = Model::load(path)?;
        Ok(SavedClassifier {
            path: path.to_path_buf(),
            kind: Kind::of(&model),
            analyzer: model.analyzer().clone(),
            classes: model.classes().to_vec(),
            probabilistic: model.probability(0.0).is_some(),
            form: Form::File {
                model: RwLock::new(Arc::new(model)),
                lock_timeout: learning.unwrap_or(DEFAULT_LOCK_TIMEOUT),
            },
        })
    }

    /// Keeps a store's pages mapped from one call to the next (see
    /// [`crate::store::Store::keep_mapped`]): for a daemon; a model file is held anyway.
    pub fn keep_mapped(&self) {
        #[cfg(feature = "store")]
        if let Form::Store(store) = &self.form {
            store.keep_mapped();
        }
    }

    /// The path it was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What it is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Whether it reads mail messages: a model whose analyzer reads mail, and a store
    /// whatever its header says (a store is a spam filter's form; one of anything else,
    /// made by an older release, is answered only as a filter, that is refused).
    pub fn reads_mail(&self) -> bool {
        self.kind.reads_mail() || self.is_store()
    }

    /// Whether it is a store (whose commits every call sees), not a model file.
    pub fn is_store(&self) -> bool {
        !matches!(self.form, Form::File { .. })
    }

    /// Its classes, in the order decisions index them.
    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    /// How it reads its inputs.
    pub fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// The mail rules its messages are parsed under, for a model that reads mail.
    pub fn mail_rules(&self) -> Option<&MailRules> {
        self.analyzer.source().mail_rules()
    }

    /// It as a spam filter, or the sentence that says it is not one (the one definition,
    /// [`Filter::spam_filter`]).
    pub fn spam_filter(&self) -> Result<SpamFilter<'_>> {
        crate::incremental::spam_filter(&self.analyzer, &self.classes, self.probabilistic)
    }

    /// What it is as of now, to ask any number of questions of: the model file's model,
    /// or a read transaction on the store (drop it before learning in the same thread).
    pub fn view(&self) -> Result<View<'_>> {
        match &self.form {
            Form::File { model, .. } => Ok(View::Model(self.current(model))),
            #[cfg(feature = "store")]
            Form::Store(store) => Ok(View::Store(Box::new(store.snapshot()?))),
        }
    }

    /// The whole model: the file's, or the store's read whole in one read transaction
    /// (the same model, bit for bit).
    pub fn model(&self) -> Result<Arc<Model>> {
        match &self.form {
            Form::File { model, .. } => Ok(self.current(model)),
            #[cfg(feature = "store")]
            Form::Store(store) => Ok(Arc::new(store.to_model()?)),
        }
    }

    /// The whole model, owned (a copy only where another holder shares it).
    pub fn into_model(self) -> Result<Model> {
        match self.form {
            Form::File { model, .. } => {
                let m = model.into_inner().unwrap_or_else(|p| p.into_inner());
                Ok(Arc::try_unwrap(m).unwrap_or_else(|m| (*m).clone()))
            }
            #[cfg(feature = "store")]
            Form::Store(store) => store.to_model(),
        }
    }

    /// The model file's model as of now.
    fn current(&self, model: &RwLock<Arc<Model>>) -> Arc<Model> {
        model.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The two-class decision for each document (read under its analyzer), in order: a
    /// filter's verdicts, as [`Filter::decide_documents`] gives them.
    pub fn decide(&self, docs: &[Document]) -> Result<Vec<ClassDecision>> {
        self.view()?.decide_documents(docs)
    }

    /// Every label each document gets with its score (a multi-label model's whole label
    /// set), and P(class) where the model has one: what `classify` prints for a model of
    /// documents. A store answers [`SavedClassifier::decide`] alone.
    pub fn labels(&self, docs: &[Document]) -> Result<LabelledRows> {
        let model = self.file_model("labels")?;
        self.kind.check_input(&self.path, false)?;
        Ok(labels_and_probabilities(
            &model,
            &vectorize_for(&model, docs).matrix,
        ))
    }

    /// [`SavedClassifier::labels`] for rows of feature vectors, for a model of vectors.
    pub fn label_rows<X: SparseRows>(&self, x: &X) -> Result<LabelledRows> {
        let model = self.file_model("labels")?;
        self.kind.check_input(&self.path, true)?;
        Ok(labels_and_probabilities(&model, x))
    }

    /// Each document's N best classes, best first, with scores and probabilities (see
    /// [`Model::rank_rows`]): what `classify -k` prints. A probability floor on a model
    /// without probabilities is refused with a sentence naming the model file.
    pub fn ranked(&self, docs: &[Document], ranking: Ranking) -> Result<Vec<Vec<RankedClass>>> {
        let model = self.ranking_model(ranking)?;
        self.kind.check_input(&self.path, false)?;
        model.rank_rows(&vectorize_for(&model, docs).matrix, ranking)
    }

    /// [`SavedClassifier::ranked`] for rows of feature vectors, for a model of vectors.
    pub fn ranked_rows<X: SparseRows>(
        &self,
        x: &X,
        ranking: Ranking,
    ) -> Result<Vec<Vec<RankedClass>>> {
        let model = self.ranking_model(ranking)?;
        self.kind.check_input(&self.path, true)?;
        model.rank_rows(x, ranking)
    }

    /// The model file's model to rank classes with, refused (naming the file) where
    /// `ranking` has a probability floor and the model no probabilities.
    fn ranking_model(&self, ranking: Ranking) -> Result<Arc<Model>> {
        let model = self.file_model("ranked classes")?;
        if ranking.min_probability.is_some() && !model.has_class_probabilities() {
            return Err(Error::model(
                &self.path,
                format!(
                    "--min-probability needs class probabilities, and this {} model has \
                     none (its scores are not calibrated); only softmax, logistic and \
                     calibrated two-class models give them. Leave out --min-probability",
                    model.meta().learner
                ),
            ));
        }
        Ok(model)
    }

    /// The model file's model, or the refusal of `what` for a store.
    #[cfg_attr(not(feature = "store"), allow(unused_variables))]
    fn file_model(&self, what: &str) -> Result<Arc<Model>> {
        match &self.form {
            Form::File { model, .. } => Ok(self.current(model)),
            #[cfg(feature = "store")]
            Form::Store(_) => Err(Error::Unsupported(format!(
                "{}: a store gives a filter's decision per message, not {what}",
                self.path.display()
            ))),
        }
    }

    /// Classifies one raw message, parsed under its mail rules (as text by a model that
    /// reads text).
    #[cfg(feature = "mail")]
    pub fn classify_mail(&self, raw: &[u8]) -> Result<crate::model::Decision> {
        self.view()?.classify_mail(raw)
    }

    /// Why `doc` gets its verdict: the score of `class` (the decided one when `None`)
    /// taken apart into the bias and each feature's contribution. A filter, and any
    /// two-class model, has one score: a class named is refused.
    pub fn explain(&self, doc: &Document, class: Option<&str>) -> Result<Explanation> {
        match &self.form {
            Form::File { model, .. } => {
                let m = self.current(model);
                let class = class.map(|c| m.class_to_explain(c)).transpose()?;
                m.explain_document(doc, class)
            }
            #[cfg(feature = "store")]
            Form::Store(store) => match class {
                None => store.snapshot()?.explain(doc),
                Some(_) => Err(Error::Data(
                    "a filter has one score, positive for spam and negative for ham: \
                     explain it without naming a class"
                        .into(),
                )),
            },
        }
    }

    /// [`SavedClassifier::explain`] of one raw message, read as `classify_mail` reads it.
    #[cfg(feature = "mail")]
    pub fn explain_mail(&self, raw: &[u8]) -> Result<Explanation> {
        crate::model::refuse_empty_message(raw)?;
        self.explain(&crate::model::document_of(&self.analyzer, raw), None)
    }
}

/// How long a model file's learn waits for another by default.
const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(60);

/// What a folder given as a model is when it is no store.
const NOT_A_STORE: &str = "a folder that is not a filter store (a store is a folder with \
                           data.mdb, made by `rosenblatt convert MODEL STORE`; a model is a \
                           file written by `rosenblatt train`)";

#[cfg(test)]
mod tests;
