//! What the tests of `rosenblatt serve` share: a daemon started on ports the system picks,
//! clients of its protocols written from their documents, and a filter store made from
//! the shared test corpus with `classify`'s verdicts beside its messages.

use crate::common::{bin, corpus_and_filter, exe};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

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
        let mut s = TcpStream::connect(&self.http).unwrap();
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
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
    bin()
        .arg("convert")
        .arg(&model)
        .arg(&store)
        .assert()
        .success();
    (corpus, store)
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
