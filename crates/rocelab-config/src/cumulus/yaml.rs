//! The NVUE startup configuration (`/etc/nvue.d/startup.yaml`, and `nv config show` in YAML)
//! read into [`CumulusConfig`](super::CumulusConfig): a YAML list of one-key maps, `- header:`
//! (`model`, `nvue-api-version`, `rev-id`, `version`) and `- set:` holding the configuration
//! tree whose paths are the `nv set` commands' words (NVIDIA Cumulus Linux user guide, "NVUE
//! CLI", configuration files; `nv set qos roce mode lossless` is `set: qos: roce: mode:
//! lossless`, and a member set such as a PFC switch priority is a key with an empty map, `3:
//! {}`). Each leaf becomes its `nv set` command, numbered with the line of the YAML it came
//! from, and goes through the command parser ([`super::parse`]), so both forms are read by the
//! same rules.

use super::parse::{parse_lines, Parsed, Unknown};
use rocelab_model::node::{Node, NodeKind};

/// Whether the text is an NVUE YAML configuration: a top-level `- set:` or `- header:` entry.
pub fn recognise(text: &str) -> bool {
    text.lines().any(|l| l.trim_end() == "- set:" || l.trim_end() == "- header:")
}

/// Reads an NVUE YAML configuration; `stem` names the switch when it sets no hostname.
pub fn parse(text: &str, stem: &str) -> Parsed {
    let root = match rocelab_model::node::parse(text) {
        Ok(root) => root,
        Err(d) => {
            let mut p = parse_lines(std::iter::empty(), stem);
            // The YAML reader may place an error at the end of the text, past its last line.
            let line = d.line.clamp(1, text.lines().count().max(1));
            p.unknown.push(Unknown { line, text: format!("not YAML NVUE reads: {}", d.message) });
            return p;
        }
    };
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut unknown = Vec::new();
    let mut release = None;
    match &root.kind {
        NodeKind::Seq(items) => {
            for item in items {
                match item.get("set").or_else(|| item.get("header")) {
                    Some(body) if item.get("set").is_some() => {
                        flatten(body, &mut vec!["nv".into(), "set".into()], &mut lines)
                    }
                    Some(header) => {
                        // `version: Cumulus Linux 5.9.1`: the release is the version's last word.
                        release = header.get("version").and_then(|v| v.scalar_text()).and_then(|v| {
                            v.split_whitespace()
                                .last()
                                .filter(|w| w.starts_with(|c: char| c.is_ascii_digit()))
                                .map(String::from)
                        });
                    }
                    None => unknown.push(Unknown {
                        line: item.mark.line,
                        text: "a top-level entry other than `set` or `header`".into(),
                    }),
                }
            }
        }
        _ => unknown
            .push(Unknown { line: root.mark.line, text: "expected a list of `- header:` and `- set:` entries".into() }),
    }
    let mut p = parse_lines(lines.iter().map(|(n, l)| (*n, l.as_str())), stem);
    if let Some(r) = release {
        p.config.release.name = r;
        p.config.cable_length_under_roce = p.config.cable_length_under_roce || !p.config.release.at_least("5.4");
    }
    p.unknown.extend(unknown);
    p.unknown.sort_by_key(|u| u.line);
    p
}

/// Each leaf of the tree under `path` as one `nv set` line.
fn flatten(node: &Node, path: &mut Vec<String>, out: &mut Vec<(usize, String)>) {
    match &node.kind {
        NodeKind::Map(entries) if !entries.is_empty() => {
            for (k, v) in entries {
                path.push(k.scalar_text().unwrap_or_default());
                let leaf = matches!(&v.kind, NodeKind::Null) || matches!(&v.kind, NodeKind::Map(e) if e.is_empty());
                if leaf {
                    out.push((k.mark.line, path.join(" ")));
                } else {
                    flatten(v, path, out);
                }
                path.pop();
            }
        }
        // An empty `set:` sets nothing.
        NodeKind::Map(_) | NodeKind::Null if path.len() <= 2 => {}
        NodeKind::Map(_) | NodeKind::Null => out.push((node.mark.line, path.join(" "))),
        NodeKind::Seq(items) => {
            for i in items {
                flatten(i, path, out);
            }
        }
        _ => {
            path.push(node.scalar_text().unwrap_or_default());
            out.push((node.mark.line, path.join(" ")));
            path.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A startup.yaml as NVUE writes it: the header, then the configuration tree.
    const STARTUP: &str = "- header:
    model: SN3700
    nvue-api-version: nvue_v1
    rev-id: 1.0
    version: Cumulus Linux 5.3.0
- set:
    system:
      hostname: leaf01
    interface:
      swp1:
        link:
          mtu: 9216
        type: swp
    qos:
      roce:
        mode: lossless
        cable-length: 10
      mapping:
        default-global:
          trust: l3
          dscp:
            '26':
              switch-priority: 3
      pfc:
        default-global:
          switch-priority:
            '3': {}
          tx: enable
          rx: enable
      congestion-control:
        default-global:
          traffic-class:
            '3':
              min-threshold: 150000
              max-threshold: 1500000
              probability: 100
              ecn: enable
              red: enable
";

    #[test]
    fn reads_the_startup_yaml_through_the_command_rules() {
        assert!(recognise(STARTUP));
        let p = parse(STARTUP, "stem");
        let c = &p.config;
        assert_eq!(
            (c.hostname.as_str(), c.release.name.as_str(), c.roce_mode.as_deref()),
            ("leaf01", "5.3.0", Some("lossless"))
        );
        assert_eq!((c.cable_length, c.cable_length_under_roce, c.trust.as_str()), (10, true, "l3"));
        assert_eq!((c.pfc_priorities.as_slice(), p.pfc_tx_rx), (&[3][..], (true, true)));
        assert_eq!((c.dscp_map[0].dscp.as_str(), c.dscp_map[0].switch_priority), ("26", 3));
        assert_eq!((c.ecn[0].traffic_class, c.ecn[0].min, c.ecn[0].max), (3, 150_000, 1_500_000));
        assert_eq!((c.interfaces[0].name.as_str(), c.interfaces[0].mtu, p.interface_lines[0]), ("swp1", 9216, 12));
        // `red enable` is a WRED drop setting rocelab does not read: listed at its line.
        let unknown: Vec<(usize, &str)> = p.unknown.iter().map(|u| (u.line, u.text.as_str())).collect();
        assert_eq!(unknown, [(38, "nv set qos congestion-control default-global traffic-class 3 red enable")]);
    }

    #[test]
    fn yaml_that_is_not_nvue_is_reported_at_its_line() {
        let p = parse("- set:\n    qos: [1, 2\n", "s");
        assert_eq!(p.unknown.len(), 1);
        assert!(p.unknown[0].text.starts_with("not YAML"), "{:?}", p.unknown);
        let p = parse("- set: {}\n- other: 1\n", "s");
        assert_eq!(p.unknown.iter().map(|u| u.line).collect::<Vec<_>>(), [2]);
    }
}
