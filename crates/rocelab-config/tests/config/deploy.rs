//! What a network engineer pasting the files would still trip on: each platform's release syntax
//! (`os_version`), the final save (and `--no-save`), DCBX for Comware's PFC `auto`, OS10's global
//! ETS, and the VLAN of PCP marking on every switch and host.

use super::switches::dscp_fabric;
use super::{assert_sequence, device_text, fabric};
use rocelab_config::{render_device, Templates};

/// The DSCP pair of `switches.rs` on `platform`, its switch given `os_version: release`.
fn with_release(platform: &str, ports: &str, p1: &str, p2: &str, release: &str) -> String {
    dscp_fabric(platform, ports, p1, p2)
        .replace(&format!("platform: {platform},"), &format!("platform: {platform}, os_version: \"{release}\","))
}

fn cumulus(release: Option<&str>) -> String {
    match release {
        Some(r) => with_release("nvidia-cumulus", "swp1-2", "swp1", "swp2", r),
        None => dscp_fabric("nvidia-cumulus", "swp1-2", "swp1", "swp2"),
    }
}

#[test]
fn cumulus_5_3_takes_the_cable_length_under_roce_and_has_no_pfc_watchdog() {
    let (text, findings) = device_text(&fabric(&cumulus(Some("5.3"))), "sw");
    assert!(text.contains("(NVIDIA Cumulus Linux 5.3, NVUE)"), "{text}");
    assert!(!text.contains("rocelab's default"), "a release the device names is not the default");
    assert!(text.contains("nv set qos roce cable-length 5\n"), "{text}");
    assert!(!text.contains("qos pfc default-global cable-length"), "{text}");
    assert!(!text.contains("pfc-watchdog"), "{text}");
    assert!(
        findings.iter().any(|f| f.message.contains("PFC watchdog not rendered") && f.message.contains("5.3")),
        "{findings:?}"
    );
}

#[test]
fn cumulus_from_5_4_takes_the_cable_length_under_pfc_and_from_5_6_the_watchdog_state() {
    let (text, findings) = device_text(&fabric(&cumulus(Some("5.4"))), "sw");
    assert!(text.contains("nv set qos pfc default-global cable-length 5\n"), "{text}");
    assert!(!text.contains("qos roce cable-length"), "{text}");
    assert!(!text.contains("pfc-watchdog"), "5.4 has no watchdog command: {text}");
    assert!(findings.iter().any(|f| f.message.contains("PFC watchdog not rendered")));
    let (text, findings) = device_text(&fabric(&cumulus(Some("5.6"))), "sw");
    assert!(text.contains("nv set interface swp1 qos pfc-watchdog state enable\n"), "{text}");
    assert!(!findings.iter().any(|f| f.message.contains("PFC watchdog")), "{findings:?}");
}

#[test]
fn cumulus_default_release_is_named_and_applies_without_a_prompt() {
    let (text, _) = device_text(&fabric(&cumulus(None)), "sw");
    let default = rocelab_model::fabric::Platform::NvidiaCumulus.default_release().unwrap();
    assert!(text.contains(&format!("(NVIDIA Cumulus Linux {default}, NVUE)")), "{text}");
    assert!(text.contains(&format!("# Release {default} is rocelab's default for this platform")), "{text}");
    assert_sequence(&text, &["nv config apply --assume-yes", "nv config save"]);
    assert!(!text.lines().any(|l| l == "nv config apply"), "a bare apply prompts: {text}");
}

/// Every switch file ends by saving, in its platform's own words; `without_save` leaves exactly
/// that out.
#[test]
fn every_switch_file_ends_by_saving_unless_told_not_to() {
    let cases = [
        ("arista-eos", "Ethernet1-2", "Ethernet1", "Ethernet2", "copy running-config startup-config"),
        ("cisco-nxos", "Ethernet1/1-2", "Ethernet1/1", "Ethernet1/2", "copy running-config startup-config"),
        ("dell-os10", "ethernet1/1/1-2", "ethernet1/1/1", "ethernet1/1/2", "write memory"),
        (
            "dell-os9",
            "TenGigabitEthernet0/0-1",
            "TenGigabitEthernet0/0",
            "TenGigabitEthernet0/1",
            "copy running-config startup-config",
        ),
        ("nvidia-cumulus", "swp1-2", "swp1", "swp2", "nv config save"),
        ("nvidia-onyx", "eth1/1-2", "eth1/1", "eth1/2", "config write to rocelab"),
        (
            "hpe-comware",
            "Ten-GigabitEthernet1/0/1-2",
            "Ten-GigabitEthernet1/0/1",
            "Ten-GigabitEthernet1/0/2",
            "save force",
        ),
    ];
    for (platform, ports, p1, p2, save) in cases {
        let f = fabric(&dscp_fabric(platform, ports, p1, p2));
        let (text, _) = device_text(&f, "sw");
        assert_eq!(text.trim_end().lines().last(), Some(save), "{platform}:\n{text}");
        let (file, _) = render_device(&f, "sw", &Templates::builtin().without_save()).unwrap();
        let unsaved = file.unwrap().text;
        assert!(!unsaved.contains(save), "{platform} --no-save:\n{unsaved}");
    }
}

