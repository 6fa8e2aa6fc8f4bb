//! Settings that may differ by link speed: one value for every port, or a map from link speed to
//! value (`ecn: {100G: {kmin: 400KB, …}, 400G: {kmin: 1600KB, …}}`, `alpha: {100G: 0.125,
//! 400G: 0.5}`).
//!
//! Switch vendors and simulators key these by speed because the same threshold in bytes is a
//! different time at another rate: NVIDIA's and SONiC's buffer profiles are per speed and cable
//! (SONiC `pg_profile_lookup.ini`), and the ns-3 HPCC simulator's `KMIN_MAP`/`KMAX_MAP`/`PMAX_MAP`
//! give ECN thresholds per link rate and its switch-mmu.cc a dynamic-threshold shift per rate.
//! A port takes the value of its speed: its link's speed when cabled, else its nominal speed.

use crate::node::{Node, NodeKind};
use crate::units::Rate;
use serde::de::{self, DeserializeSeed, EnumAccess, VariantAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

/// A value for every port, or one per link speed.
#[derive(Debug, Clone, PartialEq)]
pub enum BySpeed<T> {
    /// The same value at every speed.
    All(T),
    /// A value per link speed; a speed missing here has none (a cabled port at such a speed is
    /// a load error).
    Speeds(BTreeMap<Rate, T>),
}

impl<T> BySpeed<T> {
    /// The value at `speed`.
    pub fn at(&self, speed: Rate) -> Option<&T> {
        match self {
            BySpeed::All(v) => Some(v),
            BySpeed::Speeds(m) => m.get(&speed),
        }
    }
    /// The value when it is one for every speed.
    pub fn single(&self) -> Option<&T> {
        match self {
            BySpeed::All(v) => Some(v),
            BySpeed::Speeds(_) => None,
        }
    }
    /// The map, when the value is given per speed.
    pub fn speeds(&self) -> Option<&BTreeMap<Rate, T>> {
        match self {
            BySpeed::All(_) => None,
            BySpeed::Speeds(m) => Some(m),
        }
    }
    pub fn is_by_speed(&self) -> bool {
        matches!(self, BySpeed::Speeds(_))
    }
    /// Every value with its speed (none for the one value of every speed).
    pub fn entries(&self) -> Vec<(Option<Rate>, &T)> {
        match self {
            BySpeed::All(v) => vec![(None, v)],
            BySpeed::Speeds(m) => m.iter().map(|(r, v)| (Some(*r), v)).collect(),
        }
    }
    /// `show text`: the value, or `100G:x 400G:y`.
    pub fn describe(&self, f: impl Fn(&T) -> String) -> String {
        match self {
            BySpeed::All(v) => f(v),
            BySpeed::Speeds(m) => m.iter().map(|(r, v)| format!("{r}:{}", f(v))).collect::<Vec<_>>().join(" "),
        }
    }
}

impl<T: Serialize> Serialize for BySpeed<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BySpeed::All(v) => v.serialize(s),
            BySpeed::Speeds(m) => m.serialize(s),
        }
    }
}

/// The name under which a [`BySpeed`] asks the located deserializer (`crate::de`) to pick its
/// form from the YAML node: a mapping with a key that starts with a digit (`100G:`) is the
/// by-speed form, anything else the one value.
pub(crate) const BY_SPEED: &str = "$rocelab::BySpeed";

/// Whether `node` is written in the by-speed form: a mapping with a key that starts with a
/// digit. Field names never do, so `{kmin: …}` is one value and `{100G: …, kmn: …}` a by-speed
/// map with a bad key (reported there).
pub(crate) fn is_by_speed_node(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Map(entries) => entries
            .iter()
            .any(|(k, _)| k.scalar_text().is_some_and(|t| t.trim_start().starts_with(|c: char| c.is_ascii_digit()))),
        _ => false,
    }
}

#[derive(Clone, Copy)]
pub(crate) enum Form {
    All,
    Speeds,
}

impl<'de> Deserialize<'de> for Form {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "all" => Ok(Form::All),
            _ => Ok(Form::Speeds),
        }
    }
}

