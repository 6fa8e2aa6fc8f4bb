//! How the simulator models packets, links and switches (`simulation.model`): a `profile` of
//! defaults and optional overrides of each choice.
//!
//! `hardware` (the default) follows the standards and the hardware: real RoCEv2 frame sizes,
//! IEEE 802.3 preamble and inter-frame gap, exact serialization, ECN marked at enqueue, PFC pause
//! quanta that expire (IEEE 802.1Qbb), control frames in the switch buffer. `hpcc-compat`
//! follows the ns-3 HPCC simulator (alibaba-edu/High-Precision-Congestion-Control: third.cc,
//! rdma-hw.cc, switch-node.cc, switch-mmu.cc, qbb-net-device.cc) so that a line-by-line comparison
//! with it is fair; `data/hpcc-reference/README.md` lists its choices.

use crate::units::Size;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A set of simulation model defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SimProfile {
    /// The standards and the hardware (NVIDIA ConnectX adapters, Broadcom/Spectrum switches).
    #[default]
    Hardware,
    /// The ns-3 HPCC simulator's model.
    HpccCompat,
}

impl SimProfile {
    pub fn name(self) -> &'static str {
        match self {
            SimProfile::Hardware => "hardware",
            SimProfile::HpccCompat => "hpcc-compat",
        }
    }
}

/// How serialization time is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Serialization {
    /// bytes × 8 / rate, in picoseconds.
    Exact,
    /// Truncated to whole nanoseconds (the ns-3 HPCC simulator: a 1048-byte packet at 100G takes
    /// 83 ns, not 83.84).
    TruncateNs,
}

/// When a switch decides whether to ECN-mark a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EcnMarking {
    /// On the queue length the packet finds when it is enqueued (RED, RFC 3168 §5).
    Enqueue,
    /// On the queue length when it leaves (the ns-3 HPCC simulator's switch-node.cc).
    Dequeue,
}

/// How long a PFC pause lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PauseModel {
    /// The frame's quanta (512 bit times each), refreshed while XOFF holds (IEEE 802.1Qbb).
    Quanta,
    /// Until the resume frame; XOFF not refreshed (the ns-3 HPCC simulator).
    UntilResume,
}

/// The switches' ECMP hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EcmpHash {
    /// rocelab's 5-tuple hash, salted per switch from the run's seed.
    Rocelab,
    /// The ns-3 HPCC simulator's hash and next-hop order (switch-node.cc `EcmpHash`).
    Hpcc,
}

/// Where the random numbers of ECN marking come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EcnRandom {
    /// rocelab's own generator, seeded with `simulation.seed`.
    Rocelab,
    /// The ns-3 HPCC simulator's: a new MRG32k3a stream per decision, numbered as that
    /// simulator numbers them, its run (`RngRun`) being `simulation.seed`; with the same
    /// topology, flows and order of events, the same packets are marked.
    Hpcc,
}

/// How a NIC chooses the queue pair whose data packet goes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NicArbiter {
    /// Round robin over the queue pairs that can send now.
    RoundRobin,
    /// The ns-3 HPCC simulator's: its queue pairs in creation order, scanned from the one after
    /// the last that sent (`RdmaEgressQueue::GetNextQindex`).
    Hpcc,
}

/// How a switch admits a lossless priority group's frames around XOFF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MmuAdmission {
    /// Once XOFF holds, every frame goes to headroom until XON.
    Rocelab,
    /// The ns-3 HPCC simulator's `SwitchMmu`: a frame goes to the shared pool whenever it fits
    /// under the threshold of the moment, XOFF or not; headroom takes the rest.
    Hpcc,
}

/// `simulation.model` as written: a profile and overrides of any of its values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SimModel {
    #[serde(default)]
    pub profile: SimProfile,
    /// Payload bytes per RDMA or raw packet (64B-9000B); default the RoCE path MTU.
    #[serde(default, deserialize_with = "crate::units::bare_bytes_opt", skip_serializing_if = "Option::is_none")]
    pub payload: Option<Size>,
    /// Header bytes of every data packet; default the real RoCEv2 headers.
    #[serde(default, deserialize_with = "crate::units::bare_bytes_opt", skip_serializing_if = "Option::is_none")]
    pub header: Option<Size>,
    /// Size of an ACK or NAK frame; default a real RoCEv2 ACK.
    #[serde(default, deserialize_with = "crate::units::bare_bytes_opt", skip_serializing_if = "Option::is_none")]
    pub ack_frame: Option<Size>,
    /// Size of a PFC frame.
    #[serde(default, deserialize_with = "crate::units::bare_bytes_opt", skip_serializing_if = "Option::is_none")]
    pub pfc_frame: Option<Size>,
    /// 20 bytes per frame on the wire: IEEE 802.3 preamble and SFD (8) and inter-frame gap (12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preamble_and_gap: Option<bool>,
    /// `exact` or `truncate-ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serialization: Option<Serialization>,
    /// `enqueue` or `dequeue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_marking: Option<EcnMarking>,
    /// `quanta` or `until-resume`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<PauseModel>,
    /// ACK, NAK and CNP frames are charged to the switch buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_in_buffer: Option<bool>,
    /// `rocelab` or `hpcc`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecmp: Option<EcmpHash>,
    /// End the run as soon as every sized flow, perftest and storage job has finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_when_done: Option<bool>,
    /// `rocelab` or `hpcc`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_random: Option<EcnRandom>,
    /// `round-robin` or `hpcc`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_arbiter: Option<NicArbiter>,
    /// `rocelab` or `hpcc`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mmu_admission: Option<MmuAdmission>,
}