#[test]
fn comware_pfc_auto_enables_lldp_and_its_dcbx_tlvs() {
    let yaml = dscp_fabric(
        "hpe-comware",
        "Ten-GigabitEthernet1/0/1-2",
        "Ten-GigabitEthernet1/0/1",
        "Ten-GigabitEthernet1/0/2",
    )
    .replace(
        "    dcqcn: {enabled: true}",
        "    dcbx: {switches_willing: false, hosts_willing: true}\n    dcqcn: {enabled: true}",
    );
    let (text, _) = device_text(&fabric(&yaml), "sw");
    assert_sequence(
        &text,
        &[
            "lldp global enable",
            "interface Ten-GigabitEthernet 1/0/1",
            "lldp enable",
            "lldp tlv-enable dot1-tlv dcbx",
            "priority-flow-control auto",
            "interface Ten-GigabitEthernet 1/0/2",
            "lldp enable",
            "lldp tlv-enable dot1-tlv dcbx",
            "priority-flow-control auto",
        ],
    );
    // Without DCBX PFC is `enable`, negotiated by nobody: no LLDP lines.
    let plain = dscp_fabric(
        "hpe-comware",
        "Ten-GigabitEthernet1/0/1-2",
        "Ten-GigabitEthernet1/0/1",
        "Ten-GigabitEthernet1/0/2",
    );
    let (text, _) = device_text(&fabric(&plain), "sw");
    assert!(text.contains("priority-flow-control enable") && !text.contains("lldp"), "{text}");
}

#[test]
fn os10_turns_ets_on_globally_as_well_as_on_the_ports() {
    let (text, _) =
        device_text(&fabric(&dscp_fabric("dell-os10", "ethernet1/1/1-2", "ethernet1/1/1", "ethernet1/1/2")), "sw");
    assert_sequence(
        &text,
        &[
            "system qos",
            " ets mode on",
            "interface ethernet1/1/1",
            " ets mode on",
            "interface ethernet1/1/2",
            " ets mode on",
        ],
    );
}

#[test]
fn every_switch_header_names_its_release() {
    for (platform, ports, p1, p2, label) in [
        ("arista-eos", "Ethernet1-2", "Ethernet1", "Ethernet2", "Arista EOS"),
        ("cisco-nxos", "Ethernet1/1-2", "Ethernet1/1", "Ethernet1/2", "Cisco NX-OS"),
        ("dell-os10", "ethernet1/1/1-2", "ethernet1/1/1", "ethernet1/1/2", "Dell SmartFabric OS10"),
        ("nvidia-onyx", "eth1/1-2", "eth1/1", "eth1/2", "NVIDIA Onyx"),
    ] {
        let p: rocelab_model::fabric::Platform = match platform {
            "arista-eos" => rocelab_model::fabric::Platform::AristaEos,
            "cisco-nxos" => rocelab_model::fabric::Platform::CiscoNxos,
            "dell-os10" => rocelab_model::fabric::Platform::DellOs10,
            _ => rocelab_model::fabric::Platform::NvidiaOnyx,
        };
        let (text, _) = device_text(&fabric(&dscp_fabric(platform, ports, p1, p2)), "sw");
        let first = text.lines().next().unwrap();
        assert!(first.contains(&format!("({label} {}", p.default_release().unwrap())), "{first}");
        let older = p.releases()[0];
        let (text, _) = device_text(&fabric(&with_release(platform, ports, p1, p2, older)), "sw");
        assert!(text.lines().next().unwrap().contains(&format!("({label} {older}")), "{text}");
    }
}
