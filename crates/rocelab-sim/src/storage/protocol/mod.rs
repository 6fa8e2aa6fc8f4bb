//! Storage protocols as exchanges on the wire, independent of the transport that carries them.
//!
//! For one IO (read or write of `bytes`), a protocol writes into an [`Exchange`] the ordered
//! steps the IO takes: each message or data movement ([`Transfer`]: who sends, whether it is an
//! RDMA SEND, RDMA READ, RDMA WRITE or bytes on a TCP stream, how many PDUs, how many header
//! and data bytes) and the target's own work ([`StepKind::Service`]), each waiting on one
//! earlier step ([`After`]). The simulator's engine maps the transfers onto RDMA queue pairs
//! or TCP connections; the IO completes when every step has.
//!
//! Header bytes are the upper-layer protocol's own (NVMe capsules and PDU headers, iSCSI BHS,
//! iSER, SMB2 and SMB Direct, RPC and RPC-over-RDMA headers); Ethernet/IP/TCP/UDP/BTH framing
//! is the transport's. Each protocol's module names the specification and the implementation
//! defaults it follows.
//!
//! Exchanges are written into a caller-owned buffer, so steady-state generation allocates
//! nothing.

pub mod iscsi;
pub mod iscsi_pdu;
pub mod iwarp;
pub mod nfs;
pub mod nvme;
pub mod smb;

use super::job::IoOp;
use serde::{Deserialize, Serialize};

/// The two ends of a storage session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Host / client.
    Initiator,
    /// Controller / array / server.
    Target,
}

impl Side {
    /// The other side.
    pub fn peer(self) -> Side {
        match self {
            Side::Initiator => Side::Target,
            Side::Target => Side::Initiator,
        }
    }
}

/// How the bytes of a transfer move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Medium {
    /// RDMA SEND into a receive buffer the peer posted (one message each).
    Send,
    /// RDMA READ: posted by the side that receives the data; the data comes from `from`.
    RdmaRead,
    /// RDMA WRITE: posted by `from`, placed straight into the peer's registered memory.
    RdmaWrite,
    /// Bytes on the session's TCP connection, in order after what `from` sent before.
    Stream,
}

/// A step waits for the completion of an earlier one, or starts when the IO is issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum After {
    /// Starts when the IO is issued.
    Issue,
    /// Starts when step `i` of the exchange is complete (the message fully received; the
    /// service finished).
    Step(u16),
}

/// One message or data movement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// What it is, in the specification's words (`CapsuleCmd`, `R2T`, `Data-Out`, …).
    pub pdu: &'static str,
    /// The side the bytes leave.
    pub from: Side,
    /// SEND, RDMA READ/WRITE or TCP stream.
    pub medium: Medium,
    /// PDUs or SEND messages in this transfer (a run of the same PDU back to back); 1 for an
    /// RDMA READ or WRITE (the transport segments it by path MTU).
    pub messages: u32,
    /// Protocol header bytes, all messages together.
    pub header_bytes: u32,
    /// User data bytes.
    pub data_bytes: u32,
}

impl Transfer {
    /// Header and data bytes.
    pub fn bytes(&self) -> u64 {
        self.header_bytes as u64 + self.data_bytes as u64
    }
}

/// What a step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// Bytes move between the sides.
    Transfer(Transfer),
    /// The target performs the IO on its media (the target model's service time).
    Service,
}

/// One step and what it waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The step.
    pub kind: StepKind,
    /// Its dependency.
    pub after: After,
}

/// The steps of one IO, reused from IO to IO.
#[derive(Clone, Debug, Default)]
pub struct Exchange {
    steps: Vec<Step>,
}

/// Byte and message totals of an exchange, per direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Messages (PDUs, SENDs, RDMA operations) from the initiator.
    pub messages_to_target: u32,
    /// Messages from the target.
    pub messages_to_initiator: u32,
    /// Header bytes initiator → target.
    pub header_to_target: u64,
    /// Header bytes target → initiator.
    pub header_to_initiator: u64,
    /// Data bytes initiator → target.
    pub data_to_target: u64,
    /// Data bytes target → initiator.
    pub data_to_initiator: u64,
}

