//! Shared-buffer memory management unit with ingress accounting, in the way Broadcom
//! (Trident/Tomahawk) and NVIDIA Spectrum ASICs account lossless traffic.
//!
//! Every arriving packet is charged to its (ingress port, [`PriorityGroup`]):
//! 1. first to the PG's **reserved** (guaranteed minimum) bytes;
//! 2. then to the **shared** pool, allowed while the PG's shared occupancy stays at or below its
//!    threshold: dynamic, `alpha × (shared pool size − shared pool used)` (Choudhury & Hahne,
//!    "Dynamic queue length thresholds for shared-memory packet switches", 1998), or a static
//!    byte count;
//! 3. a **lossless** PG that would exceed its threshold asserts XOFF (a PFC pause upstream,
//!    IEEE 802.1Qbb) and the packet goes to the PG's **headroom**, which absorbs what is still
//!    in flight until the pause takes effect; while XOFF holds, arrivals keep going to headroom.
//!    A packet that does not fit in headroom is dropped: this is how too-small headroom for a
//!    cable shows up. A **lossy** PG past its threshold drops.
//!
//! On departure headroom bytes are freed first, then shared, then reserved. XON is sent when the
//! PG has no headroom bytes left and its shared occupancy is at or below its threshold minus the
//! resume (XON) offset.

use serde::{Deserialize, Serialize};

/// Index of a priority group (0..8) on an ingress port.
pub type PriorityGroup = u8;

/// How a PG's shared-pool limit (its XOFF point when lossless) is set.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum XoffThreshold {
    /// `alpha × free shared buffer` with the switch's alpha.
    Dynamic,
    /// `alpha × free shared buffer` with this PG's own alpha.
    DynamicAlpha(f64),
    /// A fixed number of shared bytes.
    Static(u64),
}

/// Buffer configuration of one (ingress port, priority group).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PgConfig {
    /// Lossless (PFC) or lossy (drop).
    pub lossless: bool,
    /// Guaranteed bytes.
    pub reserved: u64,
    /// Headroom bytes (lossless only).
    pub headroom: u64,
    /// Shared-pool limit.
    pub threshold: XoffThreshold,
    /// XON at threshold minus this many bytes.
    pub xon_offset: u64,
}

/// Occupancy of one (ingress port, PG).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PgState {
    /// Bytes charged in total (reserved + shared + headroom).
    pub used: u64,
    /// Of which in headroom.
    pub headroom_used: u64,
    /// XOFF asserted.
    pub xoff: bool,
}

/// Why a packet was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Lossy PG past its dynamic/static threshold or shared pool exhausted.
    LossyThreshold,
    /// Lossless PG whose headroom overflowed (headroom too small, or PFC not honoured).
    HeadroomOverflow,
}

/// Where an admitted packet was charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Within the PG's reserved bytes.
    Reserved,
    /// In the shared pool.
    Shared,
    /// In the PG's headroom.
    Headroom,
    /// Refused.
    Drop(DropReason),
}

/// Result of [`Mmu::admit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admission {
    /// Where the packet went.
    pub verdict: Verdict,
    /// This arrival asserted XOFF for the PG (send PFC pause upstream).
    pub xoff: bool,
}

/// Limit of a PG's shared occupancy, resolved at construction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Limit {
    /// `alpha × free shared bytes`, computed as `(alpha * free as f64) as u64`.
    Dynamic(f64),
    /// The same for `alpha = 2^k`: `free << k` or `free >> -k`, which is that formula exactly
    /// when the pool is below 2⁵³ bytes (every `free` converts to `f64` exactly, scaling by a
    /// power of two only changes the exponent, and the conversion back truncates) and
    /// `-63 <= k <= 10` (no shift overflows). Typical alphas (1, 1/2, 1/8, 2, ...) are powers of
    /// two; this saves the two float conversions on every admission and release.
    Shift(i8),
    /// A fixed number of shared bytes.
    Static(u64),
}

impl Limit {
    fn dynamic(alpha: f64, shared_size: u64) -> Limit {
        let bits = alpha.to_bits();
        let exponent = ((bits >> 52) & 0x7FF) as i64;
        let power_of_two = alpha > 0.0 && bits & ((1 << 52) - 1) == 0 && exponent != 0 && exponent != 0x7FF;
        let k = exponent - 1023;
        if power_of_two && shared_size < 1 << 53 && (-63..=10).contains(&k) {
            Limit::Shift(k as i8)
        } else {
            Limit::Dynamic(alpha)
        }
    }
}

