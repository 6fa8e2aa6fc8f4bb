//! A global allocator that puts the heap on transparent huge pages: the system allocator, with
//! the memory it takes from the kernel advised `MADV_HUGEPAGE` as it grows.
//!
//! **Why.** A large fabric's engine is thousands of small allocations read at random on every
//! hop: each egress queue's ring, each switch's buffer slots, each queue pair's lists. On 4 KiB
//! pages the k = 32 fat tree's few hundred megabytes are far more pages than a TLB holds, so
//! most of an event's cache misses also walk the page table, and under a hypervisor a walk is a
//! nested one. The arrays the engine sizes once are advised already (`slots.rs`); the
//! small allocations sit in glibc's main heap, which grows by `brk(2)` on small pages, and in
//! the arenas of the engine's threads. glibc's own `glibc.malloc.hugetlb=1` tunable advises the
//! heap, but only from the environment at start-up (and two threads gained nothing from it on
//! the benchmark machine); this does it from inside the program, for the threads' arenas too.
//! Measured on the k = 32 fat tree (`docs/benchmarks.md`, entry "The heap on huge pages"): 10–16 %
//! less CPU time at 500 µs and 1 ms on one thread and on two, 13 % over 10 ms on one thread; the
//! peak memory 8–20 % larger (heap pages touched in part are resident whole).
//!
//! **How.** Every allocation goes to [`std::alloc::System`]. Afterwards, if the program break
//! moved up since the last look (`sbrk(0)`, which reads a variable of glibc's and makes no system
//! call), the new part of the heap is advised `MADV_HUGEPAGE` (the kernel's
//! `Documentation/admin-guide/mm/transhuge.rst`); and a single allocation of
//! [`LARGE_BYTES`] or more has the whole huge pages inside it advised; a block of 2 MiB or more
//! that glibc serves with a mapping of its own (its chunk header says so) has that whole
//! mapping advised, its header's page and its end too. (Advised from the block's first whole
//! page on, the mapping was split in two or three: its first and last huge pages stayed small,
//! and a `realloc` could not grow it by moving the mapping (`mremap(2)` moves one mapping), so
//! glibc copied it, two copies at once: the k = 32 fat tree's 3 ms run on two threads peaked at
//! 896 MB, now 730 MB, as fast; `docs/benchmarks.md`, "The look ahead's egress port, and its
//! distances".) A huge page is only made at a fault where its whole 2 MiB lies in an
//! advised range, so the heap is made to grow in steps of [`TOP_PAD_BYTES`] (`M_TOP_PAD`) rather
//! than glibc's 128 KiB: only the 2 MiB where a step begins, which glibc touches before the
//! advice, stays on small pages. A block of a thread's arena (glibc's chunk header says so) has
//! its arena's heap, a 64 MiB reservation opened as it grows, advised whole the first time the
//! thread allocates there. Where transparent huge pages are off, the advice is refused
//! and nothing changes; the advice never changes a value, only the size of pages. Elsewhere
//! than on Linux with glibc this is the system allocator alone.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator with the heap advised for huge pages (see the module's doc). Install it
/// in a program with `#[global_allocator]`.
#[derive(Debug, Default, Clone, Copy)]
pub struct HugePageHeap;

/// The smallest single allocation whose inside is advised: two huge pages, so that at least one
/// whole huge page lies inside it.
pub const LARGE_BYTES: usize = 4 << 20;

/// How much more than it needs glibc asks of the kernel when the heap grows (`M_TOP_PAD`;
/// glibc's default is 128 KiB). Memory taken but never touched costs nothing resident.
pub const TOP_PAD_BYTES: usize = 32 << 20;

// SAFETY: every allocation, reallocation and free is the system allocator's, with the same
// layouts; the advice given afterwards changes no memory's content.
unsafe impl GlobalAlloc for HugePageHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        imp::before();
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc(layout) };
        imp::after(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        imp::before();
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        imp::after(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on; `ptr` was allocated by `System`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        imp::before();
        // SAFETY: the caller's contract, passed on; `ptr` was allocated by `System`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        imp::after(p, new_size);
        p
    }
}

/// Bytes of heap growth advised so far (for tests and diagnostics).
pub fn advised_heap_bytes() -> usize {
    imp::advised_heap_bytes()
}

