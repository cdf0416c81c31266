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

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One max-min problem: the links of a set of flows and the flows, each path given as
/// indices into `links` (built once as the set grows, so a solve follows no global index).
#[derive(Default)]
pub struct Problem {
    pub links: Vec<ProblemLink>,
    pub flows: Vec<ProblemFlow>,
    /// The flows' paths, flow after flow: flow i's are `hops[flows[i-1].end..flows[i].end]`.
    pub hops: Vec<u32>,
}

/// A link of a [`Problem`].
#[derive(Clone, Copy)]
pub struct ProblemLink {
    pub capacity: f64,
    /// The current rates of all its flows: the set's give theirs back, the rest keep theirs.
    pub load: f64,
    /// Whether the set holds all its flows (it then offers them its whole capacity, whatever
    /// the running load's rounding).
    pub only_set: bool,
}

/// A flow of a [`Problem`].
#[derive(Clone, Copy)]
pub struct ProblemFlow {
    pub weight: f64,
    /// Its current rate (what it gives back to its links; 0 for a new flow).
    pub rate: f64,
    /// Where its path ends in [`Problem::hops`].
    pub end: u32,
}

impl Problem {
    pub fn clear(&mut self) {
        self.links.clear();
        self.flows.clear();
        self.hops.clear();
    }

    /// Flow i's links, as indices into `links`.
    pub fn path(&self, i: usize) -> &[u32] {
        let start = if i == 0 { 0 } else { self.flows[i - 1].end };
        &self.hops[start as usize..self.flows[i].end as usize]
    }
}

/// Scratch space reused between solves.
#[derive(Default)]
pub struct MaxMin {
    /// Per link of the problem (one array: a link's state is read and written together).
    state: Vec<LinkState>,
    /// The flows on each link: link j's are `members[end - count..end]`.
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
    /// The flows on the link, and where they end in `members`.
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
    /// Rates of the problem's flows (`rates[i]` for `p.flows[i]`). Link j offers the set its
    /// capacity if the set holds all its flows, else what the other flows' rates leave: its
    /// load less the set's current rates on it. Returns each link's residual capacity in
    /// `residual_out`.
    pub fn solve(&mut self, p: &Problem, rates: &mut Vec<f64>, residual_out: &mut Vec<f64>) {
        let state = &mut self.state;
        state.clear();
        state.extend(p.links.iter().map(|l| LinkState {
            residual: l.load,
            wsum: 0.0,
            unfrozen: 0,
            count: 0,
            end: 0,
        }));
        // Counting pass (the set's rates leave the load in flow order, as a walk of each
        // flow's path would take them), then each link's offer and its flows in `members`
        // (filled from their start, so that `end` ends where they do).
        let mut start = 0;
        for f in &p.flows {
            let path = &p.hops[start..f.end as usize];
            start = f.end as usize;
            for &j in path {
                let s = &mut state[j as usize];
                s.unfrozen += 1;
                s.wsum += f.weight;
                if f.rate > 0.0 {
                    s.residual -= f.rate;
                }
            }
        }
        let mut acc = 0u32;
        for (s, l) in state.iter_mut().zip(&p.links) {
            s.residual = if l.only_set {
                l.capacity
            } else {
                (l.capacity - s.residual.max(0.0)).max(0.0)
            };
            s.count = s.unfrozen;
            s.end = acc;
            acc += s.unfrozen;
        }
        self.members.clear();
        self.members.resize(acc as usize, 0);
        let mut start = 0;
        for (i, f) in p.flows.iter().enumerate() {
            let path = &p.hops[start..f.end as usize];
            start = f.end as usize;
            for &j in path {
                let s = &mut state[j as usize];
                self.members[s.end as usize] = i as u32;
                s.end += 1;
            }
        }
        rates.clear();
        rates.resize(p.flows.len(), f64::NAN);
        self.heap.clear();
        self.heap.extend(
            state
                .iter()
                .enumerate()
                .filter(|(_, s)| s.unfrozen > 0)
                .map(|(j, s)| Reverse(entry(s.residual.max(0.0) / s.wsum, j))),
        );
        let mut left = p.flows.len();
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
                let w = p.flows[i].weight;
                let r = level * w;
                rates[i] = r;
                left -= 1;
                for &m in p.path(i) {
                    let sm = &mut state[m as usize];
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
