//! Reading an import directory file by file: a file that cannot be read (not text, JSON cut
//! short) is reported with its place and the others are read all the same, so that one bad
//! capture in a folder of many does not hide what the rest say.

use super::lldp::LldpTable;
use super::{
    files_of, read, read_text, stem_of, DeviceConfig, ImportError, NotUnderstood, Parsed, FORMATS, LLDP_FORMATS,
};
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
    } else if let Some(l) = lines.get(line - 1) {
        // serde_json counts the column in bytes; a location counts characters.
        column = l.char_indices().take_while(|&(i, _)| i < column).count().max(1);
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

impl DirFiles {
    /// The names of the files read as a device's configuration or as LLDP neighbours: the
    /// rest of a folder may be other output (`rocelab audit` reads counters beside them).
    pub fn taken(&self) -> Vec<String> {
        let taken = |k: &str| matches!(k, "a configuration" | "LLDP neighbours");
        self.seen.iter().filter(|(_, k)| taken(k)).map(|(n, _)| n.clone()).collect()
    }

    /// Whether some file is a device's configuration.
    pub fn has_configuration(&self) -> bool {
        self.seen.iter().any(|(_, k)| *k == "a configuration")
    }
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
                d.not_understood.push(unreadable(&file, &e));
                d.seen.push((name, "not text"));
                continue;
            }
        };
        // In JSON a NUL is the parser's error, at the same place.
        if let Some(e) = nul_byte(&text, &file).filter(|_| !is_json(&text, &file)) {
            d.errors.push(e);
        }
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
                // A JSON object is a config_db.json: its device is kept, without configuration.
                if text.trim_start().starts_with('{') {
                    d.configs.push(DeviceConfig::switch(stem_of(&path), "sonic", &file));
                }
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

/// The first NUL byte of a device output, as an error at its place. Device outputs are text; a
/// NUL in one is a capture saved as UTF-16 without its byte-order mark, or damaged while being
/// copied. The rest of the file is still read.
fn nul_byte(text: &str, file: &str) -> Option<FileError> {
    let (i, line) = text.lines().enumerate().find(|(_, l)| l.contains('\0'))?;
    let column = line.chars().position(|c| c == '\0')? + 1;
    Some(FileError {
        file: file.into(),
        line: i + 1,
        column,
        message: "a NUL byte (U+0000) in text output: capture the command's output again (a capture saved as \
                  UTF-16 needs its byte-order mark)"
            .into(),
    })
}

/// Whether `text` is to be read as JSON: it opens with a brace, or its file is named `.json`.
pub(super) fn is_json(text: &str, file: &str) -> bool {
    text.trim_start().starts_with('{') || file.to_ascii_lowercase().ends_with(".json")
}

/// A file that is not text (or cannot be read), skipped with a note naming it and why.
pub(super) fn unreadable(file: &str, error: &str) -> NotUnderstood {
    let why = error.strip_prefix(&format!("{file}: ")).unwrap_or(error);
    NotUnderstood { file: file.into(), line: 1, text: format!("the whole file: {why}; skipped") }
}

/// The files of a directory as a list for a message: each with what it was taken for (the
/// first few).
fn listing(seen: &[(String, &str)]) -> String {
    const SHOWN: usize = 8;
    let mut list: Vec<String> = seen.iter().take(SHOWN).map(|(n, k)| format!("{n} ({k})")).collect();
    if seen.len() > SHOWN {
        list.push(format!("… {} more", seen.len() - SHOWN));
    }
    format!("its {} file{}: {}", seen.len(), if seen.len() == 1 { "" } else { "s" }, list.join(", "))
}

/// Why a directory gave no device: what each of its files was taken for (the first few).
pub(super) fn no_configuration(dir: &Path, seen: &[(String, &str)]) -> String {
    if seen.is_empty() {
        return format!("{}: no files in the directory; put one file per device in it ({FORMATS})", dir.display());
    }
    format!("{}: no device configuration among {}; rocelab imports {FORMATS}", dir.display(), listing(seen))
}

