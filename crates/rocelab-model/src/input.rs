//! Reading input files with a size limit. Every file rocelab reads (fabric files, CDF files, the
//! HPCC simulator's config, topology and flow files, links files, the devices' own output,
//! `results.json`) goes through [`read_limited`], so that a wrong path (`/dev/zero`, a disk
//! image, a FIFO) is a clear error instead of reading until memory runs out. The limit is
//! checked against the file's length first, and the read itself stops one byte past it, so that
//! files that report no length (devices, pipes) are bounded too.

use std::io::Read;
use std::path::Path;

/// Largest fabric (scenario) file: 16 MiB. The node tree is capped at 2 million nodes
/// ([`crate::node`]), which a file of this size already exceeds; the largest generated fabric
/// written out device by device (200 000 devices) is a few MiB.
pub const MAX_FABRIC_BYTES: u64 = 16 << 20;

/// Largest flow-size CDF file: 1 MiB. The CDFs in use (HPCC's `WebSearch_distribution.txt`,
/// `FbHdp_distribution.txt`) are tens of lines.
pub const MAX_CDF_BYTES: u64 = 1 << 20;

/// Largest HPCC topology or flow file: 512 MiB, room for the 10 million flows rocelab simulates
/// at most ([`crate::workload::MAX_FLOWS`]) at the format's 30-50 bytes a line, and for the 10
/// million links the topology reader accepts.
pub const MAX_TRACE_BYTES: u64 = 512 << 20;

/// Largest file of a device's own output read by `check --import` (a running config, an LLDP
/// table, `mlnx_qos`), or a links file: 16 MiB, a hundred times a large switch's running config.
pub const MAX_DEVICE_OUTPUT_BYTES: u64 = 16 << 20;

/// Largest Jinja template given with `config --templates`: 1 MiB, a hundred times the largest
/// built-in template.
pub const MAX_TEMPLATE_BYTES: u64 = 1 << 20;

/// Largest `results.json` read back by `report`: 1 GiB, above what a run that passes the
/// simulator's output limits writes (50 million sampled values at most, a few hundred MB).
pub const MAX_RESULTS_BYTES: u64 = 1 << 30;

/// Why a file was not read: the operating system's error, or the file's size or content.
#[derive(Debug)]
pub struct ReadError {
    /// The I/O error, when the file could not be opened or read.
    pub io: Option<std::io::Error>,
    /// The whole message, naming the file.
    pub message: String,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<ReadError> for String {
    fn from(e: ReadError) -> String {
        e.message
    }
}

/// Reads at most `max` bytes of `path`; a longer file (or one that never ends) is an error that
/// names the limit and `what` the file is for.
pub fn read_limited(path: &Path, max: u64, what: &str) -> Result<Vec<u8>, ReadError> {
    let io = |e: std::io::Error| ReadError { message: format!("cannot read `{}`: {e}", path.display()), io: Some(e) };
    let file = std::fs::File::open(path).map_err(io)?;
    let too_big = |size: String| ReadError {
        io: None,
        message: format!(
            "`{}` {size} the {max} bytes rocelab reads for {what}; give the path of the right file",
            path.display()
        ),
    };
    if let Ok(meta) = file.metadata() {
        if meta.is_dir() {
            return Err(ReadError { io: None, message: format!("`{}` is a directory, not {what}", path.display()) });
        }
        if meta.is_file() && meta.len() > max {
            return Err(too_big(format!("is {} bytes, more than", meta.len())));
        }
    }
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(too_big("goes on past".into()));
    }
    Ok(bytes)
}

/// [`read_limited`], as UTF-8 text.
pub fn read_text_limited(path: &Path, max: u64, what: &str) -> Result<String, ReadError> {
    let bytes = read_limited(path, max, what)?;
    String::from_utf8(bytes).map_err(|e| ReadError {
        io: None,
        message: format!("`{}` is not UTF-8 text (byte {} is not valid)", path.display(), e.utf8_error().valid_up_to()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_limit_is_refused_by_its_length() {
        let dir = std::env::temp_dir().join(format!("rocelab-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("big.txt");
        std::fs::write(&p, "x".repeat(11)).unwrap();
        let e = read_text_limited(&p, 10, "a test file").unwrap_err().message;
        assert!(
            e.ends_with(
                "is 11 bytes, more than the 10 bytes rocelab reads for a test file; give the path of the right file"
            ),
            "{e}"
        );
        assert_eq!(read_text_limited(&p, 11, "a test file").unwrap(), "x".repeat(11));
        let e = read_text_limited(&dir, 10, "a test file").unwrap_err().message;
        assert!(e.ends_with("is a directory, not a test file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_never_ends_is_read_only_to_the_limit() {
        let e = read_limited(Path::new("/dev/zero"), 1000, "a test file").unwrap_err().message;
        assert_eq!(
            e,
            "`/dev/zero` goes on past the 1000 bytes rocelab reads for a test file; give the path of the right file"
        );
    }
}
