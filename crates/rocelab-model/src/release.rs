//! A switch's `os_version`: the software release its configuration is rendered for. Vendors
//! change syntax between releases (NVIDIA Cumulus Linux moved the PFC cable length from
//! `qos roce` to `qos pfc` in 5.4), so a release rocelab does not know is refused with the list
//! of those it does rather than rendered in a syntax the switch may not take.

use crate::diag::{did_you_mean, problem, Problem};
use crate::fabric::Platform;

/// A switch's `os_version` must be a release rocelab renders for its platform: the error lists
/// them, with the closest as a suggestion.
pub(crate) fn check(platform: Platform, version: &str, path: &str, problems: &mut Vec<Problem>) {
    let known = platform.releases();
    if known.contains(&version) {
        return;
    }
    let msg = if known.is_empty() {
        format!(
            "`os_version: {version}` on a switch of platform `{}`, which has no releases; give the switch a `platform`",
            platform.name()
        )
    } else {
        format!(
            "rocelab does not know release `{version}` of `{}`; the releases it renders are {}",
            platform.name(),
            known.join(", ")
        )
    };
    let mut p = problem(path.to_string(), msg);
    p.diag.suggestion = did_you_mean(version, known.iter().copied());
    problems.push(p);
}

#[cfg(test)]
mod tests {
    use crate::load::load_str;

    fn errors(yaml: &str) -> Vec<String> {
        match load_str(yaml, "t.yaml", std::path::Path::new(".")) {
            Ok(_) => Vec::new(),
            Err(d) => d.0.iter().filter(|x| x.is_error()).map(|x| x.to_string()).collect(),
        }
    }

    const FABRIC: &str = "fabric:\n  name: t\n  topology:\n    devices:\n      - {name: sw, role: switch, platform: nvidia-cumulus, OSV ports: [{names: swp1-2, speed: 100G}]}\n      - {name: h1, role: host, os: linux, HOSTV nic: {vendor: nvidia, model: ConnectX-5, speed: 100G}}\n    links:\n      - {a: sw:swp1, b: h1:p0}\n  qos:\n    marking: dscp\n    classes:\n      - {name: roce, priority: 3, dscp: [26], lossless: true}\n";

    fn fabric(switch: &str, host: &str) -> String {
        FABRIC.replace("OSV ", switch).replace("HOSTV ", host)
    }

    #[test]
    fn a_known_release_loads() {
        assert_eq!(errors(&fabric("os_version: \"5.3\",", "")), Vec::<String>::new());
    }

    #[test]
    fn an_unknown_release_lists_the_known_ones_at_its_field() {
        let e = errors(&fabric("os_version: \"5.30\",", ""));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("t.yaml:5:"), "{}", e[0]);
        assert!(e[0].contains("os_version"), "{}", e[0]);
        assert!(e[0].contains("does not know release `5.30` of `nvidia-cumulus`"), "{}", e[0]);
        for r in crate::fabric::Platform::NvidiaCumulus.releases() {
            assert!(e[0].contains(r), "{} lacks {r}", e[0]);
        }
        assert!(e[0].contains("did you mean \"5.3\"?"), "{}", e[0]);
    }

    #[test]
    fn a_quoted_release_keeps_its_text() {
        // Unquoted, YAML reads `5.10` as the number 5.1: the README says to quote releases.
        assert_eq!(errors(&fabric("os_version: \"5.10\",", "")), Vec::<String>::new());
        let e = errors(&fabric("os_version: \"5.60\",", ""));
        assert!(e[0].contains("release `5.60`"), "{e:?}");
    }

    #[test]
    fn a_host_with_a_release_is_an_error() {
        let e = errors(&fabric("", "os_version: \"22.04\","));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("`os_version` names a switch's software release"), "{}", e[0]);
    }

    #[test]
    fn every_default_release_is_a_known_one() {
        use crate::fabric::Platform::*;
        for p in [NvidiaOnyx, NvidiaCumulus, AristaEos, HpeComware, Sonic, DellOs10, DellOs9, CiscoNxos, Generic] {
            match p.default_release() {
                Some(d) => assert!(p.releases().contains(&d), "{}: {d}", p.name()),
                None => assert!(p.releases().is_empty(), "{}", p.name()),
            }
        }
    }
}
