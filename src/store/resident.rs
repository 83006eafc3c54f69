//! Keeping a store's pages out of a process's resident set. LMDB reads the store through
//! a memory map, and Linux maps up to 16 neighbouring pages with every page a lookup
//! touches ("fault-around"), so a message's few hundred lookups in a large store would map
//! most of the file into the process: tens of MB of page cache counted as its memory.
//! Every [`Resident::EVERY`] lookups of a reader the map's pages are unmapped
//! (`MADV_DONTNEED`: the pages stay in the page cache, and the next access maps them
//! again), which bounds what a `classify` process holds whatever the store's size.
//! Committed pages do not change while a read transaction lasts, so what LMDB reads next
//! is what it would have read. Writers do not do this: a commit touches every page the
//! transaction changed again, and mapping them back costs more than it saves.

use std::path::Path;

/// The store's map in this process, found by the data file's inode; the default knows no
/// map and releases nothing (a writer's).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Resident {
    /// Start and length of the mapping; `None` where it was not found (or not Linux).
    range: Option<(usize, usize)>,
}

impl Resident {
    /// Lookups between two releases: at most about 16 pages each, so about 8 MB mapped.
    pub(crate) const EVERY: usize = 128;

    /// The current map of `data` (LMDB's data file) in this process.
    pub(crate) fn find(data: &Path) -> Resident {
        Resident {
            range: find_map(data),
        }
    }

    /// Whether the map was found.
    #[cfg(test)]
    pub(crate) fn found(&self) -> bool {
        self.range.is_some()
    }

    /// Unmaps the store's pages from this process (a no-op where the map is unknown).
    pub(crate) fn release(&self) {
        #[cfg(target_os = "linux")]
        if let Some((start, len)) = self.range {
            // SAFETY: the range is LMDB's shared file mapping of the store; dropping its
            // page table entries only makes the next access map the file's page again.
            unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
        }
    }
}

/// The largest mapping of the file `data` in /proc/self/maps, matched by inode and name.
#[cfg(target_os = "linux")]
fn find_map(data: &Path) -> Option<(usize, usize)> {
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::metadata(data).ok()?.ino();
    let name = data.file_name()?.to_str()?;
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter(|line| line.ends_with(name))
        .filter_map(|line| {
            let mut f = line.split_whitespace();
            let (range, _perms, _offset, _dev) = (f.next()?, f.next()?, f.next()?, f.next()?);
            if f.next()?.parse::<u64>().ok()? != inode {
                return None;
            }
            let (a, b) = range.split_once('-')?;
            let (a, b) = (
                usize::from_str_radix(a, 16).ok()?,
                usize::from_str_radix(b, 16).ok()?,
            );
            Some((a, b.checked_sub(a)?))
        })
        .max_by_key(|&(_, len)| len)
}

/// Elsewhere the map is left as it is.
#[cfg(not(target_os = "linux"))]
fn find_map(_data: &Path) -> Option<(usize, usize)> {
    None
}
