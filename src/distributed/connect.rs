//! Joining the processes of a cluster: the hostfile, and the TCP connections between
//! every pair of processes, made here rather than by timely so that a peer that never
//! comes ends the wait with a sentence after a bounded time, a program that is not one of
//! ours is refused, and nothing is printed on standard output.
//!
//! Process i listens on its own address; it connects to every process before it and
//! accepts every process after it. The one who connects sends a greeting: a magic word,
//! the protocol version, the cluster size, its own index and a fresh nonce, which the
//! acceptor checks. Then each side proves that it holds the cluster key
//! ([`super::ClusterKey`]): the acceptor sends its own nonce and the HMAC of the greeting,
//! its nonce and its index; the connector checks it and sends the HMAC of the greeting and
//! the acceptor's nonce; the acceptor checks that and says it is in. A stranger learns
//! nothing but a nonce and a tag over its own bytes; a recorded join cannot be replayed,
//! as each side's nonce is fresh. The traffic after the join is not encrypted: a cluster
//! runs on a network its owner trusts.
//!
//! Strangers cannot hold the join off (issue 36: 16 silent connections once made the real
//! peer's join fail at once):
//! - the acceptor gives a connection `STRANGER` (2 s) from the moment it takes it in to
//!   greet and prove the key, however its bytes trickle in, then drops it;
//! - joins under way are bounded (`MAX_HANDSHAKES` beyond the peers still expected);
//!   when every slot is taken, a newcomer is not refused: the oldest connection that has
//!   not greeted is dropped for it (failing that, the oldest that has greeted without yet
//!   proving the key); a real peer greets at once, so silent connections displace each
//!   other before they displace it;
//! - the connecting side tries again, after a pause that grows from 50 ms to 1 s, when its
//!   connection is refused, reset or closed, or goes unanswered, before the join is done,
//!   until `--connect-timeout`; only a peer that fails to prove the key ends it at once;
//! - failed joins are logged at most `NOTES_PER_SECOND` lines a second, with a line
//!   counting the ones not shown, so a flood of connections cannot flood standard error.
//!
//! Tested with real sockets: 32 silent connections held open while two processes join,
//! and a connect-and-close flood while they train (`tests/it/cluster.rs`).

use super::key::{ClusterKey, random};
use crate::{Error, Result};
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// The greeting's first bytes: "rosenblatt cluster".
const MAGIC: &[u8; 8] = b"RSBLCLST";
/// Bumped when what travels between processes changes (2: the authenticated join).
const PROTOCOL: u32 = 2;
/// Bytes of a nonce.
const NONCE: usize = 32;
/// Bytes of an HMAC-SHA-256 tag.
const TAG: usize = 32;
/// Magic, protocol, cluster size, sender's index, sender's nonce.
const GREETING: usize = 8 + 4 + 8 + 8 + NONCE;
/// What each side's proof is about, so that one side's proof cannot be sent back as the
/// other's.
const ACCEPTOR: &[u8] = b"rosenblatt join: acceptor";
const CONNECTOR: &[u8] = b"rosenblatt join: connector";
/// The longest the connecting side waits for the answers of one try at a join (an
/// acceptor still busy joining the processes before it answers late); then it tries again.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// The longest the accepting side gives a connection, from the moment it takes it in, to
/// send its greeting and its proof of the key: a real peer needs one round trip.
const STRANGER: Duration = Duration::from_secs(2);
/// Joins under way at once beyond the peers still expected; when all slots are taken,
/// the oldest connection that has not greeted is dropped to make room.
const MAX_HANDSHAKES: usize = 16;
/// The connecting side's first pause between tries, doubled after each up to
/// [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(50);
/// The connecting side's longest pause between tries.
const LONGEST_PAUSE: Duration = Duration::from_secs(1);
/// Lines about failed joins written per second; the rest are counted, and the count
/// written once the second is over.
const NOTES_PER_SECOND: u32 = 5;

/// The largest hostfile read (a million bytes: tens of thousands of lines).
const MAX_HOSTFILE: u64 = 1 << 20;

