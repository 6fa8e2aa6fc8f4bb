//! Storage jobs, iperf and host TCP/CPU settings: loading, and their located errors.

use super::*;

/// Hosts, an RDMA-less iperf pair and a storage array for the storage and TCP sections.
const STORAGE: &str = r#"fabric:
  name: san
  topology:
    devices:
      - {name: sw1, role: switch, platform: arista-eos, model: 7050SX3-48YC12}
      - name: host1
        role: host
        os: linux
        nic: {vendor: mellanox, model: ConnectX-5, speed: 25G}
        tcp: {congestion_control: dctcp, window_scaling: false, min_rto: 10ms, receive_buffer: 4MiB}
        cpu: {cores: 16}
      - {name: host2, role: host, os: linux, nic: {vendor: mellanox, model: ConnectX-5, speed: 25G}}
      - {name: iperf1, role: host, os: linux, nic: {vendor: intel, model: X520, speed: 10G}}
      - name: array1
        role: storage
        storage:
          kind: array
          protocols: [nvme-rdma, iscsi]
          profile: pure-flasharray-x
          model: {write_limit: 35G, read_latency: {mean: 120us, p99: 400us}}
        nic: {vendor: mellanox, model: ConnectX-5, ports: 2, speed: 25G}
        cpu: {cores: 20}
    links:
      - {a: "sw1:Ethernet1", b: "host1:p0"}
      - {a: "sw1:Ethernet2", b: "host2:p0"}
      - {a: "sw1:Ethernet3", b: "iperf1:p0", speed: 10G}
      - {a: "sw1:Ethernet4", b: "array1:p0"}
      - {a: "sw1:Ethernet5", b: "array1:p1"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true}
      - {name: default, priority: 0}
simulation: {duration: 50ms}
workloads:
  jobs:
    - {name: w4k, rw: randwrite, bs: 4KiB, iodepth: 1, numjobs: 1, runtime: 20ms,
       protocol: nvme-rdma, initiator: host1, target: array1}
    - {name: oltp, rw: randrw, xfersize: 8KiB, threads: 5, numjobs: 8, elapsed: 30ms, warmup: 5ms,
       rdpct: 67, protocol: iscsi, initiator: host1-2, target: array1}
  iperf:
    - {name: cross, client: iperf1, server: host2, parallel: 4, window: 256KiB, congestion_control: reno}
"#;

#[test]
fn storage_jobs_iperf_and_host_settings_load() {
    let l = load(STORAGE).unwrap();
    let w = &l.scenario.workloads;
    assert_eq!(w.jobs.len(), 2);
    let oltp = &w.jobs[1];
    // vdbench names land on fio's fields.
    assert_eq!((oltp.bs.as_bytes(), oltp.iodepth, oltp.numjobs, oltp.rwmixread), (8192, 5, 8, Some(67)));
    assert_eq!((oltp.runtime.to_string(), oltp.ramp_time.to_string()), ("30ms".into(), "5ms".into()));
    assert_eq!(w.jobs[0].rw, rocelab_model::storage::Rw::RandWrite);
    assert_eq!(w.iperf[0].congestion_control, Some(rocelab_model::storage::CongestionControl::NewReno));
    let h = l.fabric.device("host1").unwrap();
    let tcp = h.tcp.as_ref().unwrap();
    assert_eq!(tcp.window_scaling, Some(false));
    assert_eq!(tcp.min_rto.unwrap().to_string(), "10ms");
    assert_eq!(h.cpu.as_ref().unwrap().cores, 16);
    let s = l.fabric.device("array1").unwrap().storage.as_ref().unwrap();
    assert_eq!(s.profile, Some(rocelab_model::storage::StorageProfile::PureFlasharrayX));
    assert_eq!(s.model.as_ref().unwrap().write_limit.unwrap().to_string(), "35G");
}

fn storage_broken(from: &str, to: &str) -> String {
    assert!(STORAGE.contains(from), "STORAGE has no `{from}`");
    STORAGE.replacen(from, to, 1)
}

