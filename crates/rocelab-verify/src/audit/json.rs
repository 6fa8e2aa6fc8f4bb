//! A JSON reader for counter output (`| json` of Arista EOS, `-j` of SONiC and iproute2's
//! `rdma`) that keeps the line and column of every value and reads as much as it can of a
//! document that is cut short.
//!
//! `serde_json` gives neither: a value's position is lost once parsed, and a truncated document
//! is one error and nothing else. The audit needs both: a counter that is not a number is
//! reported at its line and column, and a file cut while being copied still gives the counters
//! before the cut (RFC 8259 is the grammar; numbers are kept as written, for the caller to
//! judge).

/// Where a value starts: line and column, both from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Members in the document's order, each with the position of its key.
    Object(Vec<(String, Pos, Node)>),
    Array(Vec<Node>),
    Str(String),
    /// A number as written (`12`, `1.5e3`, `-1`).
    Num(String),
    Bool(bool),
    Null,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub at: Pos,
    pub value: Value,
}

impl Node {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Object(m) => m.iter().find(|(k, _, _)| k == key).map(|(_, _, n)| n),
            _ => None,
        }
    }

    pub fn members(&self) -> &[(String, Pos, Node)] {
        match &self.value {
            Value::Object(m) => m,
            _ => &[],
        }
    }

    pub fn items(&self) -> &[Node] {
        match &self.value {
            Value::Array(a) => a,
            _ => &[],
        }
    }

    /// The value as the text a counter was given in: a number's digits or a string's content
    /// (SONiC and EOS print some counters as strings).
    pub fn text(&self) -> String {
        match &self.value {
            Value::Num(n) | Value::Str(n) => n.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Null => "null".into(),
            Value::Object(_) => "{…}".into(),
            Value::Array(_) => "[…]".into(),
        }
    }
}

/// What was read: the document (as much of it as precedes the first error) and that error.
#[derive(Debug)]
pub struct Doc {
    pub root: Option<Node>,
    pub error: Option<(Pos, String)>,
}

/// Reads `text`. A scalar directly before the point where the document breaks off is left out
/// (it may itself be cut: `12` of `1234`); containers keep the members read before it.
pub fn read(text: &str) -> Doc {
    let mut r = Reader { chars: text.chars().collect(), i: 0, line: 1, column: 1, error: None };
    r.ws();
    if r.peek().is_none() {
        let at = r.pos();
        return Doc { root: None, error: Some((at, "the document is empty".into())) };
    }
    let root = r.value();
    if r.error.is_none() {
        r.ws();
        if r.peek().is_some() {
            r.fail("text after the end of the JSON document");
        }
    }
    Doc { root: Some(root), error: r.error }
}

struct Reader {
    chars: Vec<char>,
    i: usize,
    line: usize,
    column: usize,
    error: Option<(Pos, String)>,
}

