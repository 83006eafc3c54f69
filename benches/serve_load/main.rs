//! Messages a second through `rosenblatt serve` against one `classify -m STORE` process a
//! message, in one run on this machine, with a load generator light enough not to be the
//! bottleneck (no HTTP library; spamd's connections on threads, rspamd's kept-alive ones
//! on one thread, as `wrk` drives them: `polled.rs`).
//!
//! A filter is trained on the shipped SpamAssassin corpus (`corpora/spamassassin`) and
//! converted to a store; `serve -m STORE` listens on loopback. Measured, in this order:
//!
//! - saturation over spamd: `--clients` threads send every message, in a seeded order,
//!   as `CHECK` requests, one connection a request as `spamc` does, for `--seconds`;
//! - saturation over rspamd's `POST /checkv2` on `--clients` kept-alive HTTP/1.1
//!   connections driven by one thread (and the same against an rspamd given with
//!   `--rspamd HOST:PORT`, on the same messages);
//! - an offered rate of `--rate` CHECKs a second (open loop: latency counts from when a
//!   request was due, so a daemon that falls behind shows it);
//! - `classify -m STORE MESSAGE`, one process a message, two at a time, for
//!   `--processes` messages.
//!
//! Printed: messages/s, p50 and p99 latency of each, the ratios of the daemon's
//! messages/s to the processes', and the daemon's peak resident memory. Every answer is
//! checked (spamd `EX_OK`, HTTP 200); the two protocols must find as many spam.
//!
//! Usage: `cargo build --release && cargo bench --bench serve_load -- [--bin PATH]
//! [--clients 4] [--seconds 5] [--rate 1000] [--processes 300] [--rspamd HOST:PORT]
//! [--seed 1] [--model-file] [--history N]` (`--model-file`: the daemon serves the model
//! file the store was made from, not the store; the processes still classify with the
//! store; `--history N`: also saturates `/checkv2` of daemons started with `--history 0`
//! and `--history N`, each twice, alternately, and prints the ratio of their messages/s —
//! what keeping the page's recent verdicts costs).

mod polled;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The command line's settings.
struct Args {
    bin: PathBuf,
    clients: usize,
    seconds: f64,
    rate: f64,
    processes: usize,
    rspamd: Option<String>,
    seed: u64,
    /// Serve the model file rather than the store made from it.
    file: bool,
    /// Compare daemons keeping this many recent verdicts and none.
    history: Option<usize>,
}

