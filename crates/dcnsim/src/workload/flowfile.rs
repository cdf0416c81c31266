//! `kind = "flows"`: an explicit flow list in a CSV file.
//!
//! The first non-blank, non-comment line is the header: `src,dst,size_bytes,start_s` in any
//! order, plus optional `deadline_s` (seconds after the flow's start) and `weight`. Each later
//! line is one flow. Empty optional cells fall back to the `deadline` and `weight` keys. Errors
//! name `FILE line N` (as `file` was written) and the column; times must lie within the
//! simulation horizon (10⁶ s) and sizes be at most 10¹⁵ bytes. A file that is not UTF-8 is
//! refused at the line of its first bad byte.

use super::generators::Common;
use super::{FlowSpec, HostInfo, WorkloadConfig};
use crate::error::{ConfigError, ConfigResult};
use crate::units::{num, Time};
use std::path::Path;

const REQUIRED: [&str; 4] = ["src", "dst", "size_bytes", "start_s"];
const OPTIONAL: [&str; 2] = ["deadline_s", "weight"];

pub(super) fn load(
    cfg: &WorkloadConfig,
    hosts: &HostInfo,
    c: &Common,
    base_dir: &Path,
) -> ConfigResult<Vec<FlowSpec>> {
    let name = cfg.file.as_deref().ok_or_else(|| {
        ConfigError::new(
            "workload.file",
            "is required for kind = \"flows\": a CSV file with header src,dst,size_bytes,start_s",
        )
    })?;
    let text = crate::error::read_text_file(&base_dir.join(name), "workload.file", name)?;
    parse(name, &text, hosts, c)
}

/// Column positions, from the header.
struct Columns {
    src: usize,
    dst: usize,
    size: usize,
    start: usize,
    deadline: Option<usize>,
    weight: Option<usize>,
    count: usize,
}

fn header(at: &str, line: &str) -> ConfigResult<Columns> {
    let names: Vec<&str> = line.split(',').map(str::trim).collect();
    for (i, n) in names.iter().enumerate() {
        if !REQUIRED.contains(n) && !OPTIONAL.contains(n) {
            return Err(ConfigError::new(
                at,
                format!(
                    "unknown column '{n}'; valid columns are {}, {}",
                    REQUIRED.join(", "),
                    OPTIONAL.join(", ")
                ),
            ));
        }
        if names[..i].contains(n) {
            return Err(ConfigError::new(at, format!("column '{n}' appears twice")));
        }
    }
    let find = |c: &str| names.iter().position(|n| *n == c);
    let need = |c: &str| {
        find(c).ok_or_else(|| {
            ConfigError::new(
                at,
                format!(
                    "missing column '{c}'; the header must name {} (optional: {})",
                    REQUIRED.join(", "),
                    OPTIONAL.join(", ")
                ),
            )
        })
    };
    Ok(Columns {
        src: need("src")?,
        dst: need("dst")?,
        size: need("size_bytes")?,
        start: need("start_s")?,
        deadline: find("deadline_s"),
        weight: find("weight"),
        count: names.len(),
    })
}

/// Parses flow-list text; `name` is how errors refer to it.
pub(super) fn parse(
    name: &str,
    text: &str,
    hosts: &HostInfo,
    c: &Common,
) -> ConfigResult<Vec<FlowSpec>> {
    let mut dr = c.stream("workload.deadlines");
    let mut cols: Option<Columns> = None;
    let mut flows = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{name} line {}", i + 1);
        let Some(k) = &cols else {
            cols = Some(header(&at, line)?);
            continue;
        };
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != k.count {
            return Err(ConfigError::new(
                at,
                format!(
                    "expected {} comma-separated cells as in the header, got {}",
                    k.count,
                    cells.len()
                ),
            ));
        }
        let host = |col: usize, what: &str| -> ConfigResult<u32> {
            let v: u32 = cells[col].parse().map_err(|_| {
                ConfigError::new(
                    &at,
                    format!(
                        "column {what}: '{}' is not a host id (an integer >= 0)",
                        cells[col]
                    ),
                )
            })?;
            if v >= hosts.count {
                return Err(ConfigError::new(
                    &at,
                    format!(
                        "column {what}: host {v} does not exist; valid host ids are 0..={}",
                        hosts.count - 1
                    ),
                ));
            }
            Ok(v)
        };
        let number = |col: usize, what: &str| -> ConfigResult<f64> {
            let v: f64 = cells[col].parse().map_err(|_| {
                ConfigError::new(
                    &at,
                    format!("column {what}: '{}' is not a number", cells[col]),
                )
            })?;
            if !v.is_finite() || v < 0.0 {
                return Err(ConfigError::new(
                    &at,
                    format!(
                        "column {what}: must be a finite number >= 0, got {}",
                        num(v)
                    ),
                ));
            }
            Ok(v)
        };
        // A time in seconds, within the simulation horizon.
        let seconds = |col: usize, what: &str| -> ConfigResult<Time> {
            Time::try_from_secs_f64(number(col, what)?)
                .map_err(|e| ConfigError::new(&at, format!("column {what}: {e}")))
        };
        let src = host(k.src, "src")?;
        let dst = host(k.dst, "dst")?;
        if src == dst {
            return Err(ConfigError::new(
                &at,
                format!("columns src, dst: a flow from host {src} to itself"),
            ));
        }
        let size: u64 = cells[k.size].parse().map_err(|_| {
            let cell = cells[k.size];
            let what = if cell.starts_with('-') {
                "a negative size"
            } else if !cell.is_empty() && cell.bytes().all(|b| b.is_ascii_digit()) {
                "more than the largest flow size, 1e15 bytes (1 PB)"
            } else {
                "not a whole number of bytes"
            };
            ConfigError::new(
                &at,
                format!("column size_bytes: '{cell}' is {what}; sizes are integers >= 1"),
            )
        })?;
        if size == 0 {
            return Err(ConfigError::new(
                &at,
                "column size_bytes: a flow must carry at least 1 byte",
            ));
        }
        if size > super::MAX_FLOW_BYTES {
            return Err(ConfigError::new(
                &at,
                format!(
                    "column size_bytes: {size} is more than the largest flow size, 1e15 bytes (1 PB)"
                ),
            ));
        }
        let start = seconds(k.start, "start_s")?;
        let deadline = match k.deadline.filter(|&d| !cells[d].is_empty()) {
            Some(d) => {
                if number(d, "deadline_s")? == 0.0 {
                    return Err(ConfigError::new(
                        &at,
                        "column deadline_s: must be > 0 (seconds after the flow's start), or empty",
                    ));
                }
                Some(seconds(d, "deadline_s")?)
            }
            None => c.deadline.as_ref().map(|d| d.sample(&mut dr)).transpose()?,
        };
        let weight = match k.weight.filter(|&w| !cells[w].is_empty()) {
            Some(w) => {
                let v = number(w, "weight")?;
                if v == 0.0 {
                    return Err(ConfigError::new(&at, "column weight: must be > 0"));
                }
                v
            }
            None => c.weight,
        };
        flows.push(FlowSpec {
            src,
            dst,
            size_bytes: size,
            start,
            deadline,
            weight,
        });
    }
    if cols.is_none() {
        return Err(ConfigError::new(
            name,
            "is empty: expected a header src,dst,size_bytes,start_s and one line per flow",
        ));
    }
    Ok(flows)
}
