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
//!   next-hop entry, counted by searching a few classes ([`RoutingTable::size_of`]); twice
//!   that when links fail (the tables are recomputed while the old ones still serve);
//! * the path choice's state ([`LbParams::state_bytes`]): DRILL's per (node, host) memory,
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
//! table in the README ("Memory budget"). On those runs — routing tables of fat-trees,
//! leaf-spines, Jellyfish and BCube, 10⁶ flows at packet and flow level, incasts of 150 000
//! flows, fine series — the estimate is within −2 % … +23 % of the peak. Under packet-level
//! PDQ, M-PDQ and MERP, where every flow counts as held at once, it is a ceiling: near the
//! peak when the flows pile up, above it when they hardly overlap.

use crate::config::{Engine, Scenario};
use crate::error::{ConfigError, ConfigResult};
use crate::lb::LbParams;
use crate::net::network::{Node, Port};
use crate::net::routing::{Graph, RoutingTable, TableSize};
use crate::net::{NodeIdx, PortIdx};
use crate::protocols::{AtOnce, Transport};
use crate::topo::{LinkSpec, NodeKind, NodeSpec, TopoSpec};
use crate::units::Time;
use crate::workload::{FlowSpec, IntOrList};
use std::fmt;

/// The budget assumed where the memory available cannot be read.
pub const ASSUMED_BYTES: u64 = 8_000_000_000;
/// What every run holds besides the parts below (code, allocator, I/O buffers), measured.
pub const BASE_BYTES: f64 = 4e6;
/// Per flow at flow level (≈ 400–460 B measured over 10⁵–10⁶ flows), with a margin.
pub const FLUID_FLOW_BYTES: f64 = 480.0;
/// Per row of the time series: 21 bytes in four columns, and half as much again for their
/// growth (on average; the run checks the exact capacity before every sample). The columns
/// that `dcnsim.run` makes of them in Python take about 60 bytes per row more.
pub const SERIES_ROW_BYTES: f64 = 32.0;
/// Per row of the packet trace (48 bytes), with room for the column's growth.
pub const TRACE_ROW_BYTES: f64 = 72.0;
/// How much longer than their length the routing table's entries may be while they grow.
const ENTRIES_GROWTH: f64 = 1.5;
/// Classes searched to count the routing table's entries.
const ROUTING_SAMPLES: usize = 8;

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

/// Bytes as people read them: `12.3 GB` (powers of 1000, as the scenario's KB).
pub fn human(bytes: f64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB", "PB"];
    let mut v = bytes;
    let mut i = 0;
    while v >= 1000.0 && i + 1 < units.len() {
        v /= 1000.0;
        i += 1;
    }
    match (i, v) {
        (0, _) => format!("{v:.0} B"),
        (_, v) if v >= 1e4 => format!("{v:.2e} {}", units[i]),
        (_, v) if v >= 100.0 => format!("{v:.0} {}", units[i]),
        _ => format!("{v:.1} {}", units[i]),
    }
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

/// One part of an [`Estimate`]: what it is, its bytes, and the key that drives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub what: String,
    pub bytes: f64,
    pub key: String,
}

/// What a run is estimated to hold, part by part.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    pub parts: Vec<Part>,
}

impl Estimate {
    /// Every part together, and what every run holds.
    pub fn total(&self) -> f64 {
        BASE_BYTES + self.parts.iter().map(|p| p.bytes).sum::<f64>()
    }

    /// The part that the time series take.
    pub fn series_bytes(&self) -> f64 {
        self.parts
            .iter()
            .filter(|p| p.key == SERIES_KEY)
            .map(|p| p.bytes)
            .sum()
    }

    fn push(&mut self, what: String, bytes: f64, key: &str) {
        if bytes > 0.0 {
            self.parts.push(Part {
                what,
                bytes,
                key: key.to_string(),
            });
        }
    }

