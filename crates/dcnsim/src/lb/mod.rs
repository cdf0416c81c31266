//! Path choice at switches (and multi-homed hosts): given the equal-cost next-hop ports towards
//! a packet's destination, pick one.
//!
//! `routing.lb` selects one scheme; each has its own file with the paper, the section, its
//! parameters and the choices made where the paper is silent:
//!
//! | `lb` | granularity | decides where | state | reorders? |
//! |---|---|---|---|---|
//! | `ecmp` (default) | flow | every switch | none (per-switch hash seed) | no |
//! | [`rps`] | packet | every switch | a random stream per switch | yes |
//! | [`drb`] | packet | sender's edge picks the bouncing switch | per-flow counter | yes, resequenced at the receiver |
//! | [`presto`] | 64 KB flowcell | sender's edge | per-flow cell counter | at cell boundaries, hidden by the receiver's buffer |
//! | [`letflow`] | flowlet | source leaf | per-flow flowlet | rarely (gap > path skew) |
//! | [`conga`] | flowlet | source leaf, fed back by remote leaves | DRE per port, leaf tables, per-flow flowlet | rarely |
//! | [`drill`] | packet | every switch | memory per switch and destination | yes, little when queues are balanced |
//! | [`tr`] | packet | source leaf, spine queues fed back in reverse ACKs' TTL | per-flow bytes sent and last TNL, short flows per uplink | no, where its delay prediction holds (leaf-spine only) |
//! | [`bcube_paths`] | flow | hash at every node, forwarding from addresses (BCube only) | none | no |
//!
//! ## Parameters (`[routing]` keys)
//!
//! | key | default | used by |
//! |---|---|---|
//! | `flowlet_gap_us` | 500 | `letflow`, `conga` (flowlet timeout T_fl) |
//! | `flowcell_bytes` | 65536 | `presto` (flowcell size: one 64 KB TSO segment of payload) |
//! | `reorder_timeout_us` | 100 | `presto`, `drb` (longest hold of the receiver's reordering buffer) |
//! | `conga_tau_us` | 160 | `conga` (DRE time constant τ) |
//! | `conga_metric_bits` | 3 | `conga` (Q, bits of the quantised congestion metric, 1–8) |
//! | `conga_aging_us` | 10000 | `conga` (a remote metric not refreshed for this long reads as 0) |
//! | `drill_samples` | 2 | `drill` (d, random candidates sampled per packet, 1–16) |
//! | `drill_memory` | 1 | `drill` (m, least-loaded ports remembered from the last decision, 0–4) |
//! | `tr_long_bytes` | 100000 | `tr` (T_l: a flow that has sent more payload bytes is long) |
//! | `tr_queue_bits` | 5 | `tr` (k, TTL bits carrying the spine queue length, 1–5) |
//! | `tr_ack_path` | `"tr"` | `tr` (how reverse packets leave their source leaf: `"tr"`, by Algorithm 1 like any packet, or `"spray"`, a random uplink) |
//! | `tr_inactive_us` | one RTT | `tr` (a short flow idle this long leaves its uplink's count; default: the smallest round-trip propagation delay between hosts of two leaves) |
//!
//! A key set for a scheme that does not use it is refused with an error naming the key and the
//! schemes it belongs to.
//!
//! ## Paths chosen at the source edge
//!
//! DRB, Presto, LetFlow and CONGA choose a whole path at the sender's edge switch (its leaf or
//! ToR). The choice is a number whose mixed-radix digits, least significant first, name the
//! next hop at each later choice point of the packet's path: the edge takes `path mod m₀` of its
//! `m₀` uplinks and writes `path div m₀` into [`LbFields::path`](crate::net::packet::LbFields);
//! the next switch with `m₁` candidates takes the next digit, and so on. In a leaf-spine the
//! only digit is the spine; in a fat-tree across pods the digits are (aggregation switch, core
//! switch), so consecutive numbers change the first-hop uplink every time — DRB's digit
//! reversal. Once the digits run out (never in a Clos), the remaining hops take candidate 0.
//! A host with several NICs (file topologies) picks its NIC by the flow hash.
//!
//! ## Failures
//!
//! A failed link drops what is queued on it and on the wire; routing tables drop it
//! `routing.reroute_delay_us` later. Until then every scheme still offers it as a candidate
//! (packets sent there are lost — ECMP's hashed flows, RPS/DRB/DRILL's share of packets, the
//! flowlets LetFlow/CONGA pinned there). Afterwards each scheme chooses among the remaining
//! candidates: ECMP rehashes by hash-threshold, RPS/DRB/Presto/LetFlow spread over the
//! survivors, DRILL samples among them (its memory of a vanished port is ignored), CONGA clears
//! its congestion tables and flowlets (path tags are positions in the candidate lists and change
//! meaning with them). `bcube_paths` does not read the tables and keeps its paths: packets on a
//! path through the failed link are lost.

