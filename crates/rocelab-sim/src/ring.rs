//! A FIFO of `Copy` entries in a power-of-two ring: the switch egress queues and the NICs'
//! ready lists, on every hop's path.
//!
//! `std::collections::VecDeque` does the same job but costs more per operation there: its
//! capacity need not be a power of two, so each index wraps with a compare and a subtraction,
//! and its `push_back` keeps the grow check and the store in an out-of-line call. Here an
//! index is `(head + i) & (capacity - 1)`, the push is inline with its growth apart (`#[cold]`),
//! and the ring is 24 bytes (a boxed slice whose length is the capacity, a masked head and a
//! length), which leaves room beside it in an egress queue's cache line.

/// A first-in first-out queue in a ring buffer whose capacity is zero or a power of two.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ring<T> {
    /// The slots; `buf.len()` is the capacity.
    buf: Box<[T]>,
    /// Index of the first entry, below the capacity (0 while the capacity is 0).
    head: u32,
    /// Number of entries.
    len: u32,
}

impl<T: Copy + Default> Ring<T> {
    /// An empty ring; it allocates at its first push.
    pub(crate) fn new() -> Self {
        Ring { buf: Box::default(), head: 0, len: 0 }
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    /// Number of entries.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The oldest entry.
    #[inline(always)]
    pub(crate) fn front(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        Some(&self.buf[self.head as usize])
    }

    /// The entry `i` places behind the oldest.
    #[cfg(test)]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len as usize {
            return None;
        }
        Some(&self.buf[(self.head as usize + i) & self.mask()])
    }

    /// Append `x` behind the newest entry.
    #[inline(always)]
    pub(crate) fn push_back(&mut self, x: T) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let i = (self.head as usize + self.len as usize) & self.mask();
        self.buf[i] = x;
        self.len += 1;
    }

    /// Hint the CPU to fetch the line of the entry `k` places behind the oldest, where there is
    /// one (no effect on results): the engine's look ahead, a few events before a pop reads it.
    #[inline(always)]
    pub(crate) fn prefetch_entry(&self, k: usize) {
        if k < self.len as usize {
            crate::packet::prefetch_at(&self.buf, (self.head as usize + k) & self.mask(), 0);
        }
    }

    /// Drop the oldest entry without reading it (for a caller that holds a copy of it).
    #[inline(always)]
    pub(crate) fn skip_front(&mut self) {
        if self.len != 0 {
            self.head = ((self.head as usize + 1) & self.mask()) as u32;
            self.len -= 1;
        }
    }

    /// Take the oldest entry.
    #[inline(always)]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        let x = *self.front()?;
        self.skip_front();
        Some(x)
    }

    /// Take the oldest entry, and look at the entry `k` places behind the new oldest (so
    /// `k = 0` is the next one out): one load of the buffer and one index check fewer than
    /// `pop_front` then `get`.
    #[inline(always)]
    pub(crate) fn pop_front_get(&mut self, k: usize) -> Option<(T, Option<&T>)> {
        if self.len == 0 {
            return None;
        }
        let h = self.head as usize;
        let m = self.mask();
        let x = self.buf[h];
        let next = (h + 1) & m;
        self.head = next as u32;
        self.len -= 1;
        let coming = if k < self.len as usize { Some(&self.buf[(next + k) & m]) } else { None };
        Some((x, coming))
    }

    /// The entries, oldest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len as usize).map(move |i| &self.buf[(self.head as usize + i) & self.mask()])
    }

    /// Double the capacity (4 at the first push), the entries moved to the front in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(4);
        assert!(cap <= 1 << 31, "ring of more than 2^31 entries");
        let mut buf = vec![T::default(); cap].into_boxed_slice();
        for (slot, x) in buf.iter_mut().zip(self.iter()) {
            *slot = *x;
        }
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn empty_ring_has_nothing_and_no_allocation() {
        let mut r: Ring<u32> = Ring::new();
        assert!(r.is_empty());
        assert_eq!(r.len(), 0);
        assert_eq!(r.front(), None);
        assert_eq!(r.get(0), None);
        assert_eq!(r.pop_front(), None);
        assert_eq!(r.iter().count(), 0);
        assert_eq!(r.buf.len(), 0);
        assert_eq!(std::mem::size_of::<Ring<u64>>(), 24);
    }

    #[test]
    fn grows_by_doubling_and_keeps_order_across_the_wrap() {
        let mut r: Ring<u32> = Ring::new();
        r.push_back(1);
        assert_eq!(r.buf.len(), 4);
        for x in 2..=4 {
            r.push_back(x);
        }
        // Move the head so that the ring is full and wrapped when it grows.
        assert_eq!(r.pop_front(), Some(1));
        assert_eq!(r.pop_front(), Some(2));
        r.push_back(5);
        r.push_back(6);
        assert_eq!(r.head, 2);
        assert_eq!(r.buf.len(), 4, "full, not grown yet");
        r.push_back(7);
        assert_eq!(r.buf.len(), 8);
        assert_eq!(r.head, 0, "entries moved to the front in order");
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![3, 4, 5, 6, 7]);
        assert_eq!(r.front(), Some(&3));
        assert_eq!(r.get(4), Some(&7));
        assert_eq!(r.get(5), None);
    }

    #[test]
    fn matches_vecdeque_on_a_long_mixed_sequence() {
        // A deterministic mix of pushes and pops (more pushes than pops early, then more pops),
        // checked against `VecDeque` after every step, through several growths and wraps.
        let mut r: Ring<(u64, u32)> = Ring::new();
        let mut d: VecDeque<(u64, u32)> = VecDeque::new();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut max_len = 0;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let push_odds = if step < 10_000 { 6 } else { 3 };
            if x % 10 < push_odds {
                r.push_back((x, step));
                d.push_back((x, step));
            } else if x % 20 < 16 {
                assert_eq!(r.pop_front(), d.pop_front());
            } else if x % 20 < 17 {
                // A prefetch changes nothing; a skip drops what a pop would return.
                r.prefetch_entry((x % 5) as usize);
                d.pop_front();
                r.skip_front();
            } else {
                let popped = d.pop_front();
                let k = (x % 7) as usize;
                assert_eq!(r.pop_front_get(k), popped.map(|v| (v, d.get(k))));
            }
            assert_eq!(r.len(), d.len());
            max_len = max_len.max(r.len());
            assert_eq!(r.front(), d.front());
            assert_eq!(r.get(3), d.get(3));
            assert_eq!(r.get(8), d.get(8));
        }
        assert!(max_len > 1000, "the sequence grew the ring well past its first size");
        assert!(r.iter().eq(d.iter()));
        while let Some(v) = d.pop_front() {
            assert_eq!(r.pop_front(), Some(v));
        }
        assert!(r.is_empty());
    }
}
