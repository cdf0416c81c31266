//! # Incremental max-min
//!
//! A flow's *level* is its rate per unit of weight. A flow is *bottlenecked* at a link that
//! is full and carries no flow at a higher level; an allocation is max-min exactly when every
//! flow has a bottleneck link (Bertsekas & Gallager §6.5.2).
//!
//! After the events of one instant, max-min re-solves a *set* of flows; the flows outside it
//! hold their rates, and the links of the set offer the set what those leave. The set starts
//! with the new flows and the flows bottlenecked at the links the events touched (the other
//! flows there are bottlenecked elsewhere). It is solved, then links are opened — flows of
//! theirs join the set — where the solve may not be max-min for the whole network, and it is
//! solved again, until no flow joins. A link is opened
//! * for the flows bottlenecked there before (at its highest level, within a relative
//!   10⁻⁶), when it was full before and a flow of the set changed rate on it: they may have
//!   to yield, or may grow into what was freed;
//! * for all its flows, when it is full now and an outside flow has a higher level than every
//!   flow of the set on it: the flows of the set that the solve stopped there may take from
//!   it.
//!
//! The result is the max-min allocation of the whole network: every flow has a bottleneck
//! link. A flow of the set has it where the solve stopped it: a full link on which, by the
//! second rule, no outside flow has more. A flow outside keeps the one it had: if no flow of
//! the set changed rate there the link is as it was, and if one did, the first rule (or the
//! start, for a touched link) took the flows bottlenecked there into the set, so this one
//! would not be outside. Links count as full within a relative 10⁻⁶, so rounding can only
//! open more.
//!
//! When the change spreads (a budget of solves without closing), the set also grows through
//! every link that was full, for the flows bottlenecked there: one large solve instead of many
//! growing ones (the rules above still decide when it is closed). The budget is 8 solves
//! where changes stay local and 1 where they spread anyway (every flow started at once, heavy
//! load); each recomputation takes the one that solved fewer flows lately (a smoothed count
//! in which one spike weighs little), after trying each once, and every 256th tries the
//! other, so the run follows its regime. The budget changes the cost, not the allocation.
//!
//! ## Levels below the event's
//!
//! Water-filling raises the level of every unfrozen flow together and freezes a flow when the
//! first link of its path fills, so every link of a flow's path fills at or above the flow's
//! level. Hence:
//! * a flow that ends at level ℓ changes nothing the water-filling does below ℓ: without it
//!   its links fill later, and they filled at ℓ or above anyway;
//! * a flow that arrives gets at least the lowest c/W over the links of its path (c the
//!   link's capacity, W the weight of its flows, the new one included): its bottleneck link
//!   is full and carries no flow at a higher level, so c ≤ level · W there; and nothing below
//!   its level changes, as for an ended flow.
//!
//! So a flow whose level is below the lowest of these over the instant's events (the *floor*)
//! keeps its rate: it never joins the set. The argument for the result still holds: a held
//! flow's bottleneck link carries only flows at or below its level, all held, so the link
//! stays as it was; and held flows never open a link by the second rule, being below every
//! flow of the set. Flows within a relative 10⁻⁶ of the floor are solved, so rounding can only
//! solve more.
//!
//! ## Cost
//!
//! Test `pruned_max_min_equals_full_recomputation` checks the result against whole components
//! (fat-tree, max-min and weighted, loads 0.4–0.95; fat-tree, BCube and Jellyfish with every
//! flow started at once; the adaptive budget and each budget forced), and
//! `flows_below_an_ended_flows_level_keep_their_rates_unsolved` the floor on a case by hand.
//! On PDQ's Fig. 8 (10 240 flows started at once on BCube(4,4)), where 61 rates change per
//! event, 260 flows are solved per event (whole components: 5 100; every flow of an opened
//! link and no floor: 4 800). Figures: bench/RESULTS.md ("bottleneck-aware opening").

use super::{rate_changed, FlowSimulation, Policy};

/// What a max-min recomputation notes of a link (one record: these are read together).
#[derive(Clone, Copy, Default)]
pub(super) struct LinkNotes {
    /// The epoch (recomputation) in which the link joined the set, and its index among the
    /// set's links.
    in_set: u32,
    pos: u32,
    /// The epochs of its openings: for all its flows, and for those bottlenecked there.
    opened_all: u32,
    opened_top: u32,
}

impl LinkNotes {
    /// Forgets the epochs (when the epoch counter wraps round).
    pub(super) fn clear_epochs(&mut self) {
        self.in_set = 0;
        self.opened_all = 0;
        self.opened_top = 0;
    }
}

/// How a max-min recomputation grows its set of flows: through every link of their paths, for
/// all their flows (the whole connected component, to test the pruning against), only through
/// the links [`FlowSimulation::expand`] opens, or also through every link that was full, for
/// the flows bottlenecked there.
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

/// Whether a link carrying `load` is full, within [`SATURATION_MARGIN`] (so that rounding in
/// the running load can only make a set larger, never wrongly smaller).
fn is_full(load: f64, capacity: f64) -> bool {
    load >= capacity * (1.0 - SATURATION_MARGIN)
}

