//! The fuzz's mutator: seeded, the same mutants for a seed everywhere, and the rewrite of an
//! example's simulated time that keeps a mutant's `sim` short.

/// SplitMix64: small, seedable, the same everywhere.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        let mut r = Rng(seed);
        r.next();
        r
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// FNV-1a, to give each example its own stream of mutants for one seed.
pub(super) fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Byte ranges of the text that are not comments (a `#` at a line's start or after a blank),
/// so that mutations land on values rather than prose.
fn live_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let end = if body.trim_start().starts_with('#') { 0 } else { body.find(" #").unwrap_or(body.len()) };
        if end > 0 {
            out.push((at, at + end));
        }
        at += line.len();
    }
    out
}

/// Every number (digits, with a decimal point) outside comments: (start, end, unit end).
fn numbers(text: &str) -> Vec<(usize, usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for (from, to) in live_ranges(text) {
        let mut i = from;
        while i < to {
            let starts = b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.'));
            if !starts {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < to && (b[j].is_ascii_digit() || b[j] == b'.') {
                j += 1;
            }
            let mut u = j;
            while u < to && (b[u].is_ascii_alphabetic() || b[u] == b'/') {
                u += 1;
            }
            out.push((i, j, u));
            i = u.max(j);
        }
    }
    out
}

/// Units of the fabric files, by kind; a changed unit is mostly of the same kind.
const UNITS: &[&[&str]] = &[
    &["B", "KB", "KiB", "MB", "MiB", "GB", "GiB", "TB"],
    &["ns", "us", "ms", "s"],
    &["M", "G", "T", "K", "Mb/s", "Gb/s", "Gbps", "Tb/s"],
    &["m", "km", "cm"],
];

const HUGE: &[&str] = &["4294967295", "2147483647", "18446744073709551616", "1e30", "9999999999999", "4294967296"];
const REPLACEMENTS: &[char] =
    &['0', '9', '-', ':', '{', '}', '[', ']', ',', '"', '\'', '#', '&', '*', '!', '|', '>', ' ', '\t', 'x', 'é', '\n'];

/// One mutation of `text`, and what it did: its kind, the line it hit and how.
fn mutate_once(text: &str, rng: &mut Rng) -> Mutation {
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let nums = numbers(text);
    let live = live_ranges(text);
    for _ in 0..8 {
        match rng.below(8) {
            kind @ (0 | 1) if !live.is_empty() => {
                let (from, _) = *rng.pick(&live);
                let start = text[..from].rfind('\n').map_or(0, |i| i + 1);
                let end = text[from..].find('\n').map_or(text.len(), |i| from + i + 1);
                let line = &text[start..end];
                let (new, what) = if kind == 0 { (String::new(), "delete") } else { (line.repeat(2), "duplicate") };
                let out = format!("{}{new}{}", &text[..start], &text[end..]);
                return Mutation {
                    text: out,
                    what: format!("{what} line {}: {}", line_of(start), line.trim_end()),
                    key: None,
                };
            }
            kind @ (2..=4) if !nums.is_empty() => {
                let (i, j, _) = *rng.pick(&nums);
                let (new, what) = match kind {
                    2 => ("0".to_string(), "zero"),
                    3 => (format!("-{}", &text[i..j]), "negative"),
                    _ => (rng.pick(HUGE).to_string(), "huge"),
                };
                let out = format!("{}{new}{}", &text[..i], &text[j..]);
                let key = key_before(text, i);
                let what = format!("{what} line {} ({key}): {} -> {new}", line_of(i), &text[i..j]);
                return Mutation { text: out, what, key: (kind == 4).then(|| key.to_string()) };
            }
            5 => {
                let with_units: Vec<_> = nums.iter().filter(|n| n.2 > n.1).collect();
                if with_units.is_empty() {
                    continue;
                }
                let &&(i, j, u) = rng.pick(&with_units);
                let unit = &text[j..u];
                let same_kind = rng.below(4) != 0;
                let any = UNITS[rng.below(UNITS.len())];
                let kind = UNITS.iter().find(|k| same_kind && k.contains(&unit)).copied().unwrap_or(any);
                let new = *rng.pick(kind);
                let out = format!("{}{new}{}", &text[..j], &text[u..]);
                let key = key_before(text, i);
                let what = format!("unit line {} ({key}): {} -> {}{new}", line_of(i), &text[i..u], &text[i..j]);
                return Mutation { text: out, what, key: Some(key.to_string()) };
            }
            6 | 7 if !live.is_empty() => {
                let (from, to) = *rng.pick(&live);
                let chars: Vec<(usize, char)> = text[from..to].char_indices().map(|(k, c)| (from + k, c)).collect();
                if chars.len() < 2 {
                    continue;
                }
                let k = rng.below(chars.len() - 1);
                let (a, ca) = chars[k];
                let (b, cb) = chars[k + 1];
                let (new, what) = if rng.below(2) == 0 {
                    (format!("{cb}{ca}"), format!("swap line {}: {ca:?}{cb:?}", line_of(a)))
                } else {
                    let c = *rng.pick(REPLACEMENTS);
                    (format!("{c}{cb}"), format!("replace line {}: {ca:?} by {c:?}", line_of(a)))
                };
                let out = format!("{}{new}{}", &text[..a], &text[b + cb.len_utf8()..]);
                return Mutation { text: out, what, key: None };
            }
            _ => {}
        }
    }
    Mutation { text: text.to_string(), what: "none".into(), key: None }
}

/// A mutated text, what was done, and the key of a value made larger (a huge number, another
/// unit): what `KNOWN_OPEN_FIELDS` skips.
struct Mutation {
    text: String,
    what: String,
    key: Option<String>,
}

/// The key a value belongs to: the last `key:` before `at` on its line, its last dotted part
/// (`ports` in `{…, ports: 2}`, `duration` in `simulation.duration: 40ms`).
fn key_before(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[start..at];
    let Some(colon) = before.rfind(':') else { return "" };
    let head = before[..colon].trim_end();
    let from = head.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).map_or(0, |i| i + 1);
    &head[from..]
}

