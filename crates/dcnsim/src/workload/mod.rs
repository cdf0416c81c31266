//! Workloads — PLACEHOLDER: the helper replaces the generators; `FlowSpec` and the signature stay.

use crate::error::{ConfigError, ConfigResult};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

/// One flow to simulate, as the workload generates it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub src: u32,
    pub dst: u32,
    /// Application payload bytes.
    pub size_bytes: u64,
    pub start: Time,
    /// Deadline relative to `start`.
    pub deadline: Option<Time>,
    pub weight: f64,
}

/// What the workload needs to know of the network.
#[derive(Clone, Debug)]
pub struct HostInfo {
    pub count: u32,
    /// Rate of each host's access link (load is a fraction of it).
    pub host_rate: Rate,
    pub racks: Vec<Vec<u32>>,
}

/// The `[workload]` table.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    pub kind: String,
}

pub const WORKLOADS: &[(&str, &str)] = &[("poisson", "Poisson arrivals at a target load")];

/// Generates the flows of the scenario, sorted by start time. `seed` is the scenario seed; the
/// generator draws from its own named streams.
/// Relative file paths (kind = "flows") are resolved against `base_dir`, the scenario's folder.
pub fn generate(
    cfg: &WorkloadConfig,
    _hosts: &HostInfo,
    _seed: u64,
    _base_dir: &std::path::Path,
) -> ConfigResult<Vec<FlowSpec>> {
    Err(ConfigError::new(
        "workload.kind",
        format!("unknown workload '{}'", cfg.kind),
    ))
}

/// Built-in size distributions (name, description).
pub fn size_distributions() -> &'static [(&'static str, &'static str)] {
    &[]
}