pub mod bcube_paths;
pub mod conga;
pub mod drb;
pub mod drill;
pub mod letflow;
pub mod presto;
pub mod resequencer;
pub mod rps;
pub mod tr;

use crate::config::RoutingConfig;
use crate::error::{ConfigError, ConfigResult};
use crate::net::network::Port;
use crate::net::packet::Packet;
use crate::net::routing::RoutingTable;
use crate::net::{Network, NodeIdx, PortIdx};
use crate::protocols::Transport;
use crate::rng;
use crate::units::Time;
use crate::validate::{int_within, micros_or};

pub const PATH_CHOICES: &[(&str, &str)] = &[
    (
        "ecmp",
        "per-flow hash-threshold ECMP (RFC 2992) with a per-switch hash seed",
    ),
    (
        "rps",
        "random packet spraying (Dixit et al., INFOCOM 2013): uniform random next hop per packet",
    ),
    (
        "drb",
        "digit-reversal bouncing (Cao et al., CoNEXT 2013) with receiver resequencing",
    ),
    (
        "presto",
        "64 KB flowcells round-robin at the sender's edge (He et al., SIGCOMM 2015) + receiver GRO buffer",
    ),
    (
        "letflow",
        "random path per flowlet (Vanini et al., NSDI 2017), gap 500 us",
    ),
    (
        "conga",
        "congestion-aware flowlets from leaf-to-leaf feedback (Alizadeh et al., SIGCOMM 2014)",
    ),
    (
        "drill",
        "per-packet power of two choices over local queues with memory (Ghorbani et al., SIGCOMM 2017)",
    ),
    (
        "tr",
        "traffic-aware rerouting (Zhang et al., JCC 2021): per packet at the source leaf, no reordering by Time to Next Leaf; short flows fastest, long flows away from short ones (leaf-spine only)",
    ),
    (
        "bcube_paths",
        "BCube only: per-flow hash onto BuildPathSet's k+1 parallel paths (Guo et al., SIGCOMM 2009), shortest or not",
    ),
    (
        "memr",
        "MERP only: MEMR route control (MERP §5): at a SYN each switch takes the next hop of least expansion ratio, then highest tail rate; pinned per flow",
    ),
];

/// Which scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LbKind {
    Ecmp,
    Rps,
    Drb,
    Presto,
    LetFlow,
    Conga,
    Drill,
    Tr,
    BcubePaths,
    /// MERP's route control: the MERP switch agent routes MERP packets; the rest go by ECMP.
    Memr,
}

/// Validated `[routing]` parameters of the path choice (defaults in the module table).
#[derive(Clone, Debug, PartialEq)]
pub struct LbParams {
    pub kind: LbKind,
    pub flowlet_gap: Time,
    pub flowcell_bytes: u64,
    pub reorder_timeout: Time,
    pub conga_tau: Time,
    pub conga_metric_bits: u32,
    pub conga_aging: Time,
    pub drill_samples: u32,
    pub drill_memory: u32,
    pub tr_long_bytes: u64,
    pub tr_queue_bits: u32,
    /// `None`: one RTT of the network (see [`tr`]).
    pub tr_inactive: Option<Time>,
    /// `routing.tr_ack_path = "spray"`.
    pub tr_spray_acks: bool,
}

pub const DEFAULT_FLOWLET_GAP_US: f64 = 500.0;
pub const DEFAULT_FLOWCELL_BYTES: u64 = 65_536;
pub const DEFAULT_REORDER_TIMEOUT_US: f64 = 100.0;
pub const DEFAULT_CONGA_TAU_US: f64 = 160.0;
pub const DEFAULT_CONGA_METRIC_BITS: u32 = 3;
pub const DEFAULT_CONGA_AGING_US: f64 = 10_000.0;
pub const DEFAULT_DRILL_SAMPLES: u32 = 2;
pub const DEFAULT_DRILL_MEMORY: u32 = 1;
pub const DEFAULT_TR_LONG_BYTES: u64 = 100_000;
pub const DEFAULT_TR_QUEUE_BITS: u32 = 5;

