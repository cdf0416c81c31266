//! # Incremental max-min
//!
//! After the events of one instant, max-min first re-solves only the flows on the touched
//! links (the other links of their paths offer what the flows outside the set leave: their
//! rates are held), then opens — adds every flow of — each link of the set that carries
//! outside flows and where the solve may not be max-min for the whole network, and solves
//! again, until no link is opened. A link is opened when
//! * a flow of the set changed rate on it and it was full before or is full now: the outside
//!   flows bottlenecked there may have to yield, or may grow into what was freed; or
//! * it is full now and an outside flow has a higher rate (per unit of weight) than any flow
//!   of the set on it: the flows of the set that the solve stopped there may take from it.
//!
//! When the change spreads (a budget of solves without closing), the set also grows through
//! every link that was full: one large solve instead of many growing ones (the rules above
//! still decide when it is closed). The budget is 8 solves where changes stay local and 1
//! where they spread through the coupled flows anyway (every flow started at once, heavy
//! load); each recomputation takes the one that solved fewer flows lately, and every 256th
//! tries the other, so the run follows its regime. The budget changes the cost, not the
//! allocation.
//!
//! The result is the max-min allocation of the whole network. A flow of the set has its
//! bottleneck where the solve stopped it: a full link on which, by the second rule, no
//! outside flow has more. A flow outside kept its bottleneck link: full before, where it had
//! the most; if no flow of the set changed rate there the link is as it was, and if one did
//! the first rule opened it. Links count as full within a relative 10⁻⁶, so rounding can
//! only open more. Test `pruned_max_min_equals_full_recomputation` checks the
//! pruning against whole components (fat-tree, max-min and weighted, loads 0.4–0.95), with
//! the adaptive budget and with each budget forced.

use super::{rate_changed, FlowSimulation};

/// How a max-min recomputation grows its set of flows: through every link of their paths (the
/// whole connected component, to test the pruning against), only through the links
/// [`FlowSimulation::expand`] opens, or also through every link that was full.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Growth {
    Whole,
    Lazy,
    Saturated,
}

/// Lazy solves of a max-min recomputation before it grows through every full link: many
/// where a change stays near its links (light load), one where it spreads through the coupled
/// flows anyway (heavy load, many flows started at once). Each recomputation takes the budget
/// that has cost fewer solved flows lately, and every [`EXPLORE_EVERY`]th the other one.
const LAZY_BUDGETS: [u32; 2] = [8, 1];
const EXPLORE_EVERY: u64 = 256;

/// Relative margin within which a link counts as full (for growing max-min components).
const SATURATION_MARGIN: f64 = 1e-6;

/// Relative margin by which an outside flow's rate must exceed a component's to open a link
/// (well above rounding in rates, well below any real difference).
const OUTRANK_MARGIN: f64 = 1e-9;

impl FlowSimulation {
    /// The max-min part of a recomputation: grows the set of flows from the touched links and
    /// solves it until it is closed (above); leaves its rates in `rates`.
    pub(super) fn recompute_max_min(&mut self) {
        let epoch = self.epoch;
        let prune = !self.full_recompute;
        self.comp_links.clear();
        self.comp_flows.clear();
        self.open.clear();
        for k in 0..self.dirty.len() {
            let l = self.dirty[k];
            if self.open_mark[l as usize] != epoch {
                self.open_mark[l as usize] = epoch;
                self.open.push(l);
            }
        }
        self.dirty.clear();
        let mut next_open = 0;
        let mut growth = if prune { Growth::Lazy } else { Growth::Whole };
        let choice = self.lazy_budget_choice();
        let budget = self.forced_budget.unwrap_or(LAZY_BUDGETS[choice]);
        let (mut solves, mut solved) = (0, 0);
        loop {
            next_open = self.grow(next_open, growth);
            if self.comp_flows.is_empty() {
                return;
            }
            self.allocate();
            self.stats.solves += 1;
            solves += 1;
            solved += self.comp_flows.len();
            if !prune || !self.expand() {
                break;
            }
            if solves == budget && growth == Growth::Lazy {
                // The change spreads: grow through every full link from here on, which costs
                // one large solve instead of many growing ones.
                growth = Growth::Saturated;
                self.open_saturated();
            }
        }
        let cost = &mut self.budget_cost[choice];
        *cost = if cost.is_finite() {
            0.9 * *cost + 0.1 * solved as f64
        } else {
            solved as f64
        };
    }

    /// Which of [`LAZY_BUDGETS`] this recomputation uses: the cheaper lately (an untried one
    /// counts as dearer), but the other one every [`EXPLORE_EVERY`]th time.
    fn lazy_budget_choice(&self) -> usize {
        let best = usize::from(self.budget_cost[1] < self.budget_cost[0]);
        if self.stats.recomputations.is_multiple_of(EXPLORE_EVERY) {
            1 - best
        } else {
            best
        }
    }

    /// Whether link `l` was full before this recomputation (with a margin, so that rounding in
    /// the running `load` can only make a component larger, never wrongly smaller).
    fn was_saturated(&self, l: u32) -> bool {
        self.load[l as usize] >= self.capacity[l as usize] * (1.0 - SATURATION_MARGIN)
    }

