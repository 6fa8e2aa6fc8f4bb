//! Host NIC pieces that do not depend on the engine: the NIC's timing profile, the receive
//! buffer with its PFC thresholds, and the pacing/on-off logic of an open-loop flow source.
//!
//! The NIC's transmit side is a scheduler over *sources*: when the port is free and the
//! source's priority is not paused, the NIC asks the next ready source for a packet
//! ([`FlowSource::poll`]) for an open-loop flow, or the queue pair's requester/responder for
//! an RDMA flow (see `sim/rdma/`).

use crate::spec::HostRxSpec;
use crate::time::{LinkRate, Time, NS};
use serde::{Deserialize, Serialize};
use std::num::NonZeroU64;

/// Timing of an RDMA NIC and its host: where the time of a message goes besides the wire.
///
/// * transmit: the application posts a work request and rings the doorbell; the NIC starts
///   sending after [`Self::tx_inline_latency_ps`] when the CPU wrote the request and its data
///   into the NIC (inline, "BlueFlame" doorbell), or after [`Self::tx_dma_latency_ps`] more when
///   the NIC must fetch them from host memory (a PCIe read round trip);
/// * receive: a frame is handled by the NIC [`Self::rx_latency_ps`] after its last bit arrived
///   (this is also when ACKs and CNPs are generated); payload then waits in the receive buffer
///   for the PCIe/host-memory path, drained at [`Self::rx_drain_bps`], and is visible to a
///   polling application [`Self::rx_pcie_latency_ps`] after it left the buffer;
/// * an RDMA READ request is answered after [`Self::read_latency_ps`] (the NIC reads the data
///   from host memory); a requester's completion is visible [`Self::completion_latency_ps`]
///   after the NIC processed the final ACK or response (CQE write and poll).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NicProfile {
    /// Profile name, for results.
    pub name: String,
    /// Post → first packet on the wire, inline work request.
    pub tx_inline_latency_ps: Time,
    /// Added when the NIC fetches the work request and payload by DMA.
    pub tx_dma_latency_ps: Time,
    /// Frame arrival → handled by the NIC.
    pub rx_latency_ps: Time,
    /// Out of the receive buffer → visible in host memory.
    pub rx_pcie_latency_ps: Time,
    /// READ request handled → first response ready.
    pub read_latency_ps: Time,
    /// Final ACK/response handled → completion seen by the application.
    pub completion_latency_ps: Time,
    /// Drain rate of the receive buffer towards host memory (frame bytes); `None`: the host is
    /// never the bottleneck.
    pub rx_drain_bps: Option<u64>,
    /// Receive buffer of the lossless priorities.
    pub rx_buffer_bytes: u64,
    /// PFC XOFF level of the receive buffer.
    pub rx_xoff_bytes: u64,
    /// PFC XON level of the receive buffer.
    pub rx_xon_bytes: u64,
}

impl Default for NicProfile {
    /// [`Self::ideal`].
    fn default() -> Self {
        Self::ideal()
    }
}

impl NicProfile {
    /// A NIC that adds no time and a host that is never the bottleneck: what packet-level
    /// simulators such as the HPCC ns-3 simulator assume, and rocelab's default for adapters
    /// without a calibrated profile. The receive buffer is [`HostRxSpec::default`]'s.
    pub fn ideal() -> Self {
        let rx = HostRxSpec::default();
        NicProfile {
            name: "ideal".into(),
            tx_inline_latency_ps: 0,
            tx_dma_latency_ps: 0,
            rx_latency_ps: 0,
            rx_pcie_latency_ps: 0,
            read_latency_ps: 0,
            completion_latency_ps: 0,
            rx_drain_bps: None,
            rx_buffer_bytes: rx.capacity_bytes,
            rx_xoff_bytes: rx.xoff_bytes,
            rx_xon_bytes: rx.xon_bytes,
        }
    }

