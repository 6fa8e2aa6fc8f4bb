//! Storage sessions over TCP: the TCP protocols (iSCSI, NVMe/TCP, SMB 3, NFS over TCP) write
//! their PDUs on the session's connection, and the RDMA protocols over iWARP post their SENDs,
//! RDMA WRITEs and READs on it ([`Sim::iwarp_post`]).
//!
//! **Connections.** A session over TCP or iWARP is one TCP connection, opened by the initiator
//! (side 0) to the protocol's service port at the target (side 1), bound to the session's
//! paths at both ends (the ports a session over RoCE would take, [`crate::sim::storage::build`]).
//! The host stacks' storage initiators and targets set `TCP_NODELAY` on their sockets (Linux
//! `iscsi_sw_tcp_conn_bind`, `nvme_tcp_alloc_queue`, `nvmet_tcp_set_queue_sock`, SunRPC's
//! `xs_tcp_finish_connecting`): a PDU goes out at once, not behind Nagle's algorithm. Their
//! ACKs are the host stack's (delayed). iWARP connections are the adapter's: no Nagle, every
//! segment acknowledged at once, as for flows over iWARP (`tcp/iwarp.rs`).
//!
//! **Messages.** Each PDU of a transfer is one write tagged with its IO and step
//! ([`crate::sim::storage::encode`]); the last PDU of the step carries [`ID_LAST`], and the step is
//! done when that PDU is in order at the peer's application ([`Sim::tcp_app_delivered`]). Over
//! iWARP, a SEND or WRITE is done when its last message has arrived whole
//! ([`Sim::iwarp_received`]), an RDMA READ at its completion at the poster
//! ([`Sim::iwarp_completed`]); an SMB Direct SEND returns its credit when it arrives.

use crate::event::Event;
use crate::observer::Observer;
use crate::rng::mix64;
use crate::sim::storage::build::session_port_pair;
use crate::sim::storage::{decode, ID_CREDIT, ID_LAST, ID_READ};
use crate::sim::tcp::{TcpApp, TcpOpen};
use crate::sim::Sim;
use crate::storage::plan::{StorageTraffic, StorageTransport, ROLE_TO_INITIATOR, ROLE_TO_TARGET};
use crate::storage::protocol::ProtocolKind;
use crate::time::Time;
use crate::SimError;

/// The TCP port a target listens on for `kind` over `transport`:
/// * iSCSI and iSER: 3260, IANA's `iscsi-target` (RFC 7143 §13.2: "the well-known TCP port
///   number for iSCSI connections assigned by IANA is 3260"; iSER portals keep it, as the
///   Demartek guide's `10.0.8.252:3260[iser]` shows);
/// * NVMe/TCP and NVMe/RDMA over iWARP: 4420, IANA's NVMe-oF port for I/O controllers (NVMe/TCP
///   Transport Specification 1.0, "port 4420");
/// * SMB 3 over TCP: 445, the Direct TCP transport ([MS-SMB2] §2.1);
/// * SMB Direct over iWARP: 5445 ([MS-SMBD] §1.9);
/// * NFS over TCP: 2049 (RFC 1813 and RFC 7530 §3.1); NFS/RDMA: 20049 (RFC 8267, and the
///   Demartek guide's `echo rdma 20049 > /proc/fs/nfsd/portlist`).
pub(crate) fn service_port(kind: ProtocolKind) -> u16 {
    match kind {
        ProtocolKind::Iscsi | ProtocolKind::Iser => 3260,
        ProtocolKind::NvmeTcp | ProtocolKind::NvmeRdma => 4420,
        ProtocolKind::Smb => 445,
        ProtocolKind::SmbDirect => 5445,
        ProtocolKind::NfsTcp => 2049,
        ProtocolKind::NfsRdma => 20049,
    }
}

