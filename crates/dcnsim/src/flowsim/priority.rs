//! Strict-priority greedy allocation: the flows of a component in order of a key, each taking
//! the smallest residual capacity along its path (all of it: preemptive priority, as SRPT,
//! pFabric's ideal, PDQ and MERP's schedules). A flow paused on one link holds nothing on the
//! others, so a lower flow that does not cross that link may use them (work conservation).
//!
//! Keys (smaller first; ties by flow id so equal flows are served in arrival order):
//! * SRPT: remaining bytes.
//! * PDQ: the switch comparator of [`crate::protocols::pdq::switch`] — earlier absolute
//!   deadline (none = last), then smaller expected transmission time (remaining bytes over the
//!   sender's NIC rate; the NICs are equal in the topologies we run, so remaining bytes).
//! * MERP: the virtual deadline. On every link of the component, VDG
//!   ([`crate::protocols::merp::schedule::vdg`]) orders the link's flows by the least maximum
//!   expansion ratio and gives each a vdl; a flow's esr is the smallest along its path
//!   (MERP's synchronisation by esr), i.e. its vdl is the *largest* of its links' vdls, and
//!   the key is that vdl.

use super::LinkFlows;
use crate::protocols::merp::schedule::{vdg, FlowEntry};
use crate::units::Time;
use std::cmp::Ordering;

/// A subflow's place in a strict-priority order (SRPT, PDQ): a class first (PDQ's absolute
/// deadline, `Time::MAX` for none; SRPT has one class), then its size (bits left); ties by
/// subflow id, so the order is total and a sorted list unique.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key {
    pub class: Time,
    pub size: f64,
}

fn cmp_keyed(a: (Key, u32), b: (Key, u32)) -> Ordering {
    a.0.class
        .cmp(&b.0.class)
        .then(a.0.size.total_cmp(&b.0.size))
        .then(a.1.cmp(&b.1))
}

/// The active subflows in priority order, kept from one solve to the next. Between two solves
/// most keys do not move (a paused flow's bytes left stay as they were; under PDQ's aging all
/// paused keys are divided by one factor) and the ones that do seldom pass another, so the
/// last order with today's keys is nearly sorted: an insertion sort puts it right in about
/// one pass, and the new subflows, sorted, are merged in. Should the keys have moved much
/// (more than [`INSERTION_BUDGET`] shifts per subflow), the order is sorted whole instead.
/// Either way it is the one sorted order of the keys (ties by subflow id).
#[derive(Default)]
pub struct PriorityOrder {
    order: Vec<(Key, u32)>,
    /// Per subflow: whether it is in `order`.
    placed: Vec<bool>,
    fresh: Vec<(Key, u32)>,
    merged: Vec<(Key, u32)>,
}

/// Shifts per subflow an insertion sort may make before a full sort takes over.
const INSERTION_BUDGET: usize = 8;

fn less(a: (Key, u32), b: (Key, u32)) -> bool {
    cmp_keyed(a, b) == Ordering::Less
}

impl PriorityOrder {
    /// Re-orders the active subflows by their current keys, `key(e)`, and returns them in
    /// order. `active`: every active subflow; `is_active(e)` says whether a subflow of the
    /// last order still is.
    pub fn update(
        &mut self,
        active: &[u32],
        key: impl Fn(u32) -> Key,
        is_active: impl Fn(u32) -> bool,
    ) -> &[(Key, u32)] {
        // The last order less the ended subflows, with today's keys.
        let mut kept = 0;
        for i in 0..self.order.len() {
            let e = self.order[i].1;
            if is_active(e) {
                self.order[kept] = (key(e), e);
                kept += 1;
            } else {
                self.placed[e as usize] = false;
            }
        }
        self.order.truncate(kept);
        self.repair();
        // The new subflows, sorted and merged in.
        if let Some(&top) = active.iter().max() {
            if self.placed.len() <= top as usize {
                self.placed.resize(top as usize + 1, false);
            }
        }
        self.fresh.clear();
        for &e in active {
            if !self.placed[e as usize] {
                self.placed[e as usize] = true;
                self.fresh.push((key(e), e));
            }
        }
        if !self.fresh.is_empty() {
            self.fresh.sort_unstable_by(|&a, &b| cmp_keyed(a, b));
            self.merged.clear();
            let (old, new) = (&self.order, &self.fresh);
            let (mut i, mut j) = (0, 0);
            while i < old.len() && j < new.len() {
                if less(old[i], new[j]) {
                    self.merged.push(old[i]);
                    i += 1;
                } else {
                    self.merged.push(new[j]);
                    j += 1;
                }
            }
            self.merged.extend_from_slice(&old[i..]);
            self.merged.extend_from_slice(&new[j..]);
            std::mem::swap(&mut self.order, &mut self.merged);
        }
        &self.order
    }

