//! The hostfile: one `host:port` line per process, read and checked before any process
//! is joined.

use crate::{Error, Result};
use std::io::Read;
use std::path::Path;

/// The largest hostfile read (a million bytes: tens of thousands of lines).
const MAX_HOSTFILE: u64 = 1 << 20;

/// Reads the `processes` addresses (`host:port`, one per line; blank lines and `#`
/// comments skipped) from a hostfile; line i is process i. Refused with the line: a line
/// that is not UTF-8 or not `host:port`, port 0, an address listed twice; and a file over
/// a million bytes (`/dev/zero`).
pub fn read_hostfile(path: &Path, processes: usize) -> Result<Vec<String>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_HOSTFILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_HOSTFILE {
        return Err(Error::parse(
            path,
            None,
            format!("longer than {MAX_HOSTFILE} bytes: not a hostfile"),
        ));
    }
    let mut out: Vec<String> = Vec::new();
    let mut lines_of: Vec<usize> = Vec::new();
    for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = std::str::from_utf8(raw).map_err(|_| {
            Error::parse(
                path,
                Some(n + 1),
                "not UTF-8 text: write host:port, one process per line",
            )
        })?;
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let port = line.rsplit_once(':').and_then(|(h, p)| {
            (!h.is_empty()).then_some(())?;
            p.parse::<u16>().ok()
        });
        match port {
            None => {
                return Err(Error::parse(
                    path,
                    Some(n + 1),
                    format!("{line:?} is not an address: write host:port, one process per line"),
                ));
            }
            Some(0) => {
                return Err(Error::parse(
                    path,
                    Some(n + 1),
                    format!("{line:?}: port 0 is not a port the other processes can reach"),
                ));
            }
            Some(_) => {}
        }
        if let Some(first) = out.iter().position(|a| a == line) {
            return Err(Error::parse(
                path,
                Some(n + 1),
                format!(
                    "{line:?} is listed twice (line {} too): each process needs its own address",
                    lines_of[first]
                ),
            ));
        }
        out.push(line.to_string());
        lines_of.push(n + 1);
    }
    if out.len() < processes {
        return Err(Error::parse(
            path,
            None,
            format!(
                "{} addresses for {processes} processes: the hostfile needs one line per process",
                out.len()
            ),
        ));
    }
    out.truncate(processes);
    Ok(out)
}
