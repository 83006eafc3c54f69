//! One spamd connection: the request head read within the request deadline and its
//! bounds ([`super::spamd::parse_head`]), the message read up to its `Content-length`,
//! the question asked of the daemon, the answer written, and the connection closed, as
//! spamd does after every request.

use super::daemon::{BUSY_BYTES, Daemon, Held, answered};
use super::metrics::{Outcome, Protocol};
use super::spamd::{self, Answer, Command, Limits, MessageClass, Refusal, Request, Status};
use super::verdict::Verdict;
use std::sync::Arc;
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Serves one request on `io`; `trusted` says whether the client may `TELL` (a loopback
/// or Unix-socket client of a daemon that allows it).
pub async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    daemon: Arc<Daemon>,
    mut io: S,
    trusted: bool,
) {
    let start = Instant::now();
    let deadline = daemon.config.request_timeout;
    let read = tokio::time::timeout(deadline, read_request(&daemon, &mut io)).await;
    // The message's bytes stay counted until its answer (for PROCESS, the message again)
    // is written: a client that reads slowly holds them as long.
    let mut held = None;
    let (outcome, bytes) = match read {
        Err(_) => (Outcome::Refused, spamd::error((1, 5), Status::Timeout)),
        Ok(Err(refusal)) => {
            daemon.note(&format!("spamd: {}", refusal.why));
            // (Turned away at --max-buffered-bytes: busy, as HTTP counts it.)
            let outcome = match refusal.status {
                Status::TempFail => Outcome::Busy,
                _ => Outcome::Refused,
            };
            (outcome, spamd::error((1, 5), refusal.status))
        }
        Ok(Ok(None)) => return,
        Ok(Ok(Some((request, message, permit)))) => {
            held = Some(permit);
            let v = request.version;
            let d = Arc::clone(&daemon);
            let learns = request.command == Command::Tell;
            let work = move || answer(&d, &request, &message, trusted);
            match answered(learns, work).await {
                Some(Ok(bytes)) => (Outcome::Ok, bytes),
                Some(Err(refusal)) => {
                    daemon.note(&format!("spamd: {}", refusal.why));
                    let outcome = match refusal.status {
                        Status::Software | Status::IoErr => Outcome::Failed,
                        _ => Outcome::Refused,
                    };
                    (outcome, spamd::error(v, refusal.status))
                }
                None => (Outcome::Failed, spamd::error(v, Status::Software)),
            }
        }
    };
    // A client that does not read its answer is cut off after the request deadline too.
    let write = async {
        let _ = io.write_all(&bytes).await;
        let _ = io.shutdown().await;
    };
    let _ = tokio::time::timeout(deadline, write).await;
    drop(held);
    daemon
        .metrics
        .request(Protocol::Spamd, outcome, start.elapsed());
}

