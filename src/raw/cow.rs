//! [`CowVec`]: an array of numbers that a model holds either as its own memory or in
//! place in the mapped model file it was read from, copied out the first time it is
//! written to.
//!
//! Copying a model's weights out of its file meant a page of fresh memory backed by the
//! kernel for every 4 KiB of them (half the CPU of opening the 90-class Reuters model to
//! classify one document), and freeing it again at exit. An array whose bytes lie in the
//! mapping at its numbers' alignment (from format 11 the writer pads every array to 64
//! bytes) is read where it lies instead (on Unix): the array keeps the mapping alive,
//! and the system's cached pages of the file are the array. While [`InPlace`] is held,
//! the arrays decoded on this thread from that mapping are read in place; the arrays of
//! any other source, unaligned ones and all of them on a big-endian machine or off Unix
//! are copied, as before.

use super::{Pod, from_bytes};
use memmap2::Mmap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::RefCell;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

thread_local! {
    /// The mapping being decoded on this thread, whose arrays may be read in place.
    static SOURCE: RefCell<Option<Arc<Mmap>>> = const { RefCell::new(None) };
}

thread_local! {
    /// Whether arrays decoded on this thread are copied out even from a mapping
    /// ([`CopiedOut`]).
    static COPY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// While held, the model files this thread opens have their arrays copied out rather than
/// read in place from the mapped file: for a long-lived holder (`serve`) whose model file
/// may be rewritten in place by another program (`cp` over it, rather than a rename). A
/// model read in place would change under it, or end the process (SIGBUS) once the file
/// is cut short; a copied one goes on until the new file is read and checked.
#[cfg(feature = "serve")]
#[must_use = "arrays are copied out only while the guard is held"]
pub(crate) struct CopiedOut(bool, PhantomData<*const ()>);

#[cfg(feature = "serve")]
impl CopiedOut {
    /// Copies arrays out on this thread until dropped.
    pub(crate) fn on() -> CopiedOut {
        CopiedOut(COPY.with(|c| c.replace(true)), PhantomData)
    }
}

#[cfg(feature = "serve")]
impl Drop for CopiedOut {
    fn drop(&mut self) {
        COPY.with(|c| c.set(self.0));
    }
}

/// While held, arrays decoded on this thread from the bytes of `map` are read in place;
/// dropping it forgets the mapping (the arrays read in place keep it alive).
/// It stays on the thread it was made on (`!Send`): dropped elsewhere it would reset that
/// thread's source.
#[must_use = "arrays are read in place only while the guard is held"]
pub(crate) struct InPlace(Option<Arc<Mmap>>, PhantomData<*const ()>);

impl InPlace {
    /// Lets this thread's decoding read arrays in place from `map`.
    pub(crate) fn from(map: Arc<Mmap>) -> InPlace {
        InPlace(SOURCE.with(|s| s.replace(Some(map))), PhantomData)
    }
}

impl Drop for InPlace {
    fn drop(&mut self) {
        SOURCE.with(|s| *s.borrow_mut() = self.0.take());
    }
}

/// An array of numbers, the model's own or read in place from its mapped file: it reads
/// as a slice either way (`Deref`), and a write (`DerefMut`, [`CowVec::to_mut`]) first
/// copies a mapped array out, so a model trained further or learning a message changes
/// its own copy, never the file. Public because the weights of [`crate::LinearModel`] and
/// the other models' large arrays are held in it.
#[derive(Clone)]
pub struct CowVec<T> {
    repr: Repr<T>,
}

/// Where the numbers are.
#[derive(Clone)]
enum Repr<T> {
    /// In memory of its own.
    Owned(Vec<T>),
    /// `len` numbers at byte `at` of `map`, aligned for `T` (checked when made).
    Mapped {
        map: Arc<Mmap>,
        at: usize,
        len: usize,
        of: PhantomData<T>,
    },
}

impl<T: Pod> CowVec<T> {
    /// The numbers of `bytes` in place, when they lie in this thread's [`InPlace`] mapping
    /// at the alignment of `T` on a little-endian Unix machine and are a whole number of
    /// numbers; else `None` (the caller copies them). Elsewhere than on Unix a file
    /// cannot be renamed over while it is mapped, which is how a model file is replaced
    /// (`learn` writes the model it holds over the file it read), so no mapping outlives
    /// decoding there.
    pub(super) fn in_place(bytes: &[u8]) -> Option<CowVec<T>> {
        if cfg!(not(all(unix, target_endian = "little")))
            || COPY.with(std::cell::Cell::get)
            || !bytes.len().is_multiple_of(T::SIZE)
            || !(bytes.as_ptr() as usize).is_multiple_of(align_of::<T>())
        {
            return None;
        }
        SOURCE.with(|s| {
            let s = s.borrow();
            let map = s.as_ref()?;
            let at = (bytes.as_ptr() as usize).checked_sub(map.as_ptr() as usize)?;
            (at.checked_add(bytes.len())? <= map.len()).then(|| CowVec {
                repr: Repr::Mapped {
                    map: Arc::clone(map),
                    at,
                    len: bytes.len() / T::SIZE,
                    of: PhantomData,
                },
            })
        })
    }

    /// Whether the numbers are read in place from a mapped file (not yet written to).
    pub fn is_mapped(&self) -> bool {
        matches!(self.repr, Repr::Mapped { .. })
    }

    /// The numbers as a vector of their own, copied out of the file first if mapped: for
    /// what changes an array's length (a vocabulary that grows) or its numbers.
    pub fn to_mut(&mut self) -> &mut Vec<T> {
        if let Repr::Mapped { .. } = self.repr {
            let own = from_bytes(mapped_bytes(self)).expect("whole numbers");
            self.repr = Repr::Owned(own);
        }
        match &mut self.repr {
            Repr::Owned(v) => v,
            Repr::Mapped { .. } => unreachable!("copied out above"),
        }
    }

    /// Makes the array `n` numbers long, new ones `value` (copied out first if mapped):
    /// weights and their state grow with the words a model learns.
    pub fn resize(&mut self, n: usize, value: T) {
        self.to_mut().resize(n, value);
    }

    /// The numbers as a vector of their own (a copy, if mapped).
    pub fn into_vec(mut self) -> Vec<T> {
        std::mem::take(self.to_mut())
    }
}

/// The bytes of `v`'s numbers.
fn mapped_bytes<T: Pod>(v: &CowVec<T>) -> &[u8] {
    match &v.repr {
        Repr::Mapped { map, at, len, .. } => &map[*at..*at + len * T::SIZE],
        Repr::Owned(_) => unreachable!("asked of mapped arrays only"),
    }
}

impl<T: Pod> Deref for CowVec<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match &self.repr {
            Repr::Owned(v) => v,
            Repr::Mapped { len, .. } => {
                let bytes = mapped_bytes(self);
                // SAFETY: `bytes` holds `len` numbers (sliced from the mapping, so in
                // bounds) and starts at `T`'s alignment (checked in `in_place`; the
                // mapping never moves while `map` keeps it). `T` is a plain number (the
                // sealed `Pod`): any bytes are one, and on this little-endian machine (the
                // only one `in_place` maps on) its file bytes are its bytes in memory. The
                // mapping is read-only and lives as long as `map`; a model file is replaced
                // only by renaming a new one over it (`crate::atomic`), never written in
                // place, so the bytes do not change under the borrow.
                unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), *len) }
            }
        }
    }
}

