//! `rosenblatt learn`: teach a saved filter one message (or a folder, Maildir or mbox of
//! them) as spam or ham — a step of the filter's recorded update rule, see
//! [`rosenblatt::incremental`], through [`rosenblatt::classifier`].
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
use anyhow::{Result, bail};
use rosenblatt::classifier::{Learned, SavedClassifier};
use rosenblatt::input::mail::{self, MailCorpus, MailRules};
use rosenblatt::input::{Corpus, Document, decode_text, read_text};
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

/// Runs `learn`: the messages are read first, under the model's own rules, then learned
/// through the model file's lock or the store's write transactions.
pub fn run(a: LearnPlan) -> Result<ExitCode> {
    let c = SavedClassifier::open_to_learn(&a.model, a.lock_timeout)?;
    // A model that reads mail (and any store) is a spam filter or nothing: it is refused
    // as every command refuses one. A two-class text model learns documents read as
    // plain text.
    if c.reads_mail() {
        crate::filter::checked(c.spam_filter(), &a.model)?;
    }
    c.check_learns(a.class)?;
    if c.reads_mail() {
        load::refuse_line_files(&a.model, &a.inputs, None)?;
    }
    let corpus = documents(&a.inputs, c.mail_rules())?;
    if corpus.docs.is_empty() {
        bail!("no message to learn");
    }
    let learned = c.learn(&corpus.docs, a.class)?;
    report(&a, &learned)
}

/// Prints what `learn` did.
fn report(a: &LearnPlan, l: &Learned) -> Result<ExitCode> {
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
