//! The memory a run will take, estimated before its large parts are allocated, so that a run
//! that would not fit is refused with the estimate (exit 2 in the CLI) instead of dying of an
//! allocation abort part-way through building it.

use super::rdma::build::Owner;
use super::SimConfig;
use super::{FlowRt, NicRt, PortCold, PortRt, SwitchRt};
use crate::error::SimError;
use crate::event::Event;
use crate::mmu::{EgressLossy, Mmu};
use crate::packet::Packet;
use crate::routing::{Routes, Topology};
use crate::spec::{NetworkSpec, NodeKind};
use crate::time::Time;
use crate::traffic::{FlowSpec, Traffic};

/// Most bytes a run may take: 20 GiB, so that a run within it fits a 24 GiB machine with the
/// process's own code, the fabric and its traffic as loaded and the results. A fixed limit,
/// not a share of this machine's memory, so that a scenario runs or is refused the same
/// everywhere (a machine with less room refuses it too, through [`crate::memory::room_bytes`]).
pub const MAX_RUN_BYTES: u64 = 20 << 30;

/// The limit a run is checked against: [`MAX_RUN_BYTES`], or in this crate's tests a lower one
/// set for the calling thread ([`with_run_limit`]), so that a test can put a small fabric
/// between what fits and what does not.
pub(super) fn run_limit() -> u64 {
    #[cfg(test)]
    if let Some(limit) = TEST_LIMIT.with(std::cell::Cell::get) {
        return limit;
    }
    MAX_RUN_BYTES
}

#[cfg(test)]
thread_local! {
    static TEST_LIMIT: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Run `f` with runs started on this thread checked against `limit` bytes.
#[cfg(test)]
pub(crate) fn with_run_limit<T>(limit: u64, f: impl FnOnce() -> T) -> T {
    let before = TEST_LIMIT.with(|c| c.replace(Some(limit)));
    let out = f();
    TEST_LIMIT.with(|c| c.set(before));
    out
}

/// Bytes of buffered frame a pooled packet stands for in the estimate: a frame of 1,000 bytes
/// of payload, the ns-3 HPCC simulator's packet payload size (`PACKET_PAYLOAD_SIZE 1000` in its
/// `config.txt`), the size web-search traffic mostly comes in.
const BUFFERED_BYTES_PER_PACKET: u128 = 1000;

/// What one run is estimated to take, part by part.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunEstimate {
    /// (what, bytes) of what the run holds once however many threads run it: the tables built
    /// once and read by every thread (the routing tables), and the state the threads split
    /// between them, each its own part's (the ports' counters, pause states and PFC timers, the
    /// frames its switches buffer, the queue samples of its switches' ports).
    pub shared: Vec<(String, u128)>,
    /// (what, bytes) of the state each thread of a run builds and holds for itself, in the
    /// order they are built.
    pub parts: Vec<(String, u128)>,
    /// Copies of `parts` the run holds: one a thread on several threads, each of which holds
    /// the whole state of the fabric (`run_threads`); 0 is taken as 1.
    pub copies: usize,
    /// Bytes of a copy on any number of threads, where `parts` holds a share that grows as the
    /// threads fall (a part's flows): what [`RunEstimate::threads_that_fit`] counts with, so
    /// that fewer threads fit for sure (`None`: `parts` whatever the threads).
    pub copy_bytes_at_most: Option<u128>,
}

impl RunEstimate {
    /// The same estimate for a run that holds `copies` copies of it.
    pub fn copies(self, copies: usize) -> RunEstimate {
        RunEstimate { copies, ..self }
    }

    /// The shared tables' bytes, and each copy's.
    pub fn total(&self) -> u128 {
        self.shared_bytes() + self.copy_bytes() * self.copies.max(1) as u128
    }

    fn shared_bytes(&self) -> u128 {
        self.shared.iter().map(|&(_, b)| b).sum()
    }

    fn copy_bytes(&self) -> u128 {
        self.parts.iter().map(|&(_, b)| b).sum()
    }

    /// Bytes of a copy on fewer threads than `copies`, at most.
    fn copy_bytes_on_fewer(&self) -> u128 {
        self.copy_bytes_at_most.unwrap_or_else(|| self.copy_bytes()).max(self.copy_bytes())
    }

