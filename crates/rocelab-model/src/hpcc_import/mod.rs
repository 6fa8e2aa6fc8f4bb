//! `rocelab import hpcc`: an ns-3 HPCC simulator configuration (`config.txt`, its topology and
//! flow files) as a rocelab scenario on the `hpcc-compat` simulation model, so that the two
//! simulators run the same experiment.
//!
//! [`crate::hpcc_config`] reads the config; this module works out what each key means for the
//! imported topology the way that simulator's `scratch/third.cc` does (ECN thresholds per link
//! rate, PFC headroom and dynamic-threshold shift per switch port, the window from the largest
//! bandwidth-delay product), says what rocelab cannot honour, and its `render` module writes
//! the scenario text. [`import_config`] reads the files; [`map_config`] is the same on text.

use crate::diag::{Diagnostic, Diagnostics, Mark};
use crate::fabric::Platform;
use crate::hpcc_config::{parse_config, HpccConfig, MAX_CONFIG_BYTES};
use crate::hpcc_flows::parse_flows;
use crate::units::{Rate, Size, Time};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

mod render;
use render::render;

/// Most steps of the breadth-first searches that find HAS_WIN's window (hosts × links).
pub const MAX_BDP_WORK: u64 = 400_000_000;

/// Something worth knowing about the import that is not a problem (e.g. where a trace goes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: note: {}", self.file, self.line, self.column, self.message)
    }
}

/// The input files as [`map_config`] takes them.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The fabric's name.
    pub name: &'a str,
    /// The config file as diagnostics and the scenario's header name it.
    pub config_file: &'a str,
    /// The topology file's name in diagnostics, and its text.
    pub topology_file: &'a str,
    pub topology: &'a str,
    pub flows_file: &'a str,
    pub flows: &'a str,
}

/// One lossless class: a priority group the flows use.
#[derive(Debug, Clone, PartialEq)]
pub struct LosslessClass {
    pub name: String,
    pub priority: u8,
    /// Flows of the flow file in it.
    pub flows: usize,
}

/// What the import decided, before it is written out.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub cfg: HpccConfig,
    pub name: String,
    pub config_file: String,
    pub lossless: Vec<LosslessClass>,
    pub total_flows: usize,
    /// ECN per link rate (Kmin, Kmax in bytes, Pmax), when ENABLE_QCN is 1.
    pub ecn: Option<BTreeMap<Rate, (u64, u64, f64)>>,
    /// Priority of the class ACKs travel in (ACK_HIGH_PRIO 1).
    pub control: Option<u8>,
    pub default: Option<u8>,
    pub nic_rate: Rate,
    pub alpha: BTreeMap<Rate, f64>,
    /// Headroom in bytes per link rate, and whether no link has the rate (its headroom is at
    /// `single_delay`).
    pub headroom: BTreeMap<Rate, (u64, bool)>,
    /// The delay of every link, when they all have the same.
    pub single_delay: Option<Time>,
    /// Ports whose headroom differs from their rate's, grouped by value.
    pub headroom_ports: BTreeMap<u64, Vec<String>>,
    /// HAS_WIN 1: the window in bytes.
    pub window: Option<u64>,
    /// None: the profile's one ACK per packet.
    pub ack_every: Option<u64>,
    /// DCQCN on (CC_MODE 1).
    pub dcqcn: bool,
}

/// The result of an import: the scenario text and the files it names.
#[derive(Debug, Clone, PartialEq)]
pub struct HpccImport {
    pub name: String,
    /// `scenario.yaml`, naming the files below by their names.
    pub scenario: String,
    /// Files to copy beside the scenario: the name to give each, and where it is.
    pub files: Vec<(String, PathBuf)>,
    pub warnings: Vec<Diagnostic>,
    pub notes: Vec<Note>,
}

/// Where a config's input files are, when not where config.txt says.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    pub topology: Option<PathBuf>,
    pub flows: Option<PathBuf>,
}

