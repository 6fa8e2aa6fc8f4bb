//! iSCSI (RFC 7143) over TCP and iSER (RFC 7145) over RDMA.
//!
//! **iSCSI PDUs**: a 48-byte Basic Header Segment, a 4-byte header digest when negotiated, the
//! data segment padded to a multiple of 4 bytes, a 4-byte data digest (RFC 7143, iSCSI PDU format). A write
//! sends the SCSI Command with up to FirstBurstLength bytes of *immediate data* (ImmediateData =
//! Yes, bounded by the target's MaxRecvDataSegmentLength), then — when InitialR2T = No — the
//! rest of the first burst as *unsolicited* Data-Out PDUs, then everything else only as the
//! target asks for it: each R2T solicits at most MaxBurstLength bytes, sent as Data-Out PDUs of
//! at most the target's MaxRecvDataSegmentLength. One R2T is outstanding at a time
//! (MaxOutstandingR2T = 1, the RFC default and open-iscsi's). A read returns Data-In PDUs of at
//! most the initiator's MaxRecvDataSegmentLength; the status comes in a SCSI Response, or in the
//! last Data-In when the target sets the Data-In S (status) bit, which RFC 7143 allows ("phase collapse").
//!
//! Keys and defaults (RFC 7143 §13): InitialR2T Yes, ImmediateData Yes, FirstBurstLength 65536,
//! MaxBurstLength 262144, MaxRecvDataSegmentLength 8192, digests None. [`IscsiParams::open_iscsi`]
//! gives the Linux initiator's `iscsid.conf` proposals (InitialR2T No, ImmediateData Yes,
//! FirstBurstLength 262144, MaxBurstLength 16776192, MaxRecvDataSegmentLength 262144), and
//! [`IscsiParams::negotiate`] applies the RFC's result functions to two proposals.
//!
//! **iSER**: the same session keys, but every control-type PDU travels in an RDMA SEND behind a
//! 28-byte iSER header (RFC 7145's iSER header format: flags, write STag and base offset, read
//! STag and base offset; Linux `struct iser_ctrl`), immediate and unsolicited data ride in those
//! SENDs (bounded by the iSER key TargetRecvDataSegmentLength, default 8192), solicited write
//! data is pulled by the target with RDMA READ and read data pushed with RDMA WRITE — no R2T or
//! Data-In PDUs cross the wire — and the SCSI Response always ends the command. Digests are not
//! used (open-iscsi: "header digests not supported in iser"). Linux's iSER initiator issues at
//! most 512 KiB per command (`max_sectors` 1024); set `max_command_bytes` to match.

use super::{pad4, After, Exchange, Medium, Side};
use crate::storage::job::IoOp;

/// Basic Header Segment.
pub const BHS: u32 = 48;
/// Header or data digest (CRC32C).
pub const DIGEST: u32 = 4;
/// iSER header of control-type messages (RFC 7145).
pub const ISER_HEADER: u32 = 28;

/// Negotiated iSCSI session and connection parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IscsiParams {
    /// InitialR2T: no unsolicited Data-Out beyond immediate data.
    pub initial_r2t: bool,
    /// ImmediateData: data may follow the SCSI Command in its PDU.
    pub immediate_data: bool,
    /// FirstBurstLength: unsolicited data (immediate included) per command.
    pub first_burst_length: u32,
    /// MaxBurstLength: data per R2T (and per Data-In sequence).
    pub max_burst_length: u32,
    /// The target's MaxRecvDataSegmentLength (iSER: TargetRecvDataSegmentLength): the largest
    /// data segment of PDUs sent to the target.
    pub target_recv_data_segment_length: u32,
    /// The initiator's MaxRecvDataSegmentLength (iSER: InitiatorRecvDataSegmentLength).
    pub initiator_recv_data_segment_length: u32,
    /// HeaderDigest = CRC32C.
    pub header_digest: bool,
    /// DataDigest = CRC32C.
    pub data_digest: bool,
    /// The target puts GOOD status in the last Data-In (S bit) instead of a SCSI Response.
    pub status_in_data_in: bool,
    /// Largest SCSI command the initiator issues (the block layer's `max_sectors_kb`); larger
    /// IOs are split. Default 1 MiB. The Dell EqualLogic paper found 16 KiB with Broadcom
    /// iSCSI offload against 256 KiB in software — set it to model that.
    pub max_command_bytes: u32,
}

