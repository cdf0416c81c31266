//! # Workloads: which flows the simulation carries
//!
//! [`generate`] turns the `[workload]` table into a list of [`FlowSpec`]s sorted by start time
//! (ties keep generation order, which for flow files is file order). Every flow has
//! `src != dst` and host ids below `hosts.count`.
//!
//! ## Kinds
//!
//! | `kind` | what | keys (default) |
//! |---|---|---|
//! | `poisson` | Poisson arrivals at a target load | `sizes` ("websearch"), `load` (0.5), `flows` (1000), `pattern` ("random"), `src_group`, `dst_group`, `start_s` (0) |
//! | `flows` | an explicit CSV flow list | `file` (required) |
//! | `incast` | N senders → 1 receiver, in rounds | `senders` (required), `sizes` (required), `receiver` (random host), `start_s` (0), `rounds` (1), `interval_s` (required if rounds > 1) |
//! | `permutation` | every host sends one flow to its partner in a random derangement | `sizes` ("websearch"), `start_s` (0) |
//!
//! All kinds also take `deadline` (none), `weight` (1.0) and `abort_at_deadline` (false: when
//! true, the application gives up on a flow that has not finished by its deadline, whatever the
//! protocol — as MCP's evaluation has "each node abort its flows as soon as the flows fail to
//! meet deadlines"; the flow is then terminated, with `terminated_s` its deadline, and frees the
//! network: PDQ, D3, MERP and PACE send the TERM, FIN or TERMINATE their switches need to let
//! it go). A key that does not apply to the
//! chosen kind (or pattern, or size `dist`) is an error naming it, never silently ignored
//! (the keys of each kind and `dist` are declared in `keys.rs`).
//!
//! ## Sizes
//!
//! `sizes` is a built-in CDF name — `websearch`, `datamining`, `cachefollower`, `webserver`,
//! `hadoop` (see [`size_distributions`] and `cdf/README.md` for provenance) — or a table:
//! `{ dist = "pareto", mean_kb, shape, max_kb? }`, `{ dist = "exponential", mean_kb }`,
//! `{ dist = "uniform", min_kb, max_kb }`, `{ dist = "fixed", kb }`, `{ dist = "cdf", file }`
//! (a CDF file in the same format as the built-in ones, relative to the scenario's folder).
//! Every `*_kb` key has a `*_bytes` twin. **KB = 1000 bytes.** `size` is accepted as another
//! spelling of `sizes` (natural for incast: "the size of each sender's flow").
//!
//! * Empirical CDFs are sampled by inverse transform with *linear* interpolation between points,
//!   the convention of ns-2, YAPS and HPCC; a size repeated on two lines is a point mass and is
//!   kept (datamining: half the flows are exactly 1460 B). Their mean is the matching "linear"
//!   mean (websearch 1,665,831 B, datamining 7,470,236 B, cachefollower 712,574 B, webserver
//!   66,121 B, hadoop 120,421 B).
//! * Pareto: mean = α·x_m/(α−1), so x_m = mean·(α−1)/α is the smallest size; α > 1 is required.
//!   With `max_kb` it is a bounded Pareto on [x_m, max] and x_m is solved so the mean is still
//!   `mean_kb`.
//! * Every size is rounded to whole bytes and is at least 1 byte.
//!
//! ## Poisson arrivals and load
//!
//! Flows arrive as a Poisson process whose total rate is
//!
//! ```text
//! λ [flows/s] = load × senders × host_rate [bit/s] / (8 × mean size [bytes])
//! ```
//!
//! where `senders` is `hosts.count` for the `random` and `permutation` patterns and the size
//! of `src_group` for `group`: `load` is the fraction of each *sending* host's access link the
//! workload offers on average. The first flow arrives one exponential gap after `start_s`
//! (a proper Poisson process started at `start_s`, not a flow pinned at `start_s`), and exactly
//! `flows` flows are generated. Arrival times are summed in integer picoseconds; an arrival
//! after the simulation horizon (10⁶ s, [`crate::units`]) is refused, naming `load`.
//!
//! Patterns (`pattern`): `random` — src uniform over hosts, dst uniform over the other hosts;
//! `permutation` — one random derangement is drawn first, then each flow's src is uniform and
//! its dst is the src's partner; `group` — src uniform over `src_group`, dst uniform over
//! `dst_group` minus the src. A group is a rack index (an integer, into the topology's racks) or
//! a list of host ids; the groups may overlap.
//!
//! ## Incast and permutation
//!
//! `incast`: `senders` is a number N (N distinct hosts other than the receiver, chosen at
//! random) or a list of host ids; every sender starts one flow (size drawn from `sizes`) to
//! `receiver` at `start_s + r × interval_s` for each round r < `rounds`.
//! `permutation`: a random derangement (no host sends to itself, every host receives exactly one
//! flow); host i sends one flow to its partner at `start_s`.
//!
//! ## Limits
//!
//! Every time (`start_s`, `interval_s`, deadlines, the times of a flow file) is a finite
//! number within the simulation horizon, 10⁶ s ([`crate::units`]), and so is the start of
//! the last incast round; a deadline drawn from an exponential beyond the horizon is refused
//! (naming `deadline.mean_ms`) rather than clamped. Sizes are at most [`MAX_FLOW_BYTES`]
//! (10¹⁵ B), given or drawn (a draw of a heavy tail beyond it names `sizes`).
//!
//! ## Flow files
//!
//! `kind = "flows"`, `file = "flows.csv"` (relative to the scenario's folder): a CSV file with a
//! header naming the columns `src,dst,size_bytes,start_s` in any order, plus optional
//! `deadline_s` (seconds after the flow's start) and `weight`. Empty optional cells, and
//! missing optional columns, fall back to the `deadline` and `weight` keys. Blank lines and lines
//! starting with `#` are skipped. Errors name `FILE line N` and the column.
//!
//! ## Deadlines and weights
//!
//! `deadline` (relative to each flow's start, in milliseconds, fractions allowed: 0.5 = 500 µs):
//! `{ dist = "fixed", ms }`, `{ dist = "uniform", min_ms, max_ms }`, or
//! `{ dist = "exponential", mean_ms, min_ms? }` — a shifted exponential min_ms + Exp, whose mean
//! is `mean_ms` (min_ms defaults to 0). `weight` (> 0, default 1.0) is every flow's weight.
//!
//! ## Randomness
//!
//! Everything is drawn from named streams of the scenario seed (see [`crate::rng`]), each
//! consumed in flow-generation order: `workload.sizes` (one draw per flow size),
//! `workload.arrivals` (one draw per inter-arrival gap), `workload.pairs` (the permutation, the
//! incast senders and receiver, each flow's endpoints) and `workload.deadlines`. So the same seed
//! gives identical flows, and changing `load` moves only the arrival times: sizes and endpoints
//! stay the same, flow by flow. Sampling uses inverse transforms of one uniform draw each,
//! written here rather than taken from `rand_distr` so the flows of a seed do not depend on the
//! version of a sampling library.

