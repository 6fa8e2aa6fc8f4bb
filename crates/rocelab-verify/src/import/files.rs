//! Reading an import directory file by file: a file that cannot be read (not text, JSON cut
//! short) is reported with its place and the others are read all the same, so that one bad
//! capture in a folder of many does not hide what the rest say.

use super::lldp::LldpTable;
use super::{files_of, read, read_text, stem_of, DeviceConfig, ImportError, NotUnderstood, Parsed, FORMATS};
use std::fmt;
use std::path::Path;

/// A file that could not be read as a whole, where the parser stopped (line and column 1-based,
/// 0 when the problem has no place in the file): `file:line:column: error: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: error: {}", self.file, self.message),
            (l, 0) => write!(f, "{}:{l}: error: {}", self.file, self.message),
            (l, c) => write!(f, "{}:{l}:{c}: error: {}", self.file, self.message),
        }
    }
}

/// A JSON syntax error of `text` at a place in the file: serde_json counts a line past the last
/// newline (column 0) when the text ends early, which is shown as the last line's last character.
pub(super) fn json_error(text: &str, file: &str, e: &serde_json::Error) -> FileError {
    let lines: Vec<&str> = text.lines().collect();
    let (mut line, mut column) = (e.line(), e.column());
    if line > lines.len() || column == 0 {
        line = line.clamp(1, lines.len().max(1));
        // serde_json's column is that of the last character read: here the line's last.
        column = lines.get(line - 1).map_or(0, |l| l.chars().count()).max(1);
    }
    // serde_json's text ends with " at line L column C", which the location already says.
    let full = e.to_string();
    let what = full.rsplit_once(" at line ").map_or(full.as_str(), |(w, _)| w);
    let cut = if e.is_eof() { "; the file ends early: is it cut short?" } else { "" };
    FileError { file: file.into(), line, column, message: format!("not valid JSON: {what}{cut}") }
}