fn cc_name(mode: u32) -> &'static str {
    match mode {
        1 => "DCQCN",
        3 => "HPCC",
        7 => "TIMELY",
        8 => "DCTCP",
        _ => "HPCC-PINT",
    }
}

/// third.cc: the PFC headroom of a switch port, `rate * delay / 8 / 1000000000 * 3` bytes
/// (delay in ns, integer division).
pub fn headroom_bytes(rate: Rate, delay_ns: u64) -> u64 {
    (rate.bits_per_second() as u128 * delay_ns as u128 / 8 / 1_000_000_000 * 3) as u64
}

/// third.cc: the dynamic-threshold alpha of a switch port: shift 3, one less (down to 0) per
/// halving of the port rate until it is at most the NIC rate; alpha = 1 / 2^shift.
pub fn alpha(rate: Rate, nic_rate: Rate) -> f64 {
    let (mut shift, mut r) = (3, rate.bits_per_second());
    while r > nic_rate.bits_per_second() && shift > 0 {
        shift -= 1;
        r /= 2;
    }
    1.0 / f64::from(1u32 << shift)
}

/// One link of the topology as third.cc sees it.
#[derive(Debug, Clone)]
struct TopoLink {
    ends: [(usize, bool, String); 2],
    rate: Rate,
    delay_ns: u64,
}

/// HPCC node id and whether it is a switch, from an imported port reference (`s17:p3`, `h0:p0`).
fn node_of(port: &str) -> Option<(usize, bool)> {
    let dev = port.split(':').next()?;
    let id = dev.get(1..)?.parse().ok()?;
    Some((id, dev.starts_with('s')))
}

/// third.cc's maxBdp: over every pair of hosts, breadth-first shortest paths through switches,
/// rtt = 2 × the links' delays + per hop payload × 8 / rate, bdp = rtt × the slowest link / 8.
fn max_bdp(links: &[TopoLink], payload: u64) -> u64 {
    let n = links.iter().flat_map(|l| l.ends.iter().map(|e| e.0 + 1)).max().unwrap_or(0);
    let mut is_switch = vec![false; n];
    // Neighbours by node id, one link per pair (third.cc keeps the last, in a map by node).
    let mut adj: Vec<BTreeMap<usize, (u64, u64)>> = vec![BTreeMap::new(); n];
    for l in links {
        let [(a, sa, _), (b, sb, _)] = &l.ends;
        is_switch[*a] = *sa;
        is_switch[*b] = *sb;
        adj[*a].insert(*b, (l.rate.bits_per_second(), l.delay_ns));
        adj[*b].insert(*a, (l.rate.bits_per_second(), l.delay_ns));
    }
    let mut best = 0u128;
    let (mut dis, mut delay, mut tx, mut bw) = (vec![0; n], vec![0u64; n], vec![0u64; n], vec![0u64; n]);
    for host in (0..n).filter(|&h| !is_switch[h] && !adj[h].is_empty()) {
        dis.iter_mut().for_each(|d| *d = usize::MAX);
        dis[host] = 0;
        (delay[host], tx[host], bw[host]) = (0, 0, u64::MAX);
        let mut queue = vec![host];
        let mut i = 0;
        while let Some(&now) = queue.get(i) {
            i += 1;
            for (&next, &(rate, d)) in &adj[now] {
                if dis[next] == usize::MAX {
                    dis[next] = dis[now] + 1;
                    delay[next] = delay[now] + d;
                    tx[next] = tx[now] + payload * 1_000_000_000 * 8 / rate.max(1);
                    bw[next] = bw[now].min(rate);
                    if is_switch[next] {
                        queue.push(next);
                    }
                }
            }
        }
        for j in (0..n).filter(|&j| !is_switch[j] && dis[j] != usize::MAX && j != host) {
            let rtt = delay[j] as u128 * 2 + tx[j] as u128;
            best = best.max(rtt * bw[j] as u128 / 1_000_000_000 / 8);
        }
    }
    best.min(u64::MAX as u128) as u64
}

