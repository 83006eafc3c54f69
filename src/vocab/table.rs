//! [`WordTable`]: the word → id index on the tokenizer's hot path.
//!
//! Words live back to back in one byte arena; the hash table holds 16-byte slots with the
//! word's first 8 bytes, its length and its id, so a lookup of a word of up to 8 bytes
//! (most words) never leaves the table, and longer ones compare only their tail in the
//! arena. The hash is computed once per token and reused for the insert that follows a
//! miss. Ids are dense, in insertion order.

use hashbrown::HashTable;

#[derive(Debug, Clone, Copy)]
struct Slot {
    head: u64,
    len: u32,
    id: u32,
}

/// A word's precomputed key: its first 8 bytes and its hash.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    head: u64,
    hash: u64,
}

const K: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline]
fn head_of(b: &[u8]) -> u64 {
    if b.len() >= 8 {
        u64::from_le_bytes(b[..8].try_into().unwrap())
    } else {
        let mut buf = [0u8; 8];
        buf[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(buf)
    }
}

/// The key of `word`: a multiply-rotate hash over 8-byte chunks (fast, and good enough for
/// words; the table is not exposed to adversarial keys that matter).
#[inline]
pub fn key(word: &str) -> Key {
    let b = word.as_bytes();
    let head = head_of(b);
    let mut h = (head ^ (b.len() as u64).wrapping_mul(K)).wrapping_mul(K);
    if b.len() > 8 {
        for c in b[8..].chunks(8) {
            h = (h.rotate_left(23) ^ head_of(c)).wrapping_mul(K);
        }
    }
    Key {
        head,
        hash: h ^ (h >> 29),
    }
}

/// Word ↔ dense id, insertion-ordered.
#[derive(Debug, Clone, Default)]
pub struct WordTable {
    table: HashTable<Slot>,
    arena: Vec<u8>,
    ends: Vec<u32>,
}

impl WordTable {
    /// An empty table with room for `n` words.
    pub fn with_capacity(n: usize) -> Self {
        WordTable {
            table: HashTable::with_capacity(n),
            arena: Vec::new(),
            ends: Vec::with_capacity(n),
        }
    }

    /// Number of words.
    #[inline]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The word with id `id`.
    #[inline]
    pub fn word(&self, id: u32) -> &str {
        let id = id as usize;
        let start = if id == 0 {
            0
        } else {
            self.ends[id - 1] as usize
        };
        // SAFETY: the arena holds only whole words copied from `&str`s, so every word's
        // byte range is valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(&self.arena[start..self.ends[id] as usize]) }
    }

    #[inline]
    fn matches(arena: &[u8], ends: &[u32], s: &Slot, word: &[u8], k: Key) -> bool {
        if s.head != k.head || s.len as usize != word.len() {
            return false;
        }
        if word.len() <= 8 {
            return true;
        }
        let end = ends[s.id as usize] as usize;
        arena[end - word.len() + 8..end] == word[8..]
    }

    /// The id of `word` given its precomputed key.
    #[inline]
    pub fn get_key(&self, word: &str, k: Key) -> Option<u32> {
        let (arena, ends) = (&self.arena, &self.ends);
        self.table
            .find(k.hash, |s| {
                Self::matches(arena, ends, s, word.as_bytes(), k)
            })
            .map(|s| s.id)
    }

    /// The id of `word`.
    #[inline]
    pub fn get(&self, word: &str) -> Option<u32> {
        self.get_key(word, key(word))
    }

    /// The id of `word`, inserting it with the next id when absent; the flag says whether
    /// it was inserted.
    #[inline]
    pub fn insert_key(&mut self, word: &str, k: Key) -> (u32, bool) {
        let (arena, ends) = (&mut self.arena, &mut self.ends);
        let b = word.as_bytes();
        let entry = self.table.entry(
            k.hash,
            |s| Self::matches(arena, ends, s, b, k),
            |s| {
                let end = ends[s.id as usize] as usize;
                let start = end - s.len as usize;
                // SAFETY: as in `word`.
                key(unsafe { std::str::from_utf8_unchecked(&arena[start..end]) }).hash
            },
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(o) => (o.get().id, false),
            hashbrown::hash_table::Entry::Vacant(v) => {
                let id = ends.len() as u32;
                arena.extend_from_slice(b);
                ends.push(arena.len() as u32);
                v.insert(Slot {
                    head: k.head,
                    len: b.len() as u32,
                    id,
                });
                (id, true)
            }
        }
    }

    /// The id of `word`, inserting it when absent.
    pub fn insert(&mut self, word: &str) -> u32 {
        self.insert_key(word, key(word)).0
    }

    /// Every word in id order.
    pub fn words(&self) -> impl Iterator<Item = &str> {
        (0..self.len() as u32).map(|i| self.word(i))
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
