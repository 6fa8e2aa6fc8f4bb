//! Egress scheduler of one port: strict priority plus deficit weighted round robin, the two
//! transmission selection algorithms of IEEE 802.1Qaz (ETS).
//!
//! Strict traffic classes are served first, highest class first. The remaining ETS classes
//! share what is left by DWRR (Shreedhar & Varghese, "Efficient fair queuing using deficit
//! round robin", SIGCOMM 1995): each visit adds a quantum proportional to the class's weight
//! to its deficit and the class sends while its head frame fits in the deficit. A class that
//! has nothing eligible loses its deficit and is skipped, so an idle class's share goes to the
//! others in proportion to their weights, as 802.1Qaz requires.

use serde::{Deserialize, Serialize};

/// Index of a traffic class (egress queue), 0..8.
pub type TrafficClass = u8;

/// Transmission selection algorithm of a traffic class (IEEE 802.1Qaz §37.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tsa {
    /// Strict priority: served before every ETS class; higher class number first.
    Strict,
    /// Enhanced transmission selection with a relative bandwidth weight (> 0; usually percent).
    Ets(u8),
}

/// DWRR + strict scheduler state of one egress port. Fixed-size (no heap) and small, so that it
/// lives inside the port's hot cache lines. Laid out by use (`repr(C)`): what every selection
/// reads (the masks, the round-robin state, the deficits) in the first `Scheduler::HOT_BYTES`,
/// which the port keeps in one cache line; the quanta, read once per visit, after them.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Scheduler {
    /// Bit `tc`: class `tc` is a strict class (served highest class first).
    strict_mask: u8,
    /// Bit `tc`: class `tc` is an ETS class.
    ets_mask: u8,
    n_ets: u8,
    /// Index into `ets` of the class being visited.
    cur: u8,
    fresh_visit: bool,
    /// ETS classes in round-robin order (`n_ets` of them).
    ets: [u8; 8],
    /// Per class, bytes it may still send this visit (below quantum + frame).
    deficit: [u32; 8],
    /// Per class, bytes added to the deficit per visit (at most 255 × a frame, far below 2³²).
    quantum: [u32; 8],
}

impl Scheduler {
    /// A scheduler for `tsa`. `max_frame` is the largest frame the port may carry: the quantum
    /// unit is chosen so that the smallest-weight class's quantum covers it, which bounds each
    /// selection to one pass over the classes.
    pub fn new(tsa: &[Tsa; 8], max_frame: u32) -> Self {
        let mut s = Scheduler {
            strict_mask: 0,
            ets: [0; 8],
            n_ets: 0,
            ets_mask: 0,
            cur: 0,
            fresh_visit: true,
            quantum: [0; 8],
            deficit: [0; 8],
        };
        let mut min_w = u32::MAX;
        for (tc, t) in tsa.iter().enumerate() {
            if *t == Tsa::Strict {
                s.strict_mask |= 1 << tc;
            }
            if let Tsa::Ets(w) = *t {
                s.ets[s.n_ets as usize] = tc as u8;
                s.n_ets += 1;
                s.ets_mask |= 1 << tc;
                min_w = min_w.min(w.max(1) as u32);
            }
        }
        let unit = if s.n_ets == 0 { 1 } else { max_frame.div_ceil(min_w).max(1) };
        for (tc, t) in tsa.iter().enumerate() {
            if let Tsa::Ets(w) = *t {
                s.quantum[tc] = w.max(1) as u32 * unit;
            }
        }
        s
    }

    /// Pick the class to send next. `head(tc)` returns the frame bytes at the head of class
    /// `tc` when the class is eligible (non-empty and not paused), else `None`. The chosen
    /// class's deficit is charged; the caller must then dequeue that head frame.
    pub fn select(&mut self, mut head: impl FnMut(TrafficClass) -> Option<u32>) -> Option<u8> {
        let mut eligible = 0u8;
        let mut bytes = [0u32; 8];
        for tc in 0..8u8 {
            if let Some(b) = head(tc) {
                eligible |= 1 << tc;
                bytes[tc as usize] = b;
            }
        }
        self.select_eligible(eligible, |tc| bytes[tc as usize])
    }

