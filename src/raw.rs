//! Arrays stored as their bytes: how a model file of format 10 on keeps its large arrays
//! (weights, feature weights, document frequencies, the vocabulary's table), and
//! [`CowVec`], the array a model holds them in: its own, or read in place from the mapped
//! file.
//!
//! Through serde an array of `n` numbers is `n` elements, each decoded through a visitor
//! call: about a fifth of opening a model of megabytes. While [`RawArrays`] is held on a
//! thread, the arrays (`CowVec` fields, and those marked
//! `#[serde(with = "crate::raw::array")]`) are written there as one byte string (a length,
//! then the numbers little-endian, back to back) and read back with one bulk copy, or none:
//! from format 11 each byte string follows a few bytes of padding (a byte string of its
//! own) that put its first number at a multiple of 64 bytes into the file, so a mapped
//! file's arrays are read where they lie ([`cow`]). Without the switch (older model files,
//! JSON, a store's header, the cluster's messages) they are the sequences they always
//! were, so every other format is unchanged. A thread-local switch rather than a second
//! set of types: the model's parts keep one `Serialize`/`Deserialize` each, and only the
//! writer and reader of model files turn the switch on, around one `encode` or `decode`
//! on their own thread.

mod cow;

#[cfg(feature = "serve")]
pub(crate) use cow::CopiedOut;
pub use cow::CowVec;
pub(crate) use cow::InPlace;

use serde::de::Visitor;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::Cell;
use std::marker::PhantomData;

/// How this thread (de)serializes arrays now.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Layout {
    /// As sequences of numbers.
    Sequences,
    /// As byte strings back to back (format 10).
    Packed,
    /// As byte strings, each after the padding that aligns it (format 11 on).
    Aligned,
}

/// The alignment, in bytes from the start of the file, of each array of format 11: a
/// cache line, which any number's alignment divides.
pub(crate) const ALIGN: u64 = 64;

thread_local! {
    static LAYOUT: Cell<Layout> = const { Cell::new(Layout::Sequences) };
    /// Bytes of the file written so far, while a model file is written in the aligned
    /// layout (see [`Tracked`]).
    static WRITTEN: Cell<u64> = const { Cell::new(0) };
}

/// While held, this thread's arrays are (de)serialized as bytes in its layout; dropping
/// it restores what was there before (guards nest).
#[must_use = "the switch is on only while the guard is held"]
pub(crate) struct RawArrays(Layout);

impl RawArrays {
    /// Turns the switch to `layout` for this thread.
    pub(crate) fn on(layout: Layout) -> RawArrays {
        RawArrays(LAYOUT.with(|c| c.replace(layout)))
    }
}

impl Drop for RawArrays {
    fn drop(&mut self) {
        LAYOUT.with(|c| c.set(self.0));
    }
}

/// Whether this thread stores arrays as bytes now.
pub(crate) fn active() -> bool {
    layout() != Layout::Sequences
}

/// This thread's layout now.
fn layout() -> Layout {
    LAYOUT.with(Cell::get)
}

/// A writer that counts, for the aligned layout's padding, the bytes of the file written
/// through it on this thread; made with the bytes already in the file before it.
pub(crate) struct Tracked<W>(W);

impl<W> Tracked<W> {
    /// Tracks writes to `inner`, which has `at` bytes of the file before it.
    pub(crate) fn new(inner: W, at: u64) -> Tracked<W> {
        WRITTEN.with(|c| c.set(at));
        Tracked(inner)
    }
}

