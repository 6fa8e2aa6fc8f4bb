//! The links file of `rocelab check --import DIR --links LINKS.yaml`: the cabling between the
//! imported devices, the RDMA hosts that have no configuration file, and optionally the policy
//! the devices are judged against.
//!
//! ```yaml
//! links:
//!   - {a: "leaf1:Ethernet1", b: "host1:p0", speed: 100G, cable: 3m}
//! hosts: [host1]                 # RDMA endpoints without a configuration file
//! policy: {lossless: [3], rdma_dscp: 26, cnp_priority: 6, cnp_dscp: 48, dcqcn: true}
//! ```
//!
//! Decoded from the located YAML tree of `rocelab-model`, so every error names the file, line
//! and column, the field's path, what was expected and, for a misspelt key, a "did you mean".

use super::ImportError;
use rocelab_model::diag::{did_you_mean, Mark};
use rocelab_model::node::{Node, NodeKind};
use rocelab_model::units::{Length, Rate};

/// One cable of the links file.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkEntry {
    pub a: String,
    pub b: String,
    pub speed: Option<Rate>,
    pub cable: Option<Length>,
    /// Where `a` and `b` were written, for errors about the devices and ports they name.
    pub a_at: Mark,
    pub b_at: Mark,
}

/// The intent stated in the links file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicyEntry {
    pub lossless: Vec<u8>,
    pub rdma_dscp: Option<u8>,
    pub cnp_priority: Option<u8>,
    pub cnp_dscp: Option<u8>,
    pub dcqcn: bool,
    pub roce_mtu: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LinksFile {
    pub links: Vec<LinkEntry>,
    pub hosts: Vec<String>,
    pub policy: Option<PolicyEntry>,
}

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn err(&self, at: Mark, path: &str, msg: impl std::fmt::Display) -> ImportError {
        ImportError(format!("{}:{}:{}: {path}: {msg}", self.file, at.line, at.column))
    }

    fn map<'n>(&self, n: &'n Node, path: &str, keys: &[&str]) -> Result<&'n [(Node, Node)], ImportError> {
        let NodeKind::Map(entries) = &n.kind else {
            return Err(self.err(n.mark, path, format!("expected a mapping, found {}", n.type_name())));
        };
        for (k, _) in entries {
            let key = k.scalar_text().unwrap_or_default();
            if !keys.contains(&key.as_str()) {
                let hint = did_you_mean(&key, keys.iter().copied()).map(|h| format!("; {h}")).unwrap_or_default();
                return Err(self.err(
                    k.mark,
                    path,
                    format!("unknown field `{key}`, expected one of {}{hint}", keys.join(", ")),
                ));
            }
        }
        Ok(entries)
    }

    fn str<'n>(&self, n: &'n Node, path: &str) -> Result<&'n str, ImportError> {
        n.as_str().ok_or_else(|| self.err(n.mark, path, format!("expected a string, found {}", n.type_name())))
    }

    fn int(&self, n: &Node, path: &str, max: i64) -> Result<i64, ImportError> {
        match n.kind {
            NodeKind::Int(i) if (0..=max).contains(&i) => Ok(i),
            NodeKind::Int(i) => Err(self.err(n.mark, path, format!("{i} is out of range: expected 0 to {max}"))),
            _ => Err(self.err(n.mark, path, format!("expected an integer from 0 to {max}, found {}", n.type_name()))),
        }
    }

    fn parsed<T: std::str::FromStr>(&self, n: &Node, path: &str, what: &str) -> Result<T, ImportError>
    where
        T::Err: std::fmt::Display,
    {
        let text = n
            .scalar_text()
            .filter(|_| !matches!(n.kind, NodeKind::Null))
            .ok_or_else(|| self.err(n.mark, path, format!("expected {what}, found {}", n.type_name())))?;
        text.parse::<T>().map_err(|e| self.err(n.mark, path, e))
    }
}

