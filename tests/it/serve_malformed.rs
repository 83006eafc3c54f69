//! The flood of `serve_flood`: malformed requests over rspamd's protocol and spamd's (bad
//! request lines, header floods, oversized and negative lengths, truncated chunked bodies,
//! garbage after a good request, random bytes) sent one after another, each answer checked
//! to be a refusal (or nothing) that ends within the deadline.

use crate::serve_flood::{DEADLINE, SLACK};
use crate::serve_support::Seeded;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

/// A malformed request of the flood.
pub(crate) struct Malformed {
    /// What it is.
    pub(crate) name: &'static str,
    pub(crate) bytes: Vec<u8>,
    /// Whether the connection is closed once it is sent (else its sending side is closed
    /// and the answer read to its end).
    pub(crate) close: bool,
    /// Whether it starts with a good request, answered with a success.
    pub(crate) good_first: bool,
}

/// The malformed request `bytes`, its answer read.
fn bad(name: &'static str, bytes: impl AsRef<[u8]>) -> Malformed {
    Malformed {
        name,
        bytes: bytes.as_ref().to_vec(),
        close: false,
        good_first: false,
    }
}

impl Malformed {
    /// Closed once sent.
    fn closed(self) -> Malformed {
        Malformed {
            close: true,
            ..self
        }
    }

    /// Starting with a good request.
    fn after_a_good_one(self) -> Malformed {
        Malformed {
            good_first: true,
            ..self
        }
    }
}

/// 1 to 4,096 random bytes.
fn random(rng: &mut Seeded) -> Vec<u8> {
    let n = 1 + (rng.next() % 4096) as usize;
    rng.bytes(n)
}

/// `head`, then 5,000 header lines, then `end`.
fn header_flood(head: &str, end: &str) -> String {
    let mut r = head.to_string();
    for i in 0..5000 {
        r.push_str(&format!("X-Flood-{i}: {i}\r\n"));
    }
    r + end
}

/// The malformed HTTP requests of the flood.
fn malformed_http(rng: &mut Seeded) -> Vec<Malformed> {
    let post = |headers: &str, body: &[u8]| {
        let mut r = format!("POST /checkv2 HTTP/1.1\r\nHost: x\r\n{headers}\r\n").into_bytes();
        r.extend_from_slice(body);
        r
    };
    let chunked = "Transfer-Encoding: chunked\r\n";
    let mut garbage_after = b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n".to_vec();
    garbage_after.extend_from_slice(&rng.bytes(300));
    let huge = "h".repeat(200_000);
    vec![
        bad("no method", "\r\n\r\n"),
        bad("a bad request line", "HELLO THERE\r\n\r\n"),
        bad("an unknown version", "GET / HTTP/7.3\r\nHost: x\r\n\r\n"),
        bad(
            "control bytes in the path",
            "GET /\x01\x7f HTTP/1.1\r\n\r\n",
        ),
        bad("HTTP/2's preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        bad(
            "a 100 KB request line",
            format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "u".repeat(100_000)),
        ),
        bad(
            "5,000 headers",
            header_flood("GET /ping HTTP/1.1\r\nHost: x\r\n", "\r\n"),
        ),
        bad(
            "a 200 KB header",
            format!("GET /ping HTTP/1.1\r\nHost: x\r\nX-Huge: {huge}\r\n\r\n"),
        ),
        bad(
            "a length of 10^15",
            post("Content-Length: 1000000000000000\r\n", b"x"),
        ),
        bad(
            "a length past u64",
            post("Content-length: 99999999999999999999999\r\n", b""),
        ),
        bad("a negative length", post("Content-Length: -1\r\n", b"")),
        bad(
            "two lengths",
            post("Content-Length: 5\r\nContent-Length: 7\r\n", b"hello"),
        ),
        bad(
            "a body cut short",
            post("Content-Length: 100\r\n", b"short"),
        ),
        bad("a truncated chunk", post(chunked, b"40\r\nonly some")).closed(),
        bad("a truncated chunk, read", post(chunked, b"40\r\nonly some")),
        bad(
            "a bad chunk size",
            post(chunked, b"zz\r\nhello\r\n0\r\n\r\n"),
        ),
        bad(
            "a chunk size past u64",
            post(chunked, b"fffffffffffffffffffff\r\n"),
        ),
        bad("garbage after a request", garbage_after).after_a_good_one(),
        bad("random bytes", random(rng)),
    ]
}

