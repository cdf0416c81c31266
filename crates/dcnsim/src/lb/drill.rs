//! # DRILL: micro load balancing with local queues
//!
//! S. Ghorbani, Z. Yang, P. B. Godfrey, Y. Ganjali, A. Firoozshahian, "DRILL: Micro Load
//! Balancing for Low-latency Data Center Networks", ACM SIGCOMM 2017 (§3.1, DRILL(d, m);
//! baselines.md §15).
//!
//! Every switch, per packet, independently: among the equal-cost next hops for the packet's
//! destination, sample `routing.drill_samples` (d = 2) distinct ports at random, add the
//! `routing.drill_memory` (m = 1) ports remembered from the previous decision, and send to the
//! one whose **local** egress queue holds the fewest bytes; then remember the m least loaded of
//! those compared. Ties are broken at random. No feedback between switches, no per-flow state.
//!
//! Choices where the paper is silent (or not followed): the memory is kept per (switch,
//! destination host) — one "engine" per candidate set, the safe reading of baselines.md §15 —
//! and a remembered port that is no longer a candidate (after a failure) is ignored; the queue
//! length is the bytes waiting in the egress queue (not yet started on the wire), read at the
//! instant of the decision; each switch draws from its own random stream (`drill`). The
//! paper's decomposition of asymmetric topologies into symmetric components (hash a flow onto a
//! component, weighted by capacity) is **not** implemented: on asymmetric paths this is plain
//! DRILL, which the paper warns against.

use super::Fabric;
use crate::net::{NodeIdx, PortIdx};
use crate::rng::StreamRng;
use rand::RngExt;

const MAX_SAMPLES: usize = 16;
const MAX_MEMORY: usize = 4;
const EMPTY: PortIdx = PortIdx::MAX;

pub struct Drill {
    rngs: Vec<StreamRng>,
    d: usize,
    m: usize,
    hosts: usize,
    /// m remembered ports per (node, destination host); `EMPTY` where none.
    memory: Vec<PortIdx>,
}

impl Drill {
    pub fn new(nodes: usize, hosts: usize, d: usize, m: usize, seed: u64) -> Drill {
        assert!(d <= MAX_SAMPLES && m <= MAX_MEMORY, "checked by LbParams");
        Drill {
            rngs: super::node_streams(seed, "drill", nodes),
            d,
            m,
            hosts,
            memory: vec![EMPTY; nodes * hosts * m],
        }
    }

