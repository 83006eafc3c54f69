//! A daemon running: its listeners bound (TCP or Unix sockets), connections accepted up
//! to the connection bound (one more is answered busy: spamd's `EX_TEMPFAIL`, HTTP 503,
//! and closed), each served on tokio's threads, until SIGTERM or SIGINT; then no new
//! connection is taken and those in flight have the stop deadline to finish.

use super::daemon::{Daemon, Listen};
use super::{http, spamd, spamd_conn};
use crate::{Error, Result};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{Semaphore, watch};

/// Which protocol a listener speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaks {
    Http,
    Spamd,
}

impl Speaks {
    /// The protocol's name, as the log says it.
    fn name(self) -> &'static str {
        match self {
            Speaks::Http => "http",
            Speaks::Spamd => "spamd",
        }
    }
}

/// A bound listener.
enum Bound {
    Tcp(TcpListener),
    Unix(UnixListener),
}

/// Runs `daemon` until it is told to stop; `ready` is called with each listener's
/// protocol and address once all are bound (a port of 0 given as the one the system
/// chose), before any connection is served.
pub fn run(daemon: Daemon, ready: impl FnOnce(&[String])) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Data(format!("the daemon's runtime: {e}")))?;
    rt.block_on(serve(Arc::new(daemon), ready))
}

async fn serve(daemon: Arc<Daemon>, ready: impl FnOnce(&[String])) -> Result<()> {
    let mut bound = Vec::new();
    let mut said = Vec::new();
    let config = &daemon.config;
    let all = config
        .http
        .iter()
        .map(|l| (Speaks::Http, l))
        .chain(config.spamd.iter().map(|l| (Speaks::Spamd, l)));
    let handed = super::activation::listeners()?;
    if handed.is_empty() {
        for (speaks, listen) in all {
            let (b, at) = bind(listen).await?;
            said.push(format!("{} {at}", speaks.name()));
            bound.push((speaks, b));
        }
    }
    // Started by systemd's socket activation: its sockets, named `spamd` or else HTTP.
    for (name, handed) in handed {
        let speaks = if name == "spamd" {
            Speaks::Spamd
        } else {
            Speaks::Http
        };
        let b = match handed {
            super::activation::Handed::Tcp(l) => Bound::Tcp(l),
            super::activation::Handed::Unix(l) => Bound::Unix(l),
        };
        said.push(format!("{} (a socket from systemd, {name})", speaks.name()));
        bound.push((speaks, b));
    }
    // SIGHUP is taken before the daemon says it is ready, so none ends it.
    let hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
    // So are SIGTERM and SIGINT: one sent as soon as the daemon has said it listens (a
    // service manager stopping it at once) stops it cleanly rather than ending it.
    let stop_signals = StopSignals::take();
    ready(&said);
    let max = daemon.config.max_connections;
    if let Some(short) = open_files_for(max) {
        daemon.note(&format!(
            "--max-connections {max}: this process may open {short} files at most \
             (ulimit -n); connections past that wait in the listen queue"
        ));
    }
    let slots = Arc::new(Semaphore::new(max));
    let (stop, stopped) = watch::channel(false);
    let mut tasks = Vec::new();
    for (speaks, listener) in bound {
        let (d, s, st) = (Arc::clone(&daemon), Arc::clone(&slots), stopped.clone());
        tasks.push(tokio::spawn(accept(d, s, st, speaks, listener)));
    }
    let watching = tokio::spawn(watch(Arc::clone(&daemon), stopped.clone(), hangup));
    let d = Arc::clone(&daemon);
    let sample = move || {
        d.rates
            .sample(super::rates::minute_now(), super::rates::totals(&d.metrics))
    };
    let sampling = tokio::spawn(super::rates::every_minute(sample, stopped.clone()));
    stop_signals.wait().await;
    daemon.note("stopping: no new connection is taken; finishing those in flight");
    let _ = stop.send(true);
    for t in tasks {
        let _ = t.await;
    }
    let _ = watching.await;
    let _ = sampling.await;
    let all = u32::try_from(max).unwrap_or(u32::MAX);
    let finished = tokio::time::timeout(daemon.config.stop_timeout, slots.acquire_many(all)).await;
    if finished.is_err() {
        daemon.note("stopped with requests still in flight past the stop deadline");
    }
    for listen in daemon.config.http.iter().chain(&daemon.config.spamd) {
        if let Listen::Unix(path) = listen {
            let _ = std::fs::remove_file(path);
        }
    }
    Ok(())
}

