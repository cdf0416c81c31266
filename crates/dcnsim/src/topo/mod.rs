//! Topology builders: the `[topology]` table of a scenario becomes a [`TopoSpec`] — named
//! nodes, full-duplex links with a rate, a propagation delay and a buffer, and the host order.
//!
//! Routing, queues and failures are built elsewhere from the spec; this module only says what
//! is connected to what. Every builder is deterministic: the same table gives the same nodes in
//! the same order, so node names and host ids are stable keys for scenarios
//! (`[[failures]] link = ["agg0_1", "edge0_0"]`) and for outputs.
//!
//! # Keys common to every kind
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `kind` | — | one of the kinds below |
//! | `link_gbps` | 10 | rate of every link a kind does not give another rate |
//! | `link_delay_us` | 1 (parkinglot: 6.25) | one-way propagation delay of every link |
//! | `buffer_pkts` | 100 | buffer of each egress queue, in packets … |
//! | `buffer_kb` | — | … or in kilobytes (1 KB = 1000 B); give at most one of the two |
//! | `ecn_k_pkts` | the transport's | ECN marking threshold K of each egress queue, in packets (see below) |
//! | `host_nic` | `"backpressure"` | a host's full NIC queue holds its own transports' packets in the host (`"backpressure"`) or drops them (`"droptail"`); see below |
//! | `[[topology.link_overrides]]` | none | `between = ["leaf0", "spine3"]` and any of `gbps`, `delay_us`, `buffer_pkts` / `buffer_kb`, `ecn_k_pkts`: changes one link, both directions |
//!
//! **The queue of a port** is one physical thing, so its buffer and its ECN marking threshold
//! live together here, with the link. An ECN-capable packet that arrives while K or more
//! packets wait is marked CE (DCTCP's instantaneous-queue marking); packets that are not
//! ECN-capable (TCP NewReno's, pFabric's, …) are never marked, so a K set here is harmless
//! under a transport that does not use ECN, and one scenario can be run under `tcp`, `dctcp`
//! and `d2tcp` as it is. When K is not set, the transport supplies a default per port rate
//! (DCTCP's rule, see [`crate::protocols::tcp`]); transports without ECN mark nothing.
//! Likewise the buffer defaults to 100 packets unless the transport has its own default
//! (pFabric's 2·BDP). The queue discipline (FIFO, rank, …) is the transport's.
//!
//! **A host's NIC queue** has the same buffer, threshold and discipline as any port, but a
//! real sender does not lose packets to its own NIC: Linux throttles each socket before the
//! queue discipline (TCP Small Queues) and a full device queue stops the qdisc. So by default
//! (`host_nic = "backpressure"`) a packet that a host's own endpoint emits into a full NIC
//! queue waits in the host and enters the queue when it has room; the flows of one host take
//! turns in the discipline's order (round robin between flows for FIFO, the best head by
//! priority class or rank for the priority and rank queues). Packets a host relays for others
//! (BCube) are dropped at a full queue as at a switch. `"droptail"` drops a host's own packets
//! too, as dcnsim did before and as simulators whose hosts have a plain drop-tail device queue
//! do. See [`crate::engine`] for the mechanism and the counters it reports.
//!
//! Rates must be positive Gbit/s up to 4000 (4 Tbit/s), delays positive µs up to the
//! simulation horizon (10¹² µs = 10⁶ s; see [`crate::units`]), buffers up to 10¹⁵ KB, counts
//! at least 1, and the nodes (or the links) of a layout at most 4 194 304: the error names
//! the key to lower, or the file and line that gave the value. A key that belongs to
//! another kind is an error that names the kinds it belongs to, rather than being ignored: a
//! `k = 8` left in a leaf-spine scenario is a mistake worth hearing about (each kind's keys
//! are declared once, in `kinds.rs`). Overrides apply to
//! every kind (also `file`), so asymmetric paths can be made in any layout; each names an
//! existing link and may appear once.
//!
//! # Kinds
//!
//! Unless stated otherwise hosts are named `h0`…`hN-1` in host-id order, each host has one
//! link (BCube's have k+1), and host links use `link_gbps`. Nodes are listed hosts first, so
//! in the generated kinds a host's node index equals its host id (the `file` kind lists nodes
//! as they appear).
//!
//! - **`star`** — `hosts` (8) hosts on one switch `sw`. One rack. For single-switch tests
//!   (MERP's flow switching and incast, Figs 13–14).
//! - **`dumbbell`** — `senders` (8) hosts on switch `left`, `receivers` (= senders) hosts on
//!   switch `right`, one `left`–`right` link at `bottleneck_gbps` (= link_gbps). Host ids:
//!   left hosts 0..senders-1, then the right hosts. Racks: left, right.
//! - **`tree`** — single-rooted tree: `tors` (3) switches `tor0`… each with `hosts_per_tor`
//!   (3) hosts, all ToRs linked to `root` at `core_gbps` (= link_gbps). The default is MERP's
//!   9-server tree (§6.1). Host ids ToR by ToR. Racks: one per ToR.
//! - **`fattree`** — k-ary fat-tree (Al-Fares et al.), `k` (4) even and ≥ 2: k pods of k/2
//!   edge switches `edge{pod}_{i}` and k/2 aggregation switches `agg{pod}_{j}`, every edge
//!   linked to every aggregation switch of its pod at `agg_gbps`; (k/2)² core switches
//!   `core{c}`, aggregation switch `agg{p}_{j}` linked to `core{j·k/2}`…`core{j·k/2+k/2-1}` at
//!   `core_gbps` (both = link_gbps; MCP uses link 10, agg 10, core 40). k³/4 hosts, k/2 per
//!   edge switch, host ids pod by pod, edge by edge. Racks: one per edge switch.
//!   k=4: 16 hosts, 20 switches, 48 links (MERP §6.2); k=8: 128 hosts, 80 switches (MCP).
//! - **`leafspine`** — `leaves` (2) switches `leaf{i}` with `hosts_per_leaf` (10) hosts each,
//!   `spines` (10) switches `spine{j}`; every leaf linked to every spine at `spine_gbps`
//!   (= link_gbps). The defaults are the shape of TR's small testbed (§5.1); its bad paths are
//!   link overrides. Host ids leaf by leaf. Racks: one per leaf.
//! - **`parkinglot`** — PACE's parking lot (§IV), see [`parkinglot`] for the drawing and the
//!   round-trip times: forwarders `F1`…`Fn` in a chain (`forwarders`, 5), sender groups a, b,
//!   c, … of `hosts_per_group` (16) hosts at F1, F2, …, F(n-1), `receivers` (16) hosts at Fn and
//!   `cross_receivers` (16, may be 0) hosts at F(n-1); the last chain link F(n-1)–Fn runs at
//!   `bottleneck_gbps` (= link_gbps). Host ids: group a, b, …, receivers, cross receivers.
//!   Racks: one per group in that order.
//! - **`bcube`** — BCube(`n`, `k`) (2, 3), server-centric: n^(k+1) hosts with k+1 links each,
//!   k+1 levels of n^k switches `sw{level}_{j}`; hosts relay. Host id = the address read as a
//!   base-n number. Racks: one per level-0 switch. See [`bcube`] for the routing.
//! - **`jellyfish`** — `switches` (20) switches `sw{i}` with `ports_per_switch` (8) ports,
//!   `hosts_per_switch` (4) hosts each, the other ports in a random regular graph drawn from
//!   the seed. Host ids switch by switch. Racks: one per switch. See [`jellyfish`].
//! - **`file`** — `file = "net.topo"`, read relative to the scenario's folder; see [`file`](mod@file)
//!   for the format. Host ids in order of appearance; racks group the hosts by the switch of
//!   their first link.