    /// NVIDIA (Mellanox) ConnectX-4 100GbE on PCIe Gen3 x16 with MOFED, calibrated to the
    /// Oracle OFA 2017 measurements ("Validating RoCEv2 in the Cloud Datacenter"; the seed
    /// `validating-rocev2-cloud-datacenter-oracle-ofa2017.txt`):
    ///
    /// * **latencies (calibrated).** `ib_write_lat` through one Spectrum switch measured
    ///   3.22 µs (half the ping-pong round trip). The slides give only that sum, so its split
    ///   is an assumption: 1.20 µs from post to wire (inline send through the BlueFlame
    ///   doorbell), 0.30 µs of receive pipeline, and the rest, 1.668 µs, for the PCIe posted
    ///   write and the poll that sees it; the remaining 52 ns are the wire (two 3 m cables, two
    ///   serializations of the 86-byte frame, the host buffer drain). rocelab's switch adds no
    ///   latency of its own, so the Spectrum's cut-through port-to-port time (about 300 ns in
    ///   NVIDIA's SN2700 datasheet) is inside these figures. The fidelity test
    ///   `oracle_baseline_write_lat_is_calibrated` checks the sum. A DMA fetch of the work
    ///   request and payload, a READ's fetch of its data, and a completion each add one PCIe
    ///   round trip, taken as 0.8 µs (assumption; same order as the posted-write figure).
    /// * **host drain (calibrated).** Oracle: "with a single qpair, ensure that B/W is between
    ///   92-96 Gbps". At a 4096-byte RoCE MTU the 100 Gb/s wire carries 97.9 Gb/s of payload,
    ///   so the adapter and its PCIe Gen3 x16 slot (8 GT/s × 16 lanes, 128b/130b: 126 Gb/s raw,
    ///   less TLP headers) are what limit it: a drain of 95.5 Gb/s of frame bytes gives 94 Gb/s
    ///   of `ib_write_bw` payload, the middle of Oracle's range.
    /// * **receive buffer.** ConnectX's port buffer is 262,016 bytes, split by default into two
    ///   buffers of 130,944 bytes, the lossless priorities sharing one (NVIDIA community, "HowTo
    ///   Tune Receive Buffers on Mellanox Adapter Cards", `/sys/class/net/<if>/qos/buffer_size`
    ///   and `prio2buffer`). Its XOFF and XON levels follow the Linux mlx5 driver
    ///   (`en/port_buffer.c`, `calculate_xoff` and `update_xoff_threshold`): headroom
    ///   (301 + 2.16 × cable length in m) × speed in Gb/s + 2.72 × MTU = 56,080 bytes at
    ///   100 Gb/s, the default 7 m cable and a 9000-byte MTU; XOFF = buffer − headroom =
    ///   74,864 bytes; XON = XOFF − the port's largest frame (10,000 bytes: a 9978-byte MTU
    ///   with Ethernet header, tag and FCS) = 64,864 bytes.
    pub fn connectx4() -> Self {
        NicProfile {
            name: "connectx-4".into(),
            tx_inline_latency_ps: 1_200 * NS,
            tx_dma_latency_ps: 800 * NS,
            rx_latency_ps: 300 * NS,
            rx_pcie_latency_ps: 1_668 * NS,
            read_latency_ps: 800 * NS,
            completion_latency_ps: 800 * NS,
            rx_drain_bps: Some(95_500_000_000),
            rx_buffer_bytes: 130_944,
            rx_xoff_bytes: 130_944 - 56_080,
            rx_xon_bytes: 130_944 - 56_080 - 10_000,
        }
    }

    /// The profile called `name` (`ideal`, `connectx-4`).
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "ideal" => Some(Self::ideal()),
            "connectx-4" => Some(Self::connectx4()),
            _ => None,
        }
    }

    /// Names [`Self::named`] knows.
    pub const NAMES: [&'static str; 2] = ["ideal", "connectx-4"];

    /// The receive buffer of a host with this NIC.
    pub fn rx_spec(&self) -> HostRxSpec {
        HostRxSpec {
            drain_bps: self.rx_drain_bps,
            capacity_bytes: self.rx_buffer_bytes,
            xoff_bytes: self.rx_xoff_bytes,
            xon_bytes: self.rx_xon_bytes,
        }
    }
}

/// Result of [`RxBuffer::on_arrival`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxArrival {
    /// Accepted; the host has the packet at `delivered_at`. `xoff` is set when this arrival
    /// crossed the XOFF level: pause the peer and check again at `check_at`.
    Accepted {
        /// When the packet has drained to the host.
        delivered_at: Time,
        /// XOFF asserted by this arrival.
        xoff: bool,
        /// When the buffer will have drained to the XON level.
        check_at: Time,
    },
    /// No room: dropped.
    Dropped,
}

