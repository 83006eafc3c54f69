//! A filter kept in an embedded transactional store (LMDB, through `heed`), for mail
//! delivery: a process started per message reads only that message's features in a read
//! transaction, and `learn` changes only the features it touches in write transactions
//! of a bounded size, so the cost of a message does not grow with the model.
//!
//! A store is a folder holding LMDB's `data.mdb` and `lock.mdb`, with two tables: `meta`,
//! whose one entry is the header (everything of the model that is not one value per
//! feature), and the features table, one record per feature keyed by the word itself
//! (`words`), or by its hashed id in a hashed space (`ids`, where ids no message ever
//! reached have no entry, so the file grows with the features seen, not with 2^B).
//!
//! Readers never wait for a writer (LMDB's copy-on-write pages: a reader sees the last
//! committed state); writers take LMDB's own lock, one at a time; a killed writer leaves
//! the state of the last commit. Commits are not flushed to the disk one by one
//! (`NO_SYNC`): a killed process loses nothing, a crash of the operating system can lose
//! the last commits (as with bogofilter's default database). Writers change the memory
//! map in place (`WRITE_MAP`: no copy of each touched page on the heap, no write call per
//! page), so LMDB keeps the data file as long as the map; the map starts small and grows
//! before a transaction that could fill it, so the file stays within about twice the data
//! it holds. The blocks a transaction may write are reserved on the disk first (Linux's
//! `fallocate`), so a full disk is an error rather than a SIGBUS. Readers unmap the
//! store's pages as they go (`resident`), so a process's memory does not grow with the
//! store. A process's reader slot is freed by the next process to open the store when it
//! is killed (`MAX_READERS` slots), writers take a lock of their own with a time limit
//! (`writer`), and a fault in a damaged page is a sentence, not a signal (`fault`).
//!
//! Any two-class linear text model can be kept so: [`Store::create`] writes a model as a
//! store and [`Store::to_model`] reads it back as the same model, bit for bit, so the two
//! forms decide every message alike (the single-file form stays the way to move a
//! filter between machines). [`Snapshot::decide`] and [`Store::learn`] compute exactly
//! what `crate::Model::decide` and [`crate::incremental::learn_document`] compute, on
//! the message's features alone.

mod cache;
mod convert;
mod fault;
mod filter;
mod header;
mod probe;
mod record;
mod resident;
mod table;
mod writer;

pub use filter::{Snapshot, StoreLearned};
pub(crate) use writer::DEFAULT_LOCK_TIMEOUT;

use crate::{Error, Result};
use header::Header;
use heed::types::Bytes;
use heed::{Database, Env, EnvFlags, EnvOpenOptions};
use std::path::{Path, PathBuf};

/// A store's map is a whole number of these: a new one the least that holds what it is
/// written with, then grown with the data (see [`make_room`]). Every block of the map is
/// reserved on the disk, so a store takes no more than about twice its data.
const MAP_STEP: usize = 1 << 20;
/// The most a store may hold: 4 GiB, as a model file.
const MAX_MAP_BYTES: usize = 4 << 30;
/// The header's key in the `meta` table.
const HEADER_KEY: &[u8] = b"header";
/// LMDB's data file in a store's folder.
const DATA_FILE: &str = "data.mdb";
/// LMDB's lock file in a store's folder.
const LOCK_FILE: &str = "lock.mdb";
/// Reader slots in a store's lock file: one per process (or thread) reading at once. A
/// busy mail server runs hundreds of deliveries side by side; LMDB's default is 126.
const MAX_READERS: u32 = 1024;

/// How a process opens a store: to read (classify) or to learn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Read-only: `classify`, and reading the whole model (`eval`, `inspect`, `convert`).
    Read,
    /// Read and write: `learn`, and a new store.
    Write,
}