impl<W: std::io::Write> std::io::Write for Tracked<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        WRITTEN.with(|c| c.set(c.get() + n as u64));
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// A number stored as its little-endian bytes: only plain numbers (no padding, every
/// bit pattern valid), which the bulk copies and the arrays read in place rely on; public
/// only as the bound of [`CowVec`], and sealed (implemented here for u8, u32, u64, f32).
pub trait Pod:
    sealed::Sealed
    + Copy
    + PartialEq
    + std::fmt::Debug
    + Send
    + Sync
    + Serialize
    + for<'de> Deserialize<'de>
{
    /// Bytes per number.
    const SIZE: usize;
    /// The number of `SIZE` little-endian bytes (read one at a time only on a big-endian
    /// machine).
    #[cfg_attr(target_endian = "little", allow(dead_code))]
    fn read_le(b: &[u8]) -> Self;
    /// Appends the number's little-endian bytes (a copy is made only on a big-endian
    /// machine).
    #[cfg_attr(target_endian = "little", allow(dead_code))]
    fn put_le(self, out: &mut Vec<u8>);
}

/// Keeps [`Pod`] to the numbers implemented here: reading an array in place takes any
/// bytes as numbers, which other types may not allow.
mod sealed {
    /// Implemented by the `Pod` numbers only.
    pub trait Sealed {}
}

macro_rules! pod {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Pod for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn read_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("SIZE bytes"))
            }
            #[inline]
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
pod!(u8, u32, u64, f32);

/// The numbers of `bytes` (a whole number of them, else `None`): one copy of the bytes
/// on a little-endian machine.
pub(crate) fn from_bytes<T: Pod>(bytes: &[u8]) -> Option<Vec<T>> {
    if !bytes.len().is_multiple_of(T::SIZE) {
        return None;
    }
    let n = bytes.len() / T::SIZE;
    #[cfg(target_endian = "little")]
    {
        let mut v = Vec::<T>::with_capacity(n);
        populate(v.as_mut_ptr().cast::<u8>(), bytes.len());
        // SAFETY: `v` has room for `n` numbers, `n · SIZE` bytes, which `bytes` holds; the
        // two do not overlap; `T` is a plain number (see `Pod`), so any bytes are one, and
        // its little-endian bytes are its bytes in memory here.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().cast::<u8>(), bytes.len());
            v.set_len(n);
        }
        Some(v)
    }
    #[cfg(not(target_endian = "little"))]
    {
        let _ = n;
        Some(bytes.chunks_exact(T::SIZE).map(T::read_le).collect())
    }
}

/// Asks the kernel to back the whole pages of the `len` bytes at `at` (fresh memory about
/// to be written whole) in one call rather than a fault per page: a tenth of opening the
/// 90-class Reuters model, whose weights are written into 2,000 fresh pages. Ranges under
/// 64 KiB are left to the faults.
pub(crate) fn populate(at: *mut u8, len: usize) {
    advise(at, len, false);
}

/// [`populate`], offering the range transparent huge pages first where it holds a whole
/// 2 MiB page (and the system gives them on request): for the class block, 9 MB for the
/// 90-class Reuters model, read at random a row of classes a word, whose reads miss the
/// TLB far less with 2 MiB pages (classifying the 12,902 Reuters documents: 2–4% less
/// CPU). Only for an array read at random for its whole life: a range so marked may stall
/// on the kernel's compaction when backed.
pub(crate) fn populate_huge(at: *mut u8, len: usize) {
    advise(at, len, true);
}

/// The advice of [`populate`] and [`populate_huge`].
#[cfg(target_os = "linux")]
fn advise(at: *mut u8, len: usize, huge: bool) {
    const PAGE: usize = 4096;
    /// From this size a range holds a whole 2 MiB page wherever it starts.
    const HUGE: usize = 4 << 20;
    if len < 64 << 10 {
        return;
    }
    let start = (at as usize).next_multiple_of(PAGE);
    let end = (at as usize + len) & !(PAGE - 1);
    if end > start {
        // SAFETY: the range lies inside an allocation this thread owns; the calls only
        // advise the kernel how to back its pages (an older kernel refuses, which is
        // harmless).
        unsafe {
            if huge && end - start >= HUGE {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
            libc::madvise(
                start as *mut libc::c_void,
                end - start,
                libc::MADV_POPULATE_WRITE,
            );
        }
    }
}

/// Elsewhere pages are backed as they are written.
#[cfg(not(target_os = "linux"))]
fn advise(_: *mut u8, _: usize, _: bool) {}

/// The little-endian bytes of `v`.
#[cfg(not(target_endian = "little"))]
fn to_bytes<T: Pod>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * T::SIZE);
    for &x in v {
        x.put_le(&mut out);
    }
    out
}

