//! # DRB: digit-reversal bouncing
//!
//! J. Cao, R. Xia, P. Yang, C. Guo, G. Lu, L. Yuan, Y. Zheng, H. Wu, Y. Xiong, D. Maltz,
//! "Per-packet Load-balanced, Low-Latency Routing for Clos-based Data Center Networks", ACM
//! CoNEXT 2013 (§3, DRB; baselines.md §11).
//!
//! The sender bounces every packet off a top-level switch — a spine in a leaf-spine, a core
//! switch in a fat-tree across pods, an aggregation switch inside a pod — chosen round-robin in
//! **digit-reversed** order, so that consecutive packets also alternate the first-hop uplinks
//! ("perfect interleaving"). The receiver resequences.
//!
//! How it maps here: the bouncing switch is a path number chosen at the sender's edge switch
//! (see "Paths chosen at the source edge" in [`crate::lb`]): each direction of each flow keeps a
//! counter `n`, advanced by one per packet, and `n`'s mixed-radix digits, least significant
//! first, pick the uplink at each choice point. With k/2 uplinks at the edge and k/2 at the
//! aggregation switch, `n = 0, 1, 2, 3` (k = 4) bounces off cores 0, 2, 1, 3: the
//! digit-reversed round-robin. Routing by the tables replaces IP-in-IP encapsulation.
//!
//! Receiver: a resequencing buffer in front of TCP ([`super::resequencer`], mode
//! "hold every gap"): a packet above the next expected byte is held until the gap fills or
//! `routing.reorder_timeout_us` (100 µs) after the hold began, then everything held goes up in
//! sequence order.
//!
//! Choices where the paper is silent (or not checked): each flow direction starts its counter
//! at a random position (`drb` stream), so flows do not bounce in step; the counter is 16 bits
//! and wraps (one irregular step every 65 536 packets when the path count does not divide
//! 2¹⁶); the 20-byte encapsulation overhead is not modelled; the buffer has no size limit (a
//! hold is bounded by the timeout); the ns-3 reading's separate 5 µs in-order timer is not
//! modelled.

use super::{flow_dir, start_path, SourceEdge};
use crate::net::packet::Packet;
use crate::net::{NodeIdx, PortIdx};
use crate::rng;
use crate::units::Time;

pub struct Drb {
    edge: SourceEdge,
    /// Next path number per flow direction.
    counters: Vec<u16>,
    pub reorder_timeout: Time,
}

impl Drb {
    pub fn new(edge: SourceEdge, flows: usize, reorder_timeout: Time, seed: u64) -> Drb {
        Drb {
            edge,
            counters: (0..2 * flows as u64)
                .map(|i| rng::derive_u64(seed, "drb", i) as u16)
                .collect(),
            reorder_timeout,
        }
    }

    #[inline]
    pub fn choose(&mut self, node: NodeIdx, pkt: &mut Packet, candidates: &[PortIdx]) -> PortIdx {
        // The path is set at the source edge even when it has one uplink: later choice points
        // (an aggregation switch after a failure) still read its digits.
        if self.edge.is_source(node, pkt) {
            let c = &mut self.counters[flow_dir(pkt)];
            let n = *c;
            *c = n.wrapping_add(1);
            return start_path(pkt, n as u32, candidates);
        }
        self.edge.follow(node, pkt, candidates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lb::testnet;

    /// A k = 4 fat-tree: 16 hosts, 4 cores. Host 0 (pod 0) to host 15 (pod 3): consecutive
    /// packets bounce off the cores in digit-reversed order and alternate edge uplinks.
    #[test]
    fn bounces_in_digit_reversed_order_in_a_fat_tree() {
        let net = testnet::build("kind = \"fattree\"\nk = 4");
        let mut drb = Drb::new(SourceEdge::new(&net), 1, Time::from_us(100), 1);
        drb.counters[0] = 0;
        let mut cores = Vec::new();
        let mut first_hops = Vec::new();
        for seq in 0..8u64 {
            let mut pkt = Packet {
                src: 0,
                dst: 15,
                seq,
                ..Default::default()
            };
            let mut node = net.hosts[0];
            let mut visited = Vec::new();
            while node != net.hosts[15] {
                let cands = net.routing.next_hops(node, 15).to_vec();
                let port = drb.choose(node, &mut pkt, &cands);
                node = net.ports[port as usize].peer;
                visited.push(net.node_name(node).to_string());
            }
            first_hops.push(visited[1].clone());
            cores.push(visited[2].clone());
        }
        assert_eq!(
            cores,
            ["core0", "core2", "core1", "core3", "core0", "core2", "core1", "core3"]
        );
        assert_eq!(first_hops[0], "agg0_0");
        assert_eq!(first_hops[1], "agg0_1");
        assert_ne!(first_hops[2], first_hops[3]);
    }

    #[test]
    fn flows_start_at_different_positions() {
        let net =
            testnet::build("kind = \"leafspine\"\nleaves = 2\nspines = 4\nhosts_per_leaf = 2");
        let drb = Drb::new(SourceEdge::new(&net), 50, Time::from_us(100), 1);
        let distinct: std::collections::BTreeSet<u16> =
            drb.counters.iter().map(|c| c % 4).collect();
        assert_eq!(distinct.len(), 4);
    }
}
