//! What rocelab knows about platforms and switch models: how each platform names its ports, and
//! the port layout and packet buffer of the switch models the seed deployments used.

use crate::fabric::{Platform, PortGroup};
use crate::units::{Rate, Size};

impl Platform {
    /// The name of the `index`-th front-panel port (1-based) running at `speed`, as the
    /// platform's CLI shows it.
    pub fn port_name(self, index: u32, speed: Rate) -> String {
        match self {
            Platform::NvidiaOnyx => format!("eth1/{index}"),
            Platform::NvidiaCumulus => format!("swp{index}"),
            Platform::AristaEos => format!("Ethernet{index}"),
            Platform::HpeComware => {
                let kind = match speed.0 / 1_000_000_000 {
                    0 | 1 => "GigabitEthernet",
                    10 => "Ten-GigabitEthernet",
                    25 => "Twenty-FiveGigE",
                    40 => "FortyGigE",
                    100 => "HundredGigE",
                    _ => "Ten-GigabitEthernet",
                };
                format!("{kind}1/0/{index}")
            }
            Platform::Sonic => format!("Ethernet{}", (index - 1) * 4),
            Platform::DellOs10 => format!("ethernet1/1/{index}"),
            // OS9 numbers ports from 0 within stack unit 0 and names them by speed.
            Platform::DellOs9 => {
                let kind = match speed.0 / 1_000_000_000 {
                    0 | 1 => "GigabitEthernet",
                    25 => "twentyFiveGigE",
                    40 => "fortyGigE",
                    100 => "hundredGigE",
                    _ => "TenGigabitEthernet",
                };
                format!("{kind}0/{}", index - 1)
            }
            Platform::CiscoNxos => format!("Ethernet1/{index}"),
            Platform::Generic => format!("p{index}"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Platform::NvidiaOnyx => "nvidia-onyx",
            Platform::NvidiaCumulus => "nvidia-cumulus",
            Platform::AristaEos => "arista-eos",
            Platform::HpeComware => "hpe-comware",
            Platform::Sonic => "sonic",
            Platform::DellOs10 => "dell-os10",
            Platform::DellOs9 => "dell-os9",
            Platform::CiscoNxos => "cisco-nxos",
            Platform::Generic => "generic",
        }
    }

    /// The software releases of this platform whose configuration syntax rocelab renders, oldest
    /// first, as a fabric file's `os_version` names them; empty for `generic`. A release not
    /// listed is refused at load time rather than rendered in a syntax it may not take.
    pub fn releases(self) -> &'static [&'static str] {
        match self {
            // NVIDIA Cumulus Linux user guide and NVUE command reference, per release: the
            // syntax changes rocelab follows are at 5.4 (cable length under `qos pfc`) and 5.6
            // (`qos pfc-watchdog state`).
            Platform::NvidiaCumulus => {
                &["5.0", "5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8", "5.9", "5.10", "5.11", "5.12"]
            }
            Platform::NvidiaOnyx => &["3.9", "3.10"],
            Platform::AristaEos => &["4.28", "4.29", "4.30", "4.31", "4.32"],
            Platform::HpeComware => &["7"],
            Platform::Sonic => &["202205", "202211", "202305", "202311", "202405"],
            Platform::DellOs10 => &["10.5.4", "10.5.5", "10.5.6"],
            Platform::DellOs9 => &["9.11", "9.14"],
            Platform::CiscoNxos => &["9.3", "10.2", "10.3", "10.4"],
            Platform::Generic => &[],
        }
    }

    /// The release rendered when a device names none (one of [`Platform::releases`]).
    pub fn default_release(self) -> Option<&'static str> {
        match self {
            Platform::NvidiaCumulus => Some("5.9"),
            Platform::NvidiaOnyx => Some("3.10"),
            Platform::AristaEos => Some("4.30"),
            Platform::HpeComware => Some("7"),
            Platform::Sonic => Some("202311"),
            Platform::DellOs10 => Some("10.5.5"),
            Platform::DellOs9 => Some("9.14"),
            Platform::CiscoNxos => Some("10.3"),
            Platform::Generic => None,
        }
    }
}

/// A switch model's front panel and buffer, with where the figures come from.
#[derive(Debug, Clone)]
pub struct SwitchModel {
    pub platform: Platform,
    /// Names this model is known by (case-insensitive).
    pub names: &'static [&'static str],
    pub ports: &'static [(&'static str, u64, &'static [u64])],
    pub buffer: Size,
    pub source: &'static str,
}

