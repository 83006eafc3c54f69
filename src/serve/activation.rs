//! systemd's socket activation: listening sockets handed to the daemon as descriptors
//! 3, 4, … (`LISTEN_FDS`, for the process named by `LISTEN_PID`), each named by
//! `LISTEN_FDNAMES` (`FileDescriptorName=` in the socket unit): `spamd` for spamd's
//! protocol, anything else for HTTP. The descriptors' family says TCP or Unix.

use crate::{Error, Result};
use std::os::fd::{FromRawFd, RawFd};

/// A listening socket handed over.
pub(super) enum Handed {
    /// A TCP socket.
    Tcp(tokio::net::TcpListener),
    /// A Unix socket.
    Unix(tokio::net::UnixListener),
}

/// The first descriptor systemd hands over.
const FIRST: RawFd = 3;

/// The sockets handed to this process, with their names; none when it was not started
/// by socket activation. The variables are removed, so no child takes them for its own.
pub(super) fn listeners() -> Result<Vec<(String, Handed)>> {
    let for_me = std::env::var("LISTEN_PID")
        .ok()
        .and_then(|p| p.parse::<u32>().ok())
        .is_some_and(|p| p == std::process::id());
    let count = std::env::var("LISTEN_FDS")
        .ok()
        .and_then(|n| n.parse::<RawFd>().ok());
    let names = std::env::var("LISTEN_FDNAMES").unwrap_or_default();
    let (true, Some(n)) = (for_me, count) else {
        return Ok(Vec::new());
    };
    // SAFETY: the environment is changed before any other thread of this process reads
    // it (the daemon starts its threads after binding its listeners).
    unsafe {
        std::env::remove_var("LISTEN_PID");
        std::env::remove_var("LISTEN_FDS");
        std::env::remove_var("LISTEN_FDNAMES");
    }
    let names: Vec<&str> = names.split(':').collect();
    (0..n)
        .map(|i| {
            let fd = FIRST + i;
            let name = names.get(i as usize).copied().unwrap_or("http").to_string();
            Ok((name, handed(fd)?))
        })
        .collect()
}

/// The listening socket `fd`, as TCP or Unix by its address family.
fn handed(fd: RawFd) -> Result<Handed> {
    let bad = |e: std::io::Error| Error::Data(format!("socket {fd} from systemd: {e}"));
    let mut addr: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: `addr` is as large as `len` says.
    let r = unsafe { libc::getsockname(fd, (&raw mut addr).cast(), &mut len) };
    if r != 0 {
        return Err(bad(std::io::Error::last_os_error()));
    }
    match i32::from(addr.ss_family) {
        libc::AF_UNIX => {
            // SAFETY: systemd handed this descriptor to this process alone, to own.
            let l = unsafe { std::os::unix::net::UnixListener::from_raw_fd(fd) };
            l.set_nonblocking(true).map_err(bad)?;
            tokio::net::UnixListener::from_std(l)
                .map(Handed::Unix)
                .map_err(bad)
        }
        libc::AF_INET | libc::AF_INET6 => {
            // SAFETY: as above.
            let l = unsafe { std::net::TcpListener::from_raw_fd(fd) };
            l.set_nonblocking(true).map_err(bad)?;
            tokio::net::TcpListener::from_std(l)
                .map(Handed::Tcp)
                .map_err(bad)
        }
        other => Err(Error::Data(format!(
            "socket {fd} from systemd: address family {other}, neither TCP nor Unix"
        ))),
    }
}
