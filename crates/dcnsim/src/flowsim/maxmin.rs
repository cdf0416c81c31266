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
        // A link that carries one flow of the set keeps its level until that flow freezes, so
        // of a flow's such links only the lowest can freeze it: the heap holds that one per
        // flow and the links shared by several. (It pops the same entries in the same order as
        // a heap of every link, less those that would find their flow frozen.)
        let level = |s: &LinkState| s.residual.max(0.0) / s.wsum;
        let mut heap = std::mem::take(&mut self.heap).into_vec();
        heap.clear();
        let mut start = 0;
        for f in &p.flows {
            let path = &p.hops[start..f.end as usize];
            start = f.end as usize;
            let lowest = path
                .iter()
                .filter(|&&j| state[j as usize].count == 1)
                .map(|&j| entry(level(&state[j as usize]), j as usize))
                .min();
            heap.extend(lowest.map(Reverse));
        }
        heap.extend(
            state
                .iter()
                .enumerate()
                .filter(|(_, s)| s.count > 1)
                .map(|(j, s)| Reverse(entry(level(s), j))),
        );
        self.heap = BinaryHeap::from(heap);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::derive_u64;

    /// Progressive filling as the textbook states it: every round, the lowest level over the
    /// links with unfrozen flows freezes the unfrozen flows of every link at that level.
    fn reference(p: &Problem) -> Vec<f64> {
        let n = p.links.len();
        let mut offered: Vec<f64> = p.links.iter().map(|l| l.load).collect();
        for i in 0..p.flows.len() {
            for &j in p.path(i) {
                offered[j as usize] -= p.flows[i].rate;
            }
        }
        for (o, l) in offered.iter_mut().zip(&p.links) {
            *o = if l.only_set {
                l.capacity
            } else {
                (l.capacity - o.max(0.0)).max(0.0)
            };
        }
        let mut rates = vec![f64::NAN; p.flows.len()];
        while rates.iter().any(|r| r.is_nan()) {
            let level = |j: usize| {
                let (mut left, mut w) = (offered[j], 0.0);
                for (i, &r) in rates.iter().enumerate() {
                    if p.path(i).contains(&(j as u32)) {
                        if r.is_nan() {
                            w += p.flows[i].weight;
                        } else {
                            left -= r;
                        }
                    }
                }
                (w > 0.0).then(|| left.max(0.0) / w)
            };
            let levels: Vec<Option<f64>> = (0..n).map(level).collect();
            let lowest = levels
                .iter()
                .flatten()
                .fold(f64::INFINITY, |a, &b| a.min(b));
            for (i, r) in rates.iter_mut().enumerate() {
                let at_lowest = p
                    .path(i)
                    .iter()
                    .any(|&j| levels[j as usize].is_some_and(|l| l <= lowest * (1.0 + 1e-12)));
                if r.is_nan() && at_lowest {
                    *r = lowest * p.flows[i].weight;
                }
            }
        }
        rates
    }

    #[test]
    fn water_filling_gives_the_progressive_filling_rates() {
        let mut solver = MaxMin::default();
        let (mut rates, mut residual) = (Vec::new(), Vec::new());
        let mut shared_links = 0;
        for case in 0..500u64 {
            let draw = |what: &str, k: u64, n: u64| derive_u64(case, what, k) % n;
            let mut p = Problem::default();
            let n_links = 1 + draw("links", 0, 12) as usize;
            for i in 0..1 + draw("flows", 0, 10) {
                let hops = 1 + draw("hops", i, 4);
                for h in 0..hops {
                    let j = draw("hop", i * 8 + h, n_links as u64) as u32;
                    if !p.hops[p.flows.last().map_or(0, |f| f.end as usize)..].contains(&j) {
                        p.hops.push(j);
                    }
                }
                p.flows.push(ProblemFlow {
                    weight: if case % 2 == 0 {
                        1.0
                    } else {
                        1.0 + draw("weight", i, 3) as f64
                    },
                    rate: draw("rate", i, 3) as f64 * 1e9,
                    end: p.hops.len() as u32,
                });
            }
            let mut load = vec![0.0; n_links];
            for i in 0..p.flows.len() {
                for &j in p.path(i) {
                    load[j as usize] += p.flows[i].rate;
                }
            }
            // (A link that no flow crosses, which a real set never has, must not matter.)
            for (j, load) in load.iter().enumerate() {
                let outside = draw("outside", j as u64, 3) as f64 * 1e9;
                p.links.push(ProblemLink {
                    capacity: (1 + draw("capacity", j as u64, 10)) as f64 * 1e9,
                    load: load + outside,
                    only_set: outside == 0.0 && draw("only", j as u64, 2) == 0,
                });
            }
            shared_links += (0..n_links)
                .filter(|&j| {
                    (0..p.flows.len())
                        .filter(|&i| p.path(i).contains(&(j as u32)))
                        .count()
                        > 1
                })
                .count();
            solver.solve(&p, &mut rates, &mut residual);
            let want = reference(&p);
            for (i, (&got, &want)) in rates.iter().zip(&want).enumerate() {
                assert!(
                    (got - want).abs() <= 1e-9 * want.max(1.0),
                    "case {case}, flow {i}: {got} against {want}"
                );
            }
        }
        assert!(shared_links > 1000, "the cases share links: {shared_links}");
    }
}
