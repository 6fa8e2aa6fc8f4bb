//! The packet pool's slots: a growable array that never copies itself as it grows, on huge
//! pages where the kernel offers them.
//!
//! A `Vec` grows by doubling, and the allocator moves it: below glibc's mmap threshold (raised
//! at run time up to 32 MiB) by allocating anew, copying, and freeing. On the line-rate fat tree
//! (0.8 M packets, 52 MB of slots) those copies took half of the run's 34,500 page faults and
//! about 50 MB of `memcpy`, and the old and the new block were resident together for a moment.
//! And every hop reads a packet at random in those 52 MB: with 4 KiB pages that is 13,000
//! pages, far more than a TLB holds, so nearly every packet read also walked the page table.
//!
//! On Linux the slots are an anonymous mapping instead, grown with `mremap(2)`, which moves page
//! tables rather than bytes: a page is faulted in once, when a slot in it is first written, and
//! not copied again. Once the pool passes 8 MiB the mapping is advised `MADV_HUGEPAGE` (the
//! kernel's `Documentation/admin-guide/mm/transhuge.rst`), and its slots are copied once into a
//! new mapping with that advice: where transparent huge pages are enabled, "always" or
//! "madvise" (the common distribution default), the slots then sit on 2 MiB pages, 25 of them
//! on the fat tree. Where the advice is refused nothing changes but the page size. A smaller
//! pool stays on small pages (see `HUGE_FROM_BYTES`). Measured on the line-rate fat tree
//! (`docs/benchmarks-history.md`): 6,600 page faults instead of 34,500, peak RSS 75 MB instead of 82 MB,
//! the run about 8 % faster. Elsewhere the slots are a `Vec`.
//!
//! Either way the values stored are `Copy`: nothing is dropped, and the memory below `len` is
//! always initialized.

#[cfg(target_os = "linux")]
pub(crate) use mapped::Slots;

/// A `Vec` where no mapping is used.
#[cfg(not(target_os = "linux"))]
pub(crate) type Slots<T> = Vec<T>;

/// A `Vec` with room for `n` values whose buffer, where it is large, is advised for huge pages
/// before anything is written to it. For the engine's arrays that are sized once when a run is
/// built and then read at random on every hop, the ports above all (85 MB on the k = 32 fat
/// tree, 1,728 bytes each): on 4 KiB pages nearly every port an arrival or a look ahead named
/// also walked the page table (a software prefetch waits for that walk). glibc serves a request
/// this large with a fresh mapping of its own, untouched, so the pages advised are faulted in as
/// huge pages as the values are pushed, where transparent huge pages are enabled ("always" or
/// "madvise"). Only the whole 2 MiB pages inside the buffer are advised (its edges stay on small
/// pages); a buffer below [`mapped::HUGE_FROM_BYTES`] is left as it is, and so is everything
/// elsewhere than on Linux. The advice changes no value: only the size of the pages.
pub(crate) fn vec_on_huge_pages<T>(n: usize) -> Vec<T> {
    let v: Vec<T> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    mapped::advise_huge(v.as_ptr().cast(), n.saturating_mul(std::mem::size_of::<T>()));
    v
}

#[cfg(target_os = "linux")]
mod mapped {
    use std::marker::PhantomData;
    use std::ops::{Deref, DerefMut};
    use std::ptr::NonNull;

    /// The first mapping: 64 KiB.
    const FIRST_BYTES: usize = 1 << 16;
    /// The size from which the mapping is advised for huge pages: 8 MiB, 2,048 small pages,
    /// about what a second-level TLB holds (1,536 to 3,072 entries on current x86 cores). A
    /// smaller pool does as well on small pages, which cost less to fault in: the kernel zeroes
    /// a huge page whole, and one took about 3.5 ms on the benchmark machine (a VM whose memory
    /// the host backs as it is first touched), 4 % of the 90 ms TCP benchmark whose 9,000
    /// packets fit in 600 KB.
    pub(super) const HUGE_FROM_BYTES: usize = 8 << 20;