impl FlowSimulation {
    /// The max-min part of a recomputation: grows the set of flows from the touched links and
    /// solves it until it is closed (above); leaves its rates in `rates`.
    pub(super) fn recompute_max_min(&mut self) {
        let prune = !self.full_recompute;
        self.comp_links.clear();
        self.comp_flows.clear();
        self.problem.clear();
        self.open.clear();
        for k in 0..self.dirty.len() {
            let l = self.dirty[k];
            self.open_link(l, !prune);
        }
        self.dirty.clear();
        self.level_floor = if prune { self.event_level_floor() } else { 0.0 };
        let mut next_open = 0;
        let mut growth = if prune { Growth::Lazy } else { Growth::Whole };
        let choice = self.lazy_budget_choice();
        let budget = self.forced_budget.unwrap_or(LAZY_BUDGETS[choice]);
        let (mut solves, mut solved) = (0, 0);
        loop {
            let before = self.comp_flows.len();
            next_open = self.grow(next_open, growth);
            if self.comp_flows.is_empty() {
                return;
            }
            if solves > 0 && self.comp_flows.len() == before {
                // The opened links had no flow to add: the last solve stands.
                break;
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
        // A rare dear recomputation counts at most 4× the estimate: the budget not chosen is
        // only sampled every EXPLORE_EVERY recomputations, so one spike would otherwise keep
        // it out for thousands (budget 8 at load 0.3: its spikes cost 20 % of a run).
        *cost = if cost.is_finite() {
            0.9 * *cost + 0.1 * (solved as f64).min(4.0 * *cost + 1.0)
        } else {
            solved as f64
        };
    }

    /// Queues link `l` for its flows to join the set: all of them, or only those bottlenecked
    /// there (at its highest level) and new ones. Each kind of opening happens once per
    /// recomputation; a link opened for its bottlenecked flows may later be opened for all.
    fn open_link(&mut self, l: u32, all: bool) {
        let (note, epoch) = (&mut self.notes[l as usize], self.epoch);
        if note.opened_all == epoch || (!all && note.opened_top == epoch) {
            return;
        }
        if all {
            note.opened_all = epoch;
        } else {
            note.opened_top = epoch;
        }
        self.open.push((l, all));
    }

    /// The level (rate per unit of weight) below which no flow's rate can change in this
    /// recomputation: the lowest of the ended flows' levels and of the arrived flows' lower
    /// bounds (see "Levels below the event's"). Clears what the events noted.
    fn event_level_floor(&mut self) -> f64 {
        let mut floor = self.ended_level;
        self.ended_level = f64::INFINITY;
        for k in 0..self.arrived.len() {
            let e = self.arrived[k];
            for &l in self.graph.path(e) {
                let flows = self.graph.flows_on(l);
                let weights = if self.policy == Policy::WeightedMaxMin {
                    flows.iter().map(|&g| self.weight(g)).sum()
                } else {
                    flows.len() as f64
                };
                floor = floor.min(self.capacity[l as usize] / weights);
            }
        }
        self.arrived.clear();
        floor
    }

    /// Whether subflow `f` keeps its rate in this recomputation: it has one, below the floor
    /// by more than rounding.
    fn is_held(&self, f: u32) -> bool {
        let r = self.sub_rate[f as usize];
        r >= 0.0 && r < self.level_floor * self.weight(f) * (1.0 - SATURATION_MARGIN)
    }

    /// Which of [`LAZY_BUDGETS`] this recomputation uses: an untried one first (with every
    /// flow started at once, the first recomputations are the dearest, so waiting for the
    /// first exploration to try the other cost a BCube run 30 %), then the cheaper lately, but
    /// the other one every [`EXPLORE_EVERY`]th time.
    fn lazy_budget_choice(&self) -> usize {
        if let Some(untried) = self.budget_cost.iter().position(|c| c.is_infinite()) {
            return untried;
        }
        let best = usize::from(self.budget_cost[1] < self.budget_cost[0]);
        if self.stats.recomputations.is_multiple_of(EXPLORE_EVERY) {
            1 - best
        } else {
            best
        }
    }

    /// Whether link `l` was full before this recomputation ([`is_full`]).
    fn was_saturated(&self, l: u32) -> bool {
        is_full(self.load[l as usize], self.capacity[l as usize])
    }

    /// Adds the flows of the open links (from `self.open[next..]`) to the set — all of them or
    /// the bottlenecked ones, as opened, but none held below the floor — and the links of
    /// those flows to its links, opening those links in turn as `growth` says. Returns how far
    /// `open` has been processed.
    #[inline(never)]
    fn grow(&mut self, mut next: usize, growth: Growth) -> usize {
        let epoch = self.epoch;
        while next < self.open.len() {
            let (l, all) = self.open[next];
            next += 1;
            let top = if all {
                f64::NEG_INFINITY
            } else {
                self.top_level(l) * (1.0 - SATURATION_MARGIN)
            };
            for k in 0..self.graph.flows_on(l).len() {
                let f = self.graph.flows_on(l)[k];
                if self.flow_mark[f as usize] == epoch || self.is_held(f) {
                    continue;
                }
                let r = self.sub_rate[f as usize];
                if r >= 0.0 && r < top * self.weight(f) {
                    continue;
                }
                self.flow_mark[f as usize] = epoch;
                self.local[f as usize] = self.comp_flows.len() as u32;
                self.comp_flows.push(f);
                let w = self.weight(f);
                let (a, b) = self.graph.range[f as usize];
                for h in a as usize..b as usize {
                    let m = self.graph.arena[h];
                    let mi = m as usize;
                    let note = &mut self.notes[mi];
                    if note.in_set != epoch {
                        note.in_set = epoch;
                        note.pos = self.problem.add_link(
                            self.capacity[mi],
                            self.load[mi],
                            self.graph.flows_on(m).len() as u32,
                        );
                        self.comp_links.push(m);
                    }
                    self.problem.add_hop(note.pos, w, r);
                    match growth {
                        Growth::Whole => self.open_link(m, true),
                        Growth::Lazy => {}
                        Growth::Saturated => {
                            if self.was_saturated(m) {
                                self.open_link(m, false);
                            }
                        }
                    }
                }
                self.problem.add_flow(w);
            }
        }
        next
    }

    /// The highest level among the flows on link `l` that have a rate: before this
    /// recomputation, the level of the flows bottlenecked there if it was full.
    fn top_level(&self, l: u32) -> f64 {
        let mut top = 0.0f64;
        for &f in self.graph.flows_on(l) {
            let level = self.level(f, self.sub_rate[f as usize]);
            if level > top {
                top = level;
            }
        }
        top
    }

    /// Opens every link of the set that was full before, for its bottlenecked flows (for
    /// [`Growth::Saturated`]).
    fn open_saturated(&mut self) {
        for j in 0..self.comp_links.len() {
            let l = self.comp_links[j];
            if self.was_saturated(l) {
                self.open_link(l, false);
            }
        }
    }

    /// After a pruned max-min solve: opens the links of the set that carry outside flows and
    /// where the solve may not be max-min for the whole network (module doc) —
    /// * for the flows bottlenecked there, when a flow of the set changed rate on it and it
    ///   was full before;
    /// * for all its flows, when it is full now and an outside flow has a higher level than
    ///   the flows of the set on it.
    ///
    /// Returns whether any was opened (the set must then grow and be solved again).
    // Kept out of line, as `grow`: −1 % instructions (the recomputation loop spills less).
    #[inline(never)]
    fn expand(&mut self) -> bool {
        // The set's links (by their index in it) on which a flow of the set changed rate.
        let changed = &mut self.changed_links;
        changed.clear();
        changed.resize(self.comp_links.len(), false);
        for (i, &f) in self.comp_flows.iter().enumerate() {
            if rate_changed(self.sub_rate[f as usize], self.rates[i]) {
                for &j in self.problem.path(i) {
                    changed[j as usize] = true;
                }
            }
        }
        let mut any = false;
        // What the rules read first is the set's own (its links as the solve saw them), so
        // that the network-wide records are read only for links a rule may open.
        for j in 0..self.comp_links.len() {
            let link = self.problem.links()[j];
            if link.only_set() {
                continue;
            }
            let full_now = self.maxmin.residual(j) <= link.capacity * SATURATION_MARGIN;
            let changed_on_full = self.changed_links[j] && is_full(link.load, link.capacity);
            if !full_now && !changed_on_full {
                continue;
            }
            let l = self.comp_links[j];
            let note = self.notes[l as usize];
            let outranked = || {
                let (inside, outside) = self.top_levels_inside_and_out(l);
                outside > inside * (1.0 + OUTRANK_MARGIN)
            };
            if full_now && note.opened_all != self.epoch && outranked() {
                self.open_link(l, true);
                any = true;
            } else if changed_on_full
                && note.opened_top != self.epoch
                && note.opened_all != self.epoch
            {
                self.open_link(l, false);
                any = true;
            }
        }
        any
    }

    /// The largest level on link `l` of the set's flows, as just solved, and of the flows
    /// outside the set.
    fn top_levels_inside_and_out(&self, l: u32) -> (f64, f64) {
        let (mut inside, mut outside) = (0.0f64, 0.0f64);
        for &g in self.graph.flows_on(l) {
            let g = g as usize;
            let (top, rate) = if self.flow_mark[g] == self.epoch {
                (&mut inside, self.rates[self.local[g] as usize])
            } else {
                (&mut outside, self.sub_rate[g])
            };
            let level = self.level(g as u32, rate);
            if level > *top {
                *top = level;
            }
        }
        (inside, outside)
    }

    /// Subflow `f`'s rate per unit of its weight (negative while it has no rate, so that
    /// the maxima above, which start at 0, pass over it).
    fn level(&self, f: u32, rate: f64) -> f64 {
        if self.policy == Policy::WeightedMaxMin {
            rate / self.weight(f)
        } else {
            rate
        }
    }
}