/// Every simulation model value, resolved, with where each came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedSimModel {
    pub profile: SimProfile,
    /// None: the RoCE path MTU.
    pub payload: Option<Size>,
    /// None: the real RoCEv2 headers.
    pub header: Option<Size>,
    /// None: a real RoCEv2 ACK.
    pub ack_frame: Option<Size>,
    pub pfc_frame: Size,
    pub preamble_and_gap: bool,
    pub serialization: Serialization,
    pub ecn_marking: EcnMarking,
    pub pause: PauseModel,
    pub control_in_buffer: bool,
    pub ecmp: EcmpHash,
    pub stop_when_done: bool,
    pub ecn_random: EcnRandom,
    pub nic_arbiter: NicArbiter,
    pub mmu_admission: MmuAdmission,
    /// For each field: `set in simulation.model`, or the profile with the source of its value.
    pub sources: BTreeMap<&'static str, String>,
}

impl Default for ResolvedSimModel {
    fn default() -> Self {
        SimModel::default().resolve()
    }
}

/// The fields of [`SimModel`] in the order `rocelab show` prints them.
pub const SIM_MODEL_FIELDS: [&str; 14] = [
    "payload",
    "header",
    "ack_frame",
    "pfc_frame",
    "preamble_and_gap",
    "serialization",
    "ecn_marking",
    "pause",
    "control_in_buffer",
    "ecmp",
    "stop_when_done",
    "ecn_random",
    "nic_arbiter",
    "mmu_admission",
];

/// Why a profile has its value of `field`.
fn source(profile: SimProfile, field: &str) -> &'static str {
    match profile {
        SimProfile::Hardware => match field {
            "payload" => "hardware profile: the RoCE path MTU (IBA: payload bytes per packet)",
            "header" => "hardware profile: real RoCEv2 headers (Ethernet, 802.1Q, IPv4, UDP, BTH, RETH, ICRC, FCS)",
            "ack_frame" => "hardware profile: a real RoCEv2 ACK (BTH and AETH)",
            "pfc_frame" => "hardware profile: a minimum-size MAC control frame (IEEE 802.1Qbb)",
            "preamble_and_gap" => "hardware profile: IEEE 802.3 preamble and SFD (8 bytes) and inter-frame gap (12 bytes)",
            "serialization" => "hardware profile: exact to the picosecond",
            "ecn_marking" => "hardware profile: on the queue a packet finds at enqueue (RED, RFC 3168 §5)",
            "pause" => "hardware profile: pause quanta that expire, refreshed while XOFF holds (IEEE 802.1Qbb)",
            "control_in_buffer" => "hardware profile: ACK, NAK and CNP frames take switch buffer like any frame",
            "ecmp" => "hardware profile: rocelab's 5-tuple hash, salted per switch",
            "stop_when_done" => "hardware profile: the run lasts simulation.duration",
            "ecn_random" => "hardware profile: rocelab's generator, seeded with simulation.seed",
            "nic_arbiter" => "hardware profile: round robin over the queue pairs that can send",
            "mmu_admission" => "hardware profile: after XOFF every frame of the priority group goes to headroom until XON",
            _ => "hardware profile",
        },
        SimProfile::HpccCompat => match field {
            "payload" => "hpcc-compat profile: ns-3 HPCC simulator PACKET_PAYLOAD_SIZE 1000 (third.cc)",
            "header" => "hpcc-compat profile: ns-3 HPCC simulator's 48 bytes of headers per data packet (rdma-hw.cc GetNxtPacket; 1048 B on the wire)",
            "ack_frame" => "hpcc-compat profile: ns-3 HPCC simulator's 60-byte ACK and NACK frames (rdma-hw.cc ReceiveUdp)",
            "pfc_frame" => "hpcc-compat profile: ns-3 HPCC simulator's PFC frame: PauseHeader, IPv4 and PPP headers (qbb-net-device.cc SendPfc)",
            "preamble_and_gap" => "hpcc-compat profile: ns-3 HPCC simulator puts no preamble or inter-frame gap on the wire (qbb-net-device.cc)",
            "serialization" => "hpcc-compat profile: ns-3 HPCC simulator truncates serialization times to whole ns",
            "ecn_marking" => "hpcc-compat profile: ns-3 HPCC simulator marks at dequeue (switch-node.cc SwitchNotifyDequeue)",
            "pause" => "hpcc-compat profile: ns-3 HPCC simulator pauses until the resume frame (qbb-net-device.cc, switch-mmu.cc)",
            "control_in_buffer" => "hpcc-compat profile: the ns-3 HPCC simulator's switches queue and charge ACKs with their flow's data (`SwitchNode::SendToDev`: its AckHighPrio attribute, never set by third.cc, is 0)",
            "ecmp" => "hpcc-compat profile: ns-3 HPCC simulator's ECMP hash and next-hop order (switch-node.cc EcmpHash)",
            "stop_when_done" => "hpcc-compat profile: ns-3 HPCC simulator's run ends when its events do, once every queue pair completed (rdma-hw.cc QpComplete)",
            "ecn_random" => "hpcc-compat profile: ns-3 HPCC simulator's draws, a new RngStream per UniformVariable (switch-mmu.cc ShouldSendCN), RngRun = simulation.seed",
            "nic_arbiter" => "hpcc-compat profile: ns-3 HPCC simulator's queue-pair order (qbb-net-device.cc RdmaEgressQueue::GetNextQindex)",
            "mmu_admission" => "hpcc-compat profile: ns-3 HPCC simulator's SwitchMmu (switch-mmu.cc UpdateIngressAdmission, CheckShouldPause)",
            _ => "hpcc-compat profile",
        },
    }
}