impl Reader {
    fn pos(&self) -> Pos {
        Pos { line: self.line, column: self.column }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.bump();
        }
    }

    fn fail(&mut self, what: &str) {
        if self.error.is_none() {
            let what = match self.peek() {
                None => format!("{what}: the document ends here (cut short?)"),
                Some(c) => format!("{what}, found `{c}`"),
            };
            self.error = Some((self.pos(), what));
        }
    }

    fn value(&mut self) -> Node {
        self.ws();
        let at = self.pos();
        let value = match self.peek() {
            Some('{') => self.object(),
            Some('[') => self.array(),
            Some('"') => Value::Str(self.string()),
            Some(c) if c == '-' || c.is_ascii_digit() => {
                let mut n = String::new();
                while let Some(c) = self.peek().filter(|c| c.is_ascii_digit() || "+-.eE".contains(*c)) {
                    n.push(c);
                    self.bump();
                }
                Value::Num(n)
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let mut w = String::new();
                while let Some(c) = self.peek().filter(char::is_ascii_alphabetic) {
                    w.push(c);
                    self.bump();
                }
                match w.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "null" => Value::Null,
                    // Not JSON, but kept as text so that the caller can say which counter it is.
                    _ => Value::Str(w),
                }
            }
            _ => {
                self.fail("expected a value");
                Value::Null
            }
        };
        Node { at, value }
    }

    fn string(&mut self) -> String {
        self.bump();
        let mut s = String::new();
        loop {
            match self.bump() {
                None => {
                    self.fail("unterminated string");
                    return s;
                }
                Some('"') => return s,
                Some('\\') => match self.bump() {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some('u') => {
                        let hex: String = (0..4).filter_map(|_| self.bump()).collect();
                        s.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
                    }
                    Some(c) => s.push(c),
                    None => {
                        self.fail("unterminated string");
                        return s;
                    }
                },
                Some(c) => s.push(c),
            }
        }
    }

    /// After a member or item: `close` ends the container, `,` goes on; anything else is an
    /// error, after which the last scalar read is not trusted.
    fn next(&mut self, close: char) -> Option<bool> {
        self.ws();
        match self.peek() {
            Some(',') => {
                self.bump();
                Some(true)
            }
            Some(c) if c == close => {
                self.bump();
                Some(false)
            }
            _ => {
                self.fail(&format!("expected `,` or `{close}`"));
                None
            }
        }
    }

    fn object(&mut self) -> Value {
        self.bump();
        let mut members = Vec::new();
        self.ws();
        if self.peek() == Some('}') {
            self.bump();
            return Value::Object(members);
        }
        loop {
            self.ws();
            let key_at = self.pos();
            if self.peek() != Some('"') {
                self.fail("expected a member name in quotes");
                return Value::Object(members);
            }
            let key = self.string();
            self.ws();
            if self.error.is_some() || self.bump() != Some(':') {
                self.fail("expected `:` after a member name");
                return Value::Object(members);
            }
            let v = self.value();
            let scalar = !matches!(v.value, Value::Object(_) | Value::Array(_));
            if self.error.is_some() {
                if !scalar {
                    members.push((key, key_at, v));
                }
                return Value::Object(members);
            }
            match self.next('}') {
                Some(more) => {
                    members.push((key, key_at, v));
                    if !more {
                        return Value::Object(members);
                    }
                }
                None => {
                    if !scalar {
                        members.push((key, key_at, v));
                    }
                    return Value::Object(members);
                }
            }
        }
    }

    fn array(&mut self) -> Value {
        self.bump();
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(']') {
            self.bump();
            return Value::Array(items);
        }
        loop {
            let v = self.value();
            let scalar = !matches!(v.value, Value::Object(_) | Value::Array(_));
            if self.error.is_some() {
                if !scalar {
                    items.push(v);
                }
                return Value::Array(items);
            }
            match self.next(']') {
                Some(more) => {
                    items.push(v);
                    if !more {
                        return Value::Array(items);
                    }
                }
                None => {
                    if !scalar {
                        items.push(v);
                    }
                    return Value::Array(items);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_line_and_column() {
        let d = read("{\n  \"a\": {\"x\": 12},\n  \"b\": [1, \"N/A\"]\n}\n");
        assert!(d.error.is_none(), "{:?}", d.error);
        let root = d.root.unwrap();
        let x = root.get("a").and_then(|a| a.get("x")).unwrap();
        assert_eq!((x.at, x.text()), (Pos { line: 2, column: 14 }, "12".to_string()));
        let b = root.get("b").unwrap().items();
        assert_eq!((b[1].at, b[1].text()), (Pos { line: 3, column: 12 }, "N/A".to_string()));
    }

    #[test]
    fn a_document_cut_short_keeps_what_precedes_the_cut_and_drops_the_last_scalar() {
        let d = read("{\"a\": {\"x\": 1, \"y\": 2}, \"b\": {\"x\": 3, \"y\": 4");
        let (at, what) = d.error.unwrap();
        assert_eq!(at.line, 1);
        assert!(what.contains("cut short"), "{what}");
        let root = d.root.unwrap();
        assert_eq!(root.get("a").unwrap().members().len(), 2);
        // `4` may be the start of `42`: left out; `3` was followed by a comma and is kept.
        let b = root.get("b").unwrap();
        assert_eq!(b.members().iter().map(|(k, _, _)| k.as_str()).collect::<Vec<_>>(), ["x"]);
    }

    #[test]
    fn an_empty_document_and_trailing_text_are_errors() {
        assert!(read("  \n").error.is_some());
        let d = read("[1] x");
        assert!(d.error.unwrap().1.contains("after the end"));
    }
}
