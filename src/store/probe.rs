//! The hash table behind a store's memory of records: one cache line a key, and a
//! message's keys probed in two passes so that their reads of memory overlap.
//!
//! A daemon's verdict looks up a few hundred keys among a hundred thousand or more; each
//! probe of a general-purpose table reads its control bytes and then its slot, two lines
//! of memory that mostly miss the processor's caches, one probe after another. Here a
//! slot is one aligned 64-byte line holding a tag of the key's hash, the key itself (up to
//! [`INLINE`] bytes; a longer key is kept apart) and its record, and the table is probed
//! by linear probing from the hash's low bits. [`Table::touch`] first reads the home
//! line of every key (loads with nothing depending on each other, which the processor
//! runs together), then probes each key in lines already fetched.

use super::record::Record;
use crate::text::same_bytes;

/// The longest key kept in its slot: what is left of a line after the tag, the record and
/// the length.
const INLINE: usize = 38;

/// The length that marks a key kept apart, its index in [`Table::long`] in the key bytes.
const LONG: u8 = u8::MAX;

/// One key and what the store holds under it, in one line of memory.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot {
    /// 0 for an empty slot; else the hash's high bits, odd.
    tag: u32,
    /// The record, where `has` says there is one.
    record: Record,
    /// The inline key's length, or [`LONG`].
    len: u8,
    /// Whether the store holds a record under the key (absent keys are remembered too).
    has: bool,
    /// The key, zero-padded, or a long key's index.
    key: [u8; INLINE],
}

const _: () = assert!(std::mem::size_of::<Slot>() == 64);

const EMPTY: Slot = Slot {
    tag: 0,
    record: Record {
        id: 0,
        w: 0.0,
        df: 0,
        sq: 0.0,
        fw: 0.0,
    },
    len: 0,
    has: false,
    key: [0; INLINE],
};