/// Maps a parsed config, with its topology and flow files' text, onto a scenario plan. Errors
/// and warnings are located in the file they are about.
pub fn plan(cfg: &HpccConfig, inp: &Inputs) -> Result<(Plan, Vec<Diagnostic>, Vec<Note>), Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let cf = inp.config_file;
    let at = |key: &str| cfg.mark(key);
    let warn = |key: &str, msg: String| in_file(Diagnostic::warning(at(key), "", msg), cf);
    let error = |key: &str, msg: String| in_file(Diagnostic::error(at(key), "", msg), cf);

    // The topology, as the loader will import it.
    let buffer = Size::mib(cfg.buffer_size);
    let (_, links, tw) = crate::hpcc::parse_topology(inp.topology, Platform::Generic, Some(buffer))
        .map_err(|ds| ds.into_iter().map(|d| in_file(d, inp.topology_file)).collect::<Vec<_>>())?;
    diags.extend(tw.into_iter().map(|d| in_file(d, inp.topology_file)));
    let topo: Vec<TopoLink> = links
        .iter()
        .filter_map(|l| {
            let (a, sa) = node_of(&l.a)?;
            let (b, sb) = node_of(&l.b)?;
            Some(TopoLink {
                ends: [(a, sa, l.a.clone()), (b, sb, l.b.clone())],
                rate: l.speed?,
                delay_ns: l.delay?.as_ps() / 1000,
            })
        })
        .collect();
    // third.cc get_nic_rate: the first host's first link.
    let first_host = topo.iter().flat_map(|l| l.ends.iter().filter(|e| !e.1).map(|e| e.0)).min();
    let Some(nic_rate) =
        first_host.and_then(|h| topo.iter().find(|l| l.ends.iter().any(|e| e.0 == h && !e.1))).map(|l| l.rate)
    else {
        return Err(vec![error("TOPOLOGY_FILE", format!("`{}` has no host with a link", inp.topology_file))]);
    };
    let speeds: BTreeSet<Rate> = topo.iter().map(|l| l.rate).collect();

    // The flows' priority groups.
    let (flows, fw) =
        parse_flows(inp.flows).map_err(|ds| ds.into_iter().map(|d| in_file(d, inp.flows_file)).collect::<Vec<_>>())?;
    diags.extend(fw.into_iter().map(|d| in_file(d, inp.flows_file)));
    let mut pgs: BTreeMap<u8, usize> = BTreeMap::new();
    for f in &flows {
        *pgs.entry(f.priority).or_default() += 1;
    }
    if pgs.is_empty() {
        pgs.insert(3, 0);
    }
    if pgs.contains_key(&0) {
        diags.push(warn(
            "FLOW_FILE",
            "flows with pg 0 travel in that simulator's queue 0, the top priority, outside its MMU: never paused or \
             ECN-marked; rocelab gives them a lossless class at priority 0"
                .into(),
        ));
    }
    let lossless: Vec<LosslessClass> = pgs
        .iter()
        .map(|(&p, &n)| LosslessClass {
            name: if pgs.len() == 1 { "roce".into() } else { format!("roce{p}") },
            priority: p,
            flows: n,
        })
        .collect();
    // ACKs travel with their flow's pg in that simulator's switches whatever ACK_HIGH_PRIO says:
    // the switch's `AckHighPrio` attribute (`SwitchNode::SendToDev`) is never set by third.cc,
    // which only moves the hosts' ACK queue (`RdmaEgressQueue::ack_q_idx`) out of PFC's reach.
    let control: Option<u8> = None;
    let default = (0..8u8).find(|p| !pgs.contains_key(p) && Some(*p) != control);

    // ECN: every link rate of the topology needs its three thresholds (third.cc asserts it).
    let mut errors = Vec::new();
    let ecn = if cfg.enable_qcn {
        for s in &speeds {
            let link = topo.iter().find(|l| l.rate == *s).map(|l| format!("{} -- {}", l.ends[0].2, l.ends[1].2));
            for (key, has, what) in [
                ("KMIN_MAP", cfg.kmin_map.contains_key(s), "Kmin in KB"),
                ("KMAX_MAP", cfg.kmax_map.contains_key(s), "Kmax in KB"),
                ("PMAX_MAP", cfg.pmax_map.contains_key(s), "Pmax"),
            ] {
                if !has {
                    let bps = s.bits_per_second();
                    let (mark_key, fix) = match cfg.set.get(key) {
                        Some(set) => {
                            let n = set.text.split(' ').next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
                            (key, format!("add `{bps} <{what}>` to {key} and make its count {}", n + 1))
                        }
                        None => ("ENABLE_QCN", format!("add a line `{key} 1 {bps} <{what}>`")),
                    };
                    errors.push(
                        error(
                            mark_key,
                            format!(
                                "{key} has no entry for {s} ({} bit/s), the rate of link {} in {}",
                                s.bits_per_second(),
                                link.clone().unwrap_or_default(),
                                inp.topology_file
                            ),
                        )
                        .expected(format!(
                            "an entry `<rate in bit/s> <{what}>` for every link rate of the topology (ENABLE_QCN 1; third.cc asserts it)"
                        ))
                        .suggest(Some(fix)),
                    );
                }
            }
        }
        let mut m = BTreeMap::new();
        for (r, kmax) in &cfg.kmax_map {
            if let (Some(kmin), Some(pmax)) = (cfg.kmin_map.get(r), cfg.pmax_map.get(r)) {
                if kmin.value > kmax.value {
                    errors.push(in_file(
                        Diagnostic::error(
                            Mark { line: cfg.set["KMIN_MAP"].line, column: kmin.column },
                            "",
                            format!("Kmin {} KB is above Kmax {} KB at {r}", kmin.value, kmax.value),
                        )
                        .expected("Kmin at most Kmax"),
                        cf,
                    ));
                }
                m.insert(*r, (kmin.value * 1000, kmax.value * 1000, pmax.value));
            }
        }
        Some(m)
    } else {
        None
    };

    // Alpha and headroom per link rate (and for the rates of the ECN maps no link has, so that
    // a variant may use them).
    let all_speeds: BTreeSet<Rate> = speeds.iter().copied().chain(ecn.iter().flat_map(|m| m.keys().copied())).collect();
    let alpha_map = all_speeds.iter().map(|&s| (s, alpha(s, nic_rate))).collect();
    let mut by_speed: BTreeMap<Rate, BTreeMap<u64, Vec<String>>> = BTreeMap::new();
    for l in &topo {
        for (_, _, port) in l.ends.iter().filter(|e| e.1) {
            by_speed
                .entry(l.rate)
                .or_default()
                .entry(headroom_bytes(l.rate, l.delay_ns))
                .or_default()
                .push(port.clone());
        }
    }
    let mut headroom = BTreeMap::new();
    let mut headroom_ports: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for (s, values) in by_speed {
        // The most common value (the smallest of equals) is the rate's; the others are per port.
        let common =
            values.iter().max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.0.cmp(a.0))).map(|(v, _)| *v).unwrap_or(0);
        headroom.insert(s, (common, false));
        for (v, ports) in values.into_iter().filter(|(v, _)| *v != common) {
            headroom_ports.entry(v).or_default().extend(ports);
        }
    }
    let delays: BTreeSet<u64> = topo.iter().map(|l| l.delay_ns).collect();
    let single_delay = (delays.len() == 1).then(|| delays.first().copied()).flatten();
    for s in all_speeds.iter().filter(|s| !speeds.contains(s)) {
        if let Some(d) = single_delay {
            headroom.insert(*s, (headroom_bytes(*s, d), true));
        }
    }
    // Host ports at a rate without switch ports still need a headroom value to load.
    for s in &speeds {
        headroom.entry(*s).or_insert_with(|| (headroom_bytes(*s, delays.first().copied().unwrap_or(0)), false));
    }

    // Congestion control.
    let dcqcn = cfg.cc_mode == 1;
    if !dcqcn {
        diags.push(warn(
            "CC_MODE",
            format!(
                "CC_MODE {}: rocelab has no {} model: the scenario runs without end-to-end congestion control (PFC only)",
                cfg.cc_mode,
                cc_name(cfg.cc_mode)
            ),
        ));
    } else {
        dcqcn_checks(cfg, cf, &mut diags, &mut errors);
        if !cfg.rate_bound {
            diags.push(warn(
                "RATE_BOUND",
                "RATE_BOUND 0: that simulator then sends at line rate whatever DCQCN computes; the scenario turns the \
                 reaction point off (qos.dcqcn.reaction_point: false)"
                    .into(),
            ));
        }
    }
    if cfg.error_rate_per_link != 0.0 {
        diags.push(warn(
            "ERROR_RATE_PER_LINK",
            format!(
                "ERROR_RATE_PER_LINK {} ignored: rocelab models loss from buffers, not from bit errors",
                cfg.set["ERROR_RATE_PER_LINK"].text
            ),
        ));
    }
    if cfg.l2_back_to_zero {
        diags.push(warn(
            "L2_BACK_TO_ZERO",
            "L2_BACK_TO_ZERO 1: after a NACK that simulator goes back to the start of the L2_CHUNK_SIZE chunk; rocelab \
             retransmits go-back-N from the first packet missing"
                .into(),
        ));
    }
    let payload = u64::from(cfg.payload);
    let ack_every = match cfg.l2_ack_interval {
        0 => {
            diags.push(warn(
                "L2_ACK_INTERVAL",
                format!(
                    "{}: that simulator's senders ignore every ACK (rdma-hw.cc ReceiveAck), so no flow completes there; \
                     rocelab always acknowledges (an ACK per packet)",
                    cfg.shown("L2_ACK_INTERVAL", "0")
                ),
            ));
            None
        }
        i if i <= payload => None,
        i => {
            // ReceiveUdp resets the milestone to L2_ACK_INTERVAL on every packet: a queue pair's
            // first L2_ACK_INTERVAL bytes are acknowledged per chunk, the rest per packet.
            let chunked: u128 = flows.iter().map(|f| f.size.min(i) as u128).sum();
            let all: u128 = flows.iter().map(|f| f.size as u128).sum();
            let per_chunk = (cfg.l2_chunk_size / payload).max(1);
            let every = if chunked * 2 > all { per_chunk } else { 1 };
            // The share of the bytes under the rule chosen, rounded down.
            let share = |b: u128| (b * 100).checked_div(all).unwrap_or(100);
            diags.push(warn(
                "L2_ACK_INTERVAL",
                format!(
                    "L2_ACK_INTERVAL {i}: that simulator acknowledges each L2_CHUNK_SIZE ({} B) boundary until a queue \
                     pair has received {i} bytes, then every packet (rdma-hw.cc ReceiverCheckSeq; ReceiveUdp resets the \
                     milestone on every packet); rocelab does not model that rule: ack_every {every}, the rule of {}% of \
                     the flow file's bytes, is the nearest",
                    cfg.l2_chunk_size,
                    if every == 1 { share(all - chunked) } else { share(chunked) }
                ),
            ));
            (every != 1).then_some(every)
        }
    };
    let window = if cfg.has_win {
        let hosts: BTreeSet<usize> = topo.iter().flat_map(|l| l.ends.iter().filter(|e| !e.1).map(|e| e.0)).collect();
        let work = hosts.len() as u64 * (topo.len() as u64 * 3 + 1);
        if work > MAX_BDP_WORK {
            errors.push(
                error(
                    "HAS_WIN",
                    format!(
                        "{}: the window is the largest bandwidth-delay product over every pair of hosts, too many \
                         paths to search in a topology of {} links",
                        cfg.shown("HAS_WIN", "1"),
                        topo.len()
                    ),
                )
                .suggest(Some("set HAS_WIN 0 and give `fabric.rdma.window` in the scenario by hand".into())),
            );
        }
        if cfg.global_t != 1 {
            diags.push(warn(
                "GLOBAL_T",
                format!(
                    "GLOBAL_T {}: per host-pair windows are not modelled: every queue pair gets the largest (third.cc maxBdp)",
                    cfg.global_t
                ),
            ));
        }
        if cfg.var_win {
            diags
                .push(warn("VAR_WIN", "VAR_WIN 1: the variable window is not modelled: the window stays fixed".into()));
        }
        (work <= MAX_BDP_WORK).then(|| max_bdp(&topo, payload))
    } else {
        None
    };
    if cfg.link_down[0] > 0 {
        let [t, a, b] = cfg.link_down;
        diags.push(warn(
            "LINK_DOWN",
            format!(
                "LINK_DOWN {t} {a} {b}: that simulator takes the link between nodes {a} and {b} down at 2 s + {}; \
                 rocelab does not simulate link failures (it stays up)",
                Time::us(t)
            ),
        ));
    }
    for key in ["DATA_RATE", "LINK_DELAY"] {
        if cfg.is_set(key) {
            diags.push(warn(key, format!("{key} ignored: each link's rate and delay come from the topology file")));
        }
    }
    let mut notes = Vec::new();
    if cfg.enable_trace {
        for (key, what) in [
            (
                "TRACE_FILE",
                "the list of nodes that simulator traces: not imported; `rocelab sim --pcap FILE --pcap-port \
                 DEVICE:PORT` captures the chosen ports' frames",
            ),
            ("TRACE_OUTPUT_FILE", "that simulator's packet trace: `rocelab sim --pcap FILE` writes a pcap instead"),
            (
                "QLEN_MON_FILE",
                "that simulator's queue-length histogram (QLEN_MON_START to QLEN_MON_END): `rocelab sim --out DIR` \
                 writes queue depths over time (queue_depth.csv) instead",
            ),
        ] {
            if let Some(s) = cfg.set.get(key) {
                notes.push(Note {
                    file: cf.into(),
                    line: s.line,
                    column: s.column,
                    message: format!("{key} {} is {what}", s.text),
                });
            }
        }
    }
    if let Some(s) = cfg.set.get("ACK_HIGH_PRIO").filter(|_| cfg.ack_high_prio) {
        notes.push(Note {
            file: cf.into(),
            line: s.line,
            column: s.column,
            message: "ACK_HIGH_PRIO 1 puts that simulator's ACKs in a host queue no pause stops; its switches queue \
                      them with their flow's data all the same (third.cc never sets their AckHighPrio). rocelab's \
                      hosts also send ACKs ahead of data, in the flow's class, which a pause of that class holds: \
                      the two differ only while a receiving host's own port is paused"
                .into(),
        });
    }
    if !errors.is_empty() {
        errors.extend(diags);
        return Err(errors);
    }
    let plan = Plan {
        cfg: cfg.clone(),
        name: inp.name.into(),
        config_file: cf.into(),
        lossless,
        total_flows: flows.len(),
        ecn,
        control,
        default,
        nic_rate,
        alpha: alpha_map,
        headroom,
        single_delay: single_delay.map(Time::ns),
        headroom_ports,
        window,
        ack_every,
        dcqcn,
    };
    Ok((plan, diags, notes))
}

