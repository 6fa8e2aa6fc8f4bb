//! A YAML document as a tree of nodes that remember where they were written, so that every
//! error can name its file, line and column. Built from `yaml-rust2`'s marked event stream;
//! anchors and aliases are expanded (with a cap, so a "billion laughs" file is an error, not an
//! out-of-memory).
//!
//! Overrides (variants and sweeps) are applied to this tree before it is decoded, so a value
//! that came from a variant keeps the position where the variant wrote it.

use crate::diag::{Diagnostic, Mark};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Most nodes a document may expand to (aliases included).
const MAX_NODES: usize = 2_000_000;

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub mark: Mark,
}

impl Node {
    pub fn new(kind: NodeKind, mark: Mark) -> Node {
        Node { kind, mark }
    }

    /// A short name of the node's type, for "expected X, found Y" messages.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            NodeKind::Null => "nothing (null)",
            NodeKind::Bool(_) => "a boolean",
            NodeKind::Int(_) => "an integer",
            NodeKind::Float(_) => "a number",
            NodeKind::Str(_) => "a string",
            NodeKind::Seq(_) => "a list",
            NodeKind::Map(_) => "a mapping",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value under `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            NodeKind::Map(entries) => entries.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match &mut self.kind {
            NodeKind::Map(entries) => entries.iter_mut().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Removes `key` from a mapping and returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Node> {
        match &mut self.kind {
            NodeKind::Map(entries) => {
                let i = entries.iter().position(|(k, _)| k.as_str() == Some(key))?;
                Some(entries.remove(i).1)
            }
            _ => None,
        }
    }

    /// The scalar as text, as it would be written (for keys and error messages).
    pub fn scalar_text(&self) -> Option<String> {
        match &self.kind {
            NodeKind::Null => Some("null".into()),
            NodeKind::Bool(b) => Some(b.to_string()),
            NodeKind::Int(i) => Some(i.to_string()),
            NodeKind::Float(f) => Some(f.to_string()),
            NodeKind::Str(s) => Some(s.clone()),
            _ => None,
        }
    }
}

/// Parses YAML text into one node tree. Syntax errors come back as a located diagnostic.
pub fn parse(text: &str) -> Result<Node, Diagnostic> {
    if let Some(d) = forbidden_character(text) {
        return Err(d);
    }
    let mut builder = Builder { stack: Vec::new(), anchors: Vec::new(), root: None, count: 0, error: None };
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, false) {
        let m = e.marker();
        return Err(Diagnostic::error(mark(m), "", format!("YAML syntax: {}", e.info())));
    }
    if let Some(e) = builder.error {
        return Err(e);
    }
    Ok(builder.root.unwrap_or(Node::new(NodeKind::Null, Mark { line: 1, column: 1 })))
}

/// The first character YAML does not allow in a document, as an error at its line and column.
/// YAML 1.2 (§5.1, Character Set) admits tab, line feed and carriage return of the C0 controls,
/// and neither DEL, the C1 controls but NEL, nor U+FFFE/U+FFFF. The parser would stop at a NUL
/// as at the end of the text and report what the rest of the file then lacks (a missing
/// field), far from the cause: a binary file, or one written with a NUL in it.
fn forbidden_character(text: &str) -> Option<Diagnostic> {
    let allowed = |c: char| match c {
        '\t' | '\n' | '\r' | '\u{85}' => true,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}' => false,
        _ => true,
    };
    let (line_no, line) = text.split('\n').enumerate().find(|(_, l)| !l.chars().all(allowed))?;
    let (column, c) = line.chars().enumerate().find(|(_, c)| !allowed(*c))?;
    let name =
        if c == '\0' { "a NUL byte (U+0000)".to_string() } else { format!("the control character U+{:04X}", c as u32) };
    let mut d = Diagnostic::error(
        Mark { line: line_no + 1, column: column + 1 },
        "",
        format!("{name}: YAML allows no control characters but tab, line feed and carriage return (YAML 1.2 §5.1)"),
    );
    d.expected = Some("text: a fabric file is UTF-8 YAML".into());
    d.suggestion =
        Some("remove the character; if the file is binary or was cut while being copied, copy it again".into());
    Some(d)
}

fn mark(m: &Marker) -> Mark {
    Mark { line: m.line(), column: m.col() + 1 }
}

enum Frame {
    Seq(Vec<Node>, Mark, usize),
    Map(Vec<(Node, Node)>, Option<Node>, Mark, usize),
}

struct Builder {
    stack: Vec<Frame>,
    anchors: Vec<(usize, Node)>,
    root: Option<Node>,
    count: usize,
    error: Option<Diagnostic>,
}

impl Builder {
    fn add(&mut self, node: Node, anchor: usize) {
        if self.error.is_some() {
            return;
        }
        self.count += 1;
        if self.count > MAX_NODES {
            self.error = Some(Diagnostic::error(
                node.mark,
                "",
                format!("the document expands to more than {MAX_NODES} nodes (aliases included)"),
            ));
            return;
        }
        if anchor > 0 {
            self.anchors.push((anchor, node.clone()));
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node)
                }
            }
            Some(Frame::Seq(items, _, _)) => items.push(node),
            Some(Frame::Map(entries, key, _, _)) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push((k, node)),
            },
        }
    }
}

fn size_of(node: &Node) -> usize {
    match &node.kind {
        NodeKind::Seq(items) => 1 + items.iter().map(size_of).sum::<usize>(),
        NodeKind::Map(entries) => 1 + entries.iter().map(|(k, v)| size_of(k) + size_of(v)).sum::<usize>(),
        _ => 1,
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, m: Marker) {
        let at = mark(&m);
        match ev {
            Event::Scalar(value, style, anchor, tag) => {
                let kind = if style == TScalarStyle::Plain && tag.is_none() {
                    resolve_plain(&value)
                } else {
                    NodeKind::Str(value)
                };
                self.add(Node::new(kind, at), anchor);
            }
            Event::SequenceStart(anchor, _) => self.stack.push(Frame::Seq(Vec::new(), at, anchor)),
            Event::MappingStart(anchor, _) => self.stack.push(Frame::Map(Vec::new(), None, at, anchor)),
            Event::SequenceEnd => {
                if let Some(Frame::Seq(items, at, anchor)) = self.stack.pop() {
                    self.add(Node::new(NodeKind::Seq(items), at), anchor);
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map(entries, _, at, anchor)) = self.stack.pop() {
                    self.add(Node::new(NodeKind::Map(entries), at), anchor);
                }
            }
            Event::Alias(id) => {
                let found = self.anchors.iter().rev().find(|(a, _)| *a == id).map(|(_, n)| n.clone());
                match found {
                    Some(mut n) => {
                        self.count += size_of(&n).saturating_sub(1);
                        n.mark = at;
                        self.add(n, 0)
                    }
                    None => {
                        if self.error.is_none() {
                            self.error = Some(Diagnostic::error(at, "", "alias to an unknown anchor"));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// YAML 1.2 core schema resolution of a plain scalar.
fn resolve_plain(v: &str) -> NodeKind {
    match v {
        "" | "~" | "null" | "Null" | "NULL" => return NodeKind::Null,
        "true" | "True" | "TRUE" => return NodeKind::Bool(true),
        "false" | "False" | "FALSE" => return NodeKind::Bool(false),
        _ => {}
    }
    let digits = v.strip_prefix(['-', '+']).unwrap_or(v);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(i) = v.parse::<i64>() {
            return NodeKind::Int(i);
        }
    }
    if let Some(hex) = v.strip_prefix("0x") {
        if let Ok(i) = i64::from_str_radix(hex, 16) {
            return NodeKind::Int(i);
        }
    }
    let looks_float = digits.bytes().any(|b| b.is_ascii_digit())
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'e' || b == b'E' || b == b'-' || b == b'+')
        && digits.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'.');
    if looks_float {
        if let Ok(f) = v.parse::<f64>() {
            return NodeKind::Float(f);
        }
    }
    NodeKind::Str(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based() {
        let n = parse("a:\n  b: 25G\n  c: [1, 2]\n").unwrap();
        let b = n.get("a").unwrap().get("b").unwrap();
        assert_eq!(b.mark, Mark { line: 2, column: 6 });
        assert_eq!(b.kind, NodeKind::Str("25G".into()));
        let c = n.get("a").unwrap().get("c").unwrap();
        assert!(matches!(&c.kind, NodeKind::Seq(v) if v.len() == 2));
    }

    #[test]
    fn plain_scalars_resolve_like_yaml_1_2() {
        let n = parse("[1, -2, 0.5, true, ~, '3', 9216, 1e3, 26G]").unwrap();
        let NodeKind::Seq(v) = n.kind else { panic!() };
        let kinds: Vec<_> = v.into_iter().map(|n| n.kind).collect();
        assert_eq!(
            kinds,
            vec![
                NodeKind::Int(1),
                NodeKind::Int(-2),
                NodeKind::Float(0.5),
                NodeKind::Bool(true),
                NodeKind::Null,
                NodeKind::Str("3".into()),
                NodeKind::Int(9216),
                NodeKind::Float(1000.0),
                NodeKind::Str("26G".into()),
            ]
        );
    }

    #[test]
    fn aliases_expand_and_bombs_are_refused() {
        let n = parse("a: &x {k: 1}\nb: *x\n").unwrap();
        assert_eq!(n.get("b").unwrap().get("k").unwrap().kind, NodeKind::Int(1));
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let p = i - 1;
            bomb.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let e = parse(&bomb).unwrap_err();
        assert!(e.message.contains("expands to more than"), "{}", e.message);
    }

    /// A NUL byte is named where it is, not taken for the end of the file.
    #[test]
    fn a_nul_or_control_character_is_an_error_at_its_place() {
        let e = parse("a: 1\nname: ba\0se\nb: 2\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 9), "{e}");
        assert!(e.message.starts_with("a NUL byte (U+0000): YAML allows no control characters"), "{e}");
        assert!(e.suggestion.as_deref().unwrap().contains("copy it again"), "{e:?}");
        let e = parse("a: \u{7}\n").unwrap_err();
        assert_eq!((e.line, e.column, e.message.starts_with("the control character U+0007")), (1, 4, true), "{e}");
        // Tab, CR LF and NEL are text; a non-ASCII letter counts as one column.
        let n = parse("a: \"é\t\"\r\nb: 1\r\n").unwrap();
        assert_eq!(n.get("b").unwrap().kind, NodeKind::Int(1));
        assert_eq!(parse("x: é\u{1}").unwrap_err().column, 5);
    }

    #[test]
    fn syntax_errors_are_located() {
        let e = parse("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(e.line >= 1 && e.message.starts_with("YAML syntax"), "{e}");
    }
}