pub mod bcube;
mod builder;
mod check;
pub(crate) use check::MAX_NODES;
pub mod file;
mod generated;
pub mod jellyfish;
mod kinds;
pub mod parkinglot;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_bcube_jellyfish;

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
    /// ECN marking threshold of both egress queues, when the scenario sets one; `None` leaves
    /// it to the transport's default for the port's rate.
    pub ecn_k_pkts: Option<u32>,
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
    /// Server-centric layouts (BCube): hosts relay packets addressed to other hosts.
    pub hosts_relay: bool,
    /// `kind = "file"`: the line of the file that declared each link, in link order, so that
    /// errors about a link found later can name it; empty for the generated kinds.
    pub link_lines: Vec<u32>,
}

impl TopoSpec {
    /// Index of the node called `name`, if any (a linear scan: for setting up, not per packet).
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
}

/// The `[topology]` table. Which optional keys apply depends on `kind`; see the module doc.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TopologyConfig {
    pub kind: String,
    #[serde(default = "default_link_gbps")]
    pub link_gbps: f64,
    /// Optional because its default depends on the kind; read it with
    /// [`TopologyConfig::effective_link_delay_us`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_delay_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pkts: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_kb: Option<f64>,
    /// ECN marking threshold of every egress queue, in packets; by default the transport's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_k_pkts: Option<u32>,
    /// What a host's full NIC queue does with a packet of its own transports.
    #[serde(default)]
    pub host_nic: HostNic,
    /// star
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<usize>,
    /// dumbbell
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub senders: Option<usize>,
    /// dumbbell, parkinglot
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receivers: Option<usize>,
    /// dumbbell, parkinglot
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck_gbps: Option<f64>,
    /// tree
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tors: Option<usize>,
    /// tree
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts_per_tor: Option<usize>,
    /// tree (ToR–root), fattree (aggregation–core)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_gbps: Option<f64>,
    /// fattree, bcube
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// bcube: ports per switch (and servers per level-0 switch)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<usize>,
    /// fattree (edge–aggregation)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agg_gbps: Option<f64>,
    /// leafspine
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaves: Option<usize>,
    /// leafspine
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spines: Option<usize>,
    /// leafspine
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts_per_leaf: Option<usize>,
    /// leafspine (leaf–spine)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spine_gbps: Option<f64>,
    /// parkinglot
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forwarders: Option<usize>,
    /// parkinglot
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts_per_group: Option<usize>,
    /// parkinglot
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_receivers: Option<usize>,
    /// jellyfish
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switches: Option<usize>,
    /// jellyfish
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports_per_switch: Option<usize>,
    /// jellyfish
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts_per_switch: Option<usize>,
    /// file: path of the topology file, relative to the scenario's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Every kind: per-link changes of rate and delay.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_overrides: Vec<LinkOverride>,
}