#[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
mod imp {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    const HUGE_PAGE: usize = 2 << 20;
    /// The program break when last looked at (0: not yet).
    static LAST_BRK: AtomicUsize = AtomicUsize::new(0);
    /// Bytes of heap growth advised.
    static ADVISED: AtomicUsize = AtomicUsize::new(0);
    /// `before` has run (or is running) its one-time settings.
    static TOP_PAD_SET: AtomicBool = AtomicBool::new(false);
    /// The blocks are glibc's, with its chunk headers (no `LD_PRELOAD`).
    static GLIBC_HEADERS: AtomicBool = AtomicBool::new(false);
    /// Bits of a glibc chunk's size word (`malloc/malloc.c`): the chunk is a mapping of its own;
    /// it belongs to a thread's arena, not the heap.
    const IS_MMAPPED: usize = 2;
    const NON_MAIN_ARENA: usize = 4;
    /// The size and alignment of a heap of a thread's arena on 64-bit glibc (`HEAP_MAX_SIZE`,
    /// twice the largest mmap threshold of 32 MiB).
    const ARENA_HEAP_BYTES: usize = 64 << 20;
    std::thread_local! {
        /// The arena heap this thread advised last.
        static ARENA_HEAP: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Once, before the first allocation: the heap's growth step.
    #[inline]
    pub(super) fn before() {
        if !TOP_PAD_SET.load(Ordering::Relaxed) && !TOP_PAD_SET.swap(true, Ordering::Relaxed) {
            // SAFETY: `mallopt` only sets a parameter of glibc's allocator; outside any
            // allocation (this runs before one), so no lock of it is held here. The step applies
            // to the threads' arenas as well as to the heap.
            unsafe { libc::mallopt(libc::M_TOP_PAD, super::TOP_PAD_BYTES as libc::c_int) };
            // A `malloc` preloaded in glibc's stead (a profiler's, valgrind's, another
            // allocator's) has headers of its own: only glibc's are read (see `after`).
            // SAFETY: `getenv` with a NUL-terminated name; the value is only read, at once.
            let preload = unsafe { libc::getenv(c"LD_PRELOAD".as_ptr()) };
            // SAFETY: a non-null `getenv` value is a NUL-terminated string.
            let preloaded = !preload.is_null() && unsafe { *preload } != 0;
            GLIBC_HEADERS.store(!preloaded, Ordering::Relaxed);
            // SAFETY: `sbrk(0)` reads the current break and changes nothing.
            LAST_BRK.store(unsafe { libc::sbrk(0) } as usize, Ordering::Relaxed);
        }
    }

    /// After an allocation of `size` bytes at `p`: advise what the heap grew by, or the inside
    /// of a large allocation.
    #[inline]
    pub(super) fn after(p: *mut u8, size: usize) {
        if p.is_null() {
            return;
        }
        // glibc's chunk header, the word before the block (0 where the blocks are not glibc's).
        let header = if GLIBC_HEADERS.load(Ordering::Relaxed) {
            // SAFETY: every block glibc's `malloc`, `realloc` and `posix_memalign` return is
            // preceded by its chunk's header, inside memory the allocator owns, readable.
            unsafe { (p as *const usize).sub(1).read() }
        } else {
            0
        };
        if header & IS_MMAPPED != 0 && size >= HUGE_PAGE {
            // A block of its own mapping, which it holds alone: the whole mapping, the first
            // and last huge pages too, which the block's header and its end left out.
            // SAFETY: the word before the header is the mapping's offset to the chunk
            // (`prev_size`), inside the mapping.
            let offset = unsafe { (p as *const usize).sub(2).read() };
            let chunk = p as usize - 2 * std::mem::size_of::<usize>();
            advise(chunk - offset, chunk + (header & !7));
        } else if size >= super::LARGE_BYTES {
            advise(p as usize, p as usize + size);
        }
        // A block of a thread's arena (`NON_MAIN_ARENA` set and `IS_MMAPPED` clear): its heap
        // is a mapping of `ARENA_HEAP_BYTES` aligned to its size, reserved whole and opened as
        // it grows; advised whole once, it keeps the advice as it opens.
        if header & (NON_MAIN_ARENA | IS_MMAPPED) == NON_MAIN_ARENA {
            let base = p as usize & !(ARENA_HEAP_BYTES - 1);
            if ARENA_HEAP.with(|h| h.replace(base)) != base {
                advise(base, base + ARENA_HEAP_BYTES);
            }
        }
        // SAFETY: `sbrk(0)` reads the current break and changes nothing.
        let brk = unsafe { libc::sbrk(0) } as usize;
        let last = LAST_BRK.load(Ordering::Relaxed);
        // (`last` is 0 only while another thread's first allocation is being made: the break
        // is taken as the start then, with nothing advised below it.)
        if last == 0 {
            let _ = LAST_BRK.compare_exchange(0, brk, Ordering::Relaxed, Ordering::Relaxed);
        } else if brk > last && LAST_BRK.compare_exchange(last, brk, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
            let (from, to) = growth(last, brk);
            if advise(from, to) {
                ADVISED.fetch_add(brk - last, Ordering::Relaxed);
            }
        }
    }

    /// The range to advise when the break moved from `last` up to `brk`: from the huge page
    /// where the growth began (its part below `last` is heap too, and a huge page is made only
    /// where all of its 2 MiB are advised), to the break.
    pub(super) fn growth(last: usize, brk: usize) -> (usize, usize) {
        (last & !(HUGE_PAGE - 1), brk)
    }

    /// Advise the whole small pages of `[from, to)`; whether the kernel took the advice. A range
    /// that reaches below the heap's start has a hole, for which Linux answers `ENOMEM` having
    /// advised the mappings in it (`madvise(2)`): taken too.
    fn advise(from: usize, to: usize) -> bool {
        let start = from.next_multiple_of(4096);
        let end = to & !(4096 - 1);
        if end <= start {
            return false;
        }
        // SAFETY: advice on pages of this process's own heap or of an allocation just made; it
        // changes no content, and a kernel without transparent huge pages refuses it.
        let r = unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::ENOMEM)
    }