/// An open filter store.
pub struct Store {
    env: Env,
    /// How the store's filter reads messages (fixed for a store's life).
    analyzer: crate::text::Analyzer,
    /// Its classes (fixed for a store's life).
    classes: Vec<String>,
    /// Whether it gives P(spam) for a score (fixed for a store's life).
    probabilistic: bool,
    meta: Database<Bytes, Bytes>,
    features: table::Table,
    path: PathBuf,
    /// How long a writer waits for another.
    lock_timeout: std::time::Duration,
    /// The lock file this process opened the store with.
    lock_file: Option<writer::FileId>,
    /// The sentence a fault inside the store's pages ends the process with.
    fault: &'static [u8],
    /// Whether its pages stay mapped between snapshots (a daemon's), rather than being
    /// handed back every few lookups (a bulk `classify`'s, whose resident memory stays
    /// bounded).
    keep_mapped: std::sync::atomic::AtomicBool,
    /// The records a process that keeps the store mapped has read (see `cache`).
    records: cache::RecordCache,
    /// The header such a process decoded last, with LMDB's id of the committed state it
    /// is of: a header changes only with a commit, and decoding it for every message cost
    /// a fortieth of a verdict.
    last_header: std::sync::Mutex<Option<(usize, std::sync::Arc<Header>)>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Whether `path` is a store: a folder holding LMDB's data file. Model files are
    /// regular files, so the two never mix.
    pub fn is_store(path: impl AsRef<Path>) -> bool {
        let path = path.as_ref();
        // A folder whose data file this user may not see is taken for a store, so that
        // opening it says "permission denied" rather than "not a filter store".
        path.is_dir()
            && match std::fs::metadata(path.join(DATA_FILE)) {
                Ok(m) => m.is_file(),
                Err(e) => e.kind() == std::io::ErrorKind::PermissionDenied,
            }
    }

    /// Opens the store at `path` for reading and learning. A folder that is not a
    /// store, a foreign LMDB environment or a damaged header is refused with a sentence
    /// naming it; nothing is created.
    pub(crate) fn open(path: impl AsRef<Path>) -> Result<Store> {
        Store::open_as(path.as_ref(), Access::Write, DEFAULT_LOCK_TIMEOUT)
    }

    /// `Store::open`, waiting at most `timeout` for another writer of the store (there
    /// and in every later [`Store::learn`]) before it gives up with an error naming the
    /// store: what `learn --lock-timeout` asks for.
    pub fn open_waiting(path: impl AsRef<Path>, timeout: std::time::Duration) -> Result<Store> {
        Store::open_as(path.as_ref(), Access::Write, timeout)
    }

