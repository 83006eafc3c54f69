//! The daemon's HTTP side, one request at a time as hyper frames them: rspamd's protocol
//! (`POST /checkv2`, `/learnspam`, `/learnham`, `GET /ping`, `/stat`), the JSON API for
//! documents (`POST /v1/classify`, `/v1/explain`), `GET /healthz` and `GET /metrics`; the
//! page at `/` and its endpoints are [`super::page`]'s.
//! Bodies are read within the message bound and the request deadline; every answer but
//! `/ping`, `/healthz` and `/metrics` is JSON.

use super::daemon::{BUSY_BYTES, Daemon, Held, answered};
use super::metrics::{Outcome, Protocol};
use super::verdict::Verdict;
use crate::input::Document;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

/// An answer's body.
pub(super) type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// Serves one HTTP/1.1 connection on `io` as the daemon's HTTP listeners do: requests
/// one after another as hyper frames them (a head within `--request-timeout` and 64 KiB,
/// also the most a kept-alive connection may stay idle), until the client closes, an
/// error ends it, or `stop` completes; then the request in flight is answered and the
/// connection closed. A client may close its side once its request is sent (as spamc
/// does); one that stops reading its answers is cut off when a write has waited
/// `--request-timeout`. The HTTP fuzz target drives it over an in-memory stream.
pub async fn serve_connection<S>(
    daemon: Arc<Daemon>,
    io: S,
    stop: impl std::future::Future<Output = ()>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let d = Arc::clone(&daemon);
    let service = hyper::service::service_fn(move |req| handle(Arc::clone(&d), req));
    let mut io = tokio_io_timeout::TimeoutStream::new(io);
    io.set_write_timeout(Some(daemon.config.request_timeout));
    let io = Box::pin(io);
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(daemon.config.request_timeout)
        .max_buf_size(64 << 10)
        .half_close(true)
        .serve_connection(hyper_util::rt::TokioIo::new(io), service);
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        _ = stop => {
            // A request whose bytes are arriving as the stop comes is read in the grace
            // and answered; a connection still idle after it is closed.
            let grace = tokio::time::sleep(STOP_GRACE);
            tokio::select! {
                _ = conn.as_mut() => return,
                _ = grace => {}
            }
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

/// How long a stopping daemon lets an HTTP connection begin a request before it closes
/// the connection as idle.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_millis(100);

/// Answers one request and counts it.
async fn handle(daemon: Arc<Daemon>, req: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    let start = Instant::now();
    let protocol = match req.uri().path() {
        "/checkv2" | "/learnspam" | "/learnham" | "/ping" | "/stat" => Protocol::Rspamd,
        _ => Protocol::Api,
    };
    let (outcome, response) = route(&daemon, req).await;
    daemon.metrics.request(protocol, outcome, start.elapsed());
    Ok(response)
}

/// The answer to `req`, and how it ended.
async fn route(daemon: &Arc<Daemon>, req: Request<Incoming>) -> (Outcome, Response<Body>) {
    let path = req.uri().path().to_string();
    match (req.method(), path.as_str()) {
        (&Method::GET, "/ping") => (Outcome::Ok, text(StatusCode::OK, "pong\r\n")),
        (&Method::GET, "/healthz") => (Outcome::Ok, text(StatusCode::OK, "ok\n")),
        (&Method::GET, "/metrics") => (Outcome::Ok, text(StatusCode::OK, &daemon.metrics.render())),
        (&Method::GET, "/stat") => {
            let ((spam, ham), (learned_spam, learned_ham)) = daemon.metrics.totals();
            let body = json!({
                "scanned": spam + ham,
                "spam_count": spam,
                "ham_count": ham,
                "learned": learned_spam + learned_ham,
            });
            (Outcome::Ok, as_json(StatusCode::OK, &body))
        }
        (
            &Method::POST,
            "/checkv2" | "/learnspam" | "/learnham" | "/v1/classify" | "/v1/explain",
        ) => {
            let password = req.headers().get("password").map(|v| v.as_bytes().to_vec());
            // rspamd's Deliver-To: whose filter answers (with --stores).
            let user = req
                .headers()
                .get("deliver-to")
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            let jsonl = req
                .headers()
                .get(hyper::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|t| t.contains("ndjson") || t.contains("jsonl"));
            if path == "/v1/classify" && jsonl {
                return super::stream::classify(daemon, req);
            }
            let own_thread = matches!(path.as_str(), "/learnspam" | "/learnham" | "/v1/classify");
            let (body, _held) = match read_body(daemon, req).await {
                Ok(b) => b,
                Err(refused) => return refused,
            };
            let d = Arc::clone(daemon);
            let work = move || match path.as_str() {
                "/checkv2" => check(&d, &body, user.as_deref()),
                "/learnspam" | "/learnham" => learn(
                    &d,
                    &body,
                    path == "/learnspam",
                    password.as_deref(),
                    user.as_deref(),
                ),
                "/v1/classify" => classify(&d, &body, jsonl),
                _ => explain(&d, &body),
            };
            answered(own_thread, work).await.unwrap_or_else(|| {
                (
                    Outcome::Failed,
                    error(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "the request failed inside the daemon",
                    ),
                )
            })
        }
        (_, "/checkv2" | "/learnspam" | "/learnham" | "/v1/classify" | "/v1/explain") => (
            Outcome::Refused,
            error(
                StatusCode::METHOD_NOT_ALLOWED,
                "use POST with the message as the body",
            ),
        ),
        (_, p) if super::page::serves(p) => {
            let asked = super::page::Asked::of(&req);
            let body = match req.method() {
                &Method::POST => match read_body(daemon, req).await {
                    Ok(b) => Some(b),
                    Err(refused) => return refused,
                },
                _ => None,
            };
            super::page::answer(daemon, asked, body).await
        }
        _ => (
            Outcome::Refused,
            error(StatusCode::NOT_FOUND, "no such path"),
        ),
    }
}

/// The request's body, read within the message bound and the request deadline, and
/// counted against the bytes held over all connections as it arrives (so a client that
/// announces a large body and sends it slowly holds only what it has sent).
async fn read_body<'d>(
    daemon: &'d Daemon,
    req: Request<Incoming>,
) -> Result<(Bytes, Held<'d>), (Outcome, Response<Body>)> {
    let limit = usize::try_from(daemon.config.max_message_bytes).unwrap_or(usize::MAX);
    let announced = req
        .headers()
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > daemon.config.max_message_bytes) {
        // Refused at once, before any of it is read.
        return Err((Outcome::Refused, too_large(limit)));
    }
    let busy = || {
        (
            Outcome::Busy,
            error(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!("{BUSY_BYTES}; try again"),
            ),
        )
    };
    let mut held = daemon.hold(0).ok_or_else(busy)?;
    let mut body = req.into_body();
    // No room is made for the announced length: a body is counted against
    // `--max-buffered-bytes` as its bytes come, and room made for a claim would not be.
    let mut got = Vec::new();
    let collect = async {
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| {
                (
                    Outcome::Refused,
                    error(StatusCode::BAD_REQUEST, &e.to_string()),
                )
            })?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if got.len() + data.len() > limit {
                return Err((Outcome::Refused, too_large(limit)));
            }
            got.extend_from_slice(&data);
            if !daemon.hold_up_to(&mut held, got.len() as u64) {
                return Err(busy());
            }
        }
        Ok(())
    };
    match tokio::time::timeout(daemon.config.request_timeout, collect).await {
        Err(_) => Err((
            Outcome::Refused,
            error(
                StatusCode::REQUEST_TIMEOUT,
                "the body did not arrive in time",
            ),
        )),
        Ok(Err(refused)) => Err(refused),
        Ok(Ok(())) => Ok((Bytes::from(got), held)),
    }
}