/// Decodes a links file (YAML text). `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<LinksFile, ImportError> {
    let cx = Ctx { file };
    let root =
        rocelab_model::node::parse(text).map_err(|d| cx.err(Mark { line: d.line, column: d.column }, "", d.message))?;
    let mut out = LinksFile::default();
    let mut seen_links = false;
    for (k, v) in cx.map(&root, "(top level)", &["links", "hosts", "policy"])? {
        match k.as_str().unwrap_or_default() {
            "links" => {
                seen_links = true;
                let NodeKind::Seq(items) = &v.kind else {
                    return Err(cx.err(v.mark, "links", format!("expected a list of links, found {}", v.type_name())));
                };
                for (i, item) in items.iter().enumerate() {
                    let path = format!("links[{i}]");
                    let mut e = LinkEntry {
                        a: String::new(),
                        b: String::new(),
                        speed: None,
                        cable: None,
                        a_at: item.mark,
                        b_at: item.mark,
                    };
                    let (mut has_a, mut has_b) = (false, false);
                    for (k, v) in cx.map(item, &path, &["a", "b", "speed", "cable"])? {
                        let key = k.as_str().unwrap_or_default();
                        let p = format!("{path}.{key}");
                        match key {
                            "a" | "b" => {
                                let s = cx.str(v, &p)?;
                                if super::parse_ref(s).is_none() {
                                    return Err(cx.err(v.mark, &p, format!("`{s}` is not `device:port`")));
                                }
                                if key == "a" {
                                    (e.a, e.a_at, has_a) = (s.to_string(), v.mark, true);
                                } else {
                                    (e.b, e.b_at, has_b) = (s.to_string(), v.mark, true);
                                }
                            }
                            "speed" => e.speed = Some(cx.parsed(v, &p, "a rate such as 100G")?),
                            _ => e.cable = Some(cx.parsed(v, &p, "a length such as 3m")?),
                        }
                    }
                    for (has, key) in [(has_a, "a"), (has_b, "b")] {
                        if !has {
                            return Err(cx.err(item.mark, &path, format!("missing field `{key}` (`device:port`)")));
                        }
                    }
                    out.links.push(e);
                }
            }
            "hosts" => {
                let NodeKind::Seq(items) = &v.kind else {
                    return Err(cx.err(
                        v.mark,
                        "hosts",
                        format!("expected a list of host names, found {}", v.type_name()),
                    ));
                };
                for (i, h) in items.iter().enumerate() {
                    out.hosts.push(cx.str(h, &format!("hosts[{i}]"))?.to_string());
                }
            }
            _ => {
                let keys = ["lossless", "rdma_dscp", "cnp_priority", "cnp_dscp", "dcqcn", "roce_mtu"];
                let mut p = PolicyEntry::default();
                let mut has_lossless = false;
                for (k, v) in cx.map(v, "policy", &keys)? {
                    let key = k.as_str().unwrap_or_default();
                    let path = format!("policy.{key}");
                    match key {
                        "lossless" => {
                            has_lossless = true;
                            let NodeKind::Seq(items) = &v.kind else {
                                return Err(cx.err(
                                    v.mark,
                                    &path,
                                    format!("expected a list of priorities 0-7, found {}", v.type_name()),
                                ));
                            };
                            for (i, x) in items.iter().enumerate() {
                                p.lossless.push(cx.int(x, &format!("{path}[{i}]"), 7)? as u8);
                            }
                        }
                        "rdma_dscp" => p.rdma_dscp = Some(cx.int(v, &path, 63)? as u8),
                        "cnp_dscp" => p.cnp_dscp = Some(cx.int(v, &path, 63)? as u8),
                        "cnp_priority" => p.cnp_priority = Some(cx.int(v, &path, 7)? as u8),
                        "dcqcn" => match v.kind {
                            NodeKind::Bool(b) => p.dcqcn = b,
                            _ => {
                                return Err(cx.err(
                                    v.mark,
                                    &path,
                                    format!("expected true or false, found {}", v.type_name()),
                                ))
                            }
                        },
                        _ => {
                            let m = cx.int(v, &path, 4096)? as u32;
                            if ![256, 512, 1024, 2048, 4096].contains(&m) {
                                return Err(cx.err(
                                    v.mark,
                                    &path,
                                    format!("{m} is not a RoCE path MTU: expected 256, 512, 1024, 2048 or 4096"),
                                ));
                            }
                            p.roce_mtu = Some(m);
                        }
                    }
                }
                if !has_lossless {
                    return Err(cx.err(
                        v.mark,
                        "policy",
                        "missing field `lossless` (the lossless priorities, e.g. [3])",
                    ));
                }
                out.policy = Some(p);
            }
        }
    }
    if !seen_links {
        return Err(cx.err(
            Mark { line: 1, column: 1 },
            "(top level)",
            "missing field `links` (a list of {a: \"device:port\", b: \"device:port\"})",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_links_hosts_and_policy() {
        let f = parse(
            "links:\n  - {a: \"leaf1:Ethernet1\", b: \"h1:p0\", speed: 25G, cable: 5m}\nhosts: [h1]\npolicy: {lossless: [3], rdma_dscp: 26, dcqcn: true, roce_mtu: 4096}\n",
            "l.yaml",
        )
        .unwrap();
        assert_eq!(f.links[0].a, "leaf1:Ethernet1");
        assert_eq!((f.links[0].speed, f.links[0].cable), (Some(Rate::gbps(25)), Some(Length::metres(5))));
        assert_eq!((f.links[0].b_at.line, f.links[0].b_at.column), (2, 31));
        assert_eq!(f.hosts, ["h1"]);
        let p = f.policy.unwrap();
        assert_eq!((p.lossless, p.rdma_dscp, p.dcqcn, p.roce_mtu), (vec![3], Some(26), true, Some(4096)));
    }

    #[test]
    fn every_bad_field_is_located_with_its_path() {
        let cases: &[(&str, &str)] = &[
            ("linx: []\n", "l.yaml:1:1: (top level): unknown field `linx`, expected one of links, hosts, policy; did you mean \"links\"?"),
            ("links:\n  - {a: \"x:1\", b: y}\n", "l.yaml:2:19: links[0].b: `y` is not `device:port`"),
            ("links:\n  - {a: \"x:1\"}\n", "l.yaml:2:5: links[0]: missing field `b`"),
            ("links:\n  - {a: \"x:1\", b: \"y:2\", speed: fast}\n", "l.yaml:2:33: links[0].speed: `fast` is not a rate"),
            ("links:\n  - {a: \"x:1\", b: \"y:2\", cabel: 3m}\n", "l.yaml:2:26: links[0]: unknown field `cabel`, expected one of a, b, speed, cable; did you mean \"cable\"?"),
            ("links: []\npolicy: {lossless: [9]}\n", "l.yaml:2:21: policy.lossless[0]: 9 is out of range: expected 0 to 7"),
            ("links: []\npolicy: {rdma_dscp: 26}\n", "l.yaml:2:9: policy: missing field `lossless`"),
            ("links: []\npolicy: {lossless: [3], roce_mtu: 9000}\n", "policy.roce_mtu: 9000 is out of range"),
            ("links: []\npolicy: {lossless: [3], roce_mtu: 1500}\n", "1500 is not a RoCE path MTU"),
            ("hosts: [h1]\n", "l.yaml:1:1: (top level): missing field `links`"),
            ("links: {a: b}\n", "l.yaml:1:8: links: expected a list of links, found a mapping"),
            ("links: [\n", "l.yaml:"),
        ];
        for (text, want) in cases {
            let e = parse(text, "l.yaml").unwrap_err();
            assert!(e.0.contains(want), "{text:?}: {e}");
        }
    }
}