    /// Opens the store at `path` for reading only (classifying): what a process that
    /// never learns needs, with the same refusals as `Store::open`. A process opens a
    /// store one way.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Store> {
        Store::open_as(path.as_ref(), Access::Read, DEFAULT_LOCK_TIMEOUT)
    }

    /// Opens the store at `path`.
    fn open_as(path: &Path, access: Access, lock_timeout: std::time::Duration) -> Result<Store> {
        if !Store::is_store(path) {
            return Err(Error::model(
                path,
                "not a filter store (a folder with data.mdb, made by `rosenblatt convert`)",
            ));
        }
        // A data file cut short would be read past its end through the map (a bus error):
        // it must hold every page the last commit names. One shorter than LMDB's two meta
        // pages would be taken by LMDB for a new store and written over: it is refused
        // before LMDB sees it.
        let data = path.join(DATA_FILE);
        let len = std::fs::File::open(&data)
            .and_then(|f| f.metadata())
            .map_err(|e| Error::io(&data, e))?
            .len();
        if len < 2 * 4096 {
            return Err(Error::model(
                path,
                format!(
                    "damaged store: data.mdb holds {len} bytes, less than the two pages every \
                     store begins with (restore it from a backup: `rosenblatt convert \
                     BACKUP.model NEW-STORE`)"
                ),
            ));
        }
        let fault = fault::sentence(path);
        let _watch = fault::Watch::new(fault);
        // A process that may write maps the store with LMDB's WRITE_MAP, and LMDB cuts the
        // data file to the map it opens with: opened while a writer has grown the file for
        // a transaction not yet committed, it would cut that transaction's pages off. It
        // opens under the writers' lock.
        let _writer = match access {
            Access::Write => Some(writer::WriterLock::take(path, &data, lock_timeout, None)?),
            Access::Read => None,
        };
        let env = open_env(path, access, None)?;
        let lmdb = |e| lmdb_error(path, e);
        // Read again now that the environment is open: a writer may have grown the file
        // and committed since the first look. What the last commit needs is read first:
        // a writer grows the file before it commits, so a length read after it holds
        // every page of that commit, while one read before could miss a commit made in
        // between and call a sound store damaged.
        let need = (env.info().last_page_number as u64 + 1) * u64::from(env.stat().page_size);
        let len = std::fs::metadata(&data)
            .map_err(|e| Error::io(&data, e))?
            .len();
        if len < need {
            return Err(Error::model(
                path,
                format!("damaged store: data.mdb holds {len} bytes, its last commit needs {need}"),
            ));
        }
        let (rtxn, _maps) = read_txn(&env).map_err(lmdb)?;
        let meta = env
            .open_database::<Bytes, Bytes>(&rtxn, Some("meta"))
            .map_err(lmdb)?;
        let (Some(meta), Some(features)) = (meta, table::Table::open(&env, &rtxn).map_err(lmdb)?)
        else {
            return Err(Error::model(
                path,
                "an LMDB environment without a filter's tables (not made by rosenblatt)",
            ));
        };
        // The header is read and checked once here.
        let header = read_header(meta, &rtxn, path)?;
        let probabilistic = header.calibration.is_some() || header.logistic;
        let (analyzer, classes) = (header.analyzer, header.classes);
        rtxn.commit().map_err(lmdb)?;
        Ok(Store {
            env,
            analyzer,
            classes,
            probabilistic,
            meta,
            features,
            path: path.to_path_buf(),
            lock_timeout,
            lock_file: writer::FileId::of(&path.join(LOCK_FILE)),
            fault,
            keep_mapped: std::sync::atomic::AtomicBool::new(false),
            records: cache::RecordCache::default(),
            last_header: Default::default(),
        })
    }

    /// Keeps the store's pages mapped between snapshots: a long-running process that
    /// answers message after message saves the search of its maps and the page faults
    /// of mapping them again, and holds the store's size at most.
    pub fn keep_mapped(&self) {
        self.keep_mapped
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The memory of records read, for a process that keeps the store mapped (one that
    /// answers message after message); `None` for one that reads a few messages.
    fn record_cache(&self) -> Option<&cache::RecordCache> {
        self.keep_mapped
            .load(std::sync::atomic::Ordering::Relaxed)
            .then_some(&self.records)
    }

    /// Watches this thread's work in the store's pages while the value lives (see
    /// `fault`).
    fn watch(&self) -> fault::Watch {
        fault::Watch::new(self.fault)
    }

    /// How the store's filter reads messages (read when the store was opened; a store's
    /// analyzer never changes).
    pub fn analyzer(&self) -> &crate::text::Analyzer {
        &self.analyzer
    }

    /// Its classes, in the order decisions index them (read when the store was opened).
    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    /// Whether it gives P(spam) for a score: a calibration, or a logistic filter's own
    /// log-odds (read when the store was opened).
    pub fn probabilistic(&self) -> bool {
        self.probabilistic
    }

    /// The header as of `txn`.
    fn header(&self, txn: &heed::RoTxn) -> Result<Header> {
        read_header(self.meta, txn, &self.path)
    }

    /// The header as of read transaction `txn`, shared: decoded once per committed state
    /// by a process that keeps the store mapped, every time by others.
    fn shared_header(&self, txn: &heed::RoTxn) -> Result<std::sync::Arc<Header>> {
        if self.record_cache().is_none() {
            return Ok(std::sync::Arc::new(self.header(txn)?));
        }
        let mut last = self.last_header.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, h)) = last.as_ref().filter(|(id, _)| *id == txn.id()) {
            return Ok(h.clone());
        }
        let h = std::sync::Arc::new(self.header(txn)?);
        *last = Some((txn.id(), h.clone()));
        Ok(h)
    }

    /// Writes `header` in `txn`.
    fn put_header(&self, txn: &mut heed::RwTxn, header: &Header) -> Result<()> {
        self.meta
            .put(txn, HEADER_KEY, &header.encode()?)
            .map_err(|e| lmdb_error(&self.path, e))
    }

    /// A damaged-store error about the feature entry `key`.
    fn damaged(&self, key: &[u8], what: &str) -> Error {
        Error::model(
            &self.path,
            format!(
                "damaged store: the feature entry {:?} {what}",
                String::from_utf8_lossy(key)
            ),
        )
    }
}

