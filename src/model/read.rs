//! Reading a model file: the header read and checked first, then — only from a regular
//! file whose size is the one the header states, of at most [`MAX_MODEL_BYTES`] — the
//! payload decoded with every length bounded by the bytes the file holds: a file of
//! format 10 on mapped, checksummed with XXH3 and decoded from the mapping, its arrays
//! read in place where aligned, else copied out whole ([`MAPPED`]); a file of an older
//! format read into memory whole (its checksum taken on a second thread while it decodes, for a payload
//! of megabytes), or, over 64 MiB, checksummed through a buffer first and then decoded as
//! it is read through the checksum again, so the file's bytes are never held beside the
//! model. A checksum that does not match refuses the file whatever decoding made of it;
//! then the decoded parts are checked against each other ([`super::check`]).

use super::sum::{Summing, XXH3_FROM, checksum};
use super::{FORMAT_VERSION, HEADER, MAGIC, Model};
use crate::raw::{InPlace, Layout, RawArrays};
use crate::{Error, Result};
use bincode::error::DecodeError;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// The largest model file read: 4 GiB. Larger files (or a device that never ends, such
/// as `/dev/zero`) are refused before they are read.
pub(crate) const MAX_MODEL_BYTES: u64 = 4 << 30;

/// Bytes read at a time from a file whose payload decodes as it is read.
const CHUNK: usize = 1 << 20;

/// The largest payload read into memory whole (and decoded with its checksum taken on a
/// second thread: the models read per message, of megabytes). A larger one decodes as
/// it is read, so that loading a model of gigabytes holds the model and a buffer, not
/// the file's bytes beside it.
const READ_WHOLE: u64 = 64 << 20;

/// Sentence start for a file whose contents contradict themselves.
const DAMAGED: &str = "the model file is damaged";

/// Where a payload is decoded from: memory (which says how many bytes the model took)
/// or a reader (a file read as it decodes, which is checked for trailing bytes apart).
trait Source {
    /// What decoding gives.
    type Decoded;
    /// Decodes a model from this source under `config` (its limit bounds allocation).
    fn decode<C: bincode::config::Config>(self, config: C) -> Result<Self::Decoded, DecodeError>;
}

impl Source for &[u8] {
    type Decoded = (Model, usize);
    fn decode<C: bincode::config::Config>(self, config: C) -> Result<(Model, usize), DecodeError> {
        bincode::serde::decode_from_slice(self, config)
    }
}

/// A payload read as it decodes.
struct Streamed<R>(R);

impl<R: bincode::de::read::Reader> Source for Streamed<R> {
    type Decoded = Model;
    fn decode<C: bincode::config::Config>(self, config: C) -> Result<Model, DecodeError> {
        bincode::serde::decode_from_reader(self.0, config)
    }
}

/// Decodes a payload of `len` bytes from `source` under the smallest of four limits
/// that is at least 32 times its length (and at least 16 MiB): a decoded part claims
/// more bytes than it was written in (a one-byte length of a word claims the word's
/// 24-byte `String`, a one-byte varint a 4-byte `u32`), so an honest file stays well
/// inside its limit, while a crafted length field can allocate no more than that, never
/// what it says.
fn decode_bounded<S: Source>(
    source: S,
    len: usize,
    version: u32,
) -> Result<S::Decoded, DecodeError> {
    const MIB: usize = 1 << 20;
    // Format 10 keeps its large arrays as bytes, format 11 each after its padding (see
    // `crate::raw`).
    let _raw = match version {
        v if v >= ALIGNED => Some(RawArrays::on(Layout::Aligned)),
        v if v >= RAW_ARRAYS => Some(RawArrays::on(Layout::Packed)),
        _ => None,
    };
    let config = bincode::config::standard();
    match len {
        n if n <= MIB / 2 => source.decode(config.with_limit::<{ 16 * MIB }>()),
        n if n <= 8 * MIB => source.decode(config.with_limit::<{ 256 * MIB }>()),
        n if n <= 128 * MIB => source.decode(config.with_limit::<{ 4096 * MIB }>()),
        _ => source.decode(config.with_limit::<{ 32 * MAX_MODEL_BYTES as usize }>()),
    }
}

