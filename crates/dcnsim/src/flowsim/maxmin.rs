//! Max-min fair and weighted max-min fair rates by water-filling, on a set of flows whose
//! links offer given capacities (the rest of the network's flows hold theirs fixed).
//!
//! Water-filling: every link offers its residual capacity per unit of weight of its unfrozen
//! flows; the link with the lowest such level is a bottleneck, its unfrozen flows are frozen at
//! `level × weight`, and their rates leave every other link of their paths. Links are kept in a
//! binary heap keyed by level; levels only rise during a solve, so an entry found out of date
//! is put back at its current level, and one solve costs O((Σ path lengths + re-queued
//! links) · log links). Of the links that carry a single flow of the set, only that flow's
//! lowest enters the heap (the others could only find it frozen). With all weights 1 this is
//! plain max-min (TCP's and RCP's ideal, Bertsekas & Gallager §6.5.2); with a flow's weight it
//! is weighted max-min (PACE's target). Test: `water_filling_gives_the_progressive_filling_rates`
//! (500 random problems against the textbook rounds).
//!
//! Which flows are re-solved after an event, and why that gives the same allocation as a
//! solve of the whole network, is in [`super::incremental`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One max-min problem: the links of a set of flows and the flows, each path given as
/// indices into `links`. It is built as the set grows — a link when it first appears, each
/// flow hop by hop — so that a solve follows no global index and makes no counting pass.
#[derive(Default)]
pub struct Problem {
    links: Vec<ProblemLink>,
    flows: Vec<ProblemFlow>,
    /// The flows' paths, flow after flow: flow i's are `hops[flows[i-1].end..flows[i].end]`.
    hops: Vec<u32>,
}

/// A link of a [`Problem`].
#[derive(Clone, Copy)]
pub struct ProblemLink {
    pub capacity: f64,
    /// The current rates of all its flows.
    pub load: f64,
    /// `load` less the current rates of the set's flows on it, taken in the order they
    /// joined: what the other flows hold.
    held: f64,
    /// The weight of the set's flows on it, how many they are, and how many flows it has.
    wsum: f64,
    count: u32,
    total: u32,
}

impl ProblemLink {
    /// Whether the set holds all its flows (it then offers them its whole capacity, whatever
    /// the running load's rounding).
    pub fn only_set(&self) -> bool {
        self.count == self.total
    }

    /// What it offers the set: all of it, or what the other flows' rates leave.
    fn offer(&self) -> f64 {
        if self.only_set() {
            self.capacity
        } else {
            (self.capacity - self.held.max(0.0)).max(0.0)
        }
    }
}

/// A flow of a [`Problem`].
#[derive(Clone, Copy)]
struct ProblemFlow {
    weight: f64,
    /// Where its path ends in [`Problem::hops`].
    end: u32,
}

impl Problem {
    pub fn clear(&mut self) {
        self.links.clear();
        self.flows.clear();
        self.hops.clear();
    }

    pub fn links(&self) -> &[ProblemLink] {
        &self.links
    }

    /// Adds a link of `capacity` carrying `total` flows at `load` in all; returns its index.
    pub fn add_link(&mut self, capacity: f64, load: f64, total: u32) -> u32 {
        self.links.push(ProblemLink {
            capacity,
            load,
            held: load,
            wsum: 0.0,
            count: 0,
            total,
        });
        self.links.len() as u32 - 1
    }

    /// Adds link `j` to the path of the flow being added, of `weight`; `rate` is the flow's
    /// current rate (0 for a new flow), which it gives back to the link.
    pub fn add_hop(&mut self, j: u32, weight: f64, rate: f64) {
        self.hops.push(j);
        let l = &mut self.links[j as usize];
        l.count += 1;
        l.wsum += weight;
        if rate > 0.0 {
            l.held -= rate;
        }
    }