    /// Sorts the nearly sorted `order` in place: insertion sort while it is cheap, else a
    /// full sort.
    fn repair(&mut self) {
        let order = &mut self.order;
        let mut budget = INSERTION_BUDGET * order.len();
        for i in 1..order.len() {
            let x = order[i];
            if !less(x, order[i - 1]) {
                continue;
            }
            let mut j = i;
            while j > 0 && less(x, order[j - 1]) {
                order[j] = order[j - 1];
                j -= 1;
            }
            order[j] = x;
            budget = budget.saturating_sub(i - j);
            if budget == 0 {
                order.sort_unstable_by(|&a, &b| cmp_keyed(a, b));
                return;
            }
        }
    }
}

/// The greedy pass of a strict-priority allocation. Its residual capacities equal the links'
/// capacities between passes: a pass puts back only the links it used, so its cost follows
/// the flows, not the network's size.
#[derive(Default)]
pub struct Greedy {
    residual: Vec<f64>,
    used: Vec<u32>,
}

impl Greedy {
    /// Gives `rates[i]` to `flows[i]` in the order of `order` (indices into `flows`): each
    /// flow takes the smallest residual capacity along its path.
    pub fn run(
        &mut self,
        flows: &[u32],
        order: impl Iterator<Item = u32>,
        net: &LinkFlows,
        capacity: &[f64],
        rates: &mut Vec<f64>,
    ) {
        if self.residual.len() != capacity.len() {
            self.residual = capacity.to_vec();
        }
        let residual = &mut self.residual;
        rates.clear();
        rates.resize(flows.len(), 0.0);
        for i in order {
            let path = net.path(flows[i as usize]);
            let mut r = f64::INFINITY;
            for &l in path {
                r = r.min(residual[l as usize]);
                if r <= 0.0 {
                    break; // paused: no need to look further
                }
            }
            if !(r.is_finite() && r > 0.0) {
                continue;
            }
            rates[i as usize] = r;
            for &l in path {
                let left = residual[l as usize] - r;
                // What rounding leaves on a link a flow filled is nothing, not a sliver that a
                // lower flow would trickle at.
                residual[l as usize] = if left <= capacity[l as usize] * 1e-12 {
                    0.0
                } else {
                    left
                };
                self.used.push(l);
            }
        }
        for &l in &self.used {
            residual[l as usize] = capacity[l as usize];
        }
        self.used.clear();
    }
}

/// What MERP's key needs to know of a flow.
#[derive(Clone, Copy, Debug)]
pub struct MerpFlow {
    pub id: u32,
    pub dst: u32,
    /// Wire bytes: the whole flow and what is left of it now.
    pub size: u64,
    pub rs: u64,
    pub arrival: Time,
}

