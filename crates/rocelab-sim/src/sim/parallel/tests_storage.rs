//! Storage jobs over TCP on several threads: the whole results (jobs' latencies and IOPS,
//! targets, host CPUs, connections) equal to one thread's.

use super::tests::{random_leaf_spine, same_for_every_thread_count, RandomShape};
use super::*;
use crate::storage::job::{JobSpec, RwMode};
use crate::storage::plan::{JobRequest, StorageJob, StorageTraffic};
use crate::storage::protocol::{Protocol, ProtocolKind};
use crate::storage::target::TargetProfile;
use crate::time::{MS, NS, US};
use crate::topology::{leaf_spine, FabricDefaults, LeafSpine};
use crate::traffic::FlowClass;

const G25: u64 = 25_000_000_000;
const G100: u64 = 100_000_000_000;

fn fabric(d: &FabricDefaults) -> crate::topology::Fabric {
    let shape = LeafSpine {
        leaves: 4,
        spines: 2,
        hosts_per_leaf: 4,
        host_rate_bps: G25,
        fabric_rate_bps: G100,
        host_delay_ps: 100 * NS,
        fabric_delay_ps: 500 * NS,
    };
    leaf_spine(&shape, d)
}

/// Jobs of `kinds` (one each, in turn over the `modes`) from hosts on three leaves against two
/// targets on the first, with the protocols' default CPU costs.
fn storage(f: &crate::topology::Fabric, kinds: &[ProtocolKind], modes: &[RwMode], class: FlowClass) -> Traffic {
    let mut t = Traffic::new();
    let mut st = StorageTraffic::default();
    let targets = [f.hosts[0], f.hosts[1]];
    for &n in &targets {
        st.set_target(n, TargetProfile::fixed(20 * US, 8, Some(20_000_000_000)));
    }
    for (i, &kind) in kinds.iter().enumerate() {
        let mode = modes[i % modes.len()];
        let mut spec =
            JobSpec::new(&format!("job{i}"), mode, [4096, 65_536, 16_384][i % 3], 4 + 2 * i as u32, 600 * US);
        spec.numjobs = 1 + (i as u32 % 2);
        let initiator = f.hosts[4 + 3 * i % 12];
        let job = StorageJob::new(spec, initiator, targets[i % 2], Protocol::default_for(kind));
        st.add_job(&mut t.flows, JobRequest { job, class, path_mtu: 4096, max_sessions: 2 });
    }
    t.storage = st;
    t
}

#[test]
fn iscsi_nfs_smb_and_nvme_tcp_jobs_give_the_same_results_on_every_thread_count() {
    let mut d = FabricDefaults::lossless(3, 40_000);
    d.switch.buffer.size_bytes = 1 << 20;
    let f = fabric(&d);
    let kinds =
        [ProtocolKind::Iscsi, ProtocolKind::NfsTcp, ProtocolKind::Smb, ProtocolKind::NvmeTcp, ProtocolKind::Iscsi];
    let modes = [RwMode::RandWrite, RwMode::RandRead, RwMode::RandRw];
    let t = storage(&f, &kinds, &modes, FlowClass { priority: 3, dscp: 26, ecn_capable: false, tagged: true });
    let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(6, MS));
    assert_eq!(r.jobs.len(), kinds.len());
    for j in &r.jobs {
        assert!(j.read.total_ios + j.write.total_ios > 0, "job {} completes IOs", j.name);
    }
    assert!(r.targets.iter().all(|t| t.completed > 0), "both targets serve");
    assert!(r.cpu.iter().any(|c| c.cpu.utilization > 0.0), "the hosts' cores work");
}

#[test]
fn storage_over_tcp_with_drops_gives_the_same_results_on_every_thread_count() {
    // A lossy fabric with small buffers: segments of the sessions are lost and retransmitted.
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 128 << 10;
    let f = fabric(&d);
    let kinds =
        [ProtocolKind::Iscsi, ProtocolKind::NfsTcp, ProtocolKind::Smb, ProtocolKind::Iscsi, ProtocolKind::NfsTcp];
    let modes = [RwMode::Write, RwMode::RandRead];
    let t = storage(&f, &kinds, &modes, FlowClass { priority: 0, dscp: 0, ecn_capable: false, tagged: false });
    let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(8, MS));
    assert!(r.conservation.dropped_packets > 0, "the fabric drops");
    assert!(r.jobs.iter().all(|j| j.read.total_ios + j.write.total_ios > 0), "every job completes IOs");
}

/// Random storage jobs over TCP (protocol, mode, block size, depth, clones, initiator and
/// target anywhere, a local job among them) on random leaf-spine fabrics, lossless or lossy:
/// the same results on 1 to 4 threads each time.
#[test]
fn random_storage_jobs_give_the_same_results_on_every_thread_count() {
    let mut rng = crate::rng::Rng::new(11);
    let kinds = [ProtocolKind::Iscsi, ProtocolKind::NfsTcp, ProtocolKind::Smb, ProtocolKind::NvmeTcp];
    let modes = [RwMode::Read, RwMode::Write, RwMode::RandRead, RwMode::RandWrite, RwMode::Rw, RwMode::RandRw];
    for case in 0..4 {
        let shape = RandomShape { hosts: (2, 2), headroom: 40_000, buffer_kib: (1024, 128) };
        let (f, lossless) = random_leaf_spine(&mut rng, &shape);
        let n = f.hosts.len() as u64;
        let class = if lossless {
            FlowClass { priority: 3, dscp: 26, ecn_capable: false, tagged: true }
        } else {
            FlowClass { priority: 0, dscp: 0, ecn_capable: false, tagged: false }
        };
        let mut t = Traffic::new();
        let mut st = StorageTraffic::default();
        let targets = [f.hosts[rng.below(n) as usize], f.hosts[rng.below(n) as usize]];
        for &node in &targets {
            st.set_target(node, TargetProfile::fixed((5 + rng.below(40)) * US, 1 + rng.below(8) as u32, None));
        }
        for i in 0..2 + rng.below(4) {
            let bs = 512 << rng.below(8);
            let mode = modes[rng.below(modes.len() as u64) as usize];
            let mut spec = JobSpec::new(&format!("job{i}"), mode, bs as u32, 1 + rng.below(8) as u32, 400 * US);
            spec.numjobs = 1 + rng.below(2) as u32;
            let target = targets[rng.below(2) as usize];
            // The first job is local to its target: its own storage, no network.
            let initiator = if i == 0 { target } else { f.hosts[rng.below(n) as usize] };
            let kind = kinds[rng.below(kinds.len() as u64) as usize];
            let job = StorageJob::new(spec, initiator, target, Protocol::default_for(kind));
            st.add_job(&mut t.flows, JobRequest { job, class, path_mtu: 4096, max_sessions: 2 });
        }
        t.storage = st;
        let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(case, 600 * US));
        assert!(r.targets.iter().any(|t| t.completed > 0), "case {case}: IOs are served");
    }
}
