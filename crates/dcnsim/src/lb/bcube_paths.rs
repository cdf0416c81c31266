//! # `bcube_paths`: BCube's k+1 parallel paths, one per flow
//!
//! C. Guo, G. Lu, D. Li, H. Wu, X. Zhang, Y. Shi, C. Tian, Y. Zhang, S. Lu, "BCube: A High
//! Performance, Server-centric Network Architecture for Modular Data Centers", SIGCOMM 2009,
//! §4.1 (BuildPathSet); used by PDQ's M-PDQ (Hong et al., SIGCOMM 2012, §6: "We implement
//! BCube address-based routing to derive multiple parallel paths", subflows placed on them by
//! flow-level ECMP).
//!
//! Only for `topology.kind = "bcube"`. Between servers A and B, BuildPathSet gives one path per
//! level i = 0…k, and the k+1 paths are link- and intermediate-node-disjoint: when a_i ≠ b_i
//! (DCRouting) the differing digits are corrected in the cyclic order i, i−1, …, 0, k, …, i+1;
//! when a_i = b_i (AltDCRouting) the path first steps to the level-i neighbour whose digit i is
//! a_i + 1 mod n, then corrects from i−1 downwards, digit i last. With h differing digits the
//! first h paths have h server hops, the others h + 2 ([`crate::topo::bcube::parallel_paths`]
//! lists them; the tests check that packets follow exactly those).
//!
//! **Which path.** Each (sub)flow hashes its 5-tuple in the data direction (source, destination,
//! path key) onto i = 0…k with one seed for the whole network, so every node computes the same
//! i: flow-level ECMP over the parallel paths, as the PDQ paper says. Subflows of one M-PDQ flow
//! can therefore share a path (4 subflows land on 4 different paths with probability 4!/4⁴).
//!
//! **Forwarding, from addresses.** No table: each node derives its next hop from the packet's
//! source, destination and i in O(k), with no allocation.
//!
//! - A server at address C (the source or a relay) leaves by its level-l port, l being the
//!   first digit in the path's correction order where C differs from the destination. The
//!   source of an AltDCRouting path instead leaves by port i (the detour). Whether a digit is
//!   already corrected is read from C itself, so a relay needs no per-flow state.
//! - A level-l switch sends the packet to its server whose digit l is the destination's digit l
//!   — except the detour: on an AltDCRouting path, the source's level-i switch sends it to the
//!   neighbour with digit i = a_i + 1 mod n. (A path crosses each switch at most once.)
//!
//! **Reverse packets** (ACKs, SYN-ACKs) retrace their flow's data path backwards: the same i,
//! the corrections undone in reverse order (ascending from i+1, digit i last; an AltDCRouting
//! path's reverse starts with the detour at B). PDQ routes its ACKs over the recorded forward
//! hops itself ([`crate::protocols::pdq`]), which gives the same links.
//!
//! Choices and limits: the routing tables (shortest paths) are not consulted, so a link
//! failure is not routed around — packets of the paths through it are lost, as with a source
//! route (BCube's source re-probes paths with BSR, not modelled). The ideal FCT is still that
//! of the best shortest path, so a flow on an AltDCRouting path (two hops longer) has a
//! slightly higher slowdown than its path alone would explain.

use super::hash_threshold;
use crate::net::packet::Packet;
use crate::net::{Network, NodeIdx, PortIdx};
use crate::rng;

#[derive(Clone, Copy, Debug)]
enum Role {
    /// A server, by its address (its host id).
    Server(u32),
    /// A level-`level` switch; `base` is the address of its port-0 server (digit `level` 0):
    /// its port d leads to server `base + d·n^level`.
    Switch { level: u32, base: u32 },
}

pub struct BcubePaths {
    n: u32,
    /// k + 1.
    levels: u32,
    /// n^l for l = 0…k.
    pow: Vec<u32>,
    roles: Vec<Role>,
    /// Each node's egress ports in link order: a server's port l leads to its level-l switch,
    /// a switch's port d to its server with digit d (see [`crate::topo::bcube`]).
    ports: Vec<Vec<PortIdx>>,
    seed: u64,
}

