//! Field paths (`fabric.qos.classes[roce].ets`, `fabric.topology.links[3].b`): finding where a
//! field was written, and setting a field to a new value for variants and sweeps.
//!
//! A `[x]` selector is a list index when `x` is a number, `[*]` every element (setting a field
//! of each: `workloads.jobs[*].bs` sweeps the block size of every job at once), else the
//! element whose `name` is `x`.

use crate::diag::{did_you_mean, Diagnostic, Mark};
use crate::node::{Node, NodeKind};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(usize),
    Named(String),
    /// `[*]`: every element.
    All,
}

pub fn parse_path(path: &str) -> Result<Vec<Segment>, String> {
    let mut out = Vec::new();
    let mut rest = path.trim();
    if rest.is_empty() {
        return Err("empty field path".into());
    }
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let Some(end) = r.find(']') else { return Err(format!("unclosed `[` in `{path}`")) };
            let sel = r[..end].trim();
            if sel.is_empty() {
                return Err(format!("empty `[]` in `{path}`"));
            }
            out.push(match sel.parse::<usize>() {
                Ok(i) => Segment::Index(i),
                Err(_) if sel == "*" => Segment::All,
                Err(_) => Segment::Named(sel.trim_matches('"').to_string()),
            });
            rest = &r[end + 1..];
            rest = rest.strip_prefix('.').unwrap_or(rest);
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            let key = &rest[..end];
            if key.is_empty() {
                return Err(format!("empty field name in `{path}`"));
            }
            out.push(Segment::Key(key.to_string()));
            rest = &rest[end..];
            rest = rest.strip_prefix('.').unwrap_or(rest);
        }
    }
    Ok(out)
}

fn named_index(items: &[Node], name: &str) -> Option<usize> {
    items.iter().position(|n| n.get("name").and_then(|v| v.scalar_text()).as_deref() == Some(name))
}

/// Where the field at `path` was written, or its nearest written ancestor. A device's `nics`
/// may be written as one `nic:` mapping: `nics[0]` finds it there.
pub fn mark_of(root: &Node, path: &str) -> Mark {
    let Ok(segs) = parse_path(path) else { return root.mark };
    let mut node = root;
    for seg in &segs {
        fn find<'n>(entries: &'n [(Node, Node)], k: &str) -> Option<&'n Node> {
            entries.iter().find(|(key, _)| key.scalar_text().as_deref() == Some(k)).map(|(_, v)| v)
        }
        let next = match (seg, &node.kind) {
            (Segment::Key(k), NodeKind::Map(entries)) => {
                find(entries, k).or_else(|| if k == "nics" { find(entries, "nic") } else { None })
            }
            (Segment::Index(i), NodeKind::Seq(items)) => items.get(*i),
            (Segment::Index(0), NodeKind::Map(_)) => Some(node),
            (Segment::Named(n), NodeKind::Seq(items)) => named_index(items, n).map(|i| &items[i]),
            (Segment::All, NodeKind::Seq(items)) => items.first(),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => break,
        }
    }
    node.mark
}

/// Sets the field at `path` to `value`, creating missing mappings on the way. `at` is where the
/// override was written, for errors.
pub fn set_path(root: &mut Node, path: &str, value: Node, at: Mark, what: &str) -> Result<(), Diagnostic> {
    let segs = parse_path(path).map_err(|e| Diagnostic::error(at, what, e))?;
    set_segments(root, path, &segs, String::new(), value, at, what)
}