/// Raises this process's limit of open files towards `connections` and the files the
/// daemon holds beside them, as far as the hard limit allows (many systems start daemons
/// at a soft limit of 1,024); the limit when it stays short.
fn open_files_for(connections: usize) -> Option<u64> {
    /// Descriptors besides connections: listeners, the store, the log, the runtime's.
    const BESIDES: u64 = 64;
    let want = connections as u64 + BESIDES;
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct given, nothing else.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return None;
        }
        if lim.rlim_cur >= want {
            return None;
        }
        let raised = libc::rlimit {
            rlim_cur: want.min(lim.rlim_max),
            rlim_max: lim.rlim_max,
        };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
            lim = raised;
        }
    }
    (lim.rlim_cur < want).then_some(lim.rlim_cur.saturating_sub(BESIDES))
}

/// Binds `listen`; the address it is bound at, as said to the caller.
async fn bind(listen: &Listen) -> Result<(Bound, String)> {
    match listen {
        Listen::Tcp(addr) => {
            let l = TcpListener::bind(addr.as_str())
                .await
                .map_err(|e| Error::Data(format!("cannot listen on {addr}: {e}")))?;
            let at = l
                .local_addr()
                .map(|a| a.to_string())
                .unwrap_or_else(|_| addr.clone());
            Ok((Bound::Tcp(l), at))
        }
        Listen::Unix(path) => {
            // A socket left by a daemon that died is replaced; anything else is not.
            if let Ok(m) = std::fs::symlink_metadata(path) {
                use std::os::unix::fs::FileTypeExt;
                if !m.file_type().is_socket() {
                    return Err(Error::Data(format!(
                        "cannot listen on unix:{}: something that is not a socket is there",
                        path.display()
                    )));
                }
                let _ = std::fs::remove_file(path);
            }
            let l = UnixListener::bind(path).map_err(|e| {
                Error::Data(format!("cannot listen on unix:{}: {e}", path.display()))
            })?;
            Ok((Bound::Unix(l), format!("unix:{}", path.display())))
        }
    }
}