impl BcubePaths {
    /// Reads n, k and every node's place from a network built by the `bcube` topology.
    pub fn new(net: &Network, seed: u64) -> BcubePaths {
        let host_node = |h: u32| net.hosts[h as usize] as usize;
        let levels = net.nodes[host_node(0)].ports.len() as u32;
        let first_switch = net.ports[net.nodes[host_node(0)].ports[0] as usize].peer;
        let n = net.nodes[first_switch as usize].ports.len() as u32;
        let pow: Vec<u32> = (0..levels).map(|l| n.pow(l)).collect();
        assert_eq!(
            net.hosts.len() as u64,
            n as u64 * pow[levels as usize - 1] as u64,
            "bcube_paths needs a BCube network (checked in prepare)"
        );
        let mut roles: Vec<Option<Role>> = vec![None; net.nodes.len()];
        for h in 0..net.hosts.len() as u32 {
            roles[host_node(h)] = Some(Role::Server(h));
            for (level, &p) in net.nodes[host_node(h)].ports.iter().enumerate() {
                if (h / pow[level]).is_multiple_of(n) {
                    let sw = net.ports[p as usize].peer as usize;
                    roles[sw] = Some(Role::Switch {
                        level: level as u32,
                        base: h,
                    });
                }
            }
        }
        let roles: Vec<Role> = roles
            .into_iter()
            .map(|r| r.expect("every BCube node is a server or a switch of one"))
            .collect();
        // The forwarding rules rely on the port order; check it once here.
        for (node, role) in roles.iter().enumerate() {
            if let Role::Switch { level, base } = *role {
                for (d, &p) in net.nodes[node].ports.iter().enumerate() {
                    let server = base + d as u32 * pow[level as usize];
                    assert_eq!(net.ports[p as usize].peer as usize, host_node(server));
                }
            }
        }
        BcubePaths {
            n,
            levels,
            pow,
            roles,
            ports: net.nodes.iter().map(|x| x.ports.clone()).collect(),
            seed: rng::derive_u64(seed, "bcube_paths", 0),
        }
    }

    #[inline]
    fn digit(&self, addr: u32, level: u32) -> u32 {
        (addr / self.pow[level as usize]) % self.n
    }

    /// The parallel path (its level i) of the flow `from` → `to` (data direction) with `key`.
    #[inline]
    pub fn path_of(&self, from: u32, to: u32, key: u32) -> u32 {
        let tuple = ((from as u64) << 32) | to as u64;
        let h = rng::mix(self.seed ^ rng::mix(tuple ^ ((key as u64) << 17)));
        hash_threshold(h, self.levels as usize) as u32
    }

    #[inline]
    pub fn choose(&self, node: NodeIdx, pkt: &Packet) -> PortIdx {
        let reverse = pkt.kind.is_reverse();
        // A reverse packet's path is its flow's, so hash the data direction.
        let (from, to) = if reverse {
            (pkt.dst, pkt.src)
        } else {
            (pkt.src, pkt.dst)
        };
        let i = self.path_of(from, to, pkt.path_key);
        self.next_port(node, pkt.src, pkt.dst, i, reverse)
    }