/// The refusal of a body over `limit` bytes.
fn too_large(limit: usize) -> Response<Body> {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("a body over {limit} bytes (--max-message-bytes)"),
    )
}

/// rspamd's `/checkv2`: the verdict on a message.
fn check(daemon: &Daemon, message: &Bytes, user: Option<&str>) -> (Outcome, Response<Body>) {
    match daemon.judge_kept(message, Some(message), true, user) {
        Ok(v) => (
            Outcome::Ok,
            as_json(StatusCode::OK, &rspamd_verdict(daemon, &v)),
        ),
        Err(e) => (
            Outcome::Refused,
            error(StatusCode::BAD_REQUEST, &e.to_string()),
        ),
    }
}

/// A verdict as rspamd's clients read it.
fn rspamd_verdict<'v>(daemon: &Daemon, v: &'v Verdict) -> RspamdVerdict<'v> {
    RspamdVerdict {
        is_skipped: false,
        score: v.shown,
        required_score: v.required,
        action: v.action(daemon.config.reject_probability).name(),
        symbols: v
            .symbols
            .iter()
            .map(|(name, c)| {
                let s = Symbol {
                    name,
                    score: f64::from(*c),
                    metric_score: f64::from(*c),
                };
                (name.as_str(), s)
            })
            .collect(),
        messages: std::collections::BTreeMap::new(),
        probability: v.probability.map(f64::from),
    }
}

