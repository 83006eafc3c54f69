//! The accepting side's join slots: each join taken in and where it stands, bounded in
//! number, so that silent strangers are dropped to make room rather than the real peer
//! refused.

use super::notes::Notes;
use std::io::Write;
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Joins under way at once beyond the peers still expected; when all slots are taken,
/// the oldest connection that has not greeted is dropped to make room.
pub(super) const MAX_HANDSHAKES: usize = 16;

/// Where a join taken in stands; the accept loop drops only a connection not yet
/// [`Phase::Admitted`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
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
pub(super) struct State {
    pub(super) phase: Mutex<Phase>,
    pub(super) socket: TcpStream,
}

impl State {
    /// Moves the join on to `to`; refused if the accept loop has dropped it.
    pub(super) fn advance(&self, to: Phase) -> std::result::Result<(), String> {
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
pub(super) struct Pending {
    pub(super) id: u64,
    pub(super) from: SocketAddr,
    pub(super) since: Instant,
    pub(super) state: Arc<State>,
}

/// Frees a slot in `pending` (in the order taken in): drops the oldest connection that
/// has not greeted, or failing that the oldest that has not proved the key. False when
/// every join under way is past its proof (they leave the slots in a moment).
pub(super) fn make_room<W: Write>(pending: &mut Vec<Pending>, notes: &mut Notes<W>) -> bool {
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
