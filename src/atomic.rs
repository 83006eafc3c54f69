//! Large outputs written atomically while they stream out: an [`AtomicFile`] writes to a
//! temporary file beside the target and renames it over the target only on
//! [`commit`](AtomicFile::commit), so a reader never sees half a file and a failed run
//! leaves the old one in place. Model files, held in memory, are written through it too.
//!
//! The target is the file a path leads to: a symbolic link is followed ([`real_target`]),
//! so the link stays a link and the file it points to is replaced — but only where the
//! kernel's `fs.protected_symlinks = 1` rule would follow it, whatever the machine's own
//! setting: a link in a sticky folder that others may write (`/tmp`) is followed only when
//! it belongs to the caller or to the folder's owner, so that another user cannot plant
//! `/tmp/x.model → /home/victim/file` and have a model written over the victim's file. A path that exists and
//! is not a regular file (a device such as `/dev/full`, a FIFO, a folder) is refused before
//! anything is written, instead of being replaced by a file. Temporary files left by a
//! killed run (`.NAME.PID.tmp` whose process is gone) are removed by the next write of the
//! same target.

use crate::{Error, Result};
use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Links followed before a path is taken for a loop of links.
const MAX_LINKS: usize = 40;

/// How old a temporary file must be to count as stale where running processes cannot be
/// listed (no `/proc`).
const STALE_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// A buffered file that appears at its path only when committed.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    target: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
}

/// The file that writing `path` replaces: symbolic links of its last part followed (a
/// link to a file not yet there included), in its folder's canonical form. Two links to
/// one model give the same target, hence the same lock beside it.
pub fn real_target(path: &Path) -> Result<PathBuf> {
    let (dir, name) = resolve(path)?;
    Ok(dir.join(name))
}

/// Refuses, before any work, an output path that [`AtomicFile::create`] would refuse at
/// the end (a device, FIFO or folder, or a link to one), so a long run is not wasted.
pub fn check_output(path: &Path) -> Result<()> {
    let (dir, name) = resolve(path)?;
    check_replaceable(path, &dir.join(name)).map(drop)
}

/// Refuses, before any work, an output `path` that is one of `inputs` or lies in an input
/// folder: the run would read it and then replace it (a corpus overwritten by its own
/// model, a model by its chart). Paths that do not exist yet, and `-`, pass — but for a
/// filter store (a folder with `data.mdb`), nothing new may be written inside it either.
pub fn check_not_an_input(path: &Path, inputs: &[&Path]) -> Result<()> {
    let target = real_target(path)?;
    let exists = target.exists();
    for input in inputs.iter().filter(|i| i.as_os_str() != "-") {
        let Ok(canon) = std::fs::canonicalize(input) else {
            continue;
        };
        let store = canon.join("data.mdb").exists();
        let place = if exists && target == canon {
            "is one of the inputs".to_string()
        } else if canon.is_dir() && target.starts_with(&canon) && (exists || store) {
            format!("lies in the input folder {}", input.display())
        } else {
            continue;
        };
        let why = format!(
            "{place}: writing there would destroy what is read; choose another output path"
        );
        return Err(Error::io(path, std::io::Error::other(why)));
    }
    Ok(())
}

/// [`real_target`] as its canonical folder and its file name.
fn resolve(path: &Path) -> Result<(PathBuf, OsString)> {
    let mut p = path.to_path_buf();
    let mut links = 0;
    while std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
        links += 1;
        if links > MAX_LINKS {
            let looped = std::io::Error::other("too many levels of symbolic links");
            return Err(Error::io(path, looped));
        }
        may_follow(path, &p)?;
        let to = std::fs::read_link(&p).map_err(|e| Error::io(path, e))?;
        p = p.parent().map_or_else(|| to.clone(), |d| d.join(&to));
    }
    let name = p.file_name().ok_or_else(|| {
        let not_a_name = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name");
        Error::io(path, not_a_name)
    })?;
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let dir = std::fs::canonicalize(dir).map_err(|e| Error::io(path, e))?;
    Ok((dir, name.to_owned()))
}

