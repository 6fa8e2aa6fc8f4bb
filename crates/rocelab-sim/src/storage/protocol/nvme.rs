//! NVMe over Fabrics: the RDMA and TCP transport bindings.
//!
//! **NVMe/RDMA** (NVMe over Fabrics 1.1 and the NVMe RDMA Transport Specification): a
//! command capsule is the 64-byte submission queue entry, sent with RDMA SEND, followed by
//! in-capsule data when the data fits the controller's I/O queue command capsule size (IOCCSZ,
//! in 16-byte units, includes the SQE). Otherwise data moves by RDMA: for a write the
//! controller pulls it with RDMA READ, for a read it pushes it with RDMA WRITE, then it SENDs
//! the 16-byte completion queue entry as the response capsule. Default in-capsule data 4 KiB:
//! Linux `nvmet-rdma`'s `NVMET_RDMA_DEFAULT_INLINE_DATA_SIZE` (one page), so IOCCSZ = 260.
//!
//! **NVMe/TCP** (NVMe/TCP Transport Specification 1.0): every PDU starts with an 8-byte common
//! header. CapsuleCmd = CH + SQE = 72 bytes, optionally followed by in-capsule data; CapsuleResp
//! = CH + CQE = 24; H2CData, C2HData and R2T carry a 16-byte PDU-specific header (24 bytes in
//! all). Writes beyond in-capsule data wait for the controller's R2T and send H2CData PDUs of at
//! most MAXH2CDATA bytes; reads come back as C2HData PDUs and a CapsuleResp (unless the
//! controller sets the SUCCESS flag on the last C2HData, allowed when SQ flow control is
//! disabled — off by default here, as on Linux hosts). Header and data digests (CRC32C, 4 bytes
//! each) are off by default (negotiated in ICReq/ICResp; off in Linux unless `-g`/`-G`).
//! Defaults follow Linux `nvmet-tcp`: in-capsule data 16 KiB (`NVMET_TCP_DEF_INLINE_DATA_SIZE`,
//! four pages), MAXH2CDATA 4 MiB (`NVMET_TCP_MAXH2CDATA` = 0x400000), one R2T per command for
//! all the solicited data, one C2HData PDU per command.
//!
//! Both: commands larger than `max_transfer` (MDTS) are split by the host; default 1 MiB
//! (Linux `nvmet-rdma` `NVMET_RDMA_MAX_MDTS` = 8, i.e. 2⁸ pages).

use super::{After, Exchange, Medium, Side};
use crate::storage::job::IoOp;

/// NVMe submission queue entry (command) size.
pub const SQE: u32 = 64;
/// NVMe completion queue entry size.
pub const CQE: u32 = 16;
/// NVMe/TCP PDU common header.
pub const TCP_CH: u32 = 8;
/// NVMe/TCP H2CData / C2HData / R2T PDU-specific header.
pub const TCP_DATA_PSH: u32 = 16;
/// NVMe/TCP header or data digest (CRC32C).
pub const TCP_DIGEST: u32 = 4;

/// NVMe/RDMA session parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvmeRdma {
    /// In-capsule data the controller accepts on I/O queues (IOCCSZ × 16 − 64).
    pub in_capsule_data: u32,
    /// Largest data transfer of one command (MDTS).
    pub max_transfer: u32,
}

impl Default for NvmeRdma {
    fn default() -> Self {
        NvmeRdma { in_capsule_data: 4096, max_transfer: 1 << 20 }
    }
}

impl NvmeRdma {
    pub(super) fn command(&self, op: IoOp, bytes: u32, x: &mut Exchange) {
        let i = Side::Initiator;
        let t = Side::Target;
        match op {
            IoOp::Read => {
                let cmd = x.transfer(After::Issue, "Command capsule", i, Medium::Send, 1, SQE, 0);
                let done = x.service(cmd);
                let data = x.transfer(done, "Data", t, Medium::RdmaWrite, 1, 0, bytes);
                x.transfer(data, "Response capsule", t, Medium::Send, 1, CQE, 0);
            }
            IoOp::Write if bytes <= self.in_capsule_data => {
                let cmd = x.transfer(After::Issue, "Command capsule", i, Medium::Send, 1, SQE, bytes);
                let done = x.service(cmd);
                x.transfer(done, "Response capsule", t, Medium::Send, 1, CQE, 0);
            }
            IoOp::Write => {
                let cmd = x.transfer(After::Issue, "Command capsule", i, Medium::Send, 1, SQE, 0);
                let data = x.transfer(cmd, "Data", i, Medium::RdmaRead, 1, 0, bytes);
                let done = x.service(data);
                x.transfer(done, "Response capsule", t, Medium::Send, 1, CQE, 0);
            }
        }
    }
}

/// NVMe/TCP session parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvmeTcp {
    /// In-capsule data the controller accepts on I/O queues.
    pub in_capsule_data: u32,
    /// MAXH2CDATA: largest H2CData PDU payload.
    pub max_h2c_data: u32,
    /// Largest data transfer of one command (MDTS).
    pub max_transfer: u32,
    /// HDGST on every PDU.
    pub header_digest: bool,
    /// DDGST on PDUs with data.
    pub data_digest: bool,
    /// The controller ends reads with a C2HData carrying SUCCESS instead of a CapsuleResp.
    pub c2h_success: bool,
}

impl Default for NvmeTcp {
    fn default() -> Self {
        NvmeTcp {
            in_capsule_data: 16 * 1024,
            max_h2c_data: 4 << 20,
            max_transfer: 1 << 20,
            header_digest: false,
            data_digest: false,
            c2h_success: false,
        }
    }
}

