//! The estimate of what a run will hold, part by part, from the resolved scenario, and the
//! checks that refuse a run too large for its budget before it allocates (see the module doc
//! of [`crate::budget`]).

use super::{human, Budget};
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
pub(super) fn advice(key: &str) -> String {
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
pub(super) const LARGER_BUDGET: &str =
    "set a larger budget (--max-memory of the dcnsim command, or max_memory in Python)";

/// The key of the series' part.
pub(super) const SERIES_KEY: &str = "output.series_interval_us";
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
pub(super) fn certainly_active(flows: &[FlowSpec], host_bps: u64) -> (usize, Time) {
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
