//! Settings given per link speed: a class's ECN thresholds and the buffer's alpha, headroom and
//! reserve, resolved per port by the port's speed (its link's when cabled), the per-port
//! overrides over them, and the located errors for a speed a map lacks and for bad entries.
//!
//! BASE's cabled ports: sw1:eth1/1 and node1:p0 at 25G, sw2:Ten-GigabitEthernet1/0/1 and
//! node2:p0 at 10G, sw1:eth1/49 and sw2:FortyGigE1/0/49 at 40G.

use super::{errors, load, one_error, BASE};
use rocelab_model::qos::{BySpeed, Ecn};
use rocelab_model::units::{Rate, Size};
use rocelab_model::{Loaded, PortId, PortSettings};

const ROCE: &str = "{name: roce, priority: 5, lossless: true, ets: 90}";

/// BASE with the roce class's `ecn` written as `ecn`.
fn with_ecn(ecn: &str) -> String {
    BASE.replace(ROCE, &format!("{{name: roce, priority: 5, lossless: true, ets: 90, ecn: {ecn}}}"))
}

/// BASE with `buffer:` (and anything after it) under `qos`.
fn with_qos(extra: &str) -> String {
    format!("{BASE}{extra}")
}

fn settings(l: &Loaded, label: &str) -> PortSettings {
    let f = &l.fabric;
    let (dev, port) = label.split_once(':').unwrap();
    let di = f.devices.iter().position(|d| d.name == dev).unwrap();
    let pi = f.devices[di].ports.iter().position(|p| p.name == port).unwrap();
    f.port_settings(PortId { device: di, port: pi })
}

fn kmin(s: &PortSettings) -> Option<String> {
    s.classes[0].ecn.as_ref().map(|e| e.kmin.to_string())
}

/// The 1-based column of `needle` in line `line` of `text`.
fn column(text: &str, line: usize, needle: &str) -> usize {
    text.lines().nth(line - 1).unwrap().find(needle).unwrap_or_else(|| panic!("no `{needle}` on line {line}")) + 1
}

#[test]
fn ecn_by_speed_gives_each_port_its_speeds_thresholds() {
    let text = with_ecn(
        "{10G: {kmin: 40KB, kmax: 160KB, pmax: 0.2}, 25G: {kmin: 100KB, kmax: 400KB, pmax: 0.2}, 40G: {kmin: 160KB, kmax: 640KB, pmax: 0.1}}",
    );
    let l = load(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kmin(&settings(&l, "sw1:eth1/1")).as_deref(), Some("100KB"));
    assert_eq!(kmin(&settings(&l, "node2:p0")).as_deref(), Some("40KB"));
    assert_eq!(kmin(&settings(&l, "sw2:FortyGigE1/0/49")).as_deref(), Some("160KB"));
    // A cabled port takes its link's speed: sw1:eth1/49 is a 100G port cabled at 40G.
    assert_eq!(settings(&l, "sw1:eth1/49").classes[0].ecn.as_ref().unwrap().pmax, 0.1);
    // An uncabled port takes its nominal speed; 100G is not in the map, and that is no error.
    assert_eq!(kmin(&settings(&l, "sw1:eth1/50")), None);
    let map = l.fabric.qos.class("roce").unwrap().ecn.as_ref().unwrap();
    assert!(map.is_by_speed() && map.single().is_none());
    assert_eq!(map.at(Rate::gbps(25)).unwrap().kmax, Size::kb(400));
    // The one-value form still gives every port the same.
    let l = load(&with_ecn("{kmin: 150KB, kmax: 1500KB, pmax: 0.01}")).unwrap();
    assert_eq!(kmin(&settings(&l, "node2:p0")).as_deref(), Some("150KB"));
    assert_eq!(kmin(&settings(&l, "sw1:eth1/50")).as_deref(), Some("150KB"));
    assert!(l.fabric.devices.iter().all(|d| d.ports.iter().all(|p| p.settings.is_none())));
}