/// Configuration and occupancy of one (ingress port, PG) side by side, in one cache line:
/// an admission or a release touches nothing else of the PG.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Slot {
    reserved: u64,
    headroom: u64,
    xon_offset: u64,
    limit: Limit,
    used: u64,
    headroom_used: u64,
    lossless: bool,
    xoff: bool,
}

impl Slot {
    fn shared(&self) -> u64 {
        (self.used - self.headroom_used).saturating_sub(self.reserved)
    }
}

/// The shared-buffer MMU of one switch.
#[derive(Clone, Debug)]
pub struct Mmu {
    shared_size: u64,
    shared_used: u64,
    peak_shared_used: u64,
    /// `slots[port * 8 + pg]`.
    slots: Vec<Slot>,
}

impl Mmu {
    /// An MMU with `cfg[port * 8 + pg]` for each local port, a shared pool of `shared_size`
    /// bytes and the switch-wide dynamic-threshold `alpha`.
    pub fn new(cfg: Vec<PgConfig>, shared_size: u64, alpha: f64) -> Self {
        let slots = cfg
            .iter()
            .map(|c| Slot {
                reserved: c.reserved,
                headroom: c.headroom,
                xon_offset: c.xon_offset,
                limit: match c.threshold {
                    XoffThreshold::Dynamic => Limit::dynamic(alpha, shared_size),
                    XoffThreshold::DynamicAlpha(a) => Limit::dynamic(a, shared_size),
                    XoffThreshold::Static(b) => Limit::Static(b),
                },
                used: 0,
                headroom_used: 0,
                lossless: c.lossless,
                xoff: false,
            })
            .collect();
        Mmu { shared_size, shared_used: 0, peak_shared_used: 0, slots }
    }

    /// Current shared-pool limit of a PG.
    fn threshold(&self, limit: Limit) -> u64 {
        match limit {
            Limit::Dynamic(alpha) => (alpha * (self.shared_size - self.shared_used) as f64) as u64,
            Limit::Shift(k) if k >= 0 => (self.shared_size - self.shared_used) << k,
            Limit::Shift(k) => (self.shared_size - self.shared_used) >> -k,
            Limit::Static(b) => b,
        }
    }

    /// Index of (`port`, `pg`) for [`Mmu::admit_at`] and [`Mmu::release_at`].
    pub fn index(port: usize, pg: PriorityGroup) -> usize {
        port * 8 + pg as usize
    }

    /// Charge `bytes` arriving on (`port`, `pg`).
    pub fn admit(&mut self, port: usize, pg: PriorityGroup, bytes: u64) -> Admission {
        self.admit_at(Self::index(port, pg), bytes)
    }

    /// [`Mmu::admit`] by index.
    #[inline]
    pub fn admit_at(&mut self, i: usize, bytes: u64) -> Admission {
        let st = self.slots[i];
        let old_shared = st.shared();
        let new_nonhead = st.used - st.headroom_used + bytes;
        let new_shared = new_nonhead.saturating_sub(st.reserved);
        let delta = new_shared - old_shared;
        if delta == 0 {
            self.slots[i].used += bytes;
            return Admission { verdict: Verdict::Reserved, xoff: false };
        }
        let fits_shared =
            !st.xoff && new_shared <= self.threshold(st.limit) && self.shared_used + delta <= self.shared_size;
        if fits_shared {
            self.slots[i].used += bytes;
            self.shared_used += delta;
            self.peak_shared_used = self.peak_shared_used.max(self.shared_used);
            return Admission { verdict: Verdict::Shared, xoff: false };
        }
        if !st.lossless {
            return Admission { verdict: Verdict::Drop(DropReason::LossyThreshold), xoff: false };
        }
        let xoff = !st.xoff;
        let slot = &mut self.slots[i];
        slot.xoff = true;
        if st.headroom_used + bytes <= st.headroom {
            slot.used += bytes;
            slot.headroom_used += bytes;
            Admission { verdict: Verdict::Headroom, xoff }
        } else {
            Admission { verdict: Verdict::Drop(DropReason::HeadroomOverflow), xoff }
        }
    }

