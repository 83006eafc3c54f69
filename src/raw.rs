//! Arrays stored as their bytes: how a format-10 model file keeps its large arrays
//! (weights, feature weights, document frequencies, the vocabulary's table).
//!
//! Through serde an array of `n` numbers is `n` elements, each decoded through a visitor
//! call: about a fifth of opening a model of megabytes. While [`RawArrays`] is held on a
//! thread, the fields marked `#[serde(with = "crate::raw::array")]` are written there as
//! one byte string (a length, then the numbers little-endian, back to back) and read back
//! with one bulk copy. Without it (older model files, JSON, a store's header, the
//! cluster's messages) they are the sequences they always were, so every other format is
//! unchanged. A thread-local switch rather than a second set of types: the model's parts
//! keep one `Serialize`/`Deserialize` each, and only the writer and reader of model files
//! turn the switch on, around one `encode` or `decode` on their own thread.

use serde::de::Visitor;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::Cell;
use std::marker::PhantomData;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

/// While held, this thread's marked arrays are (de)serialized as bytes; dropping it
/// restores what was there before (guards nest).
#[must_use = "the switch is on only while the guard is held"]
pub(crate) struct RawArrays(bool);

impl RawArrays {
    /// Turns the switch on for this thread.
    pub(crate) fn on() -> RawArrays {
        RawArrays(ON.with(|c| c.replace(true)))
    }
}

impl Drop for RawArrays {
    fn drop(&mut self) {
        ON.with(|c| c.set(self.0));
    }
}

/// Whether this thread stores arrays as bytes now.
pub(crate) fn active() -> bool {
    ON.with(Cell::get)
}

/// A number stored as its little-endian bytes: only plain numbers (no padding, every
/// bit pattern valid), which the bulk copies here rely on.
pub(crate) trait Pod: Copy + Serialize + for<'de> Deserialize<'de> {
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

macro_rules! pod {
    ($($t:ty),*) => {$(
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
#[cfg(target_os = "linux")]
pub(crate) fn populate(at: *mut u8, len: usize) {
    const PAGE: usize = 4096;
    if len < 64 << 10 {
        return;
    }
    let start = (at as usize).next_multiple_of(PAGE);
    let end = (at as usize + len) & !(PAGE - 1);
    if end > start {
        // SAFETY: the range lies inside an allocation this thread owns; the call only
        // asks for its pages to be backed (an older kernel refuses, which is harmless).
        unsafe {
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
pub(crate) fn populate(_: *mut u8, _: usize) {}

/// The little-endian bytes of `v`.
#[cfg(not(target_endian = "little"))]
fn to_bytes<T: Pod>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * T::SIZE);
    for &x in v {
        x.put_le(&mut out);
    }
    out
}

/// Serializes `v` as one byte string: its bytes in place on a little-endian machine (no
/// copy of the array), else a little-endian copy.
fn serialize_bytes<T: Pod, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
    #[cfg(target_endian = "little")]
    {
        // SAFETY: `T` is one of u8, u32, u64, f32 (the `Pod` impls above): no padding,
        // every bit pattern a valid byte, and `v` outlives the borrow.
        let bytes = unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), size_of_val(v)) };
        s.serialize_bytes(bytes)
    }
    #[cfg(not(target_endian = "little"))]
    {
        s.serialize_bytes(&to_bytes(v))
    }
}

/// Reads a byte string as numbers.
struct Numbers<T>(PhantomData<T>);

impl<'de, T: Pod> Visitor<'de> for Numbers<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "an array of {}-byte numbers", T::SIZE)
    }

    fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> Result<Vec<T>, E> {
        from_bytes(b).ok_or_else(|| {
            E::custom(format!(
                "an array of {}-byte numbers is {} bytes long",
                T::SIZE,
                b.len()
            ))
        })
    }
}

/// Bytes in place of a sequence: `#[serde(with = "crate::raw::array")]` on a `Vec` of
/// numbers stores it as one byte string while [`RawArrays`] is on.
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
            d.deserialize_bytes(Numbers(PhantomData))
        } else {
            Vec::<T>::deserialize(d)
        }
    }
}

/// An array borrowed for writing, stored as bytes whatever the switch says (a part that
/// exists only in the format-10 layout).
pub(crate) struct Array<'a, T>(pub(crate) &'a [T]);

impl<T: Pod> Serialize for Array<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_bytes(self.0, s)
    }
}

/// An array read back (see [`Array`]).
pub(crate) struct ArrayBuf<T>(pub(crate) Vec<T>);

impl<'de, T: Pod> Deserialize<'de> for ArrayBuf<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ArrayBuf<T>, D::Error> {
        d.deserialize_bytes(Numbers(PhantomData)).map(ArrayBuf)
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
        let _on = raw.then(RawArrays::on);
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
        let _on = RawArrays::on();
        let bytes = [5u8, 1, 2, 3, 4, 5, 0];
        let r: Result<(W, usize), _> =
            bincode::serde::decode_from_slice(&bytes, bincode::config::standard());
        let e = r.unwrap_err().to_string();
        assert!(e.contains("4-byte numbers is 5 bytes"), "{e}");
    }
}