    /// [`Scheduler::select`] with the eligible classes given as a bit mask (bit `tc`), and
    /// `head_bytes(tc)` the frame bytes at the head of an eligible class. This is what the
    /// engine calls: it keeps a mask of backlogged classes, so a selection reads the queue of
    /// the chosen class only (and of the ETS classes it passes over for lack of deficit).
    pub fn select_eligible(&mut self, eligible: u8, head_bytes: impl Fn(TrafficClass) -> u32) -> Option<u8> {
        // Strict classes highest first: the highest eligible bit.
        let strict = eligible & self.strict_mask;
        if strict != 0 {
            return Some(7 - strict.leading_zeros() as u8);
        }
        let n = self.n_ets as usize;
        if n == 0 {
            return None;
        }
        if eligible & self.ets_mask == 0 {
            // A full pass of idle visits: every ETS class loses its deficit, and the pass ends
            // where it began, on a fresh visit.
            for &tc in &self.ets[..n] {
                self.deficit[tc as usize] = 0;
            }
            self.fresh_visit = true;
            return None;
        }
        // Each full pass without a send clears the deficits of ineligible classes and adds a
        // quantum to the eligible ones; two passes always suffice because quantum >= max frame.
        // The position and the fresh-visit flag are kept in registers and stored once, at the
        // send (a class mid-visit sends at the first step; a visit's end walks the others).
        let mut cur = self.cur as usize;
        let mut fresh = self.fresh_visit;
        loop {
            let tc = self.ets[cur & 7];
            let t = (tc & 7) as usize;
            if eligible & (1 << t) != 0 {
                if fresh {
                    self.deficit[t] += self.quantum[t];
                    fresh = false;
                }
                let bytes = head_bytes(tc);
                if self.deficit[t] >= bytes {
                    self.deficit[t] -= bytes;
                    self.cur = cur as u8;
                    self.fresh_visit = fresh;
                    return Some(tc);
                }
            } else {
                self.deficit[t] = 0;
            }
            cur = if cur + 1 == n { 0 } else { cur + 1 };
            fresh = true;
        }
    }

    /// Bytes from the start of a `Scheduler` that a selection reads besides a quantum: the
    /// masks, the round-robin state and the deficits.
    pub(crate) const HOT_BYTES: usize = std::mem::offset_of!(Scheduler, quantum);