impl NvmeTcp {
    fn hd(&self) -> u32 {
        if self.header_digest {
            TCP_DIGEST
        } else {
            0
        }
    }
    fn dd(&self, data: u32) -> u32 {
        if self.data_digest && data > 0 {
            TCP_DIGEST
        } else {
            0
        }
    }

    pub(super) fn command(&self, op: IoOp, bytes: u32, x: &mut Exchange) {
        let i = Side::Initiator;
        let t = Side::Target;
        let s = Medium::Stream;
        let resp = TCP_CH + CQE + self.hd();
        let data_pdu = TCP_CH + TCP_DATA_PSH + self.hd();
        match op {
            IoOp::Read => {
                let cmd = x.transfer(After::Issue, "CapsuleCmd", i, s, 1, TCP_CH + SQE + self.hd(), 0);
                let done = x.service(cmd);
                let data = x.transfer(done, "C2HData", t, s, 1, data_pdu + self.dd(bytes), bytes);
                if !self.c2h_success {
                    x.transfer(data, "CapsuleResp", t, s, 1, resp, 0);
                }
            }
            IoOp::Write if bytes <= self.in_capsule_data => {
                let hdr = TCP_CH + SQE + self.hd() + self.dd(bytes);
                let cmd = x.transfer(After::Issue, "CapsuleCmd", i, s, 1, hdr, bytes);
                let done = x.service(cmd);
                x.transfer(done, "CapsuleResp", t, s, 1, resp, 0);
            }
            IoOp::Write => {
                let cmd = x.transfer(After::Issue, "CapsuleCmd", i, s, 1, TCP_CH + SQE + self.hd(), 0);
                let r2t = x.transfer(cmd, "R2T", t, s, 1, data_pdu, 0);
                let pdus = bytes.div_ceil(self.max_h2c_data.max(1));
                let hdr = pdus * data_pdu + if self.data_digest { pdus * TCP_DIGEST } else { 0 };
                let data = x.transfer(r2t, "H2CData", i, s, pdus, hdr, bytes);
                let done = x.service(data);
                x.transfer(done, "CapsuleResp", t, s, 1, resp, 0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{steps, Protocol};
    use super::*;

    #[test]
    fn nvme_rdma_4k_and_512k() {
        let p = Protocol::NvmeRdma(NvmeRdma::default());
        assert_eq!(
            steps(p, IoOp::Read, 4096),
            [
                "Command capsule I>T send 64+0",
                "service",
                "Data T>I rdma-write 0+4096",
                "Response capsule T>I send 16+0"
            ]
        );
        // 4 KiB fits the 4 KiB in-capsule data: one SEND of 64 + 4096.
        assert_eq!(
            steps(p, IoOp::Write, 4096),
            ["Command capsule I>T send 64+4096", "service", "Response capsule T>I send 16+0"]
        );
        assert_eq!(
            steps(p, IoOp::Read, 524_288),
            [
                "Command capsule I>T send 64+0",
                "service",
                "Data T>I rdma-write 0+524288",
                "Response capsule T>I send 16+0"
            ]
        );
        // The controller pulls a large write with RDMA READ before it writes the media.
        assert_eq!(
            steps(p, IoOp::Write, 524_288),
            [
                "Command capsule I>T send 64+0",
                "Data I>T rdma-read 0+524288",
                "service",
                "Response capsule T>I send 16+0"
            ]
        );
        let no_icd = Protocol::NvmeRdma(NvmeRdma { in_capsule_data: 0, ..NvmeRdma::default() });
        assert_eq!(steps(no_icd, IoOp::Write, 4096)[1], "Data I>T rdma-read 0+4096");
    }

    #[test]
    fn nvme_tcp_4k_and_512k() {
        let p = Protocol::NvmeTcp(NvmeTcp::default());
        assert_eq!(
            steps(p, IoOp::Read, 4096),
            ["CapsuleCmd I>T tcp 72+0", "service", "C2HData T>I tcp 24+4096", "CapsuleResp T>I tcp 24+0"]
        );
        assert_eq!(steps(p, IoOp::Write, 4096), ["CapsuleCmd I>T tcp 72+4096", "service", "CapsuleResp T>I tcp 24+0"]);
        assert_eq!(
            steps(p, IoOp::Read, 524_288),
            ["CapsuleCmd I>T tcp 72+0", "service", "C2HData T>I tcp 24+524288", "CapsuleResp T>I tcp 24+0"]
        );
        assert_eq!(
            steps(p, IoOp::Write, 524_288),
            [
                "CapsuleCmd I>T tcp 72+0",
                "R2T T>I tcp 24+0",
                "H2CData I>T tcp 24+524288",
                "service",
                "CapsuleResp T>I tcp 24+0"
            ]
        );
        let digests = NvmeTcp { header_digest: true, data_digest: true, max_h2c_data: 131_072, ..NvmeTcp::default() };
        let p = Protocol::NvmeTcp(digests);
        assert_eq!(steps(p, IoOp::Write, 524_288)[2], "4x H2CData I>T tcp 128+524288", "4 PDUs of 24+4+4");
        assert_eq!(steps(p, IoOp::Write, 4096)[0], "CapsuleCmd I>T tcp 80+4096", "72 + HDGST + DDGST");
        let success = Protocol::NvmeTcp(NvmeTcp { c2h_success: true, ..NvmeTcp::default() });
        assert_eq!(steps(success, IoOp::Read, 4096).len(), 3, "no CapsuleResp");
    }
}
