//! The CONFIG_DB tables rocelab writes, typed: the per-port rows and their keys, serialized as
//! `config_db.json` spells them (see the parent module for the fields and their sources).

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A CONFIG_DB table: key → row, in the string order of the keys (as `config_db.json` lists
/// them).
pub type Table<T> = BTreeMap<String, T>;
/// A row of free-form string fields (the maps, pools, profiles, schedulers and WRED profiles:
/// a few per switch).
pub type Fields = BTreeMap<String, String>;

/// The CONFIG_DB tables rocelab sets, named as in `config_db.json`. The per-port tables have
/// typed rows (a port's hundreds of entries on a spine cost no string maps); the rest are string
/// fields as SONiC spells them.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SonicConfig {
    #[serde(rename = "PORT")]
    pub port: BTreeMap<PortName, PortRow>,
    #[serde(rename = "PORT_QOS_MAP")]
    pub port_qos_map: BTreeMap<PortName, PortQosMapRow>,
    #[serde(rename = "DSCP_TO_TC_MAP", skip_serializing_if = "BTreeMap::is_empty")]
    pub dscp_to_tc_map: Table<Fields>,
    #[serde(rename = "DOT1P_TO_TC_MAP", skip_serializing_if = "BTreeMap::is_empty")]
    pub dot1p_to_tc_map: Table<Fields>,
    #[serde(rename = "TC_TO_QUEUE_MAP")]
    pub tc_to_queue_map: Table<Fields>,
    #[serde(rename = "TC_TO_PRIORITY_GROUP_MAP")]
    pub tc_to_priority_group_map: Table<Fields>,
    #[serde(rename = "MAP_PFC_PRIORITY_TO_QUEUE")]
    pub map_pfc_priority_to_queue: Table<Fields>,
    #[serde(rename = "WRED_PROFILE", skip_serializing_if = "BTreeMap::is_empty")]
    pub wred_profile: Table<Fields>,
    #[serde(rename = "SCHEDULER", skip_serializing_if = "BTreeMap::is_empty")]
    pub scheduler: Table<Fields>,
    #[serde(rename = "QUEUE", skip_serializing_if = "BTreeMap::is_empty")]
    pub queue: BTreeMap<PortIndex, QueueRow>,
    #[serde(rename = "BUFFER_POOL")]
    pub buffer_pool: Table<Fields>,
    #[serde(rename = "BUFFER_PROFILE")]
    pub buffer_profile: Table<Fields>,
    #[serde(rename = "BUFFER_PG")]
    pub buffer_pg: BTreeMap<PortIndex, BufferPgRow>,
    #[serde(rename = "BUFFER_QUEUE")]
    pub buffer_queue: BTreeMap<PortIndex, BufferQueueRow>,
    /// One entry, `AZURE`: port → cable length.
    #[serde(rename = "CABLE_LENGTH")]
    pub cable_length: BTreeMap<String, BTreeMap<PortName, Metres>>,
    #[serde(rename = "PFC_WD", skip_serializing_if = "BTreeMap::is_empty")]
    pub pfc_wd: BTreeMap<PortName, PfcWdRow>,
    /// Port-channels towards bonded hosts ([`crate::lag`]).
    #[serde(rename = "PORTCHANNEL", skip_serializing_if = "BTreeMap::is_empty")]
    pub portchannel: Table<Fields>,
    #[serde(rename = "PORTCHANNEL_MEMBER", skip_serializing_if = "BTreeMap::is_empty")]
    pub portchannel_member: Table<Fields>,
    /// Priority → priority group, on the ASICs whose SONiC QoS template writes it
    /// (`pfc_to_pg_map_supported_asics`: Mellanox/NVIDIA Spectrum and Barefoot).
    #[serde(rename = "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", skip_serializing_if = "BTreeMap::is_empty")]
    pub pfc_priority_to_priority_group_map: Table<Fields>,
    /// The VLAN of PCP marking, tagged on every port (`VLAN_MEMBER`).
    #[serde(rename = "VLAN", skip_serializing_if = "BTreeMap::is_empty")]
    pub vlan: Table<Fields>,
    #[serde(rename = "VLAN_MEMBER", skip_serializing_if = "BTreeMap::is_empty")]
    pub vlan_member: Table<Fields>,
}