/// DCQCN values rocelab cannot take (errors), and keys without a usable default (warnings).
fn dcqcn_checks(cfg: &HpccConfig, cf: &str, diags: &mut Vec<Diagnostic>, errors: &mut Vec<Diagnostic>) {
    let err = |key: &str, msg: String, expected: &str| {
        in_file(Diagnostic::error(cfg.mark(key), "", msg).expected(expected), cf)
    };
    for (key, t) in [
        ("ALPHA_RESUME_INTERVAL", Some(cfg.alpha_resume_interval)),
        ("RATE_DECREASE_INTERVAL", Some(cfg.rate_decrease_interval)),
        ("RP_TIMER", cfg.rp_timer),
    ] {
        if let Some(t) = t.filter(|t| *t == Time::ZERO || *t > Time::ms(1000)) {
            errors.push(err(
                key,
                format!("{key} {t}: a DCQCN period must be above 0 and at most 1 s"),
                "microseconds above 0, e.g. `55`",
            ));
        }
    }
    if let Some(g) = cfg.ewma_gain.filter(|g| !(*g > 0.0 && *g <= 1.0)) {
        errors.push(err(
            "EWMA_GAIN",
            format!("EWMA_GAIN {g} is not a gain in (0, 1]"),
            "a number above 0 and at most 1, e.g. `0.00390625`",
        ));
    }
    if cfg.fast_recovery_times > 31 {
        errors.push(err(
            "FAST_RECOVERY_TIMES",
            format!(
                "FAST_RECOVERY_TIMES {} is above 31 (rocelab's fast_recovery_steps range)",
                cfg.fast_recovery_times
            ),
            "0 to 31",
        ));
    }
    for (key, r) in [("RATE_AI", cfg.rate_ai), ("RATE_HAI", cfg.rate_hai), ("MIN_RATE", Some(cfg.min_rate))] {
        if r.is_some_and(|r| r.bits_per_second() == 0) {
            errors.push(err(key, format!("{key} 0: a DCQCN rate must be above 0"), "a rate above 0, e.g. `20Mb/s`"));
        }
    }
    for (key, unset, profile) in [
        ("RP_TIMER", cfg.rp_timer.is_none(), "300us"),
        ("EWMA_GAIN", cfg.ewma_gain.is_none(), "0.00390625"),
        ("RATE_AI", cfg.rate_ai.is_none(), "20Mb/s"),
        ("RATE_HAI", cfg.rate_hai.is_none(), "200Mb/s"),
    ] {
        if unset {
            diags.push(in_file(
                Diagnostic::warning(
                    cfg.mark(key),
                    "",
                    format!("{key} not set: that simulator has no usable default for it; the hpcc-compat profile's {profile} is used"),
                ),
                cf,
            ));
        }
    }
}

