//! What every connection of a running daemon shares: the saved classifier, the
//! configuration, the counters and the log, and the answers to the questions the
//! protocols ask of them (judge a message, learn one, may this client learn).

use super::history::{HISTORY_BYTES, History};
use super::metrics::Metrics;
use super::rates::Rates;
use super::verdict::{Verdict, judge};
use crate::Result;
use crate::classifier::SavedClassifier;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// Where a listener listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// `HOST:PORT` (port 0: one the system picks, said when ready).
    Tcp(String),
    /// `unix:PATH`, a Unix socket.
    Unix(PathBuf),
}

impl Listen {
    /// `HOST:PORT` or `unix:PATH`.
    pub fn parse(s: &str) -> std::result::Result<Listen, String> {
        if let Some(path) = s.strip_prefix("unix:") {
            if path.is_empty() {
                return Err("unix: needs the socket's path (unix:/run/rosenblatt.sock)".into());
            }
            return Ok(Listen::Unix(PathBuf::from(path)));
        }
        match s.rsplit_once(':') {
            Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => {
                Ok(Listen::Tcp(s.to_string()))
            }
            _ => Err(format!(
                "{s}: give HOST:PORT (127.0.0.1:11333, [::1]:783) or unix:PATH"
            )),
        }
    }
}

/// How a daemon runs: its listeners, its credential and its bounds.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Listeners of the HTTP protocols (rspamd's, the JSON API, health, metrics).
    pub http: Vec<Listen>,
    /// Listeners of spamd's protocol.
    pub spamd: Vec<Listen>,
    /// The credential a learn over HTTP must send (rspamd's `Password` header); without
    /// one, HTTP learns are refused.
    pub learn_key: Option<Vec<u8>>,
    /// Whether spamd's `TELL` may learn, from loopback and Unix-socket clients only.
    pub allow_tell: bool,
    /// The most connections open at once; one more is answered busy.
    pub max_connections: usize,
    /// The most bytes of one message or request body.
    pub max_message_bytes: u64,
    /// The most bytes of messages held at once, over every connection: a request whose
    /// message would pass it is answered busy, so a flood of large messages cannot take
    /// the host's memory.
    pub max_buffered_bytes: u64,
    /// How long a client may take to send a request (its head, then its body), and an
    /// HTTP connection may stay idle between requests.
    pub request_timeout: Duration,
    /// From which P(spam) rspamd clients are told to reject.
    pub reject_probability: f32,
    /// How long a stopping daemon lets requests in flight finish.
    pub stop_timeout: Duration,
    /// A folder of per-user filters: user U's is the store (or model file) `DIR/U`,
    /// chosen by spamd's `User:` and rspamd's `Deliver-To`; a user without one gets the
    /// daemon's filter.
    pub stores: Option<PathBuf>,
    /// How many recent verdicts the page lists (and keeps the messages of, within
    /// [`HISTORY_BYTES`]); 0 keeps none.
    pub history: usize,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            http: vec![Listen::Tcp("127.0.0.1:11333".into())],
            spamd: vec![Listen::Tcp("127.0.0.1:783".into())],
            learn_key: None,
            allow_tell: false,
            max_connections: 4096,
            max_message_bytes: 32 << 20,
            max_buffered_bytes: 96 << 20,
            request_timeout: Duration::from_secs(30),
            reject_probability: 0.99,
            stop_timeout: Duration::from_secs(10),
            stores: None,
            history: 100,
        }
    }
}

/// A running daemon's shared state.
pub struct Daemon {
    /// The filter or model it answers with now: a request holds the one it started with
    /// while a reload puts another in its place.
    current: RwLock<Arc<SavedClassifier>>,
    /// How it runs.
    pub config: ServeConfig,
    /// Its counters.
    pub metrics: Metrics,
    /// Its recent verdicts, for the page.
    pub history: History,
    /// Its verdicts and learns per minute, for the page.
    pub rates: Rates,
    /// The per-user filters opened so far, by user.
    users: Mutex<HashMap<String, Arc<SavedClassifier>>>,
    /// The bytes of messages that may still be held, in KiB.
    buffered: tokio::sync::Semaphore,
    log: Log,
}