/// A port name as a table key (`Ethernet0`), shared by the port's entries in every table.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PortName(pub Arc<str>);

impl Serialize for PortName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl fmt::Display for PortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A `PORT|INDEX` key (`Ethernet0|3`: a queue or priority group of a port). Ordered as the
/// string it stands for, so that tables list their keys as `config_db.json` does
/// (`Ethernet10|0` before `Ethernet1|0`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PortIndex {
    pub port: PortName,
    pub index: u8,
}

impl PortIndex {
    fn digits(&self) -> ([u8; 3], usize) {
        let i = self.index;
        match i {
            0..=9 => ([b'0' + i, 0, 0], 1),
            10..=99 => ([b'0' + i / 10, b'0' + i % 10, 0], 2),
            _ => ([b'0' + i / 100, b'0' + i / 10 % 10, b'0' + i % 10], 3),
        }
    }
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        let (digits, n) = self.digits();
        self.port.0.bytes().chain(std::iter::once(b'|')).chain(digits.into_iter().take(n))
    }
}

impl Ord for PortIndex {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.port.0.as_bytes(), other.port.0.as_bytes());
        let n = a.len().min(b.len());
        match a[..n].cmp(&b[..n]) {
            Ordering::Equal => {}
            o => return o,
        }
        // One name is a prefix of the other: its `|` meets the other's next byte.
        let o = match a.len().cmp(&b.len()) {
            Ordering::Equal if self.index < 10 && other.index < 10 => return self.index.cmp(&other.index),
            Ordering::Equal => {
                let ((x, m), (y, n)) = (self.digits(), other.digits());
                return x[..m].cmp(&y[..n]);
            }
            Ordering::Less => b'|'.cmp(&b[n]),
            Ordering::Greater => a[n].cmp(&b'|'),
        };
        match o {
            Ordering::Equal => self.bytes().cmp(other.bytes()),
            o => o,
        }
    }
}

impl PartialOrd for PortIndex {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for PortIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}|{}", self.port, self.index)
    }
}

impl Serialize for PortIndex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 96];
        let n = self.port.0.len();
        if n + 4 <= buf.len() {
            let mut len = n;
            buf[..n].copy_from_slice(self.port.0.as_bytes());
            for b in self.bytes().skip(n) {
                buf[len] = b;
                len += 1;
            }
            s.serialize_str(std::str::from_utf8(&buf[..len]).expect("ASCII suffix on a str"))
        } else {
            s.collect_str(self)
        }
    }
}

/// A number that CONFIG_DB stores as a string (`"9100"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumStr(pub i64);

impl Serialize for NumStr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 24];
        let mut w = &mut buf[..];
        std::io::Write::write_fmt(&mut w, format_args!("{}", self.0)).expect("24 bytes hold an i64");
        let len = 24 - w.len();
        s.serialize_str(std::str::from_utf8(&buf[..len]).expect("digits"))
    }
}

/// A cable length in whole metres, `"3m"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metres(pub u64);

impl Serialize for Metres {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}m", self.0))
    }
}

/// `PORT` row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortRow {
    pub mtu: NumStr,
    /// Mb/s.
    pub speed: NumStr,
}

/// Priorities or traffic classes as CONFIG_DB lists them: `"3,4"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Priorities(pub u8);

