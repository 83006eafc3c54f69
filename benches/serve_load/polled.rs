//! The load generator of rspamd's protocol: kept-alive HTTP/1.1 connections driven by one
//! thread with `poll(2)`, as `wrk` drives them, so that the generator takes a core's
//! fraction rather than a thread per connection waking in turn beside the daemon's.
//!
//! Each connection has one request in flight: the next message is sent as soon as the
//! previous answer is in. Every answer is checked (HTTP 200, a whole body).

use super::{Row, die};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

/// One kept-alive connection and what it has read of its answer so far.
struct Conn {
    stream: TcpStream,
    read: Vec<u8>,
    sent: Instant,
}

impl Conn {
    fn open(addr: &str) -> Conn {
        let stream = TcpStream::connect(addr).unwrap_or_else(|e| die(&format!("{addr}: {e}")));
        let _ = stream.set_nodelay(true);
        Conn {
            stream,
            read: Vec::with_capacity(4096),
            sent: Instant::now(),
        }
    }

    fn send(&mut self, request: &[u8]) {
        self.sent = Instant::now();
        self.stream
            .write_all(request)
            .unwrap_or_else(|e| die(&format!("sending a request: {e}")));
    }
}

/// A whole answer at the start of `buf`: its length, whether the server will close the
/// connection, and whether its action is other than `no action`. `None` while incomplete;
/// the run ends on any status but 200.
fn answer(buf: &[u8], addr: &str) -> Option<(usize, bool, bool)> {
    let head_end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let mut length = None;
    let mut close = false;
    for line in head.lines().skip(1) {
        if let Some(v) = line.strip_prefix("content-length:") {
            length = v.trim().parse::<usize>().ok();
        }
        if line.starts_with("transfer-encoding:") {
            die(&format!(
                "{addr} answered in chunks, which this generator does not read"
            ));
        }
        if line.starts_with("connection:") && line.contains("close") {
            close = true;
        }
    }
    let length = length.unwrap_or_else(|| die(&format!("{addr} answered without a length")));
    let end = head_end + length;
    if buf.len() < end {
        return None;
    }
    let body = String::from_utf8_lossy(&buf[head_end..end]);
    if !head.starts_with("http/1.1 200") {
        die(&format!(
            "{addr} answered {:?} {body:?}",
            head.lines().next()
        ));
    }
    let spam =
        !(body.contains("\"action\":\"no action\"") || body.contains("\"action\": \"no action\""));
    Some((end, close, spam))
}

/// `POST /checkv2` of every message in turn on `connections` connections to `addr` for
/// `seconds`; answers still in flight at the end are not counted.
pub fn saturate(
    name: &str,
    addr: &str,
    connections: usize,
    seconds: f64,
    messages: &[Vec<u8>],
) -> Row {
    let requests: Vec<Vec<u8>> = messages
        .iter()
        .map(|raw| {
            let mut r = format!(
                "POST /checkv2 HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\n\r\n",
                raw.len()
            )
            .into_bytes();
            r.extend_from_slice(raw);
            r
        })
        .collect();
    let mut conns: Vec<Conn> = (0..connections).map(|_| Conn::open(addr)).collect();
    let mut next = 0usize;
    let start = Instant::now();
    let until = start + Duration::from_secs_f64(seconds);
    for c in &mut conns {
        c.send(&requests[next % requests.len()]);
        next += 1;
    }
    let mut row = Row::named(name);
    let mut chunk = vec![0u8; 1 << 16];
    // One entry a connection, made once; a connection opened again puts its own in.
    let mut fds: Vec<libc::pollfd> = conns
        .iter()
        .map(|c| libc::pollfd {
            fd: c.stream.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    while Instant::now() < until {
        // SAFETY: `fds` is a live array of `fds.len()` pollfd structs.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 1000) };
        if ready < 0 {
            die(&format!("poll: {}", std::io::Error::last_os_error()));
        }
        for (c, fd) in conns.iter_mut().zip(&mut fds) {
            if fd.revents == 0 {
                continue;
            }
            let n = c
                .stream
                .read(&mut chunk)
                .unwrap_or_else(|e| die(&format!("{addr}: {e}")));
            if n == 0 {
                die(&format!("{addr} closed a connection with an answer due"));
            }
            c.read.extend_from_slice(&chunk[..n]);
            let Some((used, close, spam)) = answer(&c.read, addr) else {
                continue;
            };
            row.latencies.push(c.sent.elapsed());
            row.spam += usize::from(spam);
            row.asked += 1;
            c.read.drain(..used);
            if close {
                *c = Conn::open(addr);
                fd.fd = c.stream.as_raw_fd();
            }
            c.send(&requests[next % requests.len()]);
            next += 1;
        }
    }
    row.per_second = row.asked as f64 / start.elapsed().as_secs_f64();
    row
}