    /// Free `bytes` of a departing packet charged to (`port`, `pg`). Returns true when this
    /// deasserted XOFF (send XON upstream).
    pub fn release(&mut self, port: usize, pg: PriorityGroup, bytes: u64) -> bool {
        self.release_at(Self::index(port, pg), bytes)
    }

    /// [`Mmu::release`] by index.
    #[inline]
    pub fn release_at(&mut self, i: usize, bytes: u64) -> bool {
        let mut st = self.slots[i];
        debug_assert!(st.used >= bytes, "release more than charged");
        let old_shared = st.shared();
        let from_headroom = bytes.min(st.headroom_used);
        st.headroom_used -= from_headroom;
        st.used -= bytes;
        let new_shared = st.shared();
        self.shared_used = self.shared_used + new_shared - old_shared;
        let mut xon = false;
        if st.xoff && st.headroom_used == 0 && new_shared <= self.threshold(st.limit).saturating_sub(st.xon_offset) {
            st.xoff = false;
            xon = true;
        }
        self.slots[i] = st;
        xon
    }

    /// Occupancy of (`port`, `pg`).
    pub fn pg(&self, port: usize, pg: PriorityGroup) -> PgState {
        let s = &self.slots[Self::index(port, pg)];
        PgState { used: s.used, headroom_used: s.headroom_used, xoff: s.xoff }
    }

    /// Bytes of the shared pool in use.
    pub fn shared_used(&self) -> u64 {
        self.shared_used
    }

    /// Highest shared-pool use seen.
    pub fn peak_shared_used(&self) -> u64 {
        self.peak_shared_used
    }

    /// Size of the shared pool.
    pub fn shared_size(&self) -> u64 {
        self.shared_size
    }