mod cdf;
mod flowfile;
mod generators;
mod keys;
mod sizes;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_kinds;

pub use cdf::EmpiricalCdf;
pub use sizes::{builtin_cdf, size_distributions, SizeDist, SizeSpec, SizeTable, MAX_FLOW_BYTES};

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

/// `workload.flows` of a Poisson workload when the scenario leaves it out.
pub const DEFAULT_FLOWS: u64 = 1000;
/// `workload.load` of a Poisson workload when the scenario leaves it out.
pub const DEFAULT_LOAD: f64 = 0.5;
/// `workload.rounds` of an incast when the scenario leaves it out.
pub const DEFAULT_ROUNDS: u32 = 1;

/// The `[workload]` table. Only `kind` is always required; see the module doc for which keys
/// each kind takes and their defaults.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    /// poisson | flows | incast | permutation
    pub kind: String,
    /// Flow-size distribution: a built-in name or a `{ dist = ... }` table.
    #[serde(default, alias = "size", skip_serializing_if = "Option::is_none")]
    pub sizes: Option<SizeSpec>,
    /// Offered load, a fraction of each sending host's link rate (poisson).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// Number of flows (poisson).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u64>,
    /// random | permutation | group (poisson).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Sending hosts of `pattern = "group"`: a rack index or a list of host ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src_group: Option<IntOrList>,
    /// Receiving hosts of `pattern = "group"`: a rack index or a list of host ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst_group: Option<IntOrList>,
    /// When the workload starts, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_s: Option<f64>,
    /// CSV flow list (kind = "flows"), relative to the scenario's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Incast senders: how many (chosen at random), or a list of host ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub senders: Option<IntOrList>,
    /// Incast receiver host id (default: a random host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<u32>,
    /// Incast rounds (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// Time between incast rounds, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_s: Option<f64>,
    /// Deadline distribution, relative to each flow's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<DeadlineSpec>,
    /// Weight of every flow (default 1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// The application ends a flow that missed its deadline (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_at_deadline: Option<bool>,
}