struct BySpeedVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for BySpeedVisitor<T> {
    type Value = BySpeed<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value, or a map from link speed to value (`100G: …`)")
    }
    /// The located deserializer has chosen the form (see [`BY_SPEED`]).
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<BySpeed<T>, A::Error> {
        let (form, variant): (Form, _) = data.variant()?;
        match form {
            Form::All => variant.newtype_variant::<T>().map(BySpeed::All),
            Form::Speeds => variant.newtype_variant::<BTreeMap<Rate, T>>().map(BySpeed::Speeds),
        }
    }
    /// Any other deserializer (JSON): buffered, then the same rule as the located one.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<BySpeed<T>, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        let by_speed = match &v {
            serde_json::Value::Object(m) => m.keys().any(|k| k.trim_start().starts_with(|c: char| c.is_ascii_digit())),
            _ => false,
        };
        let r = if by_speed {
            BTreeMap::<Rate, T>::deserialize(v).map(BySpeed::Speeds)
        } else {
            T::deserialize(v).map(BySpeed::All)
        };
        r.map_err(de::Error::custom)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for BySpeed<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(BY_SPEED, BySpeedVisitor(PhantomData))
    }
}

/// The enum access the located deserializer hands a [`BySpeed`]: the form it chose, and the
/// same node to decode in that form.
pub(crate) struct FormAccess<D> {
    pub form: Form,
    pub de: D,
}

impl<'de, D: Deserializer<'de>> EnumAccess<'de> for FormAccess<D> {
    type Error = D::Error;
    type Variant = FormVariant<D>;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, FormVariant<D>), D::Error> {
        let name = match self.form {
            Form::All => "all",
            Form::Speeds => "speeds",
        };
        let v = seed.deserialize(de::value::StrDeserializer::<D::Error>::new(name))?;
        Ok((v, FormVariant(self.de)))
    }
}

pub(crate) struct FormVariant<D>(D);

impl<'de, D: Deserializer<'de>> VariantAccess<'de> for FormVariant<D> {
    type Error = D::Error;
    fn unit_variant(self) -> Result<(), D::Error> {
        Err(de::Error::custom("a by-speed value is not a unit"))
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, D::Error> {
        seed.deserialize(self.0)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, D::Error> {
        Err(de::Error::custom("a by-speed value is not a tuple"))
    }
    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], _: V) -> Result<V::Value, D::Error> {
        Err(de::Error::custom("a by-speed value is not a struct variant"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qos::Ecn;
    use crate::units::Size;

    #[test]
    fn lookup_by_speed() {
        let one = BySpeed::All(0.125);
        assert_eq!(one.at(Rate::gbps(25)), Some(&0.125));
        assert_eq!(one.single(), Some(&0.125));
        let m = BySpeed::Speeds(BTreeMap::from([(Rate::gbps(100), 0.125), (Rate::gbps(400), 0.5)]));
        assert_eq!(m.at(Rate::gbps(400)), Some(&0.5));
        assert_eq!(m.at(Rate::gbps(25)), None);
        assert_eq!(m.single(), None);
        assert_eq!(m.describe(|v| v.to_string()), "100G:0.125 400G:0.5");
    }

    #[test]
    fn json_round_trip_keeps_the_form() {
        let m: BySpeed<Size> =
            BySpeed::Speeds(BTreeMap::from([(Rate::gbps(100), Size::kb(400)), (Rate::gbps(400), Size::kb(1600))]));
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(json, r#"{"100G":"400KB","400G":"1600KB"}"#);
        assert_eq!(serde_json::from_str::<BySpeed<Size>>(&json).unwrap(), m);
        let e: BySpeed<Ecn> = serde_json::from_str(r#"{"kmin":"1KB","kmax":"2KB","pmax":0.1}"#).unwrap();
        assert_eq!(e.single().unwrap().kmax, Size::kb(2));
        assert!(serde_json::from_str::<BySpeed<Ecn>>(r#"{"kmin":"1KB"}"#).is_err());
    }
}
