//! The iSCSI PDUs of an exchange one by one, and their Basic Header Segments as on the wire
//! (RFC 7143 §11), for packet captures.
//!
//! [`pdu_layouts`] cuts each TCP-stream transfer of an iSCSI exchange into its PDUs: the data
//! segment of each (at most the receiver's MaxRecvDataSegmentLength), its BufferOffset, DataSN,
//! R2TSN and the F and S bits — what the exchange fixes. The engine writes each PDU on the
//! stream with exactly these lengths, and, only when an observer asks for them, adds what the
//! run fixes ([`BhsContext`]: Initiator Task Tag, CmdSN, StatSN, the IO's LBA) and hands the
//! 48 bytes of [`IscsiPdu::bhs`] to the observer.
//!
//! Choices where the RFC leaves the value to the implementation:
//! * the logical block size is 512 bytes; the CDB is READ(10)/WRITE(10) (SBC-3 opcodes 0x28,
//!   0x2A), or READ(16)/WRITE(16) (0x88, 0x8A) when the LBA or the block count does not fit;
//! * task attribute Simple (1); LUN 0; Response 0x00 (command completed at target), status
//!   GOOD (0x00), no residuals;
//! * the F bit of a Data-In PDU ends each sequence of MaxBurstLength bytes and the last one;
//!   with the target's "phase collapse" the last Data-In also has the S bit and the status.

use super::iscsi::IscsiParams;
use super::{StepKind, Transfer};
use crate::storage::job::IoOp;

/// Logical block size of the CDB's LBA and transfer length.
pub const BLOCK: u64 = 512;
/// The Target Transfer Tag of unsolicited data and Data-In (RFC 7143 §11.7.4: 0xffffffff).
pub const RESERVED_TAG: u32 = 0xFFFF_FFFF;

/// The PDUs of the exchange (RFC 7143 §11.1 opcodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PduKind {
    /// SCSI Command (0x01).
    Command,
    /// SCSI Data-Out (0x05), unsolicited (Target Transfer Tag 0xffffffff) or for an R2T.
    DataOut { solicited: bool },
    /// SCSI Response (0x21).
    Response,
    /// SCSI Data-In (0x25).
    DataIn,
    /// Ready To Transfer (0x31).
    R2t,
}

impl PduKind {
    /// The opcode (byte 0, without the I bit).
    pub fn opcode(self) -> u8 {
        match self {
            PduKind::Command => 0x01,
            PduKind::DataOut { .. } => 0x05,
            PduKind::Response => 0x21,
            PduKind::DataIn => 0x25,
            PduKind::R2t => 0x31,
        }
    }

    /// The kind of a transfer of [`super::iscsi`]'s exchange, by its name.
    fn of(pdu: &str) -> Option<PduKind> {
        Some(match pdu {
            "SCSI Command" => PduKind::Command,
            "Data-Out (unsolicited)" => PduKind::DataOut { solicited: false },
            "Data-Out" => PduKind::DataOut { solicited: true },
            "SCSI Response" => PduKind::Response,
            "Data-In" => PduKind::DataIn,
            "R2T" => PduKind::R2t,
            _ => return None,
        })
    }
}

/// One PDU as the exchange fixes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IscsiPdu {
    pub kind: PduKind,
    /// Index of its SCSI command within the IO (an IO larger than the largest command is
    /// several).
    pub command: u16,
    /// The command's first byte within the IO.
    pub command_offset: u32,
    /// The command's bytes: its ExpectedDataTransferLength.
    pub command_bytes: u32,
    /// DataSegmentLength.
    pub data_segment_length: u32,
    /// BufferOffset (Data-In, Data-Out, R2T) within the command.
    pub buffer_offset: u32,
    /// DataSN: within the command for Data-In, within its sequence for Data-Out.
    pub data_sn: u32,
    /// R2TSN of an R2T; for solicited Data-Out, the R2T it answers.
    pub r2t_sn: u32,
    /// Desired Data Transfer Length of an R2T.
    pub desired_length: u32,
    /// ExpDataSN of a SCSI Response: the R2T and Data-In PDUs sent for the command.
    pub exp_data_sn: u32,
    /// The F (final) bit.
    pub final_bit: bool,
    /// The S (status) bit of a Data-In.
    pub status: bool,
    /// Bytes of the PDU on the stream: BHS, digests, data segment and its padding.
    pub len: u32,
}

/// What the run fixes of a PDU's header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BhsContext {
    /// Read or write.
    pub op: Option<IoOp>,
    /// Byte offset of the IO on the volume.
    pub io_offset: u64,
    /// Initiator Task Tag.
    pub itt: u32,
    /// Target Transfer Tag of the task's R2Ts.
    pub ttt: u32,
    /// CmdSN (SCSI Command).
    pub cmd_sn: u32,
    /// ExpStatSN (initiator's PDUs).
    pub exp_stat_sn: u32,
    /// StatSN (target's PDUs).
    pub stat_sn: u32,
    /// ExpCmdSN (target's PDUs).
    pub exp_cmd_sn: u32,
    /// MaxCmdSN (target's PDUs).
    pub max_cmd_sn: u32,
}

