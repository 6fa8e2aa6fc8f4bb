//! The examples shipped inside the binary, so that `rocelab show` works on a fresh clone with
//! no file at hand. Each is also a file under `examples/`.

pub struct Example {
    pub name: &'static str,
    pub title: &'static str,
    pub yaml: &'static str,
}

macro_rules! example {
    ($name:literal, $title:literal) => {
        Example { name: $name, title: $title, yaml: include_str!(concat!("../../../examples/", $name, ".yaml")) }
    };
}

pub const EXAMPLES: &[Example] = &[
    example!("sim-incast-two-tier", "Simulation: 8:1 incast on a two-tier fabric spreads congestion to a victim flow"),
    example!(
        "sim-flows-leaf-spine",
        "Simulation: a storage-like flow-size mix at 40% load plus repeated 8:1 incasts; FCT and slowdown"
    ),
    example!(
        "demartek-config4-two-switch",
        "Demartek configuration 4: two switches joined by 40GbE, S2D nodes, iperf congestion"
    ),
    example!(
        "demartek-config1-mellanox-cavium",
        "Demartek configuration 1: S2D, 1x100GbE Mellanox and 4x25GbE Cavium nodes on one SN2410"
    ),
    example!(
        "demartek-config2-cavium-broadcom",
        "Demartek configuration 2: S2D, 1x100GbE Cavium and 2x25GbE Broadcom nodes on one SN2410"
    ),
    example!(
        "demartek-config3-iometer-two-switch",
        "Demartek configuration 3: SMB Direct file server and Iometer client across the 40GbE link"
    ),
    example!(
        "demartek-config5-linux-iser-nfs",
        "Demartek configuration 5: Linux iSER/iSCSI and NFSoRDMA/NFS across the 40GbE link"
    ),
    example!(
        "arista-pure-direct-25g",
        "Arista/Pure NVMe-oF: four initiators cabled straight to a FlashArray//X at 25G"
    ),
    example!(
        "arista-pure-direct-100g",
        "Arista/Pure NVMe-oF: four initiators cabled straight to a FlashArray//X at 100G"
    ),
    example!(
        "arista-pure-single-hop-25g",
        "Arista/Pure NVMe-oF: initiators and FlashArray//X on one 7050SX3 at 25G, PFC only"
    ),
    example!(
        "arista-pure-single-hop-100g",
        "Arista/Pure NVMe-oF: initiators and FlashArray//X on one 7050SX3 at 100G, PFC only"
    ),
    example!(
        "arista-pure-leaf-spine-25g",
        "Arista/Pure NVMe-oF: EVPN VXLAN leaf-spine, 25G endpoints; PFC, ECN, ECN with edge PFC"
    ),
    example!(
        "arista-pure-leaf-spine-100g",
        "Arista/Pure NVMe-oF: EVPN VXLAN leaf-spine, 100G endpoints; PFC, ECN, ECN with edge PFC"
    ),
    example!(
        "oracle-ofa2017-two-to-one",
        "Oracle OFA 2017: two ConnectX-4 senders into one port through a Spectrum switch"
    ),
    example!(
        "dell-equallogic-base-san",
        "Dell EqualLogic iSCSI base SAN: two S4810s, two array members, one host (1:1)"
    ),
    example!(
        "dell-equallogic-congested-san",
        "Dell EqualLogic iSCSI congested SAN: four array ports into one host port (4:1)"
    ),
    example!(
        "sim-tcp-two-switch",
        "Simulation: 16 iperf TCP streams across a 40G link between two switches; CUBIC, NewReno, DCTCP, 802.3x"
    ),
    example!(
        "sim-iwarp-roce",
        "Simulation: RDMA WRITEs over RoCE (PFC) beside iWARP (TCP, lossy) on FastLinQ adapters; an iWARP incast"
    ),
    example!(
        "microsoft-s2d-fastlinq-iwarp-roce",
        "Microsoft S2D, 4 nodes with FastLinQ QL41262H: iWARP, RoCE, or both"
    ),
    example!(
        "tune-websearch-ecn-dcqcn",
        "Tuning: ECN per port speed and DCQCN on 320 hosts under a web-search-like mix (rocelab tune)"
    ),
    example!(
        "tune-demartek-congestion",
        "Tuning: Demartek configuration 4 under congestion, ECN and DCQCN for IOPS and latency (rocelab tune)"
    ),
];

/// The example `rocelab show` and `rocelab sim` use when given no file: one for both, so that
/// what `show` prints is the fabric `sim` runs (the incast scenario the README starts with).
pub const DEFAULT: &str = "sim-incast-two-tier";

pub fn get(name: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.name == name)
}

pub fn names() -> Vec<&'static str> {
    EXAMPLES.iter().map(|e| e.name).collect()
}

/// The message for a name that is no example, the same wherever a name is given (`show
/// --example`, `sim --example`, `examples NAME`): the nearest name, however far (the list is
/// short and a guess costs the reader nothing), and every name.
pub fn unknown(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let nearest = EXAMPLES
        .iter()
        .map(|e| (strsim::jaro_winkler(&lower, e.name), e.name))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or("", |(_, n)| n);
    format!(
        "no built-in example `{name}`; did you mean `{nearest}`? The examples are {}; `rocelab examples` describes them",
        names().join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file under `examples/` is built in, once, and the default is one of them.
    #[test]
    fn every_example_file_is_built_in() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let p = e.unwrap().path();
                (p.extension()? == "yaml").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
            })
            .collect();
        files.sort();
        let mut built: Vec<&str> = names();
        built.sort();
        assert_eq!(built, files);
        assert!(get(DEFAULT).is_some());
    }

    /// The README's table of examples names each once and marks the default.
    #[test]
    fn the_readme_lists_each_example_once() {
        let readme =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
        let table = readme.split("\n## Examples\n").nth(1).unwrap().split("\n## ").next().unwrap();
        let mut firsts: Vec<&str> =
            table.lines().filter(|l| l.starts_with("| `")).map(|l| l.split(" |").next().unwrap()).collect();
        let n = firsts.len();
        assert!(n > 10, "{table}");
        assert!(firsts.contains(&format!("| `{DEFAULT}` (default of `rocelab show` and `rocelab sim`)").as_str()));
        firsts.sort();
        firsts.dedup_by(|a, b| a.split('`').nth(1) == b.split('`').nth(1));
        assert_eq!(firsts.len(), n, "an example twice in README.md's table");
    }

    #[test]
    fn an_unknown_name_gets_the_nearest_and_the_list() {
        let m = unknown("sim-incast-two-tie");
        assert!(m.starts_with("no built-in example `sim-incast-two-tie`; did you mean `sim-incast-two-tier`?"), "{m}");
        assert!(m.contains("microsoft-s2d-fastlinq-iwarp-roce"), "{m}");
        assert!(unknown("DEMARTEK-CONFIG4").contains("did you mean `demartek-config4-two-switch`?"));
    }
}
