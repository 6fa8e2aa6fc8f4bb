//! A serde deserializer over located YAML nodes.
//!
//! Plain serde stops at the first error and forgets where it was. This one records every error
//! where it surfaces (file position, field path, what was expected, a "did you mean"), skips
//! unknown keys after reporting them, and lets lists declared with [`recover_vec`] drop a bad
//! element and go on, so one run reports all the errors of a file.

use crate::diag::{did_you_mean, Diagnostic, Mark};
use crate::node::{Node, NodeKind};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use serde::Deserialize;
use std::cell::RefCell;
use std::fmt;

thread_local! {
    /// Diagnostics of the decode under way on this thread, if one is.
    static RECORDER: RefCell<Option<Vec<Diagnostic>>> = const { RefCell::new(None) };
}

fn record(d: Diagnostic) {
    RECORDER.with(|r| {
        if let Some(v) = r.borrow_mut().as_mut() {
            v.push(d)
        }
    })
}

fn recording() -> bool {
    RECORDER.with(|r| r.borrow().is_some())
}

/// Decodes `node` as a `T`, returning the value if it decoded and every diagnostic found.
pub fn decode<T: DeserializeOwned>(node: &Node, path: &str) -> (Option<T>, Vec<Diagnostic>) {
    let outer = RECORDER.with(|r| r.borrow_mut().replace(Vec::new()));
    let result = T::deserialize(De { node, path: path.to_string() });
    let mut diags = RECORDER.with(|r| std::mem::replace(&mut *r.borrow_mut(), outer)).unwrap_or_default();
    match result {
        Ok(v) => (Some(v), diags),
        Err(e) => {
            if !e.reported {
                diags.push(e.into_diagnostic(node.mark, path));
            }
            (None, diags)
        }
    }
}

#[derive(Debug, Clone)]
pub struct DeError {
    message: String,
    expected: Option<String>,
    suggestion: Option<String>,
    reported: bool,
}

impl DeError {
    fn new(message: impl Into<String>) -> DeError {
        DeError { message: message.into(), expected: None, suggestion: None, reported: false }
    }
    fn into_diagnostic(self, mark: Mark, path: &str) -> Diagnostic {
        let mut d = Diagnostic::error(mark, path, self.message);
        d.expected = self.expected;
        d.suggestion = self.suggestion;
        d
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError::new(msg.to_string())
    }
    fn invalid_type(unexp: de::Unexpected, exp: &dyn de::Expected) -> Self {
        let mut e = DeError::new(format!("found {}", describe(unexp)));
        e.expected = Some(exp.to_string());
        e
    }
    fn invalid_value(unexp: de::Unexpected, exp: &dyn de::Expected) -> Self {
        let mut e = DeError::new(format!("invalid value {}", describe(unexp)));
        e.expected = Some(exp.to_string());
        e
    }
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let mut e = DeError::new(format!("unknown value `{variant}`"));
        e.expected = Some(format!("one of {}", quote_list(expected)));
        e.suggestion = did_you_mean(variant, expected.iter().copied());
        e
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        let mut e = DeError::new(format!("unknown field `{field}`"));
        e.expected =
            Some(if expected.is_empty() { "no fields".into() } else { format!("one of {}", quote_list(expected)) });
        e.suggestion = did_you_mean(field, expected.iter().copied());
        e
    }
    fn missing_field(field: &'static str) -> Self {
        DeError::new(format!("missing field `{field}`"))
    }
}

fn describe(u: de::Unexpected) -> String {
    match u {
        de::Unexpected::Str(s) => format!("the string `{s}`"),
        de::Unexpected::Unit => "nothing (null)".into(),
        de::Unexpected::Map => "a mapping".into(),
        de::Unexpected::Seq => "a list".into(),
        other => other.to_string(),
    }
}

fn quote_list(items: &[&str]) -> String {
    items.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}

/// Deserializes one node; errors are recorded where they surface.
pub struct De<'a> {
    node: &'a Node,
    path: String,
}

