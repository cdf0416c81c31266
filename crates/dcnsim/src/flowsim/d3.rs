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
    /// Per global link: the sum of desired rates, then what is left.
    demand: Vec<f64>,
    left: Vec<f64>,
    /// Per global link: the fair share of the spare, `max(0, C − D) / N`.
    fair: Vec<f64>,
}

/// No deadline, in [`D3::solve`]'s `deadline`.
pub const NO_DEADLINE: Time = Time::MAX;

impl D3 {
    /// Rates of `flows` (`rates[i]` for `flows[i]`), which must be every flow on `links` (N
    /// of a link is the number of flows `net` has on it), first come first served: in start
    /// order, ties by id (the order of the flows' ids). `deadline[f]`: f's absolute deadline,
    /// or [`NO_DEADLINE`]; `remaining(f)`: its bits left now (asked of deadline flows only).
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        now: Time,
        links: &[u32],
        flows: &[u32],
        net: &LinkFlows,
        capacity: &[f64],
        deadline: &[Time],
        remaining: &dyn Fn(u32) -> f64,
        rates: &mut Vec<f64>,
    ) {
        let n = capacity.len();
        if self.demand.len() < n {
            self.demand.resize(n, 0.0);
            self.left.resize(n, 0.0);
            self.fair.resize(n, 0.0);
        }
        for &l in links {
            let l = l as usize;
            self.demand[l] = 0.0;
            self.left[l] = capacity[l];
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
                    self.demand[l as usize] += r;
                }
            }
        }
        for &l in links {
            let count = net.flows_on(l).len();
            let l = l as usize;
            if count > 0 {
                self.fair[l] = (capacity[l] - self.demand[l]).max(0.0) / count as f64;
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
                    if self.left[a as usize] > 0.0 && self.left[b as usize] > 0.0 => {}
                _ => continue,
            }
            let r = self.desired[i];
            // Rates here are never NaN, so plain comparisons stand for `f64::min` (which
            // handles NaN at a few instructions per call).
            let mut take = f64::INFINITY;
            for &l in path {
                let l = l as usize;
                let left = self.left[l];
                let offer = if left > r && r + self.fair[l] < left {
                    r + self.fair[l]
                } else {
                    left
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
                let l = l as usize;
                let left = self.left[l] - take;
                // Rounding left over on a link the flows filled is nothing.
                self.left[l] = if left <= capacity[l] * 1e-12 {
                    0.0
                } else {
                    left
                };
            }
        }
    }
}