/// Takes connections on `listener` until told to stop.
async fn accept(
    daemon: Arc<Daemon>,
    slots: Arc<Semaphore>,
    mut stopped: watch::Receiver<bool>,
    speaks: Speaks,
    listener: Bound,
) {
    loop {
        let accepted = tokio::select! {
            _ = stopped.changed() => return,
            a = next(&listener) => a,
        };
        match accepted {
            Ok((stream, trusted)) => {
                let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
                    busy(stream, speaks, &daemon).await;
                    continue;
                };
                let (d, st) = (Arc::clone(&daemon), stopped.clone());
                tokio::spawn(async move {
                    d.metrics.connection(true);
                    match stream {
                        Stream::Tcp(s) => connection(&d, s, trusted, speaks, st).await,
                        Stream::Unix(s) => connection(&d, s, trusted, speaks, st).await,
                    }
                    d.metrics.connection(false);
                    drop(slot);
                });
            }
            Err(e) => {
                // Out of descriptors, say: wait a moment rather than spin.
                daemon.note(&format!("accepting a connection: {e}"));
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }
}

/// An accepted connection.
enum Stream {
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
}

/// The next connection, and whether its client is on this host (loopback or a Unix
/// socket).
async fn next(listener: &Bound) -> std::io::Result<(Stream, bool)> {
    match listener {
        Bound::Tcp(l) => {
            let (s, peer) = l.accept().await?;
            let _ = s.set_nodelay(true);
            // (127.0.0.1 reaching an IPv6 listener comes as ::ffff:127.0.0.1.)
            Ok((Stream::Tcp(s), peer.ip().to_canonical().is_loopback()))
        }
        Bound::Unix(l) => {
            let (s, _) = l.accept().await?;
            Ok((Stream::Unix(s), true))
        }
    }
}

/// Serves one connection in its protocol.
async fn connection<S>(
    daemon: &Arc<Daemon>,
    stream: S,
    trusted: bool,
    speaks: Speaks,
    mut stopped: watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    match speaks {
        Speaks::Spamd => spamd_conn::serve(Arc::clone(daemon), stream, trusted).await,
        Speaks::Http => {
            let stop = async move {
                let _ = stopped.changed().await;
            };
            http::serve_connection(Arc::clone(daemon), stream, stop).await
        }
    }
}

/// Turns a connection away: the daemon is at its connection bound.
async fn busy(stream: Stream, speaks: Speaks, daemon: &Daemon) {
    let answer = match speaks {
        Speaks::Spamd => spamd::error((1, 5), spamd::Status::TempFail),
        Speaks::Http => {
            b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                .to_vec()
        }
    };
    /// Writes `answer` on `s` and closes it.
    async fn say<S: AsyncWrite + Unpin>(mut s: S, answer: &[u8]) {
        let _ = s.write_all(answer).await;
        let _ = s.shutdown().await;
    }
    let write = async {
        match stream {
            Stream::Tcp(s) => say(s, &answer).await,
            Stream::Unix(s) => say(s, &answer).await,
        }
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), write).await;
    let protocol = match speaks {
        Speaks::Spamd => super::metrics::Protocol::Spamd,
        Speaks::Http => super::metrics::Protocol::Api,
    };
    daemon.metrics.request(
        protocol,
        super::metrics::Outcome::Busy,
        std::time::Duration::ZERO,
    );
    daemon.note("busy: a connection over --max-connections was turned away");
}

/// How often the model's path is looked at for a replacement.
const LOOK_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// What tells one file at the model's path from another: a model file replaced (as
/// `train -o` and `convert` write it, by a rename) or rewritten changes it; a store's
/// commits do not (its folder stays), a store replaced by another folder does.
fn signature(path: &std::path::Path) -> Option<(u64, u64, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some(if m.is_dir() {
        (m.dev(), m.ino(), 0, 0, 0)
    } else {
        (m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec())
    })
}

/// Opens the model again on SIGHUP, or when the file at its path is replaced; a
/// replacement that cannot be opened is said once and the model in service goes on.
async fn watch(
    daemon: Arc<Daemon>,
    mut stopped: watch::Receiver<bool>,
    mut hangup: Option<tokio::signal::unix::Signal>,
) {
    let path = daemon.classifier().path().to_path_buf();
    let mut seen = signature(&path);
    loop {
        let asked = tokio::select! {
            _ = stopped.changed() => return,
            _ = async {
                match hangup.as_mut() {
                    Some(h) => { h.recv().await; }
                    None => std::future::pending::<()>().await,
                }
            } => true,
            _ = tokio::time::sleep(LOOK_EVERY) => false,
        };
        let now = signature(&path);
        if !asked && (now == seen || now.is_none()) {
            continue;
        }
        seen = now;
        let d = Arc::clone(&daemon);
        match tokio::task::spawn_blocking(move || d.reload()).await {
            Ok(Ok(g)) => daemon.note(&format!("{} opened again: generation {g}", path.display())),
            Ok(Err(e)) => daemon.note(&format!("kept the model in service: {e}")),
            Err(_) => daemon.note("kept the model in service: its reopening failed"),
        }
    }
}

/// SIGTERM and SIGINT, taken from the process's default action (ending it) as soon as this
/// is made.
struct StopSignals(Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>);

impl StopSignals {
    fn take() -> StopSignals {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(term), Ok(int)) => StopSignals(Some((term, int))),
            _ => StopSignals(None),
        }
    }

    /// Until SIGTERM or SIGINT comes (for ever where they could not be taken: the
    /// process runs until it is killed).
    async fn wait(self) {
        let Some((mut term, mut int)) = self.0 else {
            std::future::pending::<()>().await;
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    }
}