impl LbParams {
    pub fn from_config(cfg: &RoutingConfig) -> ConfigResult<LbParams> {
        let kind = match cfg.lb.as_str() {
            "ecmp" => LbKind::Ecmp,
            "rps" => LbKind::Rps,
            "drb" => LbKind::Drb,
            "presto" => LbKind::Presto,
            "letflow" => LbKind::LetFlow,
            "conga" => LbKind::Conga,
            "drill" => LbKind::Drill,
            "tr" => LbKind::Tr,
            "bcube_paths" => LbKind::BcubePaths,
            "memr" => LbKind::Memr,
            other => {
                return Err(ConfigError::new(
                    "routing.lb",
                    format!(
                        "unknown path choice '{other}'; valid: {}",
                        PATH_CHOICES
                            .iter()
                            .map(|p| p.0)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        };
        use LbKind::*;
        let keys: [(&str, bool, &[LbKind]); 12] = [
            (
                "flowlet_gap_us",
                cfg.flowlet_gap_us.is_some(),
                &[LetFlow, Conga],
            ),
            ("flowcell_bytes", cfg.flowcell_bytes.is_some(), &[Presto]),
            (
                "reorder_timeout_us",
                cfg.reorder_timeout_us.is_some(),
                &[Presto, Drb],
            ),
            ("conga_tau_us", cfg.conga_tau_us.is_some(), &[Conga]),
            (
                "conga_metric_bits",
                cfg.conga_metric_bits.is_some(),
                &[Conga],
            ),
            ("conga_aging_us", cfg.conga_aging_us.is_some(), &[Conga]),
            ("drill_samples", cfg.drill_samples.is_some(), &[Drill]),
            ("drill_memory", cfg.drill_memory.is_some(), &[Drill]),
            ("tr_long_bytes", cfg.tr_long_bytes.is_some(), &[Tr]),
            ("tr_queue_bits", cfg.tr_queue_bits.is_some(), &[Tr]),
            ("tr_inactive_us", cfg.tr_inactive_us.is_some(), &[Tr]),
            ("tr_ack_path", cfg.tr_ack_path.is_some(), &[Tr]),
        ];
        for (key, set, users) in keys {
            if set && !users.contains(&kind) {
                let names: Vec<&str> = users.iter().map(|k| kind_name(*k)).collect();
                return Err(ConfigError::new(
                    format!("routing.{key}"),
                    format!(
                        "only for lb = {}; lb '{}' does not use it",
                        names.join(" or "),
                        cfg.lb
                    ),
                ));
            }
        }
        let flowcell_bytes = cfg.flowcell_bytes.unwrap_or(DEFAULT_FLOWCELL_BYTES);
        if flowcell_bytes == 0 {
            return Err(ConfigError::new(
                "routing.flowcell_bytes",
                "must be at least 1 byte (Presto uses 65536, one TSO segment)",
            ));
        }
        Ok(LbParams {
            kind,
            flowlet_gap: micros_or(
                "routing.flowlet_gap_us",
                cfg.flowlet_gap_us,
                DEFAULT_FLOWLET_GAP_US,
            )?,
            flowcell_bytes,
            reorder_timeout: micros_or(
                "routing.reorder_timeout_us",
                cfg.reorder_timeout_us,
                DEFAULT_REORDER_TIMEOUT_US,
            )?,
            conga_tau: micros_or(
                "routing.conga_tau_us",
                cfg.conga_tau_us,
                DEFAULT_CONGA_TAU_US,
            )?,
            conga_metric_bits: int_within(
                "routing.conga_metric_bits",
                cfg.conga_metric_bits,
                DEFAULT_CONGA_METRIC_BITS,
                1,
                8,
            )?,
            conga_aging: micros_or(
                "routing.conga_aging_us",
                cfg.conga_aging_us,
                DEFAULT_CONGA_AGING_US,
            )?,
            drill_samples: int_within(
                "routing.drill_samples",
                cfg.drill_samples,
                DEFAULT_DRILL_SAMPLES,
                1,
                16,
            )?,
            drill_memory: int_within(
                "routing.drill_memory",
                cfg.drill_memory,
                DEFAULT_DRILL_MEMORY,
                0,
                4,
            )?,
            tr_long_bytes: cfg.tr_long_bytes.unwrap_or(DEFAULT_TR_LONG_BYTES),
            tr_queue_bits: int_within(
                "routing.tr_queue_bits",
                cfg.tr_queue_bits,
                DEFAULT_TR_QUEUE_BITS,
                1,
                tr::MAX_QUEUE_BITS,
            )?,
            tr_inactive: cfg
                .tr_inactive_us
                .map(|v| micros_or("routing.tr_inactive_us", Some(v), 0.0))
                .transpose()?,
            tr_spray_acks: match cfg.tr_ack_path.as_deref() {
                None | Some("tr") => false,
                Some("spray") => true,
                Some(other) => {
                    return Err(ConfigError::new(
                        "routing.tr_ack_path",
                        format!("must be \"tr\" or \"spray\" (got '{other}')"),
                    ))
                }
            },
        })
    }

    /// Whether every packet of a flow (of a subflow, for M-PDQ) takes one path.
    pub fn keeps_a_flow_on_one_path(&self) -> bool {
        matches!(self.kind, LbKind::Ecmp | LbKind::BcubePaths | LbKind::Memr)
    }

    /// Refuses a path choice that needs another transport (MEMR is MERP's route control), or
    /// that the transport cannot work with: one that keeps state for each flow at the switches
    /// of its path ([`Transport::keeps_state_along_its_path`]: D3, PDQ, M-PDQ, MERP, PACE)
    /// needs every packet of a (sub)flow on that path. Moved between paths, a flow leaves its
    /// allocation or its place at switches it no longer crosses and takes what it never held
    /// at others. On a k = 4 fat-tree at 80 % load (`bench/identity/matrix_base.toml`), where
    /// every flow of theirs has ended by 0.1 s under ECMP, 38–80 % of PDQ's, M-PDQ's and
    /// MERP's flows were still running after 0.5 s under RPS, Presto and DRILL, and under
    /// Presto and CONGA a few D3 flows never ended. PACE's flows all end, but its credits no
    /// longer describe its data: the ports that granted them never see the data that spends
    /// them elsewhere (their outstanding credits wait to expire), and the ports that carry it
    /// granted nothing. Under RPS and DRILL its mean FCT there was 14.3 and 15.5 ms against
    /// 4.9 under ECMP, with 380 000 and 450 000 segments resent (its receiver takes data in
    /// order only, as on one lossless path).
    pub fn check_transport(&self, transport: &Transport) -> ConfigResult<()> {
        let protocol = transport.name();
        if transport.keeps_state_along_its_path() && !self.keeps_a_flow_on_one_path() {
            return Err(ConfigError::new(
                "routing.lb",
                format!(
                    "'{}' moves a flow's packets between paths, but '{protocol}' keeps state \
                     for each flow at the switches of its path and needs all of a flow's \
                     packets there: use ecmp (or bcube_paths on a BCube{})",
                    kind_name(self.kind),
                    if protocol == "merp" { ", or memr" } else { "" }
                ),
            ));
        }
        if self.kind == LbKind::Memr && protocol != "merp" {
            return Err(ConfigError::new(
                "routing.lb",
                format!(
                    "'memr' is MERP's route control and reads MERP's switch flow tables: it needs \
                     transport.protocol = \"merp\" (this scenario runs '{protocol}'); use ecmp \
                     or another path choice"
                ),
            ));
        }
        Ok(())
    }

    /// Bytes the path choice's state takes ([`PathChoice::new`]) on a network of `nodes`
    /// nodes, `hosts` hosts and `ports` ports, whose hosts hang off `leaves` edge switches of
    /// at most `width` uplinks, carrying `flows` flows: per node (hash seeds, random
    /// streams), per flow direction (DRB, Presto, LetFlow, CONGA, TR), per pair of leaves
    /// (CONGA, TR) and per (node, host) (DRILL's memory). For the memory estimate
    /// ([`crate::budget`]); the element sizes are those of the schemes' records.
    pub fn state_bytes(
        &self,
        nodes: f64,
        hosts: f64,
        ports: f64,
        leaves: f64,
        width: f64,
        flows: f64,
    ) -> f64 {
        let rng = std::mem::size_of::<rng::StreamRng>() as f64;
        let edge = 8.0 * hosts; // SourceEdge: node and edge of each host
        match self.kind {
            LbKind::Ecmp | LbKind::Memr => 8.0 * nodes,
            LbKind::Rps => rng * nodes,
            LbKind::Drb => edge + 2.0 * flows * 2.0,
            LbKind::Presto => edge + 2.0 * flows * 16.0,
            LbKind::LetFlow => edge + 2.0 * flows * 24.0 + rng * nodes,
            LbKind::Conga => {
                // Its width is the leaf-to-leaf paths (up to 255): (k/2)² on a fat-tree,
                // whose edge switches have k links.
                let paths = (width / 2.0).powi(2).clamp(1.0, 255.0);
                edge + 2.0 * flows * 24.0
                    + (rng + 4.0) * nodes
                    + 24.0 * ports
                    + leaves * leaves * (paths * 27.0 + 4.0)
            }
            LbKind::Drill => rng * nodes + nodes * hosts * self.drill_memory as f64 * 4.0,
            LbKind::Tr => {
                edge + (rng + 5.0) * nodes
                    + 38.0 * ports
                    + leaves * leaves * width * 24.0
                    + flows * width * 8.0
                    + 2.0 * flows * 24.0
            }
            LbKind::BcubePaths => 16.0 * nodes + rng * nodes,
        }
    }

    /// Refuses a path choice that cannot work on the scenario's topology kind.
    pub fn check_topology(&self, topology_kind: &str) -> ConfigResult<()> {
        if self.kind == LbKind::BcubePaths && topology_kind != "bcube" {
            return Err(ConfigError::new(
                "routing.lb",
                format!(
                    "'bcube_paths' forwards along BCube's address-based parallel paths and \
                     needs topology.kind = \"bcube\" (this topology is '{topology_kind}'); \
                     use another path choice such as ecmp"
                ),
            ));
        }
        if self.kind == LbKind::Tr && topology_kind != "leafspine" {
            return Err(ConfigError::new(
                "routing.lb",
                format!(
                    "'tr' predicts each packet's arrival at the next leaf over one spine and \
                     needs topology.kind = \"leafspine\" (this topology is '{topology_kind}'); \
                     use another path choice such as ecmp"
                ),
            ));
        }
        Ok(())
    }
}

fn kind_name(k: LbKind) -> &'static str {
    match k {
        LbKind::Ecmp => "ecmp",
        LbKind::Rps => "rps",
        LbKind::Drb => "drb",
        LbKind::Presto => "presto",
        LbKind::LetFlow => "letflow",
        LbKind::Conga => "conga",
        LbKind::Drill => "drill",
        LbKind::Tr => "tr",
        LbKind::BcubePaths => "bcube_paths",
        LbKind::Memr => "memr",
    }
}

/// What a path choice may look at besides the packet: the time, the routing tables and the
/// ports (DRILL reads their queue lengths, CONGA their peers).
pub struct Fabric<'a> {
    pub now: Time,
    pub routing: &'a RoutingTable,
    pub ports: &'a mut [Port],
}

pub enum PathChoice {
    Ecmp { seeds: Vec<u64> },
    Rps(rps::Rps),
    Drb(drb::Drb),
    Presto(presto::Presto),
    LetFlow(letflow::LetFlow),
    Conga(Box<conga::Conga>),
    Drill(drill::Drill),
    Tr(Box<tr::Tr>),
    BcubePaths(bcube_paths::BcubePaths),
}

impl PathChoice {
    /// The scheme of `params` for `net`, with per-flow state for `flows` flows.
    pub fn new(params: &LbParams, net: &Network, flows: usize, seed: u64) -> PathChoice {
        let nodes = net.nodes.len();
        match params.kind {
            // MEMR routes MERP's own packets in its switch agent; ECMP does the rest.
            LbKind::Ecmp | LbKind::Memr => PathChoice::Ecmp {
                seeds: (0..nodes as u64)
                    .map(|n| rng::derive_u64(seed, "ecmp", n))
                    .collect(),
            },
            LbKind::Rps => PathChoice::Rps(rps::Rps::new(nodes, seed)),
            LbKind::Drb => PathChoice::Drb(drb::Drb::new(
                SourceEdge::new(net),
                flows,
                params.reorder_timeout,
                seed,
            )),
            LbKind::Presto => PathChoice::Presto(presto::Presto::new(
                SourceEdge::new(net),
                flows,
                params.flowcell_bytes,
                params.reorder_timeout,
                seed,
            )),
            LbKind::LetFlow => PathChoice::LetFlow(letflow::LetFlow::new(
                SourceEdge::new(net),
                flows,
                params.flowlet_gap,
                seed,
            )),
            LbKind::Conga => PathChoice::Conga(Box::new(conga::Conga::new(
                SourceEdge::new(net),
                net,
                flows,
                params,
                seed,
            ))),
            LbKind::Drill => PathChoice::Drill(drill::Drill::new(
                nodes,
                net.hosts.len(),
                params.drill_samples as usize,
                params.drill_memory as usize,
                seed,
            )),
            LbKind::Tr => PathChoice::Tr(Box::new(tr::Tr::new(
                SourceEdge::new(net),
                net,
                flows,
                params,
                seed,
            ))),
            LbKind::BcubePaths => PathChoice::BcubePaths(bcube_paths::BcubePaths::new(net, seed)),
        }
    }

    /// Picks one of `candidates` (non-empty) for `pkt` at `node`; may write the packet's
    /// [`LbFields`](crate::net::packet::LbFields).
    #[inline]
    pub fn choose(
        &mut self,
        node: NodeIdx,
        pkt: &mut Packet,
        candidates: &[PortIdx],
        fabric: &mut Fabric,
    ) -> PortIdx {
        if let Some(port) = self.ecmp_choice(node, pkt, candidates) {
            return port;
        }
        match self {
            PathChoice::Ecmp { .. } => unreachable!("chosen above: candidates are never empty"),
            PathChoice::Rps(s) => s.choose(node, candidates),
            PathChoice::Drb(s) => s.choose(node, pkt, candidates),
            PathChoice::Presto(s) => s.choose(node, pkt, candidates),
            PathChoice::LetFlow(s) => s.choose(node, pkt, candidates, fabric.now),
            PathChoice::Conga(s) => s.choose(node, pkt, candidates, fabric),
            PathChoice::Drill(s) => s.choose(node, pkt.dst, candidates, fabric),
            PathChoice::Tr(s) => s.choose(node, pkt, candidates, fabric),
            // Not limited to the candidates: most parallel paths are not shortest.
            PathChoice::BcubePaths(s) => s.choose(node, pkt),
        }
    }

    /// ECMP's port among non-empty `candidates`; `None` for other schemes or no candidate.
    #[inline]
    pub fn ecmp_choice(
        &self,
        node: NodeIdx,
        pkt: &Packet,
        candidates: &[PortIdx],
    ) -> Option<PortIdx> {
        let PathChoice::Ecmp { seeds } = self else {
            return None;
        };
        match candidates.len() {
            0 => None,
            1 => Some(candidates[0]),
            n => Some(candidates[hash_threshold(flow_hash(seeds[node as usize], pkt), n)]),
        }
    }

    /// A port accepted a packet of `bytes` (CONGA's DRE counts it).
    #[inline]
    pub fn on_accept(&mut self, port: PortIdx, bytes: u64, now: Time) {
        if let PathChoice::Conga(s) = self {
            s.on_accept(port, bytes, now);
        }
    }

    /// `pkt` crossed the link of port `from` and is at its far end, before it is delivered or
    /// routed there (TR's spines write into reverse ACKs here, and its leaves read them).
    #[inline]
    pub fn on_arrive(&mut self, from: PortIdx, pkt: &mut Packet, ports: &mut [Port], now: Time) {
        if let PathChoice::Tr(s) = self {
            s.on_arrive(from, pkt, ports, now);
        }
    }

    /// Routing tables were recomputed (a link failed or came back).
    pub fn on_reroute(&mut self) {
        if let PathChoice::Conga(s) = self {
            s.on_reroute();
        }
    }

    /// The reordering buffer this scheme puts in front of each flow's receiver, if any.
    pub fn resequencer(&self) -> Option<resequencer::Resequencer> {
        match self {
            PathChoice::Drb(s) => Some(resequencer::Resequencer::new(
                resequencer::Mode::HoldEveryGap,
                s.reorder_timeout,
            )),
            PathChoice::Presto(s) => Some(resequencer::Resequencer::new(
                resequencer::Mode::FlowcellBoundary,
                s.reorder_timeout,
            )),
            _ => None,
        }
    }
}

/// Index of a flow's direction in per-flow state: data direction 2f, reverse (ACKs) 2f + 1.
#[inline]
pub fn flow_dir(pkt: &Packet) -> usize {
    pkt.flow as usize * 2 + pkt.kind.is_reverse() as usize
}

/// Where packets enter the fabric: the edge switch of every host, for the schemes that choose
/// a whole path there (see "Paths chosen at the source edge").
pub struct SourceEdge {
    /// Node of each host id, and the node its first link leads to.
    host_node: Vec<NodeIdx>,
    edge_of_host: Vec<NodeIdx>,
    nodes: usize,
}

impl SourceEdge {
    pub fn new(net: &Network) -> SourceEdge {
        let edge_of_host = net
            .hosts
            .iter()
            .map(|&h| {
                net.nodes[h as usize]
                    .ports
                    .first()
                    .map_or(h, |&p| net.ports[p as usize].peer)
            })
            .collect();
        SourceEdge {
            host_node: net.hosts.clone(),
            edge_of_host,
            nodes: net.nodes.len(),
        }
    }

    /// Nodes in the network (for per-node state of the schemes).
    pub fn nodes_hint(&self) -> usize {
        self.nodes
    }

    /// The edge switch of host `h`.
    #[inline]
    pub fn edge(&self, h: u32) -> NodeIdx {
        self.edge_of_host[h as usize]
    }

    /// Whether `node` is where `pkt` enters the fabric.
    #[inline]
    pub fn is_source(&self, node: NodeIdx, pkt: &Packet) -> bool {
        self.edge_of_host[pkt.src as usize] == node
    }

    /// A choice at a node that is not the source edge: the next digit of the packet's path, or
    /// the flow hash at a multi-homed sending host.
    #[inline]
    pub fn follow(&self, node: NodeIdx, pkt: &mut Packet, candidates: &[PortIdx]) -> PortIdx {
        let m = candidates.len();
        if m == 1 {
            return candidates[0];
        }
        if self.host_node[pkt.src as usize] == node {
            return candidates[hash_threshold(flow_hash(0, pkt), m)];
        }
        let digit = pkt.lb.path as usize % m;
        pkt.lb.path /= m as u16;
        candidates[digit]
    }
}

/// At the source edge: takes the first digit of `path` here and leaves the rest in the packet.
#[inline]
pub fn start_path(pkt: &mut Packet, path: u32, candidates: &[PortIdx]) -> PortIdx {
    let m = candidates.len() as u32;
    pkt.lb.path = (path / m) as u16;
    candidates[(path % m) as usize]
}

/// Hash of the packet's flow identity in its direction of travel.
#[inline]
pub fn flow_hash(seed: u64, pkt: &Packet) -> u64 {
    let tuple = ((pkt.src as u64) << 32) | pkt.dst as u64;
    rng::mix(seed ^ rng::mix(tuple ^ ((pkt.path_key as u64) << 17)))
}

/// RFC 2992 hash-threshold: region `floor(h · n / 2^64)`.
#[inline]
pub fn hash_threshold(h: u64, n: usize) -> usize {
    ((h as u128 * n as u128) >> 64) as usize
}

/// One random stream per node, named `name` (so that no switch's draws depend on another's).
pub(crate) fn node_streams(seed: u64, name: &str, nodes: usize) -> Vec<rng::StreamRng> {
    use rand_chacha::rand_core::SeedableRng;
    (0..nodes as u64)
        .map(|n| rng::StreamRng::seed_from_u64(rng::derive_u64(seed, name, n)))
        .collect()
}

#[cfg(test)]
pub(crate) mod testnet {
    //! Small networks built through the real topology builders, for the schemes' unit tests.
    use crate::net::queue::Discipline;
    use crate::net::Network;
    use crate::topo::{self, TopologyConfig};

    /// A leaf-spine from `[topology]` TOML lines.
    pub fn build(toml_body: &str) -> Network {
        let cfg: TopologyConfig = toml::from_str(toml_body).unwrap();
        let spec = topo::build(&cfg, std::path::Path::new("."), 1).unwrap();
        Network::build(&spec, Discipline::Fifo, &|_| None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(lb: &str, f: impl FnOnce(&mut RoutingConfig)) -> ConfigResult<LbParams> {
        let mut c = RoutingConfig {
            lb: lb.into(),
            ..Default::default()
        };
        f(&mut c);
        LbParams::from_config(&c)
    }

    #[test]
    fn hash_threshold_cuts_key_space_in_equal_regions() {
        assert_eq!(hash_threshold(0, 4), 0);
        assert_eq!(hash_threshold(u64::MAX / 4 - 1, 4), 0);
        assert_eq!(hash_threshold(u64::MAX / 4 + 1, 4), 1);
        assert_eq!(hash_threshold(u64::MAX, 4), 3);
    }

    fn ecmp(nodes: usize) -> PathChoice {
        PathChoice::Ecmp {
            seeds: (0..nodes as u64)
                .map(|n| rng::derive_u64(1, "ecmp", n))
                .collect(),
        }
    }

    #[test]
    fn ecmp_is_per_flow_and_spreads_flows() {
        let routing = RoutingTable::empty();
        let mut ports: Vec<Port> = Vec::new();
        let mut fabric = Fabric {
            now: Time::ZERO,
            routing: &routing,
            ports: &mut ports,
        };
        let mut lb = ecmp(2);
        let cands = [10, 11, 12, 13];
        let mut counts = [0usize; 4];
        for key in 0..4000u32 {
            let mut p = Packet {
                src: 1,
                dst: 2,
                path_key: key,
                ..Default::default()
            };
            let first = lb.choose(0, &mut p, &cands, &mut fabric);
            let again = lb.choose(
                0,
                &mut Packet {
                    seq: 99,
                    ..p.clone()
                },
                &cands,
                &mut fabric,
            );
            assert_eq!(first, again, "a flow's packets take one path");
            counts[(first - 10) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (900..1100).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn seeds_differ_per_switch() {
        let routing = RoutingTable::empty();
        let mut ports: Vec<Port> = Vec::new();
        let mut fabric = Fabric {
            now: Time::ZERO,
            routing: &routing,
            ports: &mut ports,
        };
        let mut lb = ecmp(2);
        let cands = [0, 1];
        let same = (0..1000u32)
            .filter(|&k| {
                let mut p = Packet {
                    path_key: k,
                    ..Default::default()
                };
                lb.choose(0, &mut p, &cands, &mut fabric)
                    == lb.choose(1, &mut p, &cands, &mut fabric)
            })
            .count();
        assert!(
            (400..600).contains(&same),
            "choices at two switches look correlated: {same}"
        );
    }

    #[test]
    fn unknown_lb_names_the_valid_ones() {
        let err = params("magic", |_| {}).unwrap_err();
        assert_eq!(err.path, "routing.lb");
        for (name, _) in PATH_CHOICES {
            assert!(err.message.contains(name), "{}", err.message);
        }
    }

    #[test]
    fn defaults_match_the_documented_table() {
        let p = params("conga", |_| {}).unwrap();
        assert_eq!(p.flowlet_gap, Time::from_us(500));
        assert_eq!(p.flowcell_bytes, 65_536);
        assert_eq!(p.reorder_timeout, Time::from_us(100));
        assert_eq!(p.conga_tau, Time::from_us(160));
        assert_eq!(p.conga_metric_bits, 3);
        assert_eq!(p.conga_aging, Time::from_ms(10));
        assert_eq!((p.drill_samples, p.drill_memory), (2, 1));
        let p = params("tr", |_| {}).unwrap();
        assert_eq!((p.tr_long_bytes, p.tr_queue_bits), (100_000, 5));
        assert_eq!(p.tr_inactive, None, "one RTT, from the network");
    }

    #[test]
    fn keys_of_other_schemes_are_refused_by_name() {
        let err = params("ecmp", |c| c.flowlet_gap_us = Some(100.0)).unwrap_err();
        assert_eq!(err.path, "routing.flowlet_gap_us");
        assert!(err.message.contains("letflow or conga"), "{}", err.message);
        let err = params("rps", |c| c.drill_samples = Some(3)).unwrap_err();
        assert_eq!(err.path, "routing.drill_samples");
        let err = params("letflow", |c| c.flowcell_bytes = Some(1000)).unwrap_err();
        assert_eq!(err.path, "routing.flowcell_bytes");
        assert!(params("drb", |c| c.reorder_timeout_us = Some(50.0)).is_ok());
        assert!(params("presto", |c| c.flowcell_bytes = Some(1000)).is_ok());
    }

    #[test]
    fn bad_values_are_refused_by_name() {
        let err = params("letflow", |c| c.flowlet_gap_us = Some(0.0)).unwrap_err();
        assert_eq!(err.path, "routing.flowlet_gap_us");
        let err = params("conga", |c| c.conga_metric_bits = Some(9)).unwrap_err();
        assert_eq!(err.path, "routing.conga_metric_bits");
        let err = params("drill", |c| c.drill_samples = Some(0)).unwrap_err();
        assert_eq!(err.path, "routing.drill_samples");
        let err = params("presto", |c| c.flowcell_bytes = Some(0)).unwrap_err();
        assert_eq!(err.path, "routing.flowcell_bytes");
    }

    /// The transport of `protocol` with its defaults.
    fn transport(protocol: &str) -> Transport {
        Transport::from_config(&crate::protocols::TransportConfig::from_keys(protocol, &[]))
            .unwrap()
    }

    #[test]
    fn transports_with_state_on_the_path_need_one_path_per_flow() {
        for lb in ["rps", "drb", "presto", "letflow", "conga", "drill", "tr"] {
            let p = params(lb, |_| {}).unwrap();
            assert!(!p.keeps_a_flow_on_one_path());
            for protocol in ["d3", "pdq", "mpdq", "merp", "pace"] {
                let err = p.check_transport(&transport(protocol)).unwrap_err();
                assert_eq!(err.path, "routing.lb");
                assert!(err.message.contains(lb) && err.message.contains(protocol));
                assert!(err.message.contains("use ecmp"), "{}", err.message);
            }
            for protocol in ["tcp", "dctcp", "d2tcp", "mcp", "rcp", "pfabric"] {
                let t = transport(protocol);
                assert!(p.check_transport(&t).is_ok(), "{lb} {protocol}");
            }
        }
        for lb in ["ecmp", "bcube_paths"] {
            let p = params(lb, |_| {}).unwrap();
            for protocol in ["d3", "pdq", "mpdq", "merp", "pace"] {
                let t = transport(protocol);
                assert!(p.check_transport(&t).is_ok(), "{lb} {protocol}");
            }
        }
        let memr = params("memr", |_| {}).unwrap();
        assert!(memr.check_transport(&transport("merp")).is_ok());
    }

    #[test]
    fn bcube_paths_only_on_bcube() {
        let p = params("bcube_paths", |_| {}).unwrap();
        assert!(p.check_topology("bcube").is_ok());
        let err = p.check_topology("fattree").unwrap_err();
        assert_eq!(err.path, "routing.lb");
        assert!(err.message.contains("fattree"), "{}", err.message);
        assert!(params("ecmp", |_| {})
            .unwrap()
            .check_topology("fattree")
            .is_ok());
    }

    #[test]
    fn tr_only_on_leaf_spines_and_its_keys_checked() {
        let p = params("tr", |_| {}).unwrap();
        assert!(p.check_topology("leafspine").is_ok());
        let err = p.check_topology("fattree").unwrap_err();
        assert_eq!(err.path, "routing.lb");
        assert!(err.message.contains("leafspine"), "{}", err.message);
        let err = params("tr", |c| c.tr_queue_bits = Some(6)).unwrap_err();
        assert_eq!(err.path, "routing.tr_queue_bits");
        let err = params("tr", |c| c.tr_inactive_us = Some(-1.0)).unwrap_err();
        assert_eq!(err.path, "routing.tr_inactive_us");
        let err = params("ecmp", |c| c.tr_long_bytes = Some(1)).unwrap_err();
        assert_eq!(err.path, "routing.tr_long_bytes");
        assert!(err.message.contains("lb = tr"), "{}", err.message);
        let p = params("tr", |c| c.tr_inactive_us = Some(300.0)).unwrap();
        assert_eq!(p.tr_inactive, Some(Time::from_us(300)));
        assert!(!p.tr_spray_acks);
        let p = params("tr", |c| c.tr_ack_path = Some("spray".into())).unwrap();
        assert!(p.tr_spray_acks);
        let err = params("tr", |c| c.tr_ack_path = Some("ecmp".into())).unwrap_err();
        assert_eq!(err.path, "routing.tr_ack_path");
        assert!(err.message.contains("spray"), "{}", err.message);
    }

    #[test]
    fn path_digits_are_consumed_least_significant_first() {
        let mut p = Packet::default();
        // 2 uplinks at the edge, then 3 at the next choice point: path 5 = 1 + 2·2.
        assert_eq!(start_path(&mut p, 5, &[10, 11]), 11);
        let net = testnet::build("kind = \"star\"\nhosts = 2");
        let edge = SourceEdge::new(&net);
        p.src = 0;
        assert_eq!(edge.follow(99, &mut p, &[20, 21, 22]), 22);
        assert_eq!(p.lb.path, 0);
    }
}
