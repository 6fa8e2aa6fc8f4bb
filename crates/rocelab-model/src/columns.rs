//! Whitespace-separated columns, as the ns-3 HPCC simulator's text files (topology, flows,
//! CDFs) are written, each with its 1-based column so that an error can point at it.

/// Whitespace-separated fields with their 1-based column.
pub(crate) fn columns(line: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((s + 1, &line[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s + 1, &line[s..]));
    }
    out.into_iter()
}
