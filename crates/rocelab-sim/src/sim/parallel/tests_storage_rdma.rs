//! Storage jobs over RDMA (RoCE and iWARP) on several threads: the whole results (jobs'
//! latencies and IOPS, targets, host CPUs, queue pairs, connections), the digest and the event
//! count equal to one thread's, under PFC and with drops; and the one case still refused.

use super::tests::{leaf_spine_fabric, random_leaf_spine, same_for_every_thread_count, RandomShape};
use super::*;
use crate::storage::job::{JobSpec, RwMode};
use crate::storage::plan::{JobRequest, StorageJob, StorageTraffic, StorageTransport};
use crate::storage::protocol::smb::SmbDirect;
use crate::storage::protocol::{Protocol, ProtocolKind};
use crate::storage::target::TargetProfile;
use crate::time::{MS, US};
use crate::topology::FabricDefaults;
use crate::traffic::FlowClass;

const RDMA_KINDS: [ProtocolKind; 4] =
    [ProtocolKind::NvmeRdma, ProtocolKind::Iser, ProtocolKind::SmbDirect, ProtocolKind::NfsRdma];

/// Jobs of `kinds` over `transport` (one each, in turn over the `modes`, block sizes and
/// depths) from hosts on three leaves against two targets on the first, with the protocols'
/// default CPU costs.
fn storage(
    f: &crate::topology::Fabric,
    kinds: &[ProtocolKind],
    modes: &[RwMode],
    class: FlowClass,
    transport: StorageTransport,
) -> Traffic {
    let mut t = Traffic::new();
    let mut st = StorageTraffic::default();
    let targets = [f.hosts[0], f.hosts[1]];
    for &n in &targets {
        st.set_target(n, TargetProfile::fixed(20 * US, 8, Some(20_000_000_000)));
    }
    for (i, &kind) in kinds.iter().enumerate() {
        let mode = modes[i % modes.len()];
        let mut spec = JobSpec::new(&format!("job{i}"), mode, [4096, 65_536, 16_384][i % 3], 2 + i as u32, 600 * US);
        spec.numjobs = 1 + (i as u32 % 2);
        let initiator = f.hosts[4 + 3 * i % 12];
        let job =
            StorageJob { transport, ..StorageJob::new(spec, initiator, targets[i % 2], Protocol::default_for(kind)) };
        st.add_job(&mut t.flows, JobRequest { job, class, path_mtu: 4096, max_sessions: 2 });
    }
    t.storage = st;
    t
}

fn every_job_completes(r: &Results) {
    for j in &r.jobs {
        assert!(j.read.total_ios + j.write.total_ios > 0, "job {} completes IOs", j.name);
    }
    assert!(r.targets.iter().all(|t| t.completed > 0), "both targets serve");
}

#[test]
fn nvme_iser_smb_direct_and_nfs_over_roce_give_the_same_results_on_every_thread_count() {
    // Writes pull their data with RDMA READs (bounded by the adapter's outstanding READs),
    // reads push it with WRITEs; mixed jobs do both.
    let mut d = FabricDefaults::lossless(3, 40_000);
    d.switch.buffer.size_bytes = 300 << 10;
    let f = leaf_spine_fabric(&d);
    let kinds = [RDMA_KINDS.as_slice(), &RDMA_KINDS].concat();
    let modes = [RwMode::RandWrite, RwMode::RandRead, RwMode::RandRw];
    let t = storage(&f, &kinds, &modes, FlowClass::roce(3, 26), StorageTransport::Roce);
    let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(6, MS));
    every_job_completes(&r);
    assert!(r.cpu.iter().any(|c| c.cpu.utilization > 0.0), "the hosts' cores work");
}

