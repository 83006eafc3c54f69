//! `POST /v1/learn?class=spam|ham[&id=N]`: the page's "this is spam / ham", on the
//! message in the body or on recent verdict N, behind the credential rspamd's learns
//! need (`--learn-key`, sent as the `Password` header). The answer is the verdict
//! before and after, so the page can show what changed.

use super::annotate::verdict;
use crate::serve::daemon::Daemon;
use hyper::StatusCode;
use serde_json::{Value, json};

/// What the page asked to learn.
pub struct Wanted<'a> {
    /// The class: `spam` or `ham`.
    pub class: Option<&'a str>,
    /// A recent verdict's number, whose message is learned instead of the body.
    pub id: Option<&'a str>,
    /// The credential sent.
    pub password: Option<&'a [u8]>,
}

/// Learns as `asked` says (see the module docs): the verdict before and after, or the
/// status and sentence of the refusal.
pub fn learn(
    daemon: &Daemon,
    asked: &Wanted<'_>,
    body: &[u8],
) -> Result<Value, (StatusCode, String)> {
    let forbidden = |why: &str| (StatusCode::FORBIDDEN, why.to_string());
    let bad = |why: String| (StatusCode::BAD_REQUEST, why);
    if daemon.config.learn_key.is_none() {
        return Err(forbidden(
            "learning over HTTP needs the daemon started with --learn-key FILE",
        ));
    }
    if !daemon.may_learn(asked.password) {
        return Err(forbidden(
            "the Password header is not the learning credential",
        ));
    }
    let spam = match asked.class {
        Some("spam") => true,
        Some("ham") => false,
        Some(other) => return Err(bad(format!("class={other}: a filter learns spam or ham"))),
        None => return Err(bad("say which class: ?class=spam or ?class=ham".into())),
    };
    let (message, user, id) = match asked.id {
        None => (bytes::Bytes::copy_from_slice(body), None, None),
        Some(id) => {
            let n: u64 = id
                .parse()
                .map_err(|_| bad(format!("id={id}: a verdict's number (from /v1/history)")))?;
            if daemon.history.capacity() == 0 {
                return Err((StatusCode::NOT_FOUND, super::recent::OFF.into()));
            }
            let e = daemon.history.get(n).ok_or_else(|| {
                (
                    StatusCode::NOT_FOUND,
                    format!("verdict {n} is not in the history"),
                )
            })?;
            let m = e.message.ok_or_else(|| {
                (
                    StatusCode::NOT_FOUND,
                    format!("verdict {n}'s message is no longer kept"),
                )
            })?;
            (m, e.user, Some(n))
        }
    };
    if message.is_empty() {
        return Err(bad("no message to learn: the body is empty".into()));
    }
    let failed = |e: crate::Error| (StatusCode::BAD_REQUEST, e.to_string());
    let before = verdict(
        &*daemon.classifier_for(user.as_deref()).map_err(failed)?,
        &message,
    )
    .map_err(failed)?;
    daemon
        .learn(&message, spam, user.as_deref())
        .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let after = verdict(
        &*daemon.classifier_for(user.as_deref()).map_err(failed)?,
        &message,
    )
    .map_err(failed)?;
    Ok(json!({
        "learned": if spam { "spam" } else { "ham" },
        "id": id,
        "before": before,
        "after": after,
    }))
}
