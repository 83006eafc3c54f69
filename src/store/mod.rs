//! A filter kept in an embedded transactional store (LMDB, through `heed`), for mail
//! delivery: a process started per message reads only that message's features in a read
//! transaction, and `learn` changes only the features it touches in one write
//! transaction, so the cost of a message does not grow with the model.
//!
//! A store is a folder holding LMDB's `data.mdb` and `lock.mdb`, with two tables: `meta`,
//! whose one entry is the [`header::Header`] (everything of the model that is not one
//! value per feature), and `features`, one [`record::Record`] per feature keyed by the
//! word itself (by its hashed id in a hashed space, where ids no message ever reached
//! have no entry, so the file grows with the features seen, not with 2^B). Readers never
//! wait for a writer (LMDB's copy-on-write pages: a reader sees the last committed state);
//! writers take LMDB's own lock, one at a time; a killed writer leaves the state of the
//! last commit. Commits are not flushed to the disk one by one (`NO_SYNC`): a killed
//! process loses nothing, a crash of the operating system can lose the last commits
//! (as with bogofilter's default database).
//!
//! Any two-class linear text model can be kept so: [`Store::create`] writes a model as a
//! store and [`Store::to_model`] reads it back as the same model, bit for bit, so the two
//! forms decide every message alike (the single-file form stays the way to move a
//! filter between machines). [`Snapshot::decide`] and [`Store::learn`] compute exactly
//! what [`crate::Model::decide`] and [`crate::incremental::learn_document`] compute, on
//! the message's features alone.

mod convert;
mod filter;
mod header;
mod record;

pub use filter::{Snapshot, StoreLearned};

use crate::{Error, Result};
use header::Header;
use heed::types::Bytes;
use heed::{Database, Env, EnvFlags, EnvOpenOptions};
use std::path::{Path, PathBuf};

/// The most a store may hold: 4 GiB, as a model file (address space reserved, not disk).
const MAP_BYTES: usize = 4 << 30;
/// The header's key in the `meta` table.
const HEADER_KEY: &[u8] = b"header";
/// LMDB's data file in a store's folder.
const DATA_FILE: &str = "data.mdb";

/// An open filter store.
pub struct Store {
    env: Env,
    meta: Database<Bytes, Bytes>,
    features: Database<Bytes, Bytes>,
    path: PathBuf,
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
        path.is_dir() && path.join(DATA_FILE).is_file()
    }

    /// Opens the store at `path` (for reading and learning). A folder that is not a
    /// store, a foreign LMDB environment or a damaged header is refused with a sentence
    /// naming it; nothing is created.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        if !Store::is_store(path) {
            return Err(Error::model(
                path,
                "not a filter store (a folder with data.mdb, made by `rosenblatt convert`)",
            ));
        }
        let env = open_env(path, EnvFlags::NO_SYNC)?;
        let lmdb = |e| lmdb_error(path, e);
        let rtxn = env.read_txn().map_err(lmdb)?;
        let named = |name| env.open_database::<Bytes, Bytes>(&rtxn, Some(name));
        let (Some(meta), Some(features)) = (
            named("meta").map_err(lmdb)?,
            named("features").map_err(lmdb)?,
        ) else {
            return Err(Error::model(
                path,
                "an LMDB environment without a filter's tables (not made by rosenblatt)",
            ));
        };
        rtxn.commit().map_err(lmdb)?;
        let store = Store {
            env,
            meta,
            features,
            path: path.to_path_buf(),
        };
        store.snapshot()?; // the header is read and checked once here
        Ok(store)
    }

    /// The store's folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header as of `txn`.
    fn header(&self, txn: &heed::RoTxn) -> Result<Header> {
        let bytes = self
            .meta
            .get(txn, HEADER_KEY)
            .map_err(|e| lmdb_error(&self.path, e))?
            .ok_or_else(|| Error::model(&self.path, "the store has no header entry"))?;
        Header::decode(bytes).map_err(|m| Error::model(&self.path, format!("damaged store: {m}")))
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

/// Opens (or, in an empty folder, creates) the LMDB environment at `path`.
fn open_env(path: &Path, flags: EnvFlags) -> Result<Env> {
    let mut options = EnvOpenOptions::new();
    options.map_size(MAP_BYTES).max_dbs(2);
    // SAFETY: the store's files are changed only through LMDB, whose lock file orders
    // every process's transactions; the flags only skip flushing to the disk.
    unsafe {
        options.flags(flags);
        options.open(path)
    }
    .map_err(|e| lmdb_error(path, e))
}

/// An LMDB error on the store at `path`.
fn lmdb_error(path: &Path, e: heed::Error) -> Error {
    match e {
        heed::Error::Io(error) => Error::io(path, error),
        heed::Error::Mdb(heed::MdbError::MapFull) => {
            Error::model(path, "the store is full (it holds at most 4 GiB)")
        }
        e => Error::model(path, format!("the store cannot be read or written: {e}")),
    }
}

#[cfg(test)]
mod tests;