/// Bytes of bincode's length prefix (a varint) of a byte string of `n` bytes.
fn prefix_len(n: usize) -> u64 {
    match n as u64 {
        0..=250 => 1,
        251..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// Zero bytes to pad with.
const ZEROS: [u8; ALIGN as usize] = [0; ALIGN as usize];

/// A byte string written as one.
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// Writes `bytes` as one byte string in this thread's layout: in the aligned one, after
/// the padding (a byte string of under 64 zero bytes) that puts its first byte at a
/// multiple of [`ALIGN`] bytes into the file being written.
fn write_bytes<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeTuple;
    if layout() != Layout::Aligned {
        return s.serialize_bytes(bytes);
    }
    let at = WRITTEN.with(Cell::get) + 1 + prefix_len(bytes.len());
    let pad = ((ALIGN - at % ALIGN) % ALIGN) as usize;
    let mut t = s.serialize_tuple(2)?;
    t.serialize_element(&Bytes(&ZEROS[..pad]))?;
    t.serialize_element(&Bytes(bytes))?;
    t.end()
}

/// Serializes `v` as one byte string: its bytes in place on a little-endian machine (no
/// copy of the array), else a little-endian copy.
fn serialize_bytes<T: Pod, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
    #[cfg(target_endian = "little")]
    {
        // SAFETY: `T` is one of u8, u32, u64, f32 (the `Pod` impls above): no padding,
        // every bit pattern a valid byte, and `v` outlives the borrow.
        let bytes = unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), size_of_val(v)) };
        write_bytes(bytes, s)
    }
    #[cfg(not(target_endian = "little"))]
    {
        write_bytes(&to_bytes(v), s)
    }
}

/// Reads a byte string as numbers: in place where [`InPlace`] allows, else copied.
struct Numbers<T>(PhantomData<T>);

impl<T: Pod> Numbers<T> {
    /// The sentence for a byte string that is no whole number of numbers.
    fn ragged<E: serde::de::Error>(b: &[u8]) -> E {
        E::custom(format!(
            "an array of {}-byte numbers is {} bytes long",
            T::SIZE,
            b.len()
        ))
    }
}

impl<'de, T: Pod> Visitor<'de> for Numbers<T> {
    type Value = CowVec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "an array of {}-byte numbers", T::SIZE)
    }

    fn visit_borrowed_bytes<E: serde::de::Error>(self, b: &'de [u8]) -> Result<CowVec<T>, E> {
        if !b.len().is_multiple_of(T::SIZE) {
            return Err(Self::ragged(b));
        }
        match CowVec::in_place(b) {
            Some(v) => Ok(v),
            None => self.visit_bytes(b),
        }
    }

    fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> Result<CowVec<T>, E> {
        from_bytes(b)
            .map(CowVec::from)
            .ok_or_else(|| Self::ragged(b))
    }
}

/// One byte string of numbers, whatever the layout.
struct Plain<T>(CowVec<T>);

impl<'de, T: Pod> Deserialize<'de> for Plain<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Plain<T>, D::Error> {
        d.deserialize_bytes(Numbers(PhantomData)).map(Plain)
    }
}

/// The padding before an aligned array: a byte string, whose bytes are not looked at.
struct Padding;

impl<'de> Deserialize<'de> for Padding {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Padding, D::Error> {
        struct Skip;
        impl Visitor<'_> for Skip {
            type Value = Padding;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the padding before an array")
            }
            fn visit_bytes<E: serde::de::Error>(self, _: &[u8]) -> Result<Padding, E> {
                Ok(Padding)
            }
        }
        d.deserialize_bytes(Skip)
    }
}

/// Reads the padding, then the array.
struct Padded<T>(PhantomData<T>);

