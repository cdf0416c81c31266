//! Shared helpers of the integration tests: run a scenario given as TOML text.
#![allow(dead_code)]

use dcnsim::engine::Simulation;
use dcnsim::metrics::RunOutput;
use dcnsim::Format;
use std::path::Path;

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