    /// Refuses the run when the estimate passes the budget, naming the key of the largest
    /// part and giving the estimate, its largest parts and the budget.
    pub fn check(&self, budget: &Budget) -> ConfigResult<()> {
        let Some(limit) = budget.bytes() else {
            return Ok(());
        };
        let total = self.total();
        if total <= limit as f64 {
            return Ok(());
        }
        let mut parts: Vec<&Part> = self.parts.iter().collect();
        parts.sort_by(|a, b| b.bytes.total_cmp(&a.bytes));
        let key = parts.first().map_or("", |p| p.key.as_str()).to_string();
        let largest: Vec<String> = parts
            .iter()
            .take(3)
            .map(|p| format!("{} {}", p.what, human(p.bytes)))
            .collect();
        Err(ConfigError::new(
            key.clone(),
            format!(
                "the run would need about {} of memory (estimate; largest parts: {}), more \
                 than the budget of {budget}; {}, or {LARGER_BUDGET} if the machine has it",
                human(total),
                largest.join(", "),
                advice(&key),
            ),
        ))
    }
}

/// What to change when the part that `key` drives is too large.
fn advice(key: &str) -> String {
    match key {
        SERIES_KEY => "sample less often (a larger output.series_interval_us) or stop earlier \
                       (stop_s)"
            .into(),
        "output.trace_flow" => "trace fewer or shorter flows (output.trace_flow), or none".into(),
        PATHS_KEY => "turn output.paths off".into(),
        "routing.lb" => "choose another routing.lb, or a smaller topology".into(),
        "workload.file" => "split the flow file into several runs".into(),
        _ => format!("make {key} smaller"),
    }
}

/// How a user sets a larger budget, in every message that refuses a run for its memory.
const LARGER_BUDGET: &str =
    "set a larger budget (--max-memory of the dcnsim command, or max_memory in Python)";

/// The key of the series' part.
const SERIES_KEY: &str = "output.series_interval_us";
/// The key of the paths' part.
const PATHS_KEY: &str = "output.paths";

/// What the estimate needs of a topology, measured once per scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkFacts {
    pub nodes: usize,
    pub links: usize,
    pub hosts: usize,
    /// Egress ports of switches (they have a queue series).
    pub switch_ports: usize,
    /// Switches that at least one host links to (the leaves between which CONGA and TR keep
    /// per-pair state).
    pub leaves: usize,
    /// The most links of any one switch, leaf or not (its egress ports); 1 when there is no
    /// switch. The path choices size their per-path state from it.
    pub width: usize,
    /// The fastest host link, bit/s.
    pub host_bps: u64,
    /// The most links on a shortest path from the first host to another host (0 without
    /// hosts): the ports a flow on one path crosses.
    pub hops: usize,
    pub routing: TableSize,
    /// Bytes of node names.
    pub name_bytes: usize,
}

impl NetworkFacts {
    /// Counts nodes, links and ports, and sizes the routing tables by searching a few
    /// destination classes (memory: about the graph's adjacency; time: a few searches, none
    /// when the tables' slices alone pass `limit` bytes).
    pub fn of(topo: &TopoSpec, limit: Option<u64>) -> NetworkFacts {
        let n = topo.nodes.len();
        let mut adjacency: Vec<Vec<(PortIdx, NodeIdx, bool)>> = vec![Vec::new(); n];
        for (i, l) in topo.links.iter().enumerate() {
            adjacency[l.a].push((2 * i as PortIdx, l.b as NodeIdx, true));
            adjacency[l.b].push((2 * i as PortIdx + 1, l.a as NodeIdx, true));
        }
        let is_host: Vec<bool> = topo
            .nodes
            .iter()
            .map(|x| x.kind == NodeKind::Host)
            .collect();
        let hosts: Vec<NodeIdx> = topo.hosts.iter().map(|&h| h as NodeIdx).collect();
        let routing = RoutingTable::size_of(
            &Graph {
                adjacency: &adjacency,
                hosts: &hosts,
                is_host: &is_host,
                hosts_relay: topo.hosts_relay,
            },
            |classes| {
                let slices = classes as f64 * n as f64 * 8.0;
                if limit.is_some_and(|l| slices > l as f64) {
                    0
                } else {
                    ROUTING_SAMPLES
                }
            },
        );
        let switch_ports = adjacency
            .iter()
            .zip(&is_host)
            .filter(|(_, &h)| !h)
            .map(|(a, _)| a.len())
            .sum();
        let width = adjacency
            .iter()
            .zip(&is_host)
            .filter(|(_, &h)| !h)
            .map(|(a, _)| a.len())
            .max()
            .unwrap_or(1);
        let mut leaf = vec![false; n];
        let mut host_bps = 0;
        for l in &topo.links {
            for (from, to, rate) in [(l.a, l.b, l.rate_ab), (l.b, l.a, l.rate_ba)] {
                if is_host[from] {
                    host_bps = host_bps.max(rate.bits_per_sec());
                    if !is_host[to] {
                        leaf[to] = true;
                    }
                }
            }
        }
        NetworkFacts {
            hops: host_hops(&adjacency, &topo.hosts, &is_host),
            nodes: n,
            links: topo.links.len(),
            hosts: topo.hosts.len(),
            switch_ports,
            leaves: leaf.iter().filter(|&&x| x).count(),
            width,
            host_bps,
            routing,
            name_bytes: topo.nodes.iter().map(|x| x.name.len().max(16)).sum(),
        }
    }
}