impl<'de, T: Pod> Visitor<'de> for Padded<T> {
    type Value = CowVec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "an aligned array of {}-byte numbers", T::SIZE)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<CowVec<T>, A::Error> {
        use serde::de::Error;
        seq.next_element::<Padding>()?
            .ok_or_else(|| A::Error::custom("an aligned array lacks its padding"))?;
        let Plain(v) = seq
            .next_element::<Plain<T>>()?
            .ok_or_else(|| A::Error::custom("an aligned array lacks its numbers"))?;
        Ok(v)
    }
}

/// Reads the byte string of an array in this thread's layout (which is not
/// [`Layout::Sequences`]).
fn read_bytes<'de, T: Pod, D: Deserializer<'de>>(d: D) -> Result<CowVec<T>, D::Error> {
    match layout() {
        Layout::Aligned => d.deserialize_tuple(2, Padded(PhantomData)),
        _ => d.deserialize_bytes(Numbers(PhantomData)),
    }
}

/// Bytes in place of a sequence: `#[serde(with = "crate::raw::array")]` on a `Vec` of
/// numbers (too small to be worth a [`CowVec`]) stores it as one byte string while
/// [`RawArrays`] is on.
pub(crate) mod array {
    use super::*;

    /// `v` as bytes while the switch is on, else as a sequence.
    pub(crate) fn serialize<T: Pod, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
        if active() {
            serialize_bytes(v, s)
        } else {
            v.serialize(s)
        }
    }

    /// The array stored by [`serialize`].
    pub(crate) fn deserialize<'de, T: Pod, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
        if active() {
            read_bytes(d).map(CowVec::into_vec)
        } else {
            Vec::<T>::deserialize(d)
        }
    }
}

/// An array borrowed for writing, stored as bytes whatever the switch says (a part that
/// exists only in the byte-string layouts).
pub(crate) struct Array<'a, T>(pub(crate) &'a [T]);

impl<T: Pod> Serialize for Array<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_bytes(self.0, s)
    }
}

/// An array read back (see [`Array`]): in place where it can be.
pub(crate) struct ArrayBuf<T>(pub(crate) CowVec<T>);

impl<'de, T: Pod> Deserialize<'de> for ArrayBuf<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ArrayBuf<T>, D::Error> {
        read_bytes(d).map(ArrayBuf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct W {
        #[serde(with = "array")]
        w: Vec<f32>,
        #[serde(with = "array")]
        df: Vec<u32>,
    }

    fn round_trip(raw: bool) -> (Vec<u8>, W) {
        let w = W {
            w: vec![1.5, -0.0, f32::MIN_POSITIVE, 3.25e7],
            df: vec![0, 7, u32::MAX],
        };
        let _on = raw.then(|| RawArrays::on(Layout::Packed));
        let bytes = bincode::serde::encode_to_vec(&w, bincode::config::standard()).unwrap();
        let (back, n): (W, usize) =
            bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).unwrap();
        assert_eq!(n, bytes.len());
        assert_eq!(back, w);
        (bytes, back)
    }

    #[test]
    fn arrays_round_trip_as_bytes_and_as_sequences() {
        let (raw, _) = round_trip(true);
        let (seq, _) = round_trip(false);
        // As bytes the lengths count bytes (16 and 12); as sequences, numbers, each u32 a
        // varint.
        assert_eq!(&raw[..1], &[16]);
        assert_eq!(raw.len(), 1 + 16 + 1 + 12);
        assert_ne!(raw, seq);
        assert!(!active(), "the guard turns the switch off again");
    }

    #[test]
    fn a_ragged_byte_string_is_refused() {
        let _on = RawArrays::on(Layout::Packed);
        let bytes = [5u8, 1, 2, 3, 4, 5, 0];
        let r: Result<(W, usize), _> =
            bincode::serde::decode_from_slice(&bytes, bincode::config::standard());
        let e = r.unwrap_err().to_string();
        assert!(e.contains("4-byte numbers is 5 bytes"), "{e}");
    }
}