impl IscsiParams {
    /// RFC 7143 §13 defaults (what a session gets when neither side proposes otherwise).
    pub fn rfc7143() -> Self {
        IscsiParams {
            initial_r2t: true,
            immediate_data: true,
            first_burst_length: 65_536,
            max_burst_length: 262_144,
            target_recv_data_segment_length: 8192,
            initiator_recv_data_segment_length: 8192,
            header_digest: false,
            data_digest: false,
            status_in_data_in: true,
            max_command_bytes: 1 << 20,
        }
    }

    /// open-iscsi's `iscsid.conf` defaults (`node.session.iscsi.*`, `node.conn[0].iscsi.*`).
    pub fn open_iscsi() -> Self {
        IscsiParams {
            initial_r2t: false,
            immediate_data: true,
            first_burst_length: 262_144,
            max_burst_length: 16_776_192,
            initiator_recv_data_segment_length: 262_144,
            ..Self::rfc7143()
        }
    }

    /// The session an `initiator` proposal and a `target` proposal agree on (RFC 7143 §13:
    /// InitialR2T is OR-ed, ImmediateData AND-ed, the burst lengths take the minimum;
    /// MaxRecvDataSegmentLength is declarative, each side's own).
    pub fn negotiate(initiator: &IscsiParams, target: &IscsiParams) -> IscsiParams {
        IscsiParams {
            initial_r2t: initiator.initial_r2t || target.initial_r2t,
            immediate_data: initiator.immediate_data && target.immediate_data,
            first_burst_length: initiator.first_burst_length.min(target.first_burst_length),
            max_burst_length: initiator.max_burst_length.min(target.max_burst_length),
            target_recv_data_segment_length: target.target_recv_data_segment_length,
            initiator_recv_data_segment_length: initiator.initiator_recv_data_segment_length,
            header_digest: initiator.header_digest && target.header_digest,
            data_digest: initiator.data_digest && target.data_digest,
            status_in_data_in: target.status_in_data_in,
            max_command_bytes: initiator.max_command_bytes,
        }
    }

    fn hd(&self) -> u32 {
        if self.header_digest {
            DIGEST
        } else {
            0
        }
    }

    /// Header bytes (BHS, digests, padding) of one PDU with `data` bytes of data segment.
    fn pdu_overhead(&self, data: u32) -> u32 {
        BHS + self.hd() + (pad4(data) - data) + if self.data_digest && data > 0 { DIGEST } else { 0 }
    }

    /// PDUs and their overhead for `total` bytes cut into segments of at most `max`.
    fn data_pdus(&self, total: u32, max: u32) -> (u32, u32) {
        let max = max.max(1);
        let full = total / max;
        let rest = total % max;
        let count = full + u32::from(rest > 0);
        (count, full * self.pdu_overhead(max) + if rest > 0 { self.pdu_overhead(rest) } else { 0 })
    }

    /// Immediate and unsolicited (non-immediate) bytes of a write of `bytes`.
    fn unsolicited(&self, bytes: u32, segment: u32) -> (u32, u32) {
        let first = bytes.min(self.first_burst_length);
        let immediate = if self.immediate_data { first.min(segment) } else { 0 };
        let unsolicited = if self.initial_r2t { 0 } else { first - immediate };
        (immediate, unsolicited)
    }
}