    pub(super) fn advised_heap_bytes() -> usize {
        ADVISED.load(Ordering::Relaxed)
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64")))]
mod imp {
    #[inline]
    pub(super) fn before() {}
    #[inline]
    pub(super) fn after(_: *mut u8, _: usize) {}
    pub(super) fn advised_heap_bytes() -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocations through it are the system's: sizes from a byte to past `LARGE_BYTES`, grown
    /// and shrunk by `realloc`, keep their contents, and zeroed ones are zero.
    #[test]
    fn allocations_keep_their_contents_through_realloc() {
        let a = HugePageHeap;
        for &size in &[1usize, 24, 4096, 100_000, LARGE_BYTES, LARGE_BYTES * 3 + 17] {
            let layout = Layout::from_size_align(size, 8).unwrap();
            // SAFETY: a non-zero layout; the block is written within its size, reallocated with
            // its layout, and freed once with the layout of its last size.
            unsafe {
                let z = a.alloc_zeroed(layout);
                assert!(!z.is_null());
                assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                a.dealloc(z, layout);
                let p = a.alloc(layout);
                assert!(!p.is_null());
                for i in 0..size {
                    *p.add(i) = (i % 251) as u8;
                }
                let bigger = size * 2 + 64;
                let q = a.realloc(p, layout, bigger);
                assert!(!q.is_null());
                assert!((0..size).all(|i| *q.add(i) == (i % 251) as u8), "{size} bytes kept");
                let smaller = size.div_ceil(2);
                let r = a.realloc(q, Layout::from_size_align(bigger, 8).unwrap(), smaller);
                assert!((0..smaller).all(|i| *r.add(i) == (i % 251) as u8));
                a.dealloc(r, Layout::from_size_align(smaller, 8).unwrap());
            }
        }
    }

    /// The growth of the break is advised from the huge page it began in.
    #[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
    #[test]
    fn growth_is_advised_from_the_huge_page_it_began_in() {
        const M: usize = 1 << 20;
        assert_eq!(
            imp::growth(0x5555_0000_0000 + 3 * M + 4096, 0x5555_0000_0000 + 40 * M),
            (0x5555_0000_0000 + 2 * M, 0x5555_0000_0000 + 40 * M)
        );
        assert_eq!(imp::growth(4 * M, 6 * M), (4 * M, 6 * M));
    }

    /// On Linux with glibc, where the kernel has transparent huge pages ("always" or
    /// "madvise"), a move of the break up is seen at the next allocation and advised: the heap's
    /// mapping then carries the huge-page flag (`hg` in `/proc/self/smaps`). The break is moved
    /// here by hand (glibc's allocator takes a break moved by another as a foreign `sbrk`), since
    /// a test thread allocates from an arena of its own, not from the heap.
    #[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
    #[test]
    fn a_move_of_the_break_is_advised_at_the_next_allocation() {
        if !thp_enabled() {
            return; // The kernel refuses the advice: nothing to see.
        }
        let a = HugePageHeap;
        let layout = Layout::from_size_align(64, 8).unwrap();
        // SAFETY: one block allocated and freed with its layout; the break moved up by 8 MiB of
        // fresh heap that nothing else uses.
        unsafe {
            a.dealloc(a.alloc(layout), layout);
            let before = advised_heap_bytes();
            assert_ne!(libc::sbrk(8 << 20), usize::MAX as *mut libc::c_void, "sbrk failed");
            a.dealloc(a.alloc(layout), layout);
            assert!(advised_heap_bytes() - before >= 8 << 20, "the growth advised");
        }
        let heap = mappings().into_iter().filter(|m| m.0.ends_with("[heap]")).map(|m| m.1).collect::<Vec<_>>();
        assert!(heap.iter().any(|flags| flags.split_whitespace().any(|w| w == "hg")), "{heap:?}");
    }

    /// A block that glibc serves with a mapping of its own (past its largest mmap threshold, 32
    /// MiB) has the whole mapping advised, the page of its header too: one mapping, with the
    /// huge-page flag, from the mapping's start to past the block's end.
    #[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
    #[test]
    fn a_block_of_its_own_mapping_is_advised_whole() {
        if !thp_enabled() {
            return; // The kernel refuses the advice: nothing to see.
        }
        let a = HugePageHeap;
        let size = (33 << 20) + 4321;
        let layout = Layout::from_size_align(size, 8).unwrap();
        // SAFETY: a non-zero layout; the block is freed once with it, after the look at the maps.
        let (p, header) = unsafe {
            let p = a.alloc(layout);
            (p, (p as *const usize).sub(1).read())
        };
        let (start, end) = (p as usize - 16, p as usize + size);
        let holding: Vec<(String, String)> = mappings()
            .into_iter()
            .filter(|m| {
                let range = m.0.split_whitespace().next().unwrap_or("");
                let (lo, hi) = range.split_once('-').unwrap_or(("0", "0"));
                let (lo, hi) = (usize::from_str_radix(lo, 16).unwrap_or(0), usize::from_str_radix(hi, 16).unwrap_or(0));
                lo < end && hi > start
            })
            .collect();
        // SAFETY: allocated above with this layout.
        unsafe { a.dealloc(p, layout) };
        assert!(header & 2 != 0, "a block of {size} bytes has a mapping of its own");
        assert_eq!(holding.len(), 1, "one mapping holds the block, header and all: {holding:?}");
        assert!(holding[0].1.split_whitespace().any(|w| w == "hg"), "{holding:?}");
    }

    /// The kernel takes the advice: transparent huge pages "always" or "madvise".
    #[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
    fn thp_enabled() -> bool {
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        thp.contains("[always]") || thp.contains("[madvise]")
    }

    /// This process's mappings from `/proc/self/smaps`: each one's first line (its range and
    /// name) and its `VmFlags` line.
    #[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
    fn mappings() -> Vec<(String, String)> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut out: Vec<(String, String)> = Vec::new();
        for line in smaps.lines() {
            if line.starts_with("VmFlags:") {
                if let Some(last) = out.last_mut() {
                    last.1 = line.to_string();
                }
            } else if line.split_whitespace().next().is_some_and(|w| w.contains('-') && !w.ends_with(':')) {
                out.push((line.to_string(), String::new()));
            }
        }
        out
    }

    /// A block of a thread's own arena (a test thread allocates from one) has that arena's
    /// heap advised: its mapping carries the huge-page flag.
    #[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
    #[test]
    fn a_threads_arena_is_advised() {
        if !thp_enabled() {
            return; // The kernel refuses the advice: nothing to see.
        }
        let at = std::thread::spawn(|| {
            let a = HugePageHeap;
            let layout = Layout::from_size_align(1024, 8).unwrap();
            // SAFETY: a non-zero layout; the block is freed once with it.
            unsafe {
                let p = a.alloc(layout);
                let header = (p as *const usize).sub(1).read();
                a.dealloc(p, layout);
                (p as usize, header & 4 != 0)
            }
        })
        .join()
        .unwrap();
        let (p, non_main) = at;
        if !non_main {
            return; // glibc gave this thread the heap's arena (its arenas at their limit).
        }
        let m = mappings().into_iter().find(|(range, _)| {
            let r = range.split_whitespace().next().unwrap_or("");
            let (lo, hi) = r.split_once('-').unwrap_or(("0", "0"));
            let (lo, hi) = (usize::from_str_radix(lo, 16).unwrap_or(0), usize::from_str_radix(hi, 16).unwrap_or(0));
            lo <= p && p < hi
        });
        assert!(m.as_ref().is_some_and(|(_, flags)| flags.split_whitespace().any(|w| w == "hg")), "{m:?}");
    }
}
