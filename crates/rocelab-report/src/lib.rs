//! # rocelab-report
//!
//! Results of `rocelab sim` as a person reads them: text tables, CSV files, SVG charts and one
//! self-contained HTML report, and packet captures of a run that Wireshark decodes.
//!
//! This crate never runs a simulation and never prints: it takes results (or reads the JSON
//! files a run wrote, [`run::load_dir`]) and returns text ([`Report::files`]); the capture
//! writer ([`pcap::PcapObserver`]) is an [`Observer`](rocelab_sim::Observer) writing into any
//! [`std::io::Write`].
//!
//! Two modules are shared by the CLI and the Python package, so that both write the same
//! folders: [`outdir`], the rules for output folders (made and proven writable first; names from
//! the fabric kept inside them), and [`rundir`], the files of one run's folder, written through
//! a [`rundir::RunSink`] (into a folder, or into memory for a Ray task to send back).

pub mod audit;
pub mod chart;
pub mod figures;
pub mod hpcc;
mod html;
pub mod metrics;
pub mod outdir;
pub mod pcap;
pub mod run;
pub mod rundir;
pub mod spread;
pub mod table;
pub mod tables;
pub mod tools;

pub use html::Report;
pub use run::{load_dir, read_run, FailedRun, Index, IndexEntry, LoadError, RunFile, RunNames, SweepPoint};
pub use table::{Cell, Table};

#[cfg(test)]
pub(crate) mod testdata {
    //! A small run to test with: two hosts sending 256 KiB each into a third through one
    //! switch, with PFC on priority 3 and queue sampling.
    use crate::run::{RunFile, RunNames, SweepPoint};
    use rocelab_sim::topology::{single_switch, FabricDefaults};
    use rocelab_sim::*;

    pub fn results() -> Results {
        // Three hosts (nodes 0..=2) on one switch (node 3).
        let mut d = FabricDefaults::lossless(3, 100_000);
        // A small buffer and ECN on the lossless queue, so that the incast pauses and marks.
        d.switch.buffer.size_bytes = 600_000;
        d.switch_port.tcs[3].ecn = Some(EcnSpec { kmin_bytes: 20_000, kmax_bytes: 200_000, pmax: 0.2 });
        let fabric = single_switch(3, 100_000_000_000, 100 * NS, &d);
        let mut traffic = Traffic::new();
        let flow = FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 256 << 10);
        traffic.incast(&fabric.hosts[1..], fabric.hosts[0], &flow);
        let mut config = SimConfig::new(1, 200 * US);
        config.sampling.queue_interval_ps = Some(US);
        run(&fabric.spec, &traffic, &config).unwrap()
    }

    /// A storage run: host 1 reads `bs`-byte blocks from host 0 over NVMe/RDMA (QD 4, default
    /// CPU costs, an NVMe SSD target), 300 µs.
    pub fn storage_run_file(variant: Option<&str>, bs: u32) -> RunFile {
        use rocelab_sim::storage::job::{JobSpec, RwMode};
        use rocelab_sim::storage::plan::{JobRequest, StorageJob};
        use rocelab_sim::storage::{Protocol, ProtocolKind, TargetProfile};
        let fabric = single_switch(2, 100_000_000_000, 100 * NS, &FabricDefaults::lossless(3, 100_000));
        let mut traffic = Traffic::new();
        traffic.storage.set_target(fabric.hosts[0], TargetProfile::ramdisk());
        let mut spec = JobSpec::new("rd", RwMode::RandRead, bs, 4, 200 * US);
        spec.ramp = 50 * US;
        let job =
            StorageJob::new(spec, fabric.hosts[1], fabric.hosts[0], Protocol::default_for(ProtocolKind::NvmeRdma));
        let req = JobRequest { job, class: FlowClass::roce(3, 26), path_mtu: 4096, max_sessions: 1 };
        traffic.storage.add_job(&mut traffic.flows, req);
        let results = run(&fabric.spec, &traffic, &SimConfig::new(1, 300 * US)).unwrap();
        let flows = (0..results.flows.len()).map(|i| format!("qp#{i}")).collect();
        let ports = vec![vec!["p0".into()], vec!["p0".into()], vec!["e1".into(), "e2".into()]];
        RunFile {
            scenario: "storage".into(),
            variant: variant.map(str::to_string),
            sweep: Some(SweepPoint { field: "workloads.jobs[*].bs".into(), value: format!("{}KiB", bs / 1024) }),
            seeded: false,
            names: RunNames {
                nodes: vec!["target".into(), "host".into(), "sw0".into()],
                ports,
                flows,
                perftest: vec![],
                jobs: vec!["rd".into()],
            },
            warnings: vec![],
            results,
        }
    }

    /// A write_lat beside a write_bw between two hosts of one switch (perftest's defaults, fewer
    /// iterations).
    pub fn perftest_run(variant: &str) -> RunFile {
        use rocelab_sim::perftest::{PerftestKind, PerftestLength, PerftestSpec};
        let fabric = single_switch(2, 100_000_000_000, 15 * NS, &FabricDefaults::lossless(3, 64_000));
        let mut traffic = Traffic::new();
        for kind in [PerftestKind::WriteLat, PerftestKind::WriteBw] {
            let mut p = PerftestSpec::new(kind, fabric.hosts[1], fabric.hosts[0], FlowClass::roce(3, 26));
            p.length = PerftestLength::Iterations(50);
            traffic.perftest.push(p);
        }
        let results = run(&fabric.spec, &traffic, &SimConfig::new(1, 5 * MS)).unwrap();
        let flows = (0..results.flows.len()).map(|i| format!("qp#{i}")).collect();
        RunFile {
            scenario: "perftest".into(),
            variant: Some(variant.into()),
            sweep: None,
            seeded: false,
            names: RunNames {
                nodes: vec!["server".into(), "client".into(), "sw0".into()],
                ports: vec![vec!["p0".into()], vec!["p0".into()], vec!["e1".into(), "e2".into()]],
                flows,
                perftest: vec!["lat".into(), "bw".into()],
                jobs: vec![],
            },
            warnings: vec![],
            results,
        }
    }

    pub fn run_file(variant: Option<&str>, sweep: Option<SweepPoint>) -> RunFile {
        let results = results();
        let nodes: Vec<String> = vec!["h0".into(), "h1".into(), "h2".into(), "sw0".into()];
        let ports =
            vec![vec!["p0".into()], vec!["p0".into()], vec!["p0".into()], vec!["e1".into(), "e2".into(), "e3".into()]];
        let flows = (0..results.flows.len()).map(|i| format!("incast#{i}")).collect();
        RunFile {
            scenario: "test".into(),
            variant: variant.map(str::to_string),
            sweep,
            seeded: false,
            names: RunNames { nodes, ports, flows, perftest: vec![], jobs: vec![] },
            warnings: vec![],
            results,
        }
    }
}