/// The header of the store at `path` as of `txn`, from its `meta` table.
fn read_header(meta: Database<Bytes, Bytes>, txn: &heed::RoTxn, path: &Path) -> Result<Header> {
    let bytes = meta
        .get(txn, HEADER_KEY)
        .map_err(|e| lmdb_error(path, e))?
        .ok_or_else(|| Error::model(path, "the store has no header entry"))?;
    Header::decode(bytes).map_err(|m| Error::model(path, format!("damaged store: {m}")))
}

/// Opens (or, in an empty folder, creates with a map of `map` bytes) the LMDB
/// environment at `path`; an existing one keeps the map size its last writer recorded.
fn open_env(path: &Path, access: Access, map: Option<usize>) -> Result<Env> {
    let mut options = EnvOpenOptions::new();
    options.max_dbs(3).max_readers(MAX_READERS);
    if let Some(bytes) = map {
        options.map_size(bytes);
    }
    let flags = match access {
        Access::Read => EnvFlags::READ_ONLY | EnvFlags::NO_READ_AHEAD,
        Access::Write => EnvFlags::NO_SYNC | EnvFlags::WRITE_MAP,
    };
    // SAFETY: the store's files are changed only through LMDB, whose lock file orders
    // every process's transactions; the flags only skip flushing to the disk and let
    // writers change the map in place.
    let env = unsafe {
        options.flags(flags);
        options.open(path)
    }
    .map_err(|e| lmdb_error(path, e))?;
    // Processes killed while they read (an MTA's timeout, the OOM killer) keep their
    // reader slots until LMDB's reader check frees them: done at every open, so that
    // dead readers neither fill the table nor pin old pages.
    env.clear_stale_readers().map_err(|e| lmdb_error(path, e))?;
    Ok(env)
}

/// The map of a new store that is written with `needed` bytes.
fn first_map(needed: usize) -> usize {
    needed.saturating_add(64 << 10).div_ceil(MAP_STEP) * MAP_STEP
}

/// Guards this process's maps of stores: every transaction holds it shared, and growing a
/// map (which moves it) takes it alone, so no transaction of another thread reads a map
/// that moves under it. Growth waits for the other threads' transactions to end, at most
/// 5 s (see [`make_room`]).
static REMAP: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Held by a transaction while it lasts: no map of this process moves meanwhile.
type MapGuard = std::sync::RwLockReadGuard<'static, ()>;

