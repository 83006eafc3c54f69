//! The on-disk row cache: binary rows written once to a file and read back through a
//! read-only memory mapping of a private copy, so that a corpus whose rows exceed the machine's memory still
//! trains — every learner reads the cache as it reads rows in memory ([`SparseRows`], the
//! same unchecked [`CsrView`] fast path), and visits it a block of rows at a time
//! ([`SparseRows::shuffle_block`]), so each epoch reads the file in long runs.
//!
//! Pages of the mapping are counted in the process's resident memory while they stay
//! mapped; a helper thread hands them back to the kernel's page cache every
//! [`RELEASE_EVERY`], so the process holds only the pages read since (and the kernel
//! keeps whatever the machine has room for). The check of the whole file on opening, the
//! fastest reader, hands back each stretch as soon as it has read it. Row offsets (8 bytes a row) are read into
//! memory.
//!
//! Layout (little-endian): `MAGIC`, the ids (`u32` × nnz), zero padding to 8 bytes, the
//! row offsets (`u64` × rows + 1), the caller's payload, then a 48-byte trailer: rows,
//! columns, nonzeros, payload length, a checksum of everything between the magic and the
//! trailer, and `MAGIC` again. The file is written beside its path and renamed into place
//! when complete; opening checks the trailer, the checksum, every offset and every id.
//!
//! Opening copies the file first into a private file that no other process can open
//! (created unlinked in the cache's folder; the copy shares the cache's blocks where the
//! file system can) and maps and checks the copy: a cache truncated, replaced or
//! overwritten while training reads it cannot end the run with a signal or make it read
//! beyond the rows it checked — a change during the copy is a refused cache with a
//! sentence. The copy costs the cache's size again on disk while training runs (none
//! after it), and a copy that cannot be made (no space) is refused with a sentence.

use super::{CsrView, RowRef, SparseRows};
use crate::atomic::AtomicFile;
use crate::{Error, Result};
use memmap2::{Mmap, UncheckedAdvice};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The version changes with the payload's layout (2: the stamp covers every file of a folder).
const MAGIC: &[u8; 8] = b"RBROWS\x00\x02";
const TRAILER: usize = 48;
/// How often the mapped pages read so far are handed back to the page cache.
pub(crate) const RELEASE_EVERY: Duration = Duration::from_millis(25);
/// Rows per block of the block-shuffled visiting order of a cache.
pub(crate) const BLOCK_ROWS: usize = 1 << 14;

/// A running checksum of a stream of 64-bit words (FNV-1a over words, then mixed): cheap
/// enough to verify gigabytes on every open.
#[derive(Debug, Clone, Copy)]
struct Checksum(u64);