/// rspamd's answer to `/checkv2`, written straight from the verdict (a JSON value built
/// first cost a twentieth of an answer); keys as rspamd's clients read them.
#[derive(serde::Serialize)]
struct RspamdVerdict<'v> {
    is_skipped: bool,
    score: f64,
    required_score: f64,
    action: &'static str,
    /// By name, in the names' order.
    symbols: std::collections::BTreeMap<&'v str, Symbol<'v>>,
    /// rspamd's messages to the user: none.
    messages: std::collections::BTreeMap<&'static str, &'static str>,
    /// Widened as every other JSON answer writes an `f32`.
    probability: Option<f64>,
}

/// One of a verdict's features as an rspamd symbol: its contribution as its score.
#[derive(serde::Serialize)]
struct Symbol<'v> {
    name: &'v str,
    score: f64,
    metric_score: f64,
}

/// rspamd's `/learnspam` and `/learnham`, behind the credential.
fn learn(
    daemon: &Daemon,
    message: &[u8],
    spam: bool,
    password: Option<&[u8]>,
    user: Option<&str>,
) -> (Outcome, Response<Body>) {
    if daemon.config.learn_key.is_none() {
        return (
            Outcome::Refused,
            error(
                StatusCode::FORBIDDEN,
                "learning over HTTP needs the daemon started with --learn-key FILE",
            ),
        );
    }
    if !daemon.may_learn(password) {
        return (
            Outcome::Refused,
            error(
                StatusCode::FORBIDDEN,
                "the Password header is not the learning credential",
            ),
        );
    }
    if message.is_empty() {
        return (
            Outcome::Refused,
            error(
                StatusCode::BAD_REQUEST,
                "no message to learn: the body is empty",
            ),
        );
    }
    // A user name that may not choose a filter is the client's mistake (400, as for
    // /checkv2), not the daemon's failure.
    if let Some(why) = daemon.refuse_user(user) {
        return (Outcome::Refused, error(StatusCode::BAD_REQUEST, &why));
    }
    match daemon.learn(message, spam, user) {
        Ok(()) => (
            Outcome::Ok,
            as_json(StatusCode::OK, &json!({"success": true})),
        ),
        Err(e) => (
            Outcome::Failed,
            error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
        ),
    }
}

/// `POST /v1/classify` of one document (the body): one JSON line, as `classify --format
/// jsonl` gives it. JSON lines are answered as they are read ([`super::stream`]).
fn classify(daemon: &Daemon, body: &[u8], jsonl: bool) -> (Outcome, Response<Body>) {
    use super::documents::{classify_documents, documents};
    let answered = documents(body, jsonl).and_then(|docs| {
        // A body that is one message is judged as its bytes came.
        classify_documents(daemon, &docs, (!jsonl).then_some(body))
    });
    match answered {
        Ok(out) => {
            let mut r = Response::new(Full::new(Bytes::from(out)).boxed());
            r.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                hyper::header::HeaderValue::from_static("application/x-ndjson"),
            );
            (Outcome::Ok, r)
        }
        Err(why) => (Outcome::Refused, error(StatusCode::BAD_REQUEST, &why)),
    }
}

/// `POST /v1/explain`: the decided class's score taken apart, as `classify --explain
/// --format jsonl` gives it.
fn explain(daemon: &Daemon, body: &[u8]) -> (Outcome, Response<Body>) {
    let c = daemon.classifier();
    let explained = if c.reads_mail() {
        c.explain_mail(body)
    } else {
        let doc = Document::new("1", crate::input::decode_text(body.to_vec()), None);
        c.explain(&doc, None)
    };
    match explained {
        Ok(e) => {
            let features: Vec<Value> = e
                .features
                .iter()
                .map(|f| {
                    json!({"feature": f.feature, "weight": f.weight, "value": f.value, "contribution": f.contribution})
                })
                .collect();
            let body = json!({
                "class": c.classes()[e.class],
                "score": e.score,
                "bias": e.bias,
                "features": features,
            });
            (Outcome::Ok, as_json(StatusCode::OK, &body))
        }
        Err(e) => (
            Outcome::Refused,
            error(StatusCode::BAD_REQUEST, &e.to_string()),
        ),
    }
}

/// A plain-text answer.
pub(super) fn text(status: StatusCode, body: &str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *r.status_mut() = status;
    r
}

/// A JSON answer.
fn as_json(status: StatusCode, v: &impl serde::Serialize) -> Response<Body> {
    // Written as bytes: the formatter behind `{v}` cost a twentieth of a verdict.
    // Sized for a verdict's answer, which grown from serde_json's 128 bytes was copied
    // three times over.
    let mut body = Vec::with_capacity(1024);
    serde_json::to_writer(&mut body, v).expect("a JSON value serializes");
    body.push(b'\n');
    let mut r = Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

/// A JSON error: `{"error": why}`.
pub(super) fn error(status: StatusCode, why: &str) -> Response<Body> {
    as_json(status, &json!({"error": why}))
}