    /// Deficit of a class (for tests and diagnostics).
    pub fn deficit(&self, tc: TrafficClass) -> u64 {
        self.deficit[tc as usize] as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tsa(pairs: &[(usize, Tsa)]) -> [Tsa; 8] {
        let mut t = [Tsa::Ets(1); 8];
        for &(tc, x) in pairs {
            t[tc] = x;
        }
        t
    }

    /// Serve always-backlogged classes with the given frame sizes; return bytes per class.
    fn serve(s: &mut Scheduler, frames: [Option<u32>; 8], rounds: usize) -> [u64; 8] {
        let mut sent = [0u64; 8];
        for _ in 0..rounds {
            let tc = s.select(|tc| frames[tc as usize]).expect("something eligible");
            sent[tc as usize] += frames[tc as usize].unwrap() as u64;
        }
        sent
    }

    #[test]
    fn strict_first_highest_class_first() {
        let mut s = Scheduler::new(&tsa(&[(6, Tsa::Strict), (7, Tsa::Strict)]), 1500);
        assert_eq!(s.select(|tc| (tc == 6 || tc == 1).then_some(100)), Some(6));
        assert_eq!(s.select(|tc| (tc >= 6).then_some(100)), Some(7));
        assert_eq!(s.select(|tc| (tc == 1).then_some(100)), Some(1));
        assert_eq!(s.select(|_| None), None);
    }

    #[test]
    fn dwrr_shares_by_weight_with_unequal_frames() {
        let mut t = tsa(&[]);
        t[3] = Tsa::Ets(90);
        t[0] = Tsa::Ets(10);
        let mut s = Scheduler::new(&t, 9216);
        let mut frames = [None; 8];
        frames[3] = Some(1_100);
        frames[0] = Some(64);
        let sent = serve(&mut s, frames, 400_000);
        let share = sent[3] as f64 / (sent[3] + sent[0]) as f64;
        assert!((share - 0.9).abs() < 0.005, "share {share}");
    }

    #[test]
    fn idle_class_share_goes_to_the_others() {
        let mut t = tsa(&[]);
        t[1] = Tsa::Ets(50);
        t[2] = Tsa::Ets(30);
        t[3] = Tsa::Ets(20);
        let mut s = Scheduler::new(&t, 1500);
        let mut frames = [None; 8];
        frames[2] = Some(1500);
        frames[3] = Some(1500);
        let sent = serve(&mut s, frames, 100_000);
        let share = sent[2] as f64 / (sent[2] + sent[3]) as f64;
        assert!((share - 0.6).abs() < 0.005, "30:20 of the rest, got {share}");
        assert_eq!(s.deficit(1), 0, "idle class keeps no credit");
    }

    #[test]
    fn paused_class_is_skipped() {
        let mut t = tsa(&[]);
        t[3] = Tsa::Ets(50);
        t[0] = Tsa::Ets(50);
        let mut s = Scheduler::new(&t, 1500);
        for _ in 0..10 {
            assert_eq!(s.select(|tc| (tc == 0).then_some(1000)), Some(0));
        }
    }

    /// The DWRR loop as first written (heap vectors, closure visits each class in turn), kept
    /// as the reference the fixed-size, mask-driven scheduler must match choice for choice.
    struct Reference {
        strict: Vec<u8>,
        ets: Vec<u8>,
        quantum: [u64; 8],
        deficit: [u64; 8],
        cur: usize,
        fresh_visit: bool,
    }

    impl Reference {
        fn new(tsa: &[Tsa; 8], max_frame: u32) -> Self {
            let mut strict = Vec::new();
            let mut ets = Vec::new();
            let mut min_w = u64::MAX;
            for (tc, t) in tsa.iter().enumerate() {
                match *t {
                    Tsa::Strict => strict.push(tc as u8),
                    Tsa::Ets(w) => {
                        ets.push(tc as u8);
                        min_w = min_w.min(w.max(1) as u64);
                    }
                }
            }
            strict.reverse();
            let unit = if ets.is_empty() { 1 } else { (max_frame as u64).div_ceil(min_w).max(1) };
            let mut quantum = [0u64; 8];
            for (tc, t) in tsa.iter().enumerate() {
                if let Tsa::Ets(w) = *t {
                    quantum[tc] = w.max(1) as u64 * unit;
                }
            }
            Reference { strict, ets, quantum, deficit: [0; 8], cur: 0, fresh_visit: true }
        }

        fn select(&mut self, head: impl Fn(u8) -> Option<u32>) -> Option<u8> {
            for &tc in &self.strict {
                if head(tc).is_some() {
                    return Some(tc);
                }
            }
            let n = self.ets.len();
            if n == 0 {
                return None;
            }
            let mut idle_visits = 0;
            loop {
                let tc = self.ets[self.cur];
                match head(tc) {
                    None => {
                        self.deficit[tc as usize] = 0;
                        idle_visits += 1;
                        self.cur = (self.cur + 1) % n;
                        self.fresh_visit = true;
                        if idle_visits >= n {
                            return None;
                        }
                    }
                    Some(bytes) => {
                        idle_visits = 0;
                        if self.fresh_visit {
                            self.deficit[tc as usize] += self.quantum[tc as usize];
                            self.fresh_visit = false;
                        }
                        if self.deficit[tc as usize] >= bytes as u64 {
                            self.deficit[tc as usize] -= bytes as u64;
                            return Some(tc);
                        }
                        self.cur = (self.cur + 1) % n;
                        self.fresh_visit = true;
                    }
                }
            }
        }
    }

    /// The engine's mask-driven selection makes the same choices, and leaves the same deficits,
    /// as the reference, under random class configurations, eligibility and frame sizes.
    #[test]
    fn mask_selection_matches_the_reference_loop() {
        let mut rng = crate::rng::Rng::new(5);
        for round in 0..60 {
            let mut t = [Tsa::Ets(1); 8];
            for x in t.iter_mut() {
                *x = match rng.below(4) {
                    0 => Tsa::Strict,
                    _ => Tsa::Ets(1 + rng.below(100) as u8),
                };
            }
            if round == 0 {
                t = [Tsa::Strict; 8];
            }
            let mut reference = Reference::new(&t, 9216);
            let mut s = Scheduler::new(&t, 9216);
            for _ in 0..2000 {
                // Mostly one or two backlogged classes, as on real ports, sometimes any mix.
                let eligible = match rng.below(3) {
                    0 => rng.below(256) as u8,
                    1 => 1 << rng.below(8),
                    _ => (1 << rng.below(8)) | (1 << rng.below(8)),
                };
                let eligible = if rng.below(10) == 0 { 0 } else { eligible };
                let mut bytes = [0u32; 8];
                for x in bytes.iter_mut() {
                    *x = 64 + rng.below(9000) as u32;
                }
                let want = reference.select(|tc| (eligible & (1 << tc) != 0).then_some(bytes[tc as usize]));
                let got = s.select_eligible(eligible, |tc| bytes[tc as usize]);
                assert_eq!(got, want);
                for tc in 0..8u8 {
                    assert_eq!(s.deficit(tc), reference.deficit[tc as usize]);
                }
            }
        }
    }
}