fn args() -> Args {
    let mut a = Args {
        bin: PathBuf::from("target/release/rosenblatt"),
        clients: 4,
        seconds: 5.0,
        rate: 1000.0,
        processes: 300,
        rspamd: None,
        seed: 1,
        file: false,
        history: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        // `cargo bench` adds --bench; it takes no value.
        if flag == "--bench" {
            continue;
        }
        if flag == "--model-file" {
            a.file = true;
            continue;
        }
        let value = it
            .next()
            .unwrap_or_else(|| die(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--bin" => a.bin = PathBuf::from(&value),
            "--clients" => a.clients = number(&flag, &value),
            "--seconds" => a.seconds = number(&flag, &value),
            "--rate" => a.rate = number(&flag, &value),
            "--processes" => a.processes = number(&flag, &value),
            "--rspamd" => a.rspamd = Some(value),
            "--seed" => a.seed = number(&flag, &value),
            "--history" => a.history = Some(number(&flag, &value)),
            _ => die(&format!(
                "unknown flag {flag} (see the top of benches/serve_load/main.rs)"
            )),
        }
    }
    a
}

/// `value` as a number, or the run ends naming `flag`.
fn number<T: std::str::FromStr>(flag: &str, value: &str) -> T {
    value
        .parse()
        .unwrap_or_else(|_| die(&format!("{flag} {value}: not a number")))
}

fn die(why: &str) -> ! {
    eprintln!("serve_load: {why}");
    std::process::exit(2)
}

/// Every message of the shipped corpus, in an order shuffled by `seed`.
fn messages(corpus: &Path, seed: u64) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    let mut folders = vec![corpus.join("spam"), corpus.join("ham")];
    while let Some(dir) = folders.pop() {
        let read =
            std::fs::read_dir(&dir).unwrap_or_else(|e| die(&format!("{}: {e}", dir.display())));
        for path in read.filter_map(|e| e.ok()).map(|e| e.path()) {
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    // Fisher–Yates with a 64-bit LCG: the same order for the same seed, anywhere.
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    for i in (1..files.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        files.swap(i, ((state >> 33) % (i as u64 + 1)) as usize);
    }
    files
        .iter()
        .map(|f| std::fs::read(f).unwrap_or_else(|e| die(&format!("{}: {e}", f.display()))))
        .collect()
}

/// A spamd CHECK of `raw` on a fresh connection; whether the daemon says spam.
fn spamd_check(addr: &str, raw: &[u8]) -> bool {
    let mut s = TcpStream::connect(addr).unwrap_or_else(|e| die(&format!("{addr}: {e}")));
    let _ = s.set_nodelay(true);
    let mut req = format!("CHECK SPAMC/1.5\r\nContent-length: {}\r\n\r\n", raw.len()).into_bytes();
    req.extend_from_slice(raw);
    s.write_all(&req).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let text = String::from_utf8_lossy(&out);
    if !text.contains(" 0 EX_OK") {
        die(&format!(
            "spamd answered {:?}",
            &text[..text.len().min(200)]
        ));
    }
    text.contains("Spam: True")
}

/// What one way of asking measured.
struct Row {
    name: String,
    per_second: f64,
    latencies: Vec<Duration>,
    spam: usize,
    asked: usize,
    /// The daemon's CPU time a message (user and system), in microseconds, where known.
    cpu_us: Option<f64>,
}

impl Row {
    /// A row of nothing asked yet.
    fn named(name: &str) -> Row {
        Row {
            name: name.to_string(),
            per_second: 0.0,
            latencies: Vec::new(),
            spam: 0,
            asked: 0,
            cpu_us: None,
        }
    }

    fn percentile(&self, q: f64) -> f64 {
        let mut l = self.latencies.clone();
        l.sort();
        let i = ((q * l.len() as f64) as usize).min(l.len().saturating_sub(1));
        l.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e3)
    }
}

/// `clients` threads ask `one` about the messages in turn (each thread its share,
/// cycling) until `seconds` have passed.
fn saturate<S>(
    name: &str,
    clients: usize,
    seconds: f64,
    messages: &Arc<Vec<Vec<u8>>>,
    state: impl Fn() -> S + Sync,
    one: impl Fn(&mut S, &[u8]) -> bool + Sync,
) -> Row {
    let until = Instant::now() + Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let parts: Vec<(Vec<Duration>, usize, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let (state, one, messages) = (&state, &one, Arc::clone(messages));
                scope.spawn(move || {
                    let mut s = state();
                    let (mut lat, mut spam, mut asked) = (Vec::new(), 0, 0);
                    let mut i = c;
                    while Instant::now() < until {
                        let t = Instant::now();
                        spam += usize::from(one(&mut s, &messages[i % messages.len()]));
                        lat.push(t.elapsed());
                        asked += 1;
                        i += clients;
                    }
                    (lat, spam, asked)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let took = start.elapsed().as_secs_f64();
    let mut row = Row::named(name);
    for (lat, spam, asked) in parts {
        row.latencies.extend(lat);
        row.spam += spam;
        row.asked += asked;
    }
    row.per_second = row.asked as f64 / took;
    row
}

/// CHECKs offered at `rate` a second for `seconds`, each due at its time whatever the
/// answers before it; latency from when it was due.
fn offered(addr: &str, rate: f64, seconds: f64, messages: &Arc<Vec<Vec<u8>>>) -> Row {
    let n = (rate * seconds) as usize;
    let next = AtomicUsize::new(0);
    let start = Instant::now() + Duration::from_millis(20);
    let workers = 16;
    let parts: Vec<(Vec<Duration>, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (next, messages) = (&next, Arc::clone(messages));
                scope.spawn(move || {
                    let (mut lat, mut spam) = (Vec::new(), 0);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        let due = start + Duration::from_secs_f64(i as f64 / rate);
                        if let Some(wait) = due.checked_duration_since(Instant::now()) {
                            std::thread::sleep(wait);
                        }
                        spam += usize::from(spamd_check(addr, &messages[i % messages.len()]));
                        lat.push(due.elapsed());
                    }
                    (lat, spam)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let took = start.elapsed().as_secs_f64();
    let mut row = Row {
        per_second: n as f64 / took,
        asked: n,
        ..Row::named(&format!("serve, spamd CHECK offered {rate:.0}/s"))
    };
    for (lat, spam) in parts {
        row.latencies.extend(lat);
        row.spam += spam;
    }
    row
}

/// `serve -m STORE` on ports the system picks: the child and its (http, spamd) addresses.
fn start_daemon(bin: &Path, store: &Path, extra: &[&str]) -> (Child, String, String) {
    let mut child = Command::new(bin)
        .args(["serve", "-m"])
        .arg(store)
        .args(["--http", "127.0.0.1:0", "--spamd", "127.0.0.1:0"])
        .args(["--max-connections", "4096"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| die(&format!("{}: {e}", bin.display())));
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut http, mut spamd) = (None, None);
    while http.is_none() || spamd.is_none() {
        let line = lines
            .next()
            .unwrap_or_else(|| die("serve ended before listening"))
            .unwrap();
        if let Some(a) = line.strip_prefix("rosenblatt serve: listening: http ") {
            http = Some(a.to_string());
        } else if let Some(a) = line.strip_prefix("rosenblatt serve: listening: spamd ") {
            spamd = Some(a.to_string());
        }
    }
    std::thread::spawn(move || for _ in lines {});
    (child, http.unwrap(), spamd.unwrap())
}

/// The peak resident memory of process `pid`, in MB.
fn peak_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The CPU time process `pid` has taken so far (user and system), in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's name (which may hold spaces) in parentheses.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (ticks(11) + ticks(12)) / per_second
}

/// `measure`'s row with the daemon's CPU time a message beside it.
fn with_cpu(pid: u32, measure: impl FnOnce() -> Row) -> Row {
    let before = cpu_seconds(pid);
    let mut row = measure();
    row.cpu_us = Some(1e6 * (cpu_seconds(pid) - before) / row.asked.max(1) as f64);
    row
}

/// Runs `bin` with `args`, failing the benchmark when it fails.
fn run(bin: &Path, args: &[&std::ffi::OsStr]) {
    let ok = Command::new(bin)
        .args(args)
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        die(&format!("{} {args:?} failed", bin.display()));
    }
}

fn main() {
    let a = args();
    if !a.bin.exists() {
        die(&format!(
            "{}: build it first (cargo build --release)",
            a.bin.display()
        ));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("corpora/spamassassin");
    let messages = Arc::new(messages(&corpus, a.seed));
    let tmp = tempfile::tempdir().unwrap();
    let (model, store) = (tmp.path().join("f.model"), tmp.path().join("f.store"));
    run(
        &a.bin,
        &[
            "train".as_ref(),
            "--spam".as_ref(),
            corpus.join("spam").as_os_str(),
            "--ham".as_ref(),
            corpus.join("ham").as_os_str(),
            "-o".as_ref(),
            model.as_os_str(),
        ],
    );
    run(
        &a.bin,
        &["convert".as_ref(), model.as_os_str(), store.as_os_str()],
    );
    let served = if a.file { &model } else { &store };
    let (mut daemon, http, spamd) = start_daemon(&a.bin, served, &[]);
    let pid = daemon.id();
    let mut rows = Vec::new();
    rows.push(with_cpu(pid, || {
        saturate(
            "serve, spamd CHECK (a connection each)",
            a.clients,
            a.seconds,
            &messages,
            || (),
            |_, raw| spamd_check(&spamd, raw),
        )
    }));
    rows.push(with_cpu(pid, || {
        polled::saturate(
            "serve, rspamd /checkv2 (kept alive)",
            &http,
            a.clients,
            a.seconds,
            &messages,
        )
    }));
    rows.push(with_cpu(pid, || {
        offered(&spamd, a.rate, a.seconds, &messages)
    }));
    let peak = peak_mb(daemon.id());
    unsafe { libc::kill(daemon.id() as i32, libc::SIGTERM) };
    let _ = daemon.wait();
    let history = a
        .history
        .map(|n| (n, history_ratio(&a, served, n, &messages)));
    if let Some(addr) = &a.rspamd {
        rows.push(polled::saturate(
            &format!("rspamd {addr}, /checkv2 (kept alive)"),
            addr,
            a.clients,
            a.seconds,
            &messages,
        ));
    }
    // One process a message, two at a time.
    let paths: Vec<PathBuf> = messages
        .iter()
        .take(a.processes)
        .enumerate()
        .map(|(i, raw)| {
            let p = tmp.path().join(format!("m{i}"));
            std::fs::write(&p, raw).unwrap();
            p
        })
        .collect();
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let lat: Vec<Duration> = std::thread::scope(|scope| {
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let (next, paths, bin, store) = (&next, &paths, &a.bin, &store);
                scope.spawn(move || {
                    let mut lat = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(p) = paths.get(i) else { break };
                        let t = Instant::now();
                        let _ = Command::new(bin)
                            .args(["classify", "-m"])
                            .arg(store)
                            .arg(p)
                            .stdout(Stdio::null())
                            .status();
                        lat.push(t.elapsed());
                    }
                    lat
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let processes = paths.len() as f64 / start.elapsed().as_secs_f64();
    rows.push(Row {
        per_second: processes,
        latencies: lat,
        asked: paths.len(),
        ..Row::named("classify -m STORE, a process each, 2 at a time")
    });
    println!(
        "{} messages, {} clients, {:.0} s a way; the daemon's peak resident memory {peak:.1} MB",
        messages.len(),
        a.clients,
        a.seconds
    );
    println!(
        "{:<48} {:>8} {:>8} {:>8} {:>8} {:>7} {:>12}",
        "way", "asked", "msgs/s", "p50 ms", "p99 ms", "ratio", "daemon CPU"
    );
    for r in &rows {
        let cpu = r
            .cpu_us
            .map_or("–".to_string(), |us| format!("{us:.0} µs/msg"));
        println!(
            "{:<48} {:>8} {:>8.0} {:>8.2} {:>8.2} {:>6.1}x {:>12}",
            r.name,
            r.asked,
            r.per_second,
            r.percentile(0.5),
            r.percentile(0.99),
            r.per_second / processes,
            cpu
        );
    }
    if let Some((n, ratio)) = history {
        println!(
            "/checkv2 messages/s with --history {n} over --history 0 (each twice, alternately): {ratio:.3}"
        );
    }
    let share = |r: &Row| r.spam as f64 / r.asked.max(1) as f64;
    if (share(&rows[0]) - share(&rows[1])).abs() > 0.02 {
        die("the two protocols found different shares of spam");
    }
}

/// The messages/s of `/checkv2` (kept alive) with `--history N` over those with
/// `--history 0`: daemons of each, started in turn, twice, so that a drift of the machine
/// falls on both.
fn history_ratio(a: &Args, served: &Path, n: usize, messages: &Arc<Vec<Vec<u8>>>) -> f64 {
    let mut per = [0.0f64; 2];
    let kept = n.to_string();
    for _ in 0..2 {
        for (i, h) in ["0", kept.as_str()].into_iter().enumerate() {
            let (mut d, http, _) = start_daemon(&a.bin, served, &["--history", h]);
            let r = with_cpu(d.id(), || {
                polled::saturate(
                    &format!("serve --history {h}, /checkv2"),
                    &http,
                    a.clients,
                    a.seconds,
                    messages,
                )
            });
            println!(
                "  --history {h}: {:.0} messages/s, {:.0} µs of the daemon's CPU a message",
                r.per_second,
                r.cpu_us.unwrap_or(0.0)
            );
            per[i] += r.per_second;
            unsafe { libc::kill(d.id() as i32, libc::SIGTERM) };
            let _ = d.wait();
        }
    }
    per[1] / per[0]
}
