//! Indented CLI configuration text as a tree of lines: Cisco NX-OS `show running-config` and
//! Dell OS10 `show running-configuration` both print a mode's commands indented under the line
//! that enters the mode (`policy-map type queuing X` / `  class type queuing c-out-8q-q3` /
//! `    bandwidth remaining percent 50`), with `!` lines as comments or separators. The NX-OS and
//! OS10 parsers ([`crate::nxos::parse`], [`crate::os10::parse`]) read their text through it, and
//! share the value lists and the report of lines not understood below ([`Unknown`], which the
//! Comware and Cumulus parsers report too).

/// One configuration line with the lines indented under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// 1-based line number in the file.
    pub line: usize,
    /// The line without its indentation and trailing spaces.
    pub text: String,
    pub children: Vec<Node>,
}

impl Node {
    /// The line's words.
    pub fn words(&self) -> Vec<&str> {
        self.text.split_whitespace().collect()
    }

    /// How many lines are under this one, at any depth.
    pub fn descendants(&self) -> usize {
        self.children.iter().map(|c| 1 + c.descendants()).sum()
    }
}

/// The top-level lines of `text` with their blocks, and the `!` comment lines (line, text). An
/// empty line or a `!` line at the left margin closes the blocks open above it.
pub fn parse(text: &str) -> (Vec<Node>, Vec<(usize, String)>) {
    let mut roots: Vec<Node> = Vec::new();
    let mut comments = Vec::new();
    // Open blocks: (indentation, path of child indices from the roots).
    let mut open: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end();
        let body = line.trim_start();
        if body.is_empty() {
            open.clear();
            continue;
        }
        if body.starts_with('!') {
            comments.push((n, body.to_string()));
            if line.len() == body.len() {
                open.clear();
            }
            continue;
        }
        let indent = line.len() - body.len();
        while open.last().is_some_and(|(d, _)| *d >= indent) {
            open.pop();
        }
        let node = Node { line: n, text: body.to_string(), children: Vec::new() };
        let path = match open.last() {
            None => {
                roots.push(node);
                vec![roots.len() - 1]
            }
            Some((_, path)) => {
                let mut at = &mut roots[path[0]];
                for k in &path[1..] {
                    at = &mut at.children[*k];
                }
                at.children.push(node);
                let mut p = path.clone();
                p.push(at.children.len() - 1);
                p
            }
        };
        open.push((indent, path));
    }
    (roots, comments)
}

/// A line the parser did not understand, with its 1-based number (a block's first line, with
/// how many lines it holds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    pub line: usize,
    pub text: String,
}

/// A running-config read into a platform's typed configuration `C` (NX-OS's, OS10's), with
/// what the checker reads beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<C> {
    pub config: C,
    /// The line each of the configuration's interfaces was named on.
    pub interface_lines: Vec<usize>,
    /// Per interface, its `switchport …` and `no switchport` lines with their numbers, as
    /// written (the checker reads them as it reads EOS's).
    pub switchport: Vec<Vec<(usize, String)>>,
    /// VLANs the switch defines (NX-OS `vlan 10,20-30`, OS10 `interface vlan N`).
    pub defined: Vec<(u16, u16)>,
    pub unknown: Vec<Unknown>,
    /// Lines skipped as not bearing on QoS.
    pub ignored: usize,
}

/// The device name and release of rocelab's own header comment,
/// `! rocelab: leaf1 (PLATFORM 10.3, …). …`, and whether a `! Release … is rocelab's default`
/// line says the release is the default; none of either when the text has no such header.
pub fn rocelab_header(comments: &[(usize, String)], platform: &str) -> (Option<String>, crate::common::Release) {
    let mut hostname = None;
    let mut release = crate::common::Release { name: String::new(), default: false };
    let opening = format!(" ({platform} ");
    for (_, c) in comments {
        if let Some((name, after)) = c.strip_prefix("! rocelab: ").and_then(|rest| rest.split_once(opening.as_str())) {
            hostname.get_or_insert_with(|| name.to_string());
            release.name = after.split([',', ')']).next().unwrap_or("").to_string();
        }
        if c.starts_with("! Release ") && c.contains(" is rocelab's default") {
            release.default = true;
        }
    }
    (hostname, release)
}

/// What a parser collects besides the configuration: the lines it did not understand and how
/// many it skipped as not bearing on QoS.
#[derive(Debug, Default)]
pub struct Reader {
    pub unknown: Vec<Unknown>,
    pub ignored: usize,
}

impl Reader {
    /// `n` (and its block) is not understood.
    pub fn report(&mut self, n: &Node) {
        let text = match n.descendants() {
            0 => n.text.clone(),
            k => format!("{} (a block rocelab does not read, with {k} indented lines)", n.text),
        };
        self.unknown.push(Unknown { line: n.line, text });
    }
}

/// `10,20-30`: VLAN ranges 1-4094, as NX-OS, OS10 and EOS list them.
pub fn vlan_list(text: &str) -> Option<Vec<(u16, u16)>> {
    let mut out = Vec::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u16, u16) = (a.parse().ok()?, b.parse().ok()?);
        if a == 0 || b > 4094 || a > b {
            return None;
        }
        out.push((a, b));
    }
    (!out.is_empty()).then_some(out)
}

/// `0-2,4-7`, `3`, `3,5`: priorities (each 0-7) as NX-OS `pause pfc-cos`, OS10 `pfc-cos`,
/// Windows, mlnx_qos and Onyx list them.
pub fn priority_list(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u8, u8) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if a > b || b > 7 {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok().filter(|p: &u8| *p < 8)?),
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indentation_nests_lines_and_margin_comments_close_blocks() {
        let (roots, comments) =
            parse("policy-map type qos A\n  class B\n    set qos-group 3\n  class C\n!\ninterface x\n mtu 9216\n");
        assert_eq!(roots.len(), 2);
        assert_eq!(roots[0].children.len(), 2);
        assert_eq!(roots[0].children[0].children[0].words(), ["set", "qos-group", "3"]);
        assert_eq!(roots[0].children[0].children[0].line, 3);
        assert_eq!(roots[0].descendants(), 3);
        assert_eq!(roots[1].children[0].text, "mtu 9216");
        assert_eq!(comments, vec![(5, "!".to_string())]);
    }

    #[test]
    fn value_lists_take_ranges_and_refuse_what_is_out_of_range() {
        assert_eq!(vlan_list("10,20-22"), Some(vec![(10, 10), (20, 22)]));
        assert_eq!((vlan_list("0"), vlan_list("4095"), vlan_list("5-3")), (None, None, None));
        assert_eq!(priority_list("0-2, 4"), Some(vec![0, 1, 2, 4]));
        assert_eq!((priority_list("8"), priority_list("")), (None, None));
    }

    #[test]
    fn a_block_not_understood_is_reported_at_its_first_line_with_its_size() {
        let (roots, _) = parse("router bgp 1\n  router-id 1.1.1.1\n");
        let mut r = Reader::default();
        r.report(&roots[0]);
        assert_eq!(
            r.unknown,
            [Unknown { line: 1, text: "router bgp 1 (a block rocelab does not read, with 1 indented lines)".into() }]
        );
    }
}