/// The malformed spamd requests of the flood.
fn malformed_spamd(rng: &mut Seeded) -> Vec<Malformed> {
    let check = |headers: &str, body: &[u8]| {
        let mut r = format!("CHECK SPAMC/1.5\r\n{headers}\r\n").into_bytes();
        r.extend_from_slice(body);
        r
    };
    let mut garbage_after = b"PING SPAMC/1.5\r\n\r\n".to_vec();
    garbage_after.extend_from_slice(&rng.bytes(300));
    let huge = "h".repeat(200_000);
    vec![
        bad("an unknown command", "HELLO SPAMC/1.5\r\n\r\n"),
        bad("no version", "CHECK\r\n\r\n"),
        bad(
            "an unknown version",
            "CHECK SPAMC/9.9\r\nContent-length: 1\r\n\r\nx",
        ),
        bad("no length", check("", b"a message")),
        bad(
            "5,000 headers",
            header_flood("CHECK SPAMC/1.5\r\n", "Content-length: 1\r\n\r\nx"),
        ),
        bad(
            "a 200 KB header",
            check(&format!("X-Huge: {huge}\r\nContent-length: 1\r\n"), b"x"),
        ),
        bad(
            "a length of 10^15",
            check("Content-length: 1000000000000000\r\n", b"x"),
        ),
        bad(
            "a length past u64",
            check("Content-length: 99999999999999999999999\r\n", b""),
        ),
        bad("a negative length", check("Content-length: -1\r\n", b"")),
        bad(
            "a message cut short",
            check("Content-length: 100\r\n", b"short"),
        ),
        bad(
            "a message cut short, closed",
            check("Content-length: 100\r\n", b"short"),
        )
        .closed(),
        bad(
            "more than announced",
            check("Content-length: 2\r\n", b"more than two"),
        ),
        // (PONG would be right where the daemon read the head before the garbage came.)
        bad("garbage after a request", garbage_after).after_a_good_one(),
        bad("random bytes", random(rng)),
    ]
}

/// What a flood saw.
#[derive(Debug, Default)]
pub(crate) struct Flooded {
    /// Requests sent.
    pub(crate) sent: usize,
    /// Answers not as they should be: the request's name and the answer.
    pub(crate) wrong: Vec<(&'static str, String)>,
}

/// Sends malformed requests to `addr` one after another until `stop`; `http` says which
/// protocol's, and so which answers are right: nothing (the connection closed or reset),
/// or a refusal (HTTP 4xx; a spamd status other than `EX_OK`, `EX_SOFTWARE`,
/// `EX_IOERR`), or for a good request followed by garbage, its success first. An answer
/// must end within the deadline.
pub(crate) fn flood(addr: String, http: bool, stop: Arc<AtomicBool>) -> Flooded {
    let mut rng = Seeded(if http { 0x0f10_0d11 } else { 0x5a5a_f00d });
    let mut seen = Flooded::default();
    while !stop.load(SeqCst) {
        let all = if http {
            malformed_http(&mut rng)
        } else {
            malformed_spamd(&mut rng)
        };
        for Malformed {
            name,
            bytes,
            close,
            good_first,
        } in all
        {
            if stop.load(SeqCst) {
                break;
            }
            seen.sent += 1;
            let mut s = match TcpStream::connect(&addr) {
                Ok(s) => s,
                Err(e) => {
                    seen.wrong.push((name, format!("connecting: {e}")));
                    continue;
                }
            };
            s.set_read_timeout(Some(DEADLINE + SLACK)).unwrap();
            s.set_write_timeout(Some(DEADLINE + SLACK)).unwrap();
            // (The daemon may refuse and close before all is written.)
            let _ = s.write_all(&bytes);
            if close {
                continue;
            }
            let _ = s.shutdown(Shutdown::Write);
            let mut answer = Vec::new();
            let ended = s.read_to_end(&mut answer);
            if let Err(e) = &ended
                && matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
            {
                seen.wrong.push((name, "no end within the deadline".into()));
                continue;
            }
            if answer.is_empty() {
                continue;
            }
            let text = String::from_utf8_lossy(&answer).into_owned();
            let right = if http {
                let statuses: Vec<&str> = text
                    .match_indices("HTTP/1.1 ")
                    .map(|(i, _)| &text[i + 9..(i + 12).min(text.len())])
                    .collect();
                text.starts_with("HTTP/1.1 ")
                    && statuses.iter().enumerate().all(|(i, s)| {
                        if i == 0 && good_first {
                            *s == "200"
                        } else {
                            s.starts_with('4')
                        }
                    })
            } else {
                let status = text
                    .strip_prefix("SPAMD/1.5 ")
                    .and_then(|t| t.split_whitespace().next());
                match status {
                    Some("0") => good_first,
                    Some(c) => !["70", "74"].contains(&c),
                    None => false,
                }
            };
            if !right {
                let shown: String = text.chars().take(200).collect();
                seen.wrong.push((name, shown));
            }
        }
    }
    seen
}
