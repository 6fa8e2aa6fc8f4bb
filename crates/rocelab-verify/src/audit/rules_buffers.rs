//! The audit's buffer rule: a lossless priority group's headroom watermark read against the
//! headroom the fabric gives it.
//!
//! PFC headroom holds what is still in flight after a port sends XOFF (IEEE 802.1Qbb-2011
//! Annex N): the frame being sent, the PFC frame, the peer's response, twice the cable and the
//! peer's last frame. The switch records the most the priority group ever held there (SONiC
//! `show priority-group watermark headroom`, sonic-utilities `watermarkstat`; the SAI's
//! `SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES`). A watermark that reaches the
//! headroom means the in-flight data filled it: one more frame, a longer cable or a slower peer
//! than the fabric file says, and the lossless class drops.
//!
//! The headroom is the fabric's: `qos.buffer.headroom` of the port where the fabric sets it,
//! else what rocelab's headroom function computes for the port's speed, cable, MTUs and
//! response time ([`rocelab_model::headroom::port_headroom`]), the figure `rocelab config`
//! renders. The priority group of a lossless class is its traffic class (rocelab's SONiC
//! configuration maps TC n to PG n; see `parse_switch.rs`).

use super::{Counter, Sample};
use crate::finding::{Finding, Severity};
use rocelab_model::headroom::{port_headroom, port_input, required_headroom};
use rocelab_model::resolve::PortId;
use rocelab_model::ResolvedFabric;
use std::collections::BTreeMap;

pub const SRC_HEADROOM_WATERMARK: &str = "IEEE 802.1Qbb-2011 Annex N (PFC headroom: the buffer for data in flight after XOFF); SONiC `show priority-group watermark headroom` (sonic-utilities watermarkstat, SAI XOFF_ROOM_WATERMARK_BYTES)";

/// A watermark at this share of the headroom or more is near it. The headroom is computed in
/// bytes, but a switch buffer holds frames in cells (a frame one byte over a cell takes two), so
/// real occupancy runs above the byte count: within a tenth, one burst more fills it.
pub const NEAR_PERCENT: u64 = 90;

/// `AUDIT-HEADROOM-NEAR` for each lossless priority group of `samples` whose headroom
/// watermark is at [`NEAR_PERCENT`] of its headroom or above (an error from 100 %).
pub fn headroom(fabric: &ResolvedFabric, samples: &[Sample], out: &mut Vec<Finding>) {
    // The highest watermark of each (device, port, priority group), should two files give one.
    let mut peak: BTreeMap<(&str, &str, u8), &Sample> = BTreeMap::new();
    for s in samples.iter().filter(|s| s.counter == Counter::HeadroomWatermark) {
        let (Some(port), Some(pg)) = (s.port.as_deref(), s.queue) else { continue };
        let e = peak.entry((s.device.as_str(), port, pg)).or_insert(s);
        if s.value > e.value {
            *e = s;
        }
    }
    for ((device, port, pg), s) in peak {
        let Some(id) = port_id(fabric, device, port) else { continue };
        let settings = fabric.port_settings(id);
        // Only a lossless priority group has headroom in the intent.
        let Some(class) = settings.classes.iter().find(|c| c.pfc && c.queue == pg) else { continue };
        let size = port_headroom(fabric, id, settings.headroom);
        if size == 0 || s.value * 100 < size * NEAR_PERCENT {
            continue;
        }
        let percent = s.value * 100 / size;
        let how = match settings.headroom {
            Some(h) => format!("the fabric's qos.buffer.headroom {h}"),
            None => match port_input(fabric, id) {
                Some(input) => format!("computed by rocelab: {}", required_headroom(&input).explain()),
                None => "computed by rocelab".to_string(),
            },
        };
        let (severity, reached) =
            if s.value >= size { (Severity::Error, "reached") } else { (Severity::Warning, "came within a tenth of") };
        let name = fabric.qos.classes.iter().find(|c| c.priority == class.priority).map_or("", |c| c.name.as_str());
        out.push(Finding {
            id: "AUDIT-HEADROOM-NEAR",
            severity,
            device: device.to_string(),
            port: Some(port.to_string()),
            class: Some(format!("{name} (priority {})", class.priority)),
            what: format!(
                "the headroom watermark of priority group {pg} {reached} its headroom: {} B of {size} B ({percent} %; {how})",
                s.value
            ),
            why: "headroom holds the data still in flight after the port sends XOFF; a watermark at the headroom means it was filled, so a slightly longer burst, cable or peer response than the fabric file assumes drops packets on a lossless priority".to_string(),
            fix: "raise the priority group's headroom (qos.buffer.headroom, or the port's cable and qos.pfc.response_time so that rocelab computes it right), check the switch's buffer cell size, then clear the watermark (`sonic-clear priority-group watermark headroom`) and read it again under load".to_string(),
            source: SRC_HEADROOM_WATERMARK,
            location: Some(s.at.clone()),
        });
    }
}

fn port_id(f: &ResolvedFabric, device: &str, port: &str) -> Option<PortId> {
    let di = f.devices.iter().position(|d| d.name == device)?;
    let pi = f.devices[di].ports.iter().position(|p| p.name == port)?;
    Some(PortId { device: di, port: pi })
}

