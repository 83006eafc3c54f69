//! [`WordTable`]: the word → id index on the tokenizer's hot path.
//!
//! Words live back to back in one byte arena; the hash table (open addressing, linear
//! probing, at most half full) holds 16-byte slots with the word's first 8 bytes, its
//! length and its id, so a lookup of a word of up to 8 bytes (most words) reads one slot
//! and never leaves the table, and longer ones compare only their tail in the arena. The
//! hash is computed once per token and reused for the insert that follows a miss. Ids are
//! dense, in insertion order. Hand-written because it is the tokenizer's innermost loop.
//!
//! The slots come in 64-byte groups of four, aligned to a cache line, and a probe starts
//! at the first slot of its word's group: the slots a lookup reads before it finds the
//! word or a free slot are most often in that one line, which [`WordTable::prefetch`] can
//! ask for ahead of the lookup. The hash is the tokenizer's [`Key`], computed while the
//! word was scanned.
//!
//! A format-10 model file keeps the table as it is probed — its slots, the arena and the
//! words' ends ([`WordTable::slot_ids`], [`WordTable::from_stored`]) — so that opening
//! a model rebuilds nothing. A slot's place depends on [`key`]: changing that hash
//! changes where words are found, which needs a new model format.

use crate::raw::CowVec;
use crate::text::{Key, head_of, key, same_bytes};

#[derive(Debug, Clone, Copy)]
struct Slot {
    head: u64,
    len: u32,
    id: u32,
}

/// Slots per group: one 64-byte cache line.
const GROUP: usize = 4;

/// Four slots in one cache line.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Group([Slot; GROUP]);

/// Word ↔ dense id, insertion-ordered.
#[derive(Debug, Clone, Default)]
pub(crate) struct WordTable {
    /// Open addressing with linear probing from the start of a group, at most half
    /// full; `id == EMPTY` marks a free slot. One cache line answers most lookups.
    groups: Vec<Group>,
    /// The words back to back, and where each ends: read in place from a mapped model
    /// file until a word is added.
    arena: CowVec<u8>,
    ends: CowVec<u32>,
}

const EMPTY: u32 = u32::MAX;
const FREE: Slot = Slot {
    head: 0,
    len: 0,
    id: EMPTY,
};

impl WordTable {
    /// An empty table with room for `n` words.
    pub(crate) fn with_capacity(n: usize) -> Self {
        let mut t = WordTable {
            groups: Vec::new(),
            arena: CowVec::default(),
            ends: Vec::with_capacity(n).into(),
        };
        t.rehash((2 * n).next_power_of_two().max(16));
        t
    }

    /// Number of words.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The word with id `id`.
    #[inline]
    pub(crate) fn word(&self, id: u32) -> &str {
        let id = id as usize;
        let start = if id == 0 {
            0
        } else {
            self.ends[id - 1] as usize
        };
        // SAFETY: every word's byte range is valid UTF-8: the arena holds whole words
        // copied from `&str`s, or, read in place from a model file, words checked as UTF-8
        // when the file was opened (a mapping that does not change: model files are
        // replaced by rename, and a daemon copies its arrays, `crate::raw::CopiedOut`).
        unsafe { std::str::from_utf8_unchecked(&self.arena[start..self.ends[id] as usize]) }
    }

    /// Whether `s` holds `word` (of key `k`): its key and length, then, for a word longer
    /// than 8 bytes, its tail.
    #[inline(always)]
    fn matches(&self, s: &Slot, word: &[u8], k: Key) -> bool {
        s.head == k.head
            && s.len as usize == word.len()
            && (word.len() <= 8 || self.same_tail(s, word))
    }

    /// How many slots.
    #[inline]
    fn capacity(&self) -> usize {
        self.groups.len() * GROUP
    }

    #[inline]
    fn slot(&self, i: usize) -> &Slot {
        &self.groups[i / GROUP].0[i % GROUP]
    }

    #[inline]
    fn slot_mut(&mut self, i: usize) -> &mut Slot {
        &mut self.groups[i / GROUP].0[i % GROUP]
    }

    /// The first slot a probe for `k` reads: the start of its group.
    #[inline]
    fn start(&self, k: Key) -> usize {
        (k.hash as usize & (self.capacity() - 1)) & !(GROUP - 1)
    }

    /// The slot holding `word`, or the free slot where it would go. The home group is
    /// read inline, a word of up to 8 bytes (most words) compared by its key alone and a
    /// longer one's tail compared out of line once its key matches; a probe that runs past
    /// the group takes [`probe_on`](Self::probe_on). As one function, every lookup paid
    /// the long words' set-up (a fifth of the lookups' time).
    #[inline(always)]
    fn probe(&self, word: &[u8], k: Key) -> usize {
        let start = self.start(k);
        for (j, s) in self.groups[start / GROUP].0.iter().enumerate() {
            if s.id == EMPTY || self.matches(s, word, k) {
                return start + j;
            }
        }
        self.probe_on(word, k)
    }