fn set_segments(
    root: &mut Node,
    path: &str,
    segs: &[Segment],
    mut walked: String,
    value: Node,
    at: Mark,
    what: &str,
) -> Result<(), Diagnostic> {
    let mut node = root;
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        if node.kind == NodeKind::Null {
            node.kind = NodeKind::Map(Vec::new());
        }
        let node_mark = node.mark;
        let fail = |msg: String, suggestion: Option<String>| {
            Diagnostic::error(at, what, format!("cannot set `{path}`: {msg}")).suggest(suggestion)
        };
        match seg {
            Segment::Key(k) => {
                let NodeKind::Map(entries) = &mut node.kind else {
                    return Err(fail(format!("`{walked}` is not a mapping"), None));
                };
                let pos = entries.iter().position(|(key, _)| key.scalar_text().as_deref() == Some(k.as_str()));
                let pos = match pos {
                    Some(p) => p,
                    None => {
                        entries.push((Node::new(NodeKind::Str(k.clone()), at), Node::new(NodeKind::Null, node_mark)));
                        entries.len() - 1
                    }
                };
                if last {
                    entries[pos].1 = value;
                    return Ok(());
                }
                node = &mut entries[pos].1;
                walked = if walked.is_empty() { k.clone() } else { format!("{walked}.{k}") };
            }
            Segment::Index(idx) => {
                let NodeKind::Seq(items) = &mut node.kind else {
                    return Err(fail(format!("`{walked}` is not a list"), None));
                };
                let len = items.len();
                let Some(item) = items.get_mut(*idx) else {
                    return Err(fail(format!("`{walked}` has {len} elements, no [{idx}]"), None));
                };
                if last {
                    *item = value;
                    return Ok(());
                }
                node = item;
                walked = format!("{walked}[{idx}]");
            }
            Segment::Named(name) => {
                let NodeKind::Seq(items) = &mut node.kind else {
                    return Err(fail(format!("`{walked}` is not a list"), None));
                };
                let Some(idx) = named_index(items, name) else {
                    let names: Vec<String> =
                        items.iter().filter_map(|n| n.get("name").and_then(|v| v.scalar_text())).collect();
                    let hint = did_you_mean(name, names.iter().map(String::as_str));
                    return Err(fail(format!("`{walked}` has no element named `{name}`"), hint));
                };
                if last {
                    items[idx] = value;
                    return Ok(());
                }
                node = &mut items[idx];
                walked = format!("{walked}[{name}]");
            }
            Segment::All => {
                let NodeKind::Seq(items) = &mut node.kind else {
                    return Err(fail(format!("`{walked}` is not a list"), None));
                };
                if items.is_empty() {
                    return Err(fail(format!("`{walked}` is empty: `[*]` sets nothing"), None));
                }
                for (k, item) in items.iter_mut().enumerate() {
                    if last {
                        *item = value.clone();
                    } else {
                        set_segments(item, path, &segs[i + 1..], format!("{walked}[{k}]"), value.clone(), at, what)?;
                    }
                }
                return Ok(());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::parse;

    #[test]
    fn paths_parse() {
        assert_eq!(
            parse_path("fabric.qos.classes[roce].ets").unwrap(),
            vec![
                Segment::Key("fabric".into()),
                Segment::Key("qos".into()),
                Segment::Key("classes".into()),
                Segment::Named("roce".into()),
                Segment::Key("ets".into()),
            ]
        );
        assert_eq!(parse_path("a.links[3].b").unwrap()[2], Segment::Index(3));
        assert!(parse_path("a[").is_err());
    }

    #[test]
    fn set_by_name_index_and_new_key() {
        let mut root =
            parse("qos:\n  classes:\n    - {name: roce, ets: 90}\n    - {name: default, ets: 10}\n").unwrap();
        let v = parse("95").unwrap();
        set_path(&mut root, "qos.classes[roce].ets", v.clone(), Mark::default(), "v").unwrap();
        set_path(&mut root, "qos.classes[1].ets", v.clone(), Mark::default(), "v").unwrap();
        set_path(&mut root, "qos.dcqcn.enabled", parse("true").unwrap(), Mark::default(), "v").unwrap();
        assert_eq!(mark_of(&root, "qos.classes[roce].ets").line, 1);
        let classes = root.get("qos").unwrap().get("classes").unwrap();
        let NodeKind::Seq(items) = &classes.kind else { panic!() };
        assert_eq!(items[0].get("ets").unwrap().kind, NodeKind::Int(95));
        assert_eq!(items[1].get("ets").unwrap().kind, NodeKind::Int(95));
        assert_eq!(root.get("qos").unwrap().get("dcqcn").unwrap().get("enabled").unwrap().kind, NodeKind::Bool(true));
        let e = set_path(&mut root, "qos.classes[rocee].ets", v, Mark::default(), "v").unwrap_err();
        assert_eq!(e.suggestion.as_deref(), Some("did you mean \"roce\"?"));
    }

    #[test]
    fn a_star_sets_the_field_of_every_element() {
        let mut root = parse("jobs:\n  - {name: a, bs: 4KiB}\n  - {name: b, bs: 8KiB}\n").unwrap();
        set_path(&mut root, "jobs[*].bs", parse("64KiB").unwrap(), Mark::default(), "v").unwrap();
        let NodeKind::Seq(items) = &root.get("jobs").unwrap().kind else { panic!() };
        assert!(items.iter().all(|j| j.get("bs").unwrap().kind == NodeKind::Str("64KiB".into())));
        assert_eq!(parse_path("jobs[*].bs").unwrap()[1], Segment::All);
        let e = set_path(&mut root, "jobs[*].bs.x", parse("1").unwrap(), Mark::default(), "v").unwrap_err();
        assert!(e.message.contains("`jobs[0].bs` is not a mapping"), "{}", e.message);
        let mut empty = parse("jobs: []\n").unwrap();
        assert!(set_path(&mut empty, "jobs[*].bs", parse("1").unwrap(), Mark::default(), "v").is_err());
    }

    #[test]
    fn marks_find_the_deepest_written_node() {
        let root = parse("a:\n  links:\n    - {b: x}\n    - {b: y}\n").unwrap();
        assert_eq!(mark_of(&root, "a.links[1].b"), Mark { line: 4, column: 11 });
        assert_eq!(mark_of(&root, "a.links[9].b").line, 3);
    }
}