#[cfg(test)]
mod tests {
    use super::super::testfabric::fabric;
    use super::*;
    use crate::state::Origin;

    fn watermark(port: &str, pg: u8, value: u64) -> Sample {
        Sample {
            device: "sw1".into(),
            port: Some(port.into()),
            priority: None,
            queue: Some(pg),
            counter: Counter::HeadroomWatermark,
            name: format!("PG{pg} headroom watermark (bytes)"),
            value,
            at: Origin { file: "sw1.pg-headroom.txt".into(), line: 4 },
        }
    }

    /// The headroom the fabric gives sw1:Ethernet0's lossless priority group, from the model's
    /// own function (the test fabric sets none: it is computed).
    fn size() -> u64 {
        let f = fabric();
        let id = port_id(&f, "sw1", "Ethernet0").unwrap();
        port_headroom(&f, id, f.port_settings(id).headroom)
    }

    fn run(samples: &[Sample]) -> Vec<Finding> {
        let mut out = Vec::new();
        headroom(&fabric(), samples, &mut out);
        out
    }

    #[test]
    fn a_watermark_at_the_headroom_is_an_error_with_its_numbers() {
        let h = size();
        let f = run(&[watermark("Ethernet0", 3, h)]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].id, f[0].severity), ("AUDIT-HEADROOM-NEAR", Severity::Error));
        assert!(f[0].what.contains(&format!("{h} B of {h} B (100 %")), "{}", f[0].what);
        assert!(f[0].what.contains("computed by rocelab"), "{}", f[0].what);
        assert_eq!(f[0].class.as_deref(), Some("roce (priority 3)"));
        assert_eq!(f[0].location.as_ref().map(|o| o.line), Some(4));
    }

    #[test]
    fn near_the_headroom_is_a_warning_and_just_below_the_margin_is_nothing() {
        let h = size();
        let near = h * NEAR_PERCENT / 100 + 1;
        let f = run(&[watermark("Ethernet0", 3, near)]);
        assert_eq!(f.iter().map(|f| f.severity).collect::<Vec<_>>(), [Severity::Warning]);
        // The near miss: one byte under the margin.
        let below = (h * NEAR_PERCENT).div_ceil(100) - 1;
        assert!(run(&[watermark("Ethernet0", 3, below)]).is_empty());
    }

    #[test]
    fn lossy_priority_groups_and_ports_with_pfc_off_have_no_headroom_to_fill() {
        let h = size();
        // PG0 carries the lossy default class; Ethernet8 has PFC off for roce (a qos.ports
        // override of the test fabric).
        assert!(run(&[watermark("Ethernet0", 0, 10 * h), watermark("Ethernet8", 3, 10 * h)]).is_empty());
    }

    #[test]
    fn a_configured_headroom_is_the_one_compared() {
        let mut f = fabric();
        let id = port_id(&f, "sw1", "Ethernet4").unwrap();
        let mut settings = f.port_settings(id);
        settings.headroom = Some(rocelab_model::units::Size::bytes(50_000));
        f.devices[id.device].ports[id.port].settings = Some(settings);
        let mut out = Vec::new();
        headroom(&f, &[watermark("Ethernet4", 3, 49_000)], &mut out);
        assert_eq!(out.len(), 1);
        assert!(out[0].what.contains("49000 B of 50000 B (98 %; the fabric's qos.buffer.headroom"), "{}", out[0].what);
        out.clear();
        headroom(&f, &[watermark("Ethernet4", 3, 44_999)], &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn a_watermark_over_an_interval_is_read_as_it_is_not_as_a_difference() {
        let before = super::super::Snapshot { samples: vec![watermark("Ethernet0", 3, 50_000)], problems: vec![] };
        let after = super::super::Snapshot { samples: vec![watermark("Ethernet0", 3, 40_000)], problems: vec![] };
        let (d, resets) = super::super::delta(&after, &before);
        assert!(resets.is_empty(), "a lower watermark is a clear, not a counter reset: {resets:?}");
        assert_eq!(d[0].value, 40_000);
    }

    #[test]
    fn sonic_watermark_output_read_from_a_file_gives_the_finding_through_the_audit() {
        let h = size();
        let text = format!(
            "Ingress headroom per PG:\n     Port    PG0    PG3\n---------  -----  -----\nEthernet0      0  {h}\n"
        );
        let f = fabric();
        let mut snap = super::super::Snapshot::default();
        super::super::read_text(&text, "counters/sw1.pg-headroom.txt", "sw1.pg-headroom.txt", &f, &mut snap);
        assert!(snap.problems.is_empty(), "{:?}", snap.problems);
        let found = super::super::audit(&f, &snap.samples, &[], false);
        let ids: Vec<_> = found.iter().map(|f| (f.id, f.port.as_deref())).collect();
        assert_eq!(ids, [("AUDIT-HEADROOM-NEAR", Some("Ethernet0"))]);
        assert_eq!(
            found[0].location.as_ref().map(|o| (o.file.as_str(), o.line)),
            Some(("counters/sw1.pg-headroom.txt", 4))
        );
    }
}