impl Exchange {
    /// An empty exchange.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forget the previous IO's steps (keeps the allocation).
    pub fn clear(&mut self) {
        self.steps.clear();
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    fn push(&mut self, after: After, kind: StepKind) -> After {
        self.steps.push(Step { kind, after });
        After::Step((self.steps.len() - 1) as u16)
    }

    /// Append a transfer; returns the dependency "after this one".
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn transfer(
        &mut self,
        after: After,
        pdu: &'static str,
        from: Side,
        medium: Medium,
        messages: u32,
        header_bytes: u32,
        data_bytes: u32,
    ) -> After {
        self.push(after, StepKind::Transfer(Transfer { pdu, from, medium, messages, header_bytes, data_bytes }))
    }

    /// Append the target's service.
    pub(crate) fn service(&mut self, after: After) -> After {
        self.push(after, StepKind::Service)
    }

    /// The transfers, in order.
    pub fn transfers(&self) -> impl Iterator<Item = &Transfer> {
        self.steps.iter().filter_map(|s| match &s.kind {
            StepKind::Transfer(t) => Some(t),
            StepKind::Service => None,
        })
    }

    /// Totals per direction.
    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for x in self.transfers() {
            match x.from {
                Side::Initiator => {
                    t.messages_to_target += x.messages;
                    t.header_to_target += x.header_bytes as u64;
                    t.data_to_target += x.data_bytes as u64;
                }
                Side::Target => {
                    t.messages_to_initiator += x.messages;
                    t.header_to_initiator += x.header_bytes as u64;
                    t.data_to_initiator += x.data_bytes as u64;
                }
            }
        }
        t
    }

    /// A compact description for tests and traces: `PDU from→ medium h+d` per transfer,
    /// `service` for the target's work.
    pub fn describe(&self) -> Vec<String> {
        self.steps
            .iter()
            .map(|s| match &s.kind {
                StepKind::Service => "service".to_string(),
                StepKind::Transfer(t) => {
                    let arrow = if t.from == Side::Initiator { "I>T" } else { "T>I" };
                    let medium = match t.medium {
                        Medium::Send => "send",
                        Medium::RdmaRead => "rdma-read",
                        Medium::RdmaWrite => "rdma-write",
                        Medium::Stream => "tcp",
                    };
                    let n = if t.messages > 1 { format!("{}x ", t.messages) } else { String::new() };
                    format!("{n}{} {arrow} {medium} {}+{}", t.pdu, t.header_bytes, t.data_bytes)
                }
            })
            .collect()
    }
}

/// The storage protocols the simulator models, in the model's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProtocolKind {
    /// NVMe over Fabrics, RDMA transport (RoCEv2 or iWARP).
    NvmeRdma,
    /// NVMe over Fabrics, TCP transport.
    NvmeTcp,
    /// iSCSI Extensions for RDMA.
    Iser,
    /// iSCSI over TCP.
    Iscsi,
    /// SMB 3 over SMB Direct (RDMA).
    SmbDirect,
    /// SMB 3 over TCP.
    Smb,
    /// NFS over RPC-over-RDMA.
    NfsRdma,
    /// NFS over TCP.
    NfsTcp,
}

impl ProtocolKind {
    /// Whether the protocol runs over RDMA (else over a TCP connection).
    pub fn is_rdma(self) -> bool {
        matches!(self, ProtocolKind::NvmeRdma | ProtocolKind::Iser | ProtocolKind::SmbDirect | ProtocolKind::NfsRdma)
    }
}

