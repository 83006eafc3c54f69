//! The daemon's recent verdicts, for its page: a bounded ring in memory only (nothing is
//! written to disk), each verdict with its score, P(spam), time and, while the ring's byte
//! budget allows, the message itself, so the page can take it apart or learn from it.
//! `--history 0` keeps nothing.
//!
//! Recording costs a verdict a push under a short lock and, where the request's own
//! buffer is not handed in (an HTTP body is), one copy of its message made before the lock
//! is taken; what the push evicts is dropped after the lock is let go.

use super::verdict::Verdict;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// The most bytes of messages the ring keeps: past it, the oldest entries keep their
/// verdict and lose their message.
pub const HISTORY_BYTES: usize = 32 << 20;

/// A message larger than this is listed without being kept: one large message would
/// otherwise take the place of many.
pub const HISTORY_MESSAGE_BYTES: usize = 1 << 20;

/// One verdict the daemon gave.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its number: the verdicts since the daemon started, counting from 1.
    pub id: u64,
    /// When it was given, in seconds since 1970.
    pub at: f64,
    /// Whether the filter called the message spam.
    pub spam: bool,
    /// The filter's score (w·x + b).
    pub score: f32,
    /// P(spam), where the filter has a probability.
    pub probability: Option<f32>,
    /// The score clients were shown, and the one from which mail is spam.
    pub shown: (f64, f64),
    /// The user whose filter answered (`--stores`), if one was named.
    pub user: Option<String>,
    /// The message's size in bytes.
    pub bytes: usize,
    /// The message, while the ring's byte budget keeps it.
    pub message: Option<bytes::Bytes>,
}

/// The ring of recent verdicts: see the module docs.
#[derive(Debug)]
pub struct History {
    capacity: usize,
    budget: usize,
    ring: Mutex<Ring>,
}

/// The ring's state, under its lock.
#[derive(Debug, Default)]
struct Ring {
    entries: VecDeque<Entry>,
    next: u64,
    /// Bytes of the messages kept.
    kept: usize,
    /// How many of the oldest entries surely hold no message (where the next message to
    /// let go is looked for).
    stripped: usize,
}

impl History {
    /// A ring of at most `capacity` verdicts (0: none kept) whose messages take at most
    /// `budget` bytes.
    pub fn new(capacity: usize, budget: usize) -> History {
        History {
            capacity,
            budget,
            ring: Mutex::new(Ring {
                next: 1,
                ..Ring::default()
            }),
        }
    }

    /// How many verdicts it keeps at most (0: the history is off).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Records the verdict `v` on `raw` for `user`, evicting the oldest past the bounds.
    pub fn record(&self, raw: &[u8], kept: Option<&bytes::Bytes>, v: &Verdict, user: Option<&str>) {
        if self.capacity == 0 {
            return;
        }
        let keep = raw.len() <= HISTORY_MESSAGE_BYTES.min(self.budget);
        let entry = Entry {
            id: 0,
            at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            spam: v.spam,
            score: v.score,
            probability: v.probability,
            shown: (v.shown, v.required),
            user: user.map(str::to_string),
            bytes: raw.len(),
            message: keep.then(|| {
                kept.cloned()
                    .unwrap_or_else(|| bytes::Bytes::copy_from_slice(raw))
            }),
        };
        let evicted = self.push(entry);
        drop(evicted);
    }

    /// Puts `entry` in the ring under the lock; the entry it evicts and the messages it
    /// lets go are returned, to be dropped after the lock is let go.
    fn push(&self, mut entry: Entry) -> (Option<Entry>, Vec<bytes::Bytes>) {
        let size = |m: &Option<bytes::Bytes>| m.as_ref().map_or(0, |m| m.len());
        let mut r = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        entry.id = r.next;
        r.next += 1;
        r.kept += size(&entry.message);
        r.entries.push_back(entry);
        let evicted = if r.entries.len() > self.capacity {
            let old = r.entries.pop_front();
            r.kept -= old.as_ref().map_or(0, |e| size(&e.message));
            r.stripped = r.stripped.saturating_sub(1);
            old
        } else {
            None
        };
        // Past the byte budget, the oldest messages go (their verdicts stay listed).
        let mut dropped = Vec::new();
        let mut i = r.stripped;
        while r.kept > self.budget && i < r.entries.len() {
            if let Some(m) = r.entries[i].message.take() {
                r.kept -= m.len();
                dropped.push(m);
            }
            i += 1;
        }
        r.stripped = i;
        (evicted, dropped)
    }