/// Result of [`RxBuffer::on_check`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxCheck {
    /// Drained to the XON level: resume the peer.
    Xon,
    /// Still above the XON level: check again then.
    Recheck(Time),
    /// Not in XOFF.
    Idle,
}

/// A drain rate as the picoseconds `ps` that `bytes` bytes take, the fraction `8·10¹² / bps`
/// in lowest terms, so that a drain time or the bytes drained in a time are one 64-bit product
/// and quotient. The calibrated drain of 95.5 Gb/s is no whole number of picoseconds a byte
/// (16,000 ps for 191 bytes), and through [`LinkRate`] each arrival at a host took two 128-bit
/// divisions: 174 instructions an arrival on the k = 32 fat tree, 92 this way (callgrind, 150
/// µs; 801 instructions an event of the run in all before, 791 after). The results are
/// the same integers ([`crate::time`]'s rounding rule), exact rationals rounded alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Drain {
    ps: u64,
    /// Never zero (a rate is at least 1 bit/s), which keeps `Option<Drain>` as small as the
    /// `Option<LinkRate>` it replaced.
    bytes: NonZeroU64,
}

impl Drain {
    fn new(bps: u64) -> Drain {
        let bps = bps.max(1);
        let per_byte = 8 * crate::time::SECOND;
        let (mut a, mut b) = (per_byte, bps);
        while b != 0 {
            (a, b) = (b, a % b);
        }
        Drain { ps: per_byte / a, bytes: NonZeroU64::new(bps / a).unwrap_or(NonZeroU64::MIN) }
    }

    /// [`crate::time::serialization_time`] of `n` bytes at this rate: `ceil(n · 8·10¹² / bps)`
    /// picoseconds.
    #[inline]
    fn bytes_time(&self, n: u64) -> Time {
        match n.checked_mul(self.ps) {
            Some(x) => x.div_ceil(self.bytes.get()),
            // As `serialization_time` does it: the bits, saturated, times 10¹² / bps.
            None => {
                let bits = n.saturating_mul(8) as u128;
                let t = (bits * self.ps as u128).div_ceil(8 * self.bytes.get() as u128);
                t.min(u64::MAX as u128) as Time
            }
        }
    }

    /// [`LinkRate::bytes_in`] at this rate: `floor(t · bps / 8·10¹²)` bytes.
    #[inline]
    fn bytes_in(&self, t: Time) -> u64 {
        match t.checked_mul(self.bytes.get()) {
            Some(x) => x / self.ps,
            None => (t as u128 * self.bytes.get() as u128 / self.ps as u128) as u64,
        }
    }
}

/// Receive buffer between the wire and host memory, drained at a fixed rate (PCIe / memory
/// bandwidth). A fluid model: occupancy is what arrived and has not drained yet, so no event is
/// needed per packet.
#[derive(Clone, Copy, Debug)]
pub struct RxBuffer {
    drain: Option<Drain>,
    capacity: u64,
    xoff_level: u64,
    xon_level: u64,
    drain_done: Time,
    xoff: bool,
    peak: u64,
}

impl RxBuffer {
    /// A buffer draining at `drain_bps` (`None`: never a bottleneck).
    pub fn new(drain_bps: Option<u64>, capacity: u64, xoff_level: u64, xon_level: u64) -> Self {
        RxBuffer {
            drain: drain_bps.map(Drain::new),
            capacity,
            xoff_level,
            xon_level,
            drain_done: 0,
            xoff: false,
            peak: 0,
        }
    }

    /// Bytes buffered at `now`.
    pub fn occupancy(&self, now: Time) -> u64 {
        match self.drain {
            None => 0,
            Some(r) => r.bytes_in(self.drain_done.saturating_sub(now)),
        }
    }

    /// Highest occupancy seen (after an arrival).
    pub fn peak(&self) -> u64 {
        self.peak
    }

