//! Keeping freed heap memory in the process while a software rasteriser runs.
//!
//! Mesa's lavapipe / llvmpipe allocates its per-frame binning data on its own
//! queue thread (several megabytes at 10k sprites) and frees it when the frame
//! is done. glibc then hands the top of that thread's arena back to the kernel,
//! and the next frame page-faults all of it in again, zero-filled: on the
//! 2-core CI machine that was about 4 ms of a 20 ms frame of 10k sprites, most
//! of it kernel time (`perf`: `clear_page_erms` under `exc_page_fault`).
//! Raising glibc's trim threshold keeps the freed pages for reuse.
//!
//! `main` calls [`keep_freed_heap_memory`] first thing, before any thread or
//! adapter exists (the render bench does the same): the adapter is not known
//! yet, and on a real GPU the only cost is that up to 128 MiB of freed memory
//! per arena stays mapped.

use std::sync::OnceLock;

/// Freed memory an arena may keep on top before giving it back to the kernel.
const TRIM_THRESHOLD: i32 = 128 << 20;

/// Tells the allocator to keep freed memory (once per process); returns
/// whether it took effect: `false` where the allocator is not glibc's.
pub fn keep_freed_heap_memory() -> bool {
    static APPLIED: OnceLock<bool> = OnceLock::new();
    *APPLIED.get_or_init(|| {
        let applied = set_thresholds();
        if applied {
            log::info!(
                "software adapter: keeping up to {} MiB of freed heap memory per arena (glibc trim threshold)",
                TRIM_THRESHOLD >> 20
            );
        } else {
            log::debug!("software adapter: the allocator's trim threshold is not adjustable here");
        }
        applied
    })
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[expect(
    unsafe_code,
    reason = "mallopt is a C call; keeping lavapipe's freed binning memory saved 4.5 ms of a 20 ms frame at 10k sprites"
)]
fn set_thresholds() -> bool {
    /// Allocations at least this large get their own mapping. glibc raises its
    /// default (128 KiB) dynamically up to 32 MiB, but setting the trim threshold
    /// switches that off, so it is set to the ceiling explicitly.
    const MMAP_THRESHOLD: i32 = 32 << 20;
    // SAFETY: `mallopt` only updates glibc's allocator parameters, under the
    // allocator's own lock; both arguments are plain integers it validates.
    let trim = unsafe { libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD) };
    // SAFETY: as above.
    let mmap = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) };
    trim == 1 && mmap == 1
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_thresholds() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_on_glibc_and_is_idempotent() {
        let first = keep_freed_heap_memory();
        assert_eq!(first, cfg!(all(target_os = "linux", target_env = "gnu")));
        assert_eq!(keep_freed_heap_memory(), first, "a second call changes nothing");
    }
}
