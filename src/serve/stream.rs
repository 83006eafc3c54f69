//! `POST /v1/classify` of JSON lines, answered as it is read: the body is taken a batch of
//! lines at a time, each batch classified on a thread of its own, and its answer lines
//! sent before the next batch is read, so a request of any number of documents holds one
//! batch in memory (counted against `--max-buffered-bytes`) and its first answers arrive
//! while the client is still sending. The status (200) goes out with the first line: a
//! line that cannot be read later ends the answer with `{"error": …}` naming it, after
//! the answers to every line before it.

use super::daemon::{BUSY_BYTES, Daemon, answered};
use super::documents::{classify_documents, json_lines_until};
use super::metrics::Outcome;
use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// The bytes of lines classified together: a batch ends at the first line break past it.
const BATCH_BYTES: usize = 256 << 10;

/// The answer to a JSON-lines `/v1/classify`, its lines sent as they are made.
pub fn classify(
    daemon: &Arc<Daemon>,
    req: Request<Incoming>,
) -> (Outcome, Response<BoxBody<Bytes, Infallible>>) {
    let (tx, rx) = mpsc::channel(2);
    let d = Arc::clone(daemon);
    tokio::spawn(async move { feed(d, req.into_body(), tx).await });
    let mut r = Response::new(Lines(rx).boxed());
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/x-ndjson"),
    );
    (Outcome::Ok, r)
}

/// A response body of the lines a channel brings, ended when its sender is dropped.
struct Lines(mpsc::Receiver<Bytes>);

impl hyper::body::Body for Lines {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b))))
    }
}

/// Reads `body` a batch at a time and sends each batch's answer lines on `tx`; a fault
/// (a line that cannot be read, a body that stops arriving, the memory bound) is sent as
/// the last line.
async fn feed(daemon: Arc<Daemon>, mut body: Incoming, tx: mpsc::Sender<Bytes>) {
    let said = match batches(&daemon, &mut body, &tx).await {
        Ok(()) => return,
        Err(why) => why,
    };
    let line = format!("{}\n", serde_json::json!({ "error": said }));
    let _ = tx.send(Bytes::from(line)).await;
}

/// The batches of `body`, each classified and answered in turn; the sentence that ends
/// the answer early.
async fn batches(
    daemon: &Arc<Daemon>,
    body: &mut Incoming,
    tx: &mpsc::Sender<Bytes>,
) -> Result<(), String> {
    let longest = usize::try_from(daemon.config.max_message_bytes).unwrap_or(usize::MAX);
    let mut pending: Vec<u8> = Vec::new();
    let busy = || format!("{BUSY_BYTES}; send the rest again");
    let Some(mut held) = daemon.hold(0) else {
        return Err(busy());
    };
    // The number of the first line in `pending`.
    let mut first = 1usize;
    let mut ended = false;
    while !ended {
        let frame = tokio::time::timeout(daemon.config.request_timeout, body.frame()).await;
        match frame {
            Err(_) => return Err("the body stopped arriving (--request-timeout)".into()),
            Ok(None) => ended = true,
            Ok(Some(Err(e))) => return Err(format!("reading the body: {e}")),
            Ok(Some(Ok(f))) => {
                if let Ok(data) = f.into_data() {
                    if !daemon.hold_up_to(&mut held, (pending.len() + data.len()) as u64) {
                        return Err(busy());
                    }
                    pending.extend_from_slice(&data);
                }
            }
        }
        // Every line once the body has ended; else the complete lines, once they fill a
        // batch.
        let cut = if ended {
            pending.len()
        } else {
            let tail = pending
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            if pending.len() - tail > longest {
                let n = first + pending[..tail].iter().filter(|&&b| b == b'\n').count();
                return Err(format!(
                    "line {n}: over {longest} bytes (--max-message-bytes)"
                ));
            }
            if pending.len() < BATCH_BYTES || tail == 0 {
                continue;
            }
            tail
        };
        if cut == 0 {
            continue;
        }
        let batch: Vec<u8> = pending.drain(..cut).collect();
        let lines = batch.iter().filter(|&&b| b == b'\n').count();
        let d = Arc::clone(daemon);
        let from = first;
        // The documents before a line that cannot be read are answered before it.
        let work = move || {
            let (docs, fault) = json_lines_until(&batch, from);
            classify_documents(&d, &docs, None).map(|out| (out, fault))
        };
        let (out, fault) = answered(true, work)
            .await
            .ok_or_else(|| "the request failed inside the daemon".to_string())??;
        first += lines;
        if tx.send(Bytes::from(out)).await.is_err() {
            // The client has gone.
            return Ok(());
        }
        if let Some(why) = fault {
            return Err(why);
        }
    }
    Ok(())
}
