//! The policies' allocations of the re-solved flows (`comp_flows` → `rates`): water-filling
//! for max-min ([`super::maxmin`]), D3's routers ([`super::d3`]), the strict-priority greedy
//! pass ([`super::priority`]) in MERP's order, or in SRPT's and PDQ's, repaired from what
//! changed since the last pass ([`super::priority_repair`]).

use super::{priority, priority_repair, FlowSimulation, Policy};
use crate::units::Time;

impl FlowSimulation {
    /// A subflow's weight under the policy (its flow's under weighted max-min, else 1).
    pub(super) fn weight(&self, e: u32) -> f64 {
        if self.policy == Policy::WeightedMaxMin {
            self.flows[self.owner[e as usize] as usize].spec.weight
        } else {
            1.0
        }
    }

    /// The rates of `comp_flows` into `rates`, by the policy.
    pub(super) fn allocate(&mut self) {
        let now = self.now;
        match self.policy {
            Policy::MaxMin | Policy::WeightedMaxMin => {
                self.maxmin.solve(&self.problem, &mut self.rates);
            }
            Policy::D3 { unit_bps, .. } => {
                // Comp flows are the active ones in id order, which is start order (flows are
                // numbered by start): D3's first come first served.
                let (flows, owner, first_sub) = (&self.flows, &self.owner, &self.first_sub);
                let remaining = |e: u32| bits_left(flows, owner, first_sub, now, e);
                self.d3.solve(
                    now,
                    &self.comp_flows,
                    &self.graph,
                    &self.capacity,
                    &self.sub_deadline,
                    &remaining,
                    unit_bps as f64,
                    &mut self.rates,
                );
            }
            Policy::Srpt | Policy::Pdq { .. } => self.allocate_by_priority(),
            Policy::Merp => {
                let (flows, owner, first_sub) = (&self.flows, &self.owner, &self.first_sub);
                let comp = &self.comp_flows;
                self.order.clear();
                self.order.extend(0..comp.len() as u32);
                self.merp_keys.clear();
                self.merp_keys.resize(comp.len(), Time::ZERO);
                let info = |f: u32| {
                    let st = &flows[owner[f as usize] as usize];
                    priority::MerpFlow {
                        id: f,
                        dst: st.spec.dst,
                        size: st.wire,
                        rs: (bits_left(flows, owner, first_sub, now, f) / 8.0).ceil() as u64,
                        arrival: st.spec.start,
                    }
                };
                priority::merp_keys(
                    &self.comp_links,
                    &self.local,
                    &self.graph,
                    &self.capacity,
                    now,
                    &info,
                    &mut self.merp_table,
                    &mut self.merp_keys,
                );
                let keys = &self.merp_keys;
                self.order.sort_by(|&a, &b| {
                    let (a, b) = (a as usize, b as usize);
                    keys[a].cmp(&keys[b]).then(comp[a].cmp(&comp[b]))
                });
                self.greedy.run(
                    &self.comp_flows,
                    self.order.iter().copied(),
                    &self.graph,
                    &self.capacity,
                    &mut self.rates,
                );
            }
        }
    }

    /// SRPT's and PDQ's allocation: the strict-priority greedy pass, repaired from what
    /// changed since the last pass ([`super::priority_repair`]). Takes the subflows that
    /// arrived from `arrived`; writes the subflows whose rates may have changed to
    /// `comp_flows` and their rates to `rates`.
    pub(super) fn allocate_by_priority(&mut self) {
        let now = self.now;
        let aging_rate = self.aging_rate;
        let full = self.full_recompute;
        if full {
            self.prune_active();
        }
        for &e in &self.arrived {
            self.repair.join(e);
        }
        let (flows, owner, first_sub) = (&self.flows, &self.owner, &self.first_sub);
        let srpt = self.policy == Policy::Srpt;
        let (sub_rate, sub_paused) = (&self.sub_rate, &self.sub_paused);
        let key_at = |e: u32, t: Time| {
            let size = bits_left(flows, owner, first_sub, t, e);
            if srpt {
                return priority::Key {
                    class: Time::ZERO,
                    size,
                };
            }
            let st = &flows[owner[e as usize] as usize];
            // PDQ's size as the switches see it: aged by the time the subflow was paused.
            let size = if aging_rate == 0.0 {
                size
            } else {
                let paused_now = if sub_rate[e as usize] <= 0.0 {
                    t - st.last
                } else {
                    Time::ZERO
                };
                let waited = sub_paused[e as usize] + paused_now;
                size / crate::protocols::pdq::aging_divisor(aging_rate, waited)
            };
            priority::Key {
                class: st.spec.deadline.map_or(Time::MAX, |d| st.spec.start + d),
                size,
            }
        };
        let siblings = |e: u32| {
            let f = owner[e as usize] as usize;
            first_sub[f]..first_sub[f + 1]
        };
        let keys = priority_repair::Keys {
            key: key_at,
            now,
            siblings,
        };
        let out = priority_repair::Solved {
            flows: &mut self.comp_flows,
            rates: &mut self.rates,
        };
        let (net, capacity) = (&self.graph, &self.capacity);
        if full {
            self.repair
                .full_pass(&self.active, &keys, net, capacity, out);
        } else {
            // Under aging every paused key falls as it waits.
            let aged: &[u32] = if aging_rate != 0.0 { &self.active } else { &[] };
            self.repair
                .pass(&keys, &self.arrived, aged, net, capacity, out);
        }
    }
}

/// A subflow's share of its flow's bits left at `now`: all of them but under M-PDQ, whose
/// load shifting keeps its subflows' loads even (see "M-PDQ").
fn bits_left(
    flows: &[super::FlowState],
    owner: &[u32],
    first_sub: &[u32],
    now: Time,
    e: u32,
) -> f64 {
    let f = owner[e as usize] as usize;
    let n = first_sub[f + 1] - first_sub[f];
    flows[f].bits_left_at(now) / n as f64
}