#[test]
fn a_cabled_port_at_a_speed_the_map_lacks_is_an_error_at_the_class_ecn() {
    let text = with_ecn("{25G: {kmin: 100KB, kmax: 400KB, pmax: 0.2}, 40G: {kmin: 160KB, kmax: 640KB, pmax: 0.1}}");
    let e = one_error(&text);
    assert_eq!(e.path, "fabric.qos.classes[0].ecn");
    assert_eq!(
        e.message,
        "class `roce`: `ecn` has no entry for 10G, the speed of sw2:Ten-GigabitEthernet1/0/1 (and 1 more port)"
    );
    assert_eq!(e.expected.as_deref(), Some("`10G: {kmin, kmax, pmax}`"));
    assert_eq!((e.line, e.column), (17, column(&text, 17, "{25G")));
    assert!(e.to_string().starts_with("t.yaml:17:"), "{e}");
    // Two speeds missing: one error each.
    let e = errors(&with_ecn("{25G: {kmin: 100KB, kmax: 400KB, pmax: 0.2}}"));
    let msgs: Vec<&str> = e.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs.len(), 2, "{msgs:#?}");
    // In port order: sw1's 40G uplink comes before sw2's 10G port.
    assert!(msgs[0].ends_with("no entry for 40G, the speed of sw1:eth1/49 (and 1 more port)"), "{msgs:?}");
    assert!(msgs[1].contains("no entry for 10G"), "{msgs:?}");
}

#[test]
fn a_port_override_fills_a_speed_the_map_lacks() {
    let text = format!(
        "{}    ports:\n      - {{ports: [\"sw2:Ten-GigabitEthernet1/0/1\", \"node2:p0\"], ecn: {{roce: {{kmin: 30KB, kmax: 120KB, pmax: 0.3}}}}}}\n",
        with_ecn("{25G: {kmin: 100KB, kmax: 400KB, pmax: 0.2}, 40G: {kmin: 160KB, kmax: 640KB, pmax: 0.1}}")
    );
    let l = load(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kmin(&settings(&l, "node2:p0")).as_deref(), Some("30KB"));
    assert_eq!(kmin(&settings(&l, "node1:p0")).as_deref(), Some("100KB"));
    // Covering one of the two 10G ports leaves the other reported alone.
    let e = one_error(&text.replace("[\"sw2:Ten-GigabitEthernet1/0/1\", \"node2:p0\"]", "[\"node2:p0\"]"));
    assert!(e.message.ends_with("the speed of sw2:Ten-GigabitEthernet1/0/1"), "{}", e.message);
}

#[test]
fn bad_entries_of_a_by_speed_map_are_located_in_the_entry() {
    let text = with_ecn("{25G: {kmin: 100KB, kmax: 400KB, pmax: 0.2}, 10G: {kmin: 40KB, kmx: 160KB, pmax: 0.2}, 40G: {kmin: 160KB, kmax: 640KB, pmax: 0.1}}");
    let e = errors(&text);
    let unknown = e.iter().find(|d| d.path == "fabric.qos.classes[0].ecn.10G.kmx").unwrap_or_else(|| panic!("{e:#?}"));
    assert_eq!(unknown.message, "unknown field `kmx`");
    assert_eq!(unknown.suggestion.as_deref(), Some("did you mean \"kmax\"?"));
    assert_eq!((unknown.line, unknown.column), (17, column(&text, 17, "kmx")));
    // A key that is not a speed.
    let e =
        errors(&with_ecn("{25G: {kmin: 100KB, kmax: 400KB, pmax: 0.2}, 10Q: {kmin: 40KB, kmax: 160KB, pmax: 0.2}}"));
    let d = e.iter().find(|d| d.path == "fabric.qos.classes[0].ecn.10Q").unwrap_or_else(|| panic!("{e:#?}"));
    assert!(d.message.contains("unknown rate unit `Q`"), "{}", d.message);
    // Range checks run on every entry, at the entry's path.
    let e = one_error(&with_ecn(
        "{10G: {kmin: 40KB, kmax: 160KB, pmax: 0.2}, 25G: {kmin: 500KB, kmax: 400KB, pmax: 0.2}, 40G: {kmin: 160KB, kmax: 640KB, pmax: 0.1}}",
    ))
    .path;
    assert_eq!(e, "fabric.qos.classes[0].ecn.25G.kmin");
    let e = errors(&with_ecn(
        "{10G: {kmin: 40KB, kmax: 160KB, pmax: 0.2}, 25G: {kmin: 100KB, kmax: 400KB, pmax: 0.2}, 40G: {kmin: 160KB, kmax: 640KB, pmax: 1.5}}",
    ));
    assert_eq!(e[0].path, "fabric.qos.classes[0].ecn.40G.pmax");
    // The one-value form's errors are where they were.
    let e = errors(&with_ecn("{kmin: 150KB, kmax: 1500KB, pmx: 0.01}"));
    let paths: Vec<&str> = e.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["fabric.qos.classes[0].ecn", "fabric.qos.classes[0].ecn.pmx"]);
    assert_eq!(
        (e[0].message.as_str(), e[1].suggestion.as_deref()),
        ("missing field `pmax`", Some("did you mean \"pmax\"?"))
    );
    let e = errors(&with_ecn("5"));
    assert_eq!(e[0].path, "fabric.qos.classes[0].ecn");
    assert!(e[0].expected.as_deref().unwrap().contains("`kmin`"), "{:?}", e[0]);
}

