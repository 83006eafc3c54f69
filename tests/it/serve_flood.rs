//! `rosenblatt serve` under attack. A thousand idle connections, slow clients trickling a
//! request (its head, or its body after a head that announces a large one) a byte at a
//! time, and a flood of malformed requests over both protocols (bad request lines, header
//! floods, oversized and negative lengths, truncated chunked bodies, garbage after a
//! request, random bytes) leave a well-behaved client served: every answer the one it got
//! alone, its 99th percentile within a few times its own. Meanwhile the daemon stays under
//! its store's size + 150 MB of memory and says under 200 KB on stderr; idle, kept-alive
//! and slow connections are cut at the request deadline; afterwards it answers as before,
//! holds no connection of the attack, and stops with status 0.

use crate::serve_support::{
    Daemon, complete_http, complete_spamd, http_request, messages, spam_line, spamd_request,
};
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The daemon's `--request-timeout`.
const DEADLINE: Duration = Duration::from_secs(3);
/// How much later than [`DEADLINE`] a connection may be cut on a loaded machine.
const SLACK: Duration = Duration::from_secs(6);
/// Idle connections held open (half on each listener).
const IDLE: usize = 1000;
/// Slow clients of each kind.
const SLOW_EACH: usize = 2;
/// How long the well-behaved client asks under attack.
const ATTACK: Duration = Duration::from_secs(10);

/// A seeded generator (xorshift64*): the same random bytes at every run.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// `n` random bytes.
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 56) as u8).collect()
    }
}

/// Lets this process open `want` files where its hard limit allows (the idle connections
/// and the attack's others).
fn raise_open_files(want: u64) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct given, nothing else.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim), 0);
        if lim.rlim_cur < want {
            lim.rlim_cur = want.min(lim.rlim_max);
            assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &lim), 0);
        }
    }
    assert!(
        lim.rlim_cur >= want,
        "this test needs {want} open files (ulimit -Hn is {})",
        lim.rlim_max
    );
}

/// The bytes a folder takes on disk (as `du` counts them).
fn disk_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    crate::common::walk(dir)
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().blocks() * 512)
        .sum()
}

/// The most memory process `pid` has held resident (VmHWM), in bytes.
fn peak_resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {status}"));
    kib * 1024
}

/// Sends `request` to `addr` and reads the answer to its end, within `limit`.
fn exchange_within(addr: &str, request: &[u8], limit: Duration) -> std::io::Result<Vec<u8>> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(limit))?;
    s.set_write_timeout(Some(limit))?;
    s.write_all(request)?;
    let mut out = Vec::new();
    s.read_to_end(&mut out)?;
    Ok(out)
}

/// The well-behaved client's protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Asked {
    /// spamd's `CHECK`.
    Check,
    /// rspamd's `POST /checkv2`.
    Checkv2,
}

/// One question of the well-behaved client about `message`: its answer (spamd's whole,
/// the JSON body of /checkv2's), or what came instead.
fn ask(d: &Daemon, how: Asked, message: &[u8]) -> Result<String, String> {
    let limit = Duration::from_secs(20);
    match how {
        Asked::Check => {
            let a = exchange_within(&d.spamd, &spamd_request("CHECK", "", message), limit)
                .map_err(|e| format!("spamd: {e}"))?;
            let text = String::from_utf8_lossy(&a).into_owned();
            if complete_spamd(&a) && text.starts_with("SPAMD/1.5 0 EX_OK\r\n") {
                Ok(text)
            } else {
                Err(format!("spamd: {text:?}"))
            }
        }
        Asked::Checkv2 => {
            let a = exchange_within(
                &d.http,
                &http_request("POST", "/checkv2", &[], message),
                limit,
            )
            .map_err(|e| format!("http: {e}"))?;
            match complete_http(&a) {
                Some((200, body)) => Ok(body),
                _ => Err(format!("http: {:?}", String::from_utf8_lossy(&a))),
            }
        }
    }
}