/// The `topology.host_nic` key: what a host's NIC queue does with a packet of the host's own
/// transports when it is full (see [`crate::engine`]'s host NIC section).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum HostNic {
    /// The packet waits in the host, in its flow's order, until the queue has room; flows of
    /// one host take turns. A host never drops its own packets (TCP Small Queues and the
    /// stopped qdisc of Linux; ns-3's flow control between device and queue discipline).
    #[default]
    Backpressure,
    /// The packet is dropped, as at a switch: dcnsim before issue 32, and simulators whose
    /// hosts have a plain drop-tail device queue.
    Droptail,
}

/// One `[[topology.link_overrides]]` entry: the link between two named nodes gets another
/// rate, delay, buffer and/or marking threshold, in both directions.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkOverride {
    pub between: [String; 2],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gbps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pkts: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_kb: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_k_pkts: Option<u32>,
}

fn default_link_gbps() -> f64 {
    10.0
}

/// Link delay when `link_delay_us` is not given.
pub const DEFAULT_LINK_DELAY_US: f64 = 1.0;

impl TopologyConfig {
    /// A table with only `kind` set and every other key at its default.
    pub fn of_kind(kind: &str) -> TopologyConfig {
        TopologyConfig {
            kind: kind.to_string(),
            link_gbps: default_link_gbps(),
            link_delay_us: None,
            buffer_pkts: None,
            buffer_kb: None,
            ecn_k_pkts: None,
            host_nic: HostNic::default(),
            hosts: None,
            senders: None,
            receivers: None,
            bottleneck_gbps: None,
            tors: None,
            hosts_per_tor: None,
            core_gbps: None,
            k: None,
            n: None,
            agg_gbps: None,
            leaves: None,
            spines: None,
            hosts_per_leaf: None,
            spine_gbps: None,
            forwarders: None,
            hosts_per_group: None,
            cross_receivers: None,
            switches: None,
            ports_per_switch: None,
            hosts_per_switch: None,
            file: None,
            link_overrides: Vec::new(),
        }
    }

