//! Indented CLI configuration text as a tree of lines: Cisco NX-OS `show running-config` and
//! Dell OS10 `show running-configuration` both print a mode's commands indented under the line
//! that enters the mode (`policy-map type queuing X` / `  class type queuing c-out-8q-q3` /
//! `    bandwidth remaining percent 50`), with `!` lines as comments or separators.

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
}
