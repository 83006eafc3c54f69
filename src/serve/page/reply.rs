//! The page's answers: JSON (kept by no cache, since it may hold a message's words) and
//! JSON errors, in the body type the daemon's HTTP side sends.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Response, StatusCode};
use std::convert::Infallible;

/// An answer's body, as the daemon's HTTP connections send it.
pub type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// `v` as a JSON answer of `status`, marked for no cache.
pub fn json(status: StatusCode, v: &impl serde::Serialize) -> Response<Body> {
    let mut body = serde_json::to_vec(v).expect("a JSON value serializes");
    body.push(b'\n');
    let mut r = Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    h.insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-store"),
    );
    r
}

/// A JSON error: `{"error": why}`.
pub fn error(status: StatusCode, why: &str) -> Response<Body> {
    json(status, &serde_json::json!({"error": why}))
}
