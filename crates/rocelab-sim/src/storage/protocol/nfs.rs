//! NFSv3 READ and WRITE over RPC-over-RDMA version 1 (RFC 8166, with the NFS binding of
//! RFC 8267) and over TCP (RFC 5531 record marking).
//!
//! **RPC and NFSv3 sizes** (XDR, RFC 4506: every item a multiple of 4 bytes): an RPC call header
//! (RFC 5531 §9) is xid, message type, RPC version, program, version and procedure (24 bytes),
//! the AUTH_SYS credential (flavor and length, then stamp, machine name, uid, gid and an empty
//! group list: 36 bytes with an 8-character host name) and an AUTH_NONE verifier (8): 68
//! bytes. A successful reply header is xid, type, reply status, verifier, accept status: 24
//! bytes. NFSv3 (RFC 1813 §3.3.6-3.3.7) with a file handle of `fh` bytes: READ3args = fh (4 +
//! fh) + offset 8 + count 4; READ3resok = status 4 + post_op_attr 88 + count 4 + eof 4 + data
//! (4 + data, padded); WRITE3args = fh + offset 8 + count 4 + stable 4 + data (4 + data);
//! WRITE3resok = status 4 + wcc_data 116 + count 4 + committed 4 + verifier 8.
//!
//! **RPC-over-RDMA v1**: each RPC message travels in one SEND behind a transport header: xid,
//! version, credits, type (16 bytes) and three chunk lists. A read-list entry is a discriminator,
//! an XDR position and a segment (handle, length, 64-bit offset): 24 bytes; a write chunk is a
//! discriminator, a segment count and 16 bytes per segment; each list ends with a 4-byte
//! terminator; an absent reply chunk is 4 bytes. An RPC larger than the peer's inline
//! threshold moves its DDP-eligible data item (RFC 8267: READ and WRITE data) by RDMA
//! instead: WRITE data in a read chunk the server pulls with RDMA READ, READ data into a write
//! chunk the server fills with RDMA WRITE, the data item (with its XDR length) removed from the
//! message. Inline threshold 4096 bytes, Linux `xprtrdma`'s `RPCRDMA_DEF_INLINE` (RFC 8166's
//! protocol default is 1024; RFC 8797 lets peers exchange larger ones).
//!
//! **TCP**: one record-marking fragment header (4 bytes) per RPC message (RFC 5531 §11).
//!
//! Both: IOs above `max_io` (the mount's `rsize`/`wsize`, Linux default maximum 1 MiB) are
//! split into RPCs sent together.

use super::{pad4, After, Exchange, Medium, Side};
use crate::storage::job::IoOp;

/// RPC call header with AUTH_SYS (8-character host name, no groups) and AUTH_NONE verifier.
pub const RPC_CALL: u32 = 68;
/// RPC accepted-reply header.
pub const RPC_REPLY: u32 = 24;
/// RPC-over-RDMA fixed header: xid, version, credits, message type.
pub const RPCRDMA_FIXED: u32 = 16;
/// One read-list entry: discriminator, position, handle, length, offset.
pub const READ_SEGMENT: u32 = 24;
/// One write-chunk segment: handle, length, offset.
pub const RDMA_SEGMENT: u32 = 16;
/// A list terminator or an absent list.
pub const XDR_BOOL: u32 = 4;
/// RPC record-marking fragment header.
pub const RECORD_MARK: u32 = 4;

/// NFSv3 parameters common to both transports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nfs3 {
    /// File handle bytes (Linux knfsd: 28 for ext4/XFS exports with the default fsid type;
    /// NFSv3 allows up to 64).
    pub fh: u32,
    /// rsize/wsize.
    pub max_io: u32,
}

impl Default for Nfs3 {
    fn default() -> Self {
        Nfs3 { fh: 28, max_io: 1 << 20 }
    }
}

