//! Sorting a slot's entries by ascending wheel key as the slot becomes current (see the parent
//! module): by rank for a few entries, by insertion for a nearly sorted many, through packed
//! integer keys for a many in no order.

use super::{Entry, Event};

/// The most entries of a slot sorted by rank ([`sort_by_rank`]).
const SHORT_SLOT: usize = 16;

/// Sort the entries of a slot made current by ascending key: up to [`SHORT_SLOT`] entries by
/// rank ([`sort_by_rank`]), without a data-dependent branch, longer ones as
/// [`sort_ascending`] does.
pub(super) fn sort_slot(v: &mut Vec<Entry>, buf: &mut SortBuf) {
    match v.len() {
        0..=8 => sort_by_rank::<8>(v),
        9..=SHORT_SLOT => sort_by_rank::<SHORT_SLOT>(v),
        _ => sort_ascending(v, buf),
    }
}

/// Sort entries by ascending key. Entries of equal keys are interchangeable (see `key.rs`), so
/// any sort gives one outcome. From [`PACKED_SLOT`] entries on, [`sort_packed`] at once. A
/// shorter slot is often nearly in order (most events are pushed in time order), so an
/// insertion sort, linear in the entries plus the moves, does it in cache; past a budget of
/// moves (a slot filled out of order) [`sort_packed`] finishes.
pub(super) fn sort_ascending(v: &mut Vec<Entry>, buf: &mut SortBuf) {
    // A long slot goes to the packed sort without a look at its order: on the line-rate fat
    // tree the count of descents and the insertion sorts that ran out of their budget cost
    // more than the packed sort of the slots they found nearly in order would have (3.1 % of
    // all instructions on `fat-tree --time-us 100`, callgrind).
    if v.len() >= PACKED_SLOT {
        let differ = differing_bits(v);
        if differ >> super::LOW_BITS == 0 || !sort_by_offset(v, buf, differ) {
            let layout = layout_of(differ, v.len());
            sort_packed_as(v, buf, layout);
        }
        return;
    }
    // A slot filled in no order (the canonical order of an instant's many events, pushed by
    // the events of earlier instants in theirs) goes to the library's sort at once: a count of
    // the descents, one pass without a branch, costs less than an insertion sort that runs out
    // of its budget (a quarter of the line-rate fat tree's sorting, measured with callgrind).
    let descents = v.windows(2).map(|w| (w[0].0 > w[1].0) as usize).sum::<usize>();
    if descents > v.len() / 8 {
        v.sort_unstable_by_key(|e| e.0);
        return;
    }
    let budget = 4 * v.len() + 16;
    if !insertion_sort_within(v, budget) {
        sort_packed(v, buf);
    }
}

/// Straight insertion of `v` by ascending key, which gives up (returning `false`, `v` then a
/// permutation of itself, partly sorted) once it has moved entries `budget` places in all: a
/// slot nearly in order costs a few moves an entry, one in no order would cost its square.
#[inline(always)]
fn insertion_sort_within(v: &mut [Entry], mut budget: usize) -> bool {
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
            return false;
        }
    }
    true
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

/// The most bits of the digit by which [`sort_by_offset`] distributes a slot's entries.
const OFFSET_DIGIT_BITS: u32 = 10;

/// The most entries of a bucket of [`sort_by_offset`] (of two buckets it looks at): past them, the slot's entries are
/// crowded at a few instants (as on the line-rate fat tree, where a hundred entries of a slot
/// share one to three), and the insertion would cost more than [`sort_packed`].
const CROWDED: u32 = 8;

/// The buckets [`sort_by_offset`] may use.
const STARTS: usize = 1 << OFFSET_DIGIT_BITS;

/// The bits in which the keys of `v` differ (zero for fewer than two entries).
#[inline]
pub(super) fn differing_bits(v: &[Entry]) -> u64 {
    let Some(first) = v.first().map(|e| e.0) else { return 0 };
    v.iter().fold(0u64, |a, e| a | (e.0 ^ first))
}

/// Sort a long slot whose entries lie at different instants (`differ`, the bits in which the
/// keys differ, reaches the time's offset in the slot): one counting pass on the top bits of
/// the keys' differing span (one to two buckets an entry: the high bits of the offset), then an
/// insertion sort, which moves an entry only past the others of its bucket (Knuth, *The Art
/// of Computer Programming* vol. 3, §5.2.5, a distribution then a straight insertion). On the
/// k = 32 fat tree a current slot holds 44 entries on average (55 in a slot sorted), at nearly
/// as many instants, pushed in no order by events with different lead times: the library's
/// sort of their packed keys took 71 instructions an event of the run (callgrind, 150 µs), and
/// the run 814 instructions an event in all, 801 with this sort (809 with two buckets an entry
/// and the entries copied back rather than swapped). Returns `false`, with `v` untouched, when
/// the slot is crowded at a few instants ([`CROWDED`]) or the insertion runs out of its budget
/// of moves, for [`sort_packed`] to sort instead.
pub(super) fn sort_by_offset(v: &mut Vec<Entry>, buf: &mut SortBuf, differ: u64) -> bool {
    let n = v.len();
    let high = u64::BITS - differ.leading_zeros();
    let digit_bits = (usize::BITS - n.leading_zeros()).min(OFFSET_DIGIT_BITS).min(high);
    let shift = high - digit_bits;
    let mask = (1usize << digit_bits) - 1;
    // The bits above `high` are equal in every key, so the digits order as the keys do.
    // (Masked by the array's length too, so that its indexing needs no check.)
    let digit = |k: u64| (k >> shift) as usize & mask & (STARTS - 1);
    // Only the buckets in use are cleared: a whole array of 1,024 counters zeroed each time
    // cost more than the sort saved.
    let starts = &mut *buf.starts;
    starts[..=mask].fill(0);
    for e in v.iter() {
        starts[digit(e.0)] += 1;
    }
    // Two entries' buckets stand for all: in a slot crowded at a few instants, nearly every
    // entry's bucket is (a maximum over the buckets cost 4 instructions an event on the k = 32
    // fat tree).
    if starts[digit(v[0].0)] > CROWDED || starts[digit(v[n / 2].0)] > CROWDED {
        return false;
    }
    let mut sum = 0;
    for s in starts[..=mask].iter_mut() {
        let count = *s;
        *s = sum;
        sum += count;
    }
    let out = &mut buf.entries;
    out.clear();
    out.resize(n, (0, Event::Sample));
    for &e in v.iter() {
        let s = &mut starts[digit(e.0)];
        out[*s as usize] = e;
        *s += 1;
    }
    if !insertion_sort_within(out, 2 * n + 16) {
        return false;
    }
    // The sorted entries become the slot's, and its vector the buffer.
    std::mem::swap(v, out);
    true
}