fn in_file(mut d: Diagnostic, file: &str) -> Diagnostic {
    if d.file.is_empty() {
        d.file = file.to_string();
    }
    d
}

/// [`plan`] and `render` on the config's text: the scenario text, naming the topology and flow
/// files `topology_ref` and `flows_ref`, with its warnings and notes.
pub fn map_config(
    config: &str,
    inp: &Inputs,
    topology_ref: &str,
    flows_ref: &str,
) -> Result<(String, Vec<Diagnostic>, Vec<Note>), Vec<Diagnostic>> {
    let (cfg, mut diags) = parse_config(config);
    diags.iter_mut().for_each(|d| d.file = inp.config_file.into());
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let (plan, more, notes) = plan(&cfg, inp).map_err(|mut e| {
        e.extend(diags.clone());
        e
    })?;
    diags.extend(more);
    Ok((render(&plan, topology_ref, flows_ref), diags, notes))
}

/// Reads `config` and the files it names, and imports them. Paths in config.txt are relative to
/// its folder; a path that does not exist there is looked for by its file name in that folder
/// (with a warning). `opts` gives the topology or flow file's place instead.
pub fn import_config(config: &Path, opts: &ImportOptions) -> Result<HpccImport, Diagnostics> {
    let shown = config.display().to_string();
    let fail = |d: Vec<Diagnostic>| {
        let mut all = Diagnostics(d);
        all.sort();
        all
    };
    let read_err = |file: &str, mark: Mark, msg: String| {
        let mut d = Diagnostic::error(mark, "", msg);
        d.file = file.to_string();
        d
    };
    let text = read_text(config, MAX_CONFIG_BYTES)
        .map_err(|m| fail(vec![read_err(&shown, Mark { line: 1, column: 1 }, m)]))?;
    let (cfg, mut diags) = parse_config(&text);
    diags.iter_mut().for_each(|d| d.file = shown.clone());
    let dir = config.parent().map(Path::to_path_buf).unwrap_or_default();
    let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
    let mut found = Vec::new();
    for (key, value, given, flag) in [
        ("TOPOLOGY_FILE", &cfg.topology_file, &opts.topology, "--topology"),
        ("FLOW_FILE", &cfg.flow_file, &opts.flows, "--flows"),
    ] {
        let path = match (given, value) {
            (Some(p), _) => Some(p.clone()),
            (None, None) => {
                diags.push(
                    read_err(&shown, Mark { line: 1, column: 1 }, format!("{key} is not set"))
                        .expected(format!("a line `{key} <file>`"))
                        .suggest(Some(format!("add it, or give the file with `{flag} FILE`"))),
                );
                None
            }
            (None, Some(v)) => {
                let mark = cfg.mark(key);
                let direct = dir.join(v);
                let base = Path::new(v).file_name().map(|b| dir.join(b));
                match base.filter(|b| !direct.exists() && b.exists() && *b != direct) {
                    Some(b) => {
                        let mut w = Diagnostic::warning(
                            mark,
                            "",
                            format!("{key} `{v}` is not in {}; using `{}` there", dir.display(), file_name(&b, "")),
                        );
                        w.file = shown.clone();
                        diags.push(w);
                        Some(b)
                    }
                    None if direct.exists() => Some(direct),
                    None => {
                        diags.push(
                            read_err(&shown, mark, format!("{key} `{v}`: no such file in {}", dir.display()))
                                .suggest(Some(format!("give its place with `{flag} FILE`"))),
                        );
                        None
                    }
                }
            }
        };
        found.push(path);
    }
    if diags.iter().any(Diagnostic::is_error) {
        return Err(fail(diags));
    }
    let (Some(topo_path), Some(flows_path)) = (found[0].clone(), found[1].clone()) else {
        return Err(fail(diags));
    };
    let read = |p: &Path| {
        read_text(p, crate::input::MAX_TRACE_BYTES)
            .map_err(|m| fail(vec![read_err(&p.display().to_string(), Mark { line: 1, column: 1 }, m)]))
    };
    let topology = read(&topo_path)?;
    let flows = read(&flows_path)?;
    let name = fabric_name(config);
    let topo_name = file_name(&topo_path, "topology.txt");
    let mut flows_name = file_name(&flows_path, "flows.txt");
    if flows_name == topo_name {
        flows_name = format!("flows-{flows_name}");
    }
    let (ts, fs) = (topo_path.display().to_string(), flows_path.display().to_string());
    let inp = Inputs {
        name: &name,
        config_file: &shown,
        topology_file: &ts,
        topology: &topology,
        flows_file: &fs,
        flows: &flows,
    };
    let (plan, more, notes) = plan(&cfg, &inp).map_err(|mut e| {
        e.extend(diags.clone());
        fail(e)
    })?;
    diags.extend(more);
    // Load the scenario as `rocelab validate` will, on the files where they are now.
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (ta, fa) = (abs(&topo_path), abs(&flows_path));
    let check = render(&plan, &ta.display().to_string(), &fa.display().to_string());
    if let Err(mut e) = crate::load_str(&check, &format!("{name}/scenario.yaml (generated)"), Path::new("/")) {
        e.0.extend(diags);
        e.sort();
        return Err(e);
    }
    Ok(HpccImport {
        name,
        scenario: render(&plan, &topo_name, &flows_name),
        files: vec![(topo_name, topo_path), (flows_name, flows_path)],
        warnings: diags,
        notes,
    })
}

/// The config folder's name (the experiment's), or `hpcc`.
fn fabric_name(config: &Path) -> String {
    let dir = config
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    dir.file_name().and_then(|n| n.to_str()).filter(|n| !n.is_empty()).unwrap_or("hpcc").to_string()
}

fn file_name(p: &Path, or: &str) -> String {
    p.file_name().and_then(|n| n.to_str()).unwrap_or(or).to_string()
}

fn read_text(p: &Path, max: u64) -> Result<String, String> {
    Ok(crate::input::read_text_limited(p, max, "an HPCC simulator file")?)
}

#[cfg(test)]
mod tests;