/// Eight initiators, in turn over the RDMA protocols, writing 32 KiB blocks to one target
/// (whose READs pull the data from all of them at once) and reading from another.
fn incast(f: &crate::topology::Fabric, class: FlowClass) -> Traffic {
    let mut t = Traffic::new();
    let mut st = StorageTraffic::default();
    for &n in &f.hosts[..2] {
        st.set_target(n, TargetProfile::fixed(10 * US, 16, None));
    }
    for i in 0..8 {
        let kind = RDMA_KINDS[i % RDMA_KINDS.len()];
        let mode = if i % 2 == 0 { RwMode::RandWrite } else { RwMode::RandRead };
        let spec = JobSpec::new(&format!("job{i}"), mode, 32_768, 4, 600 * US);
        let job = StorageJob::new(spec, f.hosts[4 + i], f.hosts[i % 2], Protocol::default_for(kind));
        st.add_job(&mut t.flows, JobRequest { job, class, path_mtu: 4096, max_sessions: 1 });
    }
    t.storage = st;
    t
}

#[test]
fn storage_over_roce_under_pfc_gives_the_same_results_on_every_thread_count() {
    // The incast into a small lossless buffer: PFC pauses the target's leaf and the spines.
    let mut d = FabricDefaults::lossless(3, 40_000);
    d.switch.buffer.size_bytes = 300 << 10;
    let f = leaf_spine_fabric(&d);
    let r = same_for_every_thread_count(&f.spec, &incast(&f, FlowClass::roce(3, 26)), &SimConfig::new(2, MS));
    let pauses: u64 = r.ports.iter().map(|p| p.total(|c| c.pfc_sent)).sum();
    assert!(pauses > 0, "PFC pauses");
    every_job_completes(&r);
}

#[test]
fn storage_over_roce_with_drops_gives_the_same_results_on_every_thread_count() {
    // The incast into small lossy buffers: packets of the sessions' queue pairs are lost, and
    // the requesters go back and resend.
    let mut d = FabricDefaults::lossy();
    d.switch.buffer.size_bytes = 32 << 10;
    let f = leaf_spine_fabric(&d);
    let r = same_for_every_thread_count(&f.spec, &incast(&f, FlowClass::roce(0, 26)), &SimConfig::new(8, MS));
    assert!(r.conservation.dropped_packets > 0, "the fabric drops");
    // A job whose last loss waits for its retransmission timeout may complete nothing.
    assert!(r.jobs.iter().map(|j| j.read.total_ios + j.write.total_ios).sum::<u64>() > 0, "IOs complete");
}

#[test]
fn storage_over_iwarp_gives_the_same_results_on_every_thread_count() {
    // The same protocols over iWARP (their operations on TCP connections), lossless and lossy.
    for lossless in [true, false] {
        let mut d = if lossless { FabricDefaults::lossless(3, 40_000) } else { FabricDefaults::lossy() };
        d.switch.buffer.size_bytes = if lossless { 1 << 20 } else { 128 << 10 };
        let f = leaf_spine_fabric(&d);
        let class = if lossless {
            FlowClass { priority: 3, dscp: 26, ecn_capable: false, tagged: true }
        } else {
            FlowClass { priority: 0, dscp: 0, ecn_capable: false, tagged: false }
        };
        let modes = [RwMode::RandWrite, RwMode::RandRead];
        let t = storage(&f, &RDMA_KINDS, &modes, class, StorageTransport::Iwarp);
        let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(3, MS));
        every_job_completes(&r);
    }
}