impl Checksum {
    fn new() -> Self {
        Checksum(0xcbf2_9ce4_8422_2325)
    }
    fn words(&mut self, words: impl Iterator<Item = u64>) {
        for w in words {
            self.0 = (self.0 ^ w).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn ids(&mut self, ids: &[u32]) {
        self.words(ids.iter().map(|&j| u64::from(j)));
    }
    fn bytes(&mut self, b: &[u8]) {
        self.words(b.iter().map(|&x| u64::from(x)));
    }
}

/// Feature ids as the files of the row cache store them: 4 bytes each, little-endian.
pub(crate) fn le_bytes(ids: &[u32]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(ids.len() * 4);
    for &j in ids {
        buf.extend_from_slice(&j.to_le_bytes());
    }
    buf
}

/// Writes rows one after another into a new cache file, which appears at its path only
/// when [`commit`](RowCacheWriter::commit)ted.
#[derive(Debug)]
pub(crate) struct RowCacheWriter {
    path: PathBuf,
    out: AtomicFile,
    indptr: Vec<u64>,
    n_cols: usize,
    sum: Checksum,
}

impl RowCacheWriter {
    /// Starts the cache file at `path` for rows of `n_cols` columns.
    pub(crate) fn create(path: &Path, n_cols: usize) -> Result<Self> {
        let mut out = AtomicFile::create(path)?;
        out.write_all(MAGIC).map_err(|e| Error::io(path, e))?;
        Ok(RowCacheWriter {
            path: path.to_path_buf(),
            out,
            indptr: vec![0],
            n_cols,
            sum: Checksum::new(),
        })
    }

    /// Appends rows: row `i` is `ids[indptr[i] - indptr[0]..indptr[i + 1] - indptr[0]]`;
    /// ids must be sorted, unique and below the width.
    pub(crate) fn push_rows(&mut self, indptr: &[usize], ids: &[u32]) -> Result<()> {
        let base = indptr[0];
        let last = *self.indptr.last().expect("offsets start at 0");
        for &p in &indptr[1..] {
            self.indptr.push(last + (p - base) as u64);
        }
        let ids = &ids[..indptr[indptr.len() - 1] - base];
        debug_assert!(ids.iter().all(|&j| (j as usize) < self.n_cols));
        self.sum.ids(ids);
        self.out
            .write_all(&le_bytes(ids))
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Rows written so far.
    pub(crate) fn rows(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Writes the offsets, `payload` and the trailer, renames the file into place and
    /// opens it.
    pub(crate) fn commit(mut self, payload: &[u8]) -> Result<RowCache> {
        let nnz = *self.indptr.last().expect("offsets start at 0");
        let pad = if nnz % 2 == 1 { 4 } else { 0 };
        let mut tail = vec![0u8; pad];
        for &p in &self.indptr {
            tail.extend_from_slice(&p.to_le_bytes());
        }
        tail.extend_from_slice(payload);
        self.sum.words(self.indptr.iter().copied());
        self.sum.bytes(payload);
        for v in [
            self.rows() as u64,
            self.n_cols as u64,
            nnz,
            payload.len() as u64,
            self.sum.0,
        ] {
            tail.extend_from_slice(&v.to_le_bytes());
        }
        tail.extend_from_slice(MAGIC);
        self.out
            .write_all(&tail)
            .map_err(|e| Error::io(&self.path, e))?;
        self.out.commit()?;
        RowCache::open(&self.path).map(|(cache, _)| cache)
    }
}

/// Rows stored in a cache file, read through a memory mapping.
#[derive(Debug)]
pub(crate) struct RowCache {
    map: Arc<Mmap>,
    indptr: Vec<usize>,
    /// Where the ids start in the mapping.
    ids_at: usize,
    n_cols: usize,
    nnz: usize,
    _release: Release,
}

impl RowCache {
    /// Opens and checks the cache file at `path`; returns the rows and the payload
    /// stored with them.
    pub(crate) fn open(path: &Path) -> Result<(RowCache, Vec<u8>)> {
        RowCache::open_unless(path, |_| Ok(()))
    }

    /// [`RowCache::open`], with `early` run on the first bytes of the payload (not yet
    /// checked) once the trailer's sizes add up, before the file is copied and its rows
    /// checked (seconds for billions of nonzeros): a cache that `early` refuses (a stale
    /// one) is refused at once.
    pub(crate) fn open_unless(
        path: &Path,
        early: impl FnOnce(&[u8]) -> Result<()>,
    ) -> Result<(RowCache, Vec<u8>)> {
        let bad = |message: String| Error::Parse {
            path: path.to_path_buf(),
            line: None,
            message,
        };
        if cfg!(target_endian = "big") {
            return Err(Error::Unsupported(format!(
                "{}: row caches are little-endian; this machine is not",
                path.display()
            )));
        }
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            return Err(bad(
                "a folder, not a row cache: --cache takes the path of a file \
                 (one `train --cache` wrote, or one it will write)"
                    .into(),
            ));
        }
        if !meta.is_file() {
            return Err(bad(format!(
                "{}: a row cache is a regular file",
                crate::atomic::not_regular(&meta.file_type())
            )));
        }
        refuse_early(&file, meta.len(), early)?;
        let copy = private_copy(path, file)?;
        // SAFETY: the mapping is read-only, of a file no other process can open (created
        // unlinked, reachable only through this process's descriptor), and checked below
        // before any row is read: no change to the cache's path reaches it.
        let map = unsafe { Mmap::map(&copy) }.map_err(|e| Error::io(path, e))?;
        drop(copy);
        let len = map.len();
        if len < MAGIC.len() + TRAILER || &map[..8] != MAGIC || &map[len - 8..] != MAGIC {
            return Err(bad(
                "not a row cache of this version (written by `train --cache`), \
                            or truncated"
                    .into(),
            ));
        }
        let word = |k: usize| {
            let at = len - TRAILER + 8 * k;
            u64::from_le_bytes(map[at..at + 8].try_into().expect("8 bytes"))
        };
        let (rows, n_cols, nnz, payload_len, sum) = (word(0), word(1), word(2), word(3), word(4));
        let layout = layout(rows, nnz, payload_len).and_then(|(offsets, payload, end)| {
            (end == len as u64 && n_cols <= u64::from(u32::MAX) + 1)
                .then_some((offsets as usize, payload as usize))
        });
        let Some((offsets_at, payload_at)) = layout else {
            return Err(bad("its sizes do not add up: truncated or corrupt".into()));
        };
        let (rows, n_cols, nnz) = (rows as usize, n_cols as usize, nnz as usize);
        let mut indptr = Vec::with_capacity(rows + 1);
        for c in map[offsets_at..payload_at].chunks_exact(8) {
            indptr.push(u64::from_le_bytes(c.try_into().expect("8 bytes")) as usize);
        }
        if indptr[0] != 0 || indptr[rows] != nnz || indptr.windows(2).any(|w| w[0] > w[1]) {
            return Err(bad("its row offsets are out of order: corrupt".into()));
        }
        let map = Arc::new(map);
        let release = Release::start(Arc::clone(&map));
        let cache = RowCache {
            map,
            indptr,
            ids_at: 8,
            n_cols,
            nnz,
            _release: release,
        };
        // Checksum and width of every id, a block of rows at a time.
        let mut check = Checksum::new();
        let ids = cache.ids();
        for (k, part) in ids.chunks(1 << 22).enumerate() {
            check.ids(part);
            if !crate::features::ops::ids_below(part, n_cols) {
                return Err(bad(format!(
                    "a feature id is beyond its {n_cols} columns: corrupt"
                )));
            }
            // SAFETY: as in `Release`: a read-only shared file mapping reads the same
            // bytes after its pages are dropped.
            let _ = unsafe {
                cache.map.unchecked_advise_range(
                    UncheckedAdvice::DontNeed,
                    cache.ids_at + 4 * k * (1 << 22),
                    4 * part.len(),
                )
            };
        }
        let words = cache.indptr.iter().map(|&p| p as u64);
        check.words(words);
        let payload = cache.map[payload_at..payload_at + payload_len as usize].to_vec();
        check.bytes(&payload);
        if check.0 != sum {
            return Err(bad(
                "its checksum does not match: the file is corrupt".into()
            ));
        }
        Ok((cache, payload))
    }

    fn ids(&self) -> &[u32] {
        let bytes = &self.map[self.ids_at..self.ids_at + 4 * self.nnz];
        // SAFETY: the mapping starts on a page boundary and the ids 8 bytes after it, so
        // they are 4-aligned; `align_to` checks it, and every bit pattern is a u32.
        let (head, ids, tail) = unsafe { bytes.align_to::<u32>() };
        assert!(head.is_empty() && tail.is_empty(), "ids are 4-aligned");
        ids
    }
}

impl SparseRows for RowCache {
    fn n_rows(&self) -> usize {
        self.indptr.len() - 1
    }
    fn n_cols(&self) -> usize {
        self.n_cols
    }
    fn row(&self, i: usize) -> RowRef<'_> {
        RowRef::binary(&self.ids()[self.indptr[i]..self.indptr[i + 1]])
    }
    fn nnz(&self) -> usize {
        self.nnz
    }
    fn csr(&self) -> Option<CsrView<'_>> {
        // SAFETY: `open` checked the offsets (from 0 to nnz, in order) and every id's width.
        Some(unsafe { CsrView::trusted(&self.indptr, self.ids(), None, self.n_cols) })
    }
    fn shuffle_block(&self) -> Option<usize> {
        Some(BLOCK_ROWS)
    }
}

/// Where a cache of `rows` rows, `nnz` ids and a payload of `payload_len` bytes keeps its
/// row offsets and its payload, and where it ends (the trailer included); `None` when the
/// sizes a damaged trailer claims overflow.
fn layout(rows: u64, nnz: u64, payload_len: u64) -> Option<(u64, u64, u64)> {
    let offsets = nnz
        .checked_mul(4)?
        .checked_add(8)?
        .checked_add((nnz % 2) * 4)?;
    let payload = offsets.checked_add(rows.checked_add(1)?.checked_mul(8)?)?;
    let end = payload
        .checked_add(payload_len)?
        .checked_add(TRAILER as u64)?;
    Some((offsets, payload, end))
}

/// The most bytes of a payload read for the early check: the stamp and analyzer come
/// first and are small; a head beyond it is left to the full check.
const EARLY_BYTES: u64 = 4 << 20;

/// Runs `early` on the payload's first bytes of the cache `file` (`len` bytes), read with
/// plain reads from the trailer's sizes; a file too short or whose sizes do not add up is
/// left to the check of its copy, which names what is wrong.
fn refuse_early(
    mut file: &std::fs::File,
    len: u64,
    early: impl FnOnce(&[u8]) -> Result<()>,
) -> Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    if len < (MAGIC.len() + TRAILER) as u64 {
        return Ok(());
    }
    let mut trailer = [0u8; TRAILER];
    let read = file
        .seek(SeekFrom::Start(len - TRAILER as u64))
        .and_then(|_| file.read_exact(&mut trailer));
    if read.is_err() {
        return Ok(());
    }
    let word = |k: usize| u64::from_le_bytes(trailer[8 * k..8 * k + 8].try_into().expect("8"));
    let (rows, nnz, payload_len) = (word(0), word(2), word(3));
    let at = layout(rows, nnz, payload_len).map(|(_, payload, _)| payload);
    let Some(at) = at.filter(|&a| a.saturating_add(payload_len) <= len) else {
        return Ok(());
    };
    let mut head = Vec::new();
    let read = file.seek(SeekFrom::Start(at)).and_then(|_| {
        file.take(payload_len.min(EARLY_BYTES))
            .read_to_end(&mut head)
    });
    match read {
        Ok(_) => early(&head),
        Err(_) => Ok(()),
    }
}