    /// Whether the word of `s` ends as `word` does past their first 8 bytes (their keys
    /// and lengths equal).
    #[inline(never)]
    fn same_tail(&self, s: &Slot, word: &[u8]) -> bool {
        let end = self.ends[s.id as usize] as usize;
        same_bytes(&self.arena[end - word.len() + 8..end], &word[8..])
    }

    /// [`probe`](Self::probe) from the start of the home group, for any word.
    #[inline(never)]
    fn probe_on(&self, word: &[u8], k: Key) -> usize {
        let mask = self.capacity() - 1;
        let mut i = self.start(k);
        loop {
            let s = self.slot(i);
            if s.id == EMPTY || self.matches(s, word, k) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Asks for the cache line a lookup of `k` will read first (a hint: a lookup a few
    /// words later finds it there instead of waiting for memory).
    #[inline]
    pub(crate) fn prefetch(&self, k: Key) {
        if !self.groups.is_empty() {
            let g = self.start(k) / GROUP;
            crate::hint::prefetch(std::slice::from_ref(&self.groups[g]));
        }
    }

    fn rehash(&mut self, size: usize) {
        let old = std::mem::replace(&mut self.groups, vec![Group([FREE; GROUP]); size / GROUP]);
        let mask = size - 1;
        for s in old.iter().flat_map(|g| g.0).filter(|s| s.id != EMPTY) {
            let k = key(self.word(s.id));
            let mut i = self.start(k);
            while self.slot(i).id != EMPTY {
                i = (i + 1) & mask;
            }
            *self.slot_mut(i) = s;
        }
    }

    /// The id of `word` given its precomputed key.
    #[inline(always)]
    pub(crate) fn get_key(&self, word: &str, k: Key) -> Option<u32> {
        if self.groups.is_empty() {
            return None;
        }
        let id = self.slot(self.probe(word.as_bytes(), k)).id;
        (id != EMPTY).then_some(id)
    }

    /// The id of `word`.
    #[inline]
    pub(crate) fn get(&self, word: &str) -> Option<u32> {
        self.get_key(word, key(word))
    }

    /// The id of `word`, inserting it with the next id when absent; the flag says whether
    /// it was inserted.
    #[inline]
    pub(crate) fn insert_key(&mut self, word: &str, k: Key) -> (u32, bool) {
        if 2 * (self.len() + 1) > self.capacity() {
            self.rehash((2 * self.capacity()).max(16));
        }
        let b = word.as_bytes();
        let i = self.probe(b, k);
        if self.slot(i).id != EMPTY {
            return (self.slot(i).id, false);
        }
        let id = self.ends.len() as u32;
        assert!(id != EMPTY, "a vocabulary holds fewer than 2³² words");
        self.arena.to_mut().extend_from_slice(b);
        let end = self.arena.len() as u32;
        self.ends.to_mut().push(end);
        *self.slot_mut(i) = Slot {
            head: k.head,
            len: b.len() as u32,
            id,
        };
        (id, true)
    }

    /// The id of `word`, inserting it when absent.
    pub(crate) fn insert(&mut self, word: &str) -> u32 {
        self.insert_key(word, key(word)).0
    }

    /// Every word in id order.
    pub(crate) fn words(&self) -> impl Iterator<Item = &str> {
        (0..self.len() as u32).map(|i| self.word(i))
    }

    /// The words back to back, as [`WordTable::ends`] cuts them.
    pub(crate) fn arena(&self) -> &[u8] {
        &self.arena
    }

    /// Where each word ends in the arena, in id order.
    pub(crate) fn ends(&self) -> &[u32] {
        &self.ends
    }

    /// The slots as stored: each slot's word id, `u32::MAX` for a free slot (the word's
    /// length and first bytes, which a slot also holds, are read from the word again).
    /// A table of no words stores no slots.
    pub(crate) fn slot_ids(&self) -> Vec<u32> {
        if self.len() == 0 {
            return Vec::new();
        }
        self.groups.iter().flat_map(|g| g.0).map(|s| s.id).collect()
    }

    /// The table of stored `slots` (see [`WordTable::slot_ids`]), `arena` and `ends`,
    /// taken as they are, with no word hashed again: refused with a sentence, never
    /// panicking, unless the words are UTF-8 cut at character boundaries, the slots a
    /// power of two (at least 16, or none for no words) at most half full, and every word
    /// in exactly one slot. Where each slot lies is trusted (the file's checksum stands
    /// for it): a table crafted with words out of place finds fewer words, no more.
    pub(crate) fn from_stored(
        slots: &[u32],
        arena: CowVec<u8>,
        ends: CowVec<u32>,
    ) -> Result<WordTable, String> {
        let n = ends.len();
        let text = std::str::from_utf8(&arena)
            .map_err(|_| "the vocabulary's words are not UTF-8".to_string())?;
        let mut start = 0usize;
        for &end in ends.iter() {
            let end = end as usize;
            if end < start || end > arena.len() || !text.is_char_boundary(end) {
                return Err("the vocabulary's word ends do not cut its words".into());
            }
            start = end;
        }
        if start != arena.len() {
            return Err("the vocabulary's words run past the last word's end".into());
        }
        let size = slots.len();
        let sized = if n == 0 {
            size == 0
        } else {
            size.is_power_of_two() && size >= 16 && n <= size / 2
        };
        if !sized || n >= EMPTY as usize {
            return Err(format!(
                "the vocabulary's table of {size} slots cannot hold its {n} words"
            ));
        }
        let mut t = WordTable {
            groups: Vec::with_capacity(size / GROUP),
            arena,
            ends,
        };
        let bytes = size_of::<Group>() * (size / GROUP);
        crate::raw::populate(t.groups.as_mut_ptr().cast::<u8>(), bytes);
        let mut seen = vec![false; n];
        for ids in slots.chunks_exact(GROUP) {
            let mut group = [FREE; GROUP];
            for (slot, &id) in group.iter_mut().zip(ids) {
                if id == EMPTY {
                    continue;
                }
                if id as usize >= n || std::mem::replace(&mut seen[id as usize], true) {
                    return Err(format!(
                        "the vocabulary's table holds word {id} twice or out of range"
                    ));
                }
                let w = t.word(id).as_bytes();
                *slot = Slot {
                    head: head_of(w),
                    len: w.len() as u32,
                    id,
                };
            }
            t.groups.push(Group(group));
        }
        if seen.iter().any(|&s| !s) {
            return Err("the vocabulary's table lacks some of its words".into());
        }
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn behaves_like_a_map(words in proptest::collection::vec("[a-zé]{0,20}", 0..200)) {
            let mut t = WordTable::default();
            let mut reference: std::collections::HashMap<String, u32> = Default::default();
            for w in &words {
                let next = reference.len() as u32;
                let expect = *reference.entry(w.clone()).or_insert(next);
                prop_assert_eq!(t.insert(w), expect);
            }
            prop_assert_eq!(t.len(), reference.len());
            for (w, &id) in &reference {
                prop_assert_eq!(t.get(w), Some(id));
                prop_assert_eq!(t.word(id), w.as_str());
            }
            prop_assert_eq!(t.get("not-a-generated-word"), None);
        }
    }

    #[test]
    fn a_stored_table_finds_every_word_and_a_damaged_one_is_refused() {
        let mut t = WordTable::default();
        for w in ["the", "internationalization", "é", "", "prize"] {
            t.insert(w);
        }
        let back = WordTable::from_stored(
            &t.slot_ids(),
            t.arena().to_vec().into(),
            t.ends().to_vec().into(),
        )
        .unwrap();
        for (id, w) in t.words().enumerate() {
            assert_eq!(back.get(w), Some(id as u32), "{w:?}");
            assert_eq!(back.word(id as u32), w);
        }
        assert_eq!(back.get("internationalisation"), None);
        let (slots, arena, ends) = (t.slot_ids(), t.arena().to_vec(), t.ends().to_vec());
        let refused = |slots: &[u32], arena: &[u8], ends: &[u32]| {
            WordTable::from_stored(slots, arena.to_vec().into(), ends.to_vec().into()).unwrap_err()
        };
        let at = slots.iter().position(|&id| id == 2).unwrap();
        let mut twice = slots.clone();
        let next = (at + 1) % twice.len();
        twice[next] = 2;
        assert!(refused(&twice, &arena, &ends).contains("twice"));
        let mut lost = slots.clone();
        lost[at] = EMPTY;
        assert!(refused(&lost, &arena, &ends).contains("lacks"));
        let mut far = slots.clone();
        far[at] = 99;
        assert!(refused(&far, &arena, &ends).contains("out of range"));
        assert!(refused(&slots[..8], &arena, &ends).contains("cannot hold"));
        // "é" cut in the middle of its two bytes; ends out of order; words past the end.
        let mut cut = ends.clone();
        cut[2] -= 1;
        assert!(refused(&slots, &arena, &cut).contains("do not cut"));
        let mut back_and_forth = ends.clone();
        back_and_forth.swap(0, 1);
        assert!(refused(&slots, &arena, &back_and_forth).contains("do not cut"));
        let mut longer = arena.clone();
        longer.push(b'x');
        assert!(refused(&slots, &longer, &ends).contains("run past"));
        let mut latin1 = arena.clone();
        latin1[ends[1] as usize] = 0xe9;
        assert!(refused(&slots, &latin1, &ends).contains("UTF-8"));
        assert_eq!(WordTable::default().slot_ids(), Vec::<u32>::new());
        assert_eq!(
            WordTable::from_stored(&[], Vec::new().into(), Vec::new().into())
                .unwrap()
                .get("a"),
            None
        );
    }

    #[test]
    fn long_words_sharing_a_head_are_distinct() {
        let mut t = WordTable::default();
        let a = t.insert("internationalization");
        let b = t.insert("internationalisation");
        let c = t.insert("internat");
        assert_eq!((a, b, c), (0, 1, 2));
        assert_eq!(t.get("internationalisation"), Some(1));
        assert_eq!(t.get("internationa"), None);
        assert_eq!(t.word(1), "internationalisation");
    }
}
