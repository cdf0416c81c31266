//! Shared helpers of the integration tests: run a scenario given as TOML text.
#![allow(dead_code)]

use dcnsim::budget::Budget;
use dcnsim::engine::{Prepared, Simulation};
use dcnsim::error::ConfigError;
use dcnsim::metrics::RunOutput;
use dcnsim::Format;
use std::path::Path;

/// Prepares `text` with `overrides` (`key.path=value`), its files relative to `base`, within
/// the machine's memory.
pub fn try_prepare(text: &str, overrides: &[&str], base: &Path) -> Result<Prepared, ConfigError> {
    try_prepare_within(text, overrides, base, &Budget::machine())
}

/// [`try_prepare`] within `budget`.
pub fn try_prepare_within(
    text: &str,
    overrides: &[&str],
    base: &Path,
    budget: &Budget,
) -> Result<Prepared, ConfigError> {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    dcnsim::prepare_text_within(text, Format::Toml, &o, base, budget)
}

/// Prepares and runs `text` with `overrides` under the engine it names (packet or flow).
pub fn run_any(text: &str, overrides: &[&str], base: &Path) -> RunOutput {
    let p = try_prepare(text, overrides, base).expect("scenario is valid");
    dcnsim::run_prepared(p, &mut |_| true).expect("run completes")
}

pub fn run_toml(text: &str, overrides: &[&str]) -> RunOutput {
    run_in(text, overrides, Path::new("."))
}

pub fn run_in(text: &str, overrides: &[&str], base: &Path) -> RunOutput {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let prepared =
        dcnsim::prepare_text(text, Format::Toml, &overrides, base).expect("scenario is valid");
    Simulation::new(prepared)
        .run(&mut |_| true)
        .expect("run completes")
}

/// Writes a flow file into a fresh temporary folder and returns the folder.
pub fn flow_dir(name: &str, csv: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dcnsim-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("flows.csv"), csv).unwrap();
    dir
}

/// A star of `hosts` hosts at `gbps` with 1 µs links, running `protocol` with the extra
/// `[transport]` lines `extra`, on the flows of `flows.csv` beside the scenario (see
/// [`flow_dir`]).
pub fn star_with_flow_file(hosts: u32, gbps: u32, protocol: &str, extra: &str) -> String {
    format!(
        r#"
[topology]
kind = "star"
hosts = {hosts}
link_gbps = {gbps}
link_delay_us = 1
[transport]
protocol = "{protocol}"
{extra}
[workload]
kind = "flows"
file = "flows.csv"
"#
    )
}