impl<'a> De<'a> {
    fn fail(&self, e: DeError) -> DeError {
        if e.reported || !recording() {
            return e;
        }
        let mut e2 = e.clone();
        record(e.into_diagnostic(self.node.mark, &self.path));
        e2.reported = true;
        e2
    }
    fn located<T>(&self, r: Result<T, DeError>) -> Result<T, DeError> {
        r.map_err(|e| self.fail(e))
    }
    fn type_error(&self, expected: &str) -> DeError {
        let found = match &self.node.kind {
            NodeKind::Str(s) => format!("the string `{s}`"),
            _ => self.node.type_name().to_string(),
        };
        let mut e = DeError::new(format!("found {found}"));
        e.expected = Some(expected.to_string());
        self.fail(e)
    }
    fn child(&self, node: &'a Node, seg: &str) -> De<'a> {
        let path =
            if self.path.is_empty() { seg.trim_start_matches('.').to_string() } else { format!("{}{seg}", self.path) };
        De { node, path }
    }
    fn int(&self) -> Option<i64> {
        match self.node.kind {
            NodeKind::Int(i) => Some(i),
            NodeKind::Float(f) if f.fract() == 0.0 && f.abs() < 9e15 => Some(f as i64),
            _ => None,
        }
    }
}

macro_rules! de_int {
    ($method:ident, $ty:ty, $visit:ident) => {
        fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
            match self.int() {
                Some(i) => match <$ty>::try_from(i) {
                    Ok(x) => self.located(v.$visit(x)),
                    Err(_) => Err(self.fail(DeError {
                        expected: Some(format!("an integer from {} to {}", <$ty>::MIN, <$ty>::MAX)),
                        ..DeError::new(format!("{i} is out of range"))
                    })),
                },
                None => Err(self.type_error(&format!("an integer ({})", stringify!($ty)))),
            }
        }
    };
}

