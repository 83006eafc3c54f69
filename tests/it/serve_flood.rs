//! `rosenblatt serve` under attack. A thousand idle connections, slow clients trickling a
//! request (its head, or its body after a head that announces a large one) a byte at a
//! time, and a flood of malformed requests over both protocols (bad request lines, header
//! floods, oversized and negative lengths, truncated chunked bodies, garbage after a
//! request, random bytes) leave a well-behaved client served: every answer the one it got
//! alone, its 99th percentile within a few times its own. Meanwhile the daemon stays under
//! its store's size + 150 MB of memory and says under 200 KB on stderr; idle, kept-alive
//! and slow connections are cut at the request deadline; afterwards it answers as before,
//! holds no connection of the attack, and stops with status 0.

use crate::serve_malformed::{Flooded, flood};
use crate::serve_support::{
    Daemon, complete_http, complete_spamd, http_request, messages, spam_line, spamd_request,
};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The daemon's `--request-timeout`.
pub(crate) const DEADLINE: Duration = Duration::from_secs(3);
/// How much later than [`DEADLINE`] a connection may be cut on a loaded machine.
pub(crate) const SLACK: Duration = Duration::from_secs(6);
/// Idle connections held open (half on each listener).
const IDLE: usize = 1000;
/// Slow clients of each kind.
const SLOW_EACH: usize = 2;
/// How long the well-behaved client asks under attack.
const ATTACK: Duration = Duration::from_secs(10);

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
