//! Ideal flow completion time: the flow alone on an idle network, its data packets sent back to
//! back at line rate from time 0 (no handshake, no window), store-and-forward at every hop.
//!
//! On a path of hops with per-packet serialisation weights w(i, h) = size_i / rate_h, packet i
//! leaves hop h at F(i, h) = max(F(i−1, h), F(i, h−1) + d_{h−1}) + w(i, h). The last byte
//! arrives at Σ d_h plus the heaviest monotone path through the (packet × hop) grid. Packets
//! come in two sizes (the full ones, then the last), and through a block of k equal rows the
//! heaviest path crossing from column a to column b is Σ_{a..b} w + (k−1)·max_{a..b} w, so the
//! computation is O(hops), whatever the flow size.

use super::network::{Network, NodeIdx, PortIdx};
use crate::units::Time;

/// The ports of the best shortest path from `src` host to `dst` host: among equal-cost next
/// hops, the highest bottleneck rate, then the lowest total delay. Empty if unreachable.
pub fn best_path(net: &Network, src: u32, dst: u32) -> Vec<PortIdx> {
    BestPathsTo::new(net, dst).from(src)
}

/// [`best_path`] from any source to one destination, the scores of the nodes shared: for many
/// flows, take them by destination.
pub struct BestPathsTo<'a> {
    net: &'a Network,
    dst: u32,
    /// Score of each node towards dst: (bottleneck rate, total delay, next hop), filled by
    /// memoised DFS over the routing DAG (it is acyclic: every next hop is one step closer).
    memo: Vec<Option<(u64, u64, Option<PortIdx>)>>,
}