/// A configured protocol: the parameters its session negotiated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Protocol {
    /// NVMe/RDMA.
    NvmeRdma(nvme::NvmeRdma),
    /// NVMe/TCP.
    NvmeTcp(nvme::NvmeTcp),
    /// iSCSI.
    Iscsi(iscsi::IscsiParams),
    /// iSER.
    Iser(iscsi::IscsiParams),
    /// SMB Direct.
    SmbDirect(smb::SmbDirect),
    /// SMB over TCP.
    Smb(smb::SmbTcp),
    /// NFS over RDMA.
    NfsRdma(nfs::NfsRdma),
    /// NFS over TCP.
    NfsTcp(nfs::NfsTcp),
}

/// The session parameters a Linux or Windows host negotiates for `kind` with a target that
/// keeps its protocol's defaults: iSCSI and iSER between open-iscsi's proposals
/// ([`IscsiParams::open_iscsi`](iscsi::IscsiParams::open_iscsi)) and an RFC 7143 target, the
/// others their modules' defaults.
pub fn negotiated(kind: ProtocolKind) -> Protocol {
    use iscsi::IscsiParams;
    let iscsi = || IscsiParams::negotiate(&IscsiParams::open_iscsi(), &IscsiParams::rfc7143());
    match kind {
        ProtocolKind::Iscsi => Protocol::Iscsi(iscsi()),
        ProtocolKind::Iser => Protocol::Iser(iscsi()),
        k => Protocol::default_for(k),
    }
}

impl Protocol {
    /// `kind` with the defaults its module documents.
    pub fn default_for(kind: ProtocolKind) -> Self {
        match kind {
            ProtocolKind::NvmeRdma => Protocol::NvmeRdma(nvme::NvmeRdma::default()),
            ProtocolKind::NvmeTcp => Protocol::NvmeTcp(nvme::NvmeTcp::default()),
            ProtocolKind::Iscsi => Protocol::Iscsi(iscsi::IscsiParams::rfc7143()),
            ProtocolKind::Iser => Protocol::Iser(iscsi::IscsiParams::rfc7143()),
            ProtocolKind::SmbDirect => Protocol::SmbDirect(smb::SmbDirect::default()),
            ProtocolKind::Smb => Protocol::Smb(smb::SmbTcp::default()),
            ProtocolKind::NfsRdma => Protocol::NfsRdma(nfs::NfsRdma::default()),
            ProtocolKind::NfsTcp => Protocol::NfsTcp(nfs::NfsTcp::default()),
        }
    }

    /// Which protocol this is.
    pub fn kind(&self) -> ProtocolKind {
        match self {
            Protocol::NvmeRdma(_) => ProtocolKind::NvmeRdma,
            Protocol::NvmeTcp(_) => ProtocolKind::NvmeTcp,
            Protocol::Iscsi(_) => ProtocolKind::Iscsi,
            Protocol::Iser(_) => ProtocolKind::Iser,
            Protocol::SmbDirect(_) => ProtocolKind::SmbDirect,
            Protocol::Smb(_) => ProtocolKind::Smb,
            Protocol::NfsRdma(_) => ProtocolKind::NfsRdma,
            Protocol::NfsTcp(_) => ProtocolKind::NfsTcp,
        }
    }

    /// Largest IO one command carries (NVMe MDTS, SMB2 MaxRead/WriteSize, NFS rsize/wsize);
    /// larger IOs are split into commands issued together, as the host's block layer or
    /// client does.
    pub fn max_command_bytes(&self) -> u32 {
        match self {
            Protocol::NvmeRdma(p) => p.max_transfer,
            Protocol::NvmeTcp(p) => p.max_transfer,
            Protocol::Iscsi(p) | Protocol::Iser(p) => p.max_command_bytes,
            Protocol::SmbDirect(p) => p.max_read_write_size,
            Protocol::Smb(p) => p.max_read_write_size,
            Protocol::NfsRdma(p) => p.nfs.max_io,
            Protocol::NfsTcp(p) => p.nfs.max_io,
        }
    }

    /// Write the exchange of one IO into `out` (cleared first).
    pub fn exchange(&self, op: IoOp, bytes: u32, out: &mut Exchange) {
        out.clear();
        let max = self.max_command_bytes().max(1);
        let mut left = bytes;
        loop {
            let n = left.min(max);
            self.command(op, n, out);
            left -= n;
            if left == 0 {
                break;
            }
        }
    }