/// The sentence for a decoding error of a payload of `len` bytes.
fn decode_message(e: &DecodeError, len: usize) -> String {
    match e {
        DecodeError::LimitExceeded => format!(
            "{DAMAGED}: a length in it asks for more bytes than its {len} payload bytes hold"
        ),
        DecodeError::UnexpectedEnd { additional } | DecodeError::Io { additional, .. } => format!(
            "{DAMAGED}: a length in it runs past the end of its {len} payload bytes \
             ({additional} more bytes wanted)"
        ),
        DecodeError::OtherString(s) => format!("{DAMAGED}: {s}"),
        e => format!(
            "cannot decode the model: the file is damaged, or written by an incompatible \
             build ({e})"
        ),
    }
}

/// Format 8: format 9 without the per-class calibration, the last field of the payload.
/// Its payload with `None` appended (one zero byte) decodes as format 9.
const NO_CLASS_CALIBRATION: u32 = 8;
/// Format 7: format 8 without the term counts, the field before the per-class
/// calibration. Its payload with binary counting appended (variant 0, one zero byte), then
/// no per-class calibration, decodes as format 9.
const BINARY_ROWS: u32 = 7;
/// Format 6: format 7 without the calibration, the field before the term counts. Its
/// payload with `None`, binary counting and `None` appended (three zero bytes) decodes as
/// format 9, so models saved before keep their weights, learned state and decision.
const UNCALIBRATED: u32 = 6;
/// Format 5: format 6 without the decision threshold, the field before the calibration.
/// With a threshold of 0 (the decision those models made) and the fields after it appended
/// as for format 6 it decodes as format 9.
const THRESHOLDLESS: u32 = 5;

/// Format 10: the large arrays stored as bytes and the vocabulary as the table it is
/// probed in (`crate::raw`), the payload checksummed with XXH3-64; otherwise format 9.
const RAW_ARRAYS: u32 = 10;

/// Format 11: format 10 with each array after the padding that puts it at a multiple of
/// 64 bytes into the file, so that it is read in place from the mapping.
const ALIGNED: u32 = 11;

/// What a payload of an older format needs appended to decode as the current one.
fn upgrade(version: u32) -> Vec<u8> {
    let mut tail = Vec::new();
    if version == THRESHOLDLESS {
        tail.extend_from_slice(&0f32.to_le_bytes());
    }
    if version <= UNCALIBRATED {
        tail.push(0); // Option::None: no calibration
    }
    if version <= BINARY_ROWS {
        tail.push(0); // TermCounts::Binary
    }
    if version <= NO_CLASS_CALIBRATION {
        tail.push(0); // Option::None: no per-class calibration
    }
    tail
}

/// What a model file's header says: its format version, payload length and checksum.
struct Header {
    version: u32,
    len: u64,
    sum: u64,
}

/// Checks the first bytes of a model file (at least 8, at most the header) and reads the
/// header they hold.
fn header(bytes: &[u8], path: &Path) -> Result<Header> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(Error::model(
            path,
            "not a rosenblatt model (wrong magic number)",
        ));
    }
    if bytes.len() < HEADER {
        return Err(Error::model(
            path,
            "truncated model file (incomplete header)",
        ));
    }
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version > FORMAT_VERSION {
        return Err(Error::model(
            path,
            format!(
                "model format version {version} is newer than this build supports \
                 ({FORMAT_VERSION}); upgrade rosenblatt"
            ),
        ));
    }
    if version < THRESHOLDLESS {
        return Err(Error::model(
            path,
            format!(
                "written by an older rosenblatt (model format {version}); this build \
                 reads format {FORMAT_VERSION}: train the model again"
            ),
        ));
    }
    Ok(Header {
        version,
        len: u64_at(12),
        sum: u64_at(20),
    })
}

/// The sentence for a payload of `have` bytes where the header says `len`.
fn wrong_length(path: &Path, have: u64, len: u64) -> Error {
    if have < len {
        Error::model(
            path,
            format!("truncated model file ({have} of {len} payload bytes)"),
        )
    } else {
        checksum_mismatch(path)
    }
}

/// The sentence for a payload whose checksum is not the one its header states.
fn checksum_mismatch(path: &Path) -> Error {
    Error::model(path, "corrupted model file (checksum mismatch)")
}

/// Reads what is left of a payload through its checksum (`sums` took the payload's
/// bytes, no more) and checks all it read against the header `h`: a file that shrank
/// after its size was read, or whose checksum is not the header's, is refused.
fn read_through<R: Read>(sums: &mut Summing<R>, h: &Header, path: &Path) -> Result<()> {
    std::io::copy(sums, &mut std::io::sink()).map_err(|e| Error::io(path, e))?;
    if sums.len != h.len {
        return Err(wrong_length(path, sums.len, h.len));
    }
    if sums.sum.finish() != h.sum {
        return Err(checksum_mismatch(path));
    }
    Ok(())
}

