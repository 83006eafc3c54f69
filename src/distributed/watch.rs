//! Noticing that a peer process has gone. timely's network threads panic when a
//! connection breaks ("timely communication error: …"); a worker waiting on that peer
//! would otherwise wait forever. A panic hook, installed once, records such a panic
//! (naming the peer from the thread's name, `timely:recv-3`) instead of printing it, as it
//! does the panics that a lost peer sets off in a worker afterwards; the all-reduce's
//! wait loop checks the record and ends the run with an error. Other panics are printed
//! as before. A peer that stops without closing its connection (`kill -STOP`, a hung
//! host) breaks nothing; the wait loop also gives up after the peer timeout.

use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

static LOST: Mutex<Option<String>> = Mutex::new(None);
/// How long one exchange may wait for the other processes (`None`: threads only).
static PEER_TIMEOUT: Mutex<Option<Duration>> = Mutex::new(None);
static HOOK: Once = Once::new();

/// Installs the hook (once per process), forgets any earlier loss, and sets how long
/// an exchange may wait for the other processes.
pub(crate) fn start(peer_timeout: Option<Duration>) {
    *PEER_TIMEOUT.lock().unwrap_or_else(|p| p.into_inner()) = peer_timeout;
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("");
            let thread = std::thread::current();
            let name = thread.name().unwrap_or("");
            let network = ["timely:send", "timely:recv", "timely:comms"]
                .iter()
                .any(|t| name.starts_with(t));
            let mut lost = LOST.lock().unwrap_or_else(|p| p.into_inner());
            if network || message.starts_with("timely communication error") {
                let peer = name
                    .strip_prefix("timely:recv-")
                    .or_else(|| name.strip_prefix("timely:send-"))
                    .map(|i| format!("process {i}"))
                    .unwrap_or_else(|| "another process".into());
                lost.get_or_insert_with(|| format!("the connection to {peer} broke ({message})"));
            } else if lost.is_none() {
                // Not the network's, and not what a lost peer set off: print it.
                drop(lost);
                previous(info)
            }
        }));
    });
    *LOST.lock().unwrap_or_else(|p| p.into_inner()) = None;
}

/// What broke, once a connection has.
pub(crate) fn lost() -> Option<String> {
    LOST.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Why the run ends when an exchange that began at `since` has waited too long for the
/// other processes (one stopped, or hangs, without closing its connection).
pub(crate) fn waited_too_long(since: Instant) -> Option<String> {
    let limit = (*PEER_TIMEOUT.lock().unwrap_or_else(|p| p.into_inner()))?;
    (since.elapsed() > limit).then(|| {
        format!(
            "no word from the other processes for {} s (--peer-timeout): one of them stopped \
             answering",
            limit.as_secs()
        )
    })
}
