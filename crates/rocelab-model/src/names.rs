//! What a name may be. Names written in a fabric file, made by a generator or read from an
//! imported topology end up in root shell scripts, PowerShell sessions, switch CLIs and file
//! names; `rocelab config` quotes them for each language, but a name that the platform itself
//! would refuse is a mistake in the fabric file, and one that carries `;`, `$( )` or `../` is an
//! attack on whoever runs the output. So every name is checked at load against what the place it
//! goes to accepts, and refused with what is allowed and, where one is obvious, a fix.
//!
//! The rules, each with its source:
//! - device names are hostnames: one label of RFC 952 as relaxed by RFC 1123 §2.1 (letters,
//!   digits and `-`, 1 to 63 characters, no `-` at either end, a digit may come first). `_` and
//!   `.` are refused: hostnames do not allow `_`, a `.` would make the name a domain, and no
//!   example or generator uses either (generators make `leaf1`, `edge0-1`, `host3`).
//! - Linux interface names: the kernel's `dev_valid_name()` (net/core/dev.c) accepts 1 to 15
//!   bytes (`IFNAMSIZ` 16 with its NUL), not `.` or `..`, without `/`, `:` or whitespace. rocelab
//!   narrows that to letters, digits, `-`, `_`, `.` and `@` not starting with `-`, so that a
//!   name is one shell word and never read as an option by `ip`, `ethtool` or `mlnx_qos`.
//! - Windows adapter (connection) names: up to 256 characters (`NDIS_IF_MAX_STRING_SIZE`, the
//!   `ifAlias` of RFC 2863), and the Network Connections folder refuses `\ / : * ? " < > |` in
//!   one. Spaces, parentheses and the rest are allowed (`SLOT 2 Port 1`,
//!   `vEthernet (SMB_1)`): the PowerShell script quotes them. Control characters are refused.
//! - switch port names: the characters the platform's own names are made of (see
//!   [`switch_port`]), so that a name is one token of the vendor CLI, which has no quoting.
//! - variant names: a directory under `sim --all --out DIR/runs/`, so one file name component:
//!   not `.` or `..`, no `/` or `\`, no control characters, at most 100 characters.

use crate::fabric::{Os, Platform};

/// A name that breaks a rule: what is wrong, what is allowed, and a fix where there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameError {
    pub message: String,
    pub expected: String,
    pub suggestion: Option<String>,
}

/// The most characters of a device name (RFC 1123 §2.1: a label is at most 63 octets).
pub const MAX_HOSTNAME: usize = 63;
/// The most bytes of a Linux interface name (`IFNAMSIZ` - 1).
pub const MAX_LINUX_IFNAME: usize = 15;
/// The most characters of a Windows adapter name.
pub const MAX_WINDOWS_ADAPTER: usize = 256;
/// The most characters of a switch port name (vendors' are under 32).
pub const MAX_SWITCH_PORT: usize = 64;
/// The most characters of a variant name (a directory name; file systems allow 255 bytes).
pub const MAX_VARIANT: usize = 100;

