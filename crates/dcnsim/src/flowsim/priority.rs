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
use crate::net::PortIdx;
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

/// The order of (key, subflow id) pairs: class, then size, then id.
pub fn cmp_keyed(a: (Key, u32), b: (Key, u32)) -> Ordering {
    a.0.class
        .cmp(&b.0.class)
        .then(a.0.size.total_cmp(&b.0.size))
        .then(a.1.cmp(&b.1))
}

/// The greedy pass of a strict-priority allocation: flows in order, each taking the smallest
/// residual capacity along its path. [`Greedy::run`] is the pass over every flow given
/// (MERP's); SRPT and PDQ repair the last pass's result from what changed
/// ([`super::priority_repair`]), with the same arithmetic ([`Greedy::taken`]). The residual
/// capacities equal the links' capacities between passes: a pass puts back only the links it
/// used, so its cost follows the flows, not the network's size.
#[derive(Default)]
pub struct Greedy {
    residual: Vec<f64>,
    used: Vec<u32>,
}

impl Greedy {
    /// Gives `rates[i]` to `flows[i]` in the order of `order` (indices into `flows`).
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
        rates.clear();
        rates.resize(flows.len(), 0.0);
        for i in order {
            if let Some(r) = self.take(net.path(flows[i as usize]), capacity) {
                rates[i as usize] = r;
            }
        }
        for &l in &self.used {
            self.residual[l as usize] = capacity[l as usize];
        }
        self.used.clear();
    }

    /// The step of a flow on `path`: its rate, the smallest residual along the path, taken off
    /// every link of it; `None` if a link of it is full (or the path is empty).
    fn take(&mut self, path: &[PortIdx], capacity: &[f64]) -> Option<f64> {
        let residual = &mut self.residual;
        let mut r = f64::INFINITY;
        for &l in path {
            r = r.min(residual[l as usize]);
            if r <= 0.0 {
                return None; // paused: no need to look further
            }
        }
        if !r.is_finite() {
            return None;
        }
        for &l in path {
            residual[l as usize] = Greedy::taken(residual[l as usize], r, capacity[l as usize]);
            self.used.push(l);
        }
        Some(r)
    }

    /// What a link of `capacity` has left of `residual` once a flow takes `rate` of it. What
    /// rounding leaves on a link a flow filled is nothing, not a sliver that a lower flow would
    /// trickle at.
    #[inline]
    pub fn taken(residual: f64, rate: f64, capacity: f64) -> f64 {
        let left = residual - rate;
        if left <= capacity * 1e-12 {
            0.0
        } else {
            left
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
                rs: m.rs,
                esr: 0.0,
                // No soft state at flow level.
                ..FlowEntry::new(m.id, m.dst, m.size, m.arrival, Time::ZERO)
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

    /// The greedy pass: strict priority along paths, work conservation past a paused flow, and
    /// the residuals put back for the next pass.
    #[test]
    fn greedy_serves_in_order_and_starts_each_pass_from_full_links() {
        // Links 0, 1, 2 of 10, 10, 4; flows a: 0-1, b: 1-2, c: 0, d: 2.
        let net = LinkFlows::with_paths(&[&[0, 1], &[1, 2], &[0], &[2]]);
        let capacity = [10.0, 10.0, 4.0];
        let mut greedy = Greedy::default();
        let mut pass = |order: [u32; 4]| {
            let mut rates = Vec::new();
            greedy.run(
                &[0, 1, 2, 3],
                order.into_iter(),
                &net,
                &capacity,
                &mut rates,
            );
            rates
        };
        // a first fills 0 and 1; b is paused on 1; c finds 0 full; d takes 2 whole.
        assert_eq!(pass([0, 1, 2, 3]), [10.0, 0.0, 0.0, 4.0]);
        // b first takes 4 (link 2) of 1, a the 6 left of 1, c the 4 left of 0, d nothing.
        assert_eq!(pass([1, 0, 2, 3]), [6.0, 4.0, 4.0, 0.0]);
        // d first, then c: every link is full again at the start of the pass.
        assert_eq!(pass([3, 2, 1, 0]), [0.0, 0.0, 10.0, 4.0]);
    }
}