/// A profile's values.
struct Defaults {
    payload: Option<Size>,
    header: Option<Size>,
    ack_frame: Option<Size>,
    pfc_frame: Size,
    preamble_and_gap: bool,
    serialization: Serialization,
    ecn_marking: EcnMarking,
    pause: PauseModel,
    control_in_buffer: bool,
    ecmp: EcmpHash,
    stop_when_done: bool,
    ecn_random: EcnRandom,
    nic_arbiter: NicArbiter,
    mmu_admission: MmuAdmission,
}

fn defaults(profile: SimProfile) -> Defaults {
    match profile {
        SimProfile::Hardware => Defaults {
            payload: None,
            header: None,
            ack_frame: None,
            pfc_frame: Size::bytes(64),
            preamble_and_gap: true,
            serialization: Serialization::Exact,
            ecn_marking: EcnMarking::Enqueue,
            pause: PauseModel::Quanta,
            control_in_buffer: true,
            ecmp: EcmpHash::Rocelab,
            stop_when_done: false,
            ecn_random: EcnRandom::Rocelab,
            nic_arbiter: NicArbiter::RoundRobin,
            mmu_admission: MmuAdmission::Rocelab,
        },
        SimProfile::HpccCompat => Defaults {
            payload: Some(Size::bytes(1000)),
            header: Some(Size::bytes(48)),
            ack_frame: Some(Size::bytes(60)),
            pfc_frame: Size::bytes(43),
            preamble_and_gap: false,
            serialization: Serialization::TruncateNs,
            ecn_marking: EcnMarking::Dequeue,
            pause: PauseModel::UntilResume,
            control_in_buffer: true,
            ecmp: EcmpHash::Hpcc,
            stop_when_done: true,
            ecn_random: EcnRandom::Hpcc,
            nic_arbiter: NicArbiter::Hpcc,
            mmu_admission: MmuAdmission::Hpcc,
        },
    }
}