    /// Refuses the run when its total passes `limit` bytes or the room the system gives
    /// (`room`, see [`crate::memory::room_bytes`]), naming every part.
    pub fn check(&self, limit: u64, room: Option<u64>) -> Result<(), SimError> {
        let list = |parts: &[(String, u128)]| -> String {
            parts.iter().map(|(what, b)| format!("{what}: {}", human_bytes(*b))).collect::<Vec<_>>().join(", ")
        };
        let copies = self.copies.max(1);
        let what = match copies {
            1 => format!("the run ({})", list(&[self.shared.as_slice(), self.parts.as_slice()].concat())),
            n if self.shared.is_empty() => {
                format!("the run on {n} threads, each holding its own copy of ({})", list(&self.parts))
            }
            n => format!(
                "the run on {n} threads, holding once ({}) and on each thread its own copy of ({})",
                list(&self.shared),
                list(&self.parts)
            ),
        };
        let mut hint = "simulate a smaller fabric (fewer hosts or switches), or a part of it with the hosts of \
                        interest; run fewer flows (a shorter `simulation.duration`, fewer incast rounds or a lower \
                        load); give the switches smaller buffers; or sample queues less often"
            .to_string();
        let threads_that_fit = self.threads_that_fit(limit, room);
        if copies > 1 {
            hint = format!(
                "run on fewer threads (--threads {}: the same results, {} each{}), or {hint}",
                threads_that_fit.unwrap_or(1),
                human_bytes(self.copy_bytes_on_fewer()),
                if self.copy_bytes_at_most.is_some() { " at most" } else { "" }
            );
        }
        let hint = hint.as_str();
        let total = self.total();
        if total > limit as u128 {
            return Err(SimError::MemoryTooLarge {
                what,
                estimated_bytes: total.min(u64::MAX as u128) as u64,
                limit_bytes: limit,
                hint: hint.into(),
                threads_that_fit,
            });
        }
        let hint = format!("{hint}; or give the process more memory");
        crate::memory::refuse_over(what, total, room, &hint, threads_that_fit)
    }

    /// On several threads, the most whose copies fit beside what they hold once, within
    /// `limit` and `room`: fewer than [`RunEstimate::copies`], at least one; `None` on one
    /// thread, or when one copy does not fit either.
    pub fn threads_that_fit(&self, limit: u64, room: Option<u64>) -> Option<usize> {
        let copies = self.copies.max(1);
        let room_left = (limit as u128).min(room.map_or(u128::MAX, u128::from)).saturating_sub(self.shared_bytes());
        let fit = room_left / self.copy_bytes_on_fewer().max(1);
        (copies > 1 && fit >= 1).then(|| fit.min(copies as u128 - 1) as usize)
    }
}

