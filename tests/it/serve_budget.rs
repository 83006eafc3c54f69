//! What one connection may hold of `rosenblatt serve`: a message's bytes are counted
//! against `--max-buffered-bytes` as they arrive (slow senders announcing large messages
//! hold only what they sent), and a client that stops reading its answers, over spamd or
//! HTTP, is cut off when a write has waited the request deadline.

use crate::serve_support::{Daemon, http_request, spamd_request};
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// A client's question: its answer to a message.
type Ask<'a> = &'a dyn Fn(&[u8]) -> String;

/// Opens a connection to `addr` and sends `bytes`, leaving it open.
fn sent(addr: &str, bytes: &[u8]) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(bytes).unwrap();
    s
}

/// Sends `request` to `addr` whole (as much of it as the daemon takes before it answers)
/// and reads what comes back: an answer, or nothing where the daemon's refusal came with
/// its side reset.
fn pushed(addr: &str, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(request);
    let _ = s.shutdown(Shutdown::Write);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// A line of ham to pad a message with.
const MEETING: &[u8] = b"the meeting notes for tuesday are attached again\r\n";

/// `raw` with its body padded by copies of `line` to at least `len` bytes.
fn padded(raw: &[u8], line: &[u8], len: usize) -> Vec<u8> {
    let mut big = raw.to_vec();
    while big.len() < len {
        big.extend_from_slice(line);
    }
    big
}

#[test]
fn a_message_is_counted_as_it_arrives_so_slow_senders_hold_only_what_they_sent() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = crate::serve_support::filter_store(dir.path());
    let raw = std::fs::read(corpus.join("spam/0.eml")).unwrap();
    // A message of 700 KiB: the corpus's, its body padded.
    let big = padded(
        &raw,
        b"padding padding padding padding padding padding padding\r\n",
        700 << 10,
    );
    let d = Daemon::start(
        &store,
        &[
            "--max-message-bytes",
            "1M",
            "--max-buffered-bytes",
            "1M",
            "--request-timeout",
            "20",
        ],
    );
    // Slow clients that announce the largest message and send a little of it: all of
    // them together hold a few KiB, not 1 MiB each, so others are served beside them.
    let slow: Vec<TcpStream> = (0..3)
        .flat_map(|_| {
            [
                sent(&d.spamd, b"CHECK SPAMC/1.5\r\nContent-length: 1048576\r\n\r\nFrom: "),
                sent(
                    &d.http,
                    b"POST /checkv2 HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\nFrom: ",
                ),
                sent(
                    &d.http,
                    b"POST /checkv2 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nFrom: \r\n",
                ),
            ]
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let check = |m: &[u8]| pushed(&d.spamd, &spamd_request("CHECK", "", m));
    let checkv2 = |m: &[u8]| pushed(&d.http, &http_request("POST", "/checkv2", &[], m));
    assert!(check(&raw).starts_with("SPAMD/1.5 0 EX_OK\r\n"));
    assert!(checkv2(&raw).starts_with("HTTP/1.1 200 "));
    assert!(check(&big).starts_with("SPAMD/1.5 0 EX_OK\r\n"));
    assert!(checkv2(&big).starts_with("HTTP/1.1 200 "));
    // One that has sent 700 KiB holds them: another 700 KiB would pass the bound, and is
    // answered busy over either protocol (counted so, whether or not the answer reaches
    // a client still sending).
    let hold = || {
        let head = format!(
            "CHECK SPAMC/1.5\r\nContent-length: {}\r\n\r\n",
            big.len() + 10
        );
        let mut s = sent(&d.spamd, head.as_bytes());
        s.write_all(&big).unwrap();
        s.set_nonblocking(true).unwrap();
        s
    };
    let mut holding = hold();
    let busy = |protocol: &str| {
        d.metric(&format!(
            "rosenblatt_requests_total{{protocol=\"{protocol}\",outcome=\"busy\"}}"
        ))
    };
    for (protocol, ask) in [("spamd", &check as Ask), ("rspamd", &checkv2)] {
        let started = Instant::now();
        loop {
            assert!(started.elapsed() < Duration::from_secs(20), "never busy");
            let before = busy(protocol);
            let answer = ask(&big);
            // (The two arrive side by side: where the one held was the one refused, it is
            // sent again.)
            let mut told = [0u8; 64];
            match holding.read(&mut told) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Ok(n) if told[..n].starts_with(b"SPAMD/1.5 0 ") => panic!("answered"),
                _ => {
                    holding = hold();
                    continue;
                }
            }
            if answer.starts_with("SPAMD/1.5 0 EX_OK") || answer.starts_with("HTTP/1.1 200 ") {
                // (The daemon had not read all of the other yet.)
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            let refused = ["SPAMD/1.5 75 EX_TEMPFAIL\r\n", "HTTP/1.1 503 "];
            assert!(
                answer.is_empty() || refused.iter().any(|r| answer.starts_with(r)),
                "{answer}"
            );
            // (A refusal is counted once its answer is written: a moment after the client
            // has it.)
            let started = Instant::now();
            while busy(protocol) < before + 1.0 {
                assert!(
                    started.elapsed() < Duration::from_secs(5),
                    "{protocol} busy"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
            break;
        }
    }
    // A small message still fits beside it.
    assert!(check(&raw).starts_with("SPAMD/1.5 0 EX_OK\r\n"));
    // Its bytes are given back when it goes.
    drop(holding);
    let started = Instant::now();
    while !check(&big).starts_with("SPAMD/1.5 0 EX_OK\r\n") {
        assert!(started.elapsed() < Duration::from_secs(10), "still busy");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(slow);
    assert!(d.stop().success());
}

#[test]
fn a_spamd_client_that_never_reads_its_answer_is_cut_off_at_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = crate::serve_support::filter_store(dir.path());
    let raw = std::fs::read(corpus.join("ham/0.eml")).unwrap();
    // PROCESS answers with the whole message: 24 MB, more than loopback's socket buffers
    // hold, so the daemon's write waits for a client that never reads.
    let big = padded(&raw, MEETING, 24 << 20);
    let d = Daemon::start(&store, &["--request-timeout", "2"]);
    let mut s = TcpStream::connect(&d.spamd).unwrap();
    s.write_all(&spamd_request("PROCESS", "", &big)).unwrap();
    s.shutdown(Shutdown::Write).unwrap();
    // Held while the daemon judges and writes; let go at the deadline once it writes.
    held_until_cut(&d);
    // It still answers everyone else.
    let answer = d.spamd(&spamd_request("CHECK", "", &raw));
    assert!(answer.starts_with("SPAMD/1.5 0 EX_OK"), "{answer}");
    drop(s);
    assert!(d.stop().success());
}

#[test]
fn a_process_answer_waiting_on_its_reader_still_counts_against_the_buffered_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = crate::serve_support::filter_store(dir.path());
    let raw = std::fs::read(corpus.join("ham/0.eml")).unwrap();
    let big = padded(&raw, MEETING, 24 << 20);
    let d = Daemon::start(
        &store,
        &["--request-timeout", "4", "--max-buffered-bytes", "40M"],
    );
    // PROCESS's answer is the 24 MB message again, written to a client that never reads:
    // its bytes are the daemon's until the write ends, so a second 24 MB message would
    // pass 40 MB and is answered busy ...
    let mut s = TcpStream::connect(&d.spamd).unwrap();
    s.write_all(&spamd_request("PROCESS", "", &big)).unwrap();
    s.shutdown(Shutdown::Write).unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let answer = pushed(&d.spamd, &spamd_request("CHECK", "", &big));
    assert!(
        answer.is_empty() || answer.starts_with("SPAMD/1.5 75 EX_TEMPFAIL\r\n"),
        "{answer}"
    );
    // ... while a small one fits beside it, and the large one once the reader is cut off.
    let answer = d.spamd(&spamd_request("CHECK", "", &raw));
    assert!(answer.starts_with("SPAMD/1.5 0 EX_OK"), "{answer}");
    held_until_cut(&d);
    let answer = pushed(&d.spamd, &spamd_request("CHECK", "", &big));
    assert!(answer.starts_with("SPAMD/1.5 0 EX_OK"), "{answer}");
    drop(s);
    assert!(d.stop().success());
}

#[test]
fn an_http_client_that_never_reads_its_answers_is_cut_off_at_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let (_corpus, store) = crate::serve_support::filter_store(dir.path());
    let d = Daemon::start(&store, &["--request-timeout", "2"]);
    let mut s = TcpStream::connect(&d.http).unwrap();
    // Requests sent one after another, their answers never read: more answers than
    // loopback's socket buffers hold, so the daemon's writes wait on this client.
    let metrics = b"GET /metrics HTTP/1.1\r\nHost: rosenblatt\r\n\r\n".repeat(20_000);
    s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
    let sent = s.write(&metrics).unwrap_or(0);
    assert!(sent > 0);
    // Cut at the deadline, not before: a write had waited about two seconds.
    let held = held_until_cut(&d);
    assert!(held >= Duration::from_millis(1500), "{held:?}");
    let (status, body) = d.http("GET", "/healthz", &[], b"");
    assert_eq!(status, 200, "{body}");
    drop(s);
    assert!(d.stop().success());
}

/// Waits while the daemon `d` holds a connection beside the one that asks its metrics,
/// failing after 30 s; how long it was held.
fn held_until_cut(d: &Daemon) -> Duration {
    let start = Instant::now();
    std::thread::sleep(Duration::from_millis(500));
    assert!(d.metric("rosenblatt_open_connections") >= 2.0);
    while d.metric("rosenblatt_open_connections") > 1.0 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the connection of a client that never reads was never cut"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    start.elapsed()
}
