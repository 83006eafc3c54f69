//! Joining the processes of a cluster: the hostfile, and the TCP connections between
//! every pair of processes, made here rather than by timely so that a peer that never
//! comes ends the wait with a sentence after a bounded time, a program that is not one of
//! ours is refused, and nothing is printed on standard output.
//!
//! Process i listens on its own address; it connects to every process before it and
//! accepts every process after it. The one who connects first sends a greeting: a magic
//! word, the protocol version, the cluster size and its own index, which the acceptor
//! checks.

use crate::{Error, Result};
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

/// The greeting's first bytes: "rosenblatt cluster".
const MAGIC: &[u8; 8] = b"RSBLCLST";
/// Bumped when what travels between processes changes.
const PROTOCOL: u32 = 1;
/// Magic, protocol, cluster size, sender's index.
const GREETING: usize = 8 + 4 + 8 + 8;

/// Reads the `processes` addresses (`host:port`, one per line; blank lines and `#`
/// comments skipped) from a hostfile; line i is process i.
pub fn read_hostfile(path: &Path, processes: usize) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line
            .rsplit_once(':')
            .is_none_or(|(h, p)| h.is_empty() || p.parse::<u16>().is_err())
        {
            return Err(Error::parse(
                path,
                Some(n + 1),
                format!("{line:?} is not an address: write host:port, one process per line"),
            ));
        }
        out.push(line.to_string());
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
/// stream per process, `None` at `me`, as timely's networking expects.
pub fn connect(
    addresses: &[String],
    me: usize,
    timeout: Duration,
) -> Result<Vec<Option<TcpStream>>> {
    let deadline = Instant::now() + timeout;
    let n = addresses.len();
    let listener = TcpListener::bind(&addresses[me]).map_err(|e| {
        Error::Unsupported(format!(
            "process {me} cannot listen on {} (its line in the hostfile): {e}",
            addresses[me]
        ))
    })?;
    let mut streams: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    for (i, addr) in addresses.iter().enumerate().take(me) {
        let mut s = dial(addr, me, i, deadline, timeout)?;
        let mut greeting = Vec::with_capacity(GREETING);
        greeting.extend_from_slice(MAGIC);
        greeting.extend_from_slice(&PROTOCOL.to_le_bytes());
        greeting.extend_from_slice(&(n as u64).to_le_bytes());
        greeting.extend_from_slice(&(me as u64).to_le_bytes());
        s.write_all(&greeting)
            .map_err(|e| lost_at(me, i, addr, &e.to_string()))?;
        streams[i] = Some(s);
    }
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::Unsupported(format!("process {me}: {e}")))?;
    while streams.iter().skip(me + 1).any(Option::is_none) {
        match listener.accept() {
            Ok((s, from)) => {
                let i = greeted(s.try_clone().ok(), me, n, deadline)
                    .map_err(|why| Error::Unsupported(format!("process {me}: {from}: {why}")))?;
                if streams[i].is_some() {
                    return Err(Error::Unsupported(format!(
                        "process {me}: two connections claim to be process {i}: is it started twice?"
                    )));
                }
                streams[i] = Some(s);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing: Vec<String> = (me + 1..n)
                        .filter(|&i| streams[i].is_none())
                        .map(|i| format!("{i} ({})", addresses[i]))
                        .collect();
                    return Err(Error::Unsupported(format!(
                        "process {me}: no word from process {} within {} s: are they running, \
                         with the same hostfile?",
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
        "process {me} lost process {to} at {addr} while joining: {why}"
    ))
}

/// Reads and checks a greeting; returns the sender's index.
fn greeted(
    s: Option<TcpStream>,
    me: usize,
    n: usize,
    deadline: Instant,
) -> std::result::Result<usize, String> {
    let mut s = s.ok_or("the connection cannot be read")?;
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    s.set_nonblocking(false)
        .and_then(|()| s.set_read_timeout(Some(left)))
        .map_err(|e| e.to_string())?;
    let mut g = [0u8; GREETING];
    s.read_exact(&mut g)
        .map_err(|e| format!("no greeting from the connecting program ({e}): is it rosenblatt?"))?;
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
    let (size, from) = (word(12) as usize, word(20) as usize);
    if size != n {
        return Err(format!(
            "the peer was started with --processes {size}, this process with {n}"
        ));
    }
    if from <= me || from >= n {
        return Err(format!(
            "the peer says it is process {from}; process {me} expects processes {}..{}",
            me + 1,
            n - 1
        ));
    }
    s.set_read_timeout(None).map_err(|e| e.to_string())?;
    Ok(from)
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
    }

    #[test]
    fn three_processes_join_and_see_each_other() {
        let addrs: Vec<String> = (0..3)
            .map(|_| format!("127.0.0.1:{}", free_port()))
            .collect();
        let handles: Vec<_> = (0..3)
            .map(|me| {
                let a = addrs.clone();
                std::thread::spawn(move || connect(&a, me, Duration::from_secs(20)))
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
        let addrs: Vec<String> = (0..2)
            .map(|_| format!("127.0.0.1:{}", free_port()))
            .collect();
        let t = Instant::now();
        let e = connect(&addrs, 0, Duration::from_secs(1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no word from process 1"), "{e}");
        let e = connect(&addrs, 1, Duration::from_secs(1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("could not reach process 0"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_foreign_program_is_refused() {
        let addrs: Vec<String> = (0..2)
            .map(|_| format!("127.0.0.1:{}", free_port()))
            .collect();
        let a = addrs.clone();
        let h = std::thread::spawn(move || connect(&a, 0, Duration::from_secs(20)));
        let mut s = loop {
            if let Ok(s) = TcpStream::connect(&addrs[0]) {
                break s;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        s.write_all(b"GET / HTTP/1.0\r\n\r\n--------------")
            .unwrap();
        let e = h.join().unwrap().unwrap_err().to_string();
        assert!(e.contains("not a rosenblatt process"), "{e}");
    }
}