/// `n` of `thing`, in the plural but for one.
fn count(n: u128, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// Bytes in KiB, MiB or GiB, one decimal.
fn human_bytes(b: u128) -> String {
    let f = b as f64;
    match b {
        0..=1023 => format!("{b} B"),
        1024..=1_048_575 => format!("{:.1} KiB", f / 1024.0),
        1_048_576..=1_073_741_823 => format!("{:.1} MiB", f / 1_048_576.0),
        _ => format!("{:.1} GiB", f / 1_073_741_824.0),
    }
}

/// The least a fabric of `nodes` nodes and `ports` ports takes in the engine, whatever its
/// traffic: each port's and node's state. Known from the device counts alone, so that a fabric
/// far past the limit is refused before its simulation spec is built.
pub fn least_bytes(nodes: usize, ports: usize) -> u128 {
    let node = std::mem::size_of::<SwitchRt>().min(std::mem::size_of::<NicRt>()) as u128;
    nodes as u128 * node + ports as u128 * (std::mem::size_of::<PortRt>() + std::mem::size_of::<PortCold>()) as u128
}

/// Refuses a fabric whose nodes and ports alone pass [`MAX_RUN_BYTES`] ([`least_bytes`]).
pub fn check_least(nodes: usize, ports: usize) -> Result<(), SimError> {
    let est = RunEstimate {
        shared: Vec::new(),
        parts: vec![(format!("the state of {nodes} nodes and {ports} ports"), least_bytes(nodes, ports))],
        copies: 1,
        copy_bytes_at_most: None,
    };
    est.check(MAX_RUN_BYTES, None)
}

/// The estimate of a run of `traffic` over `spec` as configured, whose routes are computed
/// over `topology`, with `ports` ports in all.
pub(super) fn of_run(
    spec: &NetworkSpec,
    traffic: &Traffic,
    config: &SimConfig,
    topology: &Topology<'_>,
    ports: usize,
    part_of: Option<&[u32]>,
) -> RunEstimate {
    let n = spec.nodes.len();
    // A part holds the flows of its own hosts, at either end (`Placed`): the most that one
    // part holds.
    let test_flows: Vec<_> = traffic.perftest.iter().map(|p| p.flows()).collect();
    let ends = || traffic.flows.iter().chain(test_flows.iter().flatten()).map(|f| (f.src, f.dst));
    let flows = ends().count();
    let flows_held = part_of.map_or(flows, |part_of| {
        let parts = part_of.iter().max().map_or(0, |&p| p as usize + 1);
        let mut held = vec![0usize; parts];
        for (src, dst) in ends() {
            let (a, b) = (part_of[src] as usize, part_of[dst] as usize);
            held[a] += 1;
            if b != a {
                held[b] += 1;
            }
        }
        held.into_iter().map(|h| if super::placed::holds_all(h, flows) { flows } else { h }).max().unwrap_or(0)
    });
    let switch_buffer_bytes = spec
        .nodes
        .iter()
        .map(|nd| match &nd.kind {
            NodeKind::Switch(sw) => sw.buffer.size_bytes as u128,
            _ => 0,
        })
        .sum();
    let switches: Vec<usize> = (0..n).filter(|&i| !spec.is_host(i)).collect();
    let switch_ports: usize = switches.iter().map(|&i| spec.port_count(i)).sum();
    let lossy_egress_ports = switches
        .iter()
        .filter(|&&i| matches!(&spec.nodes[i].kind, NodeKind::Switch(sw) if sw.buffer.egress_lossy.is_some()))
        .map(|&i| spec.port_count(i))
        .sum();
    estimate(&RunSize {
        topology,
        nodes: n,
        switches: switches.len(),
        ports,
        switch_buffer_bytes,
        flows,
        flows_held: part_of.map(|_| flows_held).filter(|&h| h < flows),
        samples_per_port: config
            .sampling
            .queue_interval_ps
            .map_or(0, |iv| config.sampling.kept_per_port(iv, config.end_time_ps)),
        switch_ports,
        lossy_egress_ports,
        end: config.end_time_ps,
    })
}

/// The sizes a run's estimate is made from.
pub(super) struct RunSize<'t, 'a> {
    /// The wiring the routes are computed over.
    pub topology: &'t Topology<'a>,
    /// Nodes, and how many of them are switches.
    pub nodes: usize,
    pub switches: usize,
    /// Ports of the fabric (hosts' and switches').
    pub ports: usize,
    /// Every switch's buffer, added up.
    pub switch_buffer_bytes: u128,
    /// Flows of the traffic and of its perftest tests.
    pub flows: usize,
    /// In a run cut into parts, the most flows one part holds by place (`None`: each holds
    /// every flow, as one part does).
    pub flows_held: Option<usize>,
    /// Queue samples kept per sampled port (every switch port is sampled).
    pub samples_per_port: u64,
    /// Ports of the switches (each sampled, each with its buffer accounting), and of those with
    /// egress-lossy queues.
    pub switch_ports: usize,
    pub lossy_egress_ports: usize,
    /// The simulated time (for the message only).
    pub end: Time,
}

/// The estimate of a run of `size`: the routing tables ([`Routes::estimate`]), shared by the
/// threads of a run on several; what they split between them, each part holding its own
/// nodes' share: the ports' counters and pause states ([`PortCold`]) and PFC timers, the
/// packets the switches' buffers hold when full (and their events: a frame is in the pool of the
/// part whose switch buffers it, or whose port sends it), the switches' buffer accounting (MMU
/// slots, egress-lossy queues) and the queue samples (a part samples its own switches' ports);
/// and what each
/// thread holds for itself (each part's engine holds that state of the whole fabric, though it
/// runs its own nodes' events only): every port's and node's state, each flow's state and queue
/// pair.
pub(super) fn estimate(size: &RunSize<'_, '_>) -> RunEstimate {
    let (routes, groups) = Routes::estimate(size.topology);
    // Every part lists every flow (its spec and its queue pair's index) and, cut into parts,
    // places each (two maps of 4 bytes: `Placed`); it holds the state of its own.
    let listed = (std::mem::size_of::<(&FlowSpec, Owner)>() + 4) as u128;
    let state = (std::mem::size_of::<FlowRt>() + std::mem::size_of::<super::rdma::QpRt>()) as u128;
    let flows = size.flows as u128;
    let (flows_what, flow_bytes, all_held_bytes) = match size.flows_held {
        None => (count(flows, "flow"), flows * (listed + state), None),
        Some(held) => {
            let held = held as u128;
            let placed = flows * (listed + 8);
            (
                format!("the most flows a part holds ({held} of {flows})"),
                placed + held * state,
                Some(placed + flows * state),
            )
        }
    };
    let nodes = (size.nodes - size.switches) as u128 * std::mem::size_of::<NicRt>() as u128
        + size.switches as u128 * std::mem::size_of::<SwitchRt>() as u128;
    // A port's frame path and its place among its part's own ports (`Sim::port_place`).
    let nodes_and_ports = nodes + size.ports as u128 * (std::mem::size_of::<PortRt>() + 4) as u128;
    let packets = size.switch_buffer_bytes.div_ceil(BUFFERED_BYTES_PER_PACKET);
    let packet_bytes = (std::mem::size_of::<Packet>() + 4 + std::mem::size_of::<(Time, Event)>()) as u128;
    RunEstimate {
        copies: 1,
        shared: vec![
            (format!("routing tables ({})", count(groups as u128, "destination group")), routes),
            (
                format!("counters, pause states, PFC timers and ECN draws of {}", count(size.ports as u128, "port")),
                size.ports as u128
                    * (std::mem::size_of::<PortCold>()
                        + std::mem::size_of::<super::PfcTimers>()
                        + std::mem::size_of::<crate::rng::Rng>()) as u128,
            ),
            (format!("{} the switch buffers hold", count(packets, "packet")), packets * packet_bytes),
            (
                format!("buffer accounting of {}", count(size.switch_ports as u128, "switch port")),
                size.switch_ports as u128 * Mmu::PORT_BYTES as u128
                    + size.lossy_egress_ports as u128 * EgressLossy::PORT_BYTES as u128,
            ),
            (
                format!("queue samples of {} ports over {}", size.switch_ports, crate::time::human(size.end)),
                size.samples_per_port as u128 * size.switch_ports as u128 * 4,
            ),
        ],
        parts: vec![
            (
                format!("{} and {}", count(size.nodes as u128, "node"), count(size.ports as u128, "port")),
                nodes_and_ports,
            ),
            (flows_what, flow_bytes),
        ],
        copy_bytes_at_most: all_held_bytes.map(|all| all + nodes_and_ports),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_over_the_limit_is_refused_naming_its_estimate_and_its_parts() {
        let est = RunEstimate {
            shared: vec![("routing tables (2048 destination groups)".into(), 44 << 20)],
            parts: vec![("70 flows".into(), 3 << 30)],
            copies: 1,
            copy_bytes_at_most: None,
        };
        assert_eq!(est.total(), (44 << 20) + (3 << 30));
        assert!(est.check(MAX_RUN_BYTES, None).is_ok());
        // A low limit refuses it, with the total and each part.
        let text = est.check(1 << 30, None).unwrap_err().to_string();
        assert!(
            text.starts_with(&format!(
                "too large to simulate: the run (routing tables (2048 destination groups): 44.0 MiB, 70 flows: \
                 3.0 GiB) would take {} bytes (3.0 GiB), more than the limit of 1073741824 bytes (1.0 GiB)",
                (44u64 << 20) + (3 << 30)
            )),
            "{text}"
        );
        // So does a machine with less room than the limit.
        let text = est.check(MAX_RUN_BYTES, Some(1 << 30)).unwrap_err().to_string();
        assert!(text.contains("give the process more memory"), "{text}");
    }

    #[test]
    fn a_run_that_fits_on_one_thread_but_not_on_eight_is_refused_suggesting_fewer() {
        let one = RunEstimate {
            parts: vec![("70 flows".into(), 3 << 30)],
            copies: 1,
            shared: Vec::new(),
            copy_bytes_at_most: None,
        };
        assert!(one.check(MAX_RUN_BYTES, None).is_ok());
        let eight = one.clone().copies(8);
        assert_eq!(eight.total(), 8 * one.total());
        let text = eight.check(MAX_RUN_BYTES, None).unwrap_err().to_string();
        assert!(text.contains("the run on 8 threads, each holding its own copy of (70 flows: 3.0 GiB)"), "{text}");
        // 20 GiB holds six copies of 3 GiB.
        assert!(text.contains("run on fewer threads (--threads 6: the same results, 3.0 GiB each)"), "{text}");
        assert_eq!(eight.threads_that_fit(MAX_RUN_BYTES, None), Some(6));
        assert!(matches!(
            eight.check(MAX_RUN_BYTES, None),
            Err(SimError::MemoryTooLarge { threads_that_fit: Some(6), .. })
        ));
        // Where the machine has less room than the limit, the room decides.
        let text = eight.check(MAX_RUN_BYTES, Some(7 << 30)).unwrap_err().to_string();
        assert!(text.contains("--threads 2:"), "{text}");
        assert!(matches!(
            eight.check(MAX_RUN_BYTES, Some(7 << 30)),
            Err(SimError::MemoryTooLarge { threads_that_fit: Some(2), .. })
        ));
        // One thread has no fewer to name.
        assert_eq!(one.threads_that_fit(1 << 30, None), None);
        // A copy that fits nowhere still suggests one thread, with the other ways, and names no
        // count that fits.
        let big = RunEstimate {
            parts: vec![("flows".into(), 30 << 30)],
            copies: 2,
            shared: Vec::new(),
            copy_bytes_at_most: None,
        };
        let text = big.check(MAX_RUN_BYTES, None).unwrap_err().to_string();
        assert!(text.contains("--threads 1:") && text.contains("simulate a smaller fabric"), "{text}");
        assert_eq!(big.threads_that_fit(MAX_RUN_BYTES, None), None);
    }

    #[test]
    fn fewer_threads_are_counted_with_the_most_a_copy_can_hold() {
        // Sixteen parts of 1 GiB each, whose share of the flows would grow to 3 GiB a copy on
        // fewer threads: twenty-four refused, naming six (of 3 GiB), not nineteen (of 1 GiB).
        let est = RunEstimate {
            parts: vec![("the most flows a part holds".into(), 1 << 30)],
            copies: 24,
            shared: Vec::new(),
            copy_bytes_at_most: Some(3 << 30),
        };
        assert_eq!(est.threads_that_fit(20 << 30, None), Some(6));
        let text = est.check(20 << 30, None).unwrap_err().to_string();
        assert!(text.contains("--threads 6: the same results, 3.0 GiB each at most"), "{text}");
        assert!(est.clone().copies(16).check(20 << 30, None).is_ok(), "sixteen copies of 1 GiB fit");
    }

    #[test]
    fn the_shared_tables_count_once_whatever_the_threads() {
        let routes = ("routing tables (2048 destination groups)".to_string(), 4u128 << 30);
        let est = RunEstimate {
            shared: vec![routes],
            parts: vec![("70 flows".into(), 3 << 30)],
            copies: 1,
            copy_bytes_at_most: None,
        };
        let eight = est.clone().copies(8);
        assert_eq!(eight.total(), (4 << 30) + 8 * (3 << 30));
        let text = eight.check(MAX_RUN_BYTES, None).unwrap_err().to_string();
        assert!(
            text.contains(
                "the run on 8 threads, holding once (routing tables (2048 destination groups): 4.0 GiB) and on \
                 each thread its own copy of (70 flows: 3.0 GiB)"
            ),
            "{text}"
        );
        // What the limit leaves beside the shared tables holds five copies, not six.
        let fit = (u128::from(MAX_RUN_BYTES) - (4 << 30)) / (3 << 30);
        assert_eq!(fit, 5);
        assert!(text.contains(&format!("--threads {fit}: the same results, 3.0 GiB each")), "{text}");
        // One thread holds the tables once with its copy, and fits.
        assert!(est.check(MAX_RUN_BYTES, None).is_ok());
        // Tables larger than the limit leave room for no copy: one thread is still suggested.
        let huge = RunEstimate { shared: vec![("routing tables".into(), 21 << 30)], ..eight };
        let text = huge.check(MAX_RUN_BYTES, None).unwrap_err().to_string();
        assert!(text.contains("--threads 1:"), "{text}");
    }

    #[test]
    fn the_least_a_fabric_takes_grows_with_its_ports() {
        assert_eq!(least_bytes(2, 10) * 2, least_bytes(4, 20));
        // 100 million ports are refused from their count alone.
        let e = check_least(1_000_000, 100_000_000).unwrap_err().to_string();
        assert!(e.contains("the state of 1000000 nodes and 100000000 ports"), "{e}");
        assert!(check_least(70_000, 400_000).is_ok());
    }
}
