//! What the tests of `rosenblatt serve` share: a daemon started on ports the system picks,
//! clients of its protocols written from their documents, and a filter store made from
//! the shared test corpus with `classify`'s verdicts beside its messages.

use crate::common::{bin, corpus_and_filter, exe};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

/// A running daemon and the addresses it said it listens on.
pub struct Daemon {
    pub child: Child,
    /// The HTTP listener's address.
    pub http: String,
    /// The spamd listener's address.
    pub spamd: String,
}

impl Daemon {
    /// Starts `serve -m FILTER` on ports the system picks, with `flags`.
    pub fn start(filter: &Path, flags: &[&str]) -> Daemon {
        Daemon::started(filter, &[&["--spamd", "127.0.0.1:0"], flags].concat(), true)
    }

    /// Starts `serve -m MODEL --http 127.0.0.1:0 FLAGS`; `spamd` says whether a spamd
    /// listener is to be waited for.
    pub fn started(filter: &Path, flags: &[&str], spamd: bool) -> Daemon {
        let mut child = exe()
            .args(["serve", "-m"])
            .arg(filter)
            .args(["--http", "127.0.0.1:0"])
            .args(flags)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let (mut http, mut spamd) = (None, (!spamd).then(String::new));
        while http.is_none() || spamd.is_none() {
            let line = lines.next().expect("serve ended before listening").unwrap();
            if let Some(a) = line.strip_prefix("rosenblatt serve: listening: http ") {
                http = Some(a.to_string());
            } else if let Some(a) = line.strip_prefix("rosenblatt serve: listening: spamd ") {
                spamd = Some(a.to_string());
            }
        }
        // The rest of its log is read (and dropped) so the daemon never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        Daemon {
            child,
            http: http.unwrap(),
            spamd: spamd.unwrap(),
        }
    }

    /// Sends `request` to the spamd listener; the whole answer.
    pub fn spamd(&self, request: &[u8]) -> String {
        let mut s = TcpStream::connect(&self.spamd).unwrap();
        s.write_all(request).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    /// `METHOD PATH` over HTTP/1.1 with `headers` and `body`: (status, body).
    pub fn http(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> (u16, String) {
        let out = exchange(&self.http, &http_request(method, path, headers, body)).unwrap();
        let out = String::from_utf8_lossy(&out).into_owned();
        if let Some(whole) = complete_http(out.as_bytes()) {
            return whole;
        }
        let status = out[9..12].parse().unwrap();
        let body = out
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        (status, body)
    }

    /// SIGTERM, then the exit status.
    pub fn stop(mut self) -> std::process::ExitStatus {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        self.child.wait().unwrap()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The shared test corpus and its filter, converted to a store.
pub fn filter_store(dir: &Path) -> (PathBuf, PathBuf) {
    let (corpus, model) = corpus_and_filter(dir);
    let store = dir.join("spam.store");
    converted(&model, &store);
    (corpus, store)
}

/// `rosenblatt convert MODEL STORE`, which must succeed.
pub fn converted(model: &Path, store: &Path) {
    bin()
        .arg("convert")
        .arg(model)
        .arg(store)
        .assert()
        .success();
}

/// A spamd request for `message`.
pub fn spamd_request(command: &str, extra: &str, message: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "{command} SPAMC/1.5\r\n{extra}Content-length: {}\r\n\r\n",
        message.len()
    )
    .into_bytes();
    r.extend_from_slice(message);
    r
}

/// The score and threshold of a `Spam: True ; S / T` line, and whether it says spam.
pub fn spam_line(answer: &str) -> (bool, f64, f64) {
    let line = answer
        .lines()
        .find_map(|l| l.strip_prefix("Spam: "))
        .unwrap_or_else(|| panic!("no Spam line in {answer:?}"));
    let (word, rest) = line.split_once(" ; ").unwrap();
    let (s, t) = rest.split_once(" / ").unwrap();
    (word == "True", s.parse().unwrap(), t.parse().unwrap())
}

/// Six messages of the filter's corpus, spam and ham, with `classify`'s verdict and P(spam)
/// for each.
pub fn messages(corpus: &Path, store: &Path) -> Vec<(PathBuf, bool, f64)> {
    let mut out = Vec::new();
    for class in ["spam", "ham"] {
        for i in 0..3 {
            let m = corpus.join(class).join(format!("{i}.eml"));
            // (A filter's exit code is its verdict: 0 spam, 1 ham.)
            let said = bin()
                .args(["classify", "--format", "jsonl", "-m"])
                .arg(store)
                .arg(&m)
                .output()
                .unwrap();
            let v: serde_json::Value = serde_json::from_slice(&said.stdout).unwrap();
            let spam = v["label"] == "spam";
            out.push((m, spam, v["probability"].as_f64().unwrap()));
        }
    }
    out
}

/// A connection to `addr` that the daemon took in: one turned away as busy (its answer
/// arrives at once) is tried again.
pub fn admitted(addr: &str) -> TcpStream {
    for _ in 0..50 {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_millis(300)))
            .unwrap();
        let mut byte = [0u8; 1];
        match s.read(&mut byte) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return s,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => return s,
            _ => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
    panic!("the daemon never took a connection in");
}

/// Whether `program` can be run (a client the tests drive where the system has it).
pub fn installed(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--help")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

impl Daemon {
    /// Starts `serve -m FILTER FLAGS` (FLAGS name every listener) and waits for its
    /// `listeners` addresses: the daemon (its `http` and `spamd` the first of each, or
    /// empty) and every address, in the order said (`unix:PATH` for a Unix socket).
    pub fn listening(filter: &Path, flags: &[&str], listeners: usize) -> (Daemon, Vec<String>) {
        let (d, all, _) = Daemon::logged(filter, flags, listeners);
        (d, all)
    }

    /// As [`Daemon::listening`], with the daemon's whole stderr counted: its bytes, and
    /// its first lines kept to show.
    pub fn logged(
        filter: &Path,
        flags: &[&str],
        listeners: usize,
    ) -> (Daemon, Vec<String>, Stderr) {
        let mut child = exe()
            .args(["serve", "-m"])
            .arg(filter)
            .args(flags)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Stderr::default();
        let mut lines = stderr.reading(child.stderr.take().unwrap());
        let mut all = Vec::new();
        let (mut http, mut spamd) = (String::new(), String::new());
        while all.len() < listeners {
            let line = lines.next().expect("serve ended before listening");
            let Some(said) = line.strip_prefix("rosenblatt serve: listening: ") else {
                continue;
            };
            let (protocol, at) = said.split_once(' ').unwrap();
            let first = if protocol == "http" {
                &mut http
            } else {
                &mut spamd
            };
            if first.is_empty() {
                *first = at.to_string();
            }
            all.push(at.to_string());
        }
        let reader = std::thread::spawn(move || for _ in lines {});
        *stderr.reader.lock().unwrap() = Some(reader);
        (Daemon { child, http, spamd }, all, stderr)
    }

    /// The value of the `/metrics` sample `name` (its whole name, labels included).
    pub fn metric(&self, name: &str) -> f64 {
        let (status, m) = self.http("GET", "/metrics", &[], b"");
        assert_eq!(status, 200, "{m}");
        let prefix = format!("{name} ");
        m.lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no {name} in {m}"))
            .parse()
            .unwrap()
    }
}

/// A daemon's stderr as it is read: every byte counted, the first lines kept.
#[derive(Clone, Default)]
pub struct Stderr {
    bytes: Arc<AtomicU64>,
    first: Arc<Mutex<Vec<String>>>,
    reader: Arc<Mutex<Option<std::thread::JoinHandle<()>>>>,
}

impl Stderr {
    /// How many lines are kept to show.
    const KEPT: usize = 40;

    /// The lines of `from`, each counted (with its end) and kept while few.
    fn reading(
        &self,
        from: std::process::ChildStderr,
    ) -> impl Iterator<Item = String> + Send + use<> {
        let (bytes, first) = (Arc::clone(&self.bytes), Arc::clone(&self.first));
        let mut from = BufReader::new(from);
        std::iter::from_fn(move || {
            let mut line = Vec::new();
            let n = from.read_until(b'\n', &mut line).ok()?;
            if n == 0 {
                return None;
            }
            bytes.fetch_add(n as u64, SeqCst);
            let line = String::from_utf8_lossy(&line).trim_end().to_string();
            let mut kept = first.lock().unwrap();
            if kept.len() < Self::KEPT {
                kept.push(line.clone());
            }
            Some(line)
        })
    }

    /// The bytes read so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(SeqCst)
    }

    /// The first lines read.
    pub fn first_lines(&self) -> Vec<String> {
        self.first.lock().unwrap().clone()
    }

    /// Waits for the end of the daemon's stderr (once it has exited); all its bytes.
    pub fn finished(&self) -> u64 {
        if let Some(r) = self.reader.lock().unwrap().take() {
            r.join().unwrap();
        }
        self.bytes()
    }
}

/// Sends `request` to `addr` (`HOST:PORT` or `unix:PATH`) and reads the answer to its
/// end: its bytes, or the error that ended the exchange (a
/// connection refused or cut), without panicking.
pub fn exchange(addr: &str, request: &[u8]) -> std::io::Result<Vec<u8>> {
    fn over<S: Read + Write>(mut s: S, request: &[u8]) -> std::io::Result<Vec<u8>> {
        s.write_all(request)?;
        let mut out = Vec::new();
        s.read_to_end(&mut out)?;
        Ok(out)
    }
    match addr.strip_prefix("unix:") {
        Some(path) => over(std::os::unix::net::UnixStream::connect(path)?, request),
        None => over(TcpStream::connect(addr)?, request),
    }
}

/// An HTTP/1.1 request of one exchange (`Connection: close`).
pub fn http_request(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// A whole HTTP answer's status and body: `None` unless it has a status line and exactly
/// the body its `Content-Length` announces, or a chunked body to its last chunk.
pub fn complete_http(answer: &[u8]) -> Option<(u16, String)> {
    let answer = std::str::from_utf8(answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    let status = head.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()?;
    let field = |name: &str| {
        head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    };
    if field("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        return dechunked(body).map(|b| (status, b));
    }
    let length: usize = field("content-length")?.parse().ok()?;
    (body.len() == length).then(|| (status, body.to_string()))
}

/// The data of a chunked body, `None` unless it ends with its last (empty) chunk.
pub fn dechunked(mut body: &str) -> Option<String> {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n")?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            return (rest == "\r\n").then_some(out);
        }
        out.push_str(rest.get(..size)?);
        body = rest.get(size..)?.strip_prefix("\r\n")?;
    }
}

/// Whether `answer` is a whole spamd answer: a status line, and where it has headers,
/// exactly the body its `Content-length` announces.
pub fn complete_spamd(answer: &[u8]) -> bool {
    let Ok(answer) = std::str::from_utf8(answer) else {
        return false;
    };
    if !answer.starts_with("SPAMD/1.") || !answer.contains("\r\n") {
        return false;
    }
    match answer.split_once("\r\n\r\n") {
        // (A status alone: PONG and errors.)
        None => answer.ends_with("\r\n") && answer.matches("\r\n").count() == 1,
        Some((head, body)) => head
            .lines()
            .find_map(|l| l.strip_prefix("Content-length: "))
            .and_then(|n| n.trim().parse::<usize>().ok())
            .is_some_and(|n| n == body.len()),
    }
}

/// `METHOD PATH` over HTTP/1.1 at `addr`: (status, body) of a whole answer, or the error
/// that ended the exchange (an answer cut short is `InvalidData`).
pub fn try_http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<(u16, String)> {
    let answer = exchange(addr, &http_request(method, path, headers, body))?;
    complete_http(&answer).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not a whole answer: {:?}", String::from_utf8_lossy(&answer)),
        )
    })
}

/// P(spam) that `classify -m FILTER` gives `message`.
pub fn p_spam(filter: &Path, message: &Path) -> f64 {
    let said = bin()
        .args(["classify", "--format", "jsonl", "-m"])
        .arg(filter)
        .arg(message)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&said.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&said.stderr)));
    v["probability"].as_f64().unwrap()
}

/// A seeded generator (xorshift64*): the same random moments and bytes at every run.
pub struct Seeded(pub u64);

impl Seeded {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 33) % n
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 56) as u8).collect()
    }
}