/// Per step of an iSCSI exchange (`steps` of [`super::Exchange`]), its PDUs in stream order;
/// empty for the target's service.
pub fn pdu_layouts(p: &IscsiParams, op: IoOp, bytes: u32, steps: &[super::Step]) -> Vec<Vec<IscsiPdu>> {
    let max_command = p.max_command_bytes.max(1);
    let hd = if p.header_digest { super::iscsi::DIGEST } else { 0 };
    let pdu_len = |data: u32| {
        super::iscsi::BHS + hd + super::pad4(data) + if p.data_digest && data > 0 { super::iscsi::DIGEST } else { 0 }
    };
    let mut out = Vec::with_capacity(steps.len());
    let (mut command, mut command_offset, mut command_bytes, mut left) = (u16::MAX, 0u32, 0u32, bytes);
    // Within the command: the next data byte to send, R2Ts sent, Data-In PDUs sent.
    let (mut next, mut r2ts, mut data_ins) = (0u32, 0u32, 0u32);
    for s in steps {
        let StepKind::Transfer(t) = s.kind else {
            out.push(Vec::new());
            continue;
        };
        let Some(kind) = PduKind::of(t.pdu) else {
            out.push(Vec::new());
            continue;
        };
        let base = IscsiPdu {
            kind,
            command,
            command_offset,
            command_bytes,
            data_segment_length: 0,
            buffer_offset: 0,
            data_sn: 0,
            r2t_sn: 0,
            desired_length: 0,
            exp_data_sn: 0,
            final_bit: true,
            status: false,
            len: pdu_len(0),
        };
        let mut v = Vec::new();
        match kind {
            PduKind::Command => {
                command = command.wrapping_add(1);
                command_offset += command_bytes;
                command_bytes = left.min(max_command);
                left -= command_bytes;
                (next, r2ts, data_ins) = (t.data_bytes, 0, 0);
                // F: no unsolicited Data-Out follows (RFC 7143 §11.3.1).
                let unsolicited =
                    op == IoOp::Write && !p.initial_r2t && t.data_bytes < command_bytes.min(p.first_burst_length);
                v.push(IscsiPdu {
                    command,
                    command_offset,
                    command_bytes,
                    data_segment_length: t.data_bytes,
                    final_bit: !unsolicited,
                    len: pdu_len(t.data_bytes),
                    ..base
                });
            }
            PduKind::DataOut { solicited } => {
                let seg = p.target_recv_data_segment_length.max(1);
                data_pdus(&t, seg, next, |k, offset, data, last| {
                    v.push(IscsiPdu {
                        data_segment_length: data,
                        buffer_offset: offset,
                        data_sn: k,
                        r2t_sn: if solicited { r2ts - 1 } else { 0 },
                        final_bit: last,
                        len: pdu_len(data),
                        ..base
                    })
                });
                next += t.data_bytes;
            }
            PduKind::R2t => {
                let desired = (command_bytes - next).min(p.max_burst_length.max(1));
                v.push(IscsiPdu { buffer_offset: next, r2t_sn: r2ts, desired_length: desired, ..base });
                r2ts += 1;
            }
            PduKind::DataIn => {
                let seg = p.initiator_recv_data_segment_length.max(1);
                let burst = p.max_burst_length.max(1);
                data_pdus(&t, seg, 0, |k, offset, data, last| {
                    let end_of_sequence = last || (offset + data) % burst == 0;
                    v.push(IscsiPdu {
                        data_segment_length: data,
                        buffer_offset: offset,
                        data_sn: k,
                        final_bit: end_of_sequence,
                        status: last && p.status_in_data_in,
                        len: pdu_len(data),
                        ..base
                    })
                });
                data_ins = t.messages;
            }
            PduKind::Response => {
                v.push(IscsiPdu { exp_data_sn: if op == IoOp::Read { data_ins } else { r2ts }, ..base });
            }
        }
        out.push(v);
    }
    out
}

/// The data PDUs of `t`: `f(k, buffer offset, data segment length, last)` for each, data cut at
/// `seg` from `offset`.
fn data_pdus(t: &Transfer, seg: u32, offset: u32, mut f: impl FnMut(u32, u32, u32, bool)) {
    let n = t.messages.max(1);
    let mut sent = 0;
    for k in 0..n {
        let data = (t.data_bytes - sent).min(seg);
        f(k, offset + sent, data, k + 1 == n);
        sent += data;
    }
}