/// A key as a slot compares it: kept in the slot when short, apart when long.
#[derive(Clone, Copy)]
enum Query<'k> {
    Inline(&'k [u8]),
    Long(&'k [u8]),
}

impl<'k> Query<'k> {
    fn new(key: &'k [u8]) -> Query<'k> {
        if key.len() <= INLINE {
            Query::Inline(key)
        } else {
            Query::Long(key)
        }
    }
}

/// The tag of `hash`: never 0, the mark of an empty slot.
fn tag(hash: u64) -> u32 {
    (hash >> 32) as u32 | 1
}

/// Keys and their records, in [`Slot`]s of one cache line.
#[derive(Default)]
pub(crate) struct Table {
    slots: Vec<Slot>,
    /// Keys longer than [`INLINE`] bytes.
    long: Vec<Box<[u8]>>,
    len: usize,
}

impl Table {
    /// How many keys.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Forgets every key (keeping the memory).
    pub(crate) fn clear(&mut self) {
        self.slots.fill(EMPTY);
        self.long.clear();
        self.len = 0;
    }

    /// The key in `slot`.
    fn key_of<'a>(&'a self, slot: &'a Slot) -> &'a [u8] {
        if slot.len == LONG {
            let at = u32::from_le_bytes(slot.key[..4].try_into().expect("four bytes"));
            &self.long[at as usize]
        } else {
            &slot.key[..usize::from(slot.len)]
        }
    }

    /// Whether `slot` holds the key `q` (tags already equal).
    fn holds(&self, slot: &Slot, q: &Query<'_>) -> bool {
        match q {
            // Compared in place: copying the key into a padded array first (a call to
            // `memcpy`, then wide loads of bytes just stored narrowly) cost a fiftieth of
            // a verdict.
            Query::Inline(key) => {
                usize::from(slot.len) == key.len() && same_bytes(&slot.key[..key.len()], key)
            }
            Query::Long(key) => slot.len == LONG && self.key_of(slot) == *key,
        }
    }

    /// The slot holding `key` (of hash `hash`), or the empty slot where it would go.
    fn position(&self, hash: u64, q: &Query<'_>) -> (usize, bool) {
        let mask = self.slots.len() - 1;
        let t = tag(hash);
        let mut i = hash as usize & mask;
        loop {
            let s = &self.slots[i];
            if s.tag == 0 {
                return (i, false);
            }
            if s.tag == t && self.holds(s, q) {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    /// What is kept under `key` (of hash `hash`): `Some(None)` for a key remembered as
    /// absent, `None` for a key not kept.
    pub(crate) fn get(&self, hash: u64, key: &[u8]) -> Option<Option<Record>> {
        if self.slots.is_empty() {
            return None;
        }
        let (i, found) = self.position(hash, &Query::new(key));
        found.then(|| {
            let s = &self.slots[i];
            s.has.then_some(s.record)
        })
    }

    /// Reads the home line of every key of these hashes, all at once (loads with nothing
    /// depending on each other), so that the probes after it find them fetched.
    pub(crate) fn touch(&self, hashes: impl Iterator<Item = u64>) {
        if self.slots.is_empty() {
            return;
        }
        let mask = self.slots.len() - 1;
        let mut touched = 0u32;
        for h in hashes {
            touched ^= self.slots[h as usize & mask].tag;
        }
        std::hint::black_box(touched);
    }

    /// Keeps `record` under `key` (of hash `hash`, `rehash` the hash of any key), unless
    /// the key is there already.
    pub(crate) fn insert(
        &mut self,
        hash: u64,
        key: &[u8],
        record: Option<Record>,
        rehash: impl Fn(&[u8]) -> u64,
    ) {
        if (self.len + 1) * 8 > self.slots.len() * 5 {
            self.grow(&rehash);
        }
        let q = Query::new(key);
        let (i, found) = self.position(hash, &q);
        if found {
            return;
        }
        let mut slot = Slot {
            tag: tag(hash),
            record: record.unwrap_or(EMPTY.record),
            has: record.is_some(),
            ..EMPTY
        };
        match q {
            Query::Inline(key) => {
                slot.len = key.len() as u8;
                slot.key[..key.len()].copy_from_slice(key);
            }
            Query::Long(key) => {
                slot.len = LONG;
                slot.key[..4].copy_from_slice(&(self.long.len() as u32).to_le_bytes());
                self.long.push(key.into());
            }
        }
        self.slots[i] = slot;
        self.len += 1;
    }

    /// Doubles the slots (from 1,024), placing every key again.
    fn grow(&mut self, rehash: &impl Fn(&[u8]) -> u64) {
        let size = (self.slots.len() * 2).max(1024);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
        let mask = size - 1;
        for s in old.into_iter().filter(|s| s.tag != 0) {
            let mut i = rehash(self.key_of(&s)) as usize & mask;
            while self.slots[i].tag != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    fn record(id: u32) -> Record {
        Record {
            id,
            w: id as f32 / 2.0,
            df: 1,
            sq: 0.0,
            fw: 1.0,
        }
    }

    proptest::proptest! {
        /// The table answers as a map of the same keys does, for keys short and long,
        /// absent and present, through growth and collisions of their tags.
        #[test]
        fn the_table_answers_as_a_map(
            keys in proptest::collection::vec(proptest::collection::vec(0u8..4, 0..60), 0..400),
            probes in proptest::collection::vec(proptest::collection::vec(0u8..4, 0..60), 0..100),
            narrow in proptest::bool::ANY,
        ) {
            let hasher = hashbrown::DefaultHashBuilder::default();
            // A narrow hash puts many keys on one tag and one home slot.
            let hash = |k: &[u8]| if narrow { hasher.hash_one(k) & 0x1_0000_0007 } else { hasher.hash_one(k) };
            let mut table = Table::default();
            let mut map = std::collections::HashMap::new();
            for (i, k) in keys.iter().enumerate() {
                let r = (i % 3 != 0).then(|| record(i as u32));
                table.insert(hash(k), k, r, hash);
                map.entry(k.clone()).or_insert(r);
            }
            proptest::prop_assert_eq!(table.len(), map.len());
            let all: Vec<&Vec<u8>> = keys.iter().chain(&probes).collect();
            let hashes: Vec<u64> = all.iter().map(|k| hash(k)).collect();
            table.touch(hashes.iter().copied());
            for (k, &h) in all.iter().zip(&hashes) {
                proptest::prop_assert_eq!(table.get(h, k), map.get(*k).copied());
            }
            table.clear();
            proptest::prop_assert_eq!(table.len(), 0);
            for k in &keys {
                proptest::prop_assert_eq!(table.get(hash(k), k), None);
            }
        }
    }
}
