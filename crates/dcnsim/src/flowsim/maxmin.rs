//! Max-min fair and weighted max-min fair rates by water-filling, on one connected component
//! of the link–flow graph (flows outside it keep their rates: they share no link with it).
//!
//! Water-filling: every link offers its residual capacity per unit of weight of its unfrozen
//! flows; the link with the lowest such level is a bottleneck, its unfrozen flows are frozen at
//! `level × weight`, and their rates leave every other link of their paths. Links are kept in a
//! binary heap keyed by level; levels only rise during a solve, so an entry found out of date
//! is put back at its current level, and one solve costs O((Σ path lengths + re-queued
//! links) · log links) over the component. With all weights 1 this is plain
//! max-min (TCP's and RCP's ideal, Bertsekas & Gallager §6.5.2); with a flow's weight it is
//! weighted max-min (PACE's target allocation).

use super::LinkFlows;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Scratch space reused between solves (sized to the network's links).
#[derive(Default)]
pub struct MaxMin {
    residual: Vec<f64>,
    wsum: Vec<f64>,
    unfrozen: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

/// A non-negative f64 as a key whose integer order is the numeric order.
fn key(x: f64) -> u64 {
    x.max(0.0).to_bits()
}

impl MaxMin {
    /// Rates of the component's flows (`rates[i]` for `flows[i]`), given each link's capacity
    /// (bit/s) and each flow's weight. `local[f]` must hold the index of flow `f` in `flows`;
    /// every flow crossing a link of `links` must be in `flows` (a connected component).
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        links: &[u32],
        flows: &[u32],
        local: &[u32],
        net: &LinkFlows,
        capacity: &[f64],
        weight: &dyn Fn(u32) -> f64,
        rates: &mut Vec<f64>,
    ) {
        let n_links = capacity.len();
        if self.residual.len() < n_links {
            self.residual.resize(n_links, 0.0);
            self.wsum.resize(n_links, 0.0);
            self.unfrozen.resize(n_links, 0);
        }
        rates.clear();
        rates.resize(flows.len(), f64::NAN);
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.clear();
        for &l in links {
            let on = net.flows_on(l);
            let li = l as usize;
            self.residual[li] = capacity[li];
            self.wsum[li] = on.iter().map(|&f| weight(f)).sum();
            self.unfrozen[li] = on.len() as u32;
            if !on.is_empty() {
                let level = self.residual[li] / self.wsum[li];
                entries.push(Reverse((key(level), l)));
            }
        }
        self.heap = BinaryHeap::from(entries);
        let mut left = flows.len();
        // A link's level only rises as flows elsewhere freeze: freezing at the lowest level ℓ
        // a flow of weight w that a link of level L = R/W ≥ ℓ carries leaves it
        // (R − ℓw)/(W − w) ≥ L. So a link is not re-queued when its level changes; a popped
        // entry whose level is out of date is put back at the current level instead (lazy
        // increase-key), and only an up-to-date minimum freezes flows.
        while left > 0 {
            let Some(Reverse((level_bits, l))) = self.heap.pop() else {
                break;
            };
            let li = l as usize;
            if self.unfrozen[li] == 0 {
                continue;
            }
            let wsum = self.wsum[li].max(f64::MIN_POSITIVE);
            let level = self.residual[li].max(0.0) / wsum;
            if key(level) > level_bits {
                self.heap.push(Reverse((key(level), l)));
                continue;
            }
            for &f in net.flows_on(l) {
                let i = local[f as usize] as usize;
                if !rates[i].is_nan() {
                    continue;
                }
                let w = weight(f);
                let r = level * w;
                rates[i] = r;
                left -= 1;
                for &m in net.path(f) {
                    let mi = m as usize;
                    self.residual[mi] -= r;
                    self.wsum[mi] -= w;
                    self.unfrozen[mi] -= 1;
                }
            }
        }
    }
}