    /// Adds every flow of the open links (from `self.open[next..]`) to the component, and the
    /// links of those flows to its links, opening those links in turn as `growth` says.
    /// Returns how far `open` has been processed.
    fn grow(&mut self, mut next: usize, growth: Growth) -> usize {
        let epoch = self.epoch;
        while next < self.open.len() {
            let l = self.open[next];
            next += 1;
            for k in 0..self.graph.flows_on(l).len() {
                let f = self.graph.flows_on(l)[k];
                if self.flow_mark[f as usize] == epoch {
                    continue;
                }
                self.flow_mark[f as usize] = epoch;
                self.local[f as usize] = self.comp_flows.len() as u32;
                self.comp_flows.push(f);
                let (a, b) = self.graph.range[f as usize];
                for h in a as usize..b as usize {
                    let m = self.graph.arena[h];
                    let mi = m as usize;
                    if self.link_mark[mi] != epoch {
                        self.link_mark[mi] = epoch;
                        self.link_pos[mi] = self.comp_links.len() as u32;
                        self.comp_links.push(m);
                        self.comp_count[mi] = 0;
                    }
                    self.comp_count[mi] += 1;
                    let open = match growth {
                        Growth::Whole => true,
                        Growth::Lazy => false,
                        Growth::Saturated => self.was_saturated(m),
                    };
                    if open && self.open_mark[mi] != epoch {
                        self.open_mark[mi] = epoch;
                        self.open.push(m);
                    }
                }
            }
        }
        next
    }

    /// Opens every link of the component that was full before (for [`Growth::Saturated`]).
    fn open_saturated(&mut self) {
        for j in 0..self.comp_links.len() {
            let l = self.comp_links[j];
            if self.open_mark[l as usize] != self.epoch && self.was_saturated(l) {
                self.open_mark[l as usize] = self.epoch;
                self.open.push(l);
            }
        }
    }

    /// After a pruned max-min solve: opens every link of the component that carries flows
    /// outside it and where the solve may not be max-min for the whole network —
    /// * a component flow's rate changed on it, and it was full before or is full now: the
    ///   outside flows may have to yield, or may grow into what was freed;
    /// * it is full now and an outside flow has a higher rate (per unit of weight) than the
    ///   component flows that the solve stopped there: those may take from it.
    ///
    /// Returns whether any was opened (the component must then grow and be solved again).
    fn expand(&mut self) -> bool {
        self.change_stamp = self.change_stamp.wrapping_add(1);
        if self.change_stamp == 0 {
            self.change_mark.fill(0);
            self.change_stamp = 1;
        }
        let stamp = self.change_stamp;
        self.comp_max.clear();
        self.comp_max.resize(self.comp_links.len(), 0.0);
        for i in 0..self.comp_flows.len() {
            let f = self.comp_flows[i];
            let changed = rate_changed(self.sub_rate[f as usize], self.rates[i]);
            let level = self.rates[i] / self.weight(f);
            let (a, b) = self.graph.range[f as usize];
            for h in a as usize..b as usize {
                let m = self.graph.arena[h] as usize;
                if changed {
                    self.change_mark[m] = stamp;
                }
                let j = self.link_pos[m] as usize;
                self.comp_max[j] = self.comp_max[j].max(level);
            }
        }
        let epoch = self.epoch;
        let mut any = false;
        for j in 0..self.comp_links.len() {
            let l = self.comp_links[j];
            let li = l as usize;
            if self.open_mark[li] == epoch
                || self.comp_count[li] as usize == self.graph.flows_on(l).len()
            {
                continue;
            }
            let full_now = self.solve_residual[j] <= self.capacity[li] * SATURATION_MARGIN;
            let changed = self.change_mark[li] == stamp;
            let outranked = self.outside_max[j] > self.comp_max[j] * (1.0 + OUTRANK_MARGIN);
            if (changed && (full_now || self.was_saturated(l))) || (full_now && outranked) {
                self.open_mark[li] = epoch;
                self.open.push(l);
                any = true;
            }
        }
        any
    }

    /// Per component link, the capacity its component flows may share: all of it when they are
    /// its only flows, else what the other flows' (fixed) rates leave, summed afresh.
    /// Also notes, per component link, the largest rate per unit of weight of the flows
    /// outside the component ([`Self::expand`] compares the component's with it).
    pub(super) fn available(&mut self) {
        self.avail.clear();
        self.outside_max.clear();
        for j in 0..self.comp_links.len() {
            let l = self.comp_links[j];
            let li = l as usize;
            let mut a = self.capacity[li];
            let mut most = 0.0f64;
            if self.comp_count[li] as usize != self.graph.flows_on(l).len() {
                for &g in self.graph.flows_on(l) {
                    if self.flow_mark[g as usize] != self.epoch {
                        let r = self.sub_rate[g as usize].max(0.0);
                        a -= r;
                        most = most.max(r / self.weight(g));
                    }
                }
            }
            self.avail.push(a.max(0.0));
            self.outside_max.push(most);
        }
    }
}
