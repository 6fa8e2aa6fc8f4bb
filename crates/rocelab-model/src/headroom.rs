//! PFC headroom: the buffer a lossless (port, priority group) must keep free above its XOFF
//! threshold so that nothing is dropped between the moment the receiver decides to pause and
//! the moment the last frame the sender could not hold back has arrived.
//!
//! This is the one headroom function of rocelab: `rocelab check` compares configured headroom
//! with it and shows its terms, and the simulator and the vendor configurations use it for the
//! headroom a fabric leaves unset. It lives with the model because it needs only the model's
//! units, so that the simulator and the configuration renderers need not depend on the checks.
//! [`port_input`] assembles its input for a cabled port of a resolved fabric, and
//! [`port_headroom`] applies a configured figure over it, for every crate that starts from the
//! fabric.
//!
//! The delay model is that of IEEE 802.1Qbb-2011 Annex N ("Buffer requirements"), as vendors'
//! headroom calculators apply it: the Cisco Press book *Detecting, Troubleshooting, and
//! Preventing Congestion in Storage Networks*, ch. 7 (Figure 7-2, "Worst-case delay for
//! calculating the headroom for PFC": D-Max-Frame-Len, D-Pause, D-Intf, D-Cable, D-Resp, and
//! the per-speed upper bounds used by [`Response::Standard`]); Mellanox's "Priority Flow
//! Control: Build Reliable Layer 2 Infrastructure" (MTU of the receiver + 2 × wire delay +
//! 60 pause quanta of response (512 × 60 bit times = 3,840 bytes at 10G) + MTU of the sender);
//! and the Linux mlxsw driver's PG sizing (delay + one MTU for the frame the sender had started).
//!
//! A note on the "3840" often quoted: IEEE 802.1Qbb bounds the response of a 10G receiver at
//! 60 quanta = 30,720 bit times, which is 3,840 *bytes*, not 3,840 bit times.
//!
//! Terms, in bytes at the link speed (a time `t` becomes `ceil(t × speed / 8)` bytes):
//! 1. the receiver's own maximum frame, already being sent when XOFF is crossed (a PFC frame
//!    does not pre-empt it), with preamble, SFD and inter-frame gap (20 bytes);
//! 2. the PFC frame itself: 64 bytes plus the same 20;
//! 3. the response delay: interface delays and the peer's time to act on the PFC frame, either
//!    a configured time (`qos.pfc.response_time`) or the standard's upper bounds per speed;
//! 4. twice the cable propagation (the PFC frame travels one way, data is still coming the
//!    other), at 5 ns per metre;
//! 5. the sender's maximum frame, started just before the PFC frame took effect.
//!
//! Not included (say so where it matters): the cell granularity of a switch buffer (a frame of
//! `cell + 1` bytes occupies two cells; mlxsw multiplies the delay by a "cell factor" close to
//! 2 for the worst case), and shared-headroom schemes that pool headroom across PGs.

use crate::resolve::{PortId, ResolvedFabric};
use crate::units::{Length, Rate, Size, Time};
use serde::Serialize;

/// Ethernet framing around the layer-2 payload the MTU counts: MAC header 14, 802.1Q tag 4,
/// FCS 4 (IEEE 802.3 clause 3, IEEE 802.1Q).
pub const FRAME_OVERHEAD: u64 = 22;
/// Preamble 7 + SFD 1 + minimum inter-frame gap 12 bytes: occupy the wire but not the buffer,
/// counted as time (IEEE 802.3 clause 4.4.2).
pub const WIRE_OVERHEAD: u64 = 20;
/// A PFC frame is a minimum-size MAC control frame (IEEE 802.1Qbb clause 36.1.3).
pub const PFC_FRAME: u64 = 64;

pub const SOURCE: &str = "IEEE 802.1Qbb-2011 Annex N delay model, as in Cisco Press \"Detecting, Troubleshooting, and Preventing Congestion in Storage Networks\" ch. 7 (Fig. 7-2) and Mellanox \"Priority Flow Control: Build Reliable Layer 2 Infrastructure\"";

/// How long the two ends take to act once XOFF is crossed, beyond the frames and the cable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Response {
    /// A measured or vendor figure covering the interface delays of both ends and the peer's
    /// reaction (rocelab's `qos.pfc.response_time`).
    Time(Time),
    /// The standards' upper bounds for the link speed: twice the IEEE 802.3 interface delay
    /// (D-Intf, the PFC frame leaving one PHY and entering the other) plus the IEEE 802.1Qbb
    /// response delay (D-Resp).
    Standard,
}

/// What the headroom depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HeadroomInput {
    pub speed: Rate,
    pub cable: Length,
    /// MTU (layer-2 payload) of the receiver, i.e. the port whose buffer needs the headroom.
    pub receiver_mtu: u32,
    /// MTU of the sender at the other end of the cable.
    pub sender_mtu: u32,
    pub response: Response,
}

