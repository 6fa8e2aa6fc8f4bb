//! The RDMA READs a storage session's queue pair may have outstanding.
//!
//! An RC requester has at most its negotiated initiator depth of RDMA READ (and atomic)
//! requests outstanding (the verbs QP attribute `max_rd_atomic`, "number of outstanding RDMA
//! reads and atomic operations allowed"); further READs wait in its send queue until a READ
//! response completes. The Linux storage targets that pull write data with READs negotiate
//! that depth at most at their device's limit: the NVMe-oF RDMA target
//! (`drivers/nvme/target/rdma.c`, `nvmet_rdma_cm_accept`) sets the accepted
//! `rdma_conn_param.initiator_depth` to the host's value capped by
//! `ib_device.attrs.max_qp_init_rd_atom`, and the iSER target
//! (`drivers/infiniband/ulp/isert/ib_isert.c`, `isert_set_nego_params`, "Set max inflight RDMA
//! READ requests") does the same. The initiator offers its device's `max_qp_rd_atom` as its
//! responder resources (the NVMe host's `nvme_rdma_route_resolved`), which the target's
//! rdma_cm sees as the initiator depth it may use, so the bound is the adapter's:
//! [`MAX_OUTSTANDING_READS`], the figure the perftest model uses too (16 on ConnectX).
//!
//! Without the bound a target with many writes in flight on one session pulls all their data
//! at once, and the READ responses of every initiator burst into the fabric together.

use crate::perftest::MAX_OUTSTANDING_READS;
use std::collections::VecDeque;

/// A READ a session wants to post: the IO, its step and the bytes it pulls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PendingRead {
    pub io: u32,
    pub step: u16,
    pub len: u64,
}

/// The READs of one queue pair: how many are outstanding and those waiting, in posting order.
#[derive(Clone, Debug)]
pub(crate) struct ReadGate {
    limit: u32,
    outstanding: u32,
    waiting: VecDeque<PendingRead>,
    peak: u32,
}

impl Default for ReadGate {
    fn default() -> Self {
        ReadGate::new(MAX_OUTSTANDING_READS)
    }
}

impl ReadGate {
    /// A gate letting `limit` READs (at least one) be outstanding at once.
    pub fn new(limit: u32) -> Self {
        ReadGate { limit: limit.max(1), outstanding: 0, waiting: VecDeque::new(), peak: 0 }
    }

    /// `read` is posted: it is returned when it may go on the wire now, else it waits behind
    /// the READs posted before it.
    pub fn admit(&mut self, read: PendingRead) -> Option<PendingRead> {
        if self.outstanding < self.limit && self.waiting.is_empty() {
            self.outstanding += 1;
            self.peak = self.peak.max(self.outstanding);
            Some(read)
        } else {
            self.waiting.push_back(read);
            None
        }
    }

    /// A READ response completed: the first waiting READ, if any, takes its place.
    pub fn completed(&mut self) -> Option<PendingRead> {
        debug_assert!(self.outstanding > 0, "a READ completed that was not outstanding");
        self.outstanding = self.outstanding.saturating_sub(1);
        let next = self.waiting.pop_front()?;
        self.outstanding += 1;
        self.peak = self.peak.max(self.outstanding);
        Some(next)
    }