/// Decodes the payload that `h` describes as it is read from `file` (positioned after
/// the header), checksummed on the way: the model is held once, never beside its file's
/// bytes. Whatever decoding makes of the bytes, the rest of the file is read through the
/// checksum before anything is said, so a damaged file is refused for its checksum, as
/// one read whole is.
fn streamed(h: &Header, file: std::fs::File, path: &Path) -> Result<Model> {
    let mut sums = Summing::new(file.take(h.len), h.version);
    let tail = upgrade(h.version);
    let mut buffered = BufReader::with_capacity(CHUNK, (&mut sums).chain(&tail[..]));
    let decoded = decode_bounded(Streamed(&mut buffered), h.len as usize, h.version);
    let unread = buffered.buffer().len();
    let (file_part, tail_left) = buffered.into_inner().into_inner();
    // The bytes the model took, those of an older format's upgrade included.
    let taken = file_part.len + (tail.len() - tail_left.len()) as u64 - unread as u64;
    read_through(file_part, h, path)?;
    let m = decoded.map_err(|e| match e {
        DecodeError::Io { inner, .. } if inner.kind() != std::io::ErrorKind::UnexpectedEof => {
            Error::io(path, inner)
        }
        e => Error::model(path, decode_message(&e, h.len as usize)),
    })?;
    if taken != h.len + tail.len() as u64 {
        return Err(Error::model(
            path,
            format!(
                "{DAMAGED}: the model ends after {} of its {} payload bytes",
                taken.min(h.len),
                h.len
            ),
        ));
    }
    m.check()
        .map_err(|what| Error::model(path, format!("{DAMAGED}: {what}")))?;
    Ok(m)
}

/// Payloads of an FNV-1a format of at least this many bytes have their checksum taken
/// on a second thread while they decode (FNV-1a reads a byte at a time: a fifth of
/// loading a model of megabytes); smaller ones, and XXH3's, are hashed first.
const SUM_BESIDE: usize = 1 << 20;

/// Decodes `payload` (of format `version`, upgraded to the current one) under its bounds
/// and checks that the model ends where the payload does.
fn decode(version: u32, payload: &[u8], path: &Path) -> Result<Model> {
    let upgraded;
    let tail = upgrade(version);
    let payload = if tail.is_empty() {
        payload
    } else {
        upgraded = [payload, &tail].concat();
        &upgraded[..]
    };
    let (m, read) = decode_bounded(payload, payload.len(), version)
        .map_err(|e| Error::model(path, decode_message(&e, payload.len())))?;
    if read != payload.len() {
        return Err(Error::model(
            path,
            format!(
                "{DAMAGED}: the model ends after {read} of its {} payload bytes",
                payload.len()
            ),
        ));
    }
    Ok(m)
}

/// Decodes and checks the payload that `h` describes. A payload of megabytes is hashed
/// on a second thread while it decodes (decoding is bounded, so a damaged one costs no
/// more than a crafted one); a smaller one, or one where no thread can be started, is
/// hashed first. A checksum that does not match is the error either way.
fn payload(h: &Header, payload: &[u8], path: &Path) -> Result<Model> {
    if payload.len() as u64 != h.len {
        return Err(wrong_length(path, payload.len() as u64, h.len));
    }
    let (sum, decoded) = std::thread::scope(|s| {
        let hashing = (payload.len() >= SUM_BESIDE && h.version < XXH3_FROM)
            .then(|| std::thread::Builder::new().spawn_scoped(s, || checksum(h.version, payload)))
            .and_then(|spawned| spawned.ok());
        match hashing {
            Some(sum) => {
                let model = decode(h.version, payload, path);
                let sum = sum.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                (sum, Some(model))
            }
            None => (checksum(h.version, payload), None),
        }
    });
    if sum != h.sum {
        return Err(checksum_mismatch(path));
    }
    let model = decoded.unwrap_or_else(|| decode(h.version, payload, path));
    let m = model?;
    m.check()
        .map_err(|what| Error::model(path, format!("{DAMAGED}: {what}")))?;
    Ok(m)
}