/// A private copy of the cache `path` (open as `file`) to map: a file created unlinked
/// beside it (or, where that folder cannot take one, in the temporary folder), which no
/// other process can reach, so truncating, replacing or overwriting the cache while it
/// is read cannot change the bytes training reads. A cache changed while it is copied is
/// a copy whose sizes or checksum are wrong, refused by the checks that follow.
fn private_copy(path: &Path, mut file: std::fs::File) -> Result<std::fs::File> {
    let dir = crate::atomic::real_target(path)?
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let mut copy = tempfile::tempfile_in(&dir)
        .or_else(|_| tempfile::tempfile())
        .map_err(|e| {
            Error::Data(format!(
                "{}: no private copy of the row cache can be made to train from ({e})",
                path.display()
            ))
        })?;
    use std::io::Seek;
    file.rewind()
        .and_then(|()| std::io::copy(&mut file, &mut copy))
        .map_err(|e| {
            Error::Data(format!(
                "{}: the private copy of the row cache that training reads could not be made \
             ({e}); it needs the cache's size again in free space beside the cache",
                path.display()
            ))
        })?;
    Ok(copy)
}

/// The helper thread that hands the mapping's pages back to the page cache, stopped and
/// joined when the cache is dropped.
#[derive(Debug)]
struct Release {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Release {
    fn start(map: Arc<Mmap>) -> Release {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("row-cache-release".into())
            .spawn(move || {
                let (lock, wake) = &*flag;
                let mut stopped = lock.lock().unwrap_or_else(|e| e.into_inner());
                while !*stopped {
                    stopped = wake
                        .wait_timeout(stopped, RELEASE_EVERY)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                    // SAFETY: the mapping is a read-only shared mapping of a file: dropping
                    // its pages changes no byte a reader sees (the next read maps the same
                    // file page again), so borrows of it stay valid.
                    let _ = unsafe { map.unchecked_advise(UncheckedAdvice::DontNeed) };
                }
            })
            .ok();
        Release { stop, thread }
    }
}

impl Drop for Release {
    fn drop(&mut self) {
        let (lock, wake) = &*self.stop;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::synthetic::zipf_rows;

    fn written(dir: &Path, payload: &[u8]) -> (crate::features::BinaryMatrix, PathBuf) {
        let (x, _) = zipf_rows(300, 50, 8, 5);
        let path = dir.join("rows.cache");
        let mut w = RowCacheWriter::create(&path, x.cols()).unwrap();
        let (p, ids) = (x.indptr(), x.indices());
        let p = p.raw_storage();
        w.push_rows(&p[..101], &ids[..p[100]]).unwrap();
        w.push_rows(&p[100..], &ids[p[100]..]).unwrap();
        w.commit(payload).unwrap();
        (x, path)
    }

    #[test]
    fn a_cache_reads_back_the_rows_and_payload_it_was_written_with() {
        let dir = tempfile::tempdir().unwrap();
        let (x, path) = written(dir.path(), b"vocabulary and labels");
        let (c, payload) = RowCache::open(&path).unwrap();
        assert_eq!(payload, b"vocabulary and labels");
        assert_eq!((c.n_rows(), c.n_cols(), c.nnz()), (300, x.cols(), x.nnz()));
        for i in 0..300 {
            let want = SparseRows::row(&x, i).ids;
            assert_eq!(c.row(i).ids, want);
            assert_eq!(c.csr().unwrap().row(i).ids, want);
        }
    }

    #[test]
    fn rows_opened_stay_as_checked_when_the_file_is_cut_short_or_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let (x, path) = written(dir.path(), b"p");
        let (c, _) = RowCache::open(&path).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(100)
            .unwrap();
        for i in 0..300 {
            assert_eq!(c.row(i).ids, SparseRows::row(&x, i).ids);
        }
        std::fs::write(&path, vec![0xFF; 4096]).unwrap();
        let view = c.csr().unwrap();
        assert!((0..300).all(|i| view.row(i).ids.iter().all(|&j| (j as usize) < x.cols())));
        let e = RowCache::open(&path).unwrap_err().to_string();
        assert!(
            e.contains("rows.cache") && e.contains("not a row cache"),
            "{e}"
        );
    }

