//! # LetFlow: a random path per flowlet
//!
//! E. Vanini, R. Pan, M. Alizadeh, P. Taheri, T. Edsall, "Let It Flow: Resilient Asymmetric
//! Load Balancing with Flowlet Switching", USENIX NSDI 2017 (§3; baselines.md §14).
//!
//! At the source leaf, per packet: if the packet's flow sent its previous packet at most
//! `routing.flowlet_gap_us` (500 µs) ago, it continues on that flowlet's path; otherwise a new
//! flowlet starts on a path drawn **uniformly at random**. The gap is compared with the time
//! of the previous packet *before* that time is refreshed. No congestion feedback: on a slow
//! path flowlets stretch, gaps appear, and the flow moves — LetFlow's elasticity argument.
//!
//! Choices where the paper is silent: flowlet state is kept per flow direction, indexed by flow
//! id (an exact table; the hardware's hashed table and its collisions are not modelled); the
//! random path is a whole path chosen at the source edge (see "Paths chosen at the source
//! edge" in [`crate::lb`]) — in a leaf-spine exactly the paper's uplink choice, in a fat-tree
//! the aggregation switch follows the same flowlet decision instead of running its own table;
//! each leaf draws from its own random stream (`letflow`, indexed by node).

use super::{flow_dir, start_path, SourceEdge};
use crate::net::packet::Packet;
use crate::net::{NodeIdx, PortIdx};
use crate::rng::StreamRng;
use crate::units::Time;
use rand::RngExt;

#[derive(Clone, Copy, Debug, Default)]
struct Flowlet {
    /// When the flow direction's previous packet passed; `None` before its first.
    last: Option<Time>,
    path: u32,
}

pub struct LetFlow {
    edge: SourceEdge,
    gap: Time,
    flowlets: Vec<Flowlet>,
    rngs: Vec<StreamRng>,
    /// Flowlets started (for tests and curiosity).
    pub flowlets_started: u64,
}

impl LetFlow {
    pub fn new(edge: SourceEdge, flows: usize, gap: Time, seed: u64) -> LetFlow {
        let nodes = edge.nodes_hint();
        LetFlow {
            edge,
            gap,
            flowlets: vec![Flowlet::default(); 2 * flows],
            rngs: super::node_streams(seed, "letflow", nodes),
            flowlets_started: 0,
        }
    }

    #[inline]
    pub fn choose(
        &mut self,
        node: NodeIdx,
        pkt: &mut Packet,
        candidates: &[PortIdx],
        now: Time,
    ) -> PortIdx {
        if !self.edge.is_source(node, pkt) {
            return self.edge.follow(node, pkt, candidates);
        }
        let f = &mut self.flowlets[flow_dir(pkt)];
        let continues = f.last.is_some_and(|t| now - t <= self.gap);
        if !continues {
            f.path = self.rngs[node as usize].random();
            self.flowlets_started += 1;
        }
        f.last = Some(now);
        start_path(pkt, f.path, candidates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lb::testnet;

    #[test]
    fn path_changes_only_after_a_gap_longer_than_the_timeout() {
        let net =
            testnet::build("kind = \"leafspine\"\nleaves = 2\nspines = 8\nhosts_per_leaf = 1");
        let gap = Time::from_us(500);
        let mut lf = LetFlow::new(SourceEdge::new(&net), 1, gap, 5);
        let leaf0 = net.ports[net.nodes[net.hosts[0] as usize].ports[0] as usize].peer;
        let cands = net.routing.next_hops(leaf0, 1).to_vec();
        let send = |lf: &mut LetFlow, t: Time| {
            let mut p = Packet {
                src: 0,
                dst: 1,
                ..Default::default()
            };
            lf.choose(leaf0, &mut p, &cands, t)
        };
        // Packets 400 µs apart: one flowlet, one path, however long it lasts.
        let first = send(&mut lf, Time::ZERO);
        for i in 1..20 {
            assert_eq!(send(&mut lf, Time::from_us(400 * i)), first);
        }
        assert_eq!(lf.flowlets_started, 1);
        // Gaps of 501 µs: every packet starts a flowlet; with 8 paths the path changes often.
        let mut t = Time::from_us(400 * 19);
        let mut paths = std::collections::BTreeSet::new();
        for _ in 0..40 {
            t += Time::from_us(501);
            paths.insert(send(&mut lf, t));
        }
        assert_eq!(lf.flowlets_started, 41);
        assert!(paths.len() >= 6, "{paths:?}");
    }
}