/// One term of the sum, for showing the computation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Term {
    pub name: &'static str,
    pub bytes: u64,
    /// How the figure comes about, e.g. `2 × 15ns × 100Gbps`.
    pub how: String,
}

/// The required headroom and its terms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Headroom {
    pub bytes: u64,
    pub terms: Vec<Term>,
}

impl Headroom {
    /// `9062 (receiver frame) + 84 (PFC frame) + …`, for findings.
    pub fn explain(&self) -> String {
        let parts: Vec<String> = self.terms.iter().map(|t| format!("{} {} ({})", t.bytes, t.name, t.how)).collect();
        format!("{} B = {}", self.bytes, parts.join(" + "))
    }
}

/// Bytes sent at `speed` during `t`, rounded up.
pub fn bytes_in(t: Time, speed: Rate) -> u64 {
    let bits = t.as_ps() as u128 * speed.bits_per_second() as u128;
    bits.div_ceil(8 * 1_000_000_000_000) as u64
}

/// Bytes at `speed` during `bit_times` bit times: one byte per 8 bit times at any speed.
fn bit_times_bytes(bit_times: u64) -> u64 {
    bit_times.div_ceil(8)
}

/// Upper bounds of (D-Intf, D-Resp) in bit times for a link speed, from the Cisco Press
/// chapter cited above (IEEE 802.3 interface delays, IEEE 802.1Qbb response delays). A speed
/// between the tabulated ones takes the next faster one's figures (more bit times; safe side).
pub fn standard_delays(speed: Rate) -> (u64, u64) {
    const TABLE: &[(u64, u64, u64)] = &[
        (10, 8_192, 30_720),
        (25, 6_144, 40_960),
        (40, 24_576, 60_416),
        (100, 122_880, 201_728),
        (400, 122_880, 463_360),
    ];
    let g = speed.bits_per_second().div_ceil(1_000_000_000);
    let row = TABLE.iter().find(|(s, _, _)| g <= *s).unwrap_or(&TABLE[TABLE.len() - 1]);
    (row.1, row.2)
}

/// The headroom one lossless (port, priority group) needs; see the module docs for the model.
pub fn required_headroom(input: &HeadroomInput) -> Headroom {
    let mut terms = Vec::with_capacity(5);
    each_term(input, &mut |name, bytes, how| terms.push(Term { name, bytes, how: how.to_string() }));
    Headroom { bytes: terms.iter().map(|t| t.bytes).sum(), terms }
}

/// [`required_headroom`]'s bytes alone, without writing out how each term comes about: a
/// simulation asks for every lossless port of the fabric (a k = 32 fat tree: 40,960 ports),
/// where the explanations took 0.7 G instructions to format and were dropped unread.
pub fn required_headroom_bytes(input: &HeadroomInput) -> u64 {
    let mut bytes = 0;
    each_term(input, &mut |_, b, _| bytes += b);
    bytes
}

/// The terms of the sum, each given to `term` with its name, its bytes and how it comes about
/// (formatted only by a caller that writes it out).
fn each_term(input: &HeadroomInput, term: &mut dyn FnMut(&'static str, u64, std::fmt::Arguments<'_>)) {
    let speed = input.speed;
    let rx_frame = input.receiver_mtu as u64 + FRAME_OVERHEAD + WIRE_OVERHEAD;
    term(
        "receiver frame in transmission",
        rx_frame,
        format_args!("MTU {} + {FRAME_OVERHEAD} header/FCS + {WIRE_OVERHEAD} preamble/IFG", input.receiver_mtu),
    );
    term("PFC frame", PFC_FRAME + WIRE_OVERHEAD, format_args!("{PFC_FRAME} + {WIRE_OVERHEAD} preamble/IFG"));
    match input.response {
        Response::Time(t) => term("response delay", bytes_in(t, speed), format_args!("{t} × {speed}")),
        Response::Standard => {
            let (intf, resp) = standard_delays(speed);
            term(
                "interface delay",
                bit_times_bytes(2 * intf),
                format_args!("2 × {intf} bit times (IEEE 802.3 upper bound)"),
            );
            term("response delay", bit_times_bytes(resp), format_args!("{resp} bit times (IEEE 802.1Qbb upper bound)"));
        }
    }
    let prop = input.cable.propagation();
    term(
        "cable round trip",
        bytes_in(Time::ps(2 * prop.as_ps()), speed),
        format_args!("2 × {prop} ({}) × {speed}", input.cable),
    );
    let tx_frame = input.sender_mtu as u64 + FRAME_OVERHEAD + WIRE_OVERHEAD;
    term(
        "sender frame in flight",
        tx_frame,
        format_args!("MTU {} + {FRAME_OVERHEAD} + {WIRE_OVERHEAD}", input.sender_mtu),
    );
}