    /// A frame of `bytes` arrives at `now`.
    pub fn on_arrival(&mut self, now: Time, bytes: u64) -> RxArrival {
        let Some(rate) = self.drain else {
            return RxArrival::Accepted { delivered_at: now, xoff: false, check_at: now };
        };
        let occ = self.occupancy(now);
        if occ + bytes > self.capacity {
            return RxArrival::Dropped;
        }
        self.drain_done = self.drain_done.max(now) + rate.bytes_time(bytes);
        let occ = occ + bytes;
        self.peak = self.peak.max(occ);
        let xoff = !self.xoff && occ >= self.xoff_level;
        if xoff {
            self.xoff = true;
        }
        RxArrival::Accepted { delivered_at: self.drain_done, xoff, check_at: self.xon_time(now) }
    }

    fn xon_time(&self, now: Time) -> Time {
        let rate = self.drain.expect("xon_time needs a drain rate");
        self.drain_done.saturating_sub(rate.bytes_time(self.xon_level)).max(now + 1)
    }

    /// The check scheduled after XOFF fires.
    pub fn on_check(&mut self, now: Time) -> RxCheck {
        if !self.xoff {
            return RxCheck::Idle;
        }
        if self.occupancy(now) <= self.xon_level {
            self.xoff = false;
            RxCheck::Xon
        } else {
            RxCheck::Recheck(self.xon_time(now))
        }
    }
}

/// What a source offers when the NIC port is free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourcePoll {
    /// Send a packet with this many payload bytes now.
    Send {
        /// Payload bytes.
        payload: u32,
    },
    /// Nothing before `t` (pacing or an off period).
    WaitUntil(Time),
    /// Nothing more, ever.
    Finished,
}

/// Sending state of an open-loop flow.
#[derive(Clone, Copy, Debug)]
pub struct FlowSource {
    /// Payload bytes per full packet.
    pub payload: u32,
    /// Bytes still to send (`u64::MAX`: unlimited).
    pub remaining: u64,
    /// Start time.
    pub start: Time,
    /// Stop time (`Time::MAX`: none).
    pub stop: Time,
    /// Pacing rate; `None` = line rate.
    pub rate: Option<LinkRate>,
    /// Bytes per frame counted by the pacing rate on top of the frame (preamble + IFG).
    pub overhead: u32,
    /// On/off periods.
    pub on_off: Option<(Time, Time)>,
    /// Earliest time of the next packet (pacing).
    pub next_time: Time,
}

impl FlowSource {
    /// Ask for the next packet at `now`.
    pub fn poll(&self, now: Time) -> SourcePoll {
        if self.remaining == 0 || now >= self.stop {
            return SourcePoll::Finished;
        }
        if now < self.next_time {
            return SourcePoll::WaitUntil(self.next_time);
        }
        if let Some((on, off)) = self.on_off {
            let period = on + off;
            let phase = (now - self.start) % period;
            if phase >= on {
                let next_on = now - phase + period;
                return if next_on >= self.stop { SourcePoll::Finished } else { SourcePoll::WaitUntil(next_on) };
            }
        }
        SourcePoll::Send { payload: self.remaining.min(self.payload as u64) as u32 }
    }

    /// Record that a packet with `payload` bytes and `frame_bytes` was sent at `now`.
    pub fn sent(&mut self, now: Time, payload: u32, frame_bytes: u32) {
        if self.remaining != u64::MAX {
            self.remaining -= payload as u64;
        }
        if let Some(r) = self.rate {
            self.next_time = now + r.bytes_time(frame_bytes as u64 + self.overhead as u64);
        }
    }

    /// Whether the source may have more to send (it is not exhausted).
    pub fn has_more(&self, now: Time) -> bool {
        self.remaining > 0 && now < self.stop
    }

