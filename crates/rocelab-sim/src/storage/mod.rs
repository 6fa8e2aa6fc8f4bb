//! Storage over the fabric: fio-like jobs, the storage protocols as exchanges on the wire, the
//! target device, and the host CPU — each a state machine or model tested alone, for the engine
//! to drive.
//!
//! * [`job`]: jobs as fio, vdbench and DISKSPD describe them; each clone a closed loop keeping
//!   `iodepth` IOs outstanding; results as fio reports them.
//! * [`histogram`]: the log-linear latency histogram behind the percentiles.
//! * [`protocol`]: per IO, the ordered transfers (SEND, RDMA READ/WRITE, TCP stream bytes) and
//!   the target's service of NVMe/RDMA, NVMe/TCP, iSCSI, iSER, SMB Direct, SMB, NFS/RDMA and
//!   NFS/TCP; iWARP framing for the RDMA ones over TCP.
//! * [`target`]: service times, concurrency and throughput ceilings; the seeds' devices.
//! * [`cpu`]: per-protocol CPU costs, cores that saturate, utilisation and CPU effectiveness.
//! * [`results`]: per job what fio reports, per host CPU utilisation and effectiveness,
//!   fio's JSON output.
//! * [`plan`]: what the engine runs — jobs, the sessions (queue pairs) that carry them, target
//!   devices and host cores.

pub mod cpu;
pub mod histogram;
pub mod job;
pub mod plan;
pub mod protocol;
pub mod results;
pub mod target;

pub use histogram::{LatencyHistogram, LatencySummary};
pub use job::{DirResults, IoOp, IoRequest, JobEngine, JobResults, JobSpec, RwMode};
pub use protocol::{Exchange, Protocol, ProtocolKind, Side};
pub use target::{Target, TargetProfile};