/// A well-behaved session: `rounds` rounds (or until `until` has passed), each asking
/// every message by both protocols one after another; each answer with the time it took.
fn session(
    d: &Daemon,
    mail: &[Vec<u8>],
    rounds: usize,
    until: Option<Instant>,
) -> Vec<(Asked, usize, Duration, Result<String, String>)> {
    let mut out = Vec::new();
    for round in 0.. {
        if round == rounds || until.is_some_and(|u| Instant::now() >= u) {
            break;
        }
        for (i, m) in mail.iter().enumerate() {
            for how in [Asked::Check, Asked::Checkv2] {
                let start = Instant::now();
                let answer = ask(d, how, m);
                out.push((how, i, start.elapsed(), answer));
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
    out
}

/// The 99th percentile of `times`.
fn p99(times: &mut [Duration]) -> Duration {
    times.sort();
    times[(times.len() * 99).div_ceil(100) - 1]
}

/// What a holder of idle connections saw.
#[derive(Debug, Default)]
struct Idle {
    /// Connections opened.
    opened: usize,
    /// Connections the daemon cut.
    cut: usize,
    /// The longest an idle connection lived before the daemon cut it.
    longest: Duration,
    /// Connections that could not be opened.
    failed: Vec<String>,
}

/// Holds `n` idle connections, alternately to each of `addrs`, opening another in the
/// place of each the daemon cuts, until `stop`; says `ready` once all are open.
fn hold_idle(addrs: [String; 2], n: usize, stop: Arc<AtomicBool>, ready: Arc<AtomicBool>) -> Idle {
    let mut seen = Idle::default();
    let open = |i: usize, seen: &mut Idle| match TcpStream::connect(&addrs[i % 2]) {
        Ok(s) => {
            s.set_nonblocking(true).unwrap();
            seen.opened += 1;
            Some((s, Instant::now()))
        }
        Err(e) => {
            seen.failed.push(e.to_string());
            None
        }
    };
    let mut held: Vec<_> = (0..n).map(|i| open(i, &mut seen)).collect();
    ready.store(true, SeqCst);
    let mut buf = [0u8; 512];
    while !stop.load(SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
        for (i, slot) in held.iter_mut().enumerate() {
            let closed = match slot {
                None => true,
                // (An answer to the timeout comes before the end: read on to the end.)
                Some((s, _)) => match s.read(&mut buf) {
                    Ok(0) => true,
                    Ok(_) => false,
                    Err(e) => e.kind() != ErrorKind::WouldBlock,
                },
            };
            if closed {
                if let Some((_, since)) = slot.take() {
                    seen.cut += 1;
                    seen.longest = seen.longest.max(since.elapsed());
                }
                *slot = open(i, &mut seen);
            }
        }
    }
    seen
}

/// The daemon's listeners, as the attack's threads have them.
struct Addrs {
    http: String,
    spamd: String,
}

/// The slow clients' kinds. Those sending a body announce the largest message the
/// daemon takes (32 MiB): three of them would take every byte of `--max-buffered-bytes`
/// were a message counted as announced rather than as it arrives.
#[derive(Debug, Clone, Copy)]
enum Slow {
    /// A spamd request head, a byte at a time.
    SpamdHead,
    /// An HTTP request head, a byte at a time.
    HttpHead,
    /// A spamd head announcing a large message, then the message a byte at a time.
    SpamdBody,
    /// An HTTP head announcing a large body, then the body a byte at a time.
    HttpBody,
    /// A chunked HTTP body, a byte at a time.
    HttpChunked,
}

impl Slow {
    const ALL: [Slow; 5] = [
        Slow::SpamdHead,
        Slow::HttpHead,
        Slow::SpamdBody,
        Slow::HttpBody,
        Slow::HttpChunked,
    ];

    /// What is sent at once, and what is then trickled (over and over).
    fn bytes(self) -> (&'static [u8], &'static [u8]) {
        match self {
            Slow::SpamdHead => (
                b"",
                b"CHECK SPAMC/1.5\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            ),
            Slow::HttpHead => (
                b"",
                b"POST /checkv2 HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaa",
            ),
            Slow::SpamdBody => (b"CHECK SPAMC/1.5\r\nContent-length: 33554432\r\n\r\n", b"a"),
            Slow::HttpBody => (
                b"POST /checkv2 HTTP/1.1\r\nHost: x\r\nContent-Length: 33554432\r\n\r\n",
                b"a",
            ),
            Slow::HttpChunked => (
                b"POST /checkv2 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
                b"1\r\na\r\n",
            ),
        }
    }

    /// The listener a client of this kind is sent to.
    fn addr_of(self, d: &Addrs) -> &str {
        match self {
            Slow::SpamdHead | Slow::SpamdBody => &d.spamd,
            _ => &d.http,
        }
    }
}

/// What the slow clients saw.
#[derive(Debug, Default)]
struct Slowed {
    /// Connections the daemon cut (or answered, then cut).
    cut: usize,
    /// The longest a slow connection lived.
    longest: Duration,
    /// The answers they were given (their first line).
    answers: std::collections::BTreeSet<String>,
    /// Connections that could not be opened or written at the start.
    failed: Vec<String>,
}

/// Slow clients, [`SLOW_EACH`] of each kind, each sending a byte every 100 ms, another
/// opened in the place of each the daemon cuts, until `stop`.
fn slow_clients(http: String, spamd: String, stop: Arc<AtomicBool>) -> Slowed {
    let d = Addrs { http, spamd };
    let mut seen = Slowed::default();
    let open = |kind: Slow, seen: &mut Slowed| {
        let at_once = kind.bytes().0;
        let s = TcpStream::connect(kind.addr_of(&d)).and_then(|mut s| {
            s.write_all(at_once)?;
            s.set_nonblocking(true)?;
            Ok(s)
        });
        match s {
            Ok(s) => Some((kind, s, Instant::now(), 0usize)),
            Err(e) => {
                seen.failed.push(format!("{kind:?}: {e}"));
                None
            }
        }
    };
    let mut conns: Vec<_> = Slow::ALL
        .iter()
        .flat_map(|&k| std::iter::repeat_n(k, SLOW_EACH))
        .map(|k| (k, open(k, &mut seen)))
        .collect();
    let mut buf = [0u8; 512];
    while !stop.load(SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
        for (kind, slot) in conns.iter_mut() {
            let cut = match slot {
                None => true,
                Some((_, s, _, sent)) => {
                    let trickled = kind.bytes().1;
                    let wrote = s.write(&trickled[*sent % trickled.len()..][..1]);
                    *sent += 1;
                    match (wrote, s.read(&mut buf)) {
                        (_, Ok(n)) if n > 0 => {
                            let said = String::from_utf8_lossy(&buf[..n]);
                            seen.answers
                                .insert(said.lines().next().unwrap_or("").to_string());
                            true
                        }
                        (_, Ok(_)) => true,
                        (Err(e), _) if e.kind() != ErrorKind::WouldBlock => true,
                        (_, Err(e)) => e.kind() != ErrorKind::WouldBlock,
                    }
                }
            };
            if cut {
                if let Some((_, _, since, _)) = slot.take() {
                    seen.cut += 1;
                    seen.longest = seen.longest.max(since.elapsed());
                }
                *slot = open(*kind, &mut seen);
            }
        }
    }
    seen
}

/// A malformed request of the flood.
struct Malformed {
    /// What it is.
    name: &'static str,
    bytes: Vec<u8>,
    /// Whether the connection is closed once it is sent (else its sending side is closed
    /// and the answer read to its end).
    close: bool,
    /// Whether it starts with a good request, answered with a success.
    good_first: bool,
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
struct Flooded {
    /// Requests sent.
    sent: usize,
    /// Answers not as they should be: the request's name and the answer.
    wrong: Vec<(&'static str, String)>,
}

/// Sends malformed requests to `addr` one after another until `stop`; `http` says which
/// protocol's, and so which answers are right: nothing (the connection closed or reset),
/// or a refusal (HTTP 4xx; a spamd status other than `EX_OK`, `EX_SOFTWARE`,
/// `EX_IOERR`), or for a good request followed by garbage, its success first. An answer
/// must end within the deadline.
fn flood(addr: String, http: bool, stop: Arc<AtomicBool>) -> Flooded {
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

/// How long an HTTP connection kept alive after one request stays open while idle.
fn kept_alive_idle(addr: &str) -> Result<Duration, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(DEADLINE + SLACK + SLACK)).unwrap();
    s.write_all(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
        .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while !answer.ends_with(b"pong\r\n") {
        let n = s.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err(format!(
                "closed after {:?}",
                String::from_utf8_lossy(&answer)
            ));
        }
        answer.extend_from_slice(&buf[..n]);
    }
    let answered = Instant::now();
    match s.read(&mut buf) {
        Ok(0) => Ok(answered.elapsed()),
        Err(e) if e.kind() == ErrorKind::ConnectionReset => Ok(answered.elapsed()),
        Ok(n) => Err(format!(
            "more after the answer: {:?}",
            String::from_utf8_lossy(&buf[..n])
        )),
        Err(e) => Err(format!("still open after {:?}: {e}", answered.elapsed())),
    }
}

#[test]
fn idle_slow_and_malformed_clients_leave_a_well_behaved_client_served() {
    raise_open_files(IDLE as u64 + 512);
    let dir = tempfile::tempdir().unwrap();
    let (corpus, store) = crate::serve_support::filter_store(dir.path());
    let verdicts = messages(&corpus, &store);
    let mail: Vec<Vec<u8>> = verdicts
        .iter()
        .map(|(m, _, _)| std::fs::read(m).unwrap())
        .collect();
    let timeout = DEADLINE.as_secs().to_string();
    let (d, _, stderr) = Daemon::logged(
        &store,
        &[
            "--http",
            "127.0.0.1:0",
            "--spamd",
            "127.0.0.1:0",
            "--request-timeout",
            &timeout,
        ],
        2,
    );

    // Alone: every answer, and how long each takes.
    let alone = session(&d, &mail, 10, None);
    let mut expected = std::collections::HashMap::new();
    let mut alone_times = Vec::new();
    for (how, i, took, answer) in alone {
        let answer = answer.unwrap_or_else(|e| panic!("alone, message {i}: {e}"));
        if how == Asked::Check {
            assert_eq!(spam_line(&answer).0, verdicts[i].1, "message {i}");
        }
        let first = expected.entry((how, i)).or_insert_with(|| answer.clone());
        assert_eq!(*first, answer, "message {i} answered differently alone");
        alone_times.push(took);
    }
    let alone_p99 = p99(&mut alone_times);

    // Under attack.
    let stop = Arc::new(AtomicBool::new(false));
    let ready = Arc::new(AtomicBool::new(false));
    let idle: JoinHandle<Idle> = {
        let (addrs, stop, ready) = (
            [d.http.clone(), d.spamd.clone()],
            Arc::clone(&stop),
            Arc::clone(&ready),
        );
        std::thread::spawn(move || hold_idle(addrs, IDLE, stop, ready))
    };
    let slow: JoinHandle<Slowed> = {
        let (h, s, stop) = (d.http.clone(), d.spamd.clone(), Arc::clone(&stop));
        std::thread::spawn(move || slow_clients(h, s, stop))
    };
    let floods: Vec<JoinHandle<Flooded>> = [(d.http.clone(), true), (d.spamd.clone(), false)]
        .into_iter()
        .map(|(addr, http)| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || flood(addr, http, stop))
        })
        .collect();
    let started = Instant::now();
    while !ready.load(SeqCst) {
        assert!(started.elapsed() < Duration::from_secs(30), "idle clients");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kept_alive = {
        let addr = d.http.clone();
        std::thread::spawn(move || kept_alive_idle(&addr))
    };
    let attacked = session(&d, &mail, usize::MAX, Some(Instant::now() + ATTACK));
    let peak = peak_resident(d.child.id());
    stop.store(true, SeqCst);
    let idle = idle.join().unwrap();
    let slow = slow.join().unwrap();
    let floods: Vec<Flooded> = floods.into_iter().map(|f| f.join().unwrap()).collect();
    let kept_alive = kept_alive.join().unwrap();

    let mut attacked_times = Vec::new();
    let mut refused = Vec::new();
    for (how, i, took, answer) in &attacked {
        match answer {
            Ok(a) if *a == expected[&(*how, *i)] => {}
            Ok(a) => refused.push(format!("{how:?} of message {i}: another answer: {a}")),
            Err(e) => refused.push(format!("{how:?} of message {i}: {e}")),
        }
        attacked_times.push(*took);
    }
    let attacked_p99 = p99(&mut attacked_times);
    let store_bytes = disk_bytes(&store);
    eprintln!(
        "well-behaved: alone p99 {alone_p99:?} ({} asked), under attack p99 {attacked_p99:?} \
         ({} asked); peak resident {} KiB, store {} KiB; idle {idle:?}; slow {slow:?}; \
         floods sent {:?}; kept-alive idle for {kept_alive:?}",
        alone_times.len(),
        attacked.len(),
        peak >> 10,
        store_bytes >> 10,
        floods.iter().map(|f| f.sent).collect::<Vec<_>>(),
    );

    assert!(refused.is_empty(), "the well-behaved client: {refused:#?}");
    let bound = (alone_p99 * 5).max(Duration::from_millis(100));
    assert!(
        attacked_p99 <= bound,
        "p99 under attack {attacked_p99:?}, alone {alone_p99:?}"
    );
    assert!(
        peak <= store_bytes + 150_000_000,
        "peak resident {peak} bytes for a store of {store_bytes}"
    );
    // Idle connections were held and cut at the deadline, each in its turn.
    assert!(idle.failed.is_empty(), "{:?}", idle.failed);
    assert!(idle.cut >= IDLE, "{idle:?}");
    assert!(idle.longest <= DEADLINE + SLACK, "{idle:?}");
    // So were the slow clients, whether they were trickling a head or a body.
    assert!(slow.failed.is_empty(), "{:?}", slow.failed);
    assert!(slow.cut >= Slow::ALL.len() * SLOW_EACH, "{slow:?}");
    assert!(slow.longest <= DEADLINE + SLACK, "{slow:?}");
    for f in &floods {
        assert!(f.sent >= 50, "a flood of {} requests", f.sent);
        assert!(f.wrong.is_empty(), "{:#?}", f.wrong);
    }
    let idle_for = kept_alive.unwrap();
    assert!(
        idle_for >= DEADLINE - Duration::from_millis(500) && idle_for <= DEADLINE + SLACK,
        "a kept-alive connection left idle was closed after {idle_for:?}"
    );

    // Afterwards: the same answers, and no connection of the attack left open.
    for (i, m) in mail.iter().enumerate() {
        for how in [Asked::Check, Asked::Checkv2] {
            assert_eq!(ask(&d, how, m).as_ref(), Ok(&expected[&(how, i)]));
        }
    }
    let started = Instant::now();
    while d.metric("rosenblatt_open_connections") > 1.0 {
        assert!(
            started.elapsed() <= DEADLINE + SLACK,
            "{} connections still open",
            d.metric("rosenblatt_open_connections")
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(d.stop().success());
    let said = stderr.finished();
    assert!(
        said < 200_000,
        "{said} bytes on stderr, starting {:#?}",
        stderr.first_lines()
    );
    eprintln!("stderr: {said} bytes");
}
