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
//! | `memr` | flow | every switch at a SYN, by MERP's switch agent (MERP only, [`crate::protocols::merp`]); other packets by ECMP | MERP's per-flow tables | no |
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
//! Each scheme declares the keys it reads in its entry of the catalogue ([`LbKind::keys`]); a
//! key set for a scheme that does not use it is refused with an error naming the key and the
//! schemes it belongs to.
//!
//! ## Files
//!
//! - `catalogue.rs`: the one list of schemes ([`LbKind`], [`PATH_CHOICES`]): name, keys, whether
//!   a flow keeps one path, `dcnsim list` line. A new scheme is its file, an entry there, and
//!   its arms in [`PathChoice`] and [`LbParams`] (state size, topology it needs).
//! - `params.rs`: the `[routing]` table ([`RoutingConfig`]) read into [`LbParams`], and the
//!   checks against the topology and the transport.
//! - `choice.rs`: [`PathChoice`], the per-packet dispatch (an enum, no boxed trait objects).
//! - `source_edge.rs`: [`SourceEdge`] and [`start_path`], the path digits below.
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
mod catalogue;
mod choice;
pub mod conga;
pub mod drb;
pub mod drill;
pub mod letflow;
mod params;
pub mod presto;
pub mod resequencer;
pub mod rps;
mod source_edge;
pub mod tr;

pub use catalogue::{LbKind, PATH_CHOICES};
pub use choice::{Fabric, PathChoice};
pub use params::{
    LbParams, RoutingConfig, DEFAULT_CONGA_AGING_US, DEFAULT_CONGA_METRIC_BITS,
    DEFAULT_CONGA_TAU_US, DEFAULT_DRILL_MEMORY, DEFAULT_DRILL_SAMPLES, DEFAULT_FLOWCELL_BYTES,
    DEFAULT_FLOWLET_GAP_US, DEFAULT_REORDER_TIMEOUT_US, DEFAULT_TR_LONG_BYTES,
    DEFAULT_TR_QUEUE_BITS,
};
pub use source_edge::{start_path, SourceEdge};

use crate::net::packet::Packet;
use crate::rng;

/// Index of a flow's direction in per-flow state: data direction 2f, reverse (ACKs) 2f + 1.
#[inline]
pub fn flow_dir(pkt: &Packet) -> usize {
    pkt.flow as usize * 2 + pkt.kind.is_reverse() as usize
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
mod tests;