#[test]
fn buffer_alpha_headroom_and_reserve_by_speed_and_per_port() {
    let text = with_qos(
        "    buffer: {alpha: {10G: 0.5, 25G: 0.25, 40G: 2}, headroom: {10G: 20KB, 25G: 40KB, 40G: 60KB}, reserve: 4KiB}\n    ports:\n      - {ports: [\"node1:p0\"], alpha: 1, reserve: 8KiB, headroom: 50KB}\n",
    );
    let l = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let s = settings(&l, "sw2:Ten-GigabitEthernet1/0/1");
    assert_eq!((s.alpha, s.headroom, s.reserve), (0.5, Some(Size::kb(20)), Size::kib(4)));
    let s = settings(&l, "sw1:eth1/49");
    assert_eq!((s.alpha, s.headroom.unwrap().to_string().as_str()), (2.0, "60KB"));
    let s = settings(&l, "node1:p0");
    assert_eq!((s.alpha, s.headroom, s.reserve), (1.0, Some(Size::kb(50)), Size::kib(8)));
    // An uncabled 100G port: not in the maps, so the defaults.
    let s = settings(&l, "sw1:eth1/50");
    assert_eq!((s.alpha, s.headroom, s.reserve), (0.125, None, Size::kib(4)));
    // `Buffer::alpha()` is the fabric-wide value: none is given, so the default.
    assert_eq!(l.fabric.qos.buffer.alpha(), 0.125);
    let one = load(&with_qos("    buffer: {alpha: 0.5, headroom: 30KB}\n")).unwrap();
    assert_eq!(one.fabric.qos.buffer.alpha(), 0.5);
    assert_eq!(one.fabric.qos.buffer.alpha, Some(BySpeed::All(0.5)));
    let s = settings(&one, "node2:p0");
    assert_eq!((s.alpha, s.headroom, s.reserve), (0.5, Some(Size::kb(30)), Size::bytes(0)));
}

