//! Processor hints for the hot loops: [`prefetch`] asks for memory that a loop will read
//! soon at a scattered address (a row's class weights, the next row's ids), so that the
//! loop need not wait for each cache line in turn. A leaf: it knows nothing of the rest
//! of the crate.

/// Asks the processor to bring the cache lines of `v` in. A hint only: it never faults
/// and changes no result; nothing on processors without the instruction.
#[inline(always)]
pub(crate) fn prefetch<T>(v: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = v.as_ptr().cast::<i8>();
        let bytes = std::mem::size_of_val(v);
        let mut off = 0;
        while off < bytes {
            // SAFETY: a prefetch never faults, and the address lies within `v`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.add(off)) };
            off += 64;
        }
        if bytes > 64 {
            // SAFETY: as above: `v`'s last byte, which may start a line of its own.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.add(bytes - 1)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}