/// Reads the `processes` addresses (`host:port`, one per line; blank lines and `#`
/// comments skipped) from a hostfile; line i is process i. Refused with the line: a line
/// that is not UTF-8 or not `host:port`, port 0, an address listed twice; and a file over
/// a million bytes (`/dev/zero`).
pub fn read_hostfile(path: &Path, processes: usize) -> Result<Vec<String>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_HOSTFILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_HOSTFILE {
        return Err(Error::parse(
            path,
            None,
            format!("longer than {MAX_HOSTFILE} bytes: not a hostfile"),
        ));
    }
    let mut out: Vec<String> = Vec::new();
    let mut lines_of: Vec<usize> = Vec::new();
    for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = std::str::from_utf8(raw).map_err(|_| {
            Error::parse(
                path,
                Some(n + 1),
                "not UTF-8 text: write host:port, one process per line",
            )
        })?;
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let port = line.rsplit_once(':').and_then(|(h, p)| {
            (!h.is_empty()).then_some(())?;
            p.parse::<u16>().ok()
        });
        match port {
            None => {
                return Err(Error::parse(
                    path,
                    Some(n + 1),
                    format!("{line:?} is not an address: write host:port, one process per line"),
                ));
            }
            Some(0) => {
                return Err(Error::parse(
                    path,
                    Some(n + 1),
                    format!("{line:?}: port 0 is not a port the other processes can reach"),
                ));
            }
            Some(_) => {}
        }
        if let Some(first) = out.iter().position(|a| a == line) {
            return Err(Error::parse(
                path,
                Some(n + 1),
                format!(
                    "{line:?} is listed twice (line {} too): each process needs its own address",
                    lines_of[first]
                ),
            ));
        }
        out.push(line.to_string());
        lines_of.push(n + 1);
    }
    if out.len() < processes {
        return Err(Error::parse(
            path,
            None,
            format!(
                "{} addresses for {processes} processes: the hostfile needs one line per process",
                out.len()
            ),
        ));
    }
    out.truncate(processes);
    Ok(out)
}