impl Priorities {
    pub fn contains(self, p: u8) -> bool {
        p < 8 && self.0 & (1 << p) != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn iter(self) -> impl Iterator<Item = u8> {
        (0..8u8).filter(move |p| self.contains(*p))
    }
}

impl fmt::Display for Priorities {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl Serialize for Priorities {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `PORT_QOS_MAP` row (fields in `config_db.json`'s sorted order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortQosMapRow {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dot1p_to_tc_map: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dscp_to_tc_map: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_enable: Option<Priorities>,
    /// On the ASICs that take it (see `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_to_pg_map: Option<String>,
    pub pfc_to_queue_map: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfcwd_sw_enable: Option<Priorities>,
    pub tc_to_pg_map: &'static str,
    pub tc_to_queue_map: &'static str,
}

/// A `SCHEDULER` entry's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerName {
    Strict,
    Dwrr(u32),
}

impl fmt::Display for SchedulerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedulerName::Strict => f.write_str("scheduler.strict"),
            SchedulerName::Dwrr(w) => write!(f, "scheduler.dwrr{w}"),
        }
    }
}

/// A `WRED_PROFILE` entry's name: thresholds in bytes and the marking probability in percent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WredName {
    pub min: u64,
    pub max: u64,
    pub percent: u8,
}

impl fmt::Display for WredName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ROCELAB_ECN_{}_{}_{}", self.min, self.max, self.percent)
    }
}

macro_rules! serialize_as_display {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    )*};
}

/// `QUEUE` row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueueRow {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<SchedulerName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wred_profile: Option<WredName>,
}

/// An ingress buffer profile of a priority group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PgProfile {
    IngressLossy,
    /// `pg_lossless_SPEED_CABLEm_MTU_profile`, as SONiC's buffer manager names them; with
    /// `_xoffN`, `_thN` or `_sizeN` before `_profile` where ports of the same speed, cable and MTU
    /// need a different headroom, `dynamic_th` or reserved size (a `qos.ports` override, a
    /// different MTU at the other end).
    Lossless {
        speed_mbps: u64,
        cable_m: u64,
        mtu: u32,
        xoff: Option<u64>,
        th: Option<i32>,
        size: Option<u64>,
    },
}

impl fmt::Display for PgProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgProfile::IngressLossy => f.write_str("ingress_lossy_profile"),
            PgProfile::Lossless { speed_mbps, cable_m, mtu, xoff, th, size } => {
                write!(f, "pg_lossless_{speed_mbps}_{cable_m}m_{mtu}")?;
                if let Some(x) = xoff {
                    write!(f, "_xoff{x}")?;
                }
                if let Some(t) = th {
                    write!(f, "_th{t}")?;
                }
                if let Some(s) = size {
                    write!(f, "_size{s}")?;
                }
                f.write_str("_profile")
            }
        }
    }
}

/// An egress buffer profile of a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueProfile {
    EgressLossless,
    EgressLossy,
}

impl fmt::Display for QueueProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QueueProfile::EgressLossless => "egress_lossless_profile",
            QueueProfile::EgressLossy => "egress_lossy_profile",
        })
    }
}

serialize_as_display!(SchedulerName, WredName, PgProfile, QueueProfile);

/// `BUFFER_PG` row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BufferPgRow {
    pub profile: PgProfile,
}

/// `BUFFER_QUEUE` row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BufferQueueRow {
    pub profile: QueueProfile,
}

/// `PFC_WD` row: a port's watchdog, or the `GLOBAL` poll interval (ms).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PfcWdRow {
    pub poll_interval: Option<NumStr>,
    pub action: Option<&'static str>,
    pub detection_time: Option<NumStr>,
    pub restoration_time: Option<NumStr>,
}

impl Serialize for PfcWdRow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // `POLL_INTERVAL` sorts before the lower-case fields, as in config_db.json.
        let mut m = s.serialize_map(None)?;
        if let Some(v) = &self.poll_interval {
            m.serialize_entry("POLL_INTERVAL", v)?;
        }
        if let Some(v) = &self.action {
            m.serialize_entry("action", v)?;
        }
        if let Some(v) = &self.detection_time {
            m.serialize_entry("detection_time", v)?;
        }
        if let Some(v) = &self.restoration_time {
            m.serialize_entry("restoration_time", v)?;
        }
        m.end()
    }
}