    /// READs on the wire now.
    #[cfg(test)]
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// READs waiting for a slot.
    #[cfg(test)]
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Most READs that were outstanding at once.
    #[cfg(test)]
    pub fn peak(&self) -> u32 {
        self.peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observer::{Direction, Observer};
    use crate::packet::{Packet, PacketKind};
    use crate::rdma::wire::{READ_REQUEST, READ_RESPONSE_LAST, READ_RESPONSE_ONLY};
    use crate::storage::cpu::{CpuCost, ProtocolCosts};
    use crate::storage::job::{JobSpec, RwMode};
    use crate::storage::plan::{JobRequest, StorageJob, StorageTraffic};
    use crate::storage::protocol::{Protocol, ProtocolKind};
    use crate::storage::target::TargetProfile;
    use crate::time::{Time, MS, NS, US};
    use crate::topology::{single_switch, FabricDefaults};
    use crate::traffic::{FlowClass, Traffic};
    use std::collections::HashSet;

    /// The most RDMA READs on the wire at once: requests the target's NIC sent, less the READs
    /// whose last response reached the target (each PSN counted once, at its first port).
    #[derive(Default)]
    struct ReadsInFlight {
        target: u32,
        sent: HashSet<u32>,
        answered: HashSet<u32>,
        peak: usize,
    }

    impl Observer for ReadsInFlight {
        fn on_packet(&mut self, _time: Time, _port: usize, p: &Packet, dir: Direction) {
            match (p.kind, dir) {
                (PacketKind::Request, Direction::Tx) if p.bth_opcode == READ_REQUEST && p.src == self.target => {
                    self.sent.insert(p.psn);
                }
                (PacketKind::ReadResponse, Direction::Rx)
                    if matches!(p.bth_opcode, READ_RESPONSE_LAST | READ_RESPONSE_ONLY) && p.dst == self.target =>
                {
                    self.answered.insert(p.psn);
                }
                _ => {}
            }
            self.peak = self.peak.max(self.sent.len().saturating_sub(self.answered.len()));
        }
    }

    #[test]
    fn an_nvme_target_pulls_at_most_max_qp_rd_atom_writes_at_once_on_a_session() {
        // One session, 64 writes of 128 KiB outstanding, a device that completes at once: the
        // target would pull all 64 writes' data together; the adapter lets 16 READs go.
        let fabric = single_switch(2, 100_000_000_000, 100 * NS, &FabricDefaults::lossless(3, 100_000));
        let (target, initiator) = (fabric.hosts[0], fabric.hosts[1]);
        let mut t = Traffic::new();
        let mut st = StorageTraffic::default();
        st.set_target(target, TargetProfile::fixed(US, 256, None));
        let spec = JobSpec::new("w", RwMode::Write, 131_072, 64, MS);
        let free = CpuCost { per_io: 0, tx_per_byte_ps: 0.0, rx_per_byte_ps: 0.0 };
        let costs = ProtocolCosts { initiator: free, target: free };
        let job = StorageJob {
            costs,
            ..StorageJob::new(spec, initiator, target, Protocol::default_for(ProtocolKind::NvmeRdma))
        };
        st.add_job(&mut t.flows, JobRequest { job, class: FlowClass::roce(3, 26), path_mtu: 4096, max_sessions: 1 });
        t.storage = st;
        let mut seen = ReadsInFlight { target: target as u32, ..Default::default() };
        let r = crate::run_with_observer(&fabric.spec, &t, &crate::SimConfig::new(1, 2 * MS), &mut seen).unwrap();
        r.check_conservation().unwrap();
        assert!(r.jobs[0].write.total_ios > 64, "{:?}", r.jobs[0].write);
        assert!(seen.sent.len() > 64, "{} READs", seen.sent.len());
        assert_eq!(seen.peak, MAX_OUTSTANDING_READS as usize);
    }

    fn read(io: u32) -> PendingRead {
        PendingRead { io, step: 1, len: 131_072 }
    }

    #[test]
    fn the_default_bound_is_the_adapters_outstanding_read_limit() {
        // 64 writes in flight on one session: only max_qp_init_rd_atom of their READs go.
        let mut g = ReadGate::default();
        let went = (0..64).filter_map(|io| g.admit(read(io))).count();
        assert_eq!(went as u32, MAX_OUTSTANDING_READS);
        assert_eq!((g.outstanding(), g.waiting()), (MAX_OUTSTANDING_READS, 64 - MAX_OUTSTANDING_READS as usize));
    }

    #[test]
    fn each_completed_read_lets_the_next_one_go_in_posting_order() {
        let mut g = ReadGate::new(2);
        assert_eq!(g.admit(read(0)), Some(read(0)));
        assert_eq!(g.admit(read(1)), Some(read(1)));
        assert_eq!(g.admit(read(2)), None);
        assert_eq!(g.admit(read(3)), None);
        assert_eq!(g.completed(), Some(read(2)));
        assert_eq!(g.outstanding(), 2);
        assert_eq!(g.completed(), Some(read(3)));
        assert_eq!(g.completed(), None);
        assert_eq!(g.completed(), None);
        assert_eq!((g.outstanding(), g.waiting(), g.peak()), (0, 0, 2));
    }

    #[test]
    fn a_read_posted_while_others_wait_queues_behind_them() {
        // A slot freed and a new READ posted before the waiting one is reissued must not
        // overtake it: the send queue is FIFO.
        let mut g = ReadGate::new(1);
        assert!(g.admit(read(0)).is_some());
        assert!(g.admit(read(1)).is_none());
        assert_eq!(g.completed(), Some(read(1)));
        assert!(g.admit(read(2)).is_none());
        assert_eq!(g.completed(), Some(read(2)));
        assert_eq!(g.peak(), 1);
    }
}