    /// Whether this source is paced or periodic, i.e. must wait on a timer between packets.
    pub fn is_timed(&self) -> bool {
        self.rate.is_some() || self.on_off.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{serialization_time, NS, US};

    /// The drain's 64-bit arithmetic gives what the 128-bit one of [`serialization_time`] and
    /// [`LinkRate::bytes_in`] gives (the time of a drain before, by the rounding rule), at rates
    /// that are and are not whole picoseconds a byte, up to the products that overflow.
    #[test]
    fn drain_times_and_bytes_equal_the_link_rate_s() {
        assert_eq!(size_of::<Option<Drain>>(), size_of::<Option<LinkRate>>());
        let mut rng = crate::rng::Rng::new(5);
        for bps in [95_500_000_000, 100_000_000_000, 8_000_000_000, 12_345_678_901, 1, 3, u64::MAX / 7] {
            let (drain, rate) = (Drain::new(bps), LinkRate::new(bps));
            let (ps, bytes) = (drain.ps as u128, drain.bytes.get() as u128);
            assert_eq!(ps * bps as u128, bytes * 8 * crate::time::SECOND as u128, "{bps} bit/s in lowest terms");
            let mut values = vec![0, 1, 2, 999, 1_048, 9_000, 1 << 20, u64::MAX / 3, u64::MAX];
            values.extend((0..200).map(|_| rng.below(1 << 40)));
            values.extend((0..50).map(|_| rng.below(u64::MAX)));
            for n in values {
                assert_eq!(drain.bytes_time(n), serialization_time(n, bps), "{n} bytes at {bps} bit/s");
                assert_eq!(drain.bytes_in(n), rate.bytes_in(n), "{n} ps at {bps} bit/s");
            }
        }
    }

    #[test]
    fn unbounded_drain_never_fills() {
        let mut b = RxBuffer::new(None, 1000, 500, 100);
        for i in 0..100 {
            assert!(matches!(b.on_arrival(i, 1000), RxArrival::Accepted { xoff: false, .. }));
        }
    }

    #[test]
    fn fills_pauses_resumes_and_drops() {
        // 8 Gb/s drain = 1 byte per ns.
        let mut b = RxBuffer::new(Some(8_000_000_000), 3000, 2000, 1000);
        let a = b.on_arrival(0, 1000);
        assert_eq!(a, RxArrival::Accepted { delivered_at: 1000 * NS, xoff: false, check_at: 1 });
        b.on_arrival(0, 500);
        let RxArrival::Accepted { delivered_at, xoff: true, check_at } = b.on_arrival(0, 500) else {
            panic!("expected XOFF at 2000 bytes")
        };
        assert_eq!(delivered_at, 2 * US);
        assert_eq!(check_at, US, "1000 bytes left after 1 us");
        assert_eq!(b.on_arrival(0, 1001), RxArrival::Dropped);
        assert_eq!(b.occupancy(0), 2000);
        assert_eq!(b.on_check(500 * NS), RxCheck::Recheck(US));
        assert_eq!(b.on_check(US), RxCheck::Xon);
        assert_eq!(b.on_check(US), RxCheck::Idle);
        assert_eq!(b.peak(), 2000);
    }

    fn src() -> FlowSource {
        FlowSource {
            payload: 1000,
            remaining: 2500,
            start: 0,
            stop: Time::MAX,
            rate: None,
            overhead: 90,
            on_off: None,
            next_time: 0,
        }
    }

    #[test]
    fn sized_source_segments_and_finishes() {
        let mut s = src();
        let mut sizes = vec![];
        while let SourcePoll::Send { payload } = s.poll(0) {
            sizes.push(payload);
            s.sent(0, payload, payload + 70);
        }
        assert_eq!(sizes, vec![1000, 1000, 500]);
        assert_eq!(s.poll(0), SourcePoll::Finished);
        assert!(!s.has_more(0));
    }

    #[test]
    fn paced_and_on_off() {
        let mut s = FlowSource {
            remaining: u64::MAX,
            rate: Some(LinkRate::new(10_000_000_000)),
            on_off: Some((10 * US, 30 * US)),
            stop: 100 * US,
            ..src()
        };
        assert_eq!(s.poll(0), SourcePoll::Send { payload: 1000 });
        s.sent(0, 1000, 1070);
        // (1070 + 90) bytes at 10 Gb/s = 928 ns.
        assert_eq!(s.poll(0), SourcePoll::WaitUntil(928 * NS));
        s.next_time = 0;
        assert_eq!(s.poll(15 * US), SourcePoll::WaitUntil(40 * US));
        assert_eq!(s.poll(41 * US), SourcePoll::Send { payload: 1000 });
        assert_eq!(s.poll(95 * US), SourcePoll::Finished, "next on period is past stop");
        assert!(s.is_timed());
    }
}