/// The headroom input of the lossless priority groups of port `id`, the receiving end: its
/// link's speed and cable, its own and its peer's MTU, and the fabric's PFC response time.
/// `None` for a port without a cable, which has no sender to hold back.
pub fn port_input(f: &ResolvedFabric, id: PortId) -> Option<HeadroomInput> {
    let link = &f.links[f.port(id).link?];
    let peer = if link.a == id { link.b } else { link.a };
    Some(HeadroomInput {
        speed: link.speed,
        cable: link.cable,
        receiver_mtu: f.port_settings(id).mtu,
        sender_mtu: f.port_settings(peer).mtu,
        response: Response::Time(f.qos.pfc.response_time),
    })
}

/// The headroom, in bytes, a lossless priority group of the cabled port `id` gets: `configured`
/// (the port's `qos.buffer.headroom`) where the fabric sets one, else [`required_headroom`] for
/// [`port_input`]. A port without a cable gets its configured figure or nothing.
pub fn port_headroom(f: &ResolvedFabric, id: PortId, configured: Option<Size>) -> u64 {
    match configured {
        Some(h) => h.as_bytes(),
        None => port_input(f, id).map_or(0, |input| required_headroom_bytes(&input)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(speed: Rate, cable_m: u64, mtu: u32, response: Response) -> HeadroomInput {
        HeadroomInput { speed, cable: Length::metres(cable_m), receiver_mtu: mtu, sender_mtu: mtu, response }
    }

    #[test]
    fn terms_add_up_and_each_follows_its_definition() {
        let h = required_headroom(&input(Rate::gbps(100), 3, 9000, Response::Time(Time::ns(1500))));
        assert_eq!(h.bytes, h.terms.iter().map(|t| t.bytes).sum::<u64>());
        let by = |n: &str| h.terms.iter().find(|t| t.name == n).unwrap().bytes;
        assert_eq!(by("receiver frame in transmission"), 9000 + 22 + 20);
        assert_eq!(by("PFC frame"), 84);
        // 1.5 µs at 100 Gb/s is 150,000 bits.
        assert_eq!(by("response delay"), 150_000 / 8);
        // 3 m is 15 ns one way; 30 ns at 100 Gb/s is 3,000 bits.
        assert_eq!(by("cable round trip"), 3_000 / 8);
        assert_eq!(by("sender frame in flight"), 9042);
        assert!(h.explain().starts_with(&format!("{} B = 9042 receiver frame", h.bytes)));
    }

    #[test]
    fn headroom_grows_with_cable_speed_and_mtu() {
        let base = required_headroom(&input(Rate::gbps(25), 3, 1500, Response::Time(Time::ns(1500)))).bytes;
        let longer = required_headroom(&input(Rate::gbps(25), 300, 1500, Response::Time(Time::ns(1500)))).bytes;
        let faster = required_headroom(&input(Rate::gbps(100), 3, 1500, Response::Time(Time::ns(1500)))).bytes;
        let jumbo = required_headroom(&input(Rate::gbps(25), 3, 9000, Response::Time(Time::ns(1500)))).bytes;
        // 300 m: 2 × 1,500 ns = 75,000 bits at 25G, 9,375 bytes; 3 m: 750 bits, 94 bytes.
        assert_eq!(longer - base, 9_375 - 94);
        assert!(faster > base);
        assert_eq!(jumbo - base, 2 * 7500);
    }

    #[test]
    fn standard_bounds_follow_the_speed_table() {
        // 10G: 2 × 8192 + 30720 bit times.
        let h = required_headroom(&input(Rate::gbps(10), 1, 1500, Response::Standard));
        let resp: u64 = h.terms.iter().filter(|t| t.name.ends_with("delay")).map(|t| t.bytes).sum();
        assert_eq!(resp, (2 * 8192 + 30720) / 8);
        // 50G is between the rows and takes 100G's bounds.
        assert_eq!(standard_delays(Rate::gbps(50)), (122_880, 201_728));
        assert_eq!(standard_delays(Rate::gbps(800)), (122_880, 463_360));
    }

    #[test]
    fn the_bytes_alone_are_the_explained_sum() {
        for response in [Response::Time(Time::ns(1500)), Response::Standard] {
            for (speed, cable_m, mtu) in [(10, 1, 1500), (25, 300, 9000), (100, 3, 9216), (400, 10, 4200)] {
                let i = input(Rate::gbps(speed), cable_m, mtu, response);
                let h = required_headroom(&i);
                assert_eq!(required_headroom_bytes(&i), h.bytes, "{speed}G {cable_m} m MTU {mtu} {response:?}");
                assert!(h.terms.len() >= 5 && h.terms.iter().all(|t| t.bytes > 0 && !t.how.is_empty()));
            }
        }
    }

    #[test]
    fn bytes_round_up() {
        assert_eq!(bytes_in(Time::ps(1), Rate::gbps(1)), 1);
        assert_eq!(bytes_in(Time::ZERO, Rate::gbps(1)), 0);
        assert_eq!(bytes_in(Time::ns(8), Rate::gbps(1)), 1);
    }
}