/// MERP's key for each flow of the component (`keys[local[f]]`): the largest vdl VDG gives it
/// on any link of its path. `c[l]` is link capacity in bit/s.
#[allow(clippy::too_many_arguments)]
pub fn merp_keys(
    links: &[u32],
    local: &[u32],
    net: &LinkFlows,
    capacity: &[f64],
    now: Time,
    flow: &dyn Fn(u32) -> MerpFlow,
    table: &mut Vec<FlowEntry>,
    keys: &mut [Time],
) {
    keys.fill(Time::ZERO);
    for &l in links {
        table.clear();
        table.extend(net.flows_on(l).iter().map(|&f| {
            let m = flow(f);
            FlowEntry {
                flow: m.id,
                dst: m.dst,
                size: m.size,
                rs: m.rs,
                arrival: m.arrival,
                vdl: Time::ZERO,
                esr: 0.0,
            }
        }));
        if table.is_empty() {
            continue;
        }
        vdg(table, now, capacity[l as usize] / 8.0);
        for e in table.iter() {
            let k = &mut keys[local[e.flow as usize] as usize];
            *k = (*k).max(e.vdl);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repaired order, merged with the sorted new subflows, is always the full sort of the
    /// keys: over random rounds of arrivals, departures and keys that move (most down, as bytes
    /// are sent, some up), and when every key is turned around at once (the full sort's turn).
    #[test]
    fn priority_order_is_the_full_sort_of_the_keys() {
        let n = 400u32;
        let mut rng = 7u64;
        let mut next = move || {
            rng = crate::rng::mix(rng);
            rng
        };
        let mut keys = vec![
            Key {
                class: Time::ZERO,
                size: 0.0
            };
            n as usize
        ];
        let mut active: Vec<u32> = Vec::new();
        let mut order = PriorityOrder::default();
        for round in 0..300 {
            // Departures and arrivals.
            active.retain(|_| next() % 10 != 0);
            for _ in 0..next() % 8 {
                let e = (next() % n as u64) as u32;
                if !active.contains(&e) {
                    active.push(e);
                    keys[e as usize] = Key {
                        class: Time((next() % 3) * 1000),
                        size: (next() % 1000) as f64,
                    };
                }
            }
            for &e in &active {
                match next() % 8 {
                    0 | 1 => keys[e as usize].size *= 0.5,
                    2 => keys[e as usize].size += 100.0,
                    _ => {}
                }
            }
            if round % 50 == 49 {
                for &e in &active {
                    keys[e as usize].size = -keys[e as usize].size;
                }
            }
            let is_active: Vec<bool> = (0..n).map(|e| active.contains(&e)).collect();
            let got: Vec<u32> = order
                .update(&active, |e| keys[e as usize], |e| is_active[e as usize])
                .iter()
                .map(|&(k, e)| {
                    assert_eq!(k, keys[e as usize], "round {round}: a stale key");
                    e
                })
                .collect();
            let mut want = active.clone();
            want.sort_by(|&a, &b| cmp_keyed((keys[a as usize], a), (keys[b as usize], b)));
            assert_eq!(got, want, "round {round}");
        }
    }

    /// The greedy pass: strict priority along paths, work conservation past a paused flow, and
    /// the residuals put back for the next pass.
    #[test]
    fn greedy_serves_in_order_and_starts_each_pass_from_full_links() {
        // Links 0, 1, 2 of 10, 10, 4; flows a: 0-1, b: 1-2, c: 0, d: 2.
        let mut net = LinkFlows::default();
        for path in [&[0u32, 1][..], &[1, 2], &[0], &[2]] {
            let start = net.arena.len() as u32;
            net.arena.extend_from_slice(path);
            net.range.push((start, net.arena.len() as u32));
        }
        let capacity = [10.0, 10.0, 4.0];
        let flows = [0, 1, 2, 3];
        let mut greedy = Greedy::default();
        let mut rates = Vec::new();
        // a first fills 0 and 1; b is paused on 1; c finds 0 full; d takes 2 whole.
        greedy.run(
            &flows,
            [0, 1, 2, 3].into_iter(),
            &net,
            &capacity,
            &mut rates,
        );
        assert_eq!(rates, [10.0, 0.0, 0.0, 4.0]);
        // b first takes 4 (link 2) of 1, a the 6 left of 1, c the 4 left of 0, d nothing.
        greedy.run(
            &flows,
            [1, 0, 2, 3].into_iter(),
            &net,
            &capacity,
            &mut rates,
        );
        assert_eq!(rates, [6.0, 4.0, 4.0, 0.0]);
        // d first, then c: every link is full again at the start of the pass.
        greedy.run(
            &flows,
            [3, 2, 1, 0].into_iter(),
            &net,
            &capacity,
            &mut rates,
        );
        assert_eq!(rates, [0.0, 0.0, 10.0, 4.0]);
    }
}
