//! D3's allocation as a fluid: the rates its routers hand out (`crate::protocols::d3`, D3
//! paper §4), computed once per event instead of once per RTT.
//!
//! Every link computes, over its flows, D = the sum of desired rates, N = the number of flows
//! and the fair share of spare capacity `fs = max(0, C − D) / N`. A deadline flow desires
//! `r = remaining / time to deadline` (0 once the deadline has passed, and for flows without
//! one). Flows are served first come first served, by start time (the order in which D3's
//! routers see their requests; an earlier flow keeps its allocation as later ones arrive):
//! on each link a flow is offered `r + fs` when more than `r` is left, else what is left, and
//! takes the smallest offer along its path, which is then no longer left on any of its links.
//!
//! Choices where the fluid differs from the packet model:
//! * rates are exact, not whole bytes/µs (the packet model's granularity limit of 125 flows per
//!   1 Gb/s link does not appear);
//! * a link subtracts the rate the flow takes (the path minimum), not its own possibly larger
//!   offer: the steady state the packet model reaches once the returned allocations have gone
//!   round, without the RTT-long transients;
//! * what a flow bottlenecked elsewhere leaves of its fair share stays unused, as in D3 (it
//!   is not max-min: `fs` is split over all N flows of the link);
//! * quenching (`d3_quench`) is the sender's test "desired rate above the uplink, or deadline
//!   passed", which on a fluid is PDQ's Early Termination test: it is scheduled the same way.

use super::LinkFlows;
use crate::units::Time;

/// Scratch space reused between solves.
#[derive(Default)]
pub struct D3 {
    desired: Vec<f64>,
    /// Per global link, one record: the passes read a hop's fields together.
    links: Vec<LinkState>,
}

/// What a solve keeps of a link.
#[derive(Clone, Copy, Default)]
struct LinkState {
    capacity: f64,
    /// The sum of desired rates.
    demand: f64,
    /// The fair share of the spare, `max(0, C − D) / N`.
    fair: f64,
    /// What is left.
    left: f64,
}

/// No deadline, in [`D3::solve`]'s `deadline`.
pub const NO_DEADLINE: Time = Time::MAX;

impl D3 {
    /// Rates of `flows` (`rates[i]` for `flows[i]`), which must be every active flow (N of a
    /// link is the number of flows `net` has on it), first come first served: in start
    /// order, ties by id (the order of the flows' ids). `deadline[f]`: f's absolute deadline,
    /// or [`NO_DEADLINE`]; `remaining(f)`: its bits left now (asked of deadline flows only).
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        now: Time,
        flows: &[u32],
        net: &LinkFlows,
        capacity: &[f64],
        deadline: &[Time],
        remaining: &dyn Fn(u32) -> f64,
        rates: &mut Vec<f64>,
    ) {
        // Every link, in slices (no index checks): D3 solves the whole network at once.
        self.links.resize(capacity.len(), LinkState::default());
        for (link, &c) in self.links.iter_mut().zip(capacity) {
            *link = LinkState {
                capacity: c,
                left: c,
                ..LinkState::default()
            };
        }
        self.desired.clear();
        for &f in flows {
            let d = deadline[f as usize];
            let r = if d != NO_DEADLINE && d > now {
                remaining(f) / (d - now).as_secs_f64()
            } else {
                0.0
            };
            self.desired.push(r);
            if r > 0.0 {
                // (A desire of 0 adds nothing: the sums are those over every flow.)
                for &l in net.path(f) {
                    self.links[l as usize].demand += r;
                }
            }
        }
        for (l, link) in self.links.iter_mut().enumerate() {
            let count = net.flows_on(l as u32).len();
            if count > 0 {
                link.fair = (link.capacity - link.demand).max(0.0) / count as f64;
            }
        }
        rates.clear();
        rates.resize(flows.len(), 0.0);
        for (i, &f) in flows.iter().enumerate() {
            let path = net.path(f);
            // A flow whose first or last link is full is offered nothing there (no desire
            // is below 0): paused, as the walk below would find.
            match (path.first(), path.last()) {
                (Some(&a), Some(&b))
                    if self.links[a as usize].left > 0.0 && self.links[b as usize].left > 0.0 => {}
                _ => continue,
            }
            let r = self.desired[i];
            // Rates here are never NaN, so plain comparisons stand for `f64::min` (which
            // handles NaN at a few instructions per call).
            let mut take = f64::INFINITY;
            for &l in path {
                let link = &self.links[l as usize];
                let offer = if link.left > r && r + link.fair < link.left {
                    r + link.fair
                } else {
                    link.left
                };
                if offer < take {
                    take = offer;
                }
            }
            if !(take.is_finite() && take > 0.0) {
                continue;
            }
            rates[i] = take;
            for &l in path {
                let link = &mut self.links[l as usize];
                let left = link.left - take;
                // Rounding left over on a link the flows filled is nothing.
                link.left = if left <= link.capacity * 1e-12 {
                    0.0
                } else {
                    left
                };
            }
        }
    }
}
