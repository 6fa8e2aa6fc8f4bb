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

pub const EXAMPLES: &[Example] = &[example!(
    "demartek-config4-two-switch",
    "Demartek configuration 4: two switches joined by 40GbE, S2D nodes, iperf congestion"
)];

/// The example `rocelab show` uses when given no file.
pub const DEFAULT: &str = "demartek-config4-two-switch";

pub fn get(name: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.name == name)
}

pub fn names() -> Vec<&'static str> {
    EXAMPLES.iter().map(|e| e.name).collect()
}
