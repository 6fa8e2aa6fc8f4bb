//! SMB 3 READ and WRITE over SMB Direct ([MS-SMBD]) and over TCP ([MS-SMB2] §2.1).
//!
//! **SMB2 messages** ([MS-SMB2] §2.2): a 64-byte header; READ request 48 bytes plus a buffer
//! (at least 1 byte, or the channel information); READ response 16 bytes, data at offset 80;
//! WRITE request 48 bytes, data at offset 112; WRITE response 16 bytes.
//!
//! **SMB Direct**: every SMB2 message travels in SMBD data-transfer messages, RDMA SENDs with a
//! 20-byte header padded to a data offset of 24 ([MS-SMBD] §2.2.3), each at most MaxSendSize
//! bytes, so a long message is fragmented. A READ or WRITE of at least the RDMA threshold
//! carries an SMB2_BUFFER_DESCRIPTOR_V1 (16 bytes: offset, token, length; channel
//! SMB2_CHANNEL_RDMA_V1) instead of data: the server RDMA-WRITEs read data into the client's
//! buffer, or RDMA-READs write data from it, and the response carries no data. Every SEND
//! consumes a send credit the peer granted ([`SmbdCredits`]).
//!
//! Defaults: MaxSendSize and MaxReceiveSize 1364 bytes, the value the Linux client
//! (`smbd_max_send_size`) and server (`smb_direct_max_send_size`) use "to match protocol
//! norms"; MaxFragmentedSize and MaxReadWriteSize 1 MiB ([MS-SMBD] §4.1's example and the Linux
//! client's `smbd_max_fragmented_recv_size`); 255 credits (`smbd_receive_credit_max`,
//! `smbd_send_credit_target`); RDMA for IOs of 4096 bytes and more (the Linux client's
//! `rdma_readwrite_threshold`: "If payload is less than this byte, use RDMA send/recv not
//! read/write").
//!
//! **SMB over TCP**: each SMB2 message is preceded by the 4-byte Direct TCP transport header
//! (a zero byte and a 24-bit length).

use super::{After, Exchange, Medium, Side};
use crate::storage::job::IoOp;

/// SMB2 header.
pub const SMB2_HEADER: u32 = 64;
/// Fixed part of the READ and WRITE requests.
pub const SMB2_RW_REQUEST: u32 = 48;
/// Fixed part of the READ and WRITE responses.
pub const SMB2_RW_RESPONSE: u32 = 16;
/// SMB2_BUFFER_DESCRIPTOR_V1.
pub const BUFFER_DESCRIPTOR_V1: u32 = 16;
/// Offset of the payload in an SMBD data-transfer message (20-byte header and padding).
pub const SMBD_DATA_OFFSET: u32 = 24;
/// Direct TCP transport header.
pub const DIRECT_TCP_HEADER: u32 = 4;

/// SMB Direct connection parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmbDirect {
    /// Largest SEND, header included.
    pub max_send_size: u32,
    /// Largest reassembled upper-layer message.
    pub max_fragmented_size: u32,
    /// Largest READ or WRITE by RDMA.
    pub max_read_write_size: u32,
    /// Send credits granted at negotiation (the peer's receive buffers).
    pub credits: u16,
    /// IOs of at least this many bytes use RDMA READ/WRITE.
    pub rdma_threshold: u32,
}

impl Default for SmbDirect {
    fn default() -> Self {
        SmbDirect {
            max_send_size: 1364,
            max_fragmented_size: 1 << 20,
            max_read_write_size: 1 << 20,
            credits: 255,
            rdma_threshold: 4096,
        }
    }
}

impl SmbDirect {
    /// SENDs and header bytes (SMBD headers plus `smb` bytes of SMB2) for an upper-layer
    /// message of `smb + data` bytes.
    fn sends(&self, smb: u32, data: u32) -> (u32, u32) {
        let payload = (self.max_send_size.saturating_sub(SMBD_DATA_OFFSET)).max(1);
        let n = (smb + data).div_ceil(payload).max(1);
        (n, n * SMBD_DATA_OFFSET + smb)
    }

