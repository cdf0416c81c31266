//! Max-min fair and weighted max-min fair rates by water-filling, on a set of flows whose
//! links offer given capacities (the rest of the network's flows hold theirs fixed).
//!
//! Water-filling: every link offers its residual capacity per unit of weight of its unfrozen
//! flows; the link with the lowest such level is a bottleneck, its unfrozen flows are frozen at
//! `level × weight`, and their rates leave every other link of their paths. Links are kept in a
//! binary heap keyed by level; levels only rise during a solve, so an entry found out of date
//! is put back at its current level, and one solve costs O((Σ path lengths + re-queued
//! links) · log links). With all weights 1 this is plain max-min (TCP's and RCP's ideal,
//! Bertsekas & Gallager §6.5.2); with a flow's weight it is weighted max-min (PACE's target).
//!
//! Which flows are re-solved after an event, and why that gives the same allocation as a
//! solve of the whole network, is in [`super::incremental`].

use super::LinkFlows;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Scratch space reused between solves.
#[derive(Default)]
pub struct MaxMin {
    /// Per global link: its index among the solve's links (valid for those only).
    link_local: Vec<u32>,
    /// Per link of the solve (one array: a link's state is read and written together).
    state: Vec<LinkState>,
    /// The solve's flows on each of its links: link j's are `members[end - count..end]`.
    members: Vec<u32>,
    /// (level key << 32 | link): one integer compare orders by level, then link.
    heap: BinaryHeap<Reverse<u128>>,
}

#[derive(Clone, Copy)]
struct LinkState {
    /// Capacity not yet given to frozen flows, and the weight of the unfrozen flows.
    residual: f64,
    wsum: f64,
    unfrozen: u32,
    /// The solve's flows on the link, and where they end in `members`.
    count: u32,
    end: u32,
}

/// A non-negative f64 as a key whose integer order is the numeric order.
fn key(x: f64) -> u64 {
    x.max(0.0).to_bits()
}

/// A heap entry of link `j` at `level`.
fn entry(level: f64, j: usize) -> u128 {
    ((key(level) as u128) << 32) | j as u128
}

impl MaxMin {
    /// Rates of `flows` (`rates[i]` for `flows[i]`) when link `links[j]` offers them
    /// `avail[j]` bit/s and flow `f` has weight `weight(f)`. Every link of every flow's path
    /// must be in `links`. Returns the residual capacity of each link in `residual_out`.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        links: &[u32],
        flows: &[u32],
        net: &LinkFlows,
        n_links: usize,
        avail: &[f64],
        weight: &dyn Fn(u32) -> f64,
        rates: &mut Vec<f64>,
        residual_out: &mut Vec<f64>,
    ) {
        if self.link_local.len() < n_links {
            self.link_local.resize(n_links, 0);
        }
        for (j, &l) in links.iter().enumerate() {
            self.link_local[l as usize] = j as u32;
        }
        let state = &mut self.state;
        state.clear();
        state.extend(avail[..links.len()].iter().map(|&residual| LinkState {
            residual,
            wsum: 0.0,
            unfrozen: 0,
            count: 0,
            end: 0,
        }));
        // Counting pass, then each link's flows in `members` (filled from their start, so
        // that `end` ends where they do).
        for &f in flows {
            let w = weight(f);
            for &m in net.path(f) {
                let s = &mut state[self.link_local[m as usize] as usize];
                s.unfrozen += 1;
                s.wsum += w;
            }
        }
        let mut acc = 0u32;
        for s in state.iter_mut() {
            s.count = s.unfrozen;
            s.end = acc;
            acc += s.unfrozen;
        }
        self.members.clear();
        self.members.resize(acc as usize, 0);
        for (i, &f) in flows.iter().enumerate() {
            for &m in net.path(f) {
                let s = &mut state[self.link_local[m as usize] as usize];
                self.members[s.end as usize] = i as u32;
                s.end += 1;
            }
        }
        rates.clear();
        rates.resize(flows.len(), f64::NAN);
        self.heap.clear();
        self.heap.extend(
            state
                .iter()
                .enumerate()
                .filter(|(_, s)| s.unfrozen > 0)
                .map(|(j, s)| Reverse(entry(s.residual.max(0.0) / s.wsum, j))),
        );
        let mut left = flows.len();
        // A link's level only rises as flows elsewhere freeze: freezing at the lowest level ℓ
        // a flow of weight w that a link of level L = R/W ≥ ℓ carries leaves it
        // (R − ℓw)/(W − w) ≥ L. So a link is not re-queued when its level changes; a popped
        // entry whose level is out of date is put back at the current level instead (lazy
        // increase-key), and only an up-to-date minimum freezes flows.
        while left > 0 {
            let Some(Reverse(top)) = self.heap.pop() else {
                break;
            };
            let (level_bits, j) = ((top >> 32) as u64, (top as u32) as usize);
            let s = state[j];
            if s.unfrozen == 0 {
                continue;
            }
            let level = s.residual.max(0.0) / s.wsum.max(f64::MIN_POSITIVE);
            if key(level) > level_bits {
                self.heap.push(Reverse(entry(level, j)));
                continue;
            }
            for &i in &self.members[(s.end - s.count) as usize..s.end as usize] {
                let i = i as usize;
                if !rates[i].is_nan() {
                    continue;
                }
                let f = flows[i];
                let w = weight(f);
                let r = level * w;
                rates[i] = r;
                left -= 1;
                for &m in net.path(f) {
                    let sm = &mut state[self.link_local[m as usize] as usize];
                    sm.residual -= r;
                    sm.wsum -= w;
                    sm.unfrozen -= 1;
                }
            }
        }
        residual_out.clear();
        residual_out.extend(state.iter().map(|s| s.residual));
    }
}