/// A key that is either one integer or a list of host ids (`senders`, `src_group`,
/// `dst_group`); what the integer means depends on the key.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum IntOrList {
    Int(u32),
    List(Vec<u32>),
}

impl<'de> Deserialize<'de> for IntOrList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        if let Some(n) = v.as_u64() {
            return u32::try_from(n)
                .map(IntOrList::Int)
                .map_err(|_| D::Error::custom(format!("{n} is too large")));
        }
        serde_json::from_value::<Vec<u32>>(v.clone())
            .map(IntOrList::List)
            .map_err(|_| {
                D::Error::custom(format!(
                    "expected a non-negative integer or a list of host ids, got {v}"
                ))
            })
    }
}

/// The `deadline` table, in milliseconds relative to each flow's start.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DeadlineSpec {
    /// fixed | uniform | exponential
    pub dist: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_ms: Option<f64>,
}

/// The workload kinds, with one-line descriptions.
pub const WORKLOADS: &[(&str, &str)] = &[
    (
        "poisson",
        "Poisson arrivals at a target load; random, permutation or group-to-group pairs",
    ),
    (
        "flows",
        "explicit flow list from a CSV file (src,dst,size_bytes,start_s[,deadline_s][,weight])",
    ),
    (
        "incast",
        "N senders to one receiver at the same time, optionally in repeated rounds",
    ),
    (
        "permutation",
        "every host sends one flow to its partner in a random derangement",
    ),
];

/// The hosts a Poisson workload's λ counts as senders (`None` for other kinds): the
/// denominator of its nominal load ([`crate::metrics::load`]).
pub fn poisson_senders(cfg: &WorkloadConfig, hosts: &HostInfo) -> Option<usize> {
    generators::poisson_senders(cfg, hosts)
}

/// Generates the flows of the scenario, sorted by start time. `seed` is the scenario seed; the
/// generator draws from its own named streams.
/// Relative file paths (kind = "flows") are resolved against `base_dir`, the scenario's folder.
pub fn generate(
    cfg: &WorkloadConfig,
    hosts: &HostInfo,
    seed: u64,
    base_dir: &std::path::Path,
) -> ConfigResult<Vec<FlowSpec>> {
    keys::kind::check(cfg, "workload").unwrap_or_else(|| {
        let valid: Vec<&str> = WORKLOADS.iter().map(|w| w.0).collect();
        Err(ConfigError::new(
            "workload.kind",
            format!(
                "unknown workload '{}'; valid kinds are {}",
                cfg.kind,
                valid.join(", ")
            ),
        ))
    })?;
    if hosts.count < 2 {
        return Err(ConfigError::new(
            "workload",
            format!(
                "a workload needs at least 2 hosts, the topology has {}",
                hosts.count
            ),
        ));
    }
    let common = generators::Common::new(cfg, seed)?;
    let mut flows = match cfg.kind.as_str() {
        "poisson" => generators::poisson(cfg, hosts, &common, base_dir)?,
        "incast" => generators::incast(cfg, hosts, &common, base_dir)?,
        "permutation" => generators::permutation(cfg, hosts, &common, base_dir)?,
        _ => flowfile::load(cfg, hosts, &common, base_dir)?,
    };
    // Stable: equal start times keep generation (file) order.
    flows.sort_by_key(|f| f.start);
    debug_assert!(flows
        .iter()
        .all(|f| f.src != f.dst && f.src < hosts.count && f.dst < hosts.count));
    Ok(flows)
}
