//! A long-running reader's memory of the records it has read from a store, for one
//! committed state. A daemon answers message after message, and mail repeats its words:
//! each LMDB lookup is a search of the B-tree's pages (a fifth of a verdict's time), a
//! lookup here is one probe of a [`Table`] whose slots hold the key and its record in one
//! line of memory. The records are those of the transaction they were read in
//! (LMDB's id of the committed state it sees); a snapshot of a later commit starts the
//! memory afresh, so a verdict never mixes two states. Absent words are remembered too.
//! The memory holds at most [`RecordCache::MOST`] keys and starts over when full (a flood
//! of made-up words costs lookups, not memory). Keys are hashed with
//! [`word_hash`], as a message's distinct words already are, so a word's hash is computed
//! once per message.

use super::probe::Table;
use super::record::Record;
use crate::text::word_hash;
use std::sync::{RwLock, RwLockReadGuard};

/// The records read so far in the latest committed state seen.
#[derive(Default)]
pub(crate) struct RecordCache {
    state: RwLock<State>,
}

impl std::fmt::Debug for RecordCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.state.read().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("RecordCache")
            .field("txn", &s.txn)
            .field("keys", &s.slots.len())
            .finish()
    }
}

#[derive(Default)]
struct State {
    /// LMDB's id of the committed state the records are from.
    txn: usize,
    slots: Table,
}

impl State {
    fn insert(&mut self, key: &[u8], record: Option<Record>) {
        self.slots.insert(word_hash(key), key, record, word_hash);
    }
}

impl RecordCache {
    /// The most keys remembered: at most 32 MB of slots.
    pub(crate) const MOST: usize = 1 << 18;

    /// A reader of the records of committed state `txn`, for one message's lookups.
    pub(crate) fn reader(&self, txn: usize) -> Reader<'_> {
        let guard = self.state.read().unwrap_or_else(|e| e.into_inner());
        let guard = (guard.txn == txn).then_some(guard);
        Reader {
            cache: self,
            txn,
            guard,
            read: Vec::new(),
        }
    }
}

/// One message's lookups in a [`RecordCache`]: what it holds of the reader's state, and
/// what the reader read past it, remembered when the reader is done.
pub(crate) struct Reader<'c> {
    cache: &'c RecordCache,
    txn: usize,
    /// The cache's state, where it is of this reader's transaction.
    guard: Option<RwLockReadGuard<'c, State>>,
    read: Vec<(Box<[u8]>, Option<Record>)>,
}

impl Reader<'_> {
    /// [`Reader::find`] with the hash computed here, for tests.
    #[cfg(test)]
    pub(crate) fn get(&self, key: &[u8]) -> Option<Option<Record>> {
        self.find(word_hash(key), key)
    }

    /// Reads the home line of each key of these [`word_hash`]es at once, before they are
    /// looked up one by one ([`Reader::find`]).
    pub(crate) fn touch(&self, hashes: impl Iterator<Item = u64>) {
        if let Some(s) = &self.guard {
            s.slots.touch(hashes);
        }
    }

    /// The record under `key` of [`word_hash`] `hash` (`Some(None)`: the key has none),
    /// when remembered of the reader's state.
    pub(crate) fn find(&self, hash: u64, key: &[u8]) -> Option<Option<Record>> {
        self.guard.as_ref()?.slots.get(hash, key)
    }

    /// Notes what the store holds under `key`, to be remembered.
    pub(crate) fn read(&mut self, key: &[u8], record: Option<Record>) {
        self.read.push((key.into(), record));
    }

    /// Remembers what was read, unless a later state has taken the cache's place.
    pub(crate) fn done(mut self) {
        self.guard = None;
        if self.read.is_empty() {
            return;
        }
        let mut state = self.cache.state.write().unwrap_or_else(|e| e.into_inner());
        if state.txn != self.txn {
            if state.txn > self.txn {
                return;
            }
            state.txn = self.txn;
            state.slots.clear();
        }
        if state.slots.len() + self.read.len() > RecordCache::MOST {
            state.slots.clear();
        }
        for (key, record) in self.read.drain(..) {
            state.insert(&key, record);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: u32, w: f32) -> Record {
        Record {
            id,
            w,
            df: 1,
            sq: 0.0,
            fw: 1.0,
        }
    }

    #[test]
    fn records_are_remembered_for_their_state_alone() {
        let cache = RecordCache::default();
        let mut r = cache.reader(7);
        assert_eq!(r.get(b"noon"), None);
        r.read(b"noon", Some(record(3, 0.5)));
        r.read(b"absent", None);
        r.done();
        let r = cache.reader(7);
        assert_eq!(r.get(b"noon"), Some(Some(record(3, 0.5))));
        assert_eq!(r.get(b"absent"), Some(None));
        r.done();
        // A later commit: nothing of the earlier state is answered.
        let mut r = cache.reader(8);
        assert_eq!(r.get(b"noon"), None);
        r.read(b"noon", Some(record(3, 0.25)));
        r.done();
        // A reader of the earlier state that finishes late does not put it back.
        let mut late = cache.reader(7);
        assert_eq!(late.get(b"noon"), None);
        late.read(b"noon", Some(record(3, 0.5)));
        late.done();
        assert_eq!(cache.reader(8).get(b"noon"), Some(Some(record(3, 0.25))));
        // Keys past the length kept in place are remembered alike.
        let long = [b'x'; 40];
        let mut r = cache.reader(8);
        r.read(&long, Some(record(9, 2.0)));
        r.read(&long[..38], None);
        r.done();
        let r = cache.reader(8);
        assert_eq!(r.get(&long), Some(Some(record(9, 2.0))));
        assert_eq!(r.get(&long[..38]), Some(None));
        assert_eq!(r.get(&long[..39]), None);
    }

    #[test]
    fn a_full_cache_starts_over() {
        let cache = RecordCache::default();
        for chunk in 0..(RecordCache::MOST / 1024 + 1) {
            let mut r = cache.reader(1);
            for i in 0..1024 {
                r.read(format!("w{chunk}-{i}").as_bytes(), None);
            }
            r.done();
        }
        let n = cache.state.read().unwrap().slots.len();
        assert!(n <= RecordCache::MOST && n > 0, "{n}");
    }
}
