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
//!
//! Lossy traffic is limited as Broadcom switches limit it ([`EgressLossy`]): its ingress PG has a
//! threshold far above the lossless one (SONiC's Broadcom buffer templates give
//! `ingress_lossy_profile` `dynamic_th 3`, alpha 2³ = 8, against a lossless `pg_profile_lookup.ini`
//! threshold of `-3`, alpha 1/8; SAI `saibuffer.h`, `SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH`:
//! "the threshold is set to the 2^n of available buffer of the pool"), and its egress queue has a
//! dynamic threshold on an egress lossy pool (`egress_lossy_profile` on `egress_lossy_pool`), where
//! it is dropped. Lossless frames are never dropped at egress (their `egress_lossless_profile` is a
//! static threshold of the whole pool).

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
    /// Lossy frame whose egress queue is past its threshold on the egress lossy pool
    /// ([`EgressLossy`]).
    EgressLossy,
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
pub struct AdmissionResult {
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

/// How a lossless priority group's frames are admitted around XOFF.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Admission {
    /// Once XOFF holds, every frame goes to headroom until XON; XOFF when a frame first does not
    /// fit in the shared pool; a frame is dropped when headroom cannot take it.
    #[default]
    Headroom,
    /// The ns-3 HPCC simulator's `SwitchMmu`: every frame goes to the shared pool when it fits
    /// under the threshold of the moment (XOFF or not), to headroom otherwise, and is dropped
    /// only when it fits in neither; XOFF once the PG has headroom bytes or its shared bytes
    /// reach the threshold as this frame leaves it (`CheckShouldPause`), for every frame
    /// admitted; the shared pool's size bounds nothing but the threshold.
    Ns3,
}

/// The shared-buffer MMU of one switch.
#[derive(Clone, Debug)]
pub struct Mmu {
    shared_size: u64,
    shared_used: u64,
    peak_shared_used: u64,
    /// `slots[pg * ports + port]`: by PG, then port, so that the slots of the PG a fabric's
    /// traffic uses (one or two of eight, as a rule) are adjacent lines rather than one line in
    /// every eight, 512 bytes apart. Named from outside by the place [`Mmu::index`] gives.
    slots: Vec<Slot>,
}