impl<'de, 'a> de::Deserializer<'de> for De<'a> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        let r = match &self.node.kind {
            NodeKind::Null => v.visit_unit(),
            NodeKind::Bool(b) => v.visit_bool(*b),
            NodeKind::Int(i) => v.visit_i64(*i),
            NodeKind::Float(f) => v.visit_f64(*f),
            NodeKind::Str(s) => v.visit_str(s),
            NodeKind::Seq(items) => v.visit_seq(SeqAcc { items, index: 0, parent: &self }),
            NodeKind::Map(entries) => v.visit_map(MapAcc::new(entries, &self, None)),
        };
        self.located(r)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node.kind {
            NodeKind::Bool(b) => self.located(v.visit_bool(b)),
            _ => Err(self.type_error("`true` or `false`")),
        }
    }

    de_int!(deserialize_u8, u8, visit_u8);
    de_int!(deserialize_u16, u16, visit_u16);
    de_int!(deserialize_u32, u32, visit_u32);
    de_int!(deserialize_u64, u64, visit_u64);
    de_int!(deserialize_i8, i8, visit_i8);
    de_int!(deserialize_i16, i16, visit_i16);
    de_int!(deserialize_i32, i32, visit_i32);
    de_int!(deserialize_i64, i64, visit_i64);

    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_f64(v)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node.kind {
            NodeKind::Int(i) => self.located(v.visit_f64(i as f64)),
            NodeKind::Float(f) => self.located(v.visit_f64(f)),
            _ => Err(self.type_error("a number")),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_str(v)
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match &self.node.kind {
            NodeKind::Str(s) => self.located(v.visit_str(s)),
            NodeKind::Int(_) | NodeKind::Float(_) | NodeKind::Bool(_) => {
                let text = self.node.scalar_text().unwrap_or_default();
                self.located(v.visit_str(&text))
            }
            _ => Err(self.type_error("a string")),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_str(v)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_any(v)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_any(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node.kind {
            NodeKind::Null => self.located(v.visit_none()),
            _ => v.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.node.kind {
            NodeKind::Null => self.located(v.visit_unit()),
            _ => Err(self.type_error("nothing (null)")),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> Result<V::Value, DeError> {
        self.deserialize_unit(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value, DeError> {
        if name == crate::speed::BY_SPEED {
            // A value or a map by link speed: the node's keys decide (`crate::speed`), and the
            // chosen form is decoded from this same node, so its errors are located as usual.
            let form = if crate::speed::is_by_speed_node(self.node) {
                crate::speed::Form::Speeds
            } else {
                crate::speed::Form::All
            };
            let inner = De { node: self.node, path: self.path.clone() };
            let r = v.visit_enum(crate::speed::FormAccess { form, de: inner });
            return self.located(r);
        }
        v.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match &self.node.kind {
            NodeKind::Seq(items) => {
                let r = v.visit_seq(SeqAcc { items, index: 0, parent: &self });
                self.located(r)
            }
            _ => Err(self.type_error("a list")),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, DeError> {
        self.deserialize_seq(v)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _: &'static str, _: usize, v: V) -> Result<V::Value, DeError> {
        self.deserialize_seq(v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match &self.node.kind {
            NodeKind::Map(entries) => {
                let r = v.visit_map(MapAcc::new(entries, &self, None));
                self.located(r)
            }
            _ => Err(self.type_error("a mapping")),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DeError> {
        match &self.node.kind {
            NodeKind::Map(entries) => {
                let r = v.visit_map(MapAcc::new(entries, &self, Some(fields)));
                self.located(r)
            }
            _ => Err(self.type_error(&format!("a mapping with fields {}", quote_list(fields)))),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DeError> {
        match &self.node.kind {
            NodeKind::Str(_) | NodeKind::Int(_) | NodeKind::Bool(_) => {
                let r = v.visit_enum(EnumAcc { key: self.node, value: None, parent: &self });
                self.located(r)
            }
            NodeKind::Map(entries) if entries.len() == 1 => {
                let (k, val) = &entries[0];
                let r = v.visit_enum(EnumAcc { key: k, value: Some(val), parent: &self });
                self.located(r)
            }
            _ => Err(self.type_error(&format!(
                "one of {} (or a mapping with one of them as its only key)",
                quote_list(variants)
            ))),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_str(v)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        v.visit_unit()
    }
}

struct SeqAcc<'a, 'p> {
    items: &'a [Node],
    index: usize,
    parent: &'p De<'a>,
}

impl<'de, 'a, 'p> de::SeqAccess<'de> for SeqAcc<'a, 'p> {
    type Error = DeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, DeError> {
        let Some(item) = self.items.get(self.index) else { return Ok(None) };
        let de = self.parent.child(item, &format!("[{}]", self.index));
        self.index += 1;
        seed.deserialize(de).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len() - self.index)
    }
}

struct MapAcc<'a, 'p> {
    entries: &'a [(Node, Node)],
    index: usize,
    parent: &'p De<'a>,
    fields: Option<&'static [&'static str]>,
    seen: Vec<&'a str>,
}

impl<'a, 'p> MapAcc<'a, 'p> {
    fn new(entries: &'a [(Node, Node)], parent: &'p De<'a>, fields: Option<&'static [&'static str]>) -> Self {
        MapAcc { entries, index: 0, parent, fields, seen: Vec::new() }
    }
}

impl<'de, 'a, 'p> de::MapAccess<'de> for MapAcc<'a, 'p> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, DeError> {
        while let Some((k, _)) = self.entries.get(self.index) {
            let key_text = k.scalar_text().unwrap_or_default();
            let key_de = self.parent.child(k, &format!(".{key_text}"));
            if let Some(fields) = self.fields {
                if !fields.contains(&key_text.as_str()) {
                    let e = <DeError as de::Error>::unknown_field(&key_text, fields);
                    key_de.fail(e);
                    self.index += 1;
                    continue;
                }
                if let NodeKind::Str(s) = &k.kind {
                    if self.seen.contains(&s.as_str()) {
                        key_de.fail(DeError::new(format!("`{key_text}` is given twice")));
                        self.index += 1;
                        continue;
                    }
                    self.seen.push(s);
                }
            }
            return seed.deserialize(key_de).map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let (k, v) = &self.entries[self.index];
        self.index += 1;
        let key_text = k.scalar_text().unwrap_or_default();
        seed.deserialize(self.parent.child(v, &format!(".{key_text}")))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len() - self.index)
    }
}

struct EnumAcc<'a, 'p> {
    key: &'a Node,
    value: Option<&'a Node>,
    parent: &'p De<'a>,
}

impl<'de, 'a, 'p> de::EnumAccess<'de> for EnumAcc<'a, 'p> {
    type Error = DeError;
    type Variant = VariantAcc<'a>;
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, VariantAcc<'a>), DeError> {
        let key_de = De { node: self.key, path: self.parent.path.clone() };
        let name = seed.deserialize(key_de)?;
        let key_text = self.key.scalar_text().unwrap_or_default();
        let path =
            if self.value.is_some() { format!("{}.{key_text}", self.parent.path) } else { self.parent.path.clone() };
        Ok((name, VariantAcc { value: self.value, mark: self.key.mark, path }))
    }
}

struct VariantAcc<'a> {
    value: Option<&'a Node>,
    mark: Mark,
    path: String,
}

impl<'a> VariantAcc<'a> {
    fn value_de(&self) -> Result<De<'a>, DeError> {
        match self.value {
            Some(node) => Ok(De { node, path: self.path.clone() }),
            None => {
                let e = DeError::new("this value needs settings under it");
                if recording() {
                    record(e.clone().into_diagnostic(self.mark, &self.path));
                }
                Err(DeError { reported: recording(), ..e })
            }
        }
    }
}

impl<'de, 'a> de::VariantAccess<'de> for VariantAcc<'a> {
    type Error = DeError;
    fn unit_variant(self) -> Result<(), DeError> {
        match self.value {
            None => Ok(()),
            Some(n) if n.kind == NodeKind::Null => Ok(()),
            Some(n) => {
                let d = De { node: n, path: self.path.clone() };
                Err(d.type_error("nothing after this value"))
            }
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        seed.deserialize(self.value_de()?)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_seq(self.value_de()?, v)
    }
    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], v: V) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_struct(self.value_de()?, "", fields, v)
    }
}

impl<'de, 'a> IntoDeserializer<'de, DeError> for De<'a> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

/// A list element that, while a recording decode is under way, becomes `None` instead of failing
/// the whole list (its errors are already recorded). Outside such a decode it fails as usual.
struct Recover<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Recover<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match T::deserialize(d) {
            Ok(v) => Ok(Recover(Some(v))),
            Err(_) if recording() => Ok(Recover(None)),
            Err(e) => Err(e),
        }
    }
}

/// `#[serde(deserialize_with = "recover_vec")]`: a list whose bad elements are reported and left
/// out, so that the rest of the file is still checked.
pub fn recover_vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: de::Deserializer<'de>,
    T: Deserialize<'de>,
{
    let items: Vec<Recover<T>> = Vec::deserialize(d)?;
    Ok(items.into_iter().filter_map(|r| r.0).collect())
}

/// `#[serde(deserialize_with = "one_or_many")]`: accepts one item or a list of them (e.g. `nic:`
/// for the common one-adapter host, `nics:` for several).
pub fn one_or_many<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: de::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("one item or a list of them")
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::new();
            while let Some(x) = seq.next_element()? {
                out.push(x)
            }
            Ok(out)
        }
        fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Vec<T>, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|x| vec![x])
        }
    }
    d.deserialize_any(V(std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::parse;
    use crate::units::Rate;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Port {
        name: String,
        speed: Rate,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        #[serde(deserialize_with = "recover_vec")]
        ports: Vec<Port>,
        mtu: u32,
    }

    #[test]
    fn every_error_is_reported_with_position_and_path() {
        let text = "ports:\n  - {name: a, speed: 25G, sped: 1}\n  - {name: b, speed: 25}\n  - {name: c, speed: 100G}\nmtu: 9216\n";
        let (v, diags) = decode::<Doc>(&parse(text).unwrap(), "");
        assert!(v.is_some(), "{diags:?}");
        assert_eq!(v.unwrap().ports.len(), 2);
        assert_eq!(diags.len(), 2, "{diags:#?}");
        assert_eq!((diags[0].line, diags[0].column, diags[0].path.as_str()), (2, 27, "ports[0].sped"));
        assert_eq!(diags[0].suggestion.as_deref(), Some("did you mean \"speed\"?"));
        assert_eq!((diags[1].line, diags[1].path.as_str()), (3, "ports[1].speed"));
        assert!(diags[1].message.contains("has no unit"), "{}", diags[1].message);
    }

    #[test]
    fn wrong_types_and_missing_fields_are_located() {
        let (v, diags) = decode::<Doc>(&parse("ports: 3\nmtu: big\n").unwrap(), "");
        assert!(v.is_none());
        assert_eq!(diags.len(), 1, "{diags:#?}");
        assert_eq!(diags[0].path, "ports");
        assert_eq!(diags[0].expected.as_deref(), Some("a list"));
        let (_, diags) = decode::<Doc>(&parse("ports: []\n").unwrap(), "");
        assert!(diags[0].message.contains("missing field `mtu`"), "{diags:?}");
    }

    #[test]
    fn outside_a_recording_decode_errors_propagate() {
        let r: Result<Vec<Recover<u8>>, _> = serde_json_like();
        assert!(r.is_err());
    }

    fn serde_json_like() -> Result<Vec<Recover<u8>>, de::value::Error> {
        use serde::de::value::SeqDeserializer;
        let d: SeqDeserializer<_, de::value::Error> = SeqDeserializer::new(vec!["x"].into_iter());
        Vec::<Recover<u8>>::deserialize(d)
    }
}