/// The iSCSI exchange of one command.
pub(super) fn iscsi_command(p: &IscsiParams, op: IoOp, bytes: u32, x: &mut Exchange) {
    let (i, t, s) = (Side::Initiator, Side::Target, Medium::Stream);
    let status = BHS + p.hd();
    match op {
        IoOp::Read => {
            let cmd = x.transfer(After::Issue, "SCSI Command", i, s, 1, status, 0);
            let done = x.service(cmd);
            let (n, hdr) = p.data_pdus(bytes, p.initiator_recv_data_segment_length);
            let data = x.transfer(done, "Data-In", t, s, n, hdr, bytes);
            if !p.status_in_data_in {
                x.transfer(data, "SCSI Response", t, s, 1, status, 0);
            }
        }
        IoOp::Write => {
            let seg = p.target_recv_data_segment_length;
            let (imm, unsol) = p.unsolicited(bytes, seg);
            let cmd = x.transfer(After::Issue, "SCSI Command", i, s, 1, p.pdu_overhead(imm), imm);
            let mut last = cmd;
            if unsol > 0 {
                let (n, hdr) = p.data_pdus(unsol, seg);
                last = x.transfer(cmd, "Data-Out (unsolicited)", i, s, n, hdr, unsol);
            }
            let mut sent = imm + unsol;
            let mut r2t_after = cmd;
            while sent < bytes {
                let burst = (bytes - sent).min(p.max_burst_length.max(1));
                let r2t = x.transfer(r2t_after, "R2T", t, s, 1, status, 0);
                let (n, hdr) = p.data_pdus(burst, seg);
                last = x.transfer(r2t, "Data-Out", i, s, n, hdr, burst);
                r2t_after = last;
                sent += burst;
            }
            let done = x.service(last);
            x.transfer(done, "SCSI Response", t, s, 1, status, 0);
        }
    }
}