/// Refuses to follow the link `link` (met while resolving `path`) where the kernel's
/// `protected_symlinks` rule would: it sits in a sticky folder that others may write,
/// and belongs neither to the caller nor to the folder's owner.
#[cfg(unix)]
fn may_follow(path: &Path, link: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let dir = match link.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let (Ok(l), Ok(d)) = (std::fs::symlink_metadata(link), std::fs::metadata(dir)) else {
        return Ok(());
    };
    let sticky_shared = d.mode() & 0o1002 == 0o1002;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !sticky_shared || l.uid() == me || l.uid() == d.uid() {
        return Ok(());
    }
    let why = format!(
        "{} is a symbolic link in the shared sticky folder {} that belongs to user {},          neither you nor the folder's owner: it is not followed (another user may have          planted it); remove it or write elsewhere",
        link.display(),
        dir.display(),
        l.uid()
    );
    Err(Error::io(path, std::io::Error::other(why)))
}

#[cfg(not(unix))]
fn may_follow(_: &Path, _: &Path) -> Result<()> {
    Ok(())
}

/// Creates `path`, which must not exist (a link there, even dangling, is not followed),
/// readable and writable by its owner only, holding `bytes` (secrets such as a key).
#[cfg_attr(not(feature = "cluster"), allow(dead_code))]
pub(crate) fn write_new_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let mut f = o.open(path).map_err(|e| Error::io(path, e))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io(path, e))
}

/// Refuses a `target` that exists and is not a regular file: renaming over it would
/// replace a device or FIFO with a file (or fail on a folder after all the work).
fn check_replaceable(path: &Path, target: &Path) -> Result<Option<std::fs::Permissions>> {
    let Ok(meta) = std::fs::metadata(target) else {
        return Ok(None);
    };
    if meta.is_file() {
        return Ok(Some(meta.permissions()));
    }
    let what = if meta.is_dir() {
        "is a folder".to_string()
    } else {
        format!("is {}", not_regular(&meta.file_type()))
    };
    let why = format!("{what}; give the path of a file to write");
    Err(Error::io(path, std::io::Error::other(why)))
}

/// Removes the entries of `dir` named `PREFIX` + a process id + `SUFFIX` whose process
/// has ended (or, with no `/proc` to ask, that are older than [`STALE_AGE`]): what a
/// killed run leaves — `.NAME.PID.tmp` files beside a model, `STORE.tmp-PID` folders
/// beside a store.
pub(crate) fn remove_stale(dir: &Path, prefix: &str, suffix: &str) {
    let own = std::process::id();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let proc = Path::new("/proc");
    let can_list = proc.join("self").exists();
    for e in entries.flatten() {
        let file = e.file_name();
        let file = file.to_string_lossy();
        let pid = file
            .strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(suffix))
            .and_then(|pid| pid.parse::<u32>().ok());
        let Some(pid) = pid.filter(|&p| p != own) else {
            continue;
        };
        let stale = if can_list {
            !proc.join(pid.to_string()).exists()
        } else {
            e.metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE_AGE))
        };
        if !stale {
            continue;
        }
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(e.path());
        } else {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

impl AtomicFile {
    /// Creates the temporary file for `path` beside the file it leads to (see
    /// [`real_target`]), after refusing a target that is not a regular file and removing
    /// stale temporary files of earlier, killed runs.
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let (dir, name) = resolve(path)?;
        let target = dir.join(&name);
        let permissions = check_replaceable(path, &target)?;
        remove_stale(&dir, &format!(".{}.", name.to_string_lossy()), ".tmp");
        let tmp = dir.join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        // A file of this process's id can only be left by an earlier process: replaced,
        // never followed if it is a link.
        let _ = std::fs::remove_file(&tmp);
        let f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Error::io(path, e))?;
        if let Some(p) = permissions {
            // The replacement keeps the old file's permissions (a model shared by a group).
            let _ = f.set_permissions(p);
        }
        Ok(AtomicFile {
            path: path.to_path_buf(),
            target,
            tmp,
            out: Some(BufWriter::with_capacity(1 << 20, f)),
        })
    }

    /// Flushes, syncs and renames the file over its target.
    pub fn commit(mut self) -> Result<()> {
        let out = self.out.take().expect("an uncommitted file has its writer");
        let result = (|| {
            let f = out.into_inner().map_err(|e| e.into_error())?;
            f.sync_all()?;
            std::fs::rename(&self.tmp, &self.target)
        })();
        result.map_err(|e| Error::io(&self.path, e))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.as_mut().expect("not committed").write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out.as_mut().expect("not committed").write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.as_mut().expect("not committed").flush()
    }
}