impl Nfs3 {
    fn fh3(&self) -> u32 {
        4 + pad4(self.fh)
    }
    /// READ call (RPC header + READ3args).
    pub fn read_call(&self) -> u32 {
        RPC_CALL + self.fh3() + 8 + 4
    }
    /// READ reply without the data item.
    pub fn read_reply(&self) -> u32 {
        RPC_REPLY + 4 + 88 + 4 + 4
    }
    /// WRITE call without the data item.
    pub fn write_call(&self) -> u32 {
        RPC_CALL + self.fh3() + 8 + 4 + 4
    }
    /// WRITE reply.
    pub fn write_reply(&self) -> u32 {
        RPC_REPLY + 4 + 116 + 4 + 4 + 8
    }
}

/// NFS over RPC-over-RDMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct NfsRdma {
    /// NFS sizes.
    pub nfs: Nfs3,
    /// Inline thresholds: largest RPC message sent inline (both directions); 0 means the
    /// Linux default of 4096.
    pub inline_threshold: u32,
}

impl NfsRdma {
    fn inline(&self) -> u32 {
        if self.inline_threshold == 0 {
            4096
        } else {
            self.inline_threshold
        }
    }

    pub(super) fn command(&self, op: IoOp, bytes: u32, x: &mut Exchange) {
        let (i, t, m) = (Side::Initiator, Side::Target, Medium::Send);
        let no_chunks = RPCRDMA_FIXED + 3 * XDR_BOOL;
        // One write chunk of one segment, list terminator.
        let write_list = RPCRDMA_FIXED + XDR_BOOL + (XDR_BOOL + 4 + RDMA_SEGMENT + XDR_BOOL) + XDR_BOOL;
        let read_list = RPCRDMA_FIXED + (READ_SEGMENT + XDR_BOOL) + XDR_BOOL + XDR_BOOL;
        let data_item = 4 + pad4(bytes);
        match op {
            IoOp::Read => {
                let reply_inline = self.nfs.read_reply() + data_item <= self.inline();
                if reply_inline {
                    let call = x.transfer(After::Issue, "READ call", i, m, 1, no_chunks + self.nfs.read_call(), 0);
                    let done = x.service(call);
                    let hdr = no_chunks + self.nfs.read_reply() + data_item - bytes;
                    x.transfer(done, "READ reply", t, m, 1, hdr, bytes);
                } else {
                    let call = x.transfer(After::Issue, "READ call", i, m, 1, write_list + self.nfs.read_call(), 0);
                    let done = x.service(call);
                    let data = x.transfer(done, "Write chunk", t, Medium::RdmaWrite, 1, 0, bytes);
                    x.transfer(data, "READ reply", t, m, 1, write_list + self.nfs.read_reply(), 0);
                }
            }
            IoOp::Write => {
                let call_inline = self.nfs.write_call() + data_item <= self.inline();
                let call = if call_inline {
                    let hdr = no_chunks + self.nfs.write_call() + data_item - bytes;
                    x.transfer(After::Issue, "WRITE call", i, m, 1, hdr, bytes)
                } else {
                    let c = x.transfer(After::Issue, "WRITE call", i, m, 1, read_list + self.nfs.write_call(), 0);
                    x.transfer(c, "Read chunk", i, Medium::RdmaRead, 1, 0, bytes)
                };
                let done = x.service(call);
                x.transfer(done, "WRITE reply", t, m, 1, no_chunks + self.nfs.write_reply(), 0);
            }
        }
    }
}

/// NFS over TCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct NfsTcp {
    /// NFS sizes.
    pub nfs: Nfs3,
}

