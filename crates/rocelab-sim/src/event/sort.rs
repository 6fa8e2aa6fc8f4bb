//! Sorting a slot's entries by ascending wheel key as the slot becomes current (see the parent
//! module): by rank for a few entries, by insertion for a nearly sorted many.

use super::{Entry, Event};

/// The most entries of a slot sorted by rank ([`sort_by_rank`]).
const SHORT_SLOT: usize = 16;

/// Sort the entries of a slot made current by ascending key: up to [`SHORT_SLOT`] entries by
/// rank ([`sort_by_rank`]), without a data-dependent branch, longer ones as
/// [`sort_ascending`] does.
pub(super) fn sort_slot(v: &mut [Entry]) {
    match v.len() {
        0..=8 => sort_by_rank::<8>(v),
        9..=SHORT_SLOT => sort_by_rank::<SHORT_SLOT>(v),
        _ => sort_ascending(v),
    }
}

/// Sort entries by ascending key. Entries of equal keys are interchangeable (see `key.rs`), so
/// any sort gives one outcome. A long slot is often nearly in order (most events are pushed in
/// time order), so an insertion sort, linear in the entries plus the moves, does it in cache;
/// past a budget of moves (a slot filled out of order) the library's sort finishes.
pub(super) fn sort_ascending(v: &mut [Entry]) {
    // A slot filled in no order (the canonical order of an instant's many events, pushed by
    // the events of earlier instants in theirs) goes to the library's sort at once: a count of
    // the descents, one pass without a branch, costs less than an insertion sort that runs out
    // of its budget (a quarter of the line-rate fat tree's sorting, measured with callgrind).
    let descents = v.windows(2).map(|w| (w[0].0 > w[1].0) as usize).sum::<usize>();
    if descents > v.len() / 8 {
        v.sort_unstable_by_key(|e| e.0);
        return;
    }
    let mut budget = 4 * v.len() + 16;
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].0 > x.0 {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
        budget = budget.saturating_sub(i - j);
        if budget == 0 {
            v.sort_unstable_by_key(|e| e.0);
            return;
        }
    }
}

/// Sort at most `N` entries by ascending key without a data-dependent branch: each entry's
/// place is the number of keys below its own plus the number of equal keys before it, counted
/// over a fixed `N` keys (the missing ones `u64::MAX`, above every key: an event's key is
/// below `2^54`). In a sparse run (RDMA with DCQCN: 6.8 events per 1,024-ps slot on the RDMA
/// fat tree, at different instants, pushed from different events with different lead times,
/// so in no time order) four slots in five need sorting and most hold a few entries; an
/// insertion sort's inner loop mispredicted about once per entry there. This costs more
/// instructions (about 40 an entry for `N` = 8) and fewer mispredictions.
fn sort_by_rank<const N: usize>(v: &mut [Entry]) {
    debug_assert!(v.len() <= N);
    let mut keys = [u64::MAX; N];
    let mut copy = [(0u64, Event::Sample); N];
    for (i, &e) in v.iter().enumerate() {
        keys[i] = e.0;
        copy[i] = e;
    }
    for (i, &e) in copy[..v.len()].iter().enumerate() {
        let place = keys.iter().enumerate().map(|(j, &k)| ((k < e.0) | ((k == e.0) & (j < i))) as usize).sum::<usize>();
        v[place] = e;
    }
}
