//! The daemon's page at `/`: the filter in service, its recent verdicts, a pasted
//! message taken apart word by word, and learning from the page behind the credential.
//! The page is three files embedded in the binary ([`assets`]) that read JSON from the
//! endpoints here: `GET /v1/filter` ([`filter`]), `GET /v1/history` and
//! `/v1/history/ID` ([`recent`], over the daemon's [`History`](super::history::History)),
//! `POST /v1/annotate` ([`annotate`], with the word spans of [`spans`]) and `POST
//! /v1/learn` ([`learn`]), answered by [`reply`]; `http` reads their bodies and routes to
//! them. Nothing here scores: every figure is the classifier's.

mod annotate;
mod assets;
mod filter;
mod learn;
mod recent;
mod reply;
mod spans;

use super::daemon::{Daemon, Held, answered};
use super::metrics::Outcome;
use bytes::Bytes;
use hyper::{Method, Response, StatusCode};
use reply::{Body, error, json};
use std::sync::Arc;

/// Whether `path` is the page's or one of its endpoints'.
pub fn serves(path: &str) -> bool {
    assets::asset(path).is_some()
        || matches!(
            path,
            "/v1/filter" | "/v1/history" | "/v1/annotate" | "/v1/learn"
        )
        || path.starts_with("/v1/history/")
}

/// What a request for the page asks, besides its body.
pub struct Asked {
    method: Method,
    path: String,
    query: String,
    password: Option<Vec<u8>>,
}

impl Asked {
    /// The method, path, query and credential of `req`.
    pub fn of<B>(req: &hyper::Request<B>) -> Asked {
        Asked {
            method: req.method().clone(),
            path: req.uri().path().to_string(),
            query: req.uri().query().unwrap_or("").to_string(),
            password: req.headers().get("password").map(|v| v.as_bytes().to_vec()),
        }
    }
}

/// The answer to a request for the page or one of its endpoints; `body` is a POST's,
/// read by the HTTP side within its bounds and counted while it is held.
pub async fn answer(
    daemon: &Arc<Daemon>,
    asked: Asked,
    body: Option<(Bytes, Held<'_>)>,
) -> (Outcome, Response<Body>) {
    let Asked {
        method,
        path,
        query,
        password,
    } = asked;
    if let Some(a) = assets::asset(&path) {
        return match method {
            Method::GET | Method::HEAD => (Outcome::Ok, assets::response(a)),
            _ => not_allowed("GET"),
        };
    }
    let (body, _held) = match body {
        Some((b, held)) => (b, Some(held)),
        None => (Bytes::new(), None),
    };
    match (method, path.as_str()) {
        (Method::GET, "/v1/filter") => match filter::describe(daemon) {
            Ok(v) => (Outcome::Ok, json(StatusCode::OK, &v)),
            Err(e) => (
                Outcome::Failed,
                error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
            ),
        },
        (Method::GET, "/v1/history") => {
            if daemon.history.capacity() == 0 {
                return (Outcome::Refused, error(StatusCode::NOT_FOUND, recent::OFF));
            }
            let v = recent::list(daemon, password.as_deref());
            (Outcome::Ok, json(StatusCode::OK, &v))
        }
        (Method::GET, p) if p.starts_with("/v1/history/") => {
            let Ok(id) = p["/v1/history/".len()..].parse::<u64>() else {
                return (
                    Outcome::Refused,
                    error(
                        StatusCode::NOT_FOUND,
                        "no such verdict: /v1/history/N takes a verdict's number",
                    ),
                );
            };
            let d = Arc::clone(daemon);
            let work = move || recent::one(&d, id, password.as_deref());
            match answered(true, work).await {
                Some(Ok(v)) => (Outcome::Ok, json(StatusCode::OK, &v)),
                Some(Err(recent::Unseen::Gone(why))) => {
                    (Outcome::Refused, error(StatusCode::NOT_FOUND, &why))
                }
                Some(Err(recent::Unseen::Refused(why))) => {
                    (Outcome::Refused, error(StatusCode::FORBIDDEN, why))
                }
                Some(Err(recent::Unseen::Failed(why))) => (
                    Outcome::Failed,
                    error(StatusCode::INTERNAL_SERVER_ERROR, &why),
                ),
                None => failed(),
            }
        }
        (Method::POST, "/v1/annotate") => {
            let d = Arc::clone(daemon);
            let work = move || annotate::annotate(&d.classifier(), &body);
            match answered(true, work).await {
                Some(Ok(v)) => (Outcome::Ok, json(StatusCode::OK, &v)),
                Some(Err(e)) => (
                    Outcome::Refused,
                    error(StatusCode::BAD_REQUEST, &e.to_string()),
                ),
                None => failed(),
            }
        }
        (Method::POST, "/v1/learn") => {
            let d = Arc::clone(daemon);
            let work = move || {
                let wanted = learn::Wanted {
                    class: param(&query, "class"),
                    id: param(&query, "id"),
                    password: password.as_deref(),
                };
                learn::learn(&d, &wanted, &body)
            };
            match answered(true, work).await {
                Some(Ok(v)) => (Outcome::Ok, json(StatusCode::OK, &v)),
                Some(Err((status, why))) => {
                    let outcome = if status.is_server_error() {
                        Outcome::Failed
                    } else {
                        Outcome::Refused
                    };
                    (outcome, error(status, &why))
                }
                None => failed(),
            }
        }
        (_, "/v1/annotate" | "/v1/learn") => not_allowed("POST"),
        _ => not_allowed("GET"),
    }
}

/// The value of `name` in a query string (`class=spam&id=3`), if given.
fn param<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// The refusal of a method the path does not take.
fn not_allowed(method: &str) -> (Outcome, Response<Body>) {
    (
        Outcome::Refused,
        error(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("use {method} here"),
        ),
    )
}

/// The answer when the work panicked.
fn failed() -> (Outcome, Response<Body>) {
    (
        Outcome::Failed,
        error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the request failed inside the daemon",
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parameters_are_found_by_name() {
        assert_eq!(param("class=spam&id=3", "id"), Some("3"));
        assert_eq!(param("class=spam&id=3", "class"), Some("spam"));
        assert_eq!(param("classy=1", "class"), None);
        assert_eq!(param("", "class"), None);
    }

    #[test]
    fn the_page_serves_its_files_and_endpoints_alone() {
        for p in [
            "/",
            "/page.js",
            "/page.css",
            "/v1/filter",
            "/v1/history",
            "/v1/history/7",
            "/v1/annotate",
            "/v1/learn",
        ] {
            assert!(serves(p), "{p}");
        }
        for p in ["/checkv2", "/v1/explain", "/metrics", "/page.html", "/v1"] {
            assert!(!serves(p), "{p}");
        }
    }
}