/// A message's bytes counted against [`ServeConfig::max_buffered_bytes`] while it lives.
pub type Held<'d> = tokio::sync::SemaphorePermit<'d>;

/// What every protocol says of a request turned away at [`ServeConfig::max_buffered_bytes`]
/// (each adds its own hint).
pub const BUSY_BYTES: &str = "busy: the messages in hand are at --max-buffered-bytes";

/// Runs a request's `work`: on this thread (a verdict is a tenth of a millisecond), or on
/// a blocking thread of its own where `own_thread` (a learn waits for the disk; a batch of
/// documents takes long). `None` when it panicked.
pub async fn answered<T: Send + 'static>(
    own_thread: bool,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    if own_thread {
        tokio::task::spawn_blocking(work).await.ok()
    } else {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).ok()
    }
}

/// How long a learn waits for another learn of the same filter.
pub const LEARN_WAIT: Duration = Duration::from_secs(10);

impl Daemon {
    /// Opens the filter or model at `path` as a daemon run by `config` needs it: to
    /// learn as well where `config` lets clients learn. A model file's arrays are copied
    /// out, not read in place from its mapping (`crate::raw::CopiedOut`).
    pub fn open(path: &Path, config: &ServeConfig) -> Result<SavedClassifier> {
        // A daemon outlives many replacements of its model file: its arrays are copied
        // out rather than read in place, so that a file rewritten in place (`cp` over it)
        // neither changes the model in service nor ends the process when it is cut short.
        let _copied = crate::raw::CopiedOut::on();
        let c = if config.learn_key.is_some() || config.allow_tell {
            SavedClassifier::open_to_learn(path, LEARN_WAIT)?
        } else {
            SavedClassifier::open(path)?
        };
        c.keep_mapped();
        Ok(c)
    }

    /// A daemon answering with `classifier`; `log` writes one line (on stderr, say).
    pub fn new(
        classifier: SavedClassifier,
        config: ServeConfig,
        log: Box<dyn Fn(&str) + Send + Sync>,
    ) -> Daemon {
        let metrics = Metrics::default();
        metrics.set_generation(1);
        classifier.keep_mapped();
        let buffered = tokio::sync::Semaphore::new(kib(config.max_buffered_bytes) as usize);
        let history = History::new(config.history, HISTORY_BYTES);
        Daemon {
            current: RwLock::new(Arc::new(classifier)),
            config,
            metrics,
            history,
            rates: Rates::new(super::rates::minute_now()),
            users: Mutex::new(HashMap::new()),
            buffered,
            log: Log::new(log),
        }
    }

    /// The filter or model as of now.
    pub fn classifier(&self) -> Arc<SavedClassifier> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Opens the filter or model at its path again and answers with it from the next
    /// request on (requests under way finish with the one they began with). One that
    /// cannot be opened (a damaged file, one of another kind) is refused and the one in
    /// service goes on: the error says why.
    pub fn reload(&self) -> Result<u64> {
        let old = self.classifier();
        if old.is_store() {
            return Err(crate::Error::Unsupported(format!(
                "{}: a store is not opened again: every request sees its last commit; \
                 restart the daemon to serve a store put in its place",
                old.path().display()
            )));
        }
        let fresh = Daemon::open(old.path(), &self.config)?;
        if old.spam_filter().is_ok() && fresh.spam_filter().is_err() {
            return Err(crate::Error::model(
                old.path(),
                "the file now holds no spam filter; the filter in service goes on",
            ));
        }
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(fresh);
        Ok(self.metrics.next_generation())
    }

