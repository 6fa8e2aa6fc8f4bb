//! Names that try to run commands: the loader refuses them, so these tests put them
//! into an already resolved fabric, as a bug in the loader or an importer would, and check that
//! every script quotes them for its language, that switch configurations refuse them, and that
//! every template passes names through a filter.

use super::fabric;
use rocelab_config::quote::{ps, sh, sh_dq};
use rocelab_config::templates::BUILTIN;
use rocelab_config::{render, Templates};
use rocelab_model::{Platform, ResolvedFabric};

const BASE: &str = r#"
fabric:
  name: hostile
  topology:
    devices:
      - {name: sw, role: switch, platform: nvidia-cumulus, ports: [{names: swp1-2, speed: 100G}]}
      - {name: h1, role: host, os: linux, nic: {vendor: nvidia, model: ConnectX-5, speed: 100G, port_names: [p0], addresses: [10.0.0.1/24]}}
      - {name: w1, role: host, os: windows, nic: {vendor: nvidia, model: ConnectX-5, speed: 100G, port_names: ["SLOT 1"], addresses: [10.0.0.2/24]}}
    links:
      - {a: "sw:swp1", b: "h1:p0"}
      - {a: "sw:swp2", b: "w1:SLOT 1"}
  qos:
    marking: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: 90}
      - {name: default, priority: 0, dscp: [0], ets: 10}
"#;

/// The hostile names, each ending in a command that must never run.
const SWITCH: &str = "sw$(reboot)";
const SWITCH_PORT: &str = "swp1;reboot";
const LINUX_HOST: &str = "h1`reboot`";
const LINUX_PORT: &str = "p0';reboot;'";
const WINDOWS_PORT: &str = "SLOT 1\"; Restart-Computer; $(reboot)'";

/// The fabric with hostile names given after loading.
fn hostile() -> ResolvedFabric {
    let mut f = fabric(BASE);
    f.devices[0].name = SWITCH.into();
    f.devices[0].ports[0].name = SWITCH_PORT.into();
    f.devices[1].name = LINUX_HOST.into();
    f.devices[1].ports[0].name = LINUX_PORT.into();
    f.devices[2].ports[0].name = WINDOWS_PORT.into();
    f
}

