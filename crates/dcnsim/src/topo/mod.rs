//! Topology builders — PLACEHOLDER: the helper replaces the builders; the types stay.

use crate::error::{ConfigError, ConfigResult};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub kind: NodeKind,
    /// Unique, stable name used in scenario keys (failures) and outputs, e.g. `h3`, `tor1`.
    pub name: String,
}

/// Buffer of one egress queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferSize {
    Packets(u64),
    Bytes(u64),
}

/// A full-duplex link: one egress port at each end, same rate and delay both ways unless the
/// reverse direction is overridden.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub a: usize,
    pub b: usize,
    /// a → b direction.
    pub rate_ab: Rate,
    pub delay_ab: Time,
    /// b → a direction.
    pub rate_ba: Rate,
    pub delay_ba: Time,
    /// Buffer of each of the two egress queues.
    pub buffer: BufferSize,
}

/// A built topology: nodes, links, and the host order (host id i is node `hosts[i]`).
#[derive(Clone, Debug, PartialEq)]
pub struct TopoSpec {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    pub hosts: Vec<usize>,
    /// Host ids grouped by rack (the hosts under one edge switch), for group patterns.
    pub racks: Vec<Vec<u32>>,
    /// One line describing the layout, for `dcnsim list` and run logs.
    pub description: String,
}

/// The `[topology]` table.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TopologyConfig {
    pub kind: String,
    #[serde(default = "default_link_gbps")]
    pub link_gbps: f64,
    #[serde(default = "default_link_delay_us")]
    pub link_delay_us: f64,
    pub buffer_pkts: Option<u64>,
    pub buffer_kb: Option<f64>,
    pub hosts: Option<usize>,
    pub k: Option<usize>,
}

fn default_link_gbps() -> f64 {
    10.0
}
fn default_link_delay_us() -> f64 {
    1.0
}

pub const TOPOLOGIES: &[(&str, &str)] = &[("star", "N hosts on one switch")];

/// Builds the topology. Relative file paths (kind = "file") are resolved against `base_dir`,
/// the scenario file's folder.
pub fn build(cfg: &TopologyConfig, _base_dir: &std::path::Path) -> ConfigResult<TopoSpec> {
    Err(ConfigError::new(
        "topology.kind",
        format!("unknown topology '{}'", cfg.kind),
    ))
}