#[test]
fn buffer_maps_missing_a_speed_and_bad_alphas_are_located() {
    let text = with_qos("    buffer:\n      alpha: {25G: 0.25, 40G: 2}\n      headroom: {10G: 20KB, 25G: 40KB}\n      reserve: {10G: 1KB, 25G: 1KB, 40G: 1KB}\n");
    let e = errors(&text);
    let got: Vec<(&str, usize, &str, Option<&str>)> =
        e.iter().map(|d| (d.path.as_str(), d.line, d.message.as_str(), d.expected.as_deref())).collect();
    assert_eq!(
        got,
        [
            (
                "fabric.qos.buffer.alpha",
                20,
                "`alpha` has no entry for 10G, the speed of sw2:Ten-GigabitEthernet1/0/1 (and 1 more port)",
                Some("`10G: <alpha, a number above 0>`")
            ),
            (
                "fabric.qos.buffer.headroom",
                21,
                "`headroom` has no entry for 40G, the speed of sw1:eth1/49 (and 1 more port)",
                Some("`40G: <a size such as 100KB>`")
            ),
        ]
    );
    assert_eq!(e[0].column, column(&text, 20, "{25G"));
    let e = errors(&with_qos(
        "    buffer: {alpha: {10G: 0, 25G: 100, 40G: -1}}\n    ports:\n      - {ports: [\"node1:p0\"], alpha: 0}\n",
    ));
    let paths: Vec<&str> = e.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "fabric.qos.buffer.alpha.10G",
            "fabric.qos.buffer.alpha.25G",
            "fabric.qos.buffer.alpha.40G",
            "fabric.qos.ports[0].alpha"
        ]
    );
    assert!(e[0].message.contains("must be above 0"), "{}", e[0].message);
    assert_eq!(e[0].expected.as_deref(), Some("a number above 0 and at most 64, e.g. 0.125"));
    let e = one_error(&with_qos("    buffer: {alpha: {0G: 1, 10G: 1, 25G: 1, 40G: 1}}\n"));
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("fabric.qos.buffer.alpha.0", "a link speed of 0 matches no port")
    );
    let e = one_error(&with_qos("    buffer: {reserv: 4KiB}\n"));
    assert_eq!(e.suggestion.as_deref(), Some("did you mean \"reserve\"?"));
}

#[test]
fn by_speed_maps_round_trip_as_maps() {
    let text = with_qos("    buffer: {alpha: {10G: 0.5, 25G: 0.25, 40G: 2}, reserve: 4KiB}\n").replace(
        ROCE,
        "{name: roce, priority: 5, lossless: true, ets: 90, ecn: {10G: {kmin: 40KB, kmax: 160KB, pmax: 0.2}, 25G: {kmin: 100KB, kmax: 400KB, pmax: 0.2}, 40G: {kmin: 160KB, kmax: 640KB, pmax: 0.1}}}",
    );
    let l = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let json = serde_json::to_value(&l.scenario).unwrap();
    assert_eq!(json["fabric"]["qos"]["buffer"]["alpha"], serde_json::json!({"10G": 0.5, "25G": 0.25, "40G": 2.0}));
    assert_eq!(json["fabric"]["qos"]["buffer"]["reserve"], "4KiB");
    assert_eq!(json["fabric"]["qos"]["classes"][0]["ecn"]["25G"]["kmax"], "400KB");
    let again = load(&json.to_string()).unwrap();
    assert_eq!(again.scenario, l.scenario);
    let ecn = again.fabric.qos.class("roce").unwrap().ecn.clone().unwrap();
    assert_eq!(ecn.at(Rate::gbps(40)), Some(&Ecn { kmin: Size::kb(160), kmax: Size::kb(640), pmax: 0.1 }));
}

#[test]
fn a_variant_sets_one_speed_of_a_map() {
    let text = format!(
        "{}variants:\n  - name: deeper\n    set:\n      fabric.qos.classes[roce].ecn.25G.kmax: 800KB\n",
        with_ecn("{10G: {kmin: 40KB, kmax: 160KB, pmax: 0.2}, 25G: {kmin: 100KB, kmax: 400KB, pmax: 0.2}, 40G: {kmin: 160KB, kmax: 640KB, pmax: 0.1}}")
    );
    let l = load(&text).unwrap();
    let v = l.variant("deeper").unwrap();
    let ecn = v.qos.class("roce").unwrap().ecn.as_ref().unwrap();
    assert_eq!(ecn.at(Rate::gbps(25)).unwrap().kmax, Size::kb(800));
    assert_eq!(ecn.at(Rate::gbps(10)).unwrap().kmax, Size::kb(160));
}