/// The iSER exchange of one command.
pub(super) fn iser_command(p: &IscsiParams, op: IoOp, bytes: u32, x: &mut Exchange) {
    let (i, t) = (Side::Initiator, Side::Target);
    let ctrl = ISER_HEADER + BHS;
    match op {
        IoOp::Read => {
            let cmd = x.transfer(After::Issue, "SCSI Command", i, Medium::Send, 1, ctrl, 0);
            let done = x.service(cmd);
            let data = x.transfer(done, "Data", t, Medium::RdmaWrite, 1, 0, bytes);
            x.transfer(data, "SCSI Response", t, Medium::Send, 1, ctrl, 0);
        }
        IoOp::Write => {
            let seg = p.target_recv_data_segment_length.max(1);
            let (imm, unsol) = p.unsolicited(bytes, seg);
            let cmd = x.transfer(After::Issue, "SCSI Command", i, Medium::Send, 1, ctrl, imm);
            let mut last = cmd;
            if unsol > 0 {
                let n = unsol.div_ceil(seg);
                last = x.transfer(cmd, "Data-Out (unsolicited)", i, Medium::Send, n, n * ctrl, unsol);
            }
            let solicited = bytes - imm - unsol;
            if solicited > 0 {
                last = x.transfer(last, "Data", i, Medium::RdmaRead, 1, 0, solicited);
            }
            let done = x.service(last);
            x.transfer(done, "SCSI Response", t, Medium::Send, 1, ctrl, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{steps, Exchange, Protocol};
    use super::*;

    #[test]
    fn iscsi_rfc_defaults_4k_and_512k() {
        let p = Protocol::Iscsi(IscsiParams::rfc7143());
        // Read: Data-In with status (S bit).
        assert_eq!(steps(p, IoOp::Read, 4096), ["SCSI Command I>T tcp 48+0", "service", "Data-In T>I tcp 48+4096"]);
        // Write: 4 KiB fits as immediate data.
        assert_eq!(
            steps(p, IoOp::Write, 4096),
            ["SCSI Command I>T tcp 48+4096", "service", "SCSI Response T>I tcp 48+0"]
        );
        // 512 KiB read: 64 Data-In PDUs of 8192 (the initiator's MaxRecvDataSegmentLength).
        assert_eq!(
            steps(p, IoOp::Read, 524_288),
            ["SCSI Command I>T tcp 48+0", "service", "64x Data-In T>I tcp 3072+524288"]
        );
        // 512 KiB write: 8 KiB immediate, then R2Ts of at most MaxBurstLength (256 KiB), one at
        // a time, each answered by Data-Out PDUs of 8 KiB.
        assert_eq!(
            steps(p, IoOp::Write, 524_288),
            [
                "SCSI Command I>T tcp 48+8192",
                "R2T T>I tcp 48+0",
                "32x Data-Out I>T tcp 1536+262144",
                "R2T T>I tcp 48+0",
                "31x Data-Out I>T tcp 1488+253952",
                "service",
                "SCSI Response T>I tcp 48+0",
            ]
        );
        let mut x = Exchange::new();
        p.exchange(IoOp::Write, 524_288, &mut x);
        // The second R2T waits for the first burst (MaxOutstandingR2T = 1).
        assert_eq!(x.steps()[3].after, After::Step(2));
    }

    #[test]
    fn iscsi_open_iscsi_against_an_rfc_default_target() {
        let s = IscsiParams::negotiate(&IscsiParams::open_iscsi(), &IscsiParams::rfc7143());
        assert!(s.initial_r2t, "OR: the target's Yes wins");
        assert_eq!((s.first_burst_length, s.max_burst_length), (65_536, 262_144));
        assert_eq!(s.initiator_recv_data_segment_length, 262_144);
        let p = Protocol::Iscsi(s);
        assert_eq!(steps(p, IoOp::Read, 524_288)[2], "2x Data-In T>I tcp 96+524288");
        // A target that also says InitialR2T=No: the first burst goes unsolicited.
        let t = IscsiParams { initial_r2t: false, ..IscsiParams::rfc7143() };
        let p = Protocol::Iscsi(IscsiParams::negotiate(&IscsiParams::open_iscsi(), &t));
        assert_eq!(
            steps(p, IoOp::Write, 524_288),
            [
                "SCSI Command I>T tcp 48+8192",
                "7x Data-Out (unsolicited) I>T tcp 336+57344",
                "R2T T>I tcp 48+0",
                "32x Data-Out I>T tcp 1536+262144",
                "R2T T>I tcp 48+0",
                "24x Data-Out I>T tcp 1152+196608",
                "service",
                "SCSI Response T>I tcp 48+0",
            ]
        );
    }

    #[test]
    fn iscsi_digests_and_padding() {
        let p =
            IscsiParams { header_digest: true, data_digest: true, status_in_data_in: false, ..IscsiParams::rfc7143() };
        let p = Protocol::Iscsi(p);
        // 1001 bytes: padded to 1004, plus both digests.
        assert_eq!(steps(p, IoOp::Write, 1001)[0], "SCSI Command I>T tcp 59+1001");
        assert_eq!(
            steps(p, IoOp::Read, 4096),
            ["SCSI Command I>T tcp 52+0", "service", "Data-In T>I tcp 56+4096", "SCSI Response T>I tcp 52+0"]
        );
    }

    #[test]
    fn iser_4k_and_512k() {
        let p = Protocol::Iser(IscsiParams::rfc7143());
        assert_eq!(
            steps(p, IoOp::Read, 4096),
            ["SCSI Command I>T send 76+0", "service", "Data T>I rdma-write 0+4096", "SCSI Response T>I send 76+0"]
        );
        assert_eq!(
            steps(p, IoOp::Write, 4096),
            ["SCSI Command I>T send 76+4096", "service", "SCSI Response T>I send 76+0"]
        );
        assert_eq!(
            steps(p, IoOp::Read, 524_288),
            ["SCSI Command I>T send 76+0", "service", "Data T>I rdma-write 0+524288", "SCSI Response T>I send 76+0"]
        );
        assert_eq!(
            steps(p, IoOp::Write, 524_288),
            ["SCSI Command I>T send 76+8192", "Data I>T rdma-read 0+516096", "service", "SCSI Response T>I send 76+0"]
        );
        let unsol = IscsiParams { initial_r2t: false, ..IscsiParams::rfc7143() };
        assert_eq!(
            steps(Protocol::Iser(unsol), IoOp::Write, 524_288)[1],
            "7x Data-Out (unsolicited) I>T send 532+57344"
        );
    }
}
