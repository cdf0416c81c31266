//! The scale of a network: the round-trip time and bandwidth-delay product of its longest
//! path. Some protocols define their constants relative to the network — pFabric's initial
//! window is "the BDP" and its timeout "about 3 RTT" (§4.2) — so a default fitted to one
//! paper's fabric is wrong on another; [`PathScale`] lets them derive those defaults instead.
//!
//! **The longest path** is the host pair whose base RTT is largest, each pair along the path
//! the ideal FCT uses ([`super::ideal::best_path`]: among equal-cost paths the highest
//! bottleneck rate, then the lowest delay). **Its base RTT** is a full data packet going out
//! and its ACK coming back with no queueing: at every hop the packet's serialisation plus the
//! propagation delay, and the same for the ACK over the reverse port. **Its BDP** is the
//! path's bottleneck rate times that RTT: a window of that many bytes, sent back to back at
//! line rate, lasts until the first ACK returns.
//!
//! Cost: one pass over the routing DAG per *distinct* destination. Hosts attached the same
//! way (same neighbours, rates and delays — the hosts of one rack) have the same distances to
//! every other host, so one of each kind stands for all.

use super::network::{Network, NodeIdx};
use crate::units::{Rate, Time};
use std::collections::HashSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathScale {
    /// Base RTT of the longest path (data packet out, ACK back, no queueing).
    pub rtt: Time,
    /// Bottleneck rate of that path.
    pub rate: Rate,
}

impl PathScale {
    /// The scale of `net` for data packets of `data_bytes` and ACKs of `ack_bytes` on the
    /// wire; `None` when no two hosts are connected.
    pub fn measure(net: &Network, data_bytes: u64, ack_bytes: u64) -> Option<PathScale> {
        let mut best: Option<PathScale> = None;
        // What the walks need of each port, compact (a `Port` is several cache lines), with
        // its share of a round trip computed once: the data packet out over it, the ACK back
        // over its reverse (two 128-bit divisions).
        let hops: Vec<Hop> = net
            .ports
            .iter()
            .map(|port| {
                let back = &net.ports[port.reverse as usize];
                Hop {
                    peer: port.peer,
                    rate: port.rate.0,
                    delay: port.delay.0,
                    rtt: (port.rate.tx_time(data_bytes)
                        + port.delay
                        + back.rate.tx_time(ack_bytes)
                        + back.delay)
                        .ps(),
                }
            })
            .collect();
        let mut memo: Vec<Option<Towards>> = vec![None; net.nodes.len()];
        for dst in representative_hosts(net) {
            memo.fill(None);
            for (src, &node) in net.hosts.iter().enumerate() {
                if src as u32 == dst {
                    continue;
                }
                let t = towards(net, dst, node, &hops, &mut memo);
                if t.rate == 0 {
                    continue; // unreachable
                }
                if best.is_none_or(|b| Time(t.rtt) > b.rtt) {
                    best = Some(PathScale {
                        rtt: Time(t.rtt),
                        rate: Rate(t.rate),
                    });
                }
            }
        }
        best
    }

    /// Bytes in flight on the path at line rate: rate × RTT, rounded up.
    pub fn bdp_bytes(&self) -> u64 {
        let bits = self.rate.bits_per_sec() as u128 * self.rtt.ps() as u128;
        bits.div_ceil(8 * Time::PS_PER_SEC as u128) as u64
    }

    /// The BDP in packets of `packet_bytes`, rounded up (so a window of this many packets
    /// keeps the path busy), at least 1.
    pub fn bdp_pkts(&self, packet_bytes: u64) -> u32 {
        self.bdp_bytes()
            .div_ceil(packet_bytes.max(1))
            .clamp(1, u32::MAX as u64) as u32
    }
}

/// A port as the walks see it: where it leads, its rate and delay, and its share of a round
/// trip (ps).
struct Hop {
    peer: NodeIdx,
    rate: u64,
    delay: u64,
    rtt: u64,
}

/// The best next hop from a node towards one destination, as [`super::ideal::best_path`]
/// chooses it, and the round trip along it. `rate == 0`: unreachable.
#[derive(Clone, Copy, Debug)]
struct Towards {
    /// Bottleneck rate (bit/s) and one-way propagation delay (ps) of the path.
    rate: u64,
    delay: u64,
    /// Base round trip (ps): data out and ACK back over every hop.
    rtt: u64,
}

