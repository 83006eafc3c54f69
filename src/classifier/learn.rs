//! A saved classifier learning documents as a class, by its recorded update rule. A
//! model file learns under its lock (`MODEL.lock`, see [`super::lock`]): it is read
//! again under the lock, so an update another process made meanwhile is kept, stepped,
//! and written atomically. A store learns in its own write transactions.

use super::lock::{lock, lock_path};
use super::{Form, SavedClassifier};
use crate::atomic::real_target;
use crate::incremental::learn_document;
use crate::input::Document;
use crate::model::Model;
use crate::{Error, Result};
use std::sync::Arc;

/// What one learn did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Learned {
    /// Messages learned.
    pub messages: usize,
    /// Messages the rule took a step on.
    pub updates: u64,
    /// Words added to the vocabulary.
    pub new_words: u64,
    /// Messages the model has learned since training, these included.
    pub learned: u64,
}

impl SavedClassifier {
    /// Refuses to learn `class` unless it is one of two classes: learning steps a
    /// two-class model's one score.
    pub fn check_learns(&self, class: &str) -> Result<()> {
        let classes = &self.classes;
        if classes.len() == 2 && classes.iter().any(|c| c == class) {
            return Ok(());
        }
        let shown = if classes.len() > 4 {
            format!(
                "{} classes ({}, {}, …)",
                classes.len(),
                classes[0],
                classes[1]
            )
        } else {
            format!("the classes {}", classes.join(", "))
        };
        Err(Error::model(
            &self.path,
            format!(
                "learn teaches a two-class filter its class {class}, and this model has {shown}"
            ),
        ))
    }

    /// Learns `docs` (read under its analyzer) as members of `class`; the next call sees
    /// them. A model file whose lock another learn holds past the lock timeout is left
    /// as it was, with an error saying so.
    pub fn learn(&self, docs: &[Document], class: &str) -> Result<Learned> {
        match &self.form {
            Form::File {
                model,
                lock_timeout,
            } => {
                self.check_learns(class)?;
                let lock_file = lock_path(&real_target(&self.path)?);
                let Some(held) = lock(&lock_file, *lock_timeout)? else {
                    return Err(Error::model(
                        &self.path,
                        format!(
                            "the model is locked by another learn (waited {} s); try again or \
                             raise --lock-timeout",
                            lock_timeout.as_secs_f64()
                        ),
                    ));
                };
                let mut m = Model::load(&self.path)?;
                if m.analyzer().source().mail_rules() != self.mail_rules() {
                    return Err(Error::model(
                        &self.path,
                        "was replaced by a model that reads messages differently while learn \
                         read them; run learn again",
                    ));
                }
                let (words_before, mut updates) = (m.vocab().len(), 0u64);
                for d in docs {
                    updates += u64::from(learn_document(&mut m, d, class)?.updated);
                }
                m.save(&self.path)?;
                held.release()?;
                let learned = Learned {
                    messages: docs.len(),
                    updates,
                    new_words: (m.vocab().len() - words_before) as u64,
                    learned: m.meta().learned,
                };
                *model.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(m);
                Ok(learned)
            }
            #[cfg(feature = "store")]
            Form::Store(store) => {
                let l = store.learn(docs, class)?;
                Ok(Learned {
                    messages: l.messages,
                    updates: l.updates,
                    new_words: l.new_words,
                    learned: l.learned,
                })
            }
        }
    }

    /// [`SavedClassifier::learn`] of one raw message, read as `classify_mail` reads it.
    #[cfg(feature = "mail")]
    pub fn learn_mail(&self, raw: &[u8], class: &str) -> Result<Learned> {
        crate::model::refuse_empty_message(raw)?;
        let doc = crate::model::document_of(&self.analyzer, raw);
        self.learn(std::slice::from_ref(&doc), class)
    }
}