/// Why a directory with configurations gave no cabling: none of its files is LLDP neighbour
/// output and no links file was given; what each file was taken for, and what would do.
pub(super) fn no_cabling(dir: &Path, seen: &[(String, &str)]) -> String {
    format!(
        "{}: no cabling: no LLDP neighbour output among {}; give --links LINKS.yaml (or a file or directory of \
         LLDP output), or put the devices' LLDP neighbour output in the directory (rocelab reads {LLDP_FORMATS})",
        dir.display(),
        listing(seen)
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

    /// A character of several bytes before the error: the column counts characters, as an
    /// editor shows them, where serde_json counts bytes.
    #[test]
    fn the_column_of_a_json_error_counts_characters_not_bytes() {
        let text = "{\"dévice\": x}";
        let e = error_of(text);
        let at = text.chars().position(|c| c == 'x').unwrap() + 1;
        assert_eq!((e.line, e.column), (1, at), "{e}");
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

    /// A scratch directory with `files` in it, removed when dropped.
    struct Scratch(std::path::PathBuf);

    impl Scratch {
        fn new(name: &str, files: &[(&str, &[u8])]) -> Scratch {
            let dir = std::env::temp_dir().join(format!("rocelab-files-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            for (n, bytes) in files {
                std::fs::write(dir.join(n), bytes).unwrap();
            }
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const LEAF1: &[u8] = b"! device: leaf1\ninterface Ethernet1\n   mtu 9214\n";
    /// EOS `show lldp neighbors` (the layout of the fixture `import-mixed/leaf1.lldp.txt`).
    const LEAF1_LLDP: &[u8] = b"Last table change time   : 0:00:25 ago\nNumber of table inserts  : 1\n\
        Number of table deletes  : 0\nNumber of table drops    : 0\nNumber of table age-outs : 0\n\n\
        Port          Neighbor Device ID       Neighbor Port ID    TTL\n\
        ---------- ------------------------ ---------------------- ---\n\
        Et1           host1                    p0                  120\n";

    /// A capture that is not text among the LLDP captures given as `--links DIR` is skipped with
    /// a note naming it, as one in the import directory is; it stopped the whole import.
    #[test]
    fn a_binary_file_among_the_lldp_captures_is_skipped_with_a_note() {
        let dir = Scratch::new("bin-links-dir", &[("leaf1.cfg", LEAF1)]);
        let links =
            Scratch::new("bin-links", &[("leaf1.lldp.txt", LEAF1_LLDP), ("cap.pcap", &[0xd4, 0xc3, 0xb2, 0xa1, 0xff])]);
        let imported = super::super::import_dir(&dir.0, Some(&links.0)).unwrap();
        assert_eq!(imported.state.links.len(), 1);
        let notes: Vec<String> = imported.not_understood.iter().map(|n| n.to_string()).collect();
        let file = links.0.join("cap.pcap").display().to_string();
        assert_eq!(
            notes,
            [format!("{file}:1: not understood: the whole file: not UTF-8 text (byte 0 is not valid); skipped")]
        );
        // Given as the links file itself, it is an error: there is nothing else to read.
        let e = super::super::import_dir(&dir.0, Some(&links.0.join("cap.pcap"))).unwrap_err();
        assert_eq!(e.0, format!("{file}: not UTF-8 text (byte 0 is not valid) (the links file)"));
    }

    /// Configurations but no cabling: the message names each file and what it was taken for,
    /// and what rocelab reads for the cabling; it said only "no cabling".
    #[test]
    fn a_directory_without_cabling_says_what_each_file_was_taken_for() {
        let dir = Scratch::new(
            "no-cabling",
            &[("leaf1.cfg", LEAF1), ("notes.txt", b"leaf1 Et1 - host1\n"), ("cap.pcap", &[0xd4, 0xc3, 0xb2, 0xa1])],
        );
        let e = super::super::import_dir(&dir.0, None).unwrap_err();
        assert_eq!(
            e.0,
            format!(
                "{}: no cabling: no LLDP neighbour output among its 3 files: cap.pcap (not text), leaf1.cfg (a \
                 configuration), notes.txt (not recognised); give --links LINKS.yaml (or a file or directory of LLDP \
                 output), or put the devices' LLDP neighbour output in the directory (rocelab reads {LLDP_FORMATS})",
                dir.0.display()
            )
        );
    }

    /// A `.json` file that does not open with a brace (an array, or a copy cut before its first
    /// brace) is JSON all the same: its parse error is shown where it stops. It was taken for a
    /// file in no format, a note never printed when the import then stopped.
    #[test]
    fn a_json_file_cut_short_is_an_error_whatever_it_opens_with() {
        let e = error_of_file("[{\"PORT\": {\n", "x.json");
        assert_eq!(
            e.to_string(),
            "x.json:1:11: error: not valid JSON: EOF while parsing an object; the file ends early: is it cut short?"
        );
        let e = error_of_file("\n  \"DEVICE_METADATA", "leaf2.JSON");
        assert_eq!((e.line, e.column), (2, 18), "{e}");
        // Not named `.json` and not opening with a brace: not JSON.
        assert!(read("[global]\nkey = 1\n", "x.ini", "x").is_none());
        let dir = Scratch::new("json-array", &[("leaf1.cfg", LEAF1), ("x.json", b"[{\"a\": ")]);
        let d = read_dir(&dir.0).unwrap();
        assert_eq!((d.errors.len(), d.configs.len()), (1, 1), "{:?}", d.errors);
        assert!(d.seen.contains(&("x.json".to_string(), "not valid JSON")), "{:?}", d.seen);
    }

    /// A NUL byte in a text capture is an error at its line and column; the file is still read
    /// (its device kept). It was only a line "not understood" with the NUL in it.
    #[test]
    fn a_nul_byte_in_a_capture_is_an_error_at_its_place() {
        let dir = Scratch::new("nul", &[("leaf1.cfg", b"! device: leaf1\ninterface Ethernet1\n   mtu 92\x0014\n")]);
        let d = read_dir(&dir.0).unwrap();
        let file = dir.0.join("leaf1.cfg").display().to_string();
        let errors: Vec<String> = d.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            errors,
            [format!(
                "{file}:3:10: error: a NUL byte (U+0000) in text output: capture the command's output again (a \
                 capture saved as UTF-16 needs its byte-order mark)"
            )]
        );
        assert_eq!(d.configs.len(), 1);
    }

    fn error_of_file(text: &str, file: &str) -> FileError {
        match read(text, file, "x") {
            Some(Parsed::Broken(e)) => e,
            other => panic!("{other:?}"),
        }
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