    fn command(&self, op: IoOp, bytes: u32, out: &mut Exchange) {
        match self {
            Protocol::NvmeRdma(p) => p.command(op, bytes, out),
            Protocol::NvmeTcp(p) => p.command(op, bytes, out),
            Protocol::Iscsi(p) => iscsi::iscsi_command(p, op, bytes, out),
            Protocol::Iser(p) => iscsi::iser_command(p, op, bytes, out),
            Protocol::SmbDirect(p) => p.command(op, bytes, out),
            Protocol::Smb(p) => p.command(op, bytes, out),
            Protocol::NfsRdma(p) => p.command(op, bytes, out),
            Protocol::NfsTcp(p) => p.command(op, bytes, out),
        }
    }
}

/// `n` rounded up to a multiple of 4 (iSCSI, XDR and NVMe/TCP padding).
pub(crate) fn pad4(n: u32) -> u32 {
    n.div_ceil(4) * 4
}

/// The steps of `p`'s exchange for one `op` of `bytes`, as [`Exchange::describe`] writes them:
/// what the protocols' tests compare.
#[cfg(test)]
pub(crate) fn steps(p: Protocol, op: crate::storage::job::IoOp, bytes: u32) -> Vec<String> {
    let mut x = Exchange::new();
    p.exchange(op, bytes, &mut x);
    x.describe()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_ios_split_into_parallel_commands() {
        let p = Protocol::NvmeRdma(nvme::NvmeRdma { max_transfer: 128 * 1024, ..Default::default() });
        let mut x = Exchange::new();
        p.exchange(IoOp::Read, 512 * 1024, &mut x);
        let cmds: Vec<&Step> = x
            .steps()
            .iter()
            .filter(|s| matches!(s.kind, StepKind::Transfer(t) if t.pdu == "Command capsule"))
            .collect();
        assert_eq!(cmds.len(), 4);
        assert!(cmds.iter().all(|s| s.after == After::Issue), "issued together");
        assert_eq!(x.totals().data_to_initiator, 512 * 1024);
        // Reuse keeps nothing of the previous IO.
        p.exchange(IoOp::Write, 4096, &mut x);
        assert_eq!(x.totals().data_to_target, 4096);
    }

    #[test]
    fn every_dependency_points_backwards() {
        let mut x = Exchange::new();
        for kind in [
            ProtocolKind::NvmeRdma,
            ProtocolKind::NvmeTcp,
            ProtocolKind::Iscsi,
            ProtocolKind::Iser,
            ProtocolKind::SmbDirect,
            ProtocolKind::Smb,
            ProtocolKind::NfsRdma,
            ProtocolKind::NfsTcp,
        ] {
            let p = Protocol::default_for(kind);
            assert_eq!(p.kind(), kind);
            for op in [IoOp::Read, IoOp::Write] {
                for bytes in [512, 4096, 65_536, 512 * 1024, 4 << 20] {
                    p.exchange(op, bytes, &mut x);
                    for (i, s) in x.steps().iter().enumerate() {
                        if let After::Step(j) = s.after {
                            assert!((j as usize) < i, "{kind:?} {op:?} {bytes}: step {i} waits on {j}");
                        }
                    }
                    let t = x.totals();
                    let (to_t, to_i) = (t.data_to_target, t.data_to_initiator);
                    match op {
                        IoOp::Read => assert_eq!((to_t, to_i), (0, bytes as u64), "{kind:?}"),
                        IoOp::Write => assert_eq!((to_t, to_i), (bytes as u64, 0), "{kind:?}"),
                    }
                    let services = x.steps().iter().filter(|s| s.kind == StepKind::Service).count() as u32;
                    assert_eq!(services, bytes.div_ceil(p.max_command_bytes()), "one service per command");
                }
            }
        }
    }
}
