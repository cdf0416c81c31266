//! The dispatch to the path choice a run uses: one enum, matched per packet (no boxed trait
//! objects on the hot path).

use super::{
    bcube_paths, conga, drb, drill, flow_hash, hash_threshold, letflow, presto, resequencer, rps,
    tr, LbKind, LbParams, SourceEdge,
};
use crate::net::network::Port;
use crate::net::packet::Packet;
use crate::net::routing::RoutingTable;
use crate::net::{Network, NodeIdx, PortIdx};
use crate::rng;
use crate::units::Time;

/// What a path choice may look at besides the packet: the time, the routing tables and the
/// ports (DRILL reads their queue lengths, CONGA their peers).
pub struct Fabric<'a> {
    pub now: Time,
    pub routing: &'a RoutingTable,
    pub ports: &'a mut [Port],
}

/// The path choice of a run: one variant per [`LbKind`], but MEMR, which routes with ECMP's
/// hash outside MERP's packets.
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
