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
//! Strangers cannot hold the join off:
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
//!
//! The hostfile is read in `hostfile`; the accepting side's bounded join slots are in
//! `slots`, the rate-limited log of failed joins in `notes`.

mod hostfile;
mod notes;
mod slots;

pub use hostfile::read_hostfile;

use super::key::{ClusterKey, random};
use crate::{Error, Result};
use notes::Notes;
use slots::{MAX_HANDSHAKES, Pending, Phase, State, make_room};
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
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
/// The connecting side's first pause between tries, doubled after each up to
/// [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(50);
/// The connecting side's longest pause between tries.
const LONGEST_PAUSE: Duration = Duration::from_secs(1);

/// Connects process `me` to every other process in `addresses` within `timeout`: one
/// stream per process, `None` at `me`, as timely's networking expects. Every connection
/// is authenticated both ways with `key` before it is kept. A connection taken in that
/// fails (a stranger, garbage, silence past `STRANGER`, another key) is dropped and the
/// wait for the real peer goes on; a join this process makes that fails short of the key
/// (refused, reset, closed, unanswered) is tried again until the timeout. Failed joins are
/// logged on standard error at most `NOTES_PER_SECOND` lines a second.
pub(crate) fn connect(
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
mod tests;
