//! Helpers shared by the importers of device output: the columns of a fixed-width table as
//! `show` commands and PowerShell's `Format-Table` print them, and MAC addresses in the three
//! notations devices use.

/// A MAC address, six octets.
pub type Mac = [u8; 6];

/// A MAC address as Linux (`24:8a:07:aa:bb:cc`), Windows (`24-8A-07-AA-BB-CC`) or Cisco-style
/// EOS (`248a.07aa.bbcc`) print it; `None` for anything else.
pub fn parse_mac(text: &str) -> Option<Mac> {
    let t = text.trim();
    let hex: String = match t.len() {
        // Six pairs with one separator between them, all the same.
        17 => {
            let sep = t.as_bytes()[2];
            if !matches!(sep, b':' | b'-') || (0..6).any(|i| i > 0 && t.as_bytes()[i * 3 - 1] != sep) {
                return None;
            }
            t.split(sep as char).collect()
        }
        // Three groups of four: `248a.07aa.bbcc`.
        14 => {
            let groups: Vec<&str> = t.split('.').collect();
            if groups.len() != 3 || groups.iter().any(|g| g.len() != 4) {
                return None;
            }
            groups.concat()
        }
        _ => return None,
    };
    if hex.len() != 12 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let mut mac = [0u8; 6];
    for (i, m) in mac.iter_mut().enumerate() {
        *m = u8::from_str_radix(&hex[i * 2..i * 2 + 2], 16).ok()?;
    }
    Some(mac)
}

/// `24:8a:07:aa:bb:cc`: how rocelab writes a MAC address in its messages.
pub fn mac_text(mac: &Mac) -> String {
    mac.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// Where each of `names` starts in a table's header line (character offsets), or `None` when
/// one is missing.
pub fn header_starts(header: &str, names: &[&str]) -> Option<Vec<usize>> {
    let mut starts = Vec::with_capacity(names.len());
    let mut from = 0;
    for name in names {
        let at = header[from..].find(name)? + from;
        starts.push(header[..at].chars().count());
        from = at + name.len();
    }
    Some(starts)
}

/// The fields of one row of a fixed-width table whose columns start at `starts`: the text
/// between one column's start and the next's, trimmed, so that a value with a space in it
/// (`Ethernet 1`, `SLOT 2 Port 1`) stays whole. `None` when a value runs across a column's
/// start (the row is not aligned under its header, as when a long value pushes the rest).
pub fn split_row(row: &str, starts: &[usize]) -> Option<Vec<String>> {
    let chars: Vec<char> = row.chars().collect();
    let mut out = Vec::with_capacity(starts.len());
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(usize::MAX).min(chars.len());
        if i > 0 && s > 0 && s <= chars.len() && !chars[s - 1].is_whitespace() {
            return None;
        }
        let s = s.min(chars.len());
        out.push(chars[s..end.max(s)].iter().collect::<String>().trim().to_string());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macs_in_the_three_notations() {
        let m = [0x24, 0x8a, 0x07, 0xaa, 0xbb, 0xcc];
        assert_eq!(parse_mac("24:8a:07:aa:bb:cc"), Some(m));
        assert_eq!(parse_mac("24-8A-07-AA-BB-CC"), Some(m));
        assert_eq!(parse_mac("248a.07aa.bbcc"), Some(m));
        assert_eq!(mac_text(&m), "24:8a:07:aa:bb:cc");
        for bad in ["24:8a:07:aa:bb", "24:8a-07:aa:bb:cc", "Ethernet1/1/1", "zz:8a:07:aa:bb:cc", "Ethernet1.100"] {
            assert_eq!(parse_mac(bad), None, "{bad}");
        }
    }

    #[test]
    fn rows_split_at_the_header_columns_keep_spaces_in_values() {
        let header = "Port          Neighbor Device ID       Neighbor Port ID    TTL";
        let starts = header_starts(header, &["Port", "Neighbor Device ID", "Neighbor Port ID", "TTL"]).unwrap();
        assert_eq!(starts, [0, 14, 39, 59]);
        let row = "Et5           host3                    Slot 1 Port 1       120";
        assert_eq!(split_row(row, &starts).unwrap(), ["Et5", "host3", "Slot 1 Port 1", "120"]);
        // A short row leaves the last columns empty.
        assert_eq!(split_row("Et5           host3", &starts).unwrap(), ["Et5", "host3", "", ""]);
        // A value over a column's start: not aligned.
        assert_eq!(split_row("Et5           a-very-long-device-name.example.com Ethernet1 120", &starts), None);
    }
}
