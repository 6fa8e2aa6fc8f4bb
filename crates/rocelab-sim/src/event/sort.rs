//! Sorting a slot's entries by descending wheel key as the slot becomes current (see the
//! parent module): by rank for a few entries, by insertion for a nearly sorted many.

use super::Event;

/// The most entries of a slot sorted by rank ([`sort_by_rank`]); the late entries of a slot
/// of up to this many are sorted with it in a run of short slots ([`super::EventQueue::append_late`]).
pub(super) const SHORT_SLOT: usize = 16;

/// Sort the entries of a slot made current by descending key: up to [`SHORT_SLOT`] entries by
/// rank ([`sort_by_rank`]), without a data-dependent branch, longer ones as
/// [`sort_descending`] does.
pub(super) fn sort_slot(v: &mut [(u64, Event)]) {
    match v.len() {
        0..=8 => sort_by_rank::<8>(v),
        9..=SHORT_SLOT => sort_by_rank::<SHORT_SLOT>(v),
        _ => sort_descending(v),
    }
}

/// Sort entries by descending key. Keys are unique, so any sort gives the one order. A slot
/// is nearly in order (its list is newest first, and most events are pushed in time
/// order), so an insertion sort, linear in the entries plus the moves, does it in cache; past a
/// budget of moves (a slot filled out of order) the library's sort finishes.
pub(super) fn sort_descending(v: &mut [(u64, Event)]) {
    let mut budget = 4 * v.len() + 16;
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].0 < x.0 {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
        budget = budget.saturating_sub(i - j);
        if budget == 0 {
            v.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
            return;
        }
    }
}

/// Sort at most `N` entries by descending key without a data-dependent branch: each entry's
/// place is the number of keys above its own (keys are unique), counted over a fixed `N` keys
/// (the missing ones 0, below every key, as every key holds a sequence number from 1). In a
/// sparse run (RDMA with DCQCN: 6.8 events per 1,024-ps slot on the RDMA fat tree, at
/// different instants, pushed from different events with different lead times, so in no time
/// order) four slots in five need sorting and most hold a few entries; the insertion sort's
/// inner loop mispredicted about once per entry there. This costs more instructions (about 40
/// an entry for `N` = 8) and fewer mispredictions; alone it measured no faster, with the late
/// entries of short slots sorted in with the rest ([`super::EventQueue::append_late`]) it is.
fn sort_by_rank<const N: usize>(v: &mut [(u64, Event)]) {
    debug_assert!(v.len() <= N);
    let mut keys = [0u64; N];
    let mut copy = [(0u64, Event::Sample); N];
    for (i, &e) in v.iter().enumerate() {
        keys[i] = e.0;
        copy[i] = e;
    }
    for &e in &copy[..v.len()] {
        let place = keys.iter().map(|&k| (k > e.0) as usize).sum::<usize>();
        v[place] = e;
    }
}