/// Seeking lets a header be filled in once what it describes is written (a model's length
/// and checksum, after its payload was encoded straight into the file).
impl std::io::Seek for AtomicFile {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.out.as_mut().expect("not committed").seek(pos)
    }
}

impl Drop for AtomicFile {
    /// A file dropped without [`commit`](AtomicFile::commit) (an error midway) is removed.
    fn drop(&mut self) {
        if self.out.take().is_some() || self.tmp.exists() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Why an entry that is neither a folder nor a regular file is not read.
pub(crate) fn not_regular(ft: &std::fs::FileType) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = if ft.is_fifo() {
            "FIFO"
        } else if ft.is_socket() {
            "socket"
        } else if ft.is_char_device() {
            "character device"
        } else if ft.is_block_device() {
            "block device"
        } else {
            "special file"
        };
        format!("not a regular file ({kind})")
    }
    #[cfg(not(unix))]
    {
        let _ = ft;
        "not a regular file".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The planted-link case: in a sticky folder others may write, a link that belongs to
    /// another user is not followed (the victim file keeps its contents); the caller's own
    /// link is. Needs root to give a link to another user; skipped with a note otherwise.
    #[cfg(unix)]
    #[test]
    fn a_link_planted_by_another_user_in_a_sticky_folder_is_not_followed() {
        use std::os::unix::fs::PermissionsExt;
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("note: skipped: giving a link to another user needs root");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("tmp");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let planted = shared.join("x.model");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        std::os::unix::fs::lchown(&planted, Some(65534), Some(65534)).unwrap();
        let e = AtomicFile::create(&planted).unwrap_err().to_string();
        assert!(
            e.contains("belongs to user 65534") && e.contains("not followed"),
            "{e}"
        );
        assert!(check_output(&planted).is_err());
        assert!(real_target(&planted).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        // The caller's own link in the same folder is followed, as is any link outside
        // a sticky shared folder.
        let own = shared.join("own.model");
        std::os::unix::fs::symlink(&victim, &own).unwrap();
        let mut f = AtomicFile::create(&own).unwrap();
        f.write_all(b"model").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "model");
        let private = dir.path().join("link");
        std::os::unix::fs::symlink(&victim, &private).unwrap();
        std::os::unix::fs::lchown(&private, Some(65534), Some(65534)).unwrap();
        assert!(AtomicFile::create(&private).is_ok());
    }

    #[test]
    fn appears_only_on_commit_and_vanishes_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.svm");
        std::fs::write(&p, "old").unwrap();
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(b"new contents").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new contents");

        let mut g = AtomicFile::create(&p).unwrap();
        g.write_all(b"half").unwrap();
        drop(g);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new contents");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "the temporary file is removed");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_stays_a_link_and_its_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.model");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.model");
        std::os::unix::fs::symlink("real.model", &link).unwrap();
        assert_eq!(
            real_target(&link).unwrap(),
            std::fs::canonicalize(&real).unwrap()
        );
        let mut f = AtomicFile::create(&link).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");

        // A link to a file not there yet creates that file.
        let dangling = dir.path().join("dangling.model");
        std::os::unix::fs::symlink("later.model", &dangling).unwrap();
        AtomicFile::create(&dangling).unwrap().commit().unwrap();
        assert!(dir.path().join("later.model").is_file());
        assert!(std::fs::symlink_metadata(&dangling).unwrap().is_symlink());
    }

    #[test]
    fn a_folder_is_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("out");
        std::fs::create_dir(&sub).unwrap();
        let e = AtomicFile::create(&sub).unwrap_err().to_string();
        assert!(
            e.ends_with("out: is a folder; give the path of a file to write"),
            "{e}"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