    /// A huge page on x86-64 and most Linux configurations.
    const HUGE_PAGE: usize = 2 << 20;

    /// Advise the whole huge pages inside `bytes` bytes at `p`, if they are
    /// [`HUGE_FROM_BYTES`] or more, for huge pages (see [`super::vec_on_huge_pages`]).
    pub(super) fn advise_huge(p: *const u8, bytes: usize) {
        if bytes < HUGE_FROM_BYTES {
            return;
        }
        let start = (p as usize).next_multiple_of(HUGE_PAGE);
        let end = (p as usize + bytes) & !(HUGE_PAGE - 1);
        if end > start {
            // SAFETY: the range lies inside an allocation of `bytes` bytes at `p` that the
            // caller owns; the advice changes no content, and a kernel without transparent huge
            // pages refuses it harmlessly.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }

    /// Slots in an anonymous mapping of `cap` values, of which the first `len` are written.
    pub(crate) struct Slots<T: Copy> {
        ptr: NonNull<T>,
        len: usize,
        cap: usize,
        _owns: PhantomData<T>,
    }

    // SAFETY: a `Slots` owns its mapping alone, as a `Vec` owns its buffer.
    unsafe impl<T: Copy + Send> Send for Slots<T> {}
    // SAFETY: shared access only reads, through `&[T]`.
    unsafe impl<T: Copy + Sync> Sync for Slots<T> {}

    impl<T: Copy> Default for Slots<T> {
        fn default() -> Self {
            Slots { ptr: NonNull::dangling(), len: 0, cap: 0, _owns: PhantomData }
        }
    }

    impl<T: Copy> Slots<T> {
        /// Append `x`.
        #[inline]
        pub(crate) fn push(&mut self, x: T) {
            if self.len == self.cap {
                self.grow();
            }
            // SAFETY: `len < cap`, so the slot is inside the mapping, which is aligned to a page.
            unsafe { self.ptr.as_ptr().add(self.len).write(x) };
            self.len += 1;
        }

        /// Double the mapping (map it first, [`FIRST_BYTES`]). Past [`HUGE_FROM_BYTES`] the
        /// mapping is advised for huge pages; the doubling that crosses that size copies the
        /// slots into a new mapping (at most 8 MiB, once), so that they too move to huge pages.
        #[cold]
        #[inline(never)]
        fn grow(&mut self) {
            const { assert!(std::mem::size_of::<T>() > 0 && std::mem::align_of::<T>() <= 4096) };
            let size = std::mem::size_of::<T>();
            let cap = if self.cap == 0 { FIRST_BYTES.div_ceil(size) } else { self.cap * 2 };
            let bytes = cap.checked_mul(size).unwrap_or_else(|| out_of_memory(usize::MAX));
            let old_bytes = self.cap * size;
            let huge = bytes >= HUGE_FROM_BYTES;
            let p = if self.cap == 0 || (huge && old_bytes < HUGE_FROM_BYTES) {
                let p = map(bytes, huge);
                if self.cap != 0 {
                    // SAFETY: the first `len` slots of the old mapping are written, the new one
                    // is larger, and the two do not overlap; the old one is unmapped once, and
                    // no reference into it outlives `&mut self`.
                    unsafe {
                        std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), p.cast::<T>(), self.len);
                        libc::munmap(self.ptr.as_ptr().cast(), old_bytes);
                    }
                }
                p
            } else {
                // SAFETY: `ptr` and `old_bytes` are exactly the mapping made here; moving it
                // invalidates no reference, as `&mut self` is held. The advice of the mapping
                // moves with it.
                let p = unsafe { libc::mremap(self.ptr.as_ptr().cast(), old_bytes, bytes, libc::MREMAP_MAYMOVE) };
                if p == libc::MAP_FAILED {
                    out_of_memory(bytes);
                }
                p
            };
            self.ptr = NonNull::new(p.cast()).unwrap_or_else(|| out_of_memory(bytes));
            self.cap = cap;
        }
    }