/// Connects process `me` to every other process in `addresses` within `timeout`: one
/// stream per process, `None` at `me`, as timely's networking expects. Every connection
/// is authenticated both ways with `key` before it is kept. A connection taken in that
/// fails (a stranger, garbage, silence past `STRANGER`, another key) is dropped and the
/// wait for the real peer goes on; a join this process makes that fails short of the key
/// (refused, reset, closed, unanswered) is tried again until the timeout. Failed joins are
/// logged on standard error at most `NOTES_PER_SECOND` lines a second.
pub fn connect(
    addresses: &[String],
    me: usize,
    timeout: Duration,
    key: &ClusterKey,
) -> Result<Vec<Option<TcpStream>>> {
    let deadline = Instant::now().checked_add(timeout).ok_or_else(|| {
        Error::Unsupported(format!(
            "a connect timeout of {} s is too long",
            timeout.as_secs()
        ))
    })?;
    let n = addresses.len();
    let listener = TcpListener::bind(&addresses[me]).map_err(|e| {
        Error::Unsupported(format!(
            "process {me} cannot listen on {} (its line in the hostfile): {e}",
            addresses[me]
        ))
    })?;
    let mut notes = Notes::new(me, std::io::stderr());
    let mut streams: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    for (i, addr) in addresses.iter().enumerate().take(me) {
        streams[i] = Some(join(addr, me, n, i, deadline, timeout, key, &mut notes)?);
    }
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::Unsupported(format!("process {me}: {e}")))?;
    let slots = MAX_HANDSHAKES + (n - me - 1);
    let (done, results) = mpsc::channel::<(u64, Joined)>();
    let mut pending: Vec<Pending> = Vec::new();
    let mut next = 0u64;
    loop {
        notes.tick(Instant::now());
        while let Ok((id, outcome)) = results.try_recv() {
            // A connection dropped to make room was noted then.
            let Some(at) = pending.iter().position(|p| p.id == id) else {
                continue;
            };
            let p = pending.remove(at);
            match outcome {
                Ok((i, s)) if streams[i].is_none() => streams[i] = Some(s),
                Ok((i, _)) => {
                    return Err(Error::Unsupported(format!(
                        "process {me}: two connections claim to be process {i}: is it \
                         started twice?"
                    )));
                }
                Err(why) => notes.note(&format!("refused a connection from {}: {why}", p.from)),
            }
        }
        if !streams.iter().skip(me + 1).any(Option::is_none) {
            break;
        }
        if Instant::now() >= deadline {
            let missing: Vec<String> = (me + 1..n)
                .filter(|&i| streams[i].is_none())
                .map(|i| format!("{i} ({})", addresses[i]))
                .collect();
            return Err(Error::Unsupported(format!(
                "process {me}: no word from process {} within {} s: are they running, \
                 with the same hostfile and cluster key?",
                missing.join(", "),
                timeout.as_secs()
            )));
        }
        match listener.accept() {
            Ok((s, from)) => {
                if pending.len() >= slots && !make_room(&mut pending, &mut notes) {
                    notes.note(&format!(
                        "refused a connection from {from}: {slots} joins are already under way"
                    ));
                    continue;
                }
                let state = match s.try_clone() {
                    Ok(handle) => Arc::new(State {
                        phase: Mutex::new(Phase::Silent),
                        socket: handle,
                    }),
                    Err(e) => {
                        notes.note(&format!("refused a connection from {from}: {e}"));
                        continue;
                    }
                };
                let id = next;
                next += 1;
                pending.push(Pending {
                    id,
                    from,
                    since: Instant::now(),
                    state: state.clone(),
                });
                let (done, key) = (done.clone(), key.clone());
                std::thread::spawn(move || {
                    let _ = done.send((id, greeted(s, me, n, &key, &state)));
                });
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            // A connection reset before it was taken in, or no file descriptor left while
            // strangers hold many: the wait goes on (and ends at the deadline).
            Err(e) => {
                notes.note(&format!("accepting a connection: {e}"));
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    for s in streams.iter().flatten() {
        s.set_nodelay(true)
            .and_then(|()| s.set_nonblocking(false))
            .map_err(|e| Error::Unsupported(format!("process {me}: {e}")))?;
    }
    Ok(streams)
}

/// What a join taken in ends with: the peer's index and its stream, or why it failed.
type Joined = std::result::Result<(usize, TcpStream), String>;

/// Where a join taken in stands; the accept loop drops only a connection not yet
/// [`Phase::Admitted`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Taken in; no valid greeting yet.
    Silent,
    /// A valid greeting (whose bytes anyone can forge); no proof of the key yet.
    Greeted,
    /// The peer proved the key; its stream is being handed over.
    Admitted,
    /// Dropped by the accept loop to make room.
    Dropped,
}

/// A join's phase, shared by the thread running it and the accept loop, and a handle on
/// its socket to shut it down with.
struct State {
    phase: Mutex<Phase>,
    socket: TcpStream,
}

impl State {
    /// Moves the join on to `to`; refused if the accept loop has dropped it.
    fn advance(&self, to: Phase) -> std::result::Result<(), String> {
        let mut phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        if *phase == Phase::Dropped {
            return Err("dropped to make room for newer connections".into());
        }
        *phase = to;
        Ok(())
    }

    /// Drops the connection (its thread's reads end at once), unless its peer has proved
    /// the key; whether it was dropped.
    fn drop_connection(&self) -> bool {
        let mut phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(*phase, Phase::Admitted | Phase::Dropped) {
            return false;
        }
        *phase = Phase::Dropped;
        let _ = self.socket.shutdown(Shutdown::Both);
        true
    }

    fn phase(&self) -> Phase {
        *self.phase.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A join under way on the accepting side.
struct Pending {
    id: u64,
    from: SocketAddr,
    since: Instant,
    state: Arc<State>,
}

/// Frees a slot in `pending` (in the order taken in): drops the oldest connection that
/// has not greeted, or failing that the oldest that has not proved the key. False when
/// every join under way is past its proof (they leave the slots in a moment).
fn make_room<W: Write>(pending: &mut Vec<Pending>, notes: &mut Notes<W>) -> bool {
    for wanted in [Phase::Silent, Phase::Greeted] {
        let mut at = 0;
        while at < pending.len() {
            let p = &pending[at];
            if p.state.phase() == wanted && p.state.drop_connection() {
                let what = match wanted {
                    Phase::Silent => "had not greeted",
                    _ => "had not proved the cluster key",
                };
                notes.note(&format!(
                    "dropped the connection from {}, which {what} after {} ms, to make room \
                     for a newer one",
                    p.from,
                    p.since.elapsed().as_millis()
                ));
                pending.remove(at);
                return true;
            }
            at += 1;
        }
    }
    false
}

/// Lines about failed joins on a stream (standard error), at most `NOTES_PER_SECOND` a
/// second: the rest are counted, and the count written once the second is over (or when
/// the join ends). Never fails the run.
struct Notes<W: Write> {
    me: usize,
    out: W,
    /// When the current second began.
    since: Instant,
    /// Lines written in it.
    shown: u32,
    /// Lines held back since the last count was written.
    held: u64,
}

impl<W: Write> Notes<W> {
    fn new(me: usize, out: W) -> Self {
        Notes {
            me,
            out,
            since: Instant::now(),
            shown: 0,
            held: 0,
        }
    }

    /// A line about a failed join: written, or counted when this second's are spent.
    fn note(&mut self, line: &str) {
        self.note_at(line, Instant::now());
    }

    /// [`Notes::note`] at the time `now`.
    fn note_at(&mut self, line: &str, now: Instant) {
        self.tick(now);
        if self.shown < NOTES_PER_SECOND {
            self.shown += 1;
            let _ = writeln!(self.out, "rosenblatt: process {}: {line}", self.me);
        } else {
            self.held += 1;
        }
    }

    /// At `now`: once the current second is over, writes the count of the lines held
    /// back in it and begins another.
    fn tick(&mut self, now: Instant) {
        if now.saturating_duration_since(self.since) >= Duration::from_secs(1) {
            self.count_held();
            self.since = now;
            self.shown = 0;
        }
    }

    /// Writes how many lines were held back, if any.
    fn count_held(&mut self) {
        if self.held > 0 {
            let _ = writeln!(
                self.out,
                "rosenblatt: process {}: {} more lines about failed joins not shown",
                self.me, self.held
            );
            self.held = 0;
        }
    }
}

impl<W: Write> Drop for Notes<W> {
    fn drop(&mut self) {
        self.count_held();
    }
}

/// Why one try at a join failed.
#[derive(Debug)]
enum Failed {
    /// Short of the key (refused, reset, closed, silence): trying again may work.
    Again(String),
    /// The peer answered without proving the cluster key: trying again will not help.
    Final(String),
}

impl Failed {
    fn why(self) -> String {
        match self {
            Failed::Again(why) | Failed::Final(why) => why,
        }
    }
}

/// Joins process `to` at `addr` from process `me` of `n`: connects and introduces itself,
/// trying again after a pause (growing from `FIRST_PAUSE` to `LONGEST_PAUSE`) while the
/// process is not up yet or the join fails short of the key, until `deadline`.
#[allow(clippy::too_many_arguments)] // who joins whom, when to stop, and what to log
fn join<W: Write>(
    addr: &str,
    me: usize,
    n: usize,
    to: usize,
    deadline: Instant,
    timeout: Duration,
    key: &ClusterKey,
    notes: &mut Notes<W>,
) -> Result<TcpStream> {
    let mut pause = FIRST_PAUSE;
    loop {
        let failed = match dial(addr, deadline) {
            Ok(s) => match introduce(s, me, n, to, deadline, key) {
                Ok(s) => return Ok(s),
                Err(Failed::Final(why)) => return Err(lost_at(me, to, addr, &why)),
                Err(Failed::Again(why)) => {
                    notes.note(&format!(
                        "the join with process {to} at {addr} failed ({why}); trying again"
                    ));
                    format!(
                        "process {me} could not join process {to} at {addr} within {} s: {why}",
                        timeout.as_secs()
                    )
                }
            },
            Err(e) => format!(
                "process {me} could not reach process {to} at {addr} within {} s: {e}",
                timeout.as_secs()
            ),
        };
        let now = Instant::now();
        if now >= deadline {
            return Err(Error::Unsupported(failed));
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// One TCP connection to `addr`, given up at `deadline` (at least 100 ms) on a host that
/// does not answer.
fn dial(addr: &str, deadline: Instant) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::new(ErrorKind::NotFound, "the name has no address");
    for a in addr.to_socket_addrs()? {
        match TcpStream::connect_timeout(&a, join_time(deadline)) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn lost_at(me: usize, to: usize, addr: &str, why: &str) -> Error {
    Error::Unsupported(format!(
        "process {me} could not join process {to} at {addr}: {why}"
    ))
}

/// How long one try at a join may wait for answers (at least 100 ms, at most
/// `HANDSHAKE`, and not past the connect deadline).
fn join_time(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .clamp(Duration::from_millis(100), HANDSHAKE)
}

/// A stream whose reads fail with `TimedOut` at `until`, however slowly the bytes
/// trickle in (a read timeout alone bounds each read, not a message).
struct Timed<'a> {
    s: &'a mut TcpStream,
    until: Instant,
}

impl Read for Timed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let out_of_time = || std::io::Error::new(ErrorKind::TimedOut, "out of time");
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(out_of_time());
        }
        self.s.set_read_timeout(Some(left))?;
        self.s.read(buf).map_err(|e| match e.kind() {
            ErrorKind::WouldBlock | ErrorKind::TimedOut => out_of_time(),
            _ => e,
        })
    }
}

impl Write for Timed<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.s.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.s.flush()
    }
}

/// The connecting side of a join: sends the greeting with a fresh nonce, checks that the
/// peer proves the key over it, proves the key over the peer's nonce, and waits for the
/// peer's word that it is in; all within [`join_time`].
fn introduce(
    mut s: TcpStream,
    me: usize,
    n: usize,
    to: usize,
    deadline: Instant,
    key: &ClusterKey,
) -> std::result::Result<TcpStream, Failed> {
    let time = join_time(deadline);
    let again = |e: std::io::Error| Failed::Again(e.to_string());
    s.set_write_timeout(Some(time)).map_err(again)?;
    let until = Instant::now() + time;
    connect_join(&mut Timed { s: &mut s, until }, me, n, to, key)?;
    s.set_read_timeout(None)
        .and_then(|()| s.set_write_timeout(None))
        .map_err(again)?;
    Ok(s)
}

/// The connecting side's exchange over any stream (see [`introduce`]).
fn connect_join(
    s: &mut (impl Read + Write),
    me: usize,
    n: usize,
    to: usize,
    key: &ClusterKey,
) -> std::result::Result<(), Failed> {
    let mut hello = [0u8; GREETING];
    hello[..8].copy_from_slice(MAGIC);
    hello[8..12].copy_from_slice(&PROTOCOL.to_le_bytes());
    hello[12..20].copy_from_slice(&(n as u64).to_le_bytes());
    hello[20..28].copy_from_slice(&(me as u64).to_le_bytes());
    random(&mut hello[28..]).map_err(|e| Failed::Final(e.to_string()))?;
    s.write_all(&hello)
        .map_err(|e| Failed::Again(e.to_string()))?;
    let mut reply = [0u8; NONCE + TAG];
    s.read_exact(&mut reply).map_err(|e| {
        Failed::Again(format!(
            "no answer to the greeting ({e}): is it a rosenblatt process of this version?"
        ))
    })?;
    let (nonce, tag) = reply.split_at(NONCE);
    if !key.verify(&[ACCEPTOR, &hello, nonce, &(to as u64).to_le_bytes()], tag) {
        return Err(Failed::Final(
            "it did not prove the cluster key: do both processes hold the same \
                    --cluster-key?"
                .into(),
        ));
    }
    s.write_all(&key.mac(&[CONNECTOR, &hello, nonce]))
        .map_err(|e| Failed::Again(e.to_string()))?;
    let mut ok = [0u8; 1];
    s.read_exact(&mut ok)
        .map_err(|e| Failed::Again(format!("it did not take this process in ({e})")))?;
    Ok(())
}

/// The accepting side of a join over `s`, in its own thread: reads and checks a greeting,
/// proves the key over its nonce with a fresh one of its own, and checks the peer's proof
/// over that, all within `STRANGER` of now, moving `state` on as it goes (and failing if
/// the accept loop has dropped the connection). Returns the sender's index and the stream.
fn greeted(mut s: TcpStream, me: usize, n: usize, key: &ClusterKey, state: &State) -> Joined {
    let until = Instant::now() + STRANGER;
    s.set_nonblocking(false)
        .and_then(|()| s.set_write_timeout(Some(STRANGER)))
        .map_err(|e| e.to_string())?;
    let from = accept_join(&mut Timed { s: &mut s, until }, me, n, key, &mut |to| {
        state.advance(to)
    })?;
    s.set_read_timeout(None)
        .and_then(|()| s.set_write_timeout(None))
        .map_err(|e| e.to_string())?;
    Ok((from, s))
}

/// The accepting side's exchange over any stream: what [`greeted`] does once the socket
/// is set up (and what the fuzz target feeds arbitrary bytes). `advance` is told of each
/// step ([`Phase::Greeted`], then [`Phase::Admitted`] before the peer is told it is in)
/// and may end the join.
fn accept_join(
    s: &mut (impl Read + Write),
    me: usize,
    n: usize,
    key: &ClusterKey,
    advance: &mut impl FnMut(Phase) -> std::result::Result<(), String>,
) -> std::result::Result<usize, String> {
    let mut g = [0u8; GREETING];
    s.read_exact(&mut g)
        .map_err(|e| format!("no greeting from the connecting program ({e}): is it rosenblatt?"))?;
    let from = check_greeting(&g, me, n)?;
    advance(Phase::Greeted)?;
    let mut nonce = [0u8; NONCE];
    random(&mut nonce).map_err(|e| e.to_string())?;
    let tag = key.mac(&[ACCEPTOR, &g, &nonce, &(me as u64).to_le_bytes()]);
    s.write_all(&nonce)
        .and_then(|()| s.write_all(&tag))
        .map_err(|e| e.to_string())?;
    let mut proof = [0u8; TAG];
    s.read_exact(&mut proof)
        .map_err(|e| format!("no proof of the cluster key ({e})"))?;
    if !key.verify(&[CONNECTOR, &g, &nonce], &proof) {
        return Err("it does not hold the cluster key".into());
    }
    advance(Phase::Admitted)?;
    s.write_all(&[1]).map_err(|e| e.to_string())?;
    Ok(from)
}

/// Checks a greeting received by process `me` of `n`; returns the sender's index.
fn check_greeting(g: &[u8; GREETING], me: usize, n: usize) -> std::result::Result<usize, String> {
    let word = |at: usize| u64::from_le_bytes(g[at..at + 8].try_into().expect("8 bytes"));
    if &g[..8] != MAGIC {
        return Err("the connecting program is not a rosenblatt process".into());
    }
    let protocol = u32::from_le_bytes(g[8..12].try_into().expect("4 bytes"));
    if protocol != PROTOCOL {
        return Err(format!(
            "a rosenblatt process of another version (cluster protocol {protocol}, this one {PROTOCOL})"
        ));
    }
    let (size, from) = (word(12), word(20));
    if size != n as u64 {
        return Err(format!(
            "the peer was started with --processes {size}, this process with {n}"
        ));
    }
    if from <= me as u64 || from >= n as u64 {
        return Err(format!(
            "the peer says it is process {from}; process {me} expects processes {}..{}",
            me + 1,
            n - 1
        ));
    }
    Ok(from as usize)
}

/// Both sides of a join fed `input` as everything the peer sends (the rest of what they
/// write is dropped), for fuzzing: process 0 of 2 accepting, then process 1 of 2
/// connecting, under a fixed key. Returns what each side concluded; neither may panic,
/// and a join without the key must fail.
#[doc(hidden)]
pub fn join_with_bytes(
    input: &[u8],
) -> (
    std::result::Result<usize, String>,
    std::result::Result<(), String>,
) {
    let key = ClusterKey::from_bytes([9; super::key::KEY_BYTES]);
    let mut acceptor = Scripted(std::io::Cursor::new(input));
    let accepted = accept_join(&mut acceptor, 0, 2, &key, &mut |_| Ok(()));
    let mut connector = Scripted(std::io::Cursor::new(input));
    let connected = connect_join(&mut connector, 1, 2, 0, &key).map_err(Failed::why);
    (accepted, connected)
}

/// A stream whose reads come from a script and whose writes go nowhere.
struct Scripted<'a>(std::io::Cursor<&'a [u8]>);

impl Read for Scripted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for Scripted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free_port() -> u16 {
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    #[test]
    fn hostfile_lines_are_addresses() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("hosts");
        std::fs::write(
            &p,
            "# cluster\nh0:2101\n\n10.0.0.2:2102  # second\nh2:2103\n",
        )
        .unwrap();
        assert_eq!(read_hostfile(&p, 2).unwrap(), ["h0:2101", "10.0.0.2:2102"]);
        let e = read_hostfile(&p, 4).unwrap_err().to_string();
        assert!(e.contains("3 addresses for 4 processes"), "{e}");
        std::fs::write(&p, "h0:2101\nh1\n").unwrap();
        let e = read_hostfile(&p, 2).unwrap_err().to_string();
        assert!(e.contains("hosts:2:") && e.contains("host:port"), "{e}");
        std::fs::write(&p, "h0:2101\n# two\nh0:2101\n").unwrap();
        let e = read_hostfile(&p, 2).unwrap_err().to_string();
        assert!(
            e.contains("hosts:3:") && e.contains("listed twice (line 1 too)"),
            "{e}"
        );
        std::fs::write(&p, "h0:2101\nh1:0\n").unwrap();
        let e = read_hostfile(&p, 2).unwrap_err().to_string();
        assert!(e.contains("hosts:2:") && e.contains("port 0"), "{e}");
        std::fs::write(&p, b"h0:2101\nh\xff:2102\n").unwrap();
        let e = read_hostfile(&p, 2).unwrap_err().to_string();
        assert!(e.contains("hosts:2:") && e.contains("not UTF-8"), "{e}");
        #[cfg(unix)]
        {
            let e = read_hostfile(Path::new("/dev/zero"), 2)
                .unwrap_err()
                .to_string();
            assert!(e.contains("longer than 1048576 bytes"), "{e}");
        }
    }

    fn addresses(n: usize) -> Vec<String> {
        (0..n)
            .map(|_| format!("127.0.0.1:{}", free_port()))
            .collect()
    }

    /// A connection to `addr`, once something listens there.
    fn reach(addr: &str) -> TcpStream {
        loop {
            if let Ok(s) = TcpStream::connect(addr) {
                return s;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn three_processes_join_and_see_each_other() {
        let addrs = addresses(3);
        let key = ClusterKey::generate().unwrap();
        let handles: Vec<_> = (0..3)
            .map(|me| {
                let (a, k) = (addrs.clone(), key.clone());
                std::thread::spawn(move || connect(&a, me, Duration::from_secs(20), &k))
            })
            .collect();
        for (me, h) in handles.into_iter().enumerate() {
            let streams = h.join().unwrap().unwrap();
            let present: Vec<bool> = streams.iter().map(Option::is_some).collect();
            let expect: Vec<bool> = (0..3).map(|i| i != me).collect();
            assert_eq!(present, expect);
        }
    }

    #[test]
    fn a_missing_peer_ends_the_wait_with_a_sentence() {
        let addrs = addresses(2);
        let key = ClusterKey::generate().unwrap();
        let t = Instant::now();
        let e = connect(&addrs, 0, Duration::from_secs(1), &key)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no word from process 1"), "{e}");
        let e = connect(&addrs, 1, Duration::from_secs(1), &key)
            .unwrap_err()
            .to_string();
        assert!(e.contains("could not reach process 0"), "{e}");
        let e = connect(&addrs, 0, Duration::MAX, &key)
            .unwrap_err()
            .to_string();
        assert!(e.contains("too long"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    /// The review's reproducers: a forged greeting (the right magic, version, size and
    /// index, without the key), garbage, and a connection that says nothing, all while
    /// process 0 waits for process 1. Each is dropped, the forger gets no data beyond the
    /// acceptor's nonce and tag, and the real process 1 then joins.
    #[test]
    fn strangers_are_dropped_and_the_real_peer_still_joins() {
        let addrs = addresses(2);
        let key = ClusterKey::generate().unwrap();
        let (a, k) = (addrs.clone(), key.clone());
        let p0 = std::thread::spawn(move || connect(&a, 0, Duration::from_secs(30), &k));
        let mut forger = reach(&addrs[0]);
        let mut hello = Vec::new();
        hello.extend_from_slice(MAGIC);
        hello.extend_from_slice(&PROTOCOL.to_le_bytes());
        hello.extend_from_slice(&2u64.to_le_bytes());
        hello.extend_from_slice(&1u64.to_le_bytes());
        hello.extend_from_slice(&[7; NONCE]);
        forger.write_all(&hello).unwrap();
        let mut reply = [0u8; NONCE + TAG];
        forger.read_exact(&mut reply).unwrap();
        forger.write_all(&[0; TAG]).unwrap();
        let mut rest = Vec::new();
        forger
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let _ = forger.read_to_end(&mut rest);
        assert!(rest.is_empty(), "the forger was sent {} bytes", rest.len());
        let mut garbage = reach(&addrs[0]);
        garbage
            .write_all(
                b"GET / HTTP/1.0\r\n\r\n----------------------------------------------------",
            )
            .unwrap();
        let _silent = reach(&addrs[0]);
        let (a, k) = (addrs.clone(), key.clone());
        let p1 = std::thread::spawn(move || connect(&a, 1, Duration::from_secs(30), &k));
        let s0 = p0.join().unwrap().unwrap();
        let s1 = p1.join().unwrap().unwrap();
        assert!(s0[1].is_some() && s1[0].is_some());
    }

    /// The tester's reproducer: 32 connections to process 0's port that say nothing,
    /// held open while process 1 joins. The strangers must neither refuse the real peer
    /// nor keep it waiting for their deadlines to pass one by one.
    #[test]
    fn silent_connections_cannot_hold_off_the_real_peer() {
        let addrs = addresses(2);
        let key = ClusterKey::generate().unwrap();
        let (a, k) = (addrs.clone(), key.clone());
        let p0 = std::thread::spawn(move || connect(&a, 0, Duration::from_secs(20), &k));
        let silent: Vec<TcpStream> = (0..32).map(|_| reach(&addrs[0])).collect();
        // Let process 0 take them all in before the real peer comes.
        std::thread::sleep(Duration::from_millis(300));
        let t = Instant::now();
        let s1 = connect(&addrs, 1, Duration::from_secs(20), &key).unwrap();
        let s0 = p0.join().unwrap().unwrap();
        assert!(s0[1].is_some() && s1[0].is_some());
        assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
        drop(silent);
    }

    /// A stranger that trickles a byte every 300 ms (never a whole greeting in time) is
    /// cut off `STRANGER` after it was taken in, not after each byte's read timeout.
    #[test]
    fn a_trickling_stranger_is_dropped_after_its_deadline() {
        let addrs = addresses(2);
        let key = ClusterKey::generate().unwrap();
        let (a, k) = (addrs.clone(), key.clone());
        let p0 = std::thread::spawn(move || connect(&a, 0, Duration::from_secs(20), &k));
        let mut slow = reach(&addrs[0]);
        let t = Instant::now();
        let cut = loop {
            // A write fails, or a read sees the end, once process 0 has dropped it.
            let mut buf = [0u8; 1];
            slow.set_read_timeout(Some(Duration::from_millis(300)))
                .unwrap();
            match slow.read(&mut buf) {
                Ok(0) => break t.elapsed(),
                Err(e) if e.kind() != ErrorKind::WouldBlock && e.kind() != ErrorKind::TimedOut => {
                    break t.elapsed();
                }
                _ => {}
            }
            if slow.write_all(b"R").is_err() {
                break t.elapsed();
            }
            assert!(t.elapsed() < Duration::from_secs(8), "still connected");
        };
        assert!(
            cut >= STRANGER - Duration::from_millis(400) && cut < STRANGER * 2,
            "{cut:?}"
        );
        let s1 = connect(&addrs, 1, Duration::from_secs(20), &key).unwrap();
        assert!(p0.join().unwrap().unwrap()[1].is_some() && s1[0].is_some());
    }

    /// Process 1's first try is taken in and closed before the join (what a full acceptor
    /// or a restarted process 0 does); it tries again and joins the real process 0.
    #[test]
    fn a_join_closed_early_is_tried_again() {
        let addrs = addresses(2);
        let key = ClusterKey::generate().unwrap();
        let fake = TcpListener::bind(&addrs[0]).unwrap();
        let (a, k) = (addrs.clone(), key.clone());
        let p1 = std::thread::spawn(move || connect(&a, 1, Duration::from_secs(20), &k));
        let (first, _) = fake.accept().unwrap();
        drop(first);
        drop(fake);
        let s0 = connect(&addrs, 0, Duration::from_secs(20), &key).unwrap();
        let s1 = p1.join().unwrap().unwrap();
        assert!(s0[1].is_some() && s1[0].is_some());
    }

    /// At most `NOTES_PER_SECOND` lines a second; the rest are counted in one line when
    /// the second is over, and at the end.
    #[test]
    fn failed_joins_are_logged_a_few_lines_a_second() {
        let mut out = Vec::new();
        {
            let mut notes = Notes::new(3, &mut out);
            let t = Instant::now();
            for i in 0..100 {
                notes.note_at(&format!("failed {i}"), t);
            }
            notes.tick(t + Duration::from_millis(500));
            for i in 0..7 {
                notes.note_at(&format!("again {i}"), t + Duration::from_millis(1500));
            }
        }
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        let mut want: Vec<String> = (0..5)
            .map(|i| format!("rosenblatt: process 3: failed {i}"))
            .collect();
        want.push("rosenblatt: process 3: 95 more lines about failed joins not shown".into());
        want.extend((0..5).map(|i| format!("rosenblatt: process 3: again {i}")));
        want.push("rosenblatt: process 3: 2 more lines about failed joins not shown".into());
        assert_eq!(lines, want);
    }

    #[test]
    fn a_peer_with_another_key_is_not_joined() {
        let addrs = addresses(2);
        let (a, k) = (addrs.clone(), ClusterKey::generate().unwrap());
        let p0 = std::thread::spawn(move || connect(&a, 0, Duration::from_secs(3), &k));
        let other = ClusterKey::generate().unwrap();
        let e = connect(&addrs, 1, Duration::from_secs(3), &other)
            .unwrap_err()
            .to_string();
        assert!(e.contains("did not prove the cluster key"), "{e}");
        let e = p0.join().unwrap().unwrap_err().to_string();
        assert!(e.contains("no word from process 1"), "{e}");
    }
}
