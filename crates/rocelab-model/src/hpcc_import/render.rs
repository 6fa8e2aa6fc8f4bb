//! The scenario text of an HPCC import ([`super::Plan`]): ordinary, hand-formatted
//! rocelab YAML, each setting with a short comment naming the config.txt key it comes from.

use super::Plan;
use crate::units::{Rate, Size};

/// Lines of YAML with their comments aligned.
struct Yaml(String);

impl Yaml {
    fn line(&mut self, indent: usize, text: &str, comment: &str) {
        let body = format!("{}{text}", " ".repeat(indent));
        if comment.is_empty() {
            self.0.push_str(&body);
        } else {
            let width = 44.max(body.len() + 3);
            self.0.push_str(&format!("{body:<width$}# {comment}"));
        }
        self.0.push('\n');
    }
    fn comment(&mut self, indent: usize, text: &str) {
        self.0.push_str(&format!("{}# {text}\n", " ".repeat(indent)));
    }
}

/// A YAML scalar: plain when that reads back as the same string, else double-quoted.
pub fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c))
        && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '/' || c == '.')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        )
        && s.parse::<f64>().is_err();
    if plain {
        return s.to_string();
    }
    let mut q = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            c if (c as u32) < 0x20 => q.push_str(&format!("\\x{:02x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// A rate as rocelab reads it: `20Mb/s`, `1Gb/s`, `100G`.
fn rate_text(r: Rate) -> String {
    let s = r.to_string();
    if s.ends_with("bps") {
        s
    } else {
        format!("{s}b/s")
    }
}

fn by_speed<T>(m: impl IntoIterator<Item = (Rate, T)>, f: impl Fn(T) -> String) -> String {
    let items: Vec<String> = m.into_iter().map(|(r, v)| format!("{r}: {}", f(v))).collect();
    format!("{{{}}}", items.join(", "))
}

/// The scenario, naming the topology and flow files `topology_ref` and `flows_ref`.
pub fn render(p: &Plan, topology_ref: &str, flows_ref: &str) -> String {
    let c = &p.cfg;
    let mut y = Yaml(String::new());
    y.comment(0, "Imported by `rocelab import hpcc` from the ns-3 HPCC simulator's configuration");
    y.comment(0, &format!("  {}", p.config_file));
    for l in [
        "read as its scratch/third.cc reads it. Each comment names the config.txt key behind a setting.".to_string(),
        "`rocelab sim scenario.yaml --out OUT` writes OUT/fct.txt and OUT/pfc.txt in that simulator's".into(),
        format!(
            "formats (its {} and {}).",
            c.shown("FCT_OUTPUT_FILE", "fct.txt"),
            c.shown("PFC_OUTPUT_FILE", "pfc.txt")
        ),
    ] {
        y.comment(0, &l);
    }
    y.line(0, "fabric:", "");
    y.line(2, &format!("name: {}", scalar(&p.name)), "the config folder's name");
    y.line(2, "topology:", "");
    y.line(
        4,
        &format!("import: {{hpcc: {}, switch_buffer: {}}}", scalar(topology_ref), Size::mib(c.buffer_size)),
        &format!("{}; {} (MiB per switch)", file_key(c, "TOPOLOGY_FILE"), c.shown("BUFFER_SIZE", "16")),
    );
    y.line(2, "qos:", "");
    y.line(4, "marking: dscp", "");
    y.line(4, "classes:", "");
    let flows_name = c.flow_file.as_deref().unwrap_or("the flow file");
    for k in &p.lossless {
        y.line(6, &format!("- name: {}", scalar(&k.name)), "");
        let whose = if p.lossless.len() == 1 {
            format!("every flow's pg in {flows_name}")
        } else {
            format!("pg {} of {} of the {} flows in {flows_name}", k.priority, k.flows, p.total_flows)
        };
        y.line(8, &format!("priority: {}", k.priority), &whose);
        y.line(8, &format!("dscp: [{}]", k.priority * 8 + 2), "");
        y.line(
            8,
            "lossless: true",
            &format!(
                "PFC; {} (that simulator's MMU uses its dynamic threshold either way)",
                c.shown("USE_DYNAMIC_PFC_THRESHOLD", "1")
            ),
        );
        match &p.ecn {
            Some(m) => {
                y.line(
                    8,
                    "ecn:",
                    &format!("{}: KMIN_MAP, KMAX_MAP (KB = 1000 B), PMAX_MAP", c.shown("ENABLE_QCN", "1")),
                );
                for (r, (kmin, kmax, pmax)) in m {
                    let (kmin, kmax) = (Size::kb(kmin / 1000), Size::kb(kmax / 1000));
                    y.line(10, &format!("{r}: {{kmin: {kmin}, kmax: {kmax}, pmax: {pmax}}}"), "");
                }
            }
            None => y.comment(8, &format!("no ecn: {}", c.shown("ENABLE_QCN", "1"))),
        }
    }
    if let Some(pr) = p.control {
        y.line(
            6,
            &format!("- {{name: control, priority: {pr}, dscp: [{}], strict: true, cnp: true}}", pr * 8),
            "ACK_HIGH_PRIO 1: ACKs ahead of data (fabric.rdma.ack_class)",
        );
    }
    if let Some(pr) = p.default {
        y.line(6, &format!("- {{name: default, priority: {pr}, dscp: [{}]}}", pr * 8), "");
    }
    y.line(4, "buffer:", "");
    y.line(
        6,
        &format!("alpha: {}", by_speed(p.alpha.iter().map(|(r, a)| (*r, *a)), |a| a.to_string())),
        &format!("third.cc: shift 3, minus 1 per doubling of the port rate above the NIC rate ({})", p.nic_rate),
    );
    y.line(6, "reserve: 4KiB", "switch-mmu.cc reserve, per port");
    let assumed: Vec<String> = p.headroom.iter().filter(|(_, v)| v.1).map(|(r, _)| r.to_string()).collect();
    let mut hc = "third.cc: 3 x rate x link delay / 8 per port".to_string();
    if let (false, Some(d)) = (assumed.is_empty(), p.single_delay) {
        let them = if assumed.len() == 1 { "it" } else { "them" };
        hc.push_str(&format!(" ({}: no link has {them}; at the links' {d})", assumed.join(", ")));
    }
    y.line(6, &format!("headroom: {}", by_speed(p.headroom.iter().map(|(r, v)| (*r, v.0)), |b| format!("{b}B"))), &hc);
    y.line(6, "xon_offset: 3KiB", "switch-mmu.cc resume_offset");
    if !p.headroom_ports.is_empty() {
        y.line(4, "ports:", "third.cc headroom of the ports whose link delay differs from their rate's most common");
        for (v, ports) in &p.headroom_ports {
            let list: Vec<String> = ports.iter().map(|s| format!("\"{s}\"")).collect();
            y.line(6, &format!("- {{ports: [{}], headroom: {v}B}}", list.join(", ")), "");
        }
    }
    dcqcn(&mut y, p);
    rdma(&mut y, p);
    y.line(0, "simulation:", "");
    y.line(2, &format!("duration: {}", c.simulator_stop_time), &c.shown("SIMULATOR_STOP_TIME", "3.01"));
    y.line(2, "nic_profile: ideal", "no NIC or PCIe latency: that simulator's hosts have none");
    let mut extra = Vec::new();
    if c.payload != 1000 {
        extra.push((format!("payload: {}B", c.payload), format!("PACKET_PAYLOAD_SIZE {}", c.payload)));
    }

    y.line(2, "model:", "");
    let why = if c.payload == 1000 {
        format!(
            "that simulator's packets, links and switches ({} is the profile's)",
            c.shown("PACKET_PAYLOAD_SIZE", "1000")
        )
    } else {
        "that simulator's packets, links and switches".to_string()
    };
    y.line(4, "profile: hpcc-compat", &why);
    for (text, comment) in extra {
        y.line(4, &text, &comment);
    }
    y.line(0, "workloads:", "");
    y.line(2, "hpcc_flows:", "");
    y.line(
        4,
        &format!("- {{name: flows, file: {}}}", scalar(flows_ref)),
        &format!("{}; no `start:` shift: times as in the file", file_key(c, "FLOW_FILE")),
    );
    y.0
}

/// `TOPOLOGY_FILE x`, or where the file came from when the config does not name it.
fn file_key(c: &crate::hpcc_config::HpccConfig, key: &str) -> String {
    match c.set.get(key) {
        Some(s) => format!("{key} {}", s.text),
        None => format!("{key} not set: the file given to `rocelab import hpcc`"),
    }
}

fn dcqcn(y: &mut Yaml, p: &Plan) {
    let c = &p.cfg;
    if !p.dcqcn {
        let name = match c.cc_mode {
            3 => "HPCC",
            7 => "TIMELY",
            8 => "DCTCP",
            _ => "HPCC-PINT",
        };
        y.line(
            4,
            "dcqcn: {enabled: false}",
            &format!("CC_MODE {} ({name}): rocelab has no {name} model; PFC only", c.cc_mode),
        );
        return;
    }
    y.line(4, "dcqcn:", &format!("{}: DCQCN, that simulator's mlx variant", c.shown("CC_MODE", "1")));
    y.line(6, "enabled: true", "");
    y.line(6, "profile: hpcc-compat", "alpha and rate cut periodic, increase on the timer alone, alpha 1 at first");
    let us = |key: &str, default: &str| format!("{} (us)", c.shown(key, default));
    y.line(6, &format!("alpha_update_interval: {}", c.alpha_resume_interval), &us("ALPHA_RESUME_INTERVAL", "55"));
    y.line(6, &format!("rate_reduce_interval: {}", c.rate_decrease_interval), &us("RATE_DECREASE_INTERVAL", "4"));
    y.line(6, &format!("clamp_target_rate: {}", c.clamp_target_rate), &c.shown("CLAMP_TARGET_RATE", "0"));
    let unset = |key: &str, profile: &str| format!("{key} not set: the profile's {profile}");
    match c.rp_timer {
        Some(t) => y.line(6, &format!("rate_increase_timer: {t}"), &us("RP_TIMER", "")),
        None => y.comment(6, &unset("RP_TIMER", "300us")),
    }
    match c.ewma_gain {
        Some(g) => y.line(6, &format!("g: {g}"), &c.shown("EWMA_GAIN", "")),
        None => y.comment(6, &unset("EWMA_GAIN", "0.00390625")),
    }
    y.line(6, &format!("fast_recovery_steps: {}", c.fast_recovery_times), &c.shown("FAST_RECOVERY_TIMES", "5"));
    for (field, key, v, profile) in [
        ("additive_increase", "RATE_AI", c.rate_ai, "20Mb/s"),
        ("hyper_increase", "RATE_HAI", c.rate_hai, "200Mb/s"),
        ("min_rate", "MIN_RATE", Some(c.min_rate), ""),
    ] {
        match v {
            Some(r) => y.line(6, &format!("{field}: {}", rate_text(r)), &c.shown(key, "100Mb/s")),
            None => y.comment(6, &unset(key, profile)),
        }
    }
    if !c.rate_bound {
        y.line(6, "reaction_point: false", "RATE_BOUND 0: senders keep line rate");
    }
}

fn rdma(y: &mut Yaml, p: &Plan) {
    let c = &p.cfg;
    let mut fields = Vec::new();
    let mut profile = Vec::new();
    if p.control.is_some() {
        fields.push(("ack_class: control".to_string(), "ACK_HIGH_PRIO 1".to_string()));
    }
    match p.window {
        Some(w) => fields.push((
            format!("window: {w}B"),
            format!(
                "{}: third.cc's maxBdp, the largest bandwidth-delay product of a host pair",
                c.shown("HAS_WIN", "1")
            ),
        )),
        None => profile.push(format!("window none ({})", c.shown("HAS_WIN", "1"))),
    }
    match p.ack_every {
        Some(n) => fields.push((
            format!("ack_every: {n}"),
            format!("{}, L2_CHUNK_SIZE {}: an ACK per chunk", c.shown("L2_ACK_INTERVAL", "0"), c.l2_chunk_size),
        )),
        None => profile.push(format!("ack_every 1, an ACK per packet ({})", c.shown("L2_ACK_INTERVAL", "0"))),
    }
    let from_profile = format!("the profile's {}", profile.join(", "));
    if fields.is_empty() {
        y.comment(2, &format!("fabric.rdma: {from_profile}"));
        return;
    }
    y.line(2, "rdma:", if profile.is_empty() { "" } else { &from_profile });
    for (text, comment) in fields {
        y.line(4, &text, &comment);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_quoted_when_yaml_would_read_them_otherwise() {
        assert_eq!(scalar("star17.txt"), "star17.txt");
        assert_eq!(scalar("fair2"), "fair2");
        assert_eq!(scalar("/tmp/a b.txt"), "\"/tmp/a b.txt\"");
        assert_eq!(scalar("true"), "\"true\"");
        assert_eq!(scalar("1.5"), "\"1.5\"");
        assert_eq!(scalar("16"), "\"16\"");
        assert_eq!(scalar("a\"b"), "\"a\\\"b\"");
        assert_eq!(scalar(""), "\"\"");
    }

    #[test]
    fn rates_read_back() {
        for r in [Rate::mbps(20), Rate::gbps(1), Rate(500), Rate(2_500_000)] {
            assert_eq!(rate_text(r).parse::<Rate>().unwrap(), r, "{}", rate_text(r));
        }
        assert_eq!(rate_text(Rate::mbps(20)), "20Mb/s");
    }
}
