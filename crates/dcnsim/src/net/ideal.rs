//! Ideal flow completion time: the flow alone on an idle network, its data packets sent back to
//! back at line rate from time 0 (no handshake, no window), store-and-forward at every hop.
//!
//! On a path of hops with per-packet serialisation weights w(i, h) = size_i / rate_h, packet i
//! leaves hop h at F(i, h) = max(F(i−1, h), F(i, h−1) + d_{h−1}) + w(i, h). The last byte
//! arrives at Σ d_h plus the heaviest monotone path through the (packet × hop) grid. Packets
//! come in at most three sizes (first, middle, last), and through a block of k equal rows the
//! heaviest path crossing from column a to column b is Σ_{a..b} w + (k−1)·max_{a..b} w, so the
//! computation is O(hops²), whatever the flow size.

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

    pub fn from(&mut self, src: u32) -> Vec<PortIdx> {
        let net = self.net;
        let mut path = Vec::new();
        let mut node = net.hosts[src as usize];
        while let (_, _, Some(p)) = self.score(node) {
            path.push(p);
            node = net.ports[p as usize].peer;
        }
        path
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
/// `path`. Zero for an empty path.
#[allow(clippy::needless_range_loop)] // the grid indices are the algorithm
pub fn ideal_fct(net: &Network, path: &[PortIdx], payload: u64, mss: u32, header: u32) -> Time {
    if path.is_empty() {
        return Time::ZERO;
    }
    let mss = mss as u64;
    let n = payload.div_ceil(mss).max(1);
    let last = payload - (n - 1) * mss;
    let full = mss + header as u64;
    // Row blocks: (wire size, how many rows).
    let mut blocks: Vec<(u64, u64)> = Vec::with_capacity(3);
    if n == 1 {
        blocks.push((last + header as u64, 1));
    } else {
        blocks.push((full, n - 1));
        blocks.push((last + header as u64, 1));
    }
    let h = path.len();
    // g[b]: heaviest path ending in the current block's last row at column b.
    let mut g: Vec<Option<u128>> = vec![None; h];
    let mut first_block = true;
    let mut weights: Vec<u128> = Vec::with_capacity(h);
    for &(size, k) in &blocks {
        // This block's serialisation time at each hop (once, not per grid cell).
        weights.clear();
        weights.extend(
            path.iter()
                .map(|&p| net.ports[p as usize].rate.tx_time(size).ps() as u128),
        );
        let mut next = vec![None; h];
        for b in 0..h {
            let mut best: Option<u128> = None;
            for a in 0..=b {
                let enter = if first_block {
                    if a == 0 {
                        Some(0)
                    } else {
                        None
                    }
                } else {
                    g[a]
                };
                let Some(enter) = enter else { continue };
                let (mut sum, mut max) = (0u128, 0u128);
                for &w in &weights[a..=b] {
                    sum += w;
                    max = max.max(w);
                }
                let v = enter + sum + (k as u128 - 1) * max;
                best = Some(best.map_or(v, |x: u128| x.max(v)));
            }
            next[b] = best;
        }
        g = next;
        first_block = false;
    }
    let delays: u128 = path
        .iter()
        .map(|&p| net.ports[p as usize].delay.ps() as u128)
        .sum();
    Time((g[h - 1].expect("the last column is reachable") + delays) as u64)
}