/// Random storage jobs over RDMA (protocol, RoCE or iWARP, mode, block size, depth, clones,
/// initiator and target anywhere, a local job among them) on random leaf-spine fabrics,
/// lossless or lossy: the same results on 1 to 4 threads each time.
#[test]
fn random_storage_jobs_over_rdma_give_the_same_results_on_every_thread_count() {
    let mut rng = crate::rng::Rng::new(23);
    let modes = [RwMode::Read, RwMode::Write, RwMode::RandRead, RwMode::RandWrite, RwMode::Rw, RwMode::RandRw];
    for case in 0..4 {
        let shape = RandomShape { hosts: (2, 2), headroom: 40_000, buffer_kib: (256, 96) };
        let (f, lossless) = random_leaf_spine(&mut rng, &shape);
        let n = f.hosts.len() as u64;
        let class = if lossless { FlowClass::roce(3, 26) } else { FlowClass::roce(0, 26) };
        let mut t = Traffic::new();
        let mut st = StorageTraffic::default();
        let targets = [f.hosts[rng.below(n) as usize], f.hosts[rng.below(n) as usize]];
        for &node in &targets {
            st.set_target(node, TargetProfile::fixed((5 + rng.below(40)) * US, 1 + rng.below(8) as u32, None));
        }
        for i in 0..2 + rng.below(4) {
            let bs = 512 << rng.below(9);
            let mode = modes[rng.below(modes.len() as u64) as usize];
            let mut spec = JobSpec::new(&format!("job{i}"), mode, bs as u32, 1 + rng.below(8) as u32, 400 * US);
            spec.numjobs = 1 + rng.below(2) as u32;
            let target = targets[rng.below(2) as usize];
            // The first job is local to its target: its own storage, no network.
            let initiator = if i == 0 { target } else { f.hosts[rng.below(n) as usize] };
            let kind = RDMA_KINDS[rng.below(RDMA_KINDS.len() as u64) as usize];
            let transport = if rng.below(3) == 0 { StorageTransport::Iwarp } else { StorageTransport::Roce };
            let job = StorageJob { transport, ..StorageJob::new(spec, initiator, target, Protocol::default_for(kind)) };
            st.add_job(&mut t.flows, JobRequest { job, class, path_mtu: 4096, max_sessions: 2 });
        }
        t.storage = st;
        let r = same_for_every_thread_count(&f.spec, &t, &SimConfig::new(case, 600 * US));
        assert!(r.targets.iter().any(|t| t.completed > 0), "case {case}: IOs are served");
    }
}

/// SMB Direct jobs of `credits` send credits, 4 KiB random writes below the RDMA threshold
/// (several SENDs each) at depth 8.
fn smb_direct(f: &crate::topology::Fabric, credits: u16) -> Traffic {
    let mut t = Traffic::new();
    let mut st = StorageTraffic::default();
    st.set_target(f.hosts[0], TargetProfile::fixed(10 * US, 8, None));
    let p = SmbDirect { rdma_threshold: 8192, credits, ..Default::default() };
    let spec = JobSpec::new("w", RwMode::RandWrite, 4096, 8, 400 * US);
    let job = StorageJob::new(spec, f.hosts[12], f.hosts[0], Protocol::SmbDirect(p));
    st.add_job(&mut t.flows, JobRequest { job, class: FlowClass::roce(3, 26), path_mtu: 4096, max_sessions: 1 });
    t.storage = st;
    t
}

#[test]
fn smb_direct_with_enough_credits_runs_and_with_too_few_is_refused_by_name() {
    let f = leaf_spine_fabric(&FabricDefaults::lossless(3, 40_000));
    // Plenty of credits: the sender never waits, the grants cross with the frames.
    let r = same_for_every_thread_count(&f.spec, &smb_direct(&f, 255), &SimConfig::new(1, 500 * US));
    every_job_completes(&r);
    // Fewer credits than the SENDs eight writes may have in flight: the sender may wait for a
    // grant made at once at the other end, which threads cannot see in time.
    let few = smb_direct(&f, 2);
    assert!(crate::sim::storage::parts::credits_may_run_out(&few.storage));
    assert!(!crate::sim::storage::parts::credits_may_run_out(&smb_direct(&f, 255).storage));
    match run_threads(&f.spec, &few, &SimConfig::new(1, 100 * US), 2) {
        Err(SimError::InvalidConfig { message }) => assert!(message.starts_with("SMB Direct sessions"), "{message}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    // One thread runs it.
    let one = run_threads(&f.spec, &few, &SimConfig::new(1, 400 * US), 1).expect("one thread");
    assert!(one.jobs[0].write.total_ios > 0);
}