impl<T: Pod> DerefMut for CowVec<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        self.to_mut()
    }
}

impl<T> Default for CowVec<T> {
    fn default() -> Self {
        CowVec {
            repr: Repr::Owned(Vec::new()),
        }
    }
}

impl<T> From<Vec<T>> for CowVec<T> {
    fn from(v: Vec<T>) -> Self {
        CowVec {
            repr: Repr::Owned(v),
        }
    }
}

impl<T: Pod> From<CowVec<T>> for Vec<T> {
    fn from(v: CowVec<T>) -> Vec<T> {
        v.into_vec()
    }
}

impl<T> FromIterator<T> for CowVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Self {
        Vec::from_iter(it).into()
    }
}

impl<'a, T: Pod> IntoIterator for &'a CowVec<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Pod> std::fmt::Debug for CowVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Pod> PartialEq for CowVec<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Pod> PartialEq<Vec<T>> for CowVec<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        **self == **other
    }
}

impl<T: Pod> PartialEq<[T]> for CowVec<T> {
    fn eq(&self, other: &[T]) -> bool {
        **self == *other
    }
}

/// As bytes while the switch of `crate::raw` is on, else as a sequence (JSON, a store's
/// header, the cluster's messages).
impl<T: Pod> Serialize for CowVec<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if super::active() {
            super::serialize_bytes(self, s)
        } else {
            (**self).serialize(s)
        }
    }
}