    pub(super) fn command(&self, op: IoOp, bytes: u32, x: &mut Exchange) {
        let (i, t, m) = (Side::Initiator, Side::Target, Medium::Send);
        let rdma = bytes >= self.rdma_threshold;
        let resp = SMB2_HEADER + SMB2_RW_RESPONSE;
        match (op, rdma) {
            (IoOp::Read, true) => {
                let (n, h) = self.sends(SMB2_HEADER + SMB2_RW_REQUEST + BUFFER_DESCRIPTOR_V1, 0);
                let req = x.transfer(After::Issue, "READ request", i, m, n, h, 0);
                let done = x.service(req);
                let data = x.transfer(done, "Data", t, Medium::RdmaWrite, 1, 0, bytes);
                let (n, h) = self.sends(resp, 0);
                x.transfer(data, "READ response", t, m, n, h, 0);
            }
            (IoOp::Read, false) => {
                let (n, h) = self.sends(SMB2_HEADER + SMB2_RW_REQUEST + 1, 0);
                let req = x.transfer(After::Issue, "READ request", i, m, n, h, 0);
                let done = x.service(req);
                let (n, h) = self.sends(resp, bytes);
                x.transfer(done, "READ response", t, m, n, h, bytes);
            }
            (IoOp::Write, true) => {
                let (n, h) = self.sends(SMB2_HEADER + SMB2_RW_REQUEST + BUFFER_DESCRIPTOR_V1, 0);
                let req = x.transfer(After::Issue, "WRITE request", i, m, n, h, 0);
                let data = x.transfer(req, "Data", i, Medium::RdmaRead, 1, 0, bytes);
                let done = x.service(data);
                let (n, h) = self.sends(resp, 0);
                x.transfer(done, "WRITE response", t, m, n, h, 0);
            }
            (IoOp::Write, false) => {
                let (n, h) = self.sends(SMB2_HEADER + SMB2_RW_REQUEST, bytes);
                let req = x.transfer(After::Issue, "WRITE request", i, m, n, h, bytes);
                let done = x.service(req);
                let (n, h) = self.sends(resp, 0);
                x.transfer(done, "WRITE response", t, m, n, h, 0);
            }
        }
    }
}

/// SMB over TCP parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmbTcp {
    /// Largest READ or WRITE (negotiated MaxReadSize/MaxWriteSize).
    pub max_read_write_size: u32,
}

impl Default for SmbTcp {
    fn default() -> Self {
        SmbTcp { max_read_write_size: 1 << 20 }
    }
}

impl SmbTcp {
    pub(super) fn command(&self, op: IoOp, bytes: u32, x: &mut Exchange) {
        let (i, t, s) = (Side::Initiator, Side::Target, Medium::Stream);
        let resp = DIRECT_TCP_HEADER + SMB2_HEADER + SMB2_RW_RESPONSE;
        match op {
            IoOp::Read => {
                let hdr = DIRECT_TCP_HEADER + SMB2_HEADER + SMB2_RW_REQUEST + 1;
                let req = x.transfer(After::Issue, "READ request", i, s, 1, hdr, 0);
                let done = x.service(req);
                x.transfer(done, "READ response", t, s, 1, resp, bytes);
            }
            IoOp::Write => {
                let hdr = DIRECT_TCP_HEADER + SMB2_HEADER + SMB2_RW_REQUEST;
                let req = x.transfer(After::Issue, "WRITE request", i, s, 1, hdr, bytes);
                let done = x.service(req);
                x.transfer(done, "WRITE response", t, s, 1, resp, 0);
            }
        }
    }
}

/// Send credits of one SMB Direct peer ([MS-SMBD] §3.1.1.1 `SendCredits`): a SEND
/// needs a credit; the peer grants more (CreditsGranted) as it reposts receive buffers, at most
/// up to the target it was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmbdCredits {
    available: u16,
    outstanding: u16,
    target: u16,
}