    /// The filter that answers for `user`: theirs under `--stores` where they have one,
    /// the daemon's otherwise. A name that could reach outside the folder (anything but 1
    /// to 64 letters, digits and `. _ - + @`, not starting with a dot) is refused before
    /// any path is made of it.
    pub fn classifier_for(&self, user: Option<&str>) -> Result<Arc<SavedClassifier>> {
        if let Some(why) = self.refuse_user(user) {
            return Err(crate::Error::Data(why));
        }
        let (Some(dir), Some(user)) = (&self.config.stores, user) else {
            return Ok(self.classifier());
        };
        let mut users = self.users.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = users.get(user) {
            return Ok(Arc::clone(c));
        }
        let path = dir.join(user);
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(self.classifier());
        }
        let c = Arc::new(Daemon::open(&path, &self.config)?);
        if users.len() >= MAX_USERS {
            users.clear();
        }
        users.insert(user.to_string(), Arc::clone(&c));
        Ok(c)
    }

    /// Why `user` cannot choose a filter (with `--stores`, a name that could make a path
    /// leave the folder), or `None`: asked before anything is made of the name, so that
    /// each protocol answers it with its own status.
    pub fn refuse_user(&self, user: Option<&str>) -> Option<String> {
        let user = user.filter(|_| self.config.stores.is_some())?;
        user_name_problem(user).map(|why| format!("the user name {user:?}: {why}"))
    }

    /// Judges one raw message for `user` (with its strongest features when `symbols`),
    /// counts the verdict and records it in the history (which copies the message).
    pub fn judge(&self, raw: &[u8], symbols: bool, user: Option<&str>) -> Result<Verdict> {
        self.judge_kept(raw, None, symbols, user)
    }

    /// [`Daemon::judge`] of a message whose request buffer `kept` the history may keep
    /// as it is (an HTTP body), without a copy.
    pub fn judge_kept(
        &self,
        raw: &[u8],
        kept: Option<&bytes::Bytes>,
        symbols: bool,
        user: Option<&str>,
    ) -> Result<Verdict> {
        let v = judge(&*self.classifier_for(user)?, raw, symbols)?;
        self.metrics.verdict(v.spam);
        self.history.record(raw, kept, &v, user);
        Ok(v)
    }

    /// Learns one raw message as spam or ham for `user`, committed before it returns.
    pub fn learn(&self, raw: &[u8], spam: bool, user: Option<&str>) -> Result<()> {
        let class = if spam { "spam" } else { "ham" };
        self.classifier_for(user)?.learn_mail(raw, class)?;
        self.metrics.learned(spam);
        Ok(())
    }

    /// Whether `given` is the learning credential, compared in time that does not depend
    /// on where it first differs; false when the daemon has none.
    pub fn may_learn(&self, given: Option<&[u8]>) -> bool {
        match (&self.config.learn_key, given) {
            (Some(key), Some(given)) => same_in_constant_time(key, given),
            _ => false,
        }
    }

    /// Counts `bytes` more of messages held (at least 1 KiB), or `None` when that would
    /// pass [`ServeConfig::max_buffered_bytes`]: the request is then answered busy.
    pub fn hold(&self, bytes: u64) -> Option<Held<'_>> {
        self.buffered.try_acquire_many(kib(bytes)).ok()
    }

    /// Counts `held` up to `bytes` as a message arrives, or `false` when that would pass
    /// [`ServeConfig::max_buffered_bytes`]: the request is then answered busy. A message
    /// is counted as its bytes come, not as its head announces them, so a client that
    /// announces a large one and sends it slowly holds only what it has sent.
    pub fn hold_up_to<'d>(&'d self, held: &mut Held<'d>, bytes: u64) -> bool {
        let more = (kib(bytes) as usize).saturating_sub(held.num_permits());
        if more == 0 {
            return true;
        }
        match self.buffered.try_acquire_many(more as u32) {
            Ok(p) => {
                held.merge(p);
                true
            }
            Err(_) => false,
        }
    }

    /// Writes `line` to the log, at most a few lines a second: under a flood the lines
    /// beyond are counted and said in one line later.
    pub fn note(&self, line: &str) {
        // Bytes a client sent reach the log escaped: no terminal control, no forged line.
        self.log.line(&line.escape_default().to_string());
    }
}

