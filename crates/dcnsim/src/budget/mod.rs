//! # The memory budget: a run that cannot fit is refused before it allocates
//!
//! [`crate::run::prepare_within`] estimates what a run will hold from the scenario it has
//! resolved, and refuses it with a [`ConfigError`] when the estimate passes the **budget**:
//! the error names the key that drives the largest part (`workload.flows`, `topology.k`,
//! `output.series_interval_us`, …), and gives the estimate, its largest parts and the budget.
//! It checks three times: before a generated topology is built, when the slices of its
//! routing tables alone would pass the budget ([`check_before_topology`], from the kind's
//! keys); once the topology is built and before anything sized by it or by the flow count is
//! allocated ([`check_before_flows`]; the flow count then comes from the workload's keys);
//! and once the flows are generated (their real count, sizes and start times). `validate`
//! applies the same checks, so it refuses what `run` would refuse.
//!
//! ## The budget
//!
//! By default, the memory the machine has available when the run is prepared:
//! `MemAvailable` of `/proc/meminfo`, or less when the process's cgroup (a container) leaves
//! less; where neither can be read, [`ASSUMED_BYTES`]. A caller gives another one with
//! [`Budget::parse`]: bytes, a number with a unit (`500M`, `8G`, `1.5GiB`; K, M, G, T are
//! powers of 1000, KiB, MiB, GiB, TiB of 1024) or `unlimited` (no check at all: a run that does
//! not fit then dies when an allocation fails). The front ends spell it `--max-memory` (`dcnsim
//! run`, `validate`, `sweep`, and `dcnsim-core`) and `max_memory=` in Python.
//!
//! ## The estimate
//!
//! What every run holds, from the resolved scenario ([`estimate`]):
//!
//! * the topology and the network: per node, per link and per port, from the records' sizes;
//! * the routing tables: a (start, len) slice per (destination class, node) and every
//!   next-hop entry, counted by searching a few classes ([`RoutingTable::size_of`](crate::net::routing::RoutingTable::size_of)); twice
//!   that when links fail (the tables are recomputed while the old ones still serve);
//! * the path choice's state ([`LbParams::state_bytes`](crate::lb::LbParams::state_bytes)): DRILL's per (node, host) memory,
//!   CONGA's and TR's per pair of leaves, the per-flow records of the flowlet schemes;
//! * per flow, the transport's [`FlowMemory::per_flow`](crate::protocols::FlowMemory::per_flow) at packet level or [`FLUID_FLOW_BYTES`]
//!   at flow level (its spec, its state, its record and its line of `flows.csv`), measured;
//! * the endpoints of the flows that hold them at once, as the transport's
//!   [`FlowMemory::at_once`](crate::protocols::FlowMemory::at_once) says (packet level): most count the flows certainly active (a
//!   flow is active at least from its start for its size at its host's line rate); under PDQ,
//!   M-PDQ and MERP every started flow counts, because their links hold every started flow
//!   paused until its turn, for as long as the protocol's pace makes it wait, which no bound
//!   from the flows alone gives (a ceiling there);
//! * the time series: [`SERIES_ROW_BYTES`] per row, a row per port and per switch port at
//!   every sample up to when the last flow can at the earliest end (or `stop_s`);
//! * the packet trace: two rows per data segment of each traced flow, [`TRACE_ROW_BYTES`] each;
//! * with `output.paths`, per flow a row of `paths.csv` and an entry of its crossed ports per
//!   link of a shortest path between hosts ([`NetworkFacts::hops`]).
//!
//! What the estimate cannot know in advance — packets in queues, flows that stay active
//! longer than at line rate, samples after the flows have ended early — is watched during
//! the run: the series never grow past what the budget leaves them (checked before every
//! sample), and the run's resident memory is compared with the budget at every progress
//! report (about every 200 ms of wall time). A run that passes it stops with the same kind of
//! error ([`crate::run::RunError::Memory`]), and no result directory is written.
//!
//! Calibration (peak RSS of `dcnsim-core`, `/usr/bin/time -v`, against the estimate): the
//! table in the manual (`docs/performance.md`, "Memory budget"). On those runs — routing tables of fat-trees,
//! leaf-spines, Jellyfish and BCube, 10⁶ flows at packet and flow level, incasts of 150 000
//! flows, fine series — the estimate is within −2 % … +23 % of the peak. Under packet-level
//! PDQ, M-PDQ and MERP, where every flow counts as held at once, it is a ceiling: near the
//! peak when the flows pile up, above it when they hardly overlap.
mod estimate;
#[cfg(test)]
mod tests;