impl<'a> BestPathsTo<'a> {
    pub fn new(net: &'a Network, dst: u32) -> BestPathsTo<'a> {
        BestPathsTo {
            net,
            dst,
            memo: vec![None; net.nodes.len()],
        }
    }

    /// Turns to destination `dst`, keeping what the two share: where `dst` shares its routing
    /// rows with the current one and its last link has the same rate and delay, every node's
    /// score but its neighbour's (whose next hop differs) and the two hosts' is the same.
    pub fn retarget(&mut self, dst: u32) {
        if dst == self.dst {
            return;
        }
        let net = self.net;
        let port = |p: PortIdx| &net.ports[p as usize];
        let r = &net.routing;
        match (
            r.shared_last_hop(self.dst, dst),
            r.shared_last_hop(dst, self.dst),
        ) {
            (Some(a), Some(b))
                if port(a).rate == port(b).rate && port(a).delay == port(b).delay =>
            {
                for n in [
                    port(a).node,
                    net.hosts[self.dst as usize],
                    net.hosts[dst as usize],
                ] {
                    self.memo[n as usize] = None;
                }
            }
            _ => self.memo.fill(None),
        }
        self.dst = dst;
    }

    pub fn from(&mut self, src: u32) -> Vec<PortIdx> {
        let mut path = Vec::new();
        self.append_from(src, &mut path);
        path
    }

    /// [`BestPathsTo::from`], appended to `out`.
    pub fn append_from(&mut self, src: u32, out: &mut Vec<PortIdx>) {
        let net = self.net;
        let mut node = net.hosts[src as usize];
        while let (_, _, Some(p)) = self.score(node) {
            out.push(p);
            node = net.ports[p as usize].peer;
        }
    }

    fn score(&mut self, n: NodeIdx) -> (u64, u64, Option<PortIdx>) {
        if let Some(s) = self.memo[n as usize] {
            return s;
        }
        let net = self.net;
        let mut best = (0u64, u64::MAX, None);
        if net.hosts[self.dst as usize] == n {
            best = (u64::MAX, 0, None);
        } else {
            for &p in net.routing.next_hops(n, self.dst) {
                let port = &net.ports[p as usize];
                let (rate, delay, _) = self.score(port.peer);
                let cand = (
                    rate.min(port.rate.0),
                    delay.saturating_add(port.delay.0),
                    Some(p),
                );
                if cand.0 > best.0 || (cand.0 == best.0 && cand.1 < best.1) {
                    best = cand;
                }
            }
        }
        self.memo[n as usize] = Some(best);
        best
    }
}

/// Ideal FCT of `payload` bytes cut into segments of `mss` with `header` bytes each, along
/// `path`. Zero for an empty path. (For many flows, [`IdealFct`] reuses its scratch space.)
pub fn ideal_fct(net: &Network, path: &[PortIdx], payload: u64, mss: u32, header: u32) -> Time {
    IdealFct::default().of(net, path, payload, mss, header)
}

/// [`ideal_fct`] with its scratch space kept between calls: no allocation per flow.
#[derive(Default)]
pub struct IdealFct {
    /// The last packet's serialisation time at each hop.
    last_weights: Vec<u128>,
}

impl IdealFct {
    /// The ideal FCT of `payload` bytes along `path` (see [`ideal_fct`]).
    pub fn of(
        &mut self,
        net: &Network,
        path: &[PortIdx],
        payload: u64,
        mss: u32,
        header: u32,
    ) -> Time {
        if path.is_empty() {
            return Time::ZERO;
        }
        let mss = mss as u64;
        let n = payload.div_ceil(mss).max(1);
        let last = payload - (n - 1) * mss + header as u64;
        let full = mss + header as u64;
        let tx = |p: PortIdx, size: u64| net.ports[p as usize].rate.tx_time(size).ps() as u128;
        // The grid is entered at its top-left cell and has two blocks of rows: the n − 1 full
        // packets (weights w), then the last one (weights v). The heaviest path crosses the
        // first block from column 0 to some column b, then the last row from b to the end:
        // Σ_{0..=b} w + (n − 2)·max_{0..=b} w + Σ_{b..} v. Without full packets it is Σ v.
        self.last_weights.clear();
        self.last_weights.extend(path.iter().map(|&p| tx(p, last)));
        let last_row: u128 = self.last_weights.iter().sum();
        let heaviest = if n == 1 {
            last_row
        } else {
            let rows = (n - 1) as u128;
            let (mut sum, mut max, mut last_before, mut best) = (0u128, 0u128, 0u128, 0u128);
            for (&p, &v) in path.iter().zip(&self.last_weights) {
                let w = tx(p, full);
                sum += w;
                max = max.max(w);
                // Saturating: only a flow of about 2^64 bytes on a link of a few bit/s gets near.
                let through = (rows - 1).saturating_mul(max).saturating_add(sum);
                best = best.max(through.saturating_add(last_row - last_before));
                last_before += v;
            }
            best
        };
        let delays: u128 = path
            .iter()
            .map(|&p| net.ports[p as usize].delay.ps() as u128)
            .sum();
        // Beyond 2^64 ps (a flow that no run lasts long enough to finish): Time::MAX.
        Time(heaviest.saturating_add(delays).min(u64::MAX as u128) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::Discipline;
    use crate::topo::{BufferSize, LinkSpec, NodeKind, NodeSpec, TopoSpec};
    use crate::units::Rate;

    /// A chain h0 – s1 – … – s(n−1) – h1 whose hops have the given rates (Gb/s) and delays (ns).
    fn chain(hops: &[(u64, u64)]) -> Network {
        let n = hops.len() + 1;
        let nodes = (0..n)
            .map(|i| NodeSpec {
                kind: if i == 0 || i == n - 1 {
                    NodeKind::Host
                } else {
                    NodeKind::Switch
                },
                name: format!("n{i}"),
            })
            .collect();
        let links = hops
            .iter()
            .enumerate()
            .map(|(i, &(gbps, ns))| LinkSpec {
                a: i,
                b: i + 1,
                rate_ab: Rate::gbps(gbps),
                delay_ab: Time::from_ns(ns),
                rate_ba: Rate::gbps(gbps),
                delay_ba: Time::from_ns(ns),
                buffer: BufferSize::Packets(100),
                ecn_k_pkts: None,
            })
            .collect();
        let spec = TopoSpec {
            nodes,
            links,
            hosts: vec![0, n - 1],
            racks: Vec::new(),
            description: "chain".into(),
            hosts_relay: false,
            link_lines: Vec::new(),
        };
        Network::build(&spec, Discipline::Fifo, &|_| None)
    }

    /// Packet by packet: packet i leaves hop h at F(i, h) = max(F(i−1, h), F(i, h−1) + d) +
    /// w(i, h), the last byte arriving after the last hop's delay.
    fn by_packets(net: &Network, path: &[PortIdx], payload: u64, mss: u64, header: u64) -> Time {
        let n = payload.div_ceil(mss).max(1);
        let mut done = vec![Time::ZERO; path.len()];
        for i in 0..n {
            let size = if i + 1 < n {
                mss
            } else {
                payload - (n - 1) * mss
            } + header;
            let mut ready = Time::ZERO;
            for (h, &p) in path.iter().enumerate() {
                let port = &net.ports[p as usize];
                done[h] = done[h].max(ready) + port.rate.tx_time(size);
                ready = done[h] + port.delay;
            }
        }
        let last = path.len() - 1;
        done[last] + net.ports[path[last] as usize].delay
    }

    #[test]
    fn a_retargeted_search_finds_a_fresh_searchs_best_paths() {
        use crate::net::network::{test_network, TEST_LAYOUTS};
        for text in TEST_LAYOUTS {
            let mut net = test_network(text);
            // Links of mixed rates and delays, host links among them: hosts that share routing
            // rows may then differ in their last link, and so in their best paths.
            for p in 0..net.ports.len() {
                let x = crate::rng::derive_u64(7, "port", p as u64);
                net.ports[p].rate = Rate::gbps([10, 25, 40, 100][x as usize % 4]);
                net.ports[p].delay = Time::from_ns(500 * (1 + (x >> 8) % 3));
            }
            let hosts = net.hosts.len() as u32;
            let mut order: Vec<u32> = (0..hosts).collect();
            order.extend((0..hosts).rev());
            order.extend((0..hosts).map(|i| (i * 7) % hosts));
            let mut walker = BestPathsTo::new(&net, order[0]);
            for &dst in &order {
                walker.retarget(dst);
                for src in (0..hosts).filter(|&s| s != dst) {
                    assert_eq!(
                        walker.from(src),
                        best_path(&net, src, dst),
                        "{text}: {src} → {dst}"
                    );
                }
            }
        }
    }

    #[test]
    fn blocks_of_equal_packets_give_the_packet_by_packet_time() {
        let chains: [&[(u64, u64)]; 4] = [
            &[(10, 1000)],
            &[(10, 1000), (40, 500), (10, 0), (1, 2000)],
            &[(1, 100), (100, 100), (10, 5000)],
            &[(40, 10), (10, 10), (40, 10), (25, 10), (100, 10), (10, 10)],
        ];
        let mut scratch = IdealFct::default();
        for hops in chains {
            let net = chain(hops);
            let path = best_path(&net, 0, 1);
            assert_eq!(path.len(), hops.len());
            for payload in [0, 1, 1459, 1460, 1461, 5000, 14_600, 100_003] {
                let want = by_packets(&net, &path, payload, 1460, 40);
                assert_eq!(
                    scratch.of(&net, &path, payload, 1460, 40),
                    want,
                    "{hops:?} {payload}"
                );
                assert_eq!(ideal_fct(&net, &path, payload, 1460, 40), want);
            }
        }
    }
}