    /// Ends the flow whose hops were just added ([`Problem::add_hop`]).
    pub fn add_flow(&mut self, weight: f64) {
        self.flows.push(ProblemFlow {
            weight,
            end: self.hops.len() as u32,
        });
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

/// A link's level: what it has left per unit of weight of its unfrozen flows.
fn level(s: &LinkState) -> f64 {
    s.residual.max(0.0) / s.wsum.max(f64::MIN_POSITIVE)
}

/// A heap entry of link `j` at `level`.
fn entry(level: f64, j: usize) -> u128 {
    ((key(level) as u128) << 32) | j as u128
}

impl MaxMin {
    /// Rates of the problem's flows (`rates[i]` for its i-th flow). Link j offers the set its
    /// capacity if the set holds all its flows, else what the other flows' rates leave.
    /// [`MaxMin::residual`] then gives what each link has left.
    pub fn solve(&mut self, p: &Problem, rates: &mut Vec<f64>) {
        let state = &mut self.state;
        state.clear();
        let mut acc = 0u32;
        state.extend(p.links.iter().map(|l| {
            acc += l.count;
            LinkState {
                residual: l.offer(),
                wsum: l.wsum,
                unfrozen: l.count,
                count: l.count,
                end: acc - l.count,
            }
        }));
        // Each link's flows in `members` (filled from their start, so that `end` ends where
        // they do). A link that carries one flow of the set keeps its level until that flow
        // freezes, so of a flow's such links only the lowest can freeze it: the heap holds
        // that one per flow and the links shared by several. (It pops the same entries in the
        // same order as a heap of every link, less those that would find their flow frozen.)
        self.members.clear();
        self.members.resize(acc as usize, 0);
        let mut heap = std::mem::take(&mut self.heap).into_vec();
        heap.clear();
        let mut start = 0;
        for (i, f) in p.flows.iter().enumerate() {
            let mut lowest = u128::MAX;
            for &j in &p.hops[start..f.end as usize] {
                let s = &mut state[j as usize];
                self.members[s.end as usize] = i as u32;
                s.end += 1;
                if s.count == 1 {
                    lowest = lowest.min(entry(level(s), j as usize));
                }
            }
            start = f.end as usize;
            if lowest != u128::MAX {
                heap.push(Reverse(lowest));
            }
        }
        heap.extend(
            state
                .iter()
                .enumerate()
                .filter(|(_, s)| s.count > 1)
                .map(|(j, s)| Reverse(entry(level(s), j))),
        );
        self.heap = BinaryHeap::from(heap);
        rates.clear();
        rates.resize(p.flows.len(), f64::NAN);
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
            let level = level(&s);
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
    }

    /// What link j of the last solve's problem has left.
    pub fn residual(&self, j: usize) -> f64 {
        self.state[j].residual
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::derive_u64;

    /// A problem as plain data: per link (capacity, load of the other flows, whether it has
    /// other flows), per flow (weight, current rate, links).
    struct Case {
        links: Vec<(f64, f64, bool)>,
        flows: Vec<(f64, f64, Vec<u32>)>,
    }

    /// Progressive filling as the textbook states it: every round, the lowest level over the
    /// links with unfrozen flows freezes the unfrozen flows of every link at that level.
    fn reference(c: &Case) -> Vec<f64> {
        let on = |j: usize| {
            c.flows
                .iter()
                .enumerate()
                .filter(move |f| f.1 .2.contains(&(j as u32)))
        };
        let offered: Vec<f64> = (0..c.links.len())
            .map(|j| {
                let (capacity, outside, shared) = c.links[j];
                if shared {
                    // The load less the set's rates, as the running load would leave it.
                    let load = outside + on(j).map(|(_, f)| f.1).sum::<f64>();
                    let held = on(j).fold(load, |h, (_, f)| h - f.1);
                    (capacity - held.max(0.0)).max(0.0)
                } else {
                    capacity
                }
            })
            .collect();
        let mut rates = vec![f64::NAN; c.flows.len()];
        while rates.iter().any(|r| r.is_nan()) {
            let levels: Vec<Option<f64>> = (0..c.links.len())
                .map(|j| {
                    let (mut left, mut w) = (offered[j], 0.0);
                    for (i, f) in on(j) {
                        if rates[i].is_nan() {
                            w += f.0;
                        } else {
                            left -= rates[i];
                        }
                    }
                    (w > 0.0).then(|| left.max(0.0) / w)
                })
                .collect();
            let lowest = levels
                .iter()
                .flatten()
                .fold(f64::INFINITY, |a, &b| a.min(b));
            for (r, f) in rates.iter_mut().zip(&c.flows) {
                let at_lowest =
                    f.2.iter()
                        .any(|&j| levels[j as usize].is_some_and(|l| l <= lowest * (1.0 + 1e-12)));
                if r.is_nan() && at_lowest {
                    *r = lowest * f.0;
                }
            }
        }
        rates
    }

    #[test]
    fn water_filling_gives_the_progressive_filling_rates() {
        let mut solver = MaxMin::default();
        let mut rates = Vec::new();
        let mut shared_links = 0;
        for case in 0..500u64 {
            let draw = |what: &str, k: u64, n: u64| derive_u64(case, what, k) % n;
            let n_links = 1 + draw("links", 0, 12);
            let links = (0..n_links)
                .map(|j| {
                    let outside = draw("outside", j, 3) as f64 * 1e9;
                    let capacity = (1 + draw("capacity", j, 10)) as f64 * 1e9;
                    (capacity, outside, outside > 0.0 || draw("only", j, 2) == 0)
                })
                .collect();
            let flows = (0..1 + draw("flows", 0, 10))
                .map(|i| {
                    let mut path = Vec::new();
                    for h in 0..1 + draw("hops", i, 4) {
                        let j = draw("hop", i * 8 + h, n_links) as u32;
                        if !path.contains(&j) {
                            path.push(j);
                        }
                    }
                    let weight = if case % 2 == 0 {
                        1.0
                    } else {
                        1.0 + draw("weight", i, 3) as f64
                    };
                    (weight, draw("rate", i, 3) as f64 * 1e9, path)
                })
                .collect();
            let c = Case { links, flows };
            // Built as a set grows: a link when a flow first crosses it.
            let mut p = Problem::default();
            let mut index = vec![u32::MAX; c.links.len()];
            for (weight, rate, path) in &c.flows {
                for &j in path {
                    if index[j as usize] == u32::MAX {
                        let (capacity, outside, shared) = c.links[j as usize];
                        let on = c.flows.iter().filter(|f| f.2.contains(&j));
                        let load = outside + on.clone().map(|f| f.1).sum::<f64>();
                        let total = on.count() as u32 + u32::from(shared);
                        index[j as usize] = p.add_link(capacity, load, total);
                    }
                    p.add_hop(index[j as usize], *weight, *rate);
                }
                p.add_flow(*weight);
            }
            shared_links += p.links().iter().filter(|l| l.count > 1).count();
            solver.solve(&p, &mut rates);
            let want = reference(&c);
            for (i, (&got, &want)) in rates.iter().zip(&want).enumerate() {
                assert!(
                    (got - want).abs() <= 1e-9 * want.max(1.0),
                    "case {case}, flow {i}: {got} against {want}"
                );
            }
        }
        assert!(shared_links > 500, "the cases share links: {shared_links}");
    }
}