/// The most links from the first host to another host along shortest paths (a breadth-first
/// search; on the symmetric layouts every host sees the same).
fn host_hops(
    adjacency: &[Vec<(PortIdx, NodeIdx, bool)>],
    hosts: &[usize],
    is_host: &[bool],
) -> usize {
    let Some(&first) = hosts.first() else {
        return 0;
    };
    let mut dist = vec![usize::MAX; adjacency.len()];
    let mut queue = std::collections::VecDeque::from([first]);
    dist[first] = 0;
    let mut most = 0;
    while let Some(u) = queue.pop_front() {
        if is_host[u] {
            most = most.max(dist[u]);
        }
        for &(_, v, _) in &adjacency[u] {
            let v = v as usize;
            if dist[v] == usize::MAX {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
    most
}

/// The flows an estimate counts: those the workload's keys promise (before they are
/// generated), or the generated ones.
#[derive(Clone, Copy, Debug)]
pub enum Flows<'a> {
    FromKeys,
    Generated(&'a [FlowSpec]),
}

/// The estimate of a run of `s` on a topology of `facts` (see the module doc for what it counts).
pub fn estimate(
    s: &Scenario,
    facts: &NetworkFacts,
    transport: &Transport,
    flows: Flows,
) -> Estimate {
    let mut e = Estimate::default();
    let topo_key = topology_key(s);
    let (nodes, links, hosts) = (facts.nodes as f64, facts.links as f64, facts.hosts as f64);
    let ports = 2.0 * links;
    let size = std::mem::size_of::<usize>() as f64;
    // The spec (nodes, names, links, host order), the network (nodes, their port lists,
    // ports), the routing search's graph, and the port table of the output.
    // Per node: its records, and the lists of its ports (the network's, the routing search's
    // two), each a small allocation of its own.
    let per_node =
        std::mem::size_of::<NodeSpec>() + std::mem::size_of::<Node>() + 3 * (24 + 32) + 80;
    let per_port = std::mem::size_of::<Port>()
        + std::mem::size_of::<crate::metrics::PortInfo>()
        + 4 * 4
        + 12
        + 8;
    e.push(
        format!("topology ({} nodes, {} links)", facts.nodes, facts.links),
        nodes * per_node as f64
            + 2.0 * facts.name_bytes as f64
            + links * (std::mem::size_of::<LinkSpec>() as f64 + size)
            + ports * per_port as f64
            + hosts * 3.0 * size,
        &topo_key,
    );
    let failures = if s.failures.is_empty() { 1.0 } else { 2.0 };
    e.push(
        format!(
            "routing tables ({} destination classes × {} nodes)",
            facts.routing.classes, facts.routing.nodes
        ),
        facts.routing.bytes(ENTRIES_GROWTH) * failures,
        &topo_key,
    );
    let (count, flow_key) = match flows {
        Flows::Generated(f) => (Some(f.len() as f64), flow_key(s, &topo_key, facts.hosts).1),
        Flows::FromKeys => flow_key(s, &topo_key, facts.hosts),
    };
    let count = count.unwrap_or(0.0);
    if let Ok(lb) = LbParams::from_config(&s.routing) {
        let bytes = lb.state_bytes(
            nodes,
            hosts,
            ports,
            facts.leaves as f64,
            facts.width as f64,
            count,
        );
        let key = if count > 0.0 && bytes > 8.0 * nodes + 100.0 * count {
            flow_key.clone()
        } else {
            "routing.lb".to_string()
        };
        e.push(format!("path choice ({})", s.routing.lb), bytes, &key);
    }
    let memory = transport.caps().memory;
    let per_flow = match s.engine {
        Engine::Packet => memory.per_flow,
        Engine::Flow => FLUID_FLOW_BYTES,
    };
    e.push(
        format!("flows ({})", count_text(count)),
        count * per_flow,
        &flow_key,
    );
    if s.output.paths {
        // Per flow, a row per port crossed, and at packet level its list of crossed ports (a
        // port and a count each); a flow sprayed over several paths crosses more.
        let per_hop =
            std::mem::size_of::<crate::metrics::PathHop>() + std::mem::size_of::<(PortIdx, u32)>();
        e.push(
            format!("paths ({} ports per flow)", facts.hops),
            count * (24.0 + (facts.hops * per_hop) as f64),
            PATHS_KEY,
        );
    }
    let Flows::Generated(flows) = flows else {
        return e;
    };
    // Only the flows that start by `stop_s` are ever active or held (sorted by start).
    let started = match s.stop_s {
        Some(stop) => &flows[..flows.partition_point(|f| f.start <= Time::from_secs_f64(stop))],
        None => flows,
    };
    let (active, busy_until) = certainly_active(started, facts.host_bps);
    match (s.engine, memory.at_once) {
        (Engine::Flow, _) => {}
        // Under PDQ, M-PDQ and MERP a link serves a few flows at a time and holds every other
        // started flow paused for as long as the protocol's own pace makes it wait: at load
        // 0.1, 30 000 flows of 1 KB on a star had 23 553 of them held at once (the bound of
        // active flows gives 14) before a fault in PDQ's Dampening was fixed (issue 35; the
        // run now peaks at 19.5 MB against this ceiling's 83.5). No bound from the flows
        // alone holds, so every flow counts: a ceiling.
        (
            _,
            AtOnce::EveryStarted {
                bytes,
                per_extra_subflow,
            },
        ) => e.push(
            format!(
                "flows held at once (all {}: {} pauses flows)",
                started.len(),
                transport.name()
            ),
            started
                .iter()
                .map(|f| {
                    let extra = transport.subflows_of(f.size_bytes).max(1) - 1;
                    bytes + extra as f64 * per_extra_subflow
                })
                .sum::<f64>(),
            &flow_key,
        ),
        (_, AtOnce::Active { bytes }) => e.push(
            format!("flows active at once (at least {active})"),
            active as f64 * bytes,
            &flow_key,
        ),
    }
    if s.output.series_interval_us > 0.0 {
        let interval = Time::from_us_f64(s.output.series_interval_us).max(Time(1));
        let until = s
            .stop_s
            .map_or(busy_until, |stop| busy_until.min(Time::from_secs_f64(stop)));
        let samples = (until.ps() / interval.ps()) as f64;
        let rows = samples * (ports + facts.switch_ports as f64);
        e.push(
            format!("time series ({} samples)", count_text(samples)),
            rows * SERIES_ROW_BYTES,
            SERIES_KEY,
        );
    }
    let traced = (s.output.trace_flow.iter()).filter_map(|&f| flows.get(f as usize));
    let (mss, _) = transport.data_packet_sizes();
    let segments: f64 = traced
        .map(|f| f.size_bytes.div_ceil(mss.max(1) as u64) as f64)
        .sum();
    if !s.output.trace_flow.is_empty() {
        e.push(
            format!("packet trace ({} segments)", count_text(segments)),
            2.0 * segments * TRACE_ROW_BYTES,
            "output.trace_flow",
        );
    }
    e
}

/// Lower bounds of how many flows (sorted by start) are active at once and of when the last
/// one ends. The flows out of one host, and those into one host, share its link: at best it
/// serves them at `host_bps` (the fastest host link) in shortest-remaining-first order, the
/// order that leaves the fewest flows unfinished at every moment. Flows with a deadline are
/// left out (a protocol or the application may end them early).
fn certainly_active(flows: &[FlowSpec], host_bps: u64) -> (usize, Time) {
    use std::cmp::Reverse;
    use std::collections::binary_heap::{BinaryHeap, PeekMut};
    let bytes_per_ps = host_bps.max(1) as f64 / 8.0 * 1e-12;
    let hosts = flows
        .iter()
        .map(|f| f.src.max(f.dst))
        .max()
        .map_or(0, |h| h as usize + 1);
    // Per host link, out (0..hosts) and in (hosts..): the time it was served up to and the
    // bytes left of its flows. One pass over the flows in start order.
    let mut links: Vec<(Time, BinaryHeap<Reverse<Bytes>>)> = (0..2 * hosts)
        .map(|_| (Time::ZERO, BinaryHeap::new()))
        .collect();
    let mut most = 0;
    for f in flows.iter().filter(|f| f.deadline.is_none()) {
        for l in [f.src as usize, hosts + f.dst as usize] {
            let (t, heap) = &mut links[l];
            let mut dt = f.start.saturating_sub(*t).ps() as f64;
            while dt > 0.0 {
                let Some(mut top) = heap.peek_mut() else {
                    break;
                };
                let need = top.0 .0 / bytes_per_ps;
                if need <= dt {
                    dt -= need;
                    PeekMut::pop(top);
                } else {
                    top.0 .0 -= dt * bytes_per_ps;
                    dt = 0.0;
                }
            }
            *t = f.start;
            heap.push(Reverse(Bytes(f.size_bytes as f64)));
            most = most.max(heap.len());
        }
    }
    let last = links
        .iter()
        .filter(|(_, heap)| !heap.is_empty())
        .map(|(t, heap)| {
            let left: f64 = heap.iter().map(|r| r.0 .0).sum();
            *t + Time::from_secs_f64(left / bytes_per_ps * 1e-12)
        })
        .max()
        .unwrap_or(Time::ZERO);
    (most, last)
}

/// Bytes left of a flow, ordered as numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Bytes(f64);

impl Eq for Bytes {}

impl PartialOrd for Bytes {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Bytes {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

fn count_text(n: f64) -> String {
    if n < 1e15 {
        format!("{n:.0}")
    } else {
        format!("{n:.2e}")
    }
}

/// The flows the workload's keys promise, and the key that sets their number: `flows` of a
/// Poisson workload, `senders` × `rounds` of an incast, one per host for a permutation (then
/// the topology's key). `None` for a flow file (its flows are counted once read).
fn flow_key(s: &Scenario, topo_key: &str, hosts: usize) -> (Option<f64>, String) {
    let w = &s.workload;
    match w.kind.as_str() {
        "poisson" => (
            Some(w.flows.unwrap_or(crate::workload::DEFAULT_FLOWS) as f64),
            "workload.flows".into(),
        ),
        "incast" => {
            // More senders than hosts is refused when the flows are generated.
            let senders = match &w.senders {
                Some(IntOrList::Int(k)) => (*k as f64).min(hosts.saturating_sub(1) as f64),
                Some(IntOrList::List(l)) => l.len() as f64,
                None => 0.0,
            };
            let rounds = w.rounds.unwrap_or(crate::workload::DEFAULT_ROUNDS) as f64;
            let key = if rounds > senders {
                "workload.rounds"
            } else {
                "workload.senders"
            };
            (Some(senders * rounds), key.into())
        }
        "permutation" => (Some(hosts as f64), topo_key.to_string()),
        "flows" => (None, "workload.file".into()),
        _ => (None, "workload".into()),
    }
}

/// The number of flows the workload's keys promise on a topology of `hosts` hosts (before
/// they are generated; `None` for a flow file), saturating at `usize::MAX`.
pub fn flows_from_keys(s: &Scenario, hosts: usize) -> Option<usize> {
    flow_key(s, "", hosts)
        .0
        .map(|n| n.min(usize::MAX as f64) as usize)
}

/// The key that sizes the topology: of the kind's size keys that the scenario sets, the
/// largest (a file's path for `kind = "file"`); `topology` when it sets none.
fn topology_key(s: &Scenario) -> String {
    let t = &s.topology;
    let keys: &[(&str, Option<usize>)] = &[
        ("k", t.k),
        ("n", t.n),
        ("hosts", t.hosts),
        ("senders", t.senders),
        ("receivers", t.receivers),
        ("tors", t.tors),
        ("hosts_per_tor", t.hosts_per_tor),
        ("leaves", t.leaves),
        ("spines", t.spines),
        ("hosts_per_leaf", t.hosts_per_leaf),
        ("forwarders", t.forwarders),
        ("hosts_per_group", t.hosts_per_group),
        ("cross_receivers", t.cross_receivers),
        ("switches", t.switches),
        ("hosts_per_switch", t.hosts_per_switch),
        ("ports_per_switch", t.ports_per_switch),
    ];
    if t.kind == "file" {
        return "topology.file".into();
    }
    keys.iter()
        .filter_map(|&(k, v)| v.map(|v| (k, v)))
        .fold(None, |best: Option<(&str, usize)>, (k, v)| match best {
            Some((_, b)) if b >= v => best,
            _ => Some((k, v)),
        })
        .map_or_else(|| "topology".into(), |(k, _)| format!("topology.{k}"))
}

/// Refuses, before the topology is built, a generated layout whose routing tables alone
/// would pass `budget`: their slices, (destination classes) × (nodes) × 8 bytes, counted from
/// the kind's keys (a key left out counts as 1, so this is a lower bound). Layouts above the
/// topology's own node limit are left to it, which names that limit.
pub fn check_before_topology(s: &Scenario, budget: &Budget) -> ConfigResult<()> {
    if budget.bytes().is_none() {
        return Ok(());
    }
    let t = &s.topology;
    let v = |x: Option<usize>| x.unwrap_or(1) as f64;
    let (classes, nodes) = match t.kind.as_str() {
        "star" => (1.0, v(t.hosts) + 1.0),
        "dumbbell" => (2.0, v(t.senders) + v(t.receivers.or(t.senders)) + 2.0),
        "tree" => (v(t.tors), v(t.tors) * (v(t.hosts_per_tor) + 1.0) + 1.0),
        "fattree" => {
            let k = v(t.k);
            (k * k / 2.0, k.powi(3) / 4.0 + 1.25 * k * k)
        }
        "leafspine" => (
            v(t.leaves),
            v(t.leaves) * (v(t.hosts_per_leaf) + 1.0) + v(t.spines),
        ),
        "bcube" => {
            // Every server has k + 1 links: a class of its own.
            let (n, k) = (v(t.n), t.k.unwrap_or(0) as f64);
            let servers = n.powf(k + 1.0);
            (servers, servers + (k + 1.0) * n.powf(k))
        }
        "jellyfish" => (v(t.switches), v(t.switches) * (1.0 + v(t.hosts_per_switch))),
        _ => return Ok(()),
    };
    if nodes > crate::topo::MAX_NODES as f64 {
        return Ok(());
    }
    let mut e = Estimate::default();
    e.push(
        format!(
            "routing tables (at least {} destination classes × {} nodes)",
            count_text(classes),
            count_text(nodes)
        ),
        classes * nodes * std::mem::size_of::<(u32, u32)>() as f64,
        &topology_key(s),
    );
    e.check(budget)
}

/// Counts the parts of a run once the topology is built, before anything sized by it or by
/// the flow count is allocated; refuses the run when they pass `budget`. Returns what it
/// measured of the network for the final estimate; `None` when the budget is unlimited (then
/// nothing is measured: the run needs no estimate).
pub fn check_before_flows(
    s: &Scenario,
    topo: &TopoSpec,
    transport: &Transport,
    budget: &Budget,
) -> ConfigResult<Option<NetworkFacts>> {
    if budget.bytes().is_none() {
        return Ok(None);
    }
    let facts = NetworkFacts::of(topo, budget.bytes());
    estimate(s, &facts, transport, Flows::FromKeys).check(budget)?;
    Ok(Some(facts))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_their_units() {
        assert_eq!(parse_bytes("123"), Ok(123));
        assert_eq!(parse_bytes("8G"), Ok(8_000_000_000));
        assert_eq!(parse_bytes("8 gb"), Ok(8_000_000_000));
        assert_eq!(parse_bytes("1.5GiB"), Ok(1_610_612_736));
        assert_eq!(parse_bytes("500M"), Ok(500_000_000));
        assert_eq!(parse_bytes("2e9"), Ok(2_000_000_000));
        assert_eq!(parse_bytes("64kib"), Ok(65_536));
        for bad in ["", "0", "-1G", "8X", "G", "nan", "inf", "1e30", "1.2.3G"] {
            let err = parse_bytes(bad).unwrap_err();
            assert!(err.contains("not a memory size"), "{bad}: {err}");
        }
        assert_eq!(Budget::parse("Unlimited"), Ok(Budget::unlimited()));
        assert_eq!(Budget::parse("1k"), Ok(Budget::given(1000)));
    }

    #[test]
    fn a_shared_budget_is_an_equal_share_and_says_so() {
        let b = Budget::given(8_000_000_000).shared_by(3);
        assert_eq!(b.bytes(), Some(2_666_666_666));
        assert_eq!(
            b.origin(),
            Origin::Shared {
                total: 8_000_000_000,
                by: 3
            }
        );
        let text = b.to_string();
        assert!(
            text.starts_with("2.7 GB (1/3 of the sweep's 8.0 GB: 3 points"),
            "{text}"
        );
        // One run alone has it all; unlimited stays unlimited.
        assert_eq!(Budget::given(5).shared_by(1), Budget::given(5));
        assert_eq!(Budget::unlimited().shared_by(4), Budget::unlimited());
        // A run refused at its share names the share in its message.
        let est = Estimate {
            parts: vec![Part {
                what: "flows".into(),
                bytes: 5e9,
                key: "workload.flows".into(),
            }],
        };
        assert!(est.check(&Budget::given(8_000_000_000)).is_ok());
        let e = est
            .check(&Budget::given(8_000_000_000).shared_by(2))
            .unwrap_err();
        assert_eq!(e.path, "workload.flows");
        assert!(e.message.contains("1/2 of the sweep's 8.0 GB"), "{e}");
    }

    #[test]
    fn sizes_print_in_powers_of_1000() {
        assert_eq!(human(999.0), "999 B");
        assert_eq!(human(1234.0), "1.2 KB");
        assert_eq!(human(328e9), "328 GB");
        assert_eq!(human(4.4e21), "4.40e6 PB");
    }

    #[test]
    fn the_machine_has_some_memory() {
        let b = Budget::machine();
        assert!(b.bytes().is_some_and(|b| b > 0));
        if cfg!(target_os = "linux") {
            assert_eq!(b.origin(), Origin::Available);
            assert!(resident_bytes().is_some_and(|r| r > 0));
        }
    }

    #[test]
    fn flows_certainly_active_overlap_at_line_rate() {
        let flow = |start_us: u64, size: u64| FlowSpec {
            src: 0,
            dst: 1,
            size_bytes: size,
            start: Time::from_us(start_us),
            deadline: None,
            weight: 1.0,
        };
        // 10 Gb/s: 1 250 bytes take 1 µs. All from host 0 to host 1: the 10 µs flow is
        // preempted by the short ones (shortest first), so two are active at 5 µs and at 9 µs,
        // and the link is busy until 13 µs of work have been done.
        let flows = [
            flow(0, 12_500),
            flow(5, 1250),
            flow(9, 1250),
            flow(20, 1250),
        ];
        let (active, until) = certainly_active(&flows, 10_000_000_000);
        assert_eq!(active, 2);
        assert_eq!(until, Time::from_us(21));
        // An incast: 100 flows of 1 µs each, into one host, a nanosecond apart: at least 99
        // are still there when the last arrives, and the last leaves after 100 µs.
        let incast: Vec<FlowSpec> = (0..100)
            .map(|i| FlowSpec {
                src: i + 2,
                start: Time::from_ps(1000 * i as u64),
                ..flow(0, 1250)
            })
            .collect();
        let (active, until) = certainly_active(&incast, 10_000_000_000);
        assert!((99..=100).contains(&active), "{active}");
        assert_eq!(until, Time::from_us(100));
        // A flow with a deadline may end early: it does not count.
        let with_deadline = FlowSpec {
            deadline: Some(Time::from_us(1)),
            ..flow(0, 12_500)
        };
        assert_eq!(certainly_active(&[with_deadline], 10_000_000_000).0, 0);
    }
}