/// The characters of `name` that `ok` refuses, each once, shown for a message.
fn offending(name: &str, ok: impl Fn(char) -> bool) -> String {
    let mut bad: Vec<char> = Vec::new();
    for c in name.chars().filter(|&c| !ok(c)) {
        if !bad.contains(&c) {
            bad.push(c);
        }
    }
    bad.iter()
        .map(|c| if c.is_control() || c.is_whitespace() { format!("{c:?}") } else { format!("`{c}`") })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `name` with each run of refused characters replaced by `-` and hyphens trimmed from the
/// ends, if that is a valid name different from it.
fn repaired(name: &str, ok: impl Fn(char) -> bool, max: usize, valid: impl Fn(&str) -> bool) -> Option<String> {
    let mut out = String::new();
    for c in name.chars() {
        if ok(c) {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_matches('-').chars().take(max).collect();
    let out = out.trim_end_matches('-').to_string();
    (out != name && valid(&out)).then(|| format!("write `{out}`"))
}

fn err(message: String, expected: &str, suggestion: Option<String>) -> NameError {
    NameError { message, expected: expected.to_string(), suggestion }
}

fn hostname_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

fn is_hostname(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_HOSTNAME
        && name.chars().all(hostname_char)
        && !name.starts_with('-')
        && !name.ends_with('-')
}

const HOSTNAME: &str = "a hostname: 1 to 63 letters, digits and `-`, not starting or ending with `-` (RFC 1123 §2.1)";

/// A device name: a hostname label (see the module).
pub fn device(name: &str) -> Result<(), NameError> {
    if is_hostname(name) {
        return Ok(());
    }
    let fix = repaired(name, hostname_char, MAX_HOSTNAME, is_hostname);
    let message = if name.is_empty() {
        "empty device name".to_string()
    } else if !name.chars().all(hostname_char) {
        format!("device name `{}` contains {}", name.escape_debug(), offending(name, hostname_char))
    } else if name.len() > MAX_HOSTNAME {
        format!("device name `{name}` has {} characters", name.len())
    } else {
        format!("device name `{name}` starts or ends with `-`")
    };
    Err(err(message, HOSTNAME, fix))
}

fn linux_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-_.@".contains(c)
}

fn is_linux_ifname(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_LINUX_IFNAME
        && name != "."
        && name != ".."
        && !name.starts_with('-')
        && name.chars().all(linux_char)
}

const LINUX_IFNAME: &str = "a Linux interface name: 1 to 15 letters, digits, `-`, `_`, `.` or `@`, not `.` or `..` and not starting with `-` (the kernel's dev_valid_name)";

/// A Linux interface name (see the module).
pub fn linux_interface(name: &str) -> Result<(), NameError> {
    if is_linux_ifname(name) {
        return Ok(());
    }
    let fix = repaired(name, linux_char, MAX_LINUX_IFNAME, is_linux_ifname);
    let message = if name.is_empty() {
        "empty interface name".to_string()
    } else if !name.chars().all(linux_char) {
        format!("interface name `{}` contains {}", name.escape_debug(), offending(name, linux_char))
    } else if name.len() > MAX_LINUX_IFNAME {
        format!("interface name `{name}` has {} bytes; Linux allows 15", name.len())
    } else {
        format!("`{name}` is not a Linux interface name")
    };
    Err(err(message, LINUX_IFNAME, fix))
}

fn windows_char(c: char) -> bool {
    !c.is_control() && !"\\/:*?\"<>|".contains(c)
}

const WINDOWS_ADAPTER: &str = "a Windows adapter name: 1 to 256 characters, none of \\ / : * ? \" < > | or control characters, no space at either end";

/// A Windows adapter name (see the module).
pub fn windows_adapter(name: &str) -> Result<(), NameError> {
    let message = if name.is_empty() {
        "empty adapter name".to_string()
    } else if !name.chars().all(windows_char) {
        format!("adapter name `{}` contains {}", name.escape_debug(), offending(name, windows_char))
    } else if name.chars().count() > MAX_WINDOWS_ADAPTER {
        format!("adapter name has {} characters", name.chars().count())
    } else if name.trim() != name {
        format!("adapter name `{name}` starts or ends with a space")
    } else {
        return Ok(());
    };
    let fix = {
        let s: String = name.chars().map(|c| if windows_char(c) { c } else { ' ' }).collect();
        let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        (!s.is_empty() && s != name && s.chars().count() <= MAX_WINDOWS_ADAPTER).then(|| format!("write `{s}`"))
    };
    Err(err(message, WINDOWS_ADAPTER, fix))
}

/// A host's port name, by its operating system: Windows adapter names on Windows, Linux
/// interface names on Linux and where no OS is given (rendered for Linux) and on ESXi (whose
/// `vmnicN` fit), and on a storage appliance (whose ports rocelab names in the runbook only)
/// the rule of a generic switch port.
pub fn host_port(os: Option<Os>, name: &str) -> Result<(), NameError> {
    match os {
        Some(Os::Windows) => windows_adapter(name),
        Some(Os::Appliance) => switch_port(Platform::Generic, name),
        Some(Os::Linux | Os::Esxi) | None => linux_interface(name),
    }
}

/// The characters a switch port name of `platform` may have besides letters and digits, and a
/// description for messages. Each is what the platform's own names use:
/// - NVIDIA Onyx `eth1/1`, Arista EOS `Ethernet49/1`, Cisco NX-OS `Ethernet1/1/2`: `/`.
/// - HPE Comware 7 `Ten-GigabitEthernet1/0/1`, `HundredGigE1/0/1`: `/` and `-`.
/// - SONiC `Ethernet0`: none (`|` separates CONFIG_DB keys and must never be in a name).
/// - Dell OS10 `ethernet1/1/1`, broken out `ethernet1/1/1:1`: `/` and `:`.
/// - Dell OS9 `TenGigabitEthernet 0/1`, also written without the space: `/` and one space.
/// - Cumulus Linux `swp1`, `swp1s0`: a Linux interface name ([`linux_interface`]).
/// - a generic (simulation-only) switch: `/`, `-`, `_`, `.` and `:`.
fn port_extra(platform: Platform) -> (&'static str, &'static str) {
    match platform {
        Platform::NvidiaOnyx | Platform::AristaEos | Platform::CiscoNxos => ("/", "letters, digits and `/`"),
        Platform::HpeComware => ("/-", "letters, digits, `/` and `-`"),
        Platform::Sonic => ("", "letters and digits"),
        Platform::DellOs10 => ("/:", "letters, digits, `/` and `:`"),
        Platform::DellOs9 => ("/ ", "letters, digits, `/` and a space"),
        Platform::NvidiaCumulus => ("-_.@", "letters, digits, `-`, `_`, `.` and `@`"),
        Platform::Generic => ("/-_.:", "letters, digits, `/`, `-`, `_`, `.` and `:`"),
    }
}

/// A switch port name of `platform`: starting with a letter, at most 64 characters, of the
/// characters of `port_extra` (Cumulus: a Linux interface name).
pub fn switch_port(platform: Platform, name: &str) -> Result<(), NameError> {
    if platform == Platform::NvidiaCumulus {
        return linux_interface(name);
    }
    let (extra, what) = port_extra(platform);
    let ok = |c: char| c.is_ascii_alphanumeric() || extra.contains(c);
    let valid = |n: &str| {
        n.len() <= MAX_SWITCH_PORT
            && n.starts_with(|c: char| c.is_ascii_alphabetic())
            && n.chars().all(ok)
            && !n.ends_with(' ')
            && !n.contains("  ")
    };
    if valid(name) {
        return Ok(());
    }
    let expected = format!("a port name of {}: up to 64 {what}, starting with a letter", platform.name());
    let message = if name.is_empty() {
        "empty port name".to_string()
    } else if !name.chars().all(ok) {
        format!("port name `{}` contains {}", name.escape_debug(), offending(name, ok))
    } else if name.len() > MAX_SWITCH_PORT {
        format!("port name has {} characters", name.len())
    } else {
        format!("port name `{name}` does not start with a letter or has stray spaces")
    };
    let fix = repaired(name, ok, MAX_SWITCH_PORT, valid);
    Err(NameError { message, expected, suggestion: fix })
}

fn component_char(c: char) -> bool {
    !c.is_control() && c != '/' && c != '\\'
}

/// A variant name: one file name component (see the module).
pub fn variant(name: &str) -> Result<(), NameError> {
    const EXPECTED: &str =
        "a name that can be a directory: 1 to 100 characters, no `/`, `\\` or control characters, not `.` or `..`";
    let message = if name.trim().is_empty() {
        "empty variant name".to_string()
    } else if name == "." || name == ".." {
        format!("variant name `{name}` is a directory of its own")
    } else if !name.chars().all(component_char) {
        format!("variant name `{}` contains {}", name.escape_debug(), offending(name, component_char))
    } else if name.chars().count() > MAX_VARIANT {
        format!("variant name has {} characters", name.chars().count())
    } else {
        return Ok(());
    };
    let fix = {
        let s: String = name.chars().map(|c| if component_char(c) { c } else { '-' }).collect();
        let s = s.trim_matches(|c| c == '-' || c == '.').to_string();
        (!s.is_empty() && s != name && s.chars().count() <= MAX_VARIANT).then(|| format!("write `{s}`"))
    };
    Err(err(message, EXPECTED, fix))
}

/// A name that breaks its rule, as a problem located at field `path`.
pub(crate) fn located(path: String, e: NameError) -> crate::diag::Problem {
    let mut p = crate::diag::problem(path, e.message);
    p.diag.expected = Some(e.expected);
    p.diag.suggestion = e.suggestion;
    p
}

/// The folder a run's results go to under `sim --all --out DIR/runs/`, from a variant's name
/// (`base` for the scenario itself) or a sweep point's label: characters other than letters,
/// digits and `-_.=+@` become `_`, so that the folder name is the same on every file system.
pub fn run_folder(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.=+@".contains(c) { c } else { '_' }).collect()
}

/// Checks the names of the scenario's variants ([`variant`]), and that no two variants, nor a
/// variant and the base scenario, would write their runs to the same folder ([`run_folder`]):
/// the second would overwrite the first's results.
pub(crate) fn check_variants(variants: &[crate::fabric::Variant], problems: &mut Vec<crate::diag::Problem>) {
    let mut folders: std::collections::HashMap<String, String> =
        [("base".to_string(), "the base scenario".into())].into();
    for (i, v) in variants.iter().enumerate() {
        if let Err(e) = variant(&v.name) {
            problems.push(located(format!("variants[{i}].name"), e));
            continue;
        }
        let folder = run_folder(&v.name);
        match folders.get(&folder) {
            Some(other) => {
                let mut p = crate::diag::problem(
                    format!("variants[{i}].name"),
                    format!("variant `{}` would write its runs to `runs/{folder}`, as {other} does", v.name),
                );
                p.diag.suggestion = Some("give each variant a name that differs in its letters or digits".into());
                problems.push(p);
            }
            None => {
                folders.insert(folder, format!("variant `{}`", v.name));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_that_share_a_run_folder_are_refused_at_the_second() {
        let variants: Vec<crate::fabric::Variant> = ["a b", "a_b", "base", "c"]
            .into_iter()
            .map(|name| crate::fabric::Variant { name: name.into(), description: None, set: Default::default() })
            .collect();
        let mut problems = Vec::new();
        check_variants(&variants, &mut problems);
        let said: Vec<(String, String)> =
            problems.iter().map(|p| (p.diag.path.clone(), p.diag.message.clone())).collect();
        assert_eq!(
            said,
            [
                (
                    "variants[1].name".into(),
                    "variant `a_b` would write its runs to `runs/a_b`, as variant `a b` does".into()
                ),
                (
                    "variants[2].name".into(),
                    "variant `base` would write its runs to `runs/base`, as the base scenario does".into()
                ),
            ]
        );
        assert_eq!(run_folder("ecn=on, pfc"), "ecn=on__pfc");
    }

    #[test]
    fn device_names_are_hostname_labels() {
        for ok in ["sw1", "node1", "leaf-1", "s2d-node1", "1u", "edge0-1", &"a".repeat(63)] {
            assert_eq!(device(ok), Ok(()), "{ok}");
        }
        let e = device("../escaped").unwrap_err();
        assert!(e.message.contains("`.`") && e.message.contains("`/`"), "{e:?}");
        assert_eq!(e.suggestion.as_deref(), Some("write `escaped`"));
        assert!(e.expected.contains("RFC 1123"));
        let e = device("h1$(reboot)").unwrap_err();
        assert!(e.message.contains("`$`") && e.message.contains("`(`"), "{e:?}");
        assert_eq!(e.suggestion.as_deref(), Some("write `h1-reboot`"));
        for bad in ["", "-a", "a-", "a_b", "a.b", "a b", "a\nb", "é", &"a".repeat(64)] {
            assert!(device(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn linux_interface_names_follow_dev_valid_name() {
        for ok in ["eth0", "p0", "enp1s0f1", "ct0.eth10", "bond0.100", "ib0@x", &"e".repeat(15)] {
            assert_eq!(linux_interface(ok), Ok(()), "{ok}");
        }
        let e = linux_interface("eth0;reboot").unwrap_err();
        assert!(e.message.contains("`;`"), "{e:?}");
        assert_eq!(e.suggestion.as_deref(), Some("write `eth0-reboot`"));
        assert!(e.expected.contains("dev_valid_name"));
        for bad in ["", ".", "..", "a/b", "a:b", "a b", "a\tb", "-x", "a'b", "a$b", "a`b", &"e".repeat(16)] {
            assert!(linux_interface(bad).is_err(), "{bad:?}");
        }
        assert!(linux_interface(&"e".repeat(16)).unwrap_err().message.contains("16 bytes"));
    }

    #[test]
    fn windows_adapter_names_allow_spaces_and_parentheses() {
        for ok in ["Ethernet 3", "SLOT 2 Port 1", "vEthernet (SMB_1)", "NIC $1 'a' ;x", "Mellanox #2"] {
            assert_eq!(windows_adapter(ok), Ok(()), "{ok}");
        }
        for bad in ["", "a/b", "a\\b", "a:b", "a*", "a?", "a\"b", "a<b", "a>b", "a|b", "a\nb", " a", "a "] {
            assert!(windows_adapter(bad).is_err(), "{bad:?}");
        }
        assert_eq!(windows_adapter("SLOT 2|x").unwrap_err().suggestion.as_deref(), Some("write `SLOT 2 x`"));
    }

    #[test]
    fn switch_ports_take_their_platforms_characters() {
        let ok = [
            (Platform::NvidiaOnyx, "eth1/49"),
            (Platform::AristaEos, "Ethernet49/1"),
            (Platform::CiscoNxos, "Ethernet1/1/2"),
            (Platform::HpeComware, "Ten-GigabitEthernet1/0/1"),
            (Platform::HpeComware, "HundredGigE1/0/1"),
            (Platform::Sonic, "Ethernet0"),
            (Platform::DellOs10, "ethernet1/1/1"),
            (Platform::DellOs10, "ethernet1/1/1:1"),
            (Platform::DellOs9, "TenGigabitEthernet 0/1"),
            (Platform::DellOs9, "fortyGigE0/48"),
            (Platform::NvidiaCumulus, "swp1s0"),
            (Platform::Generic, "p1"),
        ];
        for (p, n) in ok {
            assert_eq!(switch_port(p, n), Ok(()), "{p:?} {n}");
        }
        let bad = [
            (Platform::Sonic, "Ethernet0|x"),
            (Platform::AristaEos, "Ethernet1 ; reload"),
            (Platform::DellOs9, "Te 0/1  "),
            (Platform::NvidiaCumulus, "swp1:1"),
            (Platform::Generic, "1p"),
            (Platform::CiscoNxos, ""),
        ];
        for (p, n) in bad {
            assert!(switch_port(p, n).is_err(), "{p:?} {n:?}");
        }
        let e = switch_port(Platform::AristaEos, "Ethernet1;reload").unwrap_err();
        assert!(e.expected.contains("arista-eos") && e.message.contains("`;`"), "{e:?}");
        // `-` is no EOS port character, so there is no repair to offer.
        assert_eq!(e.suggestion, None);
        let e = switch_port(Platform::HpeComware, "FortyGigE1/0/49$(x)").unwrap_err();
        assert_eq!(e.suggestion.as_deref(), Some("write `FortyGigE1/0/49-x`"));
    }

    #[test]
    fn host_ports_follow_their_os() {
        assert!(host_port(Some(Os::Windows), "SLOT 2 Port 1").is_ok());
        assert!(host_port(Some(Os::Linux), "SLOT 2 Port 1").is_err());
        assert!(host_port(None, "eth0;reboot").is_err());
        assert!(host_port(Some(Os::Appliance), "ct0.eth10").is_ok());
    }

    /// `text` loaded; its errors as `line:column path: message; suggestion`.
    fn load_errors(text: &str) -> Vec<String> {
        let e = crate::load_str(text, "t.yaml", std::path::Path::new(".")).expect_err("refused");
        e.errors()
            .map(|d| {
                format!(
                    "{}:{} {}: {}; {}",
                    d.line,
                    d.column,
                    d.path,
                    d.message,
                    d.suggestion.clone().unwrap_or_default()
                )
            })
            .collect()
    }

    const HOSTILE: &str = r#"
fabric:
  name: hostile
  topology:
    devices:
      - {name: sw1, role: switch, platform: arista-eos, ports: [{names: Ethernet1-3, speed: 100G}, {names: "Ethernet4;reload", speed: 100G}]}
      - {name: ../escaped, role: host, os: linux, nic: {vendor: nvidia, model: ConnectX-5, speed: 100G}}
      - {name: h1$(reboot), role: host, os: linux, nic: {vendor: nvidia, model: ConnectX-5, speed: 100G, port_names: ["eth0;reboot"]}}
      - {name: w1, role: host, os: windows, nic: {vendor: nvidia, model: ConnectX-5, speed: 100G, port_names: ["SLOT 2 Port 1"]}}
    links:
      - {a: "sw1:Ethernet1", b: "../escaped:p0"}
      - {a: "sw1:Ethernet2", b: "h1$(reboot):eth0;reboot"}
      - {a: "sw1:Ethernet3", b: "w1:SLOT 2 Port 1"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true}
variants:
  - {name: "..", set: {fabric.qos.mtu: 9000}}
"#;

    #[test]
    fn hostile_names_are_refused_at_load_located() {
        let errors = load_errors(HOSTILE);
        let expected = [
            "6:108 fabric.topology.devices[0].ports[1].names: port name `Ethernet4;reload` contains `;`; ",
            "7:16 fabric.topology.devices[1].name: device name `../escaped` contains `.`, `/`; write `escaped`",
            "8:16 fabric.topology.devices[2].name: device name `h1$(reboot)` contains `$`, `(`, `)`; write `h1-reboot`",
            "8:119 fabric.topology.devices[2].nics[0].port_names[0]: interface name `eth0;reboot` contains `;`; write `eth0-reboot`",
            "19:12 variants[0].name: variant name `..` is a directory of its own; ",
        ];
        assert_eq!(errors, expected);
        // The Windows adapter name with spaces is no error.
        assert!(!errors.iter().any(|e| e.contains("SLOT")), "{errors:?}");
    }

    #[test]
    fn generated_names_follow_the_same_rules() {
        let text = r#"
fabric:
  name: gen
  topology:
    generator:
      leaf-spine: {leaves: 1, spines: 1, hosts_per_leaf: 2, host_speed: 25G, uplink_speed: 100G, host: {prefix: "h;"}}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true}
"#;
        let errors = load_errors(text);
        assert!(!errors.is_empty(), "{errors:?}");
        assert!(errors.iter().all(|e| e.contains("fabric.topology.generator: device name `h;")), "{errors:?}");
    }

    #[test]
    fn variant_names_are_one_path_component() {
        for ok in ["jumbo", "variant number 3", "ecn=on", "a.b"] {
            assert_eq!(variant(ok), Ok(()), "{ok}");
        }
        for bad in ["", " ", ".", "..", "../x", "a/b", "a\\b", "a\nb", &"v".repeat(101)] {
            assert!(variant(bad).is_err(), "{bad:?}");
        }
        assert_eq!(variant("../x").unwrap_err().suggestion.as_deref(), Some("write `x`"));
    }
}