impl Mmu {
    /// An MMU with `cfg[port * 8 + pg]` for each local port, a shared pool of `shared_size`
    /// bytes and the switch-wide dynamic-threshold `alpha`.
    pub fn new(cfg: Vec<PgConfig>, shared_size: u64, alpha: f64) -> Self {
        let ports = cfg.len() / 8;
        let slots = (0..8)
            .flat_map(|pg| (0..ports).map(move |port| port * 8 + pg))
            .map(|i| &cfg[i])
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

    /// The (port, PG) of slot index `i` ([`Mmu::index`]), for the rare paths that need them
    /// (a release that resumes the upstream).
    pub fn port_pg(&self, i: usize) -> (usize, PriorityGroup) {
        let ports = self.slots.len() >> 3;
        (i % ports, (i / ports) as PriorityGroup)
    }

    /// The (port, PG) slots it accounts: eight a port of a switch whose frames it buffers.
    #[cfg(test)]
    pub(crate) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Bytes the slots of one port take (its eight PGs), for the memory estimate.
    pub const PORT_BYTES: usize = 8 * std::mem::size_of::<Slot>();

    /// Current shared-pool limit of a PG.
    fn threshold(&self, limit: Limit) -> u64 {
        match limit {
            Limit::Dynamic(alpha) => (alpha * (self.shared_size - self.shared_used) as f64) as u64,
            Limit::Shift(k) if k >= 0 => (self.shared_size - self.shared_used) << k,
            Limit::Shift(k) => (self.shared_size - self.shared_used) >> -k,
            Limit::Static(b) => b,
        }
    }

    /// The slot of (`port`, `pg`) for [`Mmu::admit_at`], [`Mmu::release_at`] and the rest: its
    /// place in `slots` (PG-major, see there), worked out once by an arrival and carried by its
    /// frame to the release, instead of from (port, PG) in each of the five calls a frame makes
    /// (17.6 instructions an event on the k = 32 fat tree, callgrind). A port past the ports
    /// accounted (`slots.len() / 8`, not stored: the MMU sits in its switch's first line) gets a
    /// place past the end, so that using it panics rather than reads another port's slot.
    #[inline(always)]
    pub fn index(&self, port: usize, pg: PriorityGroup) -> usize {
        let ports = self.slots.len() >> 3;
        if port < ports {
            (pg as usize & 7) * ports + port
        } else {
            usize::MAX
        }
    }

    /// Charge `bytes` arriving on (`port`, `pg`).
    pub fn admit(&mut self, port: usize, pg: PriorityGroup, bytes: u64) -> AdmissionResult {
        self.admit_at(self.index(port, pg), bytes)
    }

    /// [`Mmu::admit`] by index (always inlined: the switch's arrival is its one hot caller).
    #[inline(always)]
    pub fn admit_at(&mut self, i: usize, bytes: u64) -> AdmissionResult {
        let st = self.slots[i];
        let old_shared = st.shared();
        let new_nonhead = st.used - st.headroom_used + bytes;
        let new_shared = new_nonhead.saturating_sub(st.reserved);
        let delta = new_shared - old_shared;
        if delta == 0 {
            self.slots[i].used += bytes;
            return AdmissionResult { verdict: Verdict::Reserved, xoff: false };
        }
        let fits_shared =
            !st.xoff && new_shared <= self.threshold(st.limit) && self.shared_used + delta <= self.shared_size;
        if fits_shared {
            self.slots[i].used += bytes;
            self.shared_used += delta;
            self.peak_shared_used = self.peak_shared_used.max(self.shared_used);
            return AdmissionResult { verdict: Verdict::Shared, xoff: false };
        }
        if !st.lossless {
            return AdmissionResult { verdict: Verdict::Drop(DropReason::LossyThreshold), xoff: false };
        }
        let xoff = !st.xoff;
        let slot = &mut self.slots[i];
        slot.xoff = true;
        if st.headroom_used + bytes <= st.headroom {
            slot.used += bytes;
            slot.headroom_used += bytes;
            AdmissionResult { verdict: Verdict::Headroom, xoff }
        } else {
            AdmissionResult { verdict: Verdict::Drop(DropReason::HeadroomOverflow), xoff }
        }
    }

    /// [`Mmu::admit_at`] under [`Admission::Ns3`] (`SwitchMmu::CheckIngressAdmission`,
    /// `UpdateIngressAdmission` and `CheckShouldPause` of the ns-3 HPCC simulator).
    /// Lossy PGs are admitted as [`Mmu::admit_at`] admits them. The caller picks this or that
    /// by the switch's [`Admission`] (one test where the switch's settings are already in hand,
    /// not one per slot).
    #[inline(never)]
    pub fn admit_ns3_at(&mut self, i: usize, bytes: u64) -> AdmissionResult {
        let st = self.slots[i];
        if !st.lossless {
            return self.admit_at(i, bytes);
        }
        let old_shared = st.shared();
        let new_nonhead = st.used - st.headroom_used + bytes;
        let new_shared = new_nonhead.saturating_sub(st.reserved);
        let delta = new_shared - old_shared;
        let verdict = if delta == 0 {
            self.slots[i].used += bytes;
            Verdict::Reserved
        } else if new_shared <= self.threshold(st.limit) {
            self.slots[i].used += bytes;
            self.shared_used += delta;
            self.peak_shared_used = self.peak_shared_used.max(self.shared_used);
            Verdict::Shared
        } else if st.headroom_used + bytes <= st.headroom {
            let slot = &mut self.slots[i];
            slot.used += bytes;
            slot.headroom_used += bytes;
            Verdict::Headroom
        } else {
            return AdmissionResult { verdict: Verdict::Drop(DropReason::HeadroomOverflow), xoff: false };
        };
        let st = self.slots[i];
        let xoff = !st.xoff && (st.headroom_used > 0 || st.shared() >= self.threshold(st.limit));
        if xoff {
            self.slots[i].xoff = true;
        }
        AdmissionResult { verdict, xoff }
    }

    /// Free `bytes` of a departing packet charged to (`port`, `pg`). Returns true when this
    /// deasserted XOFF (send XON upstream).
    pub fn release(&mut self, port: usize, pg: PriorityGroup, bytes: u64) -> bool {
        self.release_at(self.index(port, pg), bytes)
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

    /// Fetch the cache line of slot `i` ([`Mmu::index`]) that an admission or a release there
    /// reads and writes (no effect on results; an index past the end fetches nothing useful and
    /// never faults). Each switch's slots are an allocation of their own, a few kilobytes at
    /// some place of the heap: on a large fabric (the k = 32 fat tree's 1,280 switches, 21 MB
    /// of slots) the slot of an arrival is nearly always a miss, which the engine's look ahead
    /// starts a few events before the arrival (`Sim::prefetch_route`).
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        crate::packet::prefetch_at(&self.slots, i, 0);
    }

    /// Whether the PG of index `i` ([`Mmu::index`]) is lossless.
    #[inline(always)]
    pub fn is_lossless(&self, i: usize) -> bool {
        self.slots[i].lossless
    }

    /// Occupancy of (`port`, `pg`).
    pub fn pg(&self, port: usize, pg: PriorityGroup) -> PgState {
        let s = &self.slots[self.index(port, pg)];
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

/// Egress admission of lossy frames: the bytes of lossy frames in each egress queue of a switch,
/// charged to an egress lossy pool. A queue's lossy bytes beyond its `reserved` bytes may grow to
/// `alpha × (pool size − pool used)` (Choudhury & Hahne's dynamic threshold again); a frame that
/// would pass it, or that does not fit in the pool, is dropped. This is SONiC's
/// `egress_lossy_profile` (`pool` `egress_lossy_pool`, `size` the reserve, `dynamic_th` log2 of
/// alpha) in its Broadcom buffer templates (`device/*/buffers_defaults_t*.j2`, e.g. the Arista
/// 7050CX3-32S's, `dynamic_th 3`). Frames of lossless PGs are not charged here: a lossless queue
/// is never dropped at egress.
#[derive(Clone, Debug)]
pub struct EgressLossy {
    pool_size: u64,
    pool_used: u64,
    reserved: u64,
    limit: Limit,
    /// Lossy bytes of `queues[port * 8 + tc]`.
    queues: Vec<u64>,
}

impl EgressLossy {
    /// `ports` egress ports of 8 queues each, a pool of `pool_size` bytes, `reserved` bytes
    /// guaranteed to each queue outside the pool, and the dynamic threshold's `alpha`.
    pub fn new(ports: usize, pool_size: u64, reserved: u64, alpha: f64) -> Self {
        EgressLossy {
            pool_size,
            pool_used: 0,
            reserved,
            limit: Limit::dynamic(alpha, pool_size),
            queues: vec![0; ports * 8],
        }
    }

    /// Bytes the queues of one port take (its eight traffic classes), for the memory estimate.
    pub const PORT_BYTES: usize = 8 * std::mem::size_of::<u64>();

    /// Index of egress queue `tc` of local port `port`.
    pub fn index(port: usize, tc: u8) -> usize {
        port * 8 + tc as usize
    }

    fn threshold(&self) -> u64 {
        let free = self.pool_size - self.pool_used;
        match self.limit {
            Limit::Dynamic(alpha) => (alpha * free as f64) as u64,
            Limit::Shift(k) if k >= 0 => free << k,
            Limit::Shift(k) => free >> -k,
            Limit::Static(b) => b,
        }
    }

    /// Charge a lossy frame of `bytes` to queue `q`, or refuse it (false: drop it).
    pub fn admit(&mut self, q: usize, bytes: u64) -> bool {
        let old = self.queues[q];
        let new = old + bytes;
        let delta = new.saturating_sub(self.reserved) - old.saturating_sub(self.reserved);
        if delta > 0 && (new - self.reserved > self.threshold() || self.pool_used + delta > self.pool_size) {
            return false;
        }
        self.queues[q] = new;
        self.pool_used += delta;
        true
    }

    /// Return the charge of a departing lossy frame of `bytes` from queue `q`.
    pub fn release(&mut self, q: usize, bytes: u64) {
        let old = self.queues[q];
        debug_assert!(old >= bytes, "release more than charged");
        let new = old - bytes;
        self.pool_used -= old.saturating_sub(self.reserved) - new.saturating_sub(self.reserved);
        self.queues[q] = new;
    }

    /// Lossy bytes in queue `q`.
    pub fn queue_bytes(&self, q: usize) -> u64 {
        self.queues[q]
    }

    /// Bytes of the egress lossy pool in use.
    pub fn pool_used(&self) -> u64 {
        self.pool_used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pgs_slots_are_adjacent_and_each_index_names_its_own() {
        // Three ports, each (port, PG) told apart by its reserved bytes.
        let cfg = (0..24)
            .map(|i| PgConfig {
                lossless: i % 8 == 3,
                reserved: i as u64,
                headroom: 0,
                threshold: XoffThreshold::Static(1 << 20),
                xon_offset: 0,
            })
            .collect();
        let mut m = Mmu::new(cfg, 1 << 20, 1.0);
        for port in 0..3 {
            for pg in 0..8u8 {
                let i = m.index(port, pg);
                assert_eq!(m.slots[i].reserved, (port * 8 + pg as usize) as u64);
                assert_eq!(m.is_lossless(i), pg == 3);
                assert_eq!(m.port_pg(i), (port, pg));
            }
        }
        // PG 3 of ports 0, 1 and 2: three adjacent slots.
        let place = |port| m.index(port, 3);
        assert_eq!((place(1) - place(0), place(2) - place(1)), (1, 1));
        // A frame charged to (1, 3) shows there only; so does one to the lossy (1, 0) under
        // ns-3's admission, which hands a lossy PG's frame to the other admission by its index.
        m.admit(1, 3, 500);
        assert_eq!((m.pg(1, 3).used, m.pg(0, 3).used, m.pg(1, 2).used, m.pg(2, 3).used), (500, 0, 0, 0));
        m.admit_ns3_at(m.index(1, 0), 300);
        assert_eq!((m.pg(1, 0).used, m.pg(0, 1).used, m.pg(0, 0).used), (300, 0, 0));
        assert!(!m.release_at(m.index(1, 0), 300));
        assert_eq!(m.pg(1, 0).used, 0);
        // A port past the three has no slot: past the end, not another port's.
        assert_eq!(m.index(3, 0), usize::MAX);
    }

    fn lossless(reserved: u64, headroom: u64, xon_offset: u64) -> PgConfig {
        PgConfig { lossless: true, reserved, headroom, threshold: XoffThreshold::Dynamic, xon_offset }
    }

    fn lossy(reserved: u64) -> PgConfig {
        PgConfig { lossless: false, reserved, headroom: 0, threshold: XoffThreshold::Dynamic, xon_offset: 0 }
    }

    /// Under [`Admission::Ns3`] XOFF goes up as soon as a frame leaves the PG at the threshold
    /// (not when the next one does not fit), and a frame that fits under the threshold goes to
    /// the shared pool while XOFF holds; under [`Admission::Headroom`] the same frames go to
    /// headroom until XON.
    #[test]
    fn ns3_admission_pauses_at_the_threshold_and_shares_while_paused() {
        let mut cfg = vec![lossy(0); 8];
        // No reserve, 2000 B of headroom, an XON offset that keeps XOFF up throughout.
        cfg[3] = lossless(0, 2_000, 100_000);
        let (mut ns3, mut headroom) = (Mmu::new(cfg.clone(), 10_000, 1.0), Mmu::new(cfg, 10_000, 1.0));
        let pg3 = ns3.index(0, 3);
        let shared = |verdict| AdmissionResult { verdict, xoff: false };
        // Threshold = α × free shared bytes: 10000 for the first frame.
        assert_eq!(ns3.admit_ns3_at(pg3, 4_000), shared(Verdict::Shared));
        assert_eq!(headroom.admit_at(pg3, 4_000), shared(Verdict::Shared));
        // 6000 shared fits the threshold of 6000; it leaves 6000 ≥ 4000: ns-3 pauses now.
        assert_eq!(ns3.admit_ns3_at(pg3, 2_000), AdmissionResult { verdict: Verdict::Shared, xoff: true });
        assert_eq!(headroom.admit_at(pg3, 2_000), shared(Verdict::Shared));
        // 7000 does not fit under 4000: headroom for both; the headroom MMU pauses only now.
        assert_eq!(ns3.admit_ns3_at(pg3, 1_000), shared(Verdict::Headroom));
        assert_eq!(headroom.admit_at(pg3, 1_000), AdmissionResult { verdict: Verdict::Headroom, xoff: true });
        // 4000 leave (1000 of them from headroom): 3000 shared, threshold 7000, XOFF still up.
        assert!(!ns3.release_at(pg3, 4_000) && !headroom.release_at(pg3, 4_000));
        assert!(ns3.pg(0, 3).xoff && headroom.pg(0, 3).xoff);
        // A frame that fits under the threshold: shared under ns-3, headroom under XOFF here.
        assert_eq!(ns3.admit_ns3_at(pg3, 1_000), shared(Verdict::Shared));
        assert_eq!(headroom.admit_at(pg3, 1_000), shared(Verdict::Headroom));
        assert_eq!((ns3.shared_used(), ns3.pg(0, 3).headroom_used), (4_000, 0));
        // 2000 more fit the threshold exactly (6000); then 1500 go to headroom, and 1000 more
        // fit in neither (over the threshold, past the headroom): dropped.
        assert_eq!(ns3.admit_ns3_at(pg3, 2_000), shared(Verdict::Shared));
        assert_eq!(ns3.admit_ns3_at(pg3, 1_500), shared(Verdict::Headroom));
        assert_eq!(ns3.admit_ns3_at(pg3, 1_000), shared(Verdict::Drop(DropReason::HeadroomOverflow)));
        // A lossy PG is admitted the same way under both.
        let pg0 = ns3.index(0, 0);
        assert_eq!(ns3.admit_ns3_at(pg0, 500), headroom.admit_at(pg0, 500));
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

    /// The platforms' lossy profile: a lossy PG with its own alpha of 8 (`dynamic_th 3`) beside
    /// lossless PGs at the switch's 1/8 (`-3`), in one shared pool.
    #[test]
    fn a_lossy_pg_is_admitted_past_the_lossless_alpha_up_to_its_own() {
        let mut cfg = vec![lossy(0); 16];
        cfg[0] = PgConfig { threshold: XoffThreshold::DynamicAlpha(8.0), ..lossy(0) };
        cfg[3] = lossless(0, 100_000, 0);
        cfg[8] = lossy(0);
        let fill_at = |m: &mut Mmu, (port, pg): (usize, PriorityGroup)| {
            let i = m.index(port, pg);
            let mut shared = 0;
            while m.admit_at(i, 100).verdict == Verdict::Shared {
                shared += 100;
            }
            shared
        };
        // Alone in a pool of 9000 (a frame of 100 admitted while shared + 100 <= alpha × free):
        // x + 100 <= (9000 − x) / 8 stops the lossless PG at 1000 shared bytes, with XOFF and
        // the next frame in headroom; a lossy PG at the switch's alpha drops at the same 1000;
        // at alpha 8, x + 100 <= 8 (9000 − x) admits up to 8000.
        let mut m = Mmu::new(cfg.clone(), 9_000, 0.125);
        assert_eq!(fill_at(&mut m, (0, 3)), 1_000);
        assert_eq!(m.pg(0, 3), PgState { used: 1_100, headroom_used: 100, xoff: true });
        let mut m = Mmu::new(cfg.clone(), 9_000, 0.125);
        assert_eq!(fill_at(&mut m, (1, 0)), 1_000);
        assert_eq!(m.admit(1, 0, 100).verdict, Verdict::Drop(DropReason::LossyThreshold));
        let mut m = Mmu::new(cfg.clone(), 9_000, 0.125);
        assert_eq!(fill_at(&mut m, (0, 0)), 8_000);
        assert_eq!(m.admit(0, 0, 100).verdict, Verdict::Drop(DropReason::LossyThreshold));
        assert!(!m.pg(0, 0).xoff, "lossy never pauses");
        // The lossless PG beside it still pauses at 1/8 of what is left: 100 <= 1000 / 8, then
        // 200 > 900 / 8.
        assert_eq!(fill_at(&mut m, (0, 3)), 100);
        assert!(m.pg(0, 3).xoff);
        assert_eq!(m.shared_used(), 8_100);
    }

    /// The egress lossy pool: a queue's reserve, then `alpha × free pool`; a refused frame leaves
    /// nothing charged, and a release gives the pool back.
    #[test]
    fn the_egress_lossy_limit_drops_past_alpha_times_the_free_pool() {
        let mut e = EgressLossy::new(2, 9_000, 1_000, 1.0);
        let (q0, q1) = (EgressLossy::index(0, 3), EgressLossy::index(1, 0));
        let fill = |e: &mut EgressLossy, q: usize| {
            let mut n = 0;
            while e.admit(q, 100) {
                n += 100;
            }
            n
        };
        // The threshold is taken on the pool before the frame: a frame of 100 is admitted while
        // shared + 100 <= alpha × (pool − used). Queue 0: its 1000 reserved bytes, then
        // x + 100 <= 9000 − x up to x = 4450: 4500 of the pool.
        assert_eq!(fill(&mut e, q0), 5_500);
        assert_eq!((e.queue_bytes(q0), e.pool_used()), (5_500, 4_500));
        // Queue 1: its reserve, then y + 100 <= 4500 − y up to y = 2200: 2300.
        assert_eq!(fill(&mut e, q1), 3_300);
        assert_eq!(e.pool_used(), 6_800);
        // Queue 0 sends 3000: all of it from the pool (its shared part falls from 4500 to 1500).
        for _ in 0..30 {
            e.release(q0, 100);
        }
        assert_eq!((e.queue_bytes(q0), e.pool_used()), (2_500, 3_800));
        // Now queue 1 may grow: y + 100 <= 7500 − y up to y = 3700: to 3800, 1500 more.
        assert_eq!(fill(&mut e, q1), 1_500);
        // Alpha 8 and no reserve: x + 100 <= 8 (9000 − x) up to x = 7900: 8000.
        let mut e = EgressLossy::new(1, 9_000, 0, 8.0);
        assert_eq!(fill(&mut e, 0), 8_000);
        let mut e = EgressLossy::new(1, 9_000, 0, 1024.0);
        assert_eq!(fill(&mut e, 0), 9_000, "alpha 1024 stops only at the pool's size");
        // Frames of any size: a jumbo that passes the threshold is refused whole.
        let mut e = EgressLossy::new(1, 20_000, 0, 1.0);
        assert!(e.admit(0, 9_000) && !e.admit(0, 9_000));
        assert_eq!((e.queue_bytes(0), e.pool_used()), (9_000, 9_000));
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
