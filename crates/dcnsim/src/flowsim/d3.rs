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
//! Rates are whole units of `d3_rate_unit_mbps`, as in the packet model: a link's capacity
//! and the fair share round down, a desired rate rounds up (in integers, so that 8 Mb/s units
//! give the packet model's limit of 125 flows without deadline per 1 Gb/s link here too).
//!
//! Choices where the fluid differs from the packet model:
//! * a link subtracts the rate the flow takes (the path minimum), not its own possibly larger
//!   offer: the steady state the packet model reaches once the returned allocations have gone
//!   round, without the RTT-long transients;
//! * what a flow bottlenecked elsewhere leaves of its fair share stays unused (it is not
//!   max-min: `fs` is split over all N flows of the link): the capacity is the link rate, as
//!   under the packet model's `d3_capacity = "link"`. The default `adjusted` capacity of the
//!   packet model raises a link's capacity until such leftovers are used (up to twice the
//!   link rate); the fluid does not model that, so where flows are bottlenecked elsewhere it
//!   gives some flows less than the packet model's steady state;
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
    /// The capacity in whole units.
    capacity_units: u64,
    /// The sum of desired rates, in units.
    demand_units: u64,
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
    /// or [`NO_DEADLINE`]; `remaining(f)`: its bits left now (asked of deadline flows only);
    /// `unit`: the rate unit, bit/s.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        now: Time,
        flows: &[u32],
        net: &LinkFlows,
        capacity: &[f64],
        deadline: &[Time],
        remaining: &dyn Fn(u32) -> f64,
        unit: f64,
        rates: &mut Vec<f64>,
    ) {
        // Whole units, with a margin for the rounding of the division (a rate that is a whole
        // number of units must not lose or gain one).
        let units_down = |r: f64| (r / unit + 1e-9).floor().max(0.0) as u64;
        let units_up = |r: f64| (r / unit - 1e-9).ceil().max(0.0) as u64;
        // Every link, in slices (no index checks): D3 solves the whole network at once.
        self.links.resize(capacity.len(), LinkState::default());
        for (link, &c) in self.links.iter_mut().zip(capacity) {
            let units = units_down(c);
            let c = units as f64 * unit;
            *link = LinkState {
                capacity: c,
                capacity_units: units,
                left: c,
                ..LinkState::default()
            };
        }
        self.desired.clear();
        for &f in flows {
            let d = deadline[f as usize];
            let r = if d != NO_DEADLINE && d > now {
                units_up(remaining(f) / (d - now).as_secs_f64())
            } else {
                0
            };
            self.desired.push(r as f64 * unit);
            if r > 0 {
                // (A desire of 0 adds nothing: the sums are those over every flow.)
                for &l in net.path(f) {
                    self.links[l as usize].demand_units += r;
                }
            }
        }
        for (l, link) in self.links.iter_mut().enumerate() {
            let count = net.flows_on(l as u32).len() as u64;
            let spare = link.capacity_units.saturating_sub(link.demand_units);
            if let Some(fair) = spare.checked_div(count) {
                link.fair = fair as f64 * unit;
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