#[test]
fn storage_job_errors_are_located_with_suggestions() {
    let cases: &[(&str, &str, &str, &str, Option<&str>)] = &[
        (
            "target: array1}\n    - {name: oltp",
            "target: aray1}\n    - {name: oltp",
            "workloads.jobs[0].target",
            "no host `aray1`",
            Some("did you mean \"array1\"?"),
        ),
        (
            "initiator: host1, target",
            "initiator: hots1, target",
            "workloads.jobs[0].initiator[0]",
            "no host `hots1`",
            Some("did you mean \"host1\"?"),
        ),
        (
            "rw: randwrite",
            "rw: randwrit",
            "workloads.jobs[0].rw",
            "unknown value `randwrit`",
            Some("did you mean \"randwrite\"?"),
        ),
        (
            "protocol: nvme-rdma, initiator",
            "protocol: nvme-tcp, initiator",
            "workloads.jobs[0].protocol",
            "`array1` does not serve nvme-tcp",
            None,
        ),
        (
            "iodepth: 1, numjobs: 1",
            "iodepht: 1, numjobs: 1",
            "workloads.jobs[0].iodepht",
            "unknown field `iodepht`",
            Some("did you mean \"iodepth\"?"),
        ),
        ("bs: 4KiB", "bs: 4", "workloads.jobs[0].bs", "multiple of 512 bytes", None),
        ("bs: 4KiB", "bs: 4Kb", "workloads.jobs[0].bs", "unknown", None),
        ("runtime: 20ms,\n", "runtime: 60ms,\n", "workloads.jobs[0].runtime", "after the end of the run", None),
        ("rdpct: 67", "rdpct: 167", "workloads.jobs[1].rwmixread", "is a percentage", None),
        (
            "profile: pure-flasharray-x",
            "profile: pure-flasharray",
            "fabric.topology.devices[4].storage.profile",
            "unknown value `pure-flasharray`",
            Some("did you mean \"pure-flasharray-x\"?"),
        ),
        (
            "{mean: 120us, p99: 400us}",
            "{mean: 120us, p99: 4000us}",
            "fabric.topology.devices[4].storage.model.read_latency.p99",
            "14.9 times",
            None,
        ),
        (
            "congestion_control: dctcp, window_scaling",
            "congestion_control: dctpc, window_scaling",
            "fabric.topology.devices[1].tcp.congestion_control",
            "unknown value `dctpc`",
            Some("did you mean \"dctcp\"?"),
        ),
        ("min_rto: 10ms", "min_rto: 0ms", "fabric.topology.devices[1].tcp.min_rto", "must be above 0", None),
        ("cpu: {cores: 16}", "cpu: {cores: 0}", "fabric.topology.devices[1].cpu.cores", "at least one core", None),
        (
            "server: host2",
            "server: host",
            "workloads.iperf[0].server",
            "no host `host`",
            Some("did you mean \"host1\"?"),
        ),
        ("parallel: 4", "parallel: 0", "workloads.iperf[0].parallel", "at least one connection", None),
        // Bounds: iperf3's own `-P` cap, fio depths, cores.
        (
            "parallel: 4",
            "parallel: 129",
            "workloads.iperf[0].parallel",
            "iperf3 runs at most 128 (`-P`)",
            Some("run several iperf entries between other hosts for more connections"),
        ),
        ("numjobs: 1, runtime", "numjobs: 4294967295, runtime", "workloads.jobs[0].numjobs", "at most 4096", None),
        ("iodepth: 1, numjobs: 1", "iodepth: 65536, numjobs: 4096", "workloads.jobs[0].iodepth", "268435456 IOs", None),
        ("cpu: {cores: 16}", "cpu: {cores: 4294967295}", "fabric.topology.devices[1].cpu.cores", "at most 4096", None),
        // Zero sizes cannot work.
        ("parallel: 4, window", "parallel: 4, bytes: 0B, window", "workloads.iperf[0].bytes", "above 0", None),
        ("runtime: 20ms,\n", "runtime: 20ms, size: 0B,\n", "workloads.jobs[0].size", "above 0 bytes", None),
    ];
    for (from, to, path, msg, hint) in cases {
        let text = storage_broken(from, to);
        assert!(load(&text).is_err(), "`{to}` loads");
        let e = one_error(&text);
        assert_eq!(e.path, *path, "{to}: {e}");
        assert!(e.message.contains(msg), "{to}: {}", e.message);
        assert_eq!(e.suggestion.as_deref(), *hint, "{to}");
        assert!(e.line > 0 && e.column > 0, "{e}");
    }
}