    /// Total bytes charged across all PGs.
    pub fn total_used(&self) -> u64 {
        self.slots.iter().map(|s| s.used).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lossless(reserved: u64, headroom: u64, xon_offset: u64) -> PgConfig {
        PgConfig { lossless: true, reserved, headroom, threshold: XoffThreshold::Dynamic, xon_offset }
    }

    fn lossy(reserved: u64) -> PgConfig {
        PgConfig { lossless: false, reserved, headroom: 0, threshold: XoffThreshold::Dynamic, xon_offset: 0 }
    }

    /// One port, PG0 lossy and PG3 lossless, everything else unused.
    fn mmu(shared: u64, alpha: f64) -> Mmu {
        let mut cfg = vec![lossy(0); 8];
        cfg[0] = lossy(1000);
        cfg[3] = lossless(1000, 3000, 500);
        Mmu::new(cfg, shared, alpha)
    }

    #[test]
    fn reserved_then_shared() {
        let mut m = mmu(10_000, 1.0);
        assert_eq!(m.admit(0, 3, 600).verdict, Verdict::Reserved);
        assert_eq!(m.admit(0, 3, 400).verdict, Verdict::Reserved);
        assert_eq!(m.admit(0, 3, 100).verdict, Verdict::Shared);
        assert_eq!(m.shared_used(), 100);
        assert_eq!(m.pg(0, 3).used, 1100);
    }

    #[test]
    fn dynamic_threshold_is_alpha_times_free() {
        // alpha = 1: a single PG may take half of the pool (x <= 1 * (S - x)).
        let mut m = mmu(10_000, 1.0);
        m.admit(0, 0, 1000); // fills reserved
        let mut admitted = 0;
        loop {
            match m.admit(0, 0, 100).verdict {
                Verdict::Shared => admitted += 100,
                Verdict::Drop(DropReason::LossyThreshold) => break,
                v => panic!("unexpected {v:?}"),
            }
        }
        assert_eq!(admitted, 5_000);
        // alpha = 1/8: x <= (S - x)/8 -> x <= S/9.
        let mut m = mmu(9_000, 0.125);
        m.admit(0, 0, 1000);
        let mut admitted = 0;
        while m.admit(0, 0, 100).verdict == Verdict::Shared {
            admitted += 100;
        }
        assert_eq!(admitted, 1_000);
    }

    #[test]
    fn lossless_goes_to_headroom_after_xoff_and_drops_when_it_overflows() {
        let mut m = mmu(10_000, 1.0);
        m.admit(0, 3, 1000);
        let mut shared = 0;
        let first_xoff = loop {
            let a = m.admit(0, 3, 100);
            if a.verdict == Verdict::Shared {
                shared += 100;
                assert!(!a.xoff);
            } else {
                break a;
            }
        };
        assert_eq!(shared, 5_000);
        assert_eq!(first_xoff.verdict, Verdict::Headroom);
        assert!(first_xoff.xoff, "the first refused arrival asserts XOFF");
        assert!(m.pg(0, 3).xoff);
        // 2900 more bytes fit in the 3000-byte headroom (100 already there).
        for _ in 0..29 {
            let a = m.admit(0, 3, 100);
            assert_eq!(a.verdict, Verdict::Headroom);
            assert!(!a.xoff, "XOFF is asserted once");
        }
        assert_eq!(m.admit(0, 3, 100).verdict, Verdict::Drop(DropReason::HeadroomOverflow));
        assert_eq!(m.pg(0, 3).headroom_used, 3000);
    }

    #[test]
    fn xon_after_headroom_drains_and_below_threshold_minus_offset() {
        let mut m = mmu(10_000, 1.0);
        m.admit(0, 3, 1000);
        while m.admit(0, 3, 100).verdict == Verdict::Shared {}
        for _ in 0..9 {
            m.admit(0, 3, 100);
        }
        assert_eq!(m.pg(0, 3).headroom_used, 1000);
        // Headroom is freed first: no XON while any headroom byte remains.
        for _ in 0..10 {
            assert!(!m.release(0, 3, 100));
        }
        assert_eq!(m.pg(0, 3).headroom_used, 0);
        assert_eq!(m.shared_used(), 5_000);
        // Threshold with 5000 used: 1.0 * (10000 - x). XON needs x <= (10000 - x) - 500,
        // i.e. x <= 4750.
        let mut released = 0;
        loop {
            released += 100;
            if m.release(0, 3, 100) {
                break;
            }
        }
        assert_eq!(5_000 - released, 4_700);
        assert!(!m.pg(0, 3).xoff);
        assert_eq!(m.admit(0, 3, 100).verdict, Verdict::Shared);
    }

    #[test]
    fn static_threshold_and_shared_pool_limit() {
        let mut cfg = vec![lossy(0); 16];
        cfg[2] = PgConfig { threshold: XoffThreshold::Static(300), ..lossless(0, 10_000, 100) };
        cfg[8] = PgConfig { threshold: XoffThreshold::Static(10_000), ..lossy(0) };
        let mut m = Mmu::new(cfg, 1_000, 1.0);
        for _ in 0..3 {
            assert_eq!(m.admit(0, 2, 100).verdict, Verdict::Shared);
        }
        let a = m.admit(0, 2, 100);
        assert_eq!((a.verdict, a.xoff), (Verdict::Headroom, true));
        // Port 1 PG0 lossy, static 10 KB but the pool has only 700 left.
        for _ in 0..7 {
            assert_eq!(m.admit(1, 0, 100).verdict, Verdict::Shared);
        }
        assert_eq!(m.admit(1, 0, 100).verdict, Verdict::Drop(DropReason::LossyThreshold));
        assert_eq!(m.peak_shared_used(), 1_000);
        assert_eq!(m.total_used(), 1_100);
    }

    #[test]
    fn power_of_two_alphas_shift_exactly_as_the_float_formula() {
        let mut rng = crate::rng::Rng::new(3);
        for alpha in [1.0, 0.5, 0.125, 2.0, 4.0, 1.0 / 128.0, 1024.0] {
            let Limit::Shift(k) = Limit::dynamic(alpha, 1 << 40) else { panic!("{alpha} is a power of two") };
            for _ in 0..10_000 {
                // Free bytes of every magnitude up to the pool size.
                let free = rng.below(1 << 40) >> rng.below(40);
                let shifted = if k >= 0 { free << k } else { free >> -k };
                assert_eq!(shifted, (alpha * free as f64) as u64, "alpha {alpha}, free {free}");
            }
        }
        // Not a power of two, out of range, or a pool too large for exact floats: the formula.
        for (alpha, size) in [(0.3, 1 << 40), (3.0, 1 << 40), (2048.0, 1 << 40), (1.0, 1 << 60)] {
            assert_eq!(Limit::dynamic(alpha, size), Limit::Dynamic(alpha));
        }
    }
}
