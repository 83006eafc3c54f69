//! `GET /v1/history` and `GET /v1/history/ID`: the recent verdicts the page lists, and
//! one of them taken apart. A listing holds no word of any message; a message itself is
//! shown only to a client with the learning credential when the daemon has one.

use super::annotate::annotate;
use crate::serve::daemon::Daemon;
use crate::serve::history::Entry;
use serde_json::{Value, json};

/// Why a client may not see stored messages: the daemon has a credential and the client
/// did not send it. `None` when it may.
pub fn refuse_sight(daemon: &Daemon, password: Option<&[u8]>) -> Option<&'static str> {
    (daemon.config.learn_key.is_some() && !daemon.may_learn(password)).then_some(
        "a stored message is shown only with the learning credential (the Password header)",
    )
}

/// An entry as the listing gives it: its verdict and size, never its words; its user
/// only to a client that may see messages.
fn listed(daemon: &Daemon, e: &Entry, sees: bool) -> Value {
    let action = match (e.spam, e.probability) {
        (false, _) => "no action",
        (true, Some(p)) if p >= daemon.config.reject_probability => "reject",
        (true, _) => "add header",
    };
    let mut v = json!({
        "id": e.id,
        "at": e.at,
        "spam": e.spam,
        "score": e.score,
        "probability": e.probability,
        "shown": e.shown.0,
        "required": e.shown.1,
        "action": action,
        "bytes": e.bytes,
        "kept": e.message.is_some(),
    });
    if sees {
        v["user"] = json!(e.user);
    }
    v
}

/// The listing, newest first.
pub fn list(daemon: &Daemon, password: Option<&[u8]>) -> Value {
    let sees = refuse_sight(daemon, password).is_none();
    let entries: Vec<Value> = daemon
        .history
        .recent()
        .iter()
        .map(|e| listed(daemon, e, sees))
        .collect();
    json!({"capacity": daemon.history.capacity(), "entries": entries})
}

/// Why verdict `id` cannot be taken apart: the client's status and sentence.
pub enum Unseen {
    /// The history keeps no such verdict (or none at all).
    Gone(String),
    /// The client may not see it.
    Refused(&'static str),
    /// It could not be read again.
    Failed(String),
}

/// Verdict `id` with its message taken apart by the filter as it is now.
pub fn one(daemon: &Daemon, id: u64, password: Option<&[u8]>) -> Result<Value, Unseen> {
    if daemon.history.capacity() == 0 {
        return Err(Unseen::Gone(OFF.into()));
    }
    if let Some(why) = refuse_sight(daemon, password) {
        return Err(Unseen::Refused(why));
    }
    let e = daemon.history.get(id).ok_or_else(|| {
        Unseen::Gone(format!(
            "verdict {id} is not in the history (it keeps the last {})",
            daemon.history.capacity()
        ))
    })?;
    let message = e.message.clone().ok_or_else(|| {
        Unseen::Gone(format!(
            "verdict {id}'s message is no longer kept (the history keeps messages up to its byte budget)"
        ))
    })?;
    let c = daemon
        .classifier_for(e.user.as_deref())
        .map_err(|err| Unseen::Failed(err.to_string()))?;
    let mut v = annotate(&c, &message).map_err(|err| Unseen::Failed(err.to_string()))?;
    v["verdict"] = listed(daemon, &e, true);
    Ok(v)
}

/// What the history endpoints say when it is off.
pub const OFF: &str = "the history is off (--history 0)";
