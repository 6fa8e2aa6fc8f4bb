//! Per-flow state held by global index, in a part of a run on several threads for the part's
//! own flows only.
//!
//! **Why.** A flow's state ([`super::FlowRt`]) and its queue pair's ([`super::rdma::QpRt`]) are
//! read and written only at the flow's two hosts: the data sender and the data receiver (a
//! switch on the way reads its packet, never its flow). A part of a run on several threads
//! simulates its own nodes, so it needs the flows whose source or destination is one of its
//! hosts (unless those are a large share of them: [`holds_all`]); every part holding every flow was, on
//! the k = 32 fat tree's 10 ms of web search, 246 MiB a thread (179,091 flows of 1.4 KB), six
//! times the state of its 49,152 ports. Held by part, a thread's share falls with the threads:
//! about two parts in N hold a flow.
//!
//! **How.** The flows keep their global indices (events, packets and queue pairs name them), and
//! a part maps each to its place among the part's own (`place`, 4 bytes a flow). A whole run
//! has no map: an index is its place, at the cost of one test of an empty map per access, which
//! the processor predicts. An index of another part's flow has no place: reading it is a bug
//! and panics (an index out of bounds), as reading past the end of a vector does.

use std::ops::{Index, IndexMut};

/// Whether a part whose own hosts are the ends of `own` of `total` flows holds them all, by
/// their indices, rather than its own by their places: where its own are more than a quarter of
/// them (on fewer than about eight threads), the share it would not hold saves less than the map
/// costs, a load before every access to a flow (measured on the k = 32 fat tree's 1 ms of web
/// search on two threads with every part holding its own by place: 2-8 % more time,
/// `docs/benchmarks.md`).
pub(crate) fn holds_all(own: usize, total: usize) -> bool {
    4 * own > total
}

/// No place: another part's flow.
const ELSEWHERE: u32 = u32::MAX;

/// Items numbered `0..len`, all of them (a whole run) or those a part holds.
#[derive(Debug)]
pub(crate) struct Placed<T> {
    items: Vec<T>,
    /// Global index → its place in `items` ([`ELSEWHERE`]: not held); empty: every index is its
    /// own place.
    place: Vec<u32>,
    /// How many indices there are (held or not).
    len: usize,
}

impl<T> Default for Placed<T> {
    fn default() -> Self {
        Placed { items: Vec::new(), place: Vec::new(), len: 0 }
    }
}

impl<T> Placed<T> {
    /// Every item, each at its index.
    pub fn whole(items: Vec<T>) -> Self {
        let len = items.len();
        Placed { items, place: Vec::new(), len }
    }

    /// The items of the indices `held` (ascending, each below `len`), in that order in `items`:
    /// a part's share of `len` items.
    pub fn part(items: Vec<T>, held: &[u32], len: usize) -> Self {
        assert_eq!(items.len(), held.len(), "one item an index held");
        assert!(held.windows(2).all(|w| w[0] < w[1]), "held indices ascending");
        let mut place = vec![ELSEWHERE; len];
        for (i, &g) in held.iter().enumerate() {
            place[g as usize] = i as u32;
        }
        Placed { items, place, len }
    }

    /// How many indices there are, held here or not.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether every index is held, at its own place.
    pub fn is_whole(&self) -> bool {
        self.place.is_empty()
    }

    /// The indices held, ascending: the items' order (`part` places them so).
    fn held_indices(&self) -> Box<dyn Iterator<Item = usize> + '_> {
        match self.place.is_empty() {
            true => Box::new(0..self.items.len()),
            false => Box::new(self.place.iter().enumerate().filter(|&(_, &p)| p != ELSEWHERE).map(|(g, _)| g)),
        }
    }

    /// The items held, each with its index, in index order.
    pub fn iter_indexed(&self) -> impl Iterator<Item = (usize, &T)> + '_ {
        self.held_indices().zip(&self.items)
    }

    /// How many items are held here.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.items.len()
    }

    #[inline(always)]
    fn place_of(&self, i: usize) -> usize {
        if self.place.is_empty() {
            i
        } else {
            self.place.get(i).map_or(usize::MAX, |&p| p as usize)
        }
    }

    /// The items held (every item, in index order, in a whole run).
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// Item `i`, if held here.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<&T> {
        self.items.get(self.place_of(i))
    }

    /// Item `i` to write, if held here.
    #[inline(always)]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        let p = self.place_of(i);
        self.items.get_mut(p)
    }

    /// Fetch the cache line at `offset` bytes into item `i` (nothing if it is not held here).
    #[inline(always)]
    pub fn prefetch(&self, i: usize, offset: usize) {
        // Another part's index has no place: a fetch of a wild address, which never faults.
        crate::packet::prefetch_at(&self.items, self.place_of(i), offset);
    }

    /// The items held, each with its index, in index order.
    pub fn into_indexed(self) -> impl Iterator<Item = (usize, T)> {
        let index: Vec<usize> = self.held_indices().collect();
        index.into_iter().zip(self.items)
    }
}

impl<T> Index<usize> for Placed<T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        &self.items[self.place_of(i)]
    }
}

impl<T> IndexMut<usize> for Placed<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        let p = self.place_of(i);
        &mut self.items[p]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_run_holds_every_index_at_its_place() {
        let mut w = Placed::whole(vec![10, 11, 12]);
        assert_eq!((w.len(), w.held()), (3, 3));
        assert_eq!((w[0], w[2], w.get(3)), (10, 12, None));
        w[1] += 5;
        assert_eq!(w.get(1), Some(&16));
        assert_eq!(w.into_indexed().collect::<Vec<_>>(), vec![(0, 10), (1, 16), (2, 12)]);
    }

    #[test]
    fn a_part_holds_its_indices_only_and_gives_them_back_with_their_indices() {
        let mut p = Placed::part(vec!["b", "d"], &[1, 3], 5);
        assert_eq!((p.len(), p.held()), (5, 2));
        assert_eq!((p[1], p[3]), ("b", "d"));
        assert_eq!((p.get(0), p.get(2), p.get(4), p.get(9)), (None, None, None, None));
        *p.get_mut(3).unwrap() = "D";
        assert!(p.get_mut(0).is_none());
        p.prefetch(0, 0); // not held: nothing to fetch, and no fault
        p.prefetch(3, 0);
        assert_eq!(p.into_indexed().collect::<Vec<_>>(), vec![(1, "b"), (3, "D")]);
    }

    #[test]
    fn a_part_holds_every_flow_where_its_own_are_more_than_a_quarter() {
        assert!(holds_all(2, 4) && holds_all(26, 100));
        assert!(!holds_all(1, 4) && !holds_all(25, 100) && !holds_all(0, 0));
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn reading_another_parts_item_panics() {
        let p = Placed::part(vec![7u8], &[2], 4);
        let _ = p[1];
    }
}