pub use estimate::{
    check_before_flows, check_before_topology, estimate, flows_from_keys, Estimate, Flows,
    NetworkFacts, Part, BASE_BYTES, FLUID_FLOW_BYTES, SERIES_ROW_BYTES, TRACE_ROW_BYTES,
};

use crate::error::ConfigError;
use crate::units::{human, Time};
use estimate::{advice, LARGER_BUDGET, SERIES_KEY};
use std::fmt;

/// The budget assumed where the memory available cannot be read.
pub const ASSUMED_BYTES: u64 = 8_000_000_000;

/// How much memory a run may use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// `None`: unlimited.
    bytes: Option<u64>,
    origin: Origin,
}

/// Where a [`Budget`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The caller gave it.
    Given,
    /// The memory available on the machine (or in the cgroup) when the run was prepared.
    Available,
    /// The available memory could not be read: [`ASSUMED_BYTES`].
    Assumed,
    /// An equal share of a budget of `total` bytes among `by` runs that run side by side (a
    /// sweep's workers): together they stay within it.
    Shared { total: u64, by: u32 },
}

impl Budget {
    /// The memory available now ([`available_bytes`]), else [`ASSUMED_BYTES`].
    pub fn machine() -> Budget {
        match available_bytes() {
            Some(b) => Budget {
                bytes: Some(b),
                origin: Origin::Available,
            },
            None => Budget {
                bytes: Some(ASSUMED_BYTES),
                origin: Origin::Assumed,
            },
        }
    }

    /// A budget of `bytes`.
    pub fn given(bytes: u64) -> Budget {
        Budget {
            bytes: Some(bytes),
            origin: Origin::Given,
        }
    }

    /// No budget: nothing is checked.
    pub fn unlimited() -> Budget {
        Budget {
            bytes: None,
            origin: Origin::Given,
        }
    }

    /// `unlimited`, or a size ([`parse_bytes`]).
    pub fn parse(text: &str) -> Result<Budget, String> {
        if text.trim().eq_ignore_ascii_case("unlimited") {
            return Ok(Budget::unlimited());
        }
        parse_bytes(text).map(Budget::given)
    }

    /// Each one's share of this budget when `by` runs go side by side: a `by`-th of it (at
    /// least a byte); the budget itself when `by` is 1, unlimited when it is unlimited.
    pub fn shared_by(self, by: u32) -> Budget {
        match self.bytes {
            Some(total) if by > 1 => Budget {
                bytes: Some((total / by as u64).max(1)),
                origin: Origin::Shared { total, by },
            },
            _ => self,
        }
    }

    /// The budget in bytes; `None` when unlimited.
    pub fn bytes(&self) -> Option<u64> {
        self.bytes
    }

    pub fn origin(&self) -> Origin {
        self.origin
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.bytes, self.origin) {
            (None, _) => write!(f, "unlimited"),
            (Some(b), Origin::Given) => write!(f, "{} (given)", human(b as f64)),
            (Some(b), Origin::Available) => write!(f, "{} (the memory available)", human(b as f64)),
            (Some(b), Origin::Assumed) => write!(
                f,
                "{} (assumed: the memory available could not be read)",
                human(b as f64)
            ),
            (Some(b), Origin::Shared { total, by }) => write!(
                f,
                "{} (1/{by} of the sweep's {}: {by} points run side by side, each with an \
                 equal share; fewer workers give each more)",
                human(b as f64),
                human(total as f64)
            ),
        }
    }
}

/// A size in bytes: an integer, or a number with a unit — `k`, `M`, `G`, `T` (powers of 1000,
/// with or without a trailing `B`) or `KiB`, `MiB`, `GiB`, `TiB` (powers of 1024); case does
/// not matter. At least one byte.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim().to_ascii_lowercase();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '+' || c == '_'))
        .unwrap_or(t.len());
    // `e` and `+` stay with the number (an exponent: `2e9`, `1e+9`): no unit begins with
    // them, so the unit that follows is never cut short.
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let scale = match unit {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024f64.powi(2),
        "gib" => 1024f64.powi(3),
        "tib" => 1024f64.powi(4),
        _ => f64::NAN,
    };
    let value = num.replace('_', "").parse::<f64>().unwrap_or(f64::NAN) * scale;
    if !(value.is_finite() && value >= 1.0 && value < u64::MAX as f64) {
        return Err(format!(
            "'{text}' is not a memory size: give bytes (8000000000), a number with a unit \
             (500M, 8G, 1.5GiB; K, M, G, T are powers of 1000, KiB, MiB, GiB, TiB of 1024), or \
             'unlimited'"
        ));
    }
    Ok(value.round() as u64)
}