impl<'de, T: Pod> Deserialize<'de> for CowVec<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CowVec<T>, D::Error> {
        if super::active() {
            super::read_bytes(d)
        } else {
            Vec::<T>::deserialize(d).map(CowVec::from)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Layout, RawArrays, Tracked};
    use super::*;
    use std::io::Write;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct M {
        tag: String,
        w: CowVec<f32>,
        df: CowVec<u32>,
        small: CowVec<u8>,
    }

    /// `m` written as a file would be (its `head` bytes first), in `layout`.
    fn file_of(m: &M, head: usize, layout: Layout) -> Vec<u8> {
        let mut out = vec![0u8; head];
        let _on = RawArrays::on(layout);
        let mut t = Tracked::new(&mut out, head as u64);
        bincode::serde::encode_into_std_write(m, &mut t, bincode::config::standard()).unwrap();
        t.flush().unwrap();
        out
    }

    /// Decodes the file `bytes` through a mapping of it, as a model file is read.
    fn mapped(bytes: &[u8], head: usize, layout: Layout) -> M {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        // SAFETY: a private temporary file, never changed while mapped.
        let map = Arc::new(unsafe { Mmap::map(&f) }.unwrap());
        let _in_place = InPlace::from(Arc::clone(&map));
        let _on = RawArrays::on(layout);
        let (m, n): (M, usize) =
            bincode::serde::decode_from_slice(&map[head..], bincode::config::standard()).unwrap();
        assert_eq!(n, bytes.len() - head);
        m
    }

    fn sample() -> M {
        M {
            tag: "abc".into(),
            w: (0..3000).map(|i| i as f32 * 0.5 - 7.0).collect(),
            df: (0..300u32).collect(),
            small: vec![1, 2, 3].into(),
        }
    }

    #[test]
    #[cfg(all(unix, target_endian = "little"))]
    fn aligned_arrays_are_read_in_place_and_copied_out_when_written() {
        let m = sample();
        for head in [0, 1, 28, 63] {
            let bytes = file_of(&m, head, Layout::Aligned);
            let mut back = mapped(&bytes, head, Layout::Aligned);
            assert_eq!(back, m, "{head}");
            assert!(back.w.is_mapped() && back.df.is_mapped() && back.small.is_mapped());
            let at = back.w.as_ptr() as usize - back.tag.as_ptr() as usize;
            assert_ne!(at, 0);
            back.w[7] = 1.0;
            assert!(!back.w.is_mapped(), "written, so copied out");
            assert_eq!(back.w[7], 1.0);
            assert_eq!(back.w[8], m.w[8]);
            assert_eq!(back.w.len(), m.w.len());
        }
    }

    #[test]
    #[cfg(all(unix, target_endian = "little"))]
    fn packed_arrays_are_read_in_place_only_where_aligned_by_chance() {
        let m = sample();
        for head in 0..4 {
            let bytes = file_of(&m, head, Layout::Packed);
            let back = mapped(&bytes, head, Layout::Packed);
            assert_eq!(back, m);
            // `w` starts after the tag (a length and 3 bytes) and its own length (3 bytes).
            let aligned = (head + 1 + 3 + 3).is_multiple_of(4);
            assert_eq!(back.w.is_mapped(), aligned, "{head}");
            assert!(back.small.is_mapped(), "bytes are always aligned");
        }
        // Decoded from memory of its own, nothing is mapped.
        let bytes = file_of(&m, 0, Layout::Aligned);
        let _on = RawArrays::on(Layout::Aligned);
        let (back, _): (M, usize) =
            bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).unwrap();
        assert_eq!(back, m);
        assert!(!back.w.is_mapped());
    }

    #[test]
    fn without_the_switch_arrays_are_sequences() {
        let m = sample();
        let json = serde_json::to_string(&m).unwrap();
        assert!(json.contains("\"small\":[1,2,3]"), "{json}");
        let back: M = serde_json::from_str(&json).unwrap();
        assert_eq!(back, m);
    }
}