#[test]
fn storage_job_position_points_at_the_field() {
    let e = one_error(&storage_broken("target: array1}\n    - {name: oltp", "target: aray1}\n    - {name: oltp"));
    let text = storage_broken("target: array1}\n    - {name: oltp", "target: aray1}\n    - {name: oltp");
    let line = text.lines().nth(e.line - 1).unwrap();
    assert!(line[e.column - 1..].starts_with("aray1"), "{line} @ {}", e.column);
}

#[test]
fn rdma_protocols_need_rdma_adapters_and_the_right_transport() {
    // An iSCSI-only adapter cannot run NVMe/RDMA.
    let t = storage_broken("initiator: host1, target: array1}", "initiator: iperf1, target: array1}");
    let e = one_error(&t);
    assert_eq!(e.path, "workloads.jobs[0].initiator");
    assert!(e.message.contains("`iperf1`'s adapter has none"), "{}", e.message);
    // iWARP asked of RoCE adapters.
    let t = storage_broken("target: array1}\n    - {name: oltp", "target: array1, rdma: iwarp}\n    - {name: oltp");
    let e = errors(&t);
    assert_eq!(e.len(), 2, "{e:#?}");
    assert!(e.iter().all(|d| d.message.contains("over iWARP needs iWARP")), "{e:#?}");
    // `rdma` on a TCP protocol.
    let t = storage_broken("rdpct: 67, protocol: iscsi", "rdpct: 67, rdma: roce, protocol: iscsi");
    assert_eq!(one_error(&t).path, "workloads.jobs[1].rdma");
    // rwmixread on a pure mode.
    let t = storage_broken("runtime: 20ms,\n", "runtime: 20ms, rwmixread: 50,\n");
    assert_eq!(one_error(&t).path, "workloads.jobs[0].rwmixread");
}

#[test]
fn storage_and_tcp_settings_on_the_wrong_device_or_duplicated() {
    let t = storage_broken(
        "{name: sw1, role: switch, platform: arista-eos, model: 7050SX3-48YC12}",
        "{name: sw1, role: switch, platform: arista-eos, model: 7050SX3-48YC12, tcp: {nagle: false}}",
    );
    assert_eq!(one_error(&t).path, "fabric.topology.devices[0].tcp");
    let t = storage_broken("{name: cross,", "{name: w4k,");
    let e = one_error(&t);
    assert_eq!(e.path, "workloads.iperf[0].name");
    assert!(e.message.contains("duplicate workload name `w4k`"));
    // A job against a host that serves no storage.
    let t = storage_broken("target: array1}\n    - {name: oltp", "target: host2}\n    - {name: oltp");
    let e = one_error(&t);
    assert!(e.message.contains("`host2` serves no storage"), "{}", e.message);
}

#[test]
fn a_host_may_be_its_own_target_an_array_may_not() {
    // A hyperconverged host with storage reads its own copy.
    let t = storage_broken(
        "cpu: {cores: 16}",
        "cpu: {cores: 16}\n        storage: {kind: server, protocols: [smb-direct, nvme-rdma]}",
    )
    .replacen("initiator: host1, target: array1}", "initiator: host1, target: host1}", 1);
    load(&t).unwrap_or_else(|e| panic!("{e}"));
    // An array running a job against itself is an error at the target.
    let t = storage_broken("initiator: host1, target: array1}", "initiator: array1, target: array1}");
    let e = one_error(&t);
    assert_eq!(e.path, "workloads.jobs[0].target");
    assert!(e.message.contains("`array1` is also an initiator of this job"), "{}", e.message);
}

#[test]
fn a_star_sweeps_a_field_of_every_job() {
    let t = format!("{STORAGE}sweep: {{field: \"workloads.jobs[*].start\", values: [0ms, 2ms]}}\n");
    let l = load(&t).unwrap();
    let (s, _) = l.run_point(None, Some(1)).unwrap();
    assert!(s.workloads.jobs.iter().all(|j| j.start.to_string() == "2ms"));
}