/// The guard a transaction holds (a panic elsewhere poisons nothing that matters here).
fn hold_maps() -> MapGuard {
    REMAP
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A read transaction with its guard; when a writer of another process grew the map since
/// this one was opened, the map is grown here too (where no other transaction of this
/// process is open) and the transaction begun again.
fn read_txn(env: &Env) -> heed::Result<(heed::RoTxn<'_, heed::WithTls>, MapGuard)> {
    let guard = hold_maps();
    let mut txn = env.read_txn();
    if let Err(heed::Error::Mdb(heed::MdbError::ReadersFull)) = txn {
        // Readers that died since this process opened the store: their slots are freed.
        env.clear_stale_readers()?;
        txn = env.read_txn();
    }
    match txn {
        Err(heed::Error::Mdb(heed::MdbError::MapResized)) => {
            drop(guard);
            if let Some(_alone) = alone() {
                // The map becomes the data file as it is now, which holds every committed
                // page: the size the last commit recorded could be smaller than a file a
                // writer has grown for its transaction, and a map that writes (WRITE_MAP)
                // would cut the file to it.
                let len = std::fs::metadata(env.path().join(DATA_FILE))?.len();
                // SAFETY: no transaction of this process is open (the guard is held alone).
                unsafe { env.resize(usize::try_from(len).unwrap_or(MAX_MAP_BYTES))? };
            }
            let guard = hold_maps();
            Ok((env.read_txn()?, guard))
        }
        r => Ok((r?, guard)),
    }
}

/// Grows the map of `env` (before a write transaction of this process) so that `needed`
/// more bytes fit: to a whole number of MiB that holds them, by at least an eighth (so a
/// growing store remaps now and then, not at every learn), at most 4 GiB, and every block
/// of it reserved on the disk (a transaction cannot write past the map, so it cannot write where no block
/// is). Whether the map now holds them: not when it is at its largest, nor while another
/// transaction of this process is open (the map cannot move then). A transaction that
/// finds the map full after all is tried again with twice `needed`, so a first guess of
/// what a transaction writes can be modest and the map stays near the data.
fn make_room(env: &Env, needed: usize) -> heed::Result<bool> {
    let info = env.info();
    let page = 4096;
    let used = (info.last_page_number + 1) * page;
    let mut map = info.map_size;
    let want = used.saturating_add(needed);
    if map < want && map < MAX_MAP_BYTES {
        let grown = want.max(map.saturating_add(map / 8));
        map = grown
            .div_ceil(MAP_STEP)
            .saturating_mul(MAP_STEP)
            .min(MAX_MAP_BYTES);
    }
    if map > info.map_size {
        match alone() {
            // SAFETY: no transaction of this process is open: the guard is held alone.
            Some(_alone) => unsafe { env.resize(map)? },
            // The map stays as it is (and is short); what it holds is reserved all the same.
            None => map = info.map_size,
        }
    }
    reserve_disk(env, map)?;
    Ok(used.saturating_add(needed) <= map)
}

/// Gives the data file disk blocks for its first `bytes` before a transaction writes
/// them through the map: the file is sparse, and a page written through `WRITE_MAP` where
/// the disk has no block left kills the process with SIGBUS instead of returning an
/// error. Reserved, a full disk is the error "No space left on device" naming the store.
/// Linux's `fallocate` allocates blocks and writes nothing (unlike the C library's
/// `posix_fallocate`, which falls back to writing bytes where a file system lacks it).
#[cfg(target_os = "linux")]
fn reserve_disk(env: &Env, bytes: usize) -> heed::Result<()> {
    use std::os::fd::AsRawFd;
    let data = std::fs::OpenOptions::new()
        .write(true)
        .open(env.path().join("data.mdb"))?;
    let len = libc::off_t::try_from(bytes).unwrap_or(libc::off_t::MAX);
    // SAFETY: the descriptor is open for writing for the whole call; mode 0 only
    // allocates (and extends the file's length if it is shorter).
    if unsafe { libc::fallocate(data.as_raw_fd(), 0, 0, len) } == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        // A file system without fallocate (some network ones) is left as it was.
        Some(libc::EOPNOTSUPP | libc::ENOSYS) => Ok(()),
        _ => Err(heed::Error::Io(err)),
    }
}

#[cfg(not(target_os = "linux"))]
fn reserve_disk(_: &Env, _: usize) -> heed::Result<()> {
    Ok(())
}

/// The guard held alone, once the transactions of this process's other threads have
/// ended; `None` after 5 s (a thread holding a transaction while it learns would wait
/// for itself).
fn alone() -> Option<std::sync::RwLockWriteGuard<'static, ()>> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match REMAP.try_write() {
            Ok(g) => return Some(g),
            Err(std::sync::TryLockError::Poisoned(p)) => return Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Err(std::sync::TryLockError::WouldBlock) => return None,
        }
    }
}

/// The sentence of a store whose map is full.
const FULL: &str = "the store is full (its map holds at most 4 GiB, and grows only while no \
                    other transaction of this process is open)";

/// Whether `e` says the map was full (the transaction may be tried again in a larger one).
fn is_full(e: &Error) -> bool {
    matches!(e, Error::Model { message, .. } if message == FULL)
}

/// An LMDB error on the store at `path`.
fn lmdb_error(path: &Path, e: heed::Error) -> Error {
    match e {
        heed::Error::Io(error) => Error::io(path, error),
        heed::Error::Mdb(heed::MdbError::MapFull) => Error::model(path, FULL),
        heed::Error::Mdb(heed::MdbError::Incompatible)
        | heed::Error::Mdb(heed::MdbError::VersionMismatch) => Error::model(
            path,
            "not a store this build can read (an LMDB file of another layout)",
        ),
        e => Error::model(path, format!("the store cannot be read or written: {e}")),
    }
}

#[cfg(test)]
mod tests;