impl SmbdCredits {
    /// Credits granted by the negotiate response; `target` is SendCreditTarget.
    pub fn new(granted: u16, target: u16) -> Self {
        SmbdCredits { available: granted, outstanding: 0, target }
    }

    /// Take a credit for one SEND; false (nothing taken) when none is left: the SEND waits.
    pub fn try_send(&mut self) -> bool {
        if self.available == 0 {
            return false;
        }
        self.available -= 1;
        self.outstanding += 1;
        true
    }

    /// The peer consumed `received` of our SENDs and granted `granted` credits in a message.
    pub fn on_grant(&mut self, received: u16, granted: u16) {
        self.outstanding = self.outstanding.saturating_sub(received);
        self.available = self.available.saturating_add(granted).min(self.target);
    }

    /// Credits in hand.
    pub fn available(&self) -> u16 {
        self.available
    }
}

#[cfg(test)]
mod tests {
    use super::super::{steps, Protocol};
    use super::*;

    #[test]
    fn smb_direct_4k_and_512k_use_rdma() {
        let p = Protocol::SmbDirect(SmbDirect::default());
        // READ request: 24 (SMBD) + 64 + 48 + 16 (channel info) = 152 in one SEND.
        for bytes in [4096, 524_288] {
            assert_eq!(
                steps(p, IoOp::Read, bytes),
                [
                    "READ request I>T send 152+0".to_string(),
                    "service".into(),
                    format!("Data T>I rdma-write 0+{bytes}"),
                    "READ response T>I send 104+0".into(),
                ]
            );
            assert_eq!(
                steps(p, IoOp::Write, bytes),
                [
                    "WRITE request I>T send 152+0".to_string(),
                    format!("Data I>T rdma-read 0+{bytes}"),
                    "service".into(),
                    "WRITE response T>I send 104+0".into(),
                ]
            );
        }
    }

    #[test]
    fn smb_direct_below_the_threshold_fragments_sends() {
        let p = Protocol::SmbDirect(SmbDirect { rdma_threshold: 8192, ..SmbDirect::default() });
        // 4 KiB WRITE inline: 112 + 4096 = 4208 bytes in SENDs of 1340 payload: 4 SENDs.
        assert_eq!(
            steps(p, IoOp::Write, 4096),
            ["4x WRITE request I>T send 208+4096", "service", "WRITE response T>I send 104+0"]
        );
        // READ: the response carries 80 + 4096 in 4 SENDs; the request has its 1-byte buffer.
        assert_eq!(
            steps(p, IoOp::Read, 4096),
            ["READ request I>T send 137+0", "service", "4x READ response T>I send 176+4096"]
        );
    }

    #[test]
    fn smb_over_tcp_4k_and_512k() {
        let p = Protocol::Smb(SmbTcp::default());
        for bytes in [4096, 524_288] {
            assert_eq!(
                steps(p, IoOp::Read, bytes),
                [
                    "READ request I>T tcp 117+0".to_string(),
                    "service".into(),
                    format!("READ response T>I tcp 84+{bytes}")
                ]
            );
            assert_eq!(
                steps(p, IoOp::Write, bytes),
                [format!("WRITE request I>T tcp 116+{bytes}"), "service".into(), "WRITE response T>I tcp 84+0".into()]
            );
        }
    }

    #[test]
    fn credits_gate_sends_until_the_peer_grants_more() {
        let mut c = SmbdCredits::new(3, 255);
        assert!(c.try_send() && c.try_send() && c.try_send());
        assert!(!c.try_send(), "no credit left: the SEND waits");
        assert_eq!(c.available(), 0);
        c.on_grant(2, 2);
        assert_eq!(c.available(), 2);
        assert!(c.try_send());
        let mut capped = SmbdCredits::new(250, 255);
        capped.on_grant(0, 100);
        assert_eq!(capped.available(), 255, "never above SendCreditTarget");
    }
}