    #[test]
    fn a_folder_is_refused_as_a_cache_with_a_sentence() {
        let dir = tempfile::tempdir().unwrap();
        let e = RowCache::open(dir.path()).unwrap_err().to_string();
        assert!(e.contains("a folder, not a row cache"), "{e}");
    }

    #[test]
    fn sizes_that_overflow_are_refused_not_added() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.cache");
        // A trailer claiming 2^62 - 3 ids: their bytes overflow a u64 once padded.
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&[0; 8]);
        for v in [1u64, 4, (1 << 62) - 3, 0, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(MAGIC);
        std::fs::write(&path, &b).unwrap();
        let e = RowCache::open(&path).unwrap_err().to_string();
        assert!(e.contains("do not add up"), "{e}");
        assert_eq!(layout(1, u64::MAX / 4, 0), None);
        assert_eq!(layout(0, 1, 0), Some((16, 24, 72)));
    }

    #[test]
    fn a_damaged_or_foreign_cache_is_refused_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let (_, path) = written(dir.path(), b"p");
        let good = std::fs::read(&path).unwrap();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (good[..good.len() - 3].to_vec(), "not a row cache"),
            (b"label\ttext\n".repeat(10), "not a row cache"),
            (
                {
                    let mut b = good.clone();
                    b[20] ^= 1;
                    b
                },
                "checksum",
            ),
            (
                {
                    let mut b = good.clone();
                    let at = b.len() - TRAILER;
                    b[at] ^= 1;
                    b
                },
                "do not add up",
            ),
        ];
        for (bytes, want) in cases {
            std::fs::write(&path, &bytes).unwrap();
            let e = RowCache::open(&path).unwrap_err().to_string();
            assert!(e.contains("rows.cache") && e.contains(want), "{e}");
        }
    }
}