/// The request head and its message; `None` when the client closed without a request.
async fn read_request<'d, S: AsyncRead + Unpin>(
    daemon: &'d Daemon,
    io: &mut S,
) -> Result<Option<(Request, Vec<u8>, Held<'d>)>, Refusal> {
    let limits = Limits {
        message_bytes: daemon.config.max_message_bytes,
        ..Limits::default()
    };
    let mut buf = Vec::with_capacity(8192);
    let mut chunk = [0u8; 8192];
    let (request, end) = loop {
        if let Some(head) = spamd::parse_head(&buf, &limits)? {
            break head;
        }
        let n = io.read(&mut chunk).await.map_err(|e| Refusal {
            status: Status::IoErr,
            why: e.to_string(),
        })?;
        if n == 0 {
            if buf.is_empty() {
                return Ok(None);
            }
            return Err(Refusal {
                status: Status::Protocol,
                why: "the connection closed inside a request head".into(),
            });
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let mut message = buf.split_off(end);
    let want = request.content_length.unwrap_or(0) as usize;
    if message.len() > want {
        return Err(Refusal {
            status: Status::Protocol,
            why: "more bytes than the Content-length announced".into(),
        });
    }
    // The message is counted as it arrives: a client that announces a large one and
    // sends it slowly holds only what it has sent.
    let busy = || Refusal {
        status: Status::TempFail,
        why: BUSY_BYTES.into(),
    };
    let mut held = daemon.hold(message.len() as u64).ok_or_else(busy)?;
    while message.len() < want {
        let room = chunk.len().min(want - message.len());
        let n = io.read(&mut chunk[..room]).await.map_err(|e| Refusal {
            status: Status::IoErr,
            why: e.to_string(),
        })?;
        if n == 0 {
            return Err(Refusal {
                status: Status::Protocol,
                why: format!(
                    "the connection closed after {} of the {want} bytes announced",
                    message.len()
                ),
            });
        }
        message.extend_from_slice(&chunk[..n]);
        if !daemon.hold_up_to(&mut held, message.len() as u64) {
            return Err(busy());
        }
    }
    Ok(Some((request, message, held)))
}

/// The answer to `request` about `message`, asked of the daemon (on a blocking thread:
/// a learn commits to disk).
fn answer(
    daemon: &Daemon,
    request: &Request,
    message: &[u8],
    trusted: bool,
) -> Result<Vec<u8>, Refusal> {
    let failed = |e: crate::Error| Refusal {
        status: Status::DataErr,
        why: e.to_string(),
    };
    let v = request.version;
    let user = request.user.as_deref();
    // (PING and SKIP ask no filter.)
    if let Some(why) = daemon
        .refuse_user(user)
        .filter(|_| request.command.has_message())
    {
        return Err(Refusal {
            status: Status::NoUser,
            why,
        });
    }
    let judged = |daemon: &Daemon, symbols| daemon.judge(message, symbols, user).map_err(failed);
    Ok(match request.command {
        Command::Ping => spamd::answer(v, &Answer::Pong),
        Command::Skip => Vec::new(),
        Command::Check => spamd::answer(v, &Answer::Verdict(said(&judged(daemon, false)?))),
        Command::Symbols => {
            let verdict = judged(daemon, true)?;
            let names: Vec<String> = verdict.symbols.iter().map(|(f, _)| f.clone()).collect();
            spamd::answer(v, &Answer::Symbols(said(&verdict), &names))
        }
        Command::Report | Command::ReportIfSpam => {
            let verdict = judged(daemon, true)?;
            if request.command == Command::ReportIfSpam && !verdict.spam {
                spamd::answer(v, &Answer::Verdict(said(&verdict)))
            } else {
                spamd::answer(v, &Answer::Report(said(&verdict), &report(&verdict)))
            }
        }
        Command::Headers | Command::Process => {
            let verdict = judged(daemon, false)?;
            // An mbox's `From ` line stays first; the field ends as the message's lines do.
            let envelope = if message.starts_with(b"From ") {
                message
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(0, |i| i + 1)
            } else {
                0
            };
            let first = message
                .split(|&b| b == b'\n')
                .nth(usize::from(envelope > 0));
            let eol = if first.is_some_and(|l| l.ends_with(b"\r")) {
                "\r\n"
            } else {
                "\n"
            };
            let field = header_field(&verdict, eol);
            let out = if request.command == Command::Process {
                let mut m = message[..envelope].to_vec();
                m.extend_from_slice(field.as_bytes());
                m.extend_from_slice(&message[envelope..]);
                m
            } else {
                field.into_bytes()
            };
            spamd::answer(v, &Answer::Message(said(&verdict), &out))
        }
        Command::Tell => {
            if !(daemon.config.allow_tell && trusted) {
                return Err(Refusal {
                    status: Status::NoPerm,
                    why: "TELL refused: learning over spamd needs --allow-tell and a loopback \
                          or Unix-socket client"
                        .into(),
                });
            }
            if request.remove_local {
                return Err(Refusal {
                    status: Status::Usage,
                    why: "TELL Remove: a learned message cannot be forgotten by this filter".into(),
                });
            }
            let spam = request.class == Some(MessageClass::Spam);
            daemon.learn(message, spam, user).map_err(|e| Refusal {
                status: Status::IoErr,
                why: e.to_string(),
            })?;
            spamd::answer(
                v,
                &Answer::Told {
                    set: true,
                    removed: false,
                },
            )
        }
    })
}

/// The verdict in spamd's terms.
fn said(v: &Verdict) -> spamd::Verdict {
    spamd::Verdict {
        spam: v.spam,
        score: v.shown,
        threshold: v.required,
    }
}

/// A report's text: one line per feature, what it adds to the score.
fn report(v: &Verdict) -> String {
    let mut out = String::from(" pts rule name              description\n");
    out.push_str(
        "---- ---------------------- --------------------------------------------------\n",
    );
    for (feature, c) in &v.symbols {
        out.push_str(&format!(
            "{c:>4.1} {feature:<22} adds {c:.4} to the filter's score\n"
        ));
    }
    out
}

/// The header field a filtered message carries, as `classify --passthrough` writes it.
fn header_field(v: &Verdict, eol: &str) -> String {
    let verdict = if v.spam { "spam" } else { "ham" };
    match v.probability {
        Some(p) => format!(
            "X-Rosenblatt: {verdict}; score={:.4}; probability={p:.6}{eol}",
            v.score
        ),
        None => format!("X-Rosenblatt: {verdict}; score={:.4}{eol}", v.score),
    }
}