/// Format 10 on: the file is mapped, not read. Its checksum (XXH3, at memory speed)
/// is taken over the mapping before anything is decoded, and then every array whose
/// bytes lie at its numbers' alignment — from format 11 all of them, the writer pads them
/// to 64 bytes; in a format-10 file those that happen to — is read in place
/// ([`crate::raw::CowVec`]: the model keeps the mapping for as long as it holds such an
/// array, and copies one out the first time it changes it); the others are copied out
/// whole. So opening a model costs no copy of the file or of its weights in memory and no
/// per-element decoding (a page fault maps the system's cached pages sixteen at a time,
/// cheaper than filling them all in first, which was measured). The mapping holds the
/// system's cached pages of the file, never the process's own memory, so a model of
/// gigabytes is held once, as the streamed reading of older formats keeps it. A payload
/// over [`READ_WHOLE`] has its checksum streamed through a buffer before it is mapped,
/// so a damaged one is refused in a buffer's memory.
const MAPPED: u32 = 10;

/// Decodes the file `file` of format 10 on (whose size its header `h` states) through a
/// read-only mapping that the model's arrays go on reading. A file truncated by another
/// program while it is mapped would end the process (SIGBUS) rather than say so, and one
/// written in place would change the model under it: model files are replaced whole
/// (written beside and renamed, `crate::atomic`), never changed in place, so a model
/// keeps reading the file it opened, even once another has been renamed over it.
fn mapped(h: &Header, file: &std::fs::File, path: &Path) -> Result<Model> {
    // SAFETY: mapped read-only, and never written by rosenblatt, which replaces a model
    // file only by renaming another over it (see above); the arrays read in place check
    // their bounds and alignment against the mapping (`crate::raw::CowVec`).
    let map =
        std::sync::Arc::new(unsafe { memmap2::Mmap::map(file) }.map_err(|e| Error::io(path, e))?);
    let _in_place = InPlace::from(std::sync::Arc::clone(&map));
    let bytes = map.get(HEADER..).unwrap_or_default();
    payload(h, bytes, path)
}

impl Model {
    /// Decodes a model read from `path` (used in error messages only).
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Model> {
        let h = header(bytes, path)?;
        payload(&h, &bytes[HEADER..], path)
    }

    /// Reads and checks a model file: a regular file of at most `MAX_MODEL_BYTES`. The
    /// header is read and checked first; then, only when the file's size is the one the
    /// header states, a file of format 10 on is mapped and decoded from the mapping (its
    /// arrays read in place where aligned, else copied out, its checksum taken over the
    /// mapping); of an older format, a payload of up to 64 MiB is read into memory
    /// reserved without aborting and decoded there; a larger one has its checksum streamed from the file
    /// first (a corrupt file is refused in a buffer's memory), then decodes as it is read
    /// through a 1 MiB buffer and the checksum again (against a file changed in between),
    /// so that loading holds the model, not its file beside it.
    pub fn load(path: impl AsRef<Path>) -> Result<Model> {
        let path = path.as_ref();
        let not_regular = || {
            Error::model(
                path,
                "not a regular file (a model is a file written by `rosenblatt train`)",
            )
        };
        // Looked at before opening, so that a FIFO is refused rather than waited on.
        if !std::fs::metadata(path)
            .map_err(|e| Error::io(path, e))?
            .is_file()
        {
            return Err(not_regular());
        }
        let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if !meta.is_file() {
            return Err(not_regular());
        }
        let mut head = Vec::with_capacity(HEADER);
        (&mut file)
            .take(HEADER as u64)
            .read_to_end(&mut head)
            .map_err(|e| Error::io(path, e))?;
        let h = header(&head, path)?;
        if h.len > MAX_MODEL_BYTES {
            return Err(Error::model(
                path,
                format!(
                    "its header claims {} payload bytes: above the {MAX_MODEL_BYTES} bytes \
                     (4 GiB) a model file may hold",
                    h.len
                ),
            ));
        }
        let size = meta.len().saturating_sub(HEADER as u64);
        if size != h.len {
            return Err(wrong_length(path, size, h.len));
        }
        if h.len > READ_WHOLE {
            // The checksum first, a buffer at a time: a damaged length in a payload of
            // gigabytes never reaches the decoder, whose limit lets it reserve many
            // times the payload's size, and a damaged file is never mapped whole.
            let mut sums = Summing::new((&mut file).take(h.len), h.version);
            read_through(&mut sums, &h, path)?;
            if h.version >= MAPPED {
                return mapped(&h, &file, path);
            }
            file.seek(SeekFrom::Start(HEADER as u64))
                .map_err(|e| Error::io(path, e))?;
            return streamed(&h, file, path);
        }
        if h.version >= MAPPED {
            return mapped(&h, &file, path);
        }
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(h.len as usize).map_err(|_| {
            Error::model(
                path,
                format!("{} bytes do not fit in this machine's free memory", h.len),
            )
        })?;
        file.take(h.len + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(path, e))?;
        payload(&h, &bytes, path)
    }
}
