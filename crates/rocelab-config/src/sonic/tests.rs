//! Unit tests of the SONiC tables' keys and values.

use super::*;

#[test]
fn port_index_keys_sort_as_their_strings() {
    let names = ["Ethernet0", "Ethernet1", "Ethernet10", "Ethernet100", "Ethernet1|x", "Ethernet2", "Eth", "E"];
    let mut keys: Vec<PortIndex> = names
        .iter()
        .flat_map(|n| [0u8, 3, 7, 12].map(|i| PortIndex { port: PortName((*n).into()), index: i }))
        .collect();
    let mut strings: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    keys.sort();
    strings.sort();
    assert_eq!(keys.iter().map(|k| k.to_string()).collect::<Vec<_>>(), strings);
    // And they serialize as those strings.
    let k = PortIndex { port: PortName("Ethernet10".into()), index: 3 };
    assert_eq!(serde_json::to_string(&k).unwrap(), "\"Ethernet10|3\"");
}

#[test]
fn typed_values_serialize_as_config_db_strings() {
    assert_eq!(serde_json::to_string(&Priorities(0b0001_1000)).unwrap(), "\"3,4\"");
    assert_eq!(serde_json::to_string(&NumStr(-3)).unwrap(), "\"-3\"");
    assert_eq!(serde_json::to_string(&Metres(40)).unwrap(), "\"40m\"");
    assert_eq!(SchedulerName::Dwrr(90).to_string(), "scheduler.dwrr90");
    assert_eq!(
        PgProfile::Lossless { speed_mbps: 100_000, cable_m: 5, mtu: 9100, xoff: None, th: None, size: None }
            .to_string(),
        "pg_lossless_100000_5m_9100_profile"
    );
    let wd = PfcWdRow { poll_interval: Some(NumStr(200)), ..Default::default() };
    assert_eq!(serde_json::to_string(&wd).unwrap(), "{\"POLL_INTERVAL\":\"200\"}");
}

#[test]
fn dynamic_th_is_log2_alpha() {
    assert_eq!(dynamic_th(0.125), (-3, false));
    assert_eq!(dynamic_th(1.0), (0, false));
    assert!(dynamic_th(0.2).1, "0.2 is not a power of two");
}
