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

use super::key::{ClusterKey, random};
use crate::{Error, Result};
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::mpsc;
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
/// The longest one join may take.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// Joins under way at once; more connections are dropped until one ends.
const MAX_HANDSHAKES: usize = 16;

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
/// is authenticated both ways with `key` before it is kept; a connection that fails
/// (a stranger, garbage, silence, another key) is dropped with a line on standard error
/// and the wait for the real peer goes on.
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
    let mut streams: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    for (i, addr) in addresses.iter().enumerate().take(me) {
        let s = dial(addr, me, i, deadline, timeout)?;
        let s = introduce(s, me, n, i, deadline, key).map_err(|why| lost_at(me, i, addr, &why))?;
        streams[i] = Some(s);
    }
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::Unsupported(format!("process {me}: {e}")))?;
    type Joined = std::result::Result<(usize, TcpStream), String>;
    let (done, results) = mpsc::channel::<(std::net::SocketAddr, Joined)>();
    let mut in_flight = 0;
    while streams.iter().skip(me + 1).any(Option::is_none) {
        while let Ok((from, outcome)) = results.try_recv() {
            in_flight -= 1;
            match outcome {
                Ok((i, s)) if streams[i].is_none() => streams[i] = Some(s),
                Ok((i, _)) => {
                    return Err(Error::Unsupported(format!(
                        "process {me}: two connections claim to be process {i}: is it \
                         started twice?"
                    )));
                }
                Err(why) => note(&format!(
                    "process {me}: refused a connection from {from}: {why}"
                )),
            }
        }
        if !streams.iter().skip(me + 1).any(Option::is_none) {
            break;
        }
        match listener.accept() {
            Ok((s, from)) if in_flight < MAX_HANDSHAKES => {
                in_flight += 1;
                let (done, key) = (done.clone(), key.clone());
                std::thread::spawn(move || {
                    let _ = done.send((from, greeted(s, me, n, deadline, &key)));
                });
            }
            Ok((_, from)) => note(&format!(
                "process {me}: refused a connection from {from}: {MAX_HANDSHAKES} joins are \
                 already under way"
            )),
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
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
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(Error::Unsupported(format!("process {me}: accepting: {e}"))),
        }
    }
    for s in streams.iter().flatten() {
        s.set_nodelay(true)
            .and_then(|()| s.set_nonblocking(false))
            .map_err(|e| Error::Unsupported(format!("process {me}: {e}")))?;
    }
    Ok(streams)
}

/// A line on standard error (a refused connection); never fails the run.
fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "rosenblatt: {line}");
}

/// Connects to process `to` at `addr`, retrying until `deadline` while it is not up yet.
fn dial(
    addr: &str,
    me: usize,
    to: usize,
    deadline: Instant,
    timeout: Duration,
) -> Result<TcpStream> {
    loop {
        match TcpStream::connect(addr) {
            Ok(s) => return Ok(s),
            Err(e) if Instant::now() >= deadline => {
                return Err(Error::Unsupported(format!(
                    "process {me} could not reach process {to} at {addr} within {} s: {e}",
                    timeout.as_secs()
                )));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

fn lost_at(me: usize, to: usize, addr: &str, why: &str) -> Error {
    Error::Unsupported(format!(
        "process {me} could not join process {to} at {addr}: {why}"
    ))
}

/// How long one join may take at most (a silent connection is dropped after it).
fn join_time(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .clamp(Duration::from_millis(100), HANDSHAKE)
}

/// The connecting side of a join: sends the greeting with a fresh nonce, checks that the
/// peer proves the key over it, proves the key over the peer's nonce, and waits for the
/// peer's word that it is in.
fn introduce(
    mut s: TcpStream,
    me: usize,
    n: usize,
    to: usize,
    deadline: Instant,
    key: &ClusterKey,
) -> std::result::Result<TcpStream, String> {
    s.set_read_timeout(Some(join_time(deadline)))
        .map_err(|e| e.to_string())?;
    connect_join(&mut s, me, n, to, key)?;
    s.set_read_timeout(None).map_err(|e| e.to_string())?;
    Ok(s)
}

/// The connecting side's exchange over any stream (see [`introduce`]).
fn connect_join(
    s: &mut (impl Read + Write),
    me: usize,
    n: usize,
    to: usize,
    key: &ClusterKey,
) -> std::result::Result<(), String> {
    let mut hello = [0u8; GREETING];
    hello[..8].copy_from_slice(MAGIC);
    hello[8..12].copy_from_slice(&PROTOCOL.to_le_bytes());
    hello[12..20].copy_from_slice(&(n as u64).to_le_bytes());
    hello[20..28].copy_from_slice(&(me as u64).to_le_bytes());
    random(&mut hello[28..]).map_err(|e| e.to_string())?;
    s.write_all(&hello).map_err(|e| e.to_string())?;
    let mut reply = [0u8; NONCE + TAG];
    s.read_exact(&mut reply).map_err(|e| {
        format!("no answer to the greeting ({e}): is it a rosenblatt process of this version?")
    })?;
    let (nonce, tag) = reply.split_at(NONCE);
    if !key.verify(&[ACCEPTOR, &hello, nonce, &(to as u64).to_le_bytes()], tag) {
        return Err(
            "it did not prove the cluster key: do both processes hold the same \
                    --cluster-key?"
                .into(),
        );
    }
    s.write_all(&key.mac(&[CONNECTOR, &hello, nonce]))
        .map_err(|e| e.to_string())?;
    let mut ok = [0u8; 1];
    s.read_exact(&mut ok)
        .map_err(|e| format!("it did not take this process in ({e})"))?;
    Ok(())
}

/// The accepting side of a join over `s`: reads and checks a greeting, proves the key
/// over its nonce with a fresh one of its own, and checks the peer's proof over that.
/// Returns the sender's index and the stream.
fn greeted(
    mut s: TcpStream,
    me: usize,
    n: usize,
    deadline: Instant,
    key: &ClusterKey,
) -> std::result::Result<(usize, TcpStream), String> {
    s.set_nonblocking(false)
        .and_then(|()| s.set_read_timeout(Some(join_time(deadline))))
        .map_err(|e| e.to_string())?;
    let from = accept_join(&mut s, me, n, key)?;
    s.set_read_timeout(None).map_err(|e| e.to_string())?;
    Ok((from, s))
}

/// The accepting side's exchange over any stream: what [`greeted`] does once the socket
/// is set up (and what the fuzz target feeds arbitrary bytes).
fn accept_join(
    s: &mut (impl Read + Write),
    me: usize,
    n: usize,
    key: &ClusterKey,
) -> std::result::Result<usize, String> {
    let mut g = [0u8; GREETING];
    s.read_exact(&mut g)
        .map_err(|e| format!("no greeting from the connecting program ({e}): is it rosenblatt?"))?;
    let from = check_greeting(&g, me, n)?;
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
    let accepted = accept_join(&mut acceptor, 0, 2, &key);
    let mut connector = Scripted(std::io::Cursor::new(input));
    let connected = connect_join(&mut connector, 1, 2, 0, &key);
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