impl NfsTcp {
    pub(super) fn command(&self, op: IoOp, bytes: u32, x: &mut Exchange) {
        let (i, t, s) = (Side::Initiator, Side::Target, Medium::Stream);
        let item = 4 + pad4(bytes) - bytes;
        match op {
            IoOp::Read => {
                let call = x.transfer(After::Issue, "READ call", i, s, 1, RECORD_MARK + self.nfs.read_call(), 0);
                let done = x.service(call);
                x.transfer(done, "READ reply", t, s, 1, RECORD_MARK + self.nfs.read_reply() + item, bytes);
            }
            IoOp::Write => {
                let hdr = RECORD_MARK + self.nfs.write_call() + item;
                let call = x.transfer(After::Issue, "WRITE call", i, s, 1, hdr, bytes);
                let done = x.service(call);
                x.transfer(done, "WRITE reply", t, s, 1, RECORD_MARK + self.nfs.write_reply(), 0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{steps, Protocol};
    use super::*;

    #[test]
    fn nfsv3_xdr_sizes() {
        let n = Nfs3::default();
        // 68 + (4 + 28) + 8 + 4.
        assert_eq!(n.read_call(), 112);
        assert_eq!(n.read_reply(), 124);
        assert_eq!(n.write_call(), 116);
        assert_eq!(n.write_reply(), 160);
    }

    #[test]
    fn nfs_rdma_4k_and_512k_move_data_in_chunks() {
        let p = Protocol::NfsRdma(NfsRdma::default());
        // READ call with one write chunk: 16 + 4 (no read list) + 28 (write list) + 4 (no reply
        // chunk) = 52 bytes of transport header, then the 112-byte call.
        for bytes in [4096, 524_288] {
            assert_eq!(
                steps(p, IoOp::Read, bytes),
                [
                    "READ call I>T send 164+0".to_string(),
                    "service".into(),
                    format!("Write chunk T>I rdma-write 0+{bytes}"),
                    "READ reply T>I send 176+0".into(),
                ]
            );
            // WRITE call with one read-list entry: 16 + 28 + 4 + 4 = 52, then the 116-byte call
            // without its data; the reply has no chunks (28) and the 160-byte WRITE3res.
            assert_eq!(
                steps(p, IoOp::Write, bytes),
                [
                    "WRITE call I>T send 168+0".to_string(),
                    format!("Read chunk I>T rdma-read 0+{bytes}"),
                    "service".into(),
                    "WRITE reply T>I send 188+0".into(),
                ]
            );
        }
    }

    #[test]
    fn nfs_rdma_small_io_goes_inline() {
        let p = Protocol::NfsRdma(NfsRdma::default());
        // 1 KiB: 28 + 116 + 4 + 1024 fits the 4096-byte inline threshold.
        assert_eq!(
            steps(p, IoOp::Write, 1024),
            ["WRITE call I>T send 148+1024", "service", "WRITE reply T>I send 188+0"]
        );
        assert_eq!(steps(p, IoOp::Read, 1024), ["READ call I>T send 140+0", "service", "READ reply T>I send 156+1024"]);
        // RFC 8166's protocol default threshold of 1024 bytes pushes it into chunks.
        let rfc = Protocol::NfsRdma(NfsRdma { inline_threshold: 1024, ..NfsRdma::default() });
        assert_eq!(steps(rfc, IoOp::Write, 1024)[1], "Read chunk I>T rdma-read 0+1024");
    }

    #[test]
    fn nfs_tcp_4k_and_512k() {
        let p = Protocol::NfsTcp(NfsTcp::default());
        for bytes in [4096, 524_288] {
            assert_eq!(
                steps(p, IoOp::Read, bytes),
                ["READ call I>T tcp 116+0".to_string(), "service".into(), format!("READ reply T>I tcp 132+{bytes}")]
            );
            assert_eq!(
                steps(p, IoOp::Write, bytes),
                [format!("WRITE call I>T tcp 124+{bytes}"), "service".into(), "WRITE reply T>I tcp 164+0".into()]
            );
        }
        // Odd sizes are padded to 4 bytes.
        assert_eq!(steps(p, IoOp::Write, 1001)[0], "WRITE call I>T tcp 127+1001");
    }
}
