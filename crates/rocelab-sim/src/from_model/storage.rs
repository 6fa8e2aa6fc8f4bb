//! From a scenario's `workloads.jobs` and the devices' `storage` and `cpu` to
//! [`StorageTraffic`](crate::storage::plan::StorageTraffic): one engine job per job and
//! initiator host, the target devices' models with the scenario's overrides, and the hosts'
//! cores.

use crate::rng::mix64;
use crate::storage::job::{JobSpec, RwMode};
use crate::storage::plan::{default_sessions, JobRequest, StorageJob, StorageTransport};
use crate::storage::protocol::{negotiated, ProtocolKind};
use crate::storage::target::{ServiceTime, TargetProfile};
use crate::traffic::{FlowClass, Traffic};
use rocelab_model::fabric::StorageProtocol;
use rocelab_model::select::{job_class, job_rdma, resolve_hosts};
use rocelab_model::storage::{Job, Latency, RdmaTransport, Rw, StorageProfile, TargetModel};
use rocelab_model::{ResolvedFabric, Scenario};

/// The simulator's protocol of a scenario's.
pub fn protocol_kind(p: StorageProtocol) -> ProtocolKind {
    match p {
        StorageProtocol::NvmeRdma => ProtocolKind::NvmeRdma,
        StorageProtocol::NvmeTcp => ProtocolKind::NvmeTcp,
        StorageProtocol::Iser => ProtocolKind::Iser,
        StorageProtocol::Iscsi => ProtocolKind::Iscsi,
        StorageProtocol::SmbDirect => ProtocolKind::SmbDirect,
        StorageProtocol::Smb => ProtocolKind::Smb,
        StorageProtocol::NfsRdma => ProtocolKind::NfsRdma,
        StorageProtocol::NfsTcp => ProtocolKind::NfsTcp,
    }
}

fn rw(r: Rw) -> RwMode {
    match r {
        Rw::Read => RwMode::Read,
        Rw::Write => RwMode::Write,
        Rw::RandRead => RwMode::RandRead,
        Rw::RandWrite => RwMode::RandWrite,
        Rw::Rw => RwMode::Rw,
        Rw::RandRw => RwMode::RandRw,
    }
}

fn profile(p: StorageProfile) -> TargetProfile {
    let name = match p {
        StorageProfile::Ramdisk => "ramdisk",
        StorageProfile::NvmeSsd => "nvme-ssd",
        StorageProfile::PureFlasharrayX => "pure-flasharray-x",
        StorageProfile::DellPs6110xv => "dell-ps6110xv",
        StorageProfile::S2dNode => "s2d-node",
    };
    TargetProfile::by_name(name).expect("every model profile has a simulator profile")
}

fn latency(l: &Latency) -> ServiceTime {
    match l.p99 {
        // Checked when the scenario loads: mean ≤ p99 ≤ 14.9 × mean.
        Some(p99) => ServiceTime::lognormal(l.mean.as_ps(), p99.as_ps()).unwrap_or(ServiceTime::Fixed(l.mean.as_ps())),
        None => ServiceTime::Fixed(l.mean.as_ps()),
    }
}

/// A device profile with the scenario's overrides.
pub fn target_profile(p: Option<StorageProfile>, m: Option<&TargetModel>) -> TargetProfile {
    let mut t = profile(p.unwrap_or(StorageProfile::NvmeSsd));
    if let Some(m) = m {
        if let Some(l) = &m.read_latency {
            t.read.latency = latency(l);
        }
        if let Some(l) = &m.write_latency {
            t.write.latency = latency(l);
        }
        if let Some(c) = m.concurrency {
            t.concurrency = c.max(1);
        }
        if let Some(r) = m.read_limit {
            t.read_ceiling_bps = Some(r.bits_per_second());
        }
        if let Some(r) = m.write_limit {
            t.write_ceiling_bps = Some(r.bits_per_second());
        }
    }
    t
}

/// Add the scenario's jobs to `t` (their sessions' queue pairs to its flows), the devices
/// behind their targets and the hosts' cores. Returns, per engine job, its name: the job's
/// name, with `@host` when it runs on several initiators; and per new flow, its name.
pub fn add_jobs(s: &Scenario, f: &ResolvedFabric, seed: u64, t: &mut Traffic) -> (Vec<String>, Vec<String>) {
    let mut job_names = Vec::new();
    let mut flow_names = Vec::new();
    if s.workloads.jobs.is_empty() {
        return (job_names, flow_names);
    }
    for (i, d) in f.devices.iter().enumerate() {
        if let Some(c) = &d.cpu {
            t.storage.cores.push((i, c.cores.max(1)));
        }
    }
    let host = |n: &str| f.devices.iter().position(|d| d.name == n).expect("checked when the scenario loads");
    for (ji, j) in s.workloads.jobs.iter().enumerate() {
        let target = host(&j.target);
        if t.storage.target_of(target).is_none() {
            let st = f.devices[target].storage.as_ref();
            t.storage.set_target(target, target_profile(st.and_then(|x| x.profile), st.and_then(|x| x.model.as_ref())));
        }
        let initiators = resolve_hosts(std::slice::from_ref(&j.initiator), f);
        for &init in &initiators {
            let first = t.flows.len();
            let idx = add_job(f, j, ji, init, target, seed, t);
            let name =
                if initiators.len() > 1 { format!("{}@{}", j.name, f.devices[init].name) } else { j.name.clone() };
            debug_assert_eq!(idx, job_names.len());
            job_names.push(name);
            for k in first..t.flows.len() {
                flow_names.push(flow_name(t, k, f));
            }
        }
    }
    (job_names, flow_names)
}