impl SwitchModel {
    pub fn port_groups(&self) -> Vec<PortGroup> {
        self.ports
            .iter()
            .map(|(names, gbps, others)| PortGroup {
                names: names.to_string(),
                speed: Rate::gbps(*gbps),
                speeds: others.iter().map(|g| Rate::gbps(*g)).collect(),
            })
            .collect()
    }
}

const QSFP28: &[u64] = &[40, 50, 25, 10];
const SFP28: &[u64] = &[10];

pub const SWITCH_MODELS: &[SwitchModel] = &[
    SwitchModel {
        platform: Platform::NvidiaOnyx,
        names: &["SN2410", "MSN2410"],
        ports: &[("eth1/1-48", 25, SFP28), ("eth1/49-56", 100, QSFP28)],
        buffer: Size::mb(16),
        source: "NVIDIA Spectrum SN2000 series datasheet: 48x25G + 8x100G, 16MB shared buffer",
    },
    SwitchModel {
        platform: Platform::NvidiaOnyx,
        names: &["SN2100", "MSN2100"],
        ports: &[("eth1/1-16", 100, QSFP28)],
        buffer: Size::mb(16),
        source: "NVIDIA Spectrum SN2000 series datasheet: 16x100G, 16MB shared buffer",
    },
    SwitchModel {
        platform: Platform::NvidiaOnyx,
        names: &["SN2700", "MSN2700"],
        ports: &[("eth1/1-32", 100, QSFP28)],
        buffer: Size::mb(16),
        source: "NVIDIA Spectrum SN2000 series datasheet: 32x100G, 16MB shared buffer",
    },
    SwitchModel {
        platform: Platform::HpeComware,
        names: &["5900", "JG838A", "5900AF-48XG-4QSFP+"],
        ports: &[("Ten-GigabitEthernet1/0/1-48", 10, &[1]), ("FortyGigE1/0/49-52", 40, &[10])],
        buffer: Size::mb(9),
        source: "HPE FlexFabric 5900 datasheet (JG838A): 48x10G SFP+ + 4x40G QSFP+, 9MB packet buffer",
    },
    SwitchModel {
        platform: Platform::AristaEos,
        names: &["7050SX3-48YC12", "DCS-7050SX3-48YC12"],
        ports: &[("Ethernet1-48", 25, SFP28), ("Ethernet49-60/1", 100, QSFP28)],
        buffer: Size::mb(32),
        source: "Arista 7050X3 datasheet and the Arista/Pure NVMe-oF guide: 48x25G + 12x100G, 32MB shared buffer",
    },
    SwitchModel {
        platform: Platform::AristaEos,
        names: &["7050CX3-32S", "DCS-7050CX3-32S"],
        ports: &[("Ethernet1-32/1", 100, QSFP28)],
        buffer: Size::mb(32),
        source: "Arista 7050X3 datasheet: 32x100G, 32MB shared buffer",
    },
    SwitchModel {
        platform: Platform::DellOs9,
        names: &["S4810", "S4810P", "Force10 S4810"],
        // The four QSFP+ ports are numbered 48, 52, 56 and 60: each can split into four 10G
        // ports (`stack-unit 0 port 48 portmode quad`), which takes the numbers in between.
        ports: &[
            ("TenGigabitEthernet0/0-47", 10, &[1]),
            ("fortyGigE0/48", 40, &[]),
            ("fortyGigE0/52", 40, &[]),
            ("fortyGigE0/56", 40, &[]),
            ("fortyGigE0/60", 40, &[]),
        ],
        buffer: Size::mb(9),
        source: "Dell Force10 S4810 (FTOS 9.2 configuration guide; Network World review 2011): 48x10G SFP+ + 4x40G QSFP+; Broadcom Trident+ BCM56840, 9MB shared buffer (port-buffers.forwardingplane.net)",
    },
];

/// The known switch model called `name` (case-insensitive).
pub fn switch_model(name: &str) -> Option<&'static SwitchModel> {
    SWITCH_MODELS.iter().find(|m| m.names.iter().any(|n| n.eq_ignore_ascii_case(name)))
}

/// Buffer of a switch whose size the fabric does not give and whose model rocelab does not
/// know: 12MB, about a Broadcom Trident2's, a middle figure for a data-centre ToR.
pub const DEFAULT_SWITCH_BUFFER: Size = Size::mb(12);

