//! The lock beside a model file, `MODEL.lock`: `learn` holds it over its load–update–write
//! of the model, and every command that replaces an existing model file (`train -o`,
//! `eval --online --save`, `convert`) holds it over its write, so that write never lands
//! between `learn`'s read and its write (which would put back the model it replaced).
//! A command that started from the model itself (`eval --online -m M --save M`) still
//! replaces what a `learn` added while it ran. The model itself is replaced by a rename, so it
//! cannot carry the lock; links to one model share the lock beside the file they reach.
//! The holder removes the lock file as it lets go, so none is left beside an idle model; a
//! process that waited on a removed file takes the lock again on the file now at the path.

use crate::atomic::real_target;
use crate::model::Model;
use crate::{Error, Result};
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The pause between two tries of a held lock.
const LOCK_POLL: Duration = Duration::from_millis(20);

/// How long a command that writes a model waits for a `learn` to finish (`learn` itself
/// has `--lock-timeout`).
const SAVE_WAIT: Duration = Duration::from_secs(60);

/// The lock file beside `model`: `MODEL.lock`.
pub fn lock_path(model: &Path) -> PathBuf {
    let mut name = model.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// An exclusive lock on a model's lock file, taken by [`lock`]: [`ModelLock::release`]
/// removes the file and then lets go, so no `MODEL.lock` is left beside a model once
/// nobody holds it.
#[derive(Debug)]
pub struct ModelLock {
    /// The locked file; taken by `release`.
    file: Option<File>,
    path: PathBuf,
}

impl ModelLock {
    /// Removes the lock file while it is still held, then unlocks it. A process waiting on
    /// the removed file finds, once it has the lock, that the file is no longer the one at
    /// the path, and takes the lock again on the path (see [`lock`]).
    pub fn release(mut self) -> Result<()> {
        let file = self.file.take().expect("a held lock has its file");
        std::fs::remove_file(&self.path)
            .or_else(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(e),
            })
            .map_err(|e| Error::io(&self.path, e))?;
        file.unlock().map_err(|e| Error::io(&self.path, e))
    }
}

impl Drop for ModelLock {
    /// A run that ends early (an error under the lock) removes the file as `release` does;
    /// closing the file lets go of the lock.
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Takes the exclusive lock on `lock_file`, trying again until `timeout` has passed;
/// `None` when another process still holds it then. The lock counts only when the file
/// locked is still the one at `lock_file` (a holder removes the file as it releases it),
/// so two processes never hold locks on two files of one name.
pub fn lock(lock_file: &Path, timeout: Duration) -> Result<Option<ModelLock>> {
    let deadline = Instant::now().checked_add(timeout);
    loop {
        let f = open_lock_file(lock_file)?;
        loop {
            match f.try_lock() {
                Ok(()) if is_at(&f, lock_file) => {
                    return Ok(Some(ModelLock {
                        file: Some(f),
                        path: lock_file.to_path_buf(),
                    }));
                }
                // Released and removed by its holder while this one waited: open the
                // file now at the path.
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(e)) => {
                    return Err(Error::io(lock_file, e));
                }
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(None);
            }
            std::thread::sleep(LOCK_POLL);
        }
    }
}

/// Opens (creating it if need be) the lock file, not following a link planted there.
fn open_lock_file(lock_file: &Path) -> Result<File> {
    let mut open = std::fs::OpenOptions::new();
    open.create(true).truncate(false).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut open, libc::O_NOFOLLOW);
    open.open(lock_file).map_err(|e| Error::io(lock_file, e))
}

/// Whether the open file `f` is the file at `path` now (same device and inode).
fn is_at(f: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (f.metadata(), std::fs::symlink_metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (f, path);
        true
    }
}

/// Saves `model` at `path`, under the lock when it replaces an existing model (a model
/// that does not exist yet has no `learn` running on it, and gets no lock file): what
/// `train -o`, `eval --online --save` and `convert` write a model with.
pub fn save_locked(model: &Model, path: &Path) -> Result<()> {
    if !path.exists() {
        return model.save(path);
    }
    let lock_file = lock_path(&real_target(path)?);
    let Some(lock) = lock(&lock_file, SAVE_WAIT)? else {
        return Err(Error::model(
            path,
            format!(
                "locked by a learn that has not finished in {} s; nothing was written",
                SAVE_WAIT.as_secs()
            ),
        ));
    };
    model.save(path)?;
    lock.release()
}
