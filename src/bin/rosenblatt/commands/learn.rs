//! `rosenblatt learn`: teach a saved filter one message (or a folder, Maildir or mbox of
//! them) as spam or ham — a step of the filter's recorded update rule, see
//! [`rosenblatt::incremental`].
//!
//! Safe for concurrent deliveries: the messages are read first (a slow stdin holds up no
//! other delivery), then the model's load–update–write runs under an exclusive lock on the
//! sidecar file `MODEL.lock` (the model itself is replaced by a rename, so it cannot carry
//! the lock), and the model is written atomically. Every message counts in the model's
//! `learned`; none is lost when several `learn` processes run at once. A model reached
//! through a symbolic link is locked and replaced at the file the link points to, so all
//! links to one model share one lock. A lock held past `--lock-timeout` ends the run with
//! exit code 3.
//!
//! A store learns in write transactions that read and write only the messages' features
//! (a bulk learn commits every few thousand tokens); a lock on the store's data file
//! orders concurrent `learn`s, waiting at most `--lock-timeout`, and readers never wait.

use crate::flags::LearnPlan;
use crate::load;
use crate::model_lock::{lock, lock_path};
use anyhow::{Result, bail};
use rosenblatt::atomic::real_target;
use rosenblatt::incremental::learn_document;
use rosenblatt::input::mail::{self, MailCorpus, MailRules};
use rosenblatt::input::{Corpus, Document, decode_text, read_text};
use rosenblatt::model::Model;
use rosenblatt::store::{Store, StoreLearned};
use std::path::PathBuf;
use std::process::ExitCode;

/// The documents to learn: parsed as mail under `mail_rules` when the model's analyzer reads
/// mail, read as plain text otherwise.
fn documents(inputs: &[PathBuf], mail_rules: Option<&MailRules>) -> Result<Corpus> {
    let mut m = MailCorpus::default();
    for p in inputs {
        if p.as_os_str() == "-" {
            let bytes = load::read_raw(p, "the message")?;
            if let Some(rules) = mail_rules {
                m.extend(mail::read_message_bytes(&bytes, "-", None, rules));
            } else {
                m.corpus
                    .docs
                    .push(Document::new("-", decode_text(bytes), None));
            }
        } else if let Some(rules) = mail_rules {
            m.extend(mail::read_mail(p, None, rules)?);
        } else {
            m.corpus.extend(read_text(p)?);
        }
    }
    Ok(load::mail_corpus(m))
}

/// Runs `learn`.
pub fn run(a: LearnPlan) -> Result<ExitCode> {
    if Store::is_store(&a.model) {
        return learn_store(&a);
    }
    let class = a.class;
    // How to read the messages comes from the model; it is read again under the lock, so
    // an update made meanwhile by another `learn` is kept.
    let first = load::model(&a.model)?;
    // A model that reads mail is a spam filter or nothing: it is refused as every command
    // refuses one. A two-class text model learns documents read as plain text.
    if first.analyzer().source().mail_rules().is_some() {
        crate::filter::spam_filter(&first, &a.model)?;
    }
    let classes = first.classes();
    if classes.len() != 2 || !classes.iter().any(|c| c == class) {
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
        bail!(
            "{}: learn teaches a two-class filter its class {class}, and this model has {shown}",
            a.model.display()
        );
    }
    let rules = first.analyzer().source().mail_rules().cloned();
    if rules.is_some() {
        load::refuse_line_files(&a.model, &a.inputs, None)?;
    }
    let corpus = documents(&a.inputs, rules.as_ref())?;
    if corpus.docs.is_empty() {
        bail!("no message to learn");
    }
    let lock_file = lock_path(&real_target(&a.model)?);
    let Some(lock) = lock(&lock_file, a.lock_timeout)? else {
        errln!(
            "rosenblatt: error: {} is locked by another learn (waited {} s); try again or \
             raise --lock-timeout",
            a.model.display(),
            a.lock_timeout.as_secs_f64()
        );
        return Ok(ExitCode::from(3));
    };
    let mut model = Model::load(&a.model)?;
    if model.analyzer().source().mail_rules() != rules.as_ref() {
        bail!(
            "{} was replaced by a model that reads messages differently while learn read \
             them; run learn again",
            a.model.display()
        );
    }
    let (words_before, mut updates) = (model.vocab().len(), 0u64);
    for d in &corpus.docs {
        updates += u64::from(learn_document(&mut model, d, class)?.updated);
    }
    model.save(&a.model)?;
    lock.release()?;
    let learned = StoreLearned {
        messages: corpus.docs.len(),
        updates,
        new_words: (model.vocab().len() - words_before) as u64,
        learned: model.meta().learned,
    };
    report(&a, &learned)
}

/// `learn` on a store: the messages read under its mail rules, then learned in one write
/// transaction.
fn learn_store(a: &LearnPlan) -> Result<ExitCode> {
    let store = Store::open_waiting(&a.model, a.lock_timeout)?;
    // A store is a spam filter's form; one of anything else (made by an older release) is
    // refused as every command refuses a model that is no filter.
    let rules = crate::filter::spam_filter(&store.snapshot()?, &a.model)?
        .rules
        .clone();
    load::refuse_line_files(&a.model, &a.inputs, None)?;
    let corpus = documents(&a.inputs, Some(&rules))?;
    if corpus.docs.is_empty() {
        bail!("no message to learn");
    }
    let learned = store.learn(&corpus.docs, a.class)?;
    report(a, &learned)
}

/// Prints what `learn` did.
fn report(a: &LearnPlan, l: &StoreLearned) -> Result<ExitCode> {
    let (class, n, updates, new_words) = (a.class, l.messages, l.updates, l.new_words);
    if a.json {
        let v = serde_json::json!({
            "model": a.model.display().to_string(),
            "class": class,
            "messages": n,
            "updates": updates,
            "new_words": new_words,
            "learned": l.learned,
        });
        outln!("{v}");
    } else {
        outln!(
            "learned {n} message(s) as {class}: {updates} update(s), {new_words} new word(s); \
             the model has learned {} message(s) since training",
            l.learned
        );
    }
    Ok(ExitCode::SUCCESS)
}