/// Expands `eth1/1-48` to `eth1/1` … `eth1/48`. The range is the first `N-M` between digits;
/// text without one is a single port. Errors on a reversed or huge range.
pub fn expand_port_range(pattern: &str) -> Result<Vec<String>, String> {
    let bytes = pattern.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'-' || i == 0 || i + 1 >= bytes.len() {
            continue;
        }
        if !bytes[i - 1].is_ascii_digit() || !bytes[i + 1].is_ascii_digit() {
            continue;
        }
        let start = bytes[..i].iter().rposition(|c| !c.is_ascii_digit()).map_or(0, |p| p + 1);
        let end = bytes[i + 1..].iter().position(|c| !c.is_ascii_digit()).map_or(bytes.len(), |p| i + 1 + p);
        let lo: u32 = pattern[start..i].parse().map_err(|_| format!("bad range in `{pattern}`"))?;
        let hi: u32 = pattern[i + 1..end].parse().map_err(|_| format!("bad range in `{pattern}`"))?;
        if hi < lo {
            return Err(format!("range `{lo}-{hi}` in `{pattern}` runs backwards"));
        }
        if hi - lo >= 4096 {
            return Err(format!("range `{lo}-{hi}` in `{pattern}` names more than 4096 ports"));
        }
        let (head, tail) = (&pattern[..start], &pattern[end..]);
        return Ok((lo..=hi).map(|n| format!("{head}{n}{tail}")).collect());
    }
    Ok(vec![pattern.to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_expand_on_any_number() {
        assert_eq!(expand_port_range("eth1/1-3").unwrap(), ["eth1/1", "eth1/2", "eth1/3"]);
        assert_eq!(expand_port_range("Ethernet49-50/1").unwrap(), ["Ethernet49/1", "Ethernet50/1"]);
        assert_eq!(
            expand_port_range("Ten-GigabitEthernet1/0/1-2").unwrap(),
            ["Ten-GigabitEthernet1/0/1", "Ten-GigabitEthernet1/0/2"]
        );
        assert_eq!(expand_port_range("swp7").unwrap(), ["swp7"]);
        assert!(expand_port_range("eth1/9-2").is_err());
    }

    #[test]
    fn platforms_name_ports_their_own_way() {
        assert_eq!(Platform::NvidiaOnyx.port_name(49, Rate::gbps(100)), "eth1/49");
        assert_eq!(Platform::HpeComware.port_name(49, Rate::gbps(40)), "FortyGigE1/0/49");
        assert_eq!(Platform::HpeComware.port_name(1, Rate::gbps(10)), "Ten-GigabitEthernet1/0/1");
        assert_eq!(Platform::Sonic.port_name(3, Rate::gbps(100)), "Ethernet8");
        assert_eq!(Platform::NvidiaCumulus.port_name(1, Rate::gbps(100)), "swp1");
    }

    #[test]
    fn known_models_have_their_front_panel() {
        let m = switch_model("sn2410").unwrap();
        let names: usize = m.ports.iter().map(|(p, _, _)| expand_port_range(p).unwrap().len()).sum();
        assert_eq!(names, 56);
        let m = switch_model("JG838A").unwrap();
        assert_eq!(m.platform, Platform::HpeComware);
    }

    #[test]
    fn dell_s4810_runs_os9_with_ports_numbered_from_zero() {
        let m = switch_model("s4810").unwrap();
        assert_eq!(m.platform, Platform::DellOs9);
        let names: Vec<String> = m.port_groups().iter().flat_map(|g| expand_port_range(&g.names).unwrap()).collect();
        assert_eq!(names.len(), 52);
        assert_eq!(names[0], "TenGigabitEthernet0/0");
        assert_eq!(names[47], "TenGigabitEthernet0/47");
        assert_eq!(&names[48..], ["fortyGigE0/48", "fortyGigE0/52", "fortyGigE0/56", "fortyGigE0/60"]);
        assert_eq!(m.buffer, Size::mb(9));
        // The generators name ports the same way on an S4810 listed without a model.
        assert_eq!(Platform::DellOs9.port_name(1, Rate::gbps(10)), "TenGigabitEthernet0/0");
        assert_eq!(Platform::DellOs9.port_name(49, Rate::gbps(40)), "fortyGigE0/48");
        let p: Platform = serde_json::from_str("\"ftos\"").unwrap();
        assert_eq!(p, Platform::DellOs9);
        assert_eq!(p.name(), "dell-os9");
    }
}