/// `bytes` in KiB, rounded up, at least 1 (and at most what a permit count holds).
fn kib(bytes: u64) -> u32 {
    u32::try_from(bytes.div_ceil(1024).max(1)).unwrap_or(u32::MAX >> 3)
}

/// The most per-user filters held open at once; past it they are opened afresh.
const MAX_USERS: usize = 1024;

/// Why `name` cannot name a user's filter, or `None`: 1 to 64 bytes of letters, digits
/// and `.`, `_`, `-`, `+`, `@`, not starting with `.` — so no `/`, no `..`, no NUL, no
/// hidden file, and nothing a path could be made to leave the folder with.
fn user_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 64 {
        return Some("a user name is 1 to 64 bytes");
    }
    if name.starts_with('.') {
        return Some("a user name does not start with a dot");
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+' | '@');
    if !name.chars().all(allowed) {
        return Some("a user name holds letters, digits and . _ - + @ only");
    }
    None
}

/// Whether `a` and `b` are equal, looking at every byte of the longer whatever they hold.
fn same_in_constant_time(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().max(b.len());
    let mut differ = u8::from(a.len() != b.len());
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        differ |= x ^ y;
    }
    std::hint::black_box(differ) == 0
}

/// A log that writes at most [`Log::PER_SECOND`] lines a second.
struct Log {
    write: Box<dyn Fn(&str) + Send + Sync>,
    state: Mutex<(Instant, u32, u64)>,
}

impl Log {
    /// Lines written in one second at most.
    const PER_SECOND: u32 = 5;

    fn new(write: Box<dyn Fn(&str) + Send + Sync>) -> Log {
        Log {
            write,
            state: Mutex::new((Instant::now(), 0, 0)),
        }
    }

    fn line(&self, line: &str) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (since, written, dropped) = &mut *s;
        if since.elapsed() >= Duration::from_secs(1) {
            if *dropped > 0 {
                (self.write)(&format!("{dropped} more line(s) left out of the log"));
            }
            *since = Instant::now();
            *written = 0;
            *dropped = 0;
        }
        if *written < Self::PER_SECOND {
            *written += 1;
            (self.write)(line);
        } else {
            *dropped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listeners_are_host_port_or_a_unix_path() {
        assert_eq!(
            Listen::parse("127.0.0.1:11333"),
            Ok(Listen::Tcp("127.0.0.1:11333".into()))
        );
        assert_eq!(Listen::parse("[::1]:0"), Ok(Listen::Tcp("[::1]:0".into())));
        assert_eq!(
            Listen::parse("unix:/run/r.sock"),
            Ok(Listen::Unix("/run/r.sock".into()))
        );
        for bad in [
            "11333",
            "localhost",
            "host:port",
            ":783",
            "unix:",
            "h:70000",
        ] {
            assert!(Listen::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn user_names_never_make_a_path_outside_the_folder() {
        for good in ["alice", "bob.smith", "a_b-c+d@example.org", "x"] {
            assert_eq!(user_name_problem(good), None, "{good}");
        }
        let long = "a".repeat(65);
        for bad in [
            "",
            "a/b",
            "..",
            "../x",
            ".hidden",
            "a\0b",
            "a b",
            "é",
            long.as_str(),
        ] {
            assert!(user_name_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn the_credential_is_the_whole_key() {
        let key = b"s3cret".as_slice();
        assert!(same_in_constant_time(key, b"s3cret"));
        for other in [&b"s3cre"[..], b"s3crex", b"s3cret!", b""] {
            assert!(!same_in_constant_time(key, other));
        }
    }

    #[test]
    fn a_flood_of_lines_is_cut_to_a_few_a_second() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&lines);
        let log = Log::new(Box::new(move |l| seen.lock().unwrap().push(l.to_string())));
        for i in 0..1000 {
            log.line(&format!("line {i}"));
        }
        assert_eq!(lines.lock().unwrap().len(), Log::PER_SECOND as usize);
    }
}