impl<O: Observer> Sim<'_, O> {
    /// Open the TCP connection of every session over TCP or iWARP.
    pub(in crate::sim) fn open_storage_conns(&mut self, st: &StorageTraffic) -> Result<(), SimError> {
        for (k, s) in st.sessions.iter().enumerate() {
            if s.initiator == s.target {
                // A local job's session: no network.
                continue;
            }
            let iwarp = match s.transport {
                StorageTransport::Roce => continue,
                StorageTransport::Tcp => false,
                StorageTransport::Iwarp => true,
            };
            // An ephemeral port per session in the private range (each session a connection of
            // its own, hashed apart by ECMP).
            let ephemeral = 0xC000 | (mix64(k as u64 ^ 0x5354_4f52_5443_5000) & 0x3FFF) as u16;
            let open = TcpOpen {
                class: s.class,
                ports: [ephemeral, service_port(s.protocol)],
                cc: None,
                nodelay: true,
                window: None,
                quick_ack: iwarp,
            };
            // The session's ports, as its queue pairs would take over RoCE.
            let pinned = session_port_pair(st, k as u32, &self.routes, &self.ports);
            let c = self
                .open_tcp_on(s.initiator, s.target, &open, pinned)
                .map_err(|m| SimError::traffic(format!("storage.sessions[{k}]"), m))?;
            self.tcp[c as usize].app = TcpApp::Storage { session: k as u32 };
            self.storage.sessions[k].conn = c;
        }
        Ok(())
    }

    /// Hand the observer the BHS of PDU `k` of iSCSI step `step` of IO `io`, about to be
    /// written by `side` on connection `conn` (only when it asks: captures). The run's part of
    /// the header: Initiator Task Tag `(io slot + 1) << 8 | command` (unique among the
    /// session's tasks in flight), the R2Ts' Target Transfer Tag its complement (one R2T
    /// outstanding per task), CmdSN and StatSN counted per session from 1, ExpCmdSN the next
    /// CmdSN and MaxCmdSN 63 beyond it (a command window of 64: the Linux iSCSI target's
    /// `default_cmdsn_depth`, `TA_DEFAULT_CMDSN_DEPTH` in `iscsi_target_core.h`, 64 in current
    /// kernels, 16 in older ones), ExpStatSN the next StatSN. ExpCmdSN and ExpStatSN are the
    /// senders' counters when the PDU is written, not what has arrived: the model does not
    /// track acknowledgement of numbers.
    pub(in crate::sim) fn observe_iscsi_pdu(&mut self, io: u32, step: u16, k: usize, conn: u32, side: u32) {
        use crate::storage::protocol::iscsi_pdu::{BhsContext, PduKind};
        let st = &mut self.storage;
        let slot = &st.ios[io as usize];
        let clone = &st.clones[slot.clone as usize];
        let (op, offset) = (slot.req.op, slot.req.offset);
        let pdu = st.jobs[clone.job as usize].plans[op as usize].iscsi[step as usize][k];
        let sn = &mut st.sessions[clone.session as usize].iscsi_sn;
        let itt = (io.wrapping_add(1) << 8) | (pdu.command as u32 & 0xFF);
        let c = BhsContext {
            op: Some(op),
            io_offset: offset,
            itt,
            ttt: !itt,
            cmd_sn: sn[0],
            exp_stat_sn: sn[1],
            stat_sn: sn[1],
            exp_cmd_sn: sn[0],
            max_cmd_sn: sn[0].wrapping_add(63),
        };
        match pdu.kind {
            PduKind::Command => sn[0] = sn[0].wrapping_add(1),
            PduKind::Response => sn[1] = sn[1].wrapping_add(1),
            PduKind::DataIn if pdu.status => sn[1] = sn[1].wrapping_add(1),
            _ => {}
        }
        let bhs = pdu.bhs(&c);
        let t = &self.tcp[conn as usize];
        let seq = t.isn[side as usize].wrapping_add(t.ep[side as usize].written() as u32);
        self.obs.on_stream_header(conn, side, seq, &bhs);
    }

    /// A storage message (a PDU, or an iWARP SEND or WRITE) named `id` of session `session`
    /// arrived whole at side `side` at `at`.
    pub(in crate::sim) fn storage_message_in(&mut self, session: u32, side: u32, id: u64, at: Time) {
        if id & ID_CREDIT != 0 {
            // The receiver consumed an SMB Direct SEND of the other side: its credit returns.
            let role = if side == 1 { ROLE_TO_TARGET } else { ROLE_TO_INITIATOR };
            self.grant_credit(session as usize, role);
        }
        if id & ID_LAST != 0 {
            let (io, step) = decode(id);
            self.queue.push(at.max(self.now), Event::StepDone { io, step });
        }
    }

    /// An iWARP operation named `id` of a storage session completed at its poster at `at`:
    /// an RDMA READ ends its step (SENDs and WRITEs end at their arrival).
    pub(in crate::sim) fn storage_iwarp_completed(&mut self, id: u64, at: Time) {
        if id & ID_READ != 0 {
            let (io, step) = decode(id);
            self.queue.push(at.max(self.now), Event::StepDone { io, step });
        }
    }
}
