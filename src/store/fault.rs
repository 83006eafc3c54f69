//! A damaged store is a sentence, not a signal. LMDB trusts its pages: a byte changed in a
//! B-tree page (a disk error, a bad copy, a hostile edit) can send its C code through a
//! null or wild pointer, and the process would die by SIGSEGV or SIGBUS in the middle of a
//! delivery. The records themselves are checked where they are read (`record`); this
//! module covers the pages under them: while a thread works inside a store (a
//! [`Watch`] is alive), a fault (SIGSEGV, SIGBUS, or SIGABRT from LMDB's assertions in a
//! build with debug assertions) is answered by a sentence on standard error naming the
//! store and how to recover, and exit code 3 — what any other error of the command
//! gives. A fault outside a store's work goes to the handler that was there before (the
//! Rust runtime's, or the default), as if this one were not installed.
//!
//! Ending the process is all the handler can do safely: it writes a message prepared
//! beforehand with `write(2)` and leaves with `_exit(2)`, both async-signal-safe. A
//! writer stopped so loses its transaction as a `kill -9` would, and the store keeps its
//! last commit.

use std::path::Path;

/// Keeps faults of this thread's store work reported as damage of the store it names.
#[derive(Debug)]
pub(crate) struct Watch {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Watch {
    /// Starts watching for faults while this thread works inside a store; `message` is
    /// its [`sentence`].
    pub(crate) fn new(message: &'static [u8]) -> Watch {
        imp::enter(message);
        Watch {
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        imp::leave();
    }
}

/// The sentence written when a fault ends the process working in the store at `path`,
/// made once per opened store (and kept for the process's life, as a handler may read it
/// at any time).
pub(crate) fn sentence(path: &Path) -> &'static [u8] {
    let text = format!(
        "rosenblatt: error: {}: damaged store: a page of data.mdb is not what LMDB wrote (the \
         read stopped at a fault); restore the filter from a backup (`rosenblatt convert \
         BACKUP.model NEW-STORE`, then move NEW-STORE in its place)\n",
        path.display()
    );
    text.into_bytes().leak()
}

#[cfg(unix)]
mod imp {
    use std::sync::Once;
    use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

    /// The prepared sentence (leaked: it lives as long as a handler may read it).
    static MESSAGE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
    static MESSAGE_LEN: AtomicUsize = AtomicUsize::new(0);
    /// Watches alive in the process.
    static DEPTH: AtomicUsize = AtomicUsize::new(0);
    static INSTALL: Once = Once::new();
    /// The actions of the signals before ours, restored for faults not ours.
    static mut PREVIOUS: [std::mem::MaybeUninit<libc::sigaction>; 3] =
        [const { std::mem::MaybeUninit::uninit() }; 3];
    /// A wild pointer, a page past the file's end, and LMDB's own assertions (which abort
    /// in builds with debug assertions).
    const SIGNALS: [libc::c_int; 3] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGABRT];

    pub(crate) fn enter(message: &'static [u8]) {
        INSTALL.call_once(install);
        MESSAGE_LEN.store(message.len(), Ordering::SeqCst);
        MESSAGE.store(message.as_ptr().cast_mut(), Ordering::SeqCst);
        DEPTH.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn leave() {
        DEPTH.fetch_sub(1, Ordering::SeqCst);
    }

    fn install() {
        for (k, &sig) in SIGNALS.iter().enumerate() {
            // SAFETY: the action is fully initialised before it is installed; the old one
            // is written into its own slot once, before any handler can read it.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = handler as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let previous = &raw mut PREVIOUS[k];
                libc::sigaction(sig, &action, (*previous).as_mut_ptr());
            }
        }
    }

    extern "C" fn handler(sig: libc::c_int, _: *mut libc::siginfo_t, _: *mut libc::c_void) {
        let message = MESSAGE.load(Ordering::SeqCst);
        if DEPTH.load(Ordering::SeqCst) > 0 && !message.is_null() {
            // SAFETY: write(2) and _exit(2) are async-signal-safe; the message is leaked,
            // so it is valid for the process's life.
            unsafe {
                libc::write(2, message.cast(), MESSAGE_LEN.load(Ordering::SeqCst));
                libc::_exit(3);
            }
        }
        // Not a store's fault: the previous action is put back and the faulting
        // instruction runs again under it.
        let k = SIGNALS.iter().position(|&s| s == sig).unwrap_or(0);
        // SAFETY: PREVIOUS[k] was written by `install` before this handler was installed.
        unsafe {
            let previous = &raw const PREVIOUS[k];
            libc::sigaction(sig, (*previous).as_ptr(), std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
mod imp {
    pub(crate) fn enter(_: &'static [u8]) {}
    pub(crate) fn leave() {}
}