    /// The port leaving `node` on path `i` between servers `origin` and `dst`, travelled from
    /// `origin` (`reverse`: the path of the flow `dst` → `origin`, travelled backwards).
    #[inline]
    pub fn next_port(
        &self,
        node: NodeIdx,
        origin: u32,
        dst: u32,
        i: u32,
        reverse: bool,
    ) -> PortIdx {
        let alt = self.digit(origin, i) == self.digit(dst, i);
        let ports = &self.ports[node as usize];
        match self.roles[node as usize] {
            Role::Server(cur) => {
                if alt && cur == origin {
                    return ports[i as usize]; // the detour through a level-i neighbour
                }
                // Correction order: DCRouting i, i−1, …, i+1; AltDCRouting i−1, …, i+1, i (i is
                // wrong until the last hop); backwards: i+1, i+2, …, i.
                let (first, down) = match (reverse, alt) {
                    (false, false) => (i, true),
                    (false, true) => (i + self.levels - 1, true),
                    (true, _) => (i + 1, false),
                };
                for s in 0..self.levels {
                    let l = if down {
                        (first + self.levels - s) % self.levels
                    } else {
                        (first + s) % self.levels
                    };
                    if self.digit(cur, l) != self.digit(dst, l) {
                        return ports[l as usize];
                    }
                }
                unreachable!("a packet is not forwarded at its destination")
            }
            Role::Switch { level, base } => {
                let clear = |a: u32| a - self.digit(a, level) * self.pow[level as usize];
                let d = if alt && level == i && clear(origin) == base {
                    (self.digit(origin, i) + 1) % self.n
                } else {
                    self.digit(dst, level)
                };
                ports[d as usize]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lb::testnet;
    use crate::net::packet::PacketKind;
    use crate::topo::bcube::parallel_paths;
    use std::collections::BTreeSet;

    /// Walks path `i` from `origin` to `dst`: the servers visited and the ports taken.
    fn walk(
        net: &Network,
        bp: &BcubePaths,
        origin: u32,
        dst: u32,
        i: u32,
        reverse: bool,
    ) -> (Vec<usize>, Vec<PortIdx>) {
        let mut node = net.hosts[origin as usize];
        let (mut servers, mut ports) = (vec![origin as usize], Vec::new());
        while node != net.hosts[dst as usize] {
            assert!(ports.len() <= 4 * bp.levels as usize, "loop");
            let p = bp.next_port(node, origin, dst, i, reverse);
            ports.push(p);
            node = net.ports[p as usize].peer;
            if let Some(h) = net.nodes[node as usize].host {
                servers.push(h as usize);
            }
        }
        (servers, ports)
    }

    fn check(n: usize, k: usize) {
        let net = testnet::build(&format!("kind = \"bcube\"\nn = {n}\nk = {k}"));
        let bp = BcubePaths::new(&net, 1);
        let hosts = net.hosts.len() as u32;
        let mut lengths_seen = BTreeSet::new();
        for a in 0..hosts {
            for b in (0..hosts).filter(|&b| b != a) {
                let h = (0..=k as u32)
                    .filter(|&l| bp.digit(a, l) != bp.digit(b, l))
                    .count();
                let expected = parallel_paths(n, k, a as usize, b as usize);
                let mut links = BTreeSet::new();
                let mut relays = BTreeSet::new();
                let mut short = 0;
                for i in 0..=k as u32 {
                    let (servers, ports) = walk(&net, &bp, a, b, i, false);
                    assert_eq!(servers, expected[i as usize], "{a}→{b} path {i}");
                    // h server hops on the first h paths (DCRouting), h + 2 on the others.
                    let hops = servers.len() - 1;
                    assert!(hops == h || hops == h + 2, "{a}→{b} path {i}: {hops} hops");
                    short += (hops == h) as usize;
                    lengths_seen.insert((h, hops));
                    for &p in &ports {
                        assert!(links.insert(net.ports[p as usize].link), "shared link");
                    }
                    for &s in &servers[1..servers.len() - 1] {
                        assert!(relays.insert(s), "shared relay {s}");
                    }
                    // Backwards (ACKs): the same links, in reverse order.
                    let (back, back_ports) = walk(&net, &bp, b, a, i, true);
                    assert_eq!(back.iter().rev().copied().collect::<Vec<_>>(), servers);
                    let back_links: Vec<u32> = back_ports
                        .iter()
                        .rev()
                        .map(|&p| net.ports[p as usize].link)
                        .collect();
                    let fwd_links: Vec<u32> =
                        ports.iter().map(|&p| net.ports[p as usize].link).collect();
                    assert_eq!(back_links, fwd_links);
                }
                assert_eq!(short, h, "{a}→{b}");
            }
        }
        // Every distance 1…k+1 occurred, with both path lengths where both exist.
        assert!(lengths_seen.contains(&(1, 3)) && lengths_seen.contains(&(k + 1, k + 1)));
    }

    /// Every pair of BCube(2,3) (digits 1–4 apart): the k+1 path indices give BuildPathSet's
    /// paths, link- and relay-disjoint, of h and h+2 server hops; ACKs retrace them.
    #[test]
    fn every_pair_follows_buildpathset_in_bcube_2_3() {
        check(2, 3);
    }

    /// n > 2: the detour digit is a_i + 1 mod n, and switches have n ports.
    #[test]
    fn every_pair_follows_buildpathset_in_bcube_3_2() {
        check(3, 2);
    }

    #[test]
    fn flows_spread_over_paths_and_acks_follow_their_data() {
        let net = testnet::build("kind = \"bcube\"\nn = 2\nk = 3");
        let bp = BcubePaths::new(&net, 7);
        let mut counts = [0usize; 4];
        for key in 0..4000u32 {
            counts[bp.path_of(0, 1, key) as usize] += 1;
            let data = Packet {
                src: 0,
                dst: 1,
                path_key: key,
                ..Default::default()
            };
            let ack = Packet {
                src: 1,
                dst: 0,
                path_key: key,
                kind: PacketKind::Ack,
                ..Default::default()
            };
            // The ACK leaves h1 by the port over which the data came in.
            let data_in = walk(&net, &bp, 0, 1, bp.path_of(0, 1, key), false).1;
            let last = *data_in.last().unwrap();
            let h1 = net.hosts[1];
            assert_eq!(
                bp.choose(h1, &ack),
                net.ports[last as usize].reverse,
                "key {key}"
            );
            assert_eq!(bp.choose(net.hosts[0], &data), data_in[0]);
        }
        assert!(
            counts.iter().all(|&c| (900..1100).contains(&c)),
            "{counts:?}"
        );
    }
}