    /// The link delay in µs: the given one, else the kind's default (the parking lot's is
    /// chosen so that its defaults give PACE's ≈150 µs RTT; see [`parkinglot`]).
    pub fn effective_link_delay_us(&self) -> f64 {
        match (self.link_delay_us, self.kind.as_str()) {
            (Some(d), _) => d,
            (None, "parkinglot") => parkinglot::DEFAULT_DELAY_US,
            (None, _) => DEFAULT_LINK_DELAY_US,
        }
    }
}

/// Every kind with a one-line description, for `dcnsim list` and error messages.
pub const TOPOLOGIES: &[(&str, &str)] = &[
    ("star", "N hosts on one switch"),
    (
        "dumbbell",
        "senders on a left switch, receivers on a right switch, one bottleneck link between",
    ),
    (
        "tree",
        "single-rooted tree: ToR switches with hosts under one root (MERP's 3x3 default)",
    ),
    (
        "fattree",
        "k-ary fat-tree: k pods of k/2 edge + k/2 aggregation switches, (k/2)^2 cores",
    ),
    (
        "leafspine",
        "every leaf linked to every spine, hosts on leaves, per-link overrides for asymmetry",
    ),
    (
        "parkinglot",
        "PACE's chain of forwarders F1..Fn, sender groups with different RTTs, bottleneck at the end",
    ),
    (
        "bcube",
        "BCube(n,k): n^(k+1) servers with k+1 ports, k+1 levels of n^k n-port switches; servers relay",
    ),
    (
        "jellyfish",
        "random regular graph of switches from the seed, hosts on every switch, ECMP over shortest paths",
    ),
    (
        "file",
        "read from a text file of host / switch / link lines",
    ),
];

/// Builds the topology. Relative file paths (kind = "file") are resolved against `base_dir`,
/// the scenario file's folder; random layouts (jellyfish) draw from the scenario `seed`'s
/// `topology.jellyfish` stream. Call once per run, before building the network.
pub fn build(
    cfg: &TopologyConfig,
    base_dir: &std::path::Path,
    seed: u64,
) -> ConfigResult<TopoSpec> {
    if !TOPOLOGIES.iter().any(|(name, _)| *name == cfg.kind) {
        let kinds: Vec<&str> = TOPOLOGIES.iter().map(|(n, _)| *n).collect();
        return Err(ConfigError::new(
            "topology.kind",
            format!(
                "unknown topology '{}'; expected one of {}",
                cfg.kind,
                kinds.join(", ")
            ),
        ));
    }
    // A key that belongs to another kind is refused, not ignored: it is almost always a
    // scenario edited from another one, and silently dropping it hides the mistake.
    kinds::check(cfg, "topology").expect("kind checked against TOPOLOGIES above")?;
    let common = check::common(cfg)?;
    let (mut b, what) = match cfg.kind.as_str() {
        "star" => generated::star(cfg, &common)?,
        "dumbbell" => generated::dumbbell(cfg, &common)?,
        "tree" => generated::tree(cfg, &common)?,
        "fattree" => generated::fattree(cfg, &common)?,
        "leafspine" => generated::leafspine(cfg, &common)?,
        "parkinglot" => parkinglot::build(cfg, &common)?,
        "bcube" => bcube::build(cfg, &common)?,
        "jellyfish" => jellyfish::build(cfg, &common, seed)?,
        "file" => file::build(cfg, base_dir, &common)?,
        _ => unreachable!("kind checked against TOPOLOGIES above"),
    };
    b.apply_overrides(&cfg.link_overrides)?;
    // A generated layout is connected by construction; a file may not be, and then the error
    // names the file.
    let whole = match (&cfg.kind[..], &cfg.file) {
        ("file", Some(f)) => f.clone(),
        _ => "topology".to_string(),
    };
    b.finish(&what, &whole)
}
