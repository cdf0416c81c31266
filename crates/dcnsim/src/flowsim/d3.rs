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

/// A flow of the component as D3 sees it.
pub struct D3Flow {
    pub start: Time,
    /// Absolute deadline, if any.
    pub deadline: Option<Time>,
    /// Bits still to send now.
    pub remaining: f64,
}

/// Scratch space reused between solves.
#[derive(Default)]
pub struct D3 {
    desired: Vec<f64>,
    /// Per global link: the sum of desired rates, the flow count, then what is left.
    demand: Vec<f64>,
    count: Vec<u32>,
    left: Vec<f64>,
    /// Per global link: the fair share of the spare, `max(0, C − D) / N`.
    fair: Vec<f64>,
    order: Vec<u32>,
    starts: Vec<Time>,
}

impl D3 {
    /// Rates of `flows` (`rates[i]` for `flows[i]`), which must be every flow of `links`.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        now: Time,
        links: &[u32],
        flows: &[u32],
        net: &LinkFlows,
        capacity: &[f64],
        info: &dyn Fn(u32) -> D3Flow,
        rates: &mut Vec<f64>,
    ) {
        let n = capacity.len();
        if self.demand.len() < n {
            self.demand.resize(n, 0.0);
            self.count.resize(n, 0);
            self.left.resize(n, 0.0);
            self.fair.resize(n, 0.0);
        }
        for &l in links {
            let l = l as usize;
            self.demand[l] = 0.0;
            self.count[l] = 0;
            self.left[l] = capacity[l];
        }
        self.desired.clear();
        self.starts.clear();
        for &f in flows {
            let flow = info(f);
            let r = match flow.deadline {
                Some(d) if d > now => flow.remaining / (d - now).as_secs_f64(),
                _ => 0.0,
            };
            self.desired.push(r);
            self.starts.push(flow.start);
            for &l in net.path(f) {
                self.demand[l as usize] += r;
                self.count[l as usize] += 1;
            }
        }
        for &l in links {
            let l = l as usize;
            if self.count[l] > 0 {
                self.fair[l] = (capacity[l] - self.demand[l]).max(0.0) / self.count[l] as f64;
            }
        }
        self.order.clear();
        self.order.extend(0..flows.len() as u32);
        let starts = &self.starts;
        // Keys are unique (flow ids), so an unstable sort gives the one order.
        self.order
            .sort_unstable_by_key(|&i| (starts[i as usize], flows[i as usize]));
        rates.clear();
        rates.resize(flows.len(), 0.0);
        for &i in &self.order {
            let f = flows[i as usize];
            let r = self.desired[i as usize];
            let path = net.path(f);
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
            rates[i as usize] = take;
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