fn add_job(f: &ResolvedFabric, j: &Job, ji: usize, init: usize, target: usize, seed: u64, t: &mut Traffic) -> usize {
    let kind = protocol_kind(j.protocol);
    let transport = if !kind.is_rdma() {
        StorageTransport::Tcp
    } else if job_rdma(f, j, init, target) == RdmaTransport::Iwarp {
        StorageTransport::Iwarp
    } else {
        StorageTransport::Roce
    };
    let mut spec = JobSpec::new(&j.name, rw(j.rw), j.bs.as_bytes() as u32, j.iodepth, j.runtime.as_ps());
    spec.numjobs = j.numjobs.max(1);
    spec.ramp = j.ramp_time.as_ps();
    spec.rwmixread = j.rwmixread.unwrap_or(spec.rwmixread);
    spec.size = j.size.map(|s| s.as_bytes()).unwrap_or(spec.size);
    spec.percentage_random = j.percentage_random;
    // Seeded by the job and the initiator's name: the same job draws the same IOs in every
    // topology and variant.
    let name = f.devices[init]
        .name
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    spec.seed = mix64(seed ^ mix64(ji as u64 + 1) ^ name);
    let class = job_class(f, j).and_then(|c| f.qos.class(c)).expect("checked when the scenario loads");
    let class = FlowClass {
        priority: class.priority,
        dscp: class.dscp.first().copied().unwrap_or(class.priority << 3),
        ecn_capable: f.qos.dcqcn.enabled || class.ecn.is_some(),
        tagged: f.qos.marking == rocelab_model::qos::Marking::Pcp,
    };
    let ports = f.devices[init].ports.iter().filter(|p| p.link.is_some()).count() as u32;
    let max_sessions = default_sessions(kind, t.storage.cores_of(init), ports);
    let job =
        StorageJob { start_ps: j.start.as_ps(), transport, ..StorageJob::new(spec, init, target, negotiated(kind)) };
    let req = JobRequest { job, class, path_mtu: f.roce_mtu, max_sessions };
    t.storage.add_job(&mut t.flows, req)
}

/// `nvme-rdma init1>array s0 cmd`: protocol, ends, session and role of a session's flow.
fn flow_name(t: &Traffic, flow: usize, f: &ResolvedFabric) -> String {
    for (k, s) in t.storage.sessions.iter().enumerate() {
        if let Some(role) = s.qps.iter().position(|q| *q == Some(flow)) {
            let p = serde_json::to_value(s.protocol).ok().and_then(|v| v.as_str().map(str::to_string));
            let role = ["send", "respond", "target-read", "read"][role];
            return format!(
                "{} {}>{} s{k} {role}",
                p.unwrap_or_default(),
                f.devices[s.initiator].name,
                f.devices[s.target].name
            );
        }
    }
    format!("storage#{flow}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::protocol::Protocol;

    #[test]
    fn overrides_replace_the_profile_numbers() {
        use rocelab_model::units::{Rate, Time};
        let m = TargetModel {
            read_latency: Some(Latency { mean: Time::us(100), p99: Some(Time::us(300)) }),
            write_latency: Some(Latency { mean: Time::us(20), p99: None }),
            concurrency: Some(8),
            read_limit: None,
            write_limit: Some(Rate(4_000_000_000)),
        };
        let t = target_profile(Some(StorageProfile::Ramdisk), Some(&m));
        assert_eq!(t.write.latency, ServiceTime::Fixed(20 * crate::US));
        assert!(matches!(t.read.latency, ServiceTime::LogNormal { .. }));
        assert_eq!((t.concurrency, t.write_ceiling_bps, t.read_ceiling_bps), (8, Some(4_000_000_000), None));
        assert_eq!(target_profile(None, None).name, "nvme-ssd");
        // iSCSI: open-iscsi against an RFC-default target.
        let Protocol::Iscsi(p) = negotiated(ProtocolKind::Iscsi) else { panic!() };
        assert!(p.initial_r2t && p.immediate_data);
        assert_eq!(p.initiator_recv_data_segment_length, 262_144);
    }
}