/// `text` with every comment line (`#` first) dropped and each of `quoted` removed: what is left
/// is what an interpreter executes outside quotes.
fn executed(text: &str, quoted: &[String]) -> String {
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let mut l = line.to_string();
        for q in quoted {
            l = l.replace(q.as_str(), "QUOTED");
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

fn all_names() -> Vec<&'static str> {
    vec![SWITCH, SWITCH_PORT, LINUX_HOST, LINUX_PORT, WINDOWS_PORT]
}

#[test]
fn shell_and_powershell_scripts_quote_every_hostile_name() {
    let f = hostile();
    let r = render(&f, &Templates::builtin()).unwrap();
    let file = |device: &str| r.files.iter().find(|d| d.device == device).unwrap_or_else(|| panic!("{device}"));
    let sh_forms: Vec<String> = all_names().iter().flat_map(|n| [sh(n).unwrap(), sh_dq(n).unwrap()]).collect();

    let linux = &file(LINUX_HOST).text;
    assert_eq!(file(LINUX_HOST).file_name, format!("{LINUX_HOST}.sh"));
    assert!(linux.contains(&format!("ip link set dev {} mtu", sh(LINUX_PORT).unwrap())), "{linux}");
    assert!(linux.contains(r"ip link set dev 'p0'\'';reboot;'\''' mtu"), "{linux}");
    let left = executed(linux, &sh_forms);
    assert!(!left.contains("reboot"), "unquoted in the Linux script:\n{left}");

    let nvue = &file(SWITCH).text;
    assert!(nvue.contains("nv set interface 'swp1;reboot' link mtu"), "{nvue}");
    let left = executed(nvue, &sh_forms);
    assert!(!left.contains("reboot"), "unquoted in the NVUE script:\n{left}");

    let windows = &file("w1").text;
    let quoted = ps(WINDOWS_PORT).unwrap();
    assert_eq!(quoted, "'SLOT 1\"; Restart-Computer; $(reboot)'''");
    assert!(windows.contains(&format!("Enable-NetAdapterRdma -Name {quoted}")), "{windows}");
    let left = executed(windows, &[quoted]);
    assert!(
        !left.contains("reboot") && !left.contains("Restart-Computer"),
        "unquoted in the PowerShell script:\n{left}"
    );
}

#[test]
fn runbook_commands_quote_hostile_names() {
    let f = hostile();
    let r = render(&f, &Templates::builtin()).unwrap();
    let forms: Vec<String> = all_names()
        .iter()
        .flat_map(|n| [sh(n).unwrap(), sh_dq(n).unwrap(), ps(n).unwrap(), sh(&format!("{n}.sh")).unwrap()])
        .collect();
    assert!(r.runbook.contains(&format!("`bash {}`", sh(&format!("{LINUX_HOST}.sh")).unwrap())), "{}", r.runbook);
    assert!(r.runbook.contains(&format!("`mlnx_qos -i {}`", sh(LINUX_PORT).unwrap())), "{}", r.runbook);
    // Commands are the code spans of the table rows (`| `command` | expected |`).
    for line in r.runbook.lines().filter(|l| l.starts_with("| `")) {
        let command = line.trim_start_matches("| `").split("` |").next().unwrap();
        let left = executed(command, &forms);
        assert!(!left.contains("reboot") && !left.contains("Restart-Computer"), "unquoted in `{command}`");
    }
}

#[test]
fn switch_clis_refuse_names_they_cannot_read_literally() {
    // Cumulus runs NVUE in bash (quoted, above); SONiC's config_db.json is JSON text.
    let clis = [
        Platform::NvidiaOnyx,
        Platform::HpeComware,
        Platform::AristaEos,
        Platform::CiscoNxos,
        Platform::DellOs10,
        Platform::DellOs9,
    ];
    for platform in clis {
        let mut f = hostile();
        f.devices[0].platform = Some(platform);
        let e = render(&f, &Templates::builtin()).expect_err(platform.name());
        assert!(e.message.contains("switch CLI does not read literally"), "{platform:?}: {e}");
        assert!(e.message.contains(SWITCH), "{platform:?}: names the device: {e}");
    }
}

/// The fields that carry a name or other text from the fabric file, as templates spell them.
const NAME_FIELDS: &[&str] = &[
    "hostname",
    "i.name",
    "i.peer",
    "p.name",
    "p.peer",
    "a.name",
    "a.peer",
    "m",
    "bond.name",
    "bond.iface",
    "p.vlan.name",
    "bond.vlan.name",
    "p.lag_rdma_port",
    "r.iface",
    "m.mountpoint",
    "ip.alias",
    "tc.name",
    "v.hint",
    "v[1]",
    "b.device",
    "s.device",
    "s.file",
    "c.command",
    "p.address",
    "a",
];

/// Every `{{ … }}` of a built-in template that shows one of [`NAME_FIELDS`] goes through a
/// filter, so a template edit that forgets one fails here rather than in a root shell.
#[test]
fn every_name_in_a_template_goes_through_a_filter() {
    let mut missing = Vec::new();
    for (template, text) in BUILTIN {
        for (n, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(start) = rest.find("{{") {
                let Some(len) = rest[start..].find("}}") else { break };
                let expr = rest[start + 2..start + len].trim().trim_start_matches('-').trim();
                let head = expr.split('|').next().unwrap().trim().trim_start_matches('(').trim_end_matches(')');
                let shows_name = NAME_FIELDS.iter().any(|f| head == *f || head.split(' ').any(|w| w == *f));
                if shows_name && !expr.contains('|') {
                    missing.push(format!("{template}:{}: {{{{ {expr} }}}}", n + 1));
                }
                rest = &rest[start + len + 2..];
            }
        }
    }
    assert!(missing.is_empty(), "names without a filter:\n{}", missing.join("\n"));
}