/// One to three mutations, mostly one: the text, and what each did with the key it hit.
pub(super) fn mutate(text: &str, rng: &mut Rng) -> (String, Vec<(String, Option<String>)>) {
    let n = [1, 1, 1, 2, 3][rng.below(5)];
    let mut out = text.to_string();
    let mut what = Vec::new();
    for _ in 0..n {
        let m = mutate_once(&out, rng);
        out = m.text;
        what.push((m.what, m.key));
    }
    (out, what)
}

/// `text` with `simulation.duration` (inline `simulation: {duration: …}` or a `duration:` line
/// of the `simulation:` block) set to `to`; `None` without one.
pub(super) fn with_duration(text: &str, to: &str) -> Option<String> {
    let mut out = String::new();
    let mut done = false;
    let mut in_block = false;
    for line in text.split_inclusive('\n') {
        let mut line = line.to_string();
        if !done && line.starts_with("simulation:") {
            if let Some(at) = line.find("duration:") {
                let value = at + "duration:".len();
                let end = line[value..].find([',', '}', '#', '\n']).map_or(line.len(), |i| value + i);
                line.replace_range(value..end, &format!(" {to}"));
                done = true;
            } else {
                in_block = true;
            }
        } else if in_block && !done {
            if !line.starts_with([' ', '#', '\n']) {
                in_block = false;
            } else if line.trim_start().starts_with("duration:") && !line.starts_with("   ") {
                let value = line.find("duration:").unwrap() + "duration:".len();
                let end = line[value..].find(['#', '\n']).map_or(line.len(), |i| value + i);
                line.replace_range(value..end, &format!(" {to}"));
                done = true;
            }
        }
        out += &line;
    }
    done.then_some(out)
}

/// Every time in milliseconds written in microseconds: the run and its workloads a thousandth
/// as long, their order kept (the seed deployments' jobs fill tens of milliseconds).
pub(super) fn ms_as_us(text: &str) -> String {
    let mut out = text.to_string();
    for &(_, j, u) in numbers(text).iter().rev() {
        if &text[j..u] == "ms" {
            out.replace_range(j..u, "us");
        }
    }
    out
}

#[test]
fn mutations_are_deterministic_and_of_every_kind() {
    let text = "a: {size: 4KB, rate: 25G}  # 7 comment\nb: [1, 2]\n# 99 none\nsimulation:\n  duration: 2ms\n";
    let mut kinds = std::collections::BTreeSet::new();
    let mut changed = 0;
    for i in 0..400 {
        let Mutation { text: a, what, .. } = mutate_once(text, &mut Rng::new(i));
        let again = mutate_once(text, &mut Rng::new(i));
        assert_eq!((&a, &what), (&again.text, &again.what), "seed {i}");
        changed += usize::from(a != text);
        // Comments are left alone, but for the deletion of the line they end.
        assert!(a.contains("\n# 99 none\n"), "{what}: {a}");
        assert!(a.contains("  # 7 comment\n") || what.starts_with("delete line 1"), "{what}: {a}");
        kinds.insert(what.split(' ').next().unwrap().to_string());
    }
    assert!(changed > 380, "{changed} of 400 changed the text");
    let all = ["delete", "duplicate", "huge", "negative", "replace", "swap", "unit", "zero"];
    assert_eq!(kinds, all.iter().map(|k| k.to_string()).collect());
    assert_eq!(numbers("k: 4KB, x: a1, y: 2.5us, r: 10Gb/s\n"), [(3, 4, 6), (18, 21, 23), (28, 30, 34)]);
    assert_eq!(with_duration(text, "20us").unwrap(), text.replace("2ms", "20us"));
    let inline = "simulation: {duration: 68ms, sample_interval: 50us}\n";
    assert_eq!(with_duration(inline, "20us").unwrap(), "simulation: {duration: 20us, sample_interval: 50us}\n");
    assert_eq!(with_duration("fabric: {}\n", "20us"), None);
    assert_eq!(key_before("  - {a: \"x:y\", ports: 2}", 22), "ports");
    assert_eq!(key_before("      simulation.duration: 40ms", 27), "duration");
    assert_eq!(key_before("- 5", 2), "");
    assert_eq!(ms_as_us("runtime: 15ms, start: 2s, ms: 1"), "runtime: 15us, start: 2s, ms: 1");
}