/// The memory available to this process now: `MemAvailable` of `/proc/meminfo`, or what the
/// process's cgroup (v2 `memory.max`, v1 `memory.limit_in_bytes`) leaves, whichever is
/// smaller; `None` where none can be read (not Linux).
pub fn available_bytes() -> Option<u64> {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let number = |s: Option<String>| s.and_then(|s| s.trim().parse::<u64>().ok());
    let meminfo = read("/proc/meminfo").and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("MemAvailable:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    let v2 = number(read("/sys/fs/cgroup/memory.max"))
        .map(|max| max.saturating_sub(number(read("/sys/fs/cgroup/memory.current")).unwrap_or(0)));
    let v1 = number(read("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
        .filter(|&limit| limit < 1 << 60)
        .map(|limit| {
            limit.saturating_sub(
                number(read("/sys/fs/cgroup/memory/memory.usage_in_bytes")).unwrap_or(0),
            )
        });
    [meminfo, v2, v1].into_iter().flatten().min()
}

/// The resident memory of this process now (`VmRSS` of `/proc/self/status`); `None` where it
/// cannot be read.
pub fn resident_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = s
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kb * 1024)
}

/// What [`crate::run::prepare_within`] found: the budget, the estimate of the prepared run,
/// and the process's resident memory before it began (for the checks during the run).
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryPlan {
    pub budget: Budget,
    pub estimate: Estimate,
    pub resident_before: Option<u64>,
}

impl MemoryPlan {
    /// No budget, no estimate (for runs built by hand).
    pub fn unlimited() -> MemoryPlan {
        MemoryPlan {
            budget: Budget::unlimited(),
            estimate: Estimate::default(),
            resident_before: None,
        }
    }

    /// Bytes the time series may take: what the budget leaves beside the rest of the
    /// estimate.
    pub fn series_room(&self) -> u64 {
        match self.budget.bytes() {
            None => u64::MAX,
            Some(b) => (b as f64 - self.rest()).max(0.0) as u64,
        }
    }

    /// The estimate without the series.
    fn rest(&self) -> f64 {
        self.estimate.total() - self.estimate.series_bytes()
    }

    /// The resident memory above which the run stops: the budget above what the process held
    /// before the run was prepared. `None`: unlimited, or not measurable here.
    pub fn resident_limit(&self) -> Option<u64> {
        Some(self.budget.bytes()?.saturating_add(self.resident_before?))
    }

    /// The error of a run whose series, of `rows` rows, would take `bytes` with the sample
    /// due at `now`, more than their share of the budget.
    pub fn series_error(&self, rows: usize, bytes: usize, now: Time) -> ConfigError {
        ConfigError::new(
            SERIES_KEY,
            format!(
                "the time series would pass the memory budget of {} at {:.6} s of simulated \
                 time ({} rows so far, {} with the next sample, beside an estimate of {} for \
                 the rest of the run); sample less often (a larger series_interval_us), stop \
                 earlier (stop_s), or {LARGER_BUDGET}",
                self.budget,
                now.as_secs_f64(),
                rows,
                human(bytes as f64),
                human(self.rest()),
            ),
        )
    }

    /// The error of a run whose resident memory passed the budget at `now`.
    pub fn resident_error(&self, resident: u64, now: Time) -> ConfigError {
        let key = self
            .estimate
            .parts
            .iter()
            .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
            .map_or("", |p| p.key.as_str());
        ConfigError::new(
            key,
            format!(
                "the run passed its memory budget of {} at {:.6} s of simulated time ({} \
                 resident, {} before the run; estimated in advance: {}): packets in queues, \
                 flows active at once or the series took more than the estimate; {} or stop \
                 earlier (stop_s), or {LARGER_BUDGET}",
                self.budget,
                now.as_secs_f64(),
                human(resident as f64),
                human(self.resident_before.unwrap_or(0) as f64),
                human(self.estimate.total()),
                advice(key),
            ),
        )
    }
}