/// The fewest entries of a slot sorted through packed keys ([`sort_packed`]) whatever their
/// order: for fewer, the packing and the gathering cost more than they save (on the RDMA fat
/// tree, whose long slots are short and span every bit of the keys, 0.5 % more instructions in
/// all with the packing from 17 entries on).
const PACKED_SLOT: usize = 32;

/// Buffers of [`sort_packed`], kept by the queue to be reused.
#[derive(Debug)]
pub(super) struct SortBuf {
    keys: Vec<u64>,
    entries: Vec<Entry>,
    /// The buckets' counts, then their starts, of [`sort_by_offset`].
    starts: Box<[u32; STARTS]>,
}

impl Default for SortBuf {
    fn default() -> Self {
        SortBuf { keys: Vec::new(), entries: Vec::new(), starts: Box::new([0; STARTS]) }
    }
}

/// Sort entries by ascending key through packed keys: each entry's index below the bits in
/// which the keys differ (from the lowest such bit to the highest), one `u64`, sorted as
/// integers; then the entries are gathered in that order.
///
/// The keys of a long slot differ in few bits: on the line-rate fat tree about a hundred
/// entries share one instant (one time offset) and two kinds (the ends of transmissions and
/// the arrivals), and name ports whose indices take a dozen bits, so the differing span and
/// the index fit one word. The library's sort then orders plain integers (sorting networks
/// and a partition without branches on the keys) instead of 24-byte entries compared by a
/// field, and the entries move once. Measured with callgrind, `rocelab bench fat-tree
/// --time-us 100`: 1.7 % fewer instructions in all for the slots in no order
/// (`docs/benchmarks-history.md`); a radix sort
/// of the packed keys over their differing bits (Knuth, *The Art of Computer Programming*
/// vol. 3, §5.2.5), two or three passes of a hundred keys, cost 1 % more than that, and one of
/// the entries themselves more still. Keys that differ in too
/// many bits to pack are sorted as entries.
pub(super) fn sort_packed(v: &mut [Entry], buf: &mut SortBuf) {
    sort_packed_as(v, buf, layout(v));
}

/// [`sort_packed`] with the [`Layout`] of `v` worked out by the caller.
fn sort_packed_as(v: &mut [Entry], buf: &mut SortBuf, layout: Layout) {
    let (low, span, index_bits) = match layout {
        Layout::Equal => return,
        Layout::Wide => {
            v.sort_unstable_by_key(|e| e.0);
            return;
        }
        Layout::Packed { low, span, index_bits } => (low, span, index_bits),
    };
    // The bits above the span are equal in every key, so the field orders as the keys do.
    let field = u64::MAX >> (64 - span);
    buf.keys.clear();
    buf.keys.extend(v.iter().enumerate().map(|(i, e)| (((e.0 >> low) & field) << index_bits) | i as u64));
    buf.keys.sort_unstable();
    let index = u64::MAX >> (64 - index_bits);
    buf.entries.clear();
    buf.entries.extend(buf.keys.iter().map(|&k| v[(k & index) as usize]));
    v.copy_from_slice(&buf.entries);
}

/// How [`sort_packed`] sorts a slot's entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// Every key is the same (or there is at most one entry): nothing to sort.
    Equal,
    /// The keys differ in bits `low .. low + span`, and an index takes `index_bits`: packed.
    Packed { low: u32, span: u32, index_bits: u32 },
    /// The differing span and the index do not fit one `u64`: sorted as entries.
    Wide,
}

/// The [`Layout`] of the keys of `v`.
pub(super) fn layout(v: &[Entry]) -> Layout {
    layout_of(differing_bits(v), v.len())
}

/// The [`Layout`] of `len` entries whose keys differ in the bits of `differ`.
fn layout_of(differ: u64, len: usize) -> Layout {
    if differ == 0 {
        return Layout::Equal;
    }
    let low = differ.trailing_zeros();
    let span = 64 - low - differ.leading_zeros();
    // At least one bit: `differ` is not zero, so there are two entries or more.
    let index_bits = usize::BITS - (len - 1).leading_zeros();
    if span + index_bits > 64 {
        Layout::Wide
    } else {
        Layout::Packed { low, span, index_bits }
    }
}