    #[inline]
    pub fn choose(
        &mut self,
        node: NodeIdx,
        dst: u32,
        candidates: &[PortIdx],
        fabric: &mut Fabric,
    ) -> PortIdx {
        let n = candidates.len();
        if n == 1 {
            return candidates[0];
        }
        let rng = &mut self.rngs[node as usize];
        // Compared ports with their queue lengths: d distinct samples, then the memory.
        let mut compared = [(0u64, EMPTY); MAX_SAMPLES + MAX_MEMORY];
        let mut k = 0;
        let d = self.d.min(n);
        while k < d {
            let p = candidates[rng.random_range(0..n)];
            if compared[..k].iter().all(|c| c.1 != p) {
                compared[k] = (fabric.ports[p as usize].queued_bytes(fabric.now), p);
                k += 1;
            }
        }
        let slot = (node as usize * self.hosts + dst as usize) * self.m;
        for &p in &self.memory[slot..slot + self.m] {
            if p != EMPTY && candidates.contains(&p) && compared[..k].iter().all(|c| c.1 != p) {
                compared[k] = (fabric.ports[p as usize].queued_bytes(fabric.now), p);
                k += 1;
            }
        }
        // Least loaded, ties at random (reservoir sampling over the tied ones).
        let mut best = 0;
        let mut ties = 1;
        for i in 1..k {
            if compared[i].0 < compared[best].0 {
                best = i;
                ties = 1;
            } else if compared[i].0 == compared[best].0 {
                ties += 1;
                if rng.random_range(0..ties) == 0 {
                    best = i;
                }
            }
        }
        let chosen = compared[best].1;
        if self.m > 0 {
            compared.swap(0, best);
            compared[1..k].sort_unstable_by_key(|c| c.0);
            for (i, slot_port) in self.memory[slot..slot + self.m].iter_mut().enumerate() {
                *slot_port = if i < k { compared[i].1 } else { EMPTY };
            }
        }
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lb::testnet;
    use crate::net::packet::{Packet, PacketPool};
    use crate::units::Time;

    /// Fills a port's queue with `pkts` full packets (without sending anything).
    fn load(net: &mut crate::net::Network, pool: &mut PacketPool, port: PortIdx, pkts: u32) {
        for _ in 0..pkts {
            let r = pool.insert(Packet::default());
            net.ports[port as usize].schedule(Time::ZERO, r, 1500);
        }
    }

    #[test]
    fn picks_the_shorter_of_the_sampled_queues_and_remembers_it() {
        let mut net =
            testnet::build("kind = \"leafspine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 1");
        let mut pool = PacketPool::default();
        let leaf0 = net.ports[net.nodes[net.hosts[0] as usize].ports[0] as usize].peer;
        let cands = net.routing.next_hops(leaf0, 1).to_vec();
        // With two candidates and d = 2 both are always compared: the empty one wins.
        load(&mut net, &mut pool, cands[0], 5);
        let mut drill = Drill::new(net.nodes.len(), 2, 2, 1, 1);
        let routing = crate::net::routing::RoutingTable::empty();
        for _ in 0..50 {
            let mut fabric = Fabric {
                now: Time::ZERO,
                routing: &routing,
                ports: &mut net.ports,
            };
            assert_eq!(drill.choose(leaf0, 1, &cands, &mut fabric), cands[1]);
        }
        let slot = leaf0 as usize * 2 + 1; // (node · hosts + dst) · m, m = 1
        assert_eq!(drill.memory[slot], cands[1]);
    }

    #[test]
    fn memory_steers_to_the_remembered_light_port_with_one_sample() {
        // 8 uplinks, 7 loaded: DRILL(1, 1) finds the light one by chance once, then keeps it.
        let mut net =
            testnet::build("kind = \"leafspine\"\nleaves = 2\nspines = 8\nhosts_per_leaf = 1");
        let mut pool = PacketPool::default();
        let leaf0 = net.ports[net.nodes[net.hosts[0] as usize].ports[0] as usize].peer;
        let cands = net.routing.next_hops(leaf0, 1).to_vec();
        for &p in &cands[1..] {
            load(&mut net, &mut pool, p, 3);
        }
        let routing = crate::net::routing::RoutingTable::empty();
        let mut with_memory = Drill::new(net.nodes.len(), 2, 1, 1, 9);
        let mut without = Drill::new(net.nodes.len(), 2, 1, 0, 9);
        let (mut hits_m, mut hits_0) = (0, 0);
        for _ in 0..400 {
            let mut fabric = Fabric {
                now: Time::ZERO,
                routing: &routing,
                ports: &mut net.ports,
            };
            hits_m += (with_memory.choose(leaf0, 1, &cands, &mut fabric) == cands[0]) as u32;
            hits_0 += (without.choose(leaf0, 1, &cands, &mut fabric) == cands[0]) as u32;
        }
        assert!(hits_m > 380, "{hits_m}");
        assert!(
            (25..80).contains(&hits_0),
            "memoryless: 1/8 of 400 expected, got {hits_0}"
        );
    }

    #[test]
    fn ties_are_broken_at_random() {
        let mut net =
            testnet::build("kind = \"leafspine\"\nleaves = 2\nspines = 4\nhosts_per_leaf = 1");
        let leaf0 = net.ports[net.nodes[net.hosts[0] as usize].ports[0] as usize].peer;
        let cands = net.routing.next_hops(leaf0, 1).to_vec();
        let routing = crate::net::routing::RoutingTable::empty();
        let mut drill = Drill::new(net.nodes.len(), 2, 2, 1, 4);
        let mut counts = [0u32; 4];
        for _ in 0..4000 {
            let mut fabric = Fabric {
                now: Time::ZERO,
                routing: &routing,
                ports: &mut net.ports,
            };
            let p = drill.choose(leaf0, 1, &cands, &mut fabric);
            counts[cands.iter().position(|&c| c == p).unwrap()] += 1;
        }
        assert!(counts.iter().all(|c| c.abs_diff(1000) < 150), "{counts:?}");
    }
}