fn towards(
    net: &Network,
    dst: u32,
    n: NodeIdx,
    hops: &[Hop],
    memo: &mut Vec<Option<Towards>>,
) -> Towards {
    if let Some(t) = memo[n as usize] {
        return t;
    }
    let mut best = Towards {
        rate: 0,
        delay: u64::MAX,
        rtt: 0,
    };
    if net.hosts[dst as usize] == n {
        best = Towards {
            rate: u64::MAX,
            delay: 0,
            rtt: 0,
        };
    } else {
        for &p in net.routing.next_hops(n, dst) {
            let hop = &hops[p as usize];
            let rest = towards(net, dst, hop.peer, hops, memo);
            if rest.rate == 0 {
                continue;
            }
            let cand = Towards {
                rate: rest.rate.min(hop.rate),
                delay: rest.delay.saturating_add(hop.delay),
                rtt: rest.rtt.saturating_add(hop.rtt),
            };
            if cand.rate > best.rate || (cand.rate == best.rate && cand.delay < best.delay) {
                best = cand;
            }
        }
    }
    memo[n as usize] = Some(best);
    best
}

/// One host of each attachment kind: hosts with the same neighbours over links of the same
/// rates and delays are at the same distance from everyone else.
fn representative_hosts(net: &Network) -> Vec<u32> {
    type Attachment = Vec<(NodeIdx, u64, u64, u64, u64)>;
    let mut seen: HashSet<Attachment> = HashSet::new();
    let mut reps = Vec::new();
    for (id, &node) in net.hosts.iter().enumerate() {
        let mut key: Attachment = net.nodes[node as usize]
            .ports
            .iter()
            .map(|&p| {
                let port = &net.ports[p as usize];
                let back = &net.ports[port.reverse as usize];
                (
                    port.peer,
                    port.rate.0,
                    port.delay.0,
                    back.rate.0,
                    back.delay.0,
                )
            })
            .collect();
        key.sort_unstable();
        if seen.insert(key) {
            reps.push(id as u32);
        }
    }
    reps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::Discipline;
    use crate::topo::{self, TopologyConfig};

    fn net_of(cfg: TopologyConfig) -> Network {
        let spec = topo::build(&cfg, std::path::Path::new("."), 1).unwrap();
        Network::build(&spec, Discipline::Fifo, &|_| None)
    }

    /// MERP's single switch: 1 Gb/s, 10 µs per link, two hops each way. Data 1500 B takes
    /// 12 µs per hop, an ACK of 40 B 0.32 µs: RTT = 2·(12 + 10) + 2·(0.32 + 10) = 64.64 µs;
    /// BDP = 1 Gb/s × 64.64 µs = 8080 B = 5.39 packets → 6.
    #[test]
    fn star_by_hand() {
        let mut cfg = TopologyConfig::of_kind("star");
        cfg.hosts = Some(4);
        cfg.link_gbps = 1.0;
        cfg.link_delay_us = Some(10.0);
        let s = PathScale::measure(&net_of(cfg), 1500, 40).unwrap();
        assert_eq!(s.rtt, Time::from_ns(64_640));
        assert_eq!(s.rate, Rate::gbps(1));
        assert_eq!(s.bdp_bytes(), 8080);
        assert_eq!(s.bdp_pkts(1500), 6);
    }

    /// A k=4 fat-tree at 10 Gb/s, 1 µs links: the longest path crosses the core, six hops:
    /// RTT = 6·(1.2 + 1) + 6·(0.032 + 1) = 19.392 µs; BDP = 24 240 B = 16.16 packets → 17.
    /// With a 40 Gb/s core the two core hops are faster: 4·2.2 + 2·(0.3 + 1) + 4·1.032 +
    /// 2·(0.008 + 1) = 17.544 µs, still bottlenecked at 10 Gb/s.
    #[test]
    fn fattree_longest_path_crosses_the_core() {
        let mut cfg = TopologyConfig::of_kind("fattree");
        cfg.k = Some(4);
        let s = PathScale::measure(&net_of(cfg.clone()), 1500, 40).unwrap();
        assert_eq!(s.rtt, Time::from_ns(19_392));
        assert_eq!((s.bdp_bytes(), s.bdp_pkts(1500)), (24_240, 17));
        cfg.core_gbps = Some(40.0);
        let s = PathScale::measure(&net_of(cfg), 1500, 40).unwrap();
        assert_eq!(s.rtt, Time::from_ns(17_544));
        assert_eq!(s.rate, Rate::gbps(10));
    }

    /// A slow link on one path makes that path the longest, and its rate the bottleneck.
    #[test]
    fn slowest_path_sets_the_scale() {
        let mut cfg = TopologyConfig::of_kind("dumbbell");
        cfg.senders = Some(2);
        cfg.bottleneck_gbps = Some(1.0);
        let s = PathScale::measure(&net_of(cfg), 1500, 40).unwrap();
        // h → left (10G), left → right (1G), right → h (10G).
        let expect = 2 * (1_200 + 1_000) + (12_000 + 1_000) + 2 * (32 + 1_000) + (320 + 1_000);
        assert_eq!(s.rtt, Time::from_ns(expect));
        assert_eq!(s.rate, Rate::gbps(1));
    }

    #[test]
    fn one_host_has_no_scale() {
        let mut cfg = TopologyConfig::of_kind("star");
        cfg.hosts = Some(1);
        assert_eq!(PathScale::measure(&net_of(cfg), 1500, 40), None);
    }
}