/// The files of an import directory as read, before the cabling joins them.
#[derive(Debug, Clone, Default)]
pub struct DirFiles {
    pub(super) configs: Vec<DeviceConfig>,
    pub(super) tables: Vec<LldpTable>,
    /// Per file: its name and what it was taken for (for the message of a directory with no
    /// configuration in it).
    pub(super) seen: Vec<(String, &'static str)>,
    pub not_understood: Vec<NotUnderstood>,
    /// Files that could not be read; the others are read all the same.
    pub errors: Vec<FileError>,
}

/// Reads every file of `dir`. A file that is not text, or in no format rocelab reads, is reported
/// as not understood; a JSON file that does not parse is an error located where it stops, and
/// its device (named after the file) is kept without configuration. Neither stops the others
/// being read: only a directory that cannot be listed is an error here.
pub fn read_dir(dir: &Path) -> Result<DirFiles, ImportError> {
    let mut d = DirFiles::default();
    for path in files_of(dir)? {
        let file = path.display().to_string();
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let text = match read_text(&path) {
            Ok(t) => t,
            Err(ImportError(e)) => {
                let why = e.strip_prefix(&format!("{file}: ")).unwrap_or(&e).to_string();
                d.not_understood.push(NotUnderstood { file, line: 1, text: format!("the whole file: {why}; skipped") });
                d.seen.push((name, "not text"));
                continue;
            }
        };
        let kind = match read(&text, &file, &stem_of(&path)) {
            Some(Parsed::Config(c)) => {
                d.configs.push(*c);
                "a configuration"
            }
            Some(Parsed::Lldp(t)) => {
                d.tables.push(t);
                "LLDP neighbours"
            }
            Some(Parsed::Broken(e)) => {
                d.errors.push(e);
                d.configs.push(DeviceConfig::switch(stem_of(&path), "sonic", &file));
                "not valid JSON"
            }
            None => {
                d.not_understood.push(NotUnderstood {
                    file,
                    line: 1,
                    text: format!("the whole file: not a format rocelab imports ({FORMATS})"),
                });
                "not recognised"
            }
        };
        d.seen.push((name, kind));
    }
    Ok(d)
}

/// Why a directory gave no device: what each of its files was taken for (the first few).
pub(super) fn no_configuration(dir: &Path, seen: &[(String, &str)]) -> String {
    if seen.is_empty() {
        return format!("{}: no files in the directory; put one file per device in it ({FORMATS})", dir.display());
    }
    const SHOWN: usize = 8;
    let mut list: Vec<String> = seen.iter().take(SHOWN).map(|(n, k)| format!("{n} ({k})")).collect();
    if seen.len() > SHOWN {
        list.push(format!("… {} more", seen.len() - SHOWN));
    }
    format!(
        "{}: no device configuration among its {} file{}: {}; rocelab imports {FORMATS}",
        dir.display(),
        seen.len(),
        if seen.len() == 1 { "" } else { "s" },
        list.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(text: &str) -> FileError {
        match read(text, "leaf.json", "leaf") {
            Some(Parsed::Broken(e)) => e,
            other => panic!("{other:?}"),
        }
    }

    /// Cut in the middle of a line, or after a newline (where serde_json counts a line past the
    /// last): the place is a position in the file, the end of what is there.
    #[test]
    fn json_cut_short_is_located_where_it_stops() {
        let e = error_of("{\n  \"PORT\": {\n    \"Ethernet0\": {\"mtu\": \"91");
        assert_eq!((e.line, e.column), (3, 28), "{e}");
        assert_eq!(
            e.to_string(),
            "leaf.json:3:28: error: not valid JSON: EOF while parsing a string; the file ends early: is it cut short?"
        );
        let e = error_of("{\n  \"PORT\": {\n");
        assert_eq!((e.line, e.column), (2, 11), "{e}");
        // Not cut: a syntax error where it is, without the guess.
        let e = error_of("{\n  \"PORT\": {,}\n}\n");
        assert_eq!((e.line, e.column), (2, 12), "{e}");
        assert!(e.message.starts_with("not valid JSON: key must be a string") && !e.message.contains("cut"), "{e}");
        // Also when the cut left no table name in.
        assert_eq!(error_of("{\n  \"DEV").line, 2);
    }

    #[test]
    fn a_file_error_without_a_place_names_the_file_only() {
        let e = FileError { file: "a.json".into(), line: 0, column: 0, message: "gone".into() };
        assert_eq!(e.to_string(), "a.json: error: gone");
    }

    /// A binary file is skipped with a note, a cut config_db.json is an error with its device kept
    /// (without ports), and the other files are read.
    #[test]
    fn one_bad_file_does_not_stop_the_others() {
        let dir = std::env::temp_dir().join(format!("rocelab-read-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.bin"), [0x00, 0xd8, 0xff, 0x01]).unwrap();
        std::fs::write(dir.join("leaf2.json"), "{\"PORT\": {\"Ethernet0\": {").unwrap();
        std::fs::write(dir.join("leaf1.cfg"), "! device: leaf1\ninterface Ethernet1\n   mtu 9214\n").unwrap();
        let d = read_dir(&dir).unwrap();
        assert_eq!(d.errors.len(), 1);
        assert!(d.errors[0].file.ends_with("leaf2.json") && d.errors[0].line == 1, "{:?}", d.errors);
        let names: Vec<&str> = d.configs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["leaf1", "leaf2"]);
        assert!(d.configs[1].ports.is_empty());
        assert_eq!(d.not_understood.len(), 1);
        assert!(d.not_understood[0].text.starts_with("the whole file: not UTF-8 text"), "{:?}", d.not_understood);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_without_configurations_lists_what_it_held() {
        let seen: Vec<(String, &str)> = (0..10).map(|i| (format!("f{i}.txt"), "not recognised")).collect();
        let m = no_configuration(Path::new("caps"), &seen);
        assert!(m.starts_with("caps: no device configuration among its 10 files: f0.txt (not recognised), "), "{m}");
        assert!(m.contains("f7.txt (not recognised), … 2 more; rocelab imports Arista EOS"), "{m}");
        assert!(no_configuration(Path::new("caps"), &[]).starts_with("caps: no files in the directory"));
    }
}
