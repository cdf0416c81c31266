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

/// The active subflows in priority order, kept from one solve to the next. The key of a
/// subflow whose flow did not send since the last solve is what it was (its bytes left did
/// not move; under PDQ's aging every such key is divided by the same factor), so those keep
/// their relative order: only the others and the new ones are sorted, then merged in. The
/// result is checked and, should rounding have swapped two kept keys, sorted whole: it is
/// always the one sorted order of all the keys.
#[derive(Default)]
pub struct PriorityOrder {
    order: Vec<u32>,
    kept: Vec<(Key, u32)>,
    moved: Vec<(Key, u32)>,
}

impl PriorityOrder {
    /// Re-orders `active` (every active subflow) by `keys[e]` and returns the order.
    /// `kept(e)`: e was ordered at the last call and its flow has not sent since.
    pub fn update(&mut self, active: &[u32], keys: &[Key], kept: &dyn Fn(u32) -> bool) -> &[u32] {
        self.kept.clear();
        self.kept.extend(
            self.order
                .iter()
                .filter(|&&e| kept(e))
                .map(|&e| (keys[e as usize], e)),
        );
        self.moved.clear();
        self.moved.extend(
            active
                .iter()
                .filter(|&&e| !kept(e))
                .map(|&e| (keys[e as usize], e)),
        );
        self.moved.sort_unstable_by(|&a, &b| cmp_keyed(a, b));
        self.order.clear();
        let (mut i, mut j) = (0, 0);
        while i < self.kept.len() && j < self.moved.len() {
            if cmp_keyed(self.kept[i], self.moved[j]) == Ordering::Less {
                self.order.push(self.kept[i].1);
                i += 1;
            } else {
                self.order.push(self.moved[j].1);
                j += 1;
            }
        }
        self.order.extend(self.kept[i..].iter().map(|k| k.1));
        self.order.extend(self.moved[j..].iter().map(|k| k.1));
        let sorted = self.order.windows(2).all(|w| {
            let (a, b) = (w[0], w[1]);
            cmp_keyed((keys[a as usize], a), (keys[b as usize], b)) == Ordering::Less
        });
        if !sorted {
            self.order
                .sort_unstable_by(|&a, &b| cmp_keyed((keys[a as usize], a), (keys[b as usize], b)));
        }
        &self.order
    }
}

/// Gives `rates[i]` to `flows[i]` in the order of `order` (indices into `flows`).
pub fn greedy(
    links: &[u32],
    flows: &[u32],
    order: &[u32],
    net: &LinkFlows,
    capacity: &[f64],
    residual: &mut Vec<f64>,
    rates: &mut Vec<f64>,
) {
    if residual.len() < capacity.len() {
        residual.resize(capacity.len(), 0.0);
    }
    for &l in links {
        residual[l as usize] = capacity[l as usize];
    }
    rates.clear();
    rates.resize(flows.len(), 0.0);
    for &i in order {
        let f = flows[i as usize];
        let path = net.path(f);
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
        }
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

    /// The kept order, merged with the sorted rest, is always the full sort of the keys: over
    /// random rounds of arrivals, departures and flows that sent (smaller keys), and when a
    /// kept key was (wrongly) moved too, which the check must catch.
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
        let mut sent = vec![false; n as usize];
        let mut ordered = vec![false; n as usize];
        let mut order = PriorityOrder::default();
        for round in 0..300 {
            // Departures and arrivals.
            active.retain(|_| next() % 10 != 0);
            for _ in 0..next() % 8 {
                let e = (next() % n as u64) as u32;
                if !active.contains(&e) {
                    active.push(e);
                    ordered[e as usize] = false;
                    keys[e as usize] = Key {
                        class: Time((next() % 3) * 1000),
                        size: (next() % 1000) as f64,
                    };
                }
            }
            for &e in &active {
                sent[e as usize] = ordered[e as usize] && next() % 4 == 0;
                if sent[e as usize] {
                    keys[e as usize].size *= 0.5;
                }
            }
            if round % 50 == 49 {
                // A kept key moves: the merge is then out of order and must be redone.
                if let Some(&e) = active
                    .iter()
                    .find(|&&e| ordered[e as usize] && !sent[e as usize])
                {
                    keys[e as usize].size = -1.0;
                }
            }
            let is_active: Vec<bool> = (0..n).map(|e| active.contains(&e)).collect();
            let kept = |e: u32| is_active[e as usize] && ordered[e as usize] && !sent[e as usize];
            let got = order.update(&active, &keys, &kept).to_vec();
            let mut want = active.clone();
            want.sort_by(|&a, &b| cmp_keyed((keys[a as usize], a), (keys[b as usize], b)));
            assert_eq!(got, want, "round {round}");
            for &e in &active {
                ordered[e as usize] = true;
            }
        }
    }
}