impl IscsiPdu {
    /// The 48-byte Basic Header Segment (RFC 7143 §11.2.1, and §11.3-§11.8 for each opcode).
    pub fn bhs(&self, c: &BhsContext) -> [u8; 48] {
        let mut b = [0u8; 48];
        let put = |b: &mut [u8; 48], at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_be_bytes());
        b[0] = self.kind.opcode();
        let f = if self.final_bit { 0x80 } else { 0 };
        // TotalAHSLength 0; DataSegmentLength, 3 bytes.
        b[5..8].copy_from_slice(&self.data_segment_length.to_be_bytes()[1..]);
        put(&mut b, 16, c.itt);
        match self.kind {
            PduKind::Command => {
                // F, R, W, ATTR = Simple.
                let rw = if c.op == Some(IoOp::Write) { 0x20 } else { 0x40 };
                b[1] = f | rw | 1;
                put(&mut b, 20, self.command_bytes);
                put(&mut b, 24, c.cmd_sn);
                put(&mut b, 28, c.exp_stat_sn);
                b[32..48].copy_from_slice(&self.cdb(c));
            }
            PduKind::DataOut { solicited } => {
                b[1] = f;
                put(&mut b, 20, if solicited { c.ttt } else { RESERVED_TAG });
                put(&mut b, 28, c.exp_stat_sn);
                put(&mut b, 36, self.data_sn);
                put(&mut b, 40, self.buffer_offset);
            }
            PduKind::DataIn => {
                // F, and S with GOOD status (byte 3 stays 0) and a StatSN.
                b[1] = f | u8::from(self.status);
                put(&mut b, 20, RESERVED_TAG);
                if self.status {
                    put(&mut b, 24, c.stat_sn);
                }
                put(&mut b, 28, c.exp_cmd_sn);
                put(&mut b, 32, c.max_cmd_sn);
                put(&mut b, 36, self.data_sn);
                put(&mut b, 40, self.buffer_offset);
            }
            PduKind::R2t => {
                b[1] = 0x80;
                put(&mut b, 20, c.ttt);
                put(&mut b, 24, c.stat_sn);
                put(&mut b, 28, c.exp_cmd_sn);
                put(&mut b, 32, c.max_cmd_sn);
                put(&mut b, 36, self.r2t_sn);
                put(&mut b, 40, self.buffer_offset);
                put(&mut b, 44, self.desired_length);
            }
            PduKind::Response => {
                // Response 0x00 (completed at target), status GOOD.
                b[1] = 0x80;
                put(&mut b, 24, c.stat_sn);
                put(&mut b, 28, c.exp_cmd_sn);
                put(&mut b, 32, c.max_cmd_sn);
                put(&mut b, 36, self.exp_data_sn);
            }
        }
        b
    }

    /// The SCSI CDB of a command (SBC-3): READ/WRITE(10), or (16) when the LBA or the block
    /// count does not fit.
    pub fn cdb(&self, c: &BhsContext) -> [u8; 16] {
        let mut cdb = [0u8; 16];
        let lba = (c.io_offset + self.command_offset as u64) / BLOCK;
        let blocks = (self.command_bytes as u64).div_ceil(BLOCK);
        let write = c.op == Some(IoOp::Write);
        if lba <= u32::MAX as u64 && blocks <= u16::MAX as u64 {
            cdb[0] = if write { 0x2A } else { 0x28 };
            cdb[2..6].copy_from_slice(&(lba as u32).to_be_bytes());
            cdb[7..9].copy_from_slice(&(blocks as u16).to_be_bytes());
        } else {
            cdb[0] = if write { 0x8A } else { 0x88 };
            cdb[2..10].copy_from_slice(&lba.to_be_bytes());
            cdb[10..14].copy_from_slice(&(blocks.min(u32::MAX as u64) as u32).to_be_bytes());
        }
        cdb
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Exchange, Protocol};
    use super::*;

    fn layouts(p: IscsiParams, op: IoOp, bytes: u32) -> (Exchange, Vec<Vec<IscsiPdu>>) {
        let mut x = Exchange::new();
        Protocol::Iscsi(p).exchange(op, bytes, &mut x);
        let l = pdu_layouts(&p, op, bytes, x.steps());
        (x, l)
    }

    /// Every transfer's PDUs: as many as it has messages, their bytes its bytes.
    fn check_totals(x: &Exchange, l: &[Vec<IscsiPdu>]) {
        for (s, pdus) in x.steps().iter().zip(l) {
            if let StepKind::Transfer(t) = s.kind {
                assert_eq!(pdus.len() as u32, t.messages, "{t:?}");
                assert_eq!(pdus.iter().map(|p| p.len as u64).sum::<u64>(), t.bytes(), "{t:?}");
                assert_eq!(pdus.iter().map(|p| p.data_segment_length).sum::<u32>(), t.data_bytes, "{t:?}");
            }
        }
    }

    #[test]
    fn a_write_with_two_bursts_numbers_its_r2ts_and_offsets() {
        let p = IscsiParams::rfc7143();
        let (x, l) = layouts(p, IoOp::Write, 524_288);
        check_totals(&x, &l);
        // Command with 8 KiB immediate data, F set (InitialR2T=Yes: nothing unsolicited).
        assert_eq!((l[0][0].data_segment_length, l[0][0].final_bit), (8192, true));
        // R2T 0 at 8192 for a burst of 256 KiB, R2T 1 at 270336 for the rest.
        assert_eq!((l[1][0].r2t_sn, l[1][0].buffer_offset, l[1][0].desired_length), (0, 8192, 262_144));
        assert_eq!((l[3][0].r2t_sn, l[3][0].buffer_offset, l[3][0].desired_length), (1, 270_336, 253_952));
        // Data-Out of the second burst: DataSN from 0, offsets in 8 KiB steps, F on the last.
        let d = &l[4];
        assert_eq!((d[0].data_sn, d[0].buffer_offset, d[0].r2t_sn), (0, 270_336, 1));
        assert!(d[..30].iter().all(|p| !p.final_bit) && d[30].final_bit);
        assert_eq!(d[30].buffer_offset + d[30].data_segment_length, 524_288);
        // The response counts the R2Ts.
        assert_eq!(l[6][0].exp_data_sn, 2);
    }

    #[test]
    fn uneven_data_is_cut_at_the_segment_length_and_padded() {
        let p =
            IscsiParams { header_digest: true, data_digest: true, status_in_data_in: false, ..IscsiParams::rfc7143() };
        let (x, l) = layouts(p, IoOp::Read, 20_001);
        check_totals(&x, &l);
        let d = &l[2];
        assert_eq!(d.iter().map(|p| p.data_segment_length).collect::<Vec<_>>(), [8192, 8192, 3617]);
        // 48 + 4 header digest + 3620 padded + 4 data digest.
        assert_eq!(d[2].len, 48 + 4 + 3620 + 4);
        assert!(!d[2].status && d[2].final_bit);
        assert_eq!(l[3][0].exp_data_sn, 3);
    }

    #[test]
    fn the_bhs_bytes_follow_rfc_7143() {
        let p = IscsiParams::rfc7143();
        let (_, l) = layouts(p, IoOp::Read, 4096);
        let c = BhsContext {
            op: Some(IoOp::Read),
            io_offset: 1 << 20,
            itt: 0x0102_0304,
            ttt: 0x0A0B_0C0D,
            cmd_sn: 7,
            exp_stat_sn: 9,
            stat_sn: 9,
            exp_cmd_sn: 8,
            max_cmd_sn: 71,
        };
        let cmd = l[0][0].bhs(&c);
        assert_eq!(&cmd[..8], &[0x01, 0xC1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&cmd[16..32], &[1, 2, 3, 4, 0, 0, 0x10, 0, 0, 0, 0, 7, 0, 0, 0, 9]);
        // READ(10), LBA 2048, 8 blocks.
        assert_eq!(&cmd[32..42], &[0x28, 0, 0, 0, 0x08, 0, 0, 0, 8, 0]);
        // The one Data-In: F and S, 4096 bytes, StatSN, DataSN 0, offset 0.
        let din = l[2][0].bhs(&c);
        assert_eq!(&din[..8], &[0x25, 0x81, 0, 0, 0, 0, 0x10, 0]);
        assert_eq!(&din[20..36], &[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 9, 0, 0, 0, 8, 0, 0, 0, 71]);
        // A write's R2T and Data-Out carry the task's TTT; the command says W.
        let (_, l) = layouts(p, IoOp::Write, 131_072);
        let w = BhsContext { op: Some(IoOp::Write), ..c };
        assert_eq!(l[0][0].bhs(&w)[1], 0xA1);
        assert_eq!(l[0][0].bhs(&w)[32], 0x2A);
        let r2t = l[1][0].bhs(&w);
        assert_eq!((r2t[0], r2t[1]), (0x31, 0x80));
        assert_eq!(&r2t[20..24], &[0x0A, 0x0B, 0x0C, 0x0D]);
        assert_eq!(&r2t[40..48], &[0, 0, 0x20, 0, 0, 1, 0xE0, 0], "offset 8192, 122880 desired");
        let dout = l[2][0].bhs(&w);
        assert_eq!((dout[0], &dout[20..24]), (0x05, &[0x0A, 0x0B, 0x0C, 0x0D][..]));
        // An LBA beyond 32 bits takes WRITE(16).
        let far = BhsContext { io_offset: (1 << 32) * BLOCK, ..w };
        assert_eq!(l[0][0].cdb(&far)[..10], [0x8A, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
    }
}