impl SimModel {
    /// Every value: the one set here, else the profile's.
    pub fn resolve(&self) -> ResolvedSimModel {
        let p = self.profile;
        let d = defaults(p);
        let mut sources = BTreeMap::new();
        for field in SIM_MODEL_FIELDS {
            let set = match field {
                "payload" => self.payload.is_some(),
                "header" => self.header.is_some(),
                "ack_frame" => self.ack_frame.is_some(),
                "pfc_frame" => self.pfc_frame.is_some(),
                "preamble_and_gap" => self.preamble_and_gap.is_some(),
                "serialization" => self.serialization.is_some(),
                "ecn_marking" => self.ecn_marking.is_some(),
                "pause" => self.pause.is_some(),
                "control_in_buffer" => self.control_in_buffer.is_some(),
                "ecmp" => self.ecmp.is_some(),
                "ecn_random" => self.ecn_random.is_some(),
                "nic_arbiter" => self.nic_arbiter.is_some(),
                "mmu_admission" => self.mmu_admission.is_some(),
                _ => self.stop_when_done.is_some(),
            };
            let src = if set { "set in simulation.model" } else { source(p, field) };
            sources.insert(field, src.to_string());
        }
        ResolvedSimModel {
            profile: p,
            payload: self.payload.or(d.payload),
            header: self.header.or(d.header),
            ack_frame: self.ack_frame.or(d.ack_frame),
            pfc_frame: self.pfc_frame.unwrap_or(d.pfc_frame),
            preamble_and_gap: self.preamble_and_gap.unwrap_or(d.preamble_and_gap),
            serialization: self.serialization.unwrap_or(d.serialization),
            ecn_marking: self.ecn_marking.unwrap_or(d.ecn_marking),
            pause: self.pause.unwrap_or(d.pause),
            control_in_buffer: self.control_in_buffer.unwrap_or(d.control_in_buffer),
            ecmp: self.ecmp.unwrap_or(d.ecmp),
            stop_when_done: self.stop_when_done.unwrap_or(d.stop_when_done),
            ecn_random: self.ecn_random.unwrap_or(d.ecn_random),
            nic_arbiter: self.nic_arbiter.unwrap_or(d.nic_arbiter),
            mmu_admission: self.mmu_admission.unwrap_or(d.mmu_admission),
            sources,
        }
    }
}

impl ResolvedSimModel {
    /// `field`'s value as `rocelab show` prints it (`-` for a default taken from elsewhere).
    pub fn value_text(&self, field: &str) -> String {
        let size = |s: Option<Size>, none: &str| s.map(|s| s.to_string()).unwrap_or_else(|| none.to_string());
        let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_string();
        match field {
            "payload" => size(self.payload, "path MTU"),
            "header" => size(self.header, "RoCEv2"),
            "ack_frame" => size(self.ack_frame, "RoCEv2"),
            "pfc_frame" => self.pfc_frame.to_string(),
            "preamble_and_gap" => self.preamble_and_gap.to_string(),
            "serialization" => name(serde_json::to_value(self.serialization).unwrap_or_default()),
            "ecn_marking" => name(serde_json::to_value(self.ecn_marking).unwrap_or_default()),
            "pause" => name(serde_json::to_value(self.pause).unwrap_or_default()),
            "control_in_buffer" => self.control_in_buffer.to_string(),
            "ecmp" => name(serde_json::to_value(self.ecmp).unwrap_or_default()),
            "stop_when_done" => self.stop_when_done.to_string(),
            "ecn_random" => name(serde_json::to_value(self.ecn_random).unwrap_or_default()),
            "nic_arbiter" => name(serde_json::to_value(self.nic_arbiter).unwrap_or_default()),
            "mmu_admission" => name(serde_json::to_value(self.mmu_admission).unwrap_or_default()),
            _ => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_and_overrides_resolve_with_sources() {
        let hw = SimModel::default().resolve();
        assert_eq!((hw.payload, hw.header, hw.ack_frame), (None, None, None));
        assert_eq!(
            (hw.pfc_frame, hw.preamble_and_gap, hw.serialization),
            (Size::bytes(64), true, Serialization::Exact)
        );
        assert_eq!((hw.ecn_marking, hw.pause, hw.control_in_buffer), (EcnMarking::Enqueue, PauseModel::Quanta, true));
        assert_eq!((hw.ecmp, hw.stop_when_done), (EcmpHash::Rocelab, false));
        assert!(hw.sources.values().all(|s| s.starts_with("hardware profile: ")), "{:?}", hw.sources);
        assert_eq!(hw.sources.len(), SIM_MODEL_FIELDS.len());

        let m = SimModel { profile: SimProfile::HpccCompat, payload: Some(Size::bytes(4000)), ..Default::default() };
        let h = m.resolve();
        assert_eq!(
            (h.payload, h.header, h.ack_frame, h.pfc_frame),
            (Some(Size::bytes(4000)), Some(Size::bytes(48)), Some(Size::bytes(60)), Size::bytes(43))
        );
        assert_eq!(
            (h.preamble_and_gap, h.serialization, h.ecn_marking),
            (false, Serialization::TruncateNs, EcnMarking::Dequeue)
        );
        assert_eq!(
            (h.pause, h.control_in_buffer, h.ecmp, h.stop_when_done),
            (PauseModel::UntilResume, true, EcmpHash::Hpcc, true)
        );
        assert_eq!(h.sources["payload"], "set in simulation.model");
        assert!(h.sources["header"].starts_with("hpcc-compat profile: ns-3 HPCC"), "{}", h.sources["header"]);
        assert_eq!(h.value_text("pause"), "until-resume");
        assert_eq!(hw.value_text("payload"), "path MTU");
    }
}
