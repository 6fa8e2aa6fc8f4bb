//! # rocelab-sim
//!
//! A deterministic, packet-level simulator of lossless Ethernet fabrics: RoCEv2 and TCP traffic
//! over shared-buffer switches with priority-based flow control (IEEE 802.1Qbb), ETS scheduling
//! (IEEE 802.1Qaz), RED/ECN marking (RFC 3168, as configured for DCQCN, Zhu et al.
//! SIGCOMM 2015) and ECMP.
//!
//! The simulator does no I/O. It takes a [`NetworkSpec`] (nodes, ports, links, buffers, QoS
//! maps), a [`Traffic`] description (flows, and generators for incast, permutation, all-to-all)
//! and a [`SimConfig`] (seed, end time, sampling), and returns [`Results`]:
//!
//! ```
//! use rocelab_sim::*;
//! use rocelab_sim::topology::{single_switch, FabricDefaults};
//!
//! let fabric = single_switch(3, 100_000_000_000, 100 * NS, &FabricDefaults::lossless(3, 200_000));
//! let mut traffic = Traffic::new();
//! let flow = FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 1 << 20);
//! traffic.incast(&fabric.hosts[1..], fabric.hosts[0], &flow);
//! let results = run(&fabric.spec, &traffic, &SimConfig::new(1, MS)).unwrap();
//! results.check_conservation().unwrap();
//! assert!(results.flows.iter().all(|f| f.completion_ps.is_some()));
//! ```
//!
//! Design: each mechanism is a small state machine that takes input and time and returns
//! actions ([`pfc::PauseState`], [`pfc::XoffState`], [`mmu::Mmu`], [`sched::Scheduler`],
//! [`ecn::EcnSpec`], [`nic::RxBuffer`], [`event::EventQueue`]), tested alone; the engine wires
//! them together. Time is integer picoseconds ([`time`]). A run is a pure function of its
//! inputs and seed, and holds no global state, so several can run in one process.
//!
//! TCP ([`tcp::TcpEndpoint`]: NewReno, CUBIC, DCTCP, SACK, RFC 6298 timers, delayed ACKs,
//! Nagle, window scaling, ECN) runs in the engine for TCP flows, iperf tests
//! ([`Traffic::iperf`]) and iWARP ([`Transport::Iwarp`]); hosts and switch ports may use IEEE
//! 802.3x link pause. Storage jobs ([`Traffic::storage`], the models in [`storage`]: fio-like
//! jobs, the storage protocols' wire exchanges, target devices, host CPU costs) run in the
//! engine too: each IO's exchange is walked over RDMA queue pairs or TCP connections, the
//! target device and the hosts' cores.

pub mod addresses;
pub mod bench;
pub mod cc;
pub mod detmath;
pub mod ecn;
pub mod error;
pub mod event;
pub mod fct;
pub mod from_model;
pub mod huge_heap;
pub mod memory;
pub mod mmu;
pub mod nic;
pub mod observer;
pub mod packet;
pub mod perftest;
pub mod pfc;
pub mod rdma;
mod ring;
pub mod rng;
pub mod routing;
pub mod sched;
mod sim;
mod slots;
pub mod spec;
pub mod stats;
pub mod storage;
pub mod summary;
pub mod tcp;
pub mod time;
pub mod topology;
pub mod traffic;

pub use cc::{CcAlgorithm, DcqcnParams};
pub use ecn::EcnSpec;
pub use error::SimError;
pub use fct::{Completion, FctReport};
pub use mmu::{Admission, PriorityGroup, XoffThreshold};
pub use nic::NicProfile;
pub use observer::{Direction, DropCause, NoObserver, Observer};
pub use packet::{Ecn, Packet};
pub use perftest::{PerftestKind, PerftestLength, PerftestResults, PerftestSpec};
pub use rdma::{RcConfig, RdmaOp};
pub use sched::{TrafficClass, Tsa};
pub use sim::{
    check_least, default_threads, default_threads_on, flow_work, frames_a_window, least_bytes, partition,
    partition_by_work, run, run_threads, run_threads_or_fewer, run_threads_profiled, run_threads_watched,
    run_with_observer, DefaultThreads, EcnDraws, EventOrder, FlowWork, PartProfile, Partition, RunEstimate, Sampling,
    SimConfig, Simulation, ThreadUsage, ThreadsProfile, Watch, WindowStats, MAX_END_TIME, MAX_RUN_BYTES,
    MIN_FRAMES_A_WINDOW, WATCH_EVERY,
};
pub use spec::NicSpec;
pub use spec::{
    BufferSpec, CnpMode, DscpMap, EcnMarking, EgressLossySpec, HostPortSpec, HostRxSpec, HostSpec, LinkSpec,
    NetworkSpec, NodeId, NodeKind, NodeSpec, PfcPortSpec, PortRef, PriorityGroupSpec, PriorityMask, QosSpec,
    SwitchPortSpec, SwitchSpec, TrafficClassSpec, Trust, WireSpec,
};
pub use stats::{
    Conservation, FlowResults, FrameCounts, HostResults, IperfResults, IperfStream, IwarpResults, LinkPauseCounters,
    PortResults, PriorityCounters, QueueSamples, RdmaFlowResults, Results, SwitchResults, TcpConnResults,
    TcpEndResults, SCHEMA_VERSION,
};
pub use time::{Serialization, Time, MS, NS, SECOND, US};
pub use traffic::{
    FlowClass, FlowSpec, IperfSpec, OnOff, PoissonArrivals, RcFlow, SizeDistribution, TcpFlow, Traffic, Transport,
};