    /// The verdicts kept, newest first.
    pub fn recent(&self) -> Vec<Entry> {
        let r = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        r.entries.iter().rev().cloned().collect()
    }

    /// Verdict `id`, while the ring keeps it.
    pub fn get(&self, id: u64) -> Option<Entry> {
        let r = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        let first = r.entries.front()?.id;
        let i = usize::try_from(id.checked_sub(first)?).ok()?;
        r.entries.get(i).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(spam: bool, score: f32) -> Verdict {
        Verdict {
            spam,
            score,
            probability: Some(0.5),
            shown: 5.0,
            required: 9.0,
            symbols: Vec::new(),
        }
    }

    #[test]
    fn the_ring_keeps_the_newest_up_to_its_capacity() {
        let h = History::new(3, HISTORY_BYTES);
        for i in 0..5 {
            h.record(
                format!("message {i}").as_bytes(),
                None,
                &verdict(i % 2 == 0, i as f32),
                None,
            );
        }
        let ids: Vec<u64> = h.recent().iter().map(|e| e.id).collect();
        assert_eq!(ids, [5, 4, 3]);
        assert!(h.get(2).is_none());
        let e = h.get(4).unwrap();
        assert_eq!(e.score, 3.0);
        assert_eq!(e.message.as_deref(), Some(b"message 3".as_slice()));
        assert!(h.get(6).is_none());
    }

    #[test]
    fn a_request_buffer_handed_in_is_kept_not_copied() {
        let h = History::new(2, HISTORY_BYTES);
        let body = bytes::Bytes::from_static(b"a message body");
        h.record(&body, Some(&body), &verdict(true, 1.0), None);
        let kept = h.get(1).unwrap().message.unwrap();
        assert_eq!((kept.as_ptr(), kept.len()), (body.as_ptr(), body.len()));
        // Without it, the message is copied.
        h.record(b"another", None, &verdict(false, 0.0), None);
        assert_eq!(
            h.get(2).unwrap().message.as_deref(),
            Some(b"another".as_slice())
        );
    }

    #[test]
    fn a_history_of_zero_keeps_nothing() {
        let h = History::new(0, HISTORY_BYTES);
        h.record(b"message", None, &verdict(true, 1.0), Some("alice"));
        assert!(h.recent().is_empty());
        assert!(h.get(1).is_none());
    }

    #[test]
    fn past_the_byte_budget_the_oldest_messages_go_and_their_verdicts_stay() {
        let h = History::new(10, 25);
        for i in 0..4 {
            h.record(
                format!("ten bytes{i}").as_bytes(),
                None,
                &verdict(false, 0.0),
                None,
            );
        }
        let kept: Vec<(u64, bool)> = h
            .recent()
            .iter()
            .map(|e| (e.id, e.message.is_some()))
            .collect();
        assert_eq!(kept, [(4, true), (3, true), (2, false), (1, false)]);
        // A message over the budget is listed, never kept.
        h.record(&[b'x'; 26], None, &verdict(true, 1.0), None);
        let newest = h.get(5).unwrap();
        assert_eq!((newest.bytes, newest.message.is_none()), (26, true));
    }

    #[test]
    fn a_full_ring_over_its_budget_keeps_the_newest_messages() {
        let h = History::new(5, 25);
        for i in 0..20 {
            h.record(
                format!("ten bytes{}", i % 10).as_bytes(),
                None,
                &verdict(false, 0.0),
                None,
            );
            let recent = h.recent();
            let kept: usize = recent
                .iter()
                .filter_map(|e| e.message.as_ref())
                .map(|m| m.len())
                .sum();
            assert!(kept <= 25);
            assert!(recent[0].message.is_some());
        }
        let kept: Vec<u64> = h
            .recent()
            .iter()
            .filter(|e| e.message.is_some())
            .map(|e| e.id)
            .collect();
        assert_eq!(kept, [20, 19]);
    }
}
