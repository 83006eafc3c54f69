//! What a store's writer holds besides LMDB's own lock: a lock of its own on the data
//! file, taken within a time limit, and a check that the store's lock file is the one
//! this process opened.
//!
//! LMDB orders writers with a mutex inside `lock.mdb`, which has no time limit (a stopped
//! `learn` holding it would make every later one wait without a word) and lives in a file
//! that can be removed while the store is in use (processes that opened the store before
//! and after would then hold two mutexes, and learns reported done could be lost). So a
//! writer first takes an exclusive `flock` on `data.mdb` — the file every process of the
//! store shares, whatever became of `lock.mdb` — waiting at most the store's lock
//! timeout, and refuses to write when `lock.mdb` is no longer the file it opened.

use crate::{Error, Result};
use std::fs::{File, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a writer waits for another by default (as `learn --lock-timeout`).
pub(crate) const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// The pause between two tries of a held lock.
const POLL: Duration = Duration::from_millis(5);

/// The identity of a file (device and inode), to see whether a path still leads to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId(u64, u64);

impl FileId {
    /// The identity of the file at `path`, `None` where it is missing (or not Unix).
    pub(crate) fn of(path: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(FileId(m.dev(), m.ino()))
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }
}

/// The writer's lock on a store: held while it lives.
#[derive(Debug)]
pub(crate) struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Takes the writer's lock of the store at `store` (whose data file is `data`),
    /// trying again until `timeout` has passed; then checks that the store's lock file
    /// is still `opened`.
    pub(crate) fn take(
        store: &Path,
        data: &Path,
        timeout: Duration,
        opened: Option<FileId>,
    ) -> Result<Self> {
        let file = File::open(data).map_err(|e| Error::io(data, e))?;
        let deadline = Instant::now().checked_add(timeout);
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(e)) => return Err(Error::io(data, e)),
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Error::model(
                    store,
                    format!(
                        "another learn has held the store for {} s (a stopped or very long \
                         learn); try again or raise --lock-timeout",
                        timeout.as_secs_f64()
                    ),
                ));
            }
            std::thread::sleep(POLL);
        }
        if opened.is_some() && FileId::of(&store.join(super::LOCK_FILE)) != opened {
            return Err(replaced_lock_file(store));
        }
        Ok(WriterLock { _file: file })
    }
}

/// The error of a writer whose store's lock file is not the one it opened.
pub(crate) fn replaced_lock_file(store: &Path) -> Error {
    Error::model(
        store,
        "its lock.mdb was removed or replaced while the store was open: nothing was learned \
         (run learn again; a store's lock.mdb must stay while any process uses the store)",
    )
}