    /// A new private anonymous mapping of `bytes`, advised for huge pages if `huge`.
    fn map(bytes: usize, huge: bool) -> *mut libc::c_void {
        // SAFETY: a new mapping; no existing memory is touched.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            out_of_memory(bytes);
        }
        if huge {
            // SAFETY: advice on the mapping just made; it changes no content, and a kernel
            // without transparent huge pages refuses it harmlessly.
            unsafe { libc::madvise(p, bytes, libc::MADV_HUGEPAGE) };
        }
        p
    }

    /// The mapping could not grow: the same end as a `Vec` that cannot.
    fn out_of_memory(bytes: usize) -> ! {
        let layout = std::alloc::Layout::array::<u8>(bytes).unwrap_or(std::alloc::Layout::new::<u8>());
        std::alloc::handle_alloc_error(layout)
    }

    impl<T: Copy> Drop for Slots<T> {
        fn drop(&mut self) {
            if self.cap != 0 {
                // SAFETY: the mapping made by `grow`, unmapped once; `T: Copy` needs no drop.
                unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.cap * std::mem::size_of::<T>()) };
            }
        }
    }

    impl<T: Copy> Deref for Slots<T> {
        type Target = [T];
        #[inline]
        fn deref(&self) -> &[T] {
            // SAFETY: the first `len` slots are written (`push`); `ptr` is dangling and aligned
            // when `len` is 0.
            unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
        }
    }

    impl<T: Copy> DerefMut for Slots<T> {
        #[inline]
        fn deref_mut(&mut self) -> &mut [T] {
            // SAFETY: as in `deref`, and `&mut self` is exclusive.
            unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
        }
    }

    impl<T: Copy + std::fmt::Debug> std::fmt::Debug for Slots<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_list().entries(self.iter()).finish()
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn grows_past_several_mappings_keeping_every_value() {
            let mut s: Slots<[u64; 8]> = Slots::default();
            assert!(s.is_empty());
            // Past the size advised for huge pages, so that the mapping moves after the advice.
            let n = 2 * HUGE_FROM_BYTES / 64 + 5;
            for i in 0..n as u64 {
                s.push([i; 8]);
            }
            assert_eq!(s.len(), n);
            assert!(s.iter().enumerate().all(|(i, v)| v.iter().all(|&x| x == i as u64)));
            s[7] = [1; 8];
            assert_eq!(s[7], [1; 8]);
            assert_eq!(s[n - 1], [n as u64 - 1; 8]);
        }

        #[test]
        fn a_vec_advised_for_huge_pages_has_its_room_and_keeps_its_values() {
            #[derive(Clone, Copy, PartialEq, Debug)]
            #[repr(align(64))]
            struct Port([u64; 8]);
            // Large enough to be advised: several whole huge pages inside the buffer.
            let n = 3 * HUGE_FROM_BYTES / 64;
            let mut v: Vec<Port> = crate::slots::vec_on_huge_pages(n);
            assert!(v.is_empty() && v.capacity() >= n);
            let p = v.as_ptr();
            for i in 0..n as u64 {
                v.push(Port([i; 8]));
            }
            assert_eq!(v.as_ptr(), p, "filled without a move");
            assert!(v.iter().enumerate().all(|(i, x)| *x == Port([i as u64; 8])));
            let small: Vec<Port> = crate::slots::vec_on_huge_pages(3);
            assert!(small.capacity() >= 3);
        }

        #[test]
        fn mapping_is_aligned_for_cache_line_values() {
            #[derive(Clone, Copy)]
            #[repr(align(64))]
            struct Line(#[allow(dead_code)] u8);
            let mut s: Slots<Line> = Slots::default();
            s.push(Line(1));
            assert_eq!(s.as_ptr() as usize % 64, 0);
        }
    }
}
