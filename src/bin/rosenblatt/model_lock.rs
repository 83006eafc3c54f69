//! The lock beside a model file, `MODEL.lock`: `learn` holds it over its load–update–write
//! of the model, and every command that replaces an existing model file (`train -o`,
//! `eval --online --save`, `convert`) holds it over its write, so that write never lands
//! between `learn`'s read and its write (which would put back the model it replaced).
//! A command that started from the model itself (`eval --online -m M --save M`) still
//! replaces what a `learn` added while it ran. The model itself is replaced by a rename, so it
//! cannot carry the lock; links to one model share the lock beside the file they reach.

use anyhow::{Context, Result};
use rosenblatt::atomic::real_target;
use rosenblatt::model::Model;
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

/// Takes the exclusive lock on `lock_file`, trying again until `timeout` has passed;
/// `None` when another process still holds it then.
pub fn lock(lock_file: &Path, timeout: Duration) -> Result<Option<File>> {
    let mut open = std::fs::OpenOptions::new();
    open.create(true).truncate(false).write(true);
    // A link planted where the lock file goes is not followed.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut open, libc::O_NOFOLLOW);
    let f = open
        .open(lock_file)
        .with_context(|| format!("opening the lock file {}", lock_file.display()))?;
    let deadline = Instant::now().checked_add(timeout);
    loop {
        match f.try_lock() {
            Ok(()) => return Ok(Some(f)),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", lock_file.display()));
            }
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(None);
        }
        std::thread::sleep(LOCK_POLL);
    }
}

/// Saves `model` at `path`, under the lock when it replaces an existing model (a model
/// that does not exist yet has no `learn` running on it, and gets no lock file).
pub fn save(model: &Model, path: &Path) -> Result<()> {
    if !path.exists() {
        return Ok(model.save(path)?);
    }
    let lock_file = lock_path(&real_target(path)?);
    let Some(lock) = lock(&lock_file, SAVE_WAIT)? else {
        anyhow::bail!(
            "{} is locked by a learn that has not finished in {} s; nothing was written",
            path.display(),
            SAVE_WAIT.as_secs()
        );
    };
    model.save(path)?;
    lock.unlock()
        .with_context(|| format!("unlocking {}", lock_file.display()))
}
