//! # The flow-level (fluid) model: `engine = "flow"`
//!
//! For networks of thousands of hosts and millions of flows, where packets are too many to
//! simulate: every flow is a fluid that crosses the links of one path at a rate, and the rates
//! of all flows present are recomputed at every arrival and completion by the allocation
//! policy of the transport — the allocation its packet-level mechanism aims at. Same scenario
//! schema (`engine = "flow"` beside the other top-level keys), same topologies, same flows
//! ([`crate::workload::generate`], through [`crate::run::prepare()`], which also refuses what
//! this model cannot honour: [`check_scenario`]), same outputs ([`RunOutput`], so `flows.csv`,
//! `ports.csv` and `summary.json` come from the same writers). The PDQ paper evaluates
//! PDQ, D3 and RCP with both a packet-level and a flow-level simulator (its scaling figures plot
//! "Pkt Level" beside "Flow Level" up to 4096 servers); this is our flow level.
//!
//! Files: this one (the run: events, settling, rescheduling), `setup` (building the run:
//! routes, ideal FCTs, pipeline overheads), `policy` (the transport's policy; what the model
//! refuses is checked at set-up, in [`crate::run::flow_checks`]), `state` (a flow's state,
//! the cost counters, the heap's event keys), `link_flows` (subflows × links), `paths`
//! (routes), `allocate` (dispatch to the policies), `maxmin` and `incremental` (max-min), `d3`,
//! `priority` and `priority_repair` (SRPT, PDQ, MERP), `series` and `report` (outputs).
//!
//! ## Policies (from `transport.protocol`)
//!
//! | protocol | policy | |
//! |---|---|---|
//! | `tcp`, `dctcp`, `d2tcp`, `mcp`, `rcp` | max-min fair | water-filling ([`maxmin`]) |
//! | `d3` | D3's routers: desired rate plus fair share of the spare, first come first served, in whole units of `d3_rate_unit_mbps`, at the raw link rate (`d3_capacity` is not modelled) | [`d3`]; quenching as PDQ's Early Termination |
//! | `pace` | weighted max-min by each flow's `weight` | PACE's target allocation |
//! | `pfabric` | SRPT per link: preemptive priority by remaining bytes | pFabric's ideal |
//! | `pdq` | preemptive priority by PDQ's comparator: earliest deadline, then least remaining | with Early Termination (below) |
//! | `merp` | preemptive priority by MERP's virtual deadline | VDG on every link, synchronised by esr (below) |
//! | `mpdq` | as `pdq`, over the flow's subflows | each subflow on its own path (below) |
//!
//! Priority policies ([`priority`]) take the flows in key order and give each the smallest
//! residual capacity along its path: a flow paused on one link holds nothing elsewhere, so a
//! lower flow may use its other links. Ties go to the lower flow id.
//!
//! * **Early Start** (PDQ, MERP) lets the next flow start about an RTT before the current one
//!   ends, to hide the gap in which the switch learns that a flow finished. The fluid model has
//!   no such gap — the next flow gets the link at the very moment the previous one's last bit
//!   leaves — so Early Start is already "perfect" and is not modelled separately.
//! * **PDQ Early Termination** (`pdq_early_termination`, default on; D3's quenching,
//!   `d3_quench`, is the same test): a deadline flow is
//!   terminated as soon as its remaining bytes at its NIC rate no longer fit before its
//!   deadline (the packet sender's test `now + remaining/NIC > deadline`). Paused flows reach
//!   that point while waiting; the time is computed exactly and scheduled. The packet sender's
//!   third test, "paused with less than an RTT left", has no fluid counterpart (no RTT) and is
//!   left out.
//! * **PDQ flow aging** (`pdq_aging_rate` α, default 0: off): as the packet sender, the size
//!   a flow is ordered by is divided by 2^(α·t), t its time paused (rate 0) since it started
//!   in units of 100 ms; Early Termination uses the true size.
//! * **MERP**: on every link, VDG ([`crate::protocols::merp::schedule::vdg`], reused as is)
//!   orders the link's flows for the least maximum expansion ratio, with remaining sizes rs
//!   in wire bytes, aT = the flow's start and C the link capacity, and gives each a virtual
//!   deadline vdl. A flow's esr is the smallest along its path (MERP carries the path's
//!   smallest esr on its packets), i.e. its vdl is the largest of its links'; flows are served
//!   in vdl order. VDG is O(n²) per link: fine for MERP's scenarios, not for 10⁶ flows.
//! * **M-PDQ** (PDQ §6): a flow of s segments has n = min(`subflows`, s) subflows, each on
//!   the path its own path key (the packet sender's) hashes to under `routing.lb` (`ecmp`, or
//!   `bcube_paths` for BCube's parallel paths). Each subflow is a PDQ flow of the greedy
//!   order, with the flow's deadline and, as its size, an even share of the flow's bytes
//!   left: the sender's load shifting hands a paused subflow's load to the sending ones, once
//!   per RTT and half the difference at a time, which keeps the subflows' loads even; the
//!   fluid model takes that as instant and exact, so the bytes left are the flow's and go at
//!   the sum of its subflows' rates (no subflow runs dry while another has bytes). Subflows
//!   that hash onto one path share it as PDQ flows do: the first gets the path, the others
//!   wait. The flow's pipeline overhead is the largest of its subflows' paths (each with an
//!   even share of the payload), Early Termination compares its bytes left with one NIC's
//!   rate as the packet sender does, and each port counts the bytes of the subflows that
//!   crossed it. Subflows' handshakes and probing are not modelled, so the fluid gain of
//!   M-PDQ over PDQ bounds the packet level's from above. On `fig11a`'s flows (BCube(2,3),
//!   3 subflows, 10 permutations of 2–198 KB flows per load) PDQ's mean FCT over M-PDQ's is
//!   2.02, 1.80, 1.79 and 1.61 with 2, 4, 8 and 16 senders, against 1.78, 1.47, 1.45 and
//!   1.25 at packet level (the paper: 2 under light load, less as load grows).
//! * **SRPT and PDQ orders** are re-evaluated at events only; between events a served flow's
//!   remaining size falls and could pass a paused one's, which the order then catches up with at
//!   the next arrival or completion (the usual flow-level convention; a fluid SRPT on one link
//!   is exact, since the served flow is the smallest and only gets smaller).
//!
//! ## Time, events and completion times
//!
//! Time is the engine's integer picoseconds; rates are f64 bit/s and remaining sizes f64 bits.
//! The events are flow arrivals (the sorted flow list) and, per flow, one pending event in a
//! heap — its completion at the current rate, or its PDQ Early Termination, whichever is
//! earlier — invalidated lazily by a generation number when its rate changes. All events at
//! one time are handled before the rates are recomputed once, and only the flows whose rate
//! changed are rescheduled. Max-min policies recompute only what the events can change
//! ([`incremental`], exact). The others recompute the allocation of every active flow:
//! their keys move with time (bytes left, D3's desired rates), so a part of the network left
//! alone would keep an order or a desire that is out of date, and the allocation would
//! depend on which events happened to touch it (SRPT and PDQ re-evaluate only the subflows
//! whose place in the priority pass provably changed, and get its result bit for bit;
//! [`priority_repair`]). `workload.abort_at_deadline` ends a flow at its deadline
//! as in the packet engine. The run is deterministic: same input, same output bytes.
//!
//! A flow carries its **wire bytes**: payload plus one header per segment
//! (`transport.mss_bytes`, `header_bytes`, plus the protocol's own header, as at packet level).
//! Its FCT is the time its last bit leaves at the fluid rates plus a constant per flow, the
//! **pipeline overhead**: its ideal FCT on its path ([`crate::net::ideal`]) less its wire bytes
//! at the path's bottleneck rate — the propagation delay plus the store-and-forward of one
//! packet per further hop on equal-rate links. So a flow alone on the network finishes exactly
//! at its `ideal_fct`, to the picosecond (test `lone_flow_takes_its_ideal_fct_exactly`).
//!
//! **Not modelled**: handshakes, slow start, windows, queueing delay, drops, ECN, ACK traffic,
//! reordering, link failures and rerouting, path choices that move a flow between paths (each
//! (sub)flow takes the path the packet engine's ECMP or `bcube_paths` hash gives its first
//! packet: same seeds, same `path_key`), buffers (their keys are accepted so one scenario runs
//! under both engines, and have no effect). Under `engine = "flow"`, `output.trace_flow`,
//! `[[failures]]` and `routing.lb` other than `ecmp` and `bcube_paths` are refused. Time
//! series (`output.series_interval_us`) are the packet engine's kinds from the fluid rates
//! (`flowsim/series.rs`: goodput per flow, utilisation per port, queues 0). In `flows.csv`
//! the packet-only columns (retransmits, timeouts, reordering, queue wait) are 0,
//! `data_packets` is the wire bytes sent over the full packet size (rounded up); in
//! `ports.csv`, `tx_bytes` is the wire bytes each port carried (counted when the flow ends),
//! drops and marks are 0.
//!
//! ## Validation (tests/flowsim.rs)
//!
//! * A lone flow's FCT is its ideal FCT exactly; hand-derived max-min (4 flows on a star),
//!   weighted max-min (weights 4/2/1), PDQ (EDF before size, preemption, Early Termination),
//!   PDQ's flow aging, and MERP's motivating example (Table 1: A, C, B with FCTs 3, 7, 7
//!   units; SRPT gives 3, 3, 10) to the picosecond.
//! * An M-PDQ flow alone on BCube(2,3) runs at m times line rate on its m distinct parallel
//!   paths, to the picosecond, and M-PDQ beats PDQ on a lightly loaded BCube
//!   (tests/flowsim_multipath.rs); time series against rates by hand (tests/flowsim_series.rs).
//! * M/G/1 processor sharing on one 10 Gb/s link, Poisson arrivals, mean slowdown against
//!   1/(1 − ρ) at the realised load (ρ ≈ 0.2, 0.5, 0.8): exponential sizes (mean 100 KB,
//!   40 k–200 k flows) 1.2538 vs 1.2547, 2.0272 vs 2.0503, 5.449 vs 5.528; web search
//!   (40 k–300 k flows) 1.2463 vs 1.2517, 2.0293 vs 2.0483, 5.579 vs 5.617 — all within 1.5 %.
//!   At ρ ≈ 0.93 (0.9 of payload), where the mean converges slowly, a million flows each:
//!   exponential 13.30 vs 13.42, web search 13.96 vs 13.78 — within 1.5 % (another seed gives
//!   −2.4 % and −2.8 %; 300 000 flows up to −6.3 %).
//! * M/G/1 under SRPT (pFabric), mean response time against Schrage–Miller integrated over the
//!   run's own sizes: exponential ρ = 0.51: 118.03 vs 118.77 µs, ρ = 0.82: 202.7 vs 203.7 µs;
//!   web search ρ = 0.71: 2.578 vs 2.575 ms — within 1 %.
//! * Packet vs flow, k = 4 fat-tree, 10 Gb/s, 1000 web-search flows (seed 5), mean FCT
//!   packet/flow: DCTCP load 0.3: 1.094, load 0.5: 1.084 (flows ≥ 1 MB: 1.048; 100 KB–1 MB:
//!   1.55; < 100 KB: 2.34 — the handshake and slow start the fluid model leaves out are a few
//!   RTTs, most of a short flow's FCT); TCP (NewReno, drop-tail) load 0.5: 1.25 (losses and
//!   timeouts); pFabric vs SRPT: load 0.3: 1.13, 0.5: 1.12 (small flows within 5 %, larger ones
//!   10–13 % slower: pFabric approximates SRPT per packet with drops and retransmissions);
//!   DCTCP with exponential 200 KB flows: 1.61 (all flows short). RCP at packet level was
//!   2.4× the fluid max-min on a 400-flow run. Not slow convergence: with the published law
//!   (β = 1) even four 10 MB flows on a star take 1.38–1.50× their max-min times, as the queue
//!   term keeps links ≈ 60 % busy at data-center BDPs ([`crate::protocols::rcp`]); its
//!   processor-sharing variant (β = 0, R(0) = 0.05·C) is within 1.5 % of the fluid max-min
//!   (test `packet_rcp_ps_reaches_the_fluid_max_min`).
//!
//! ## Incremental max-min
//!
//! Max-min re-solves only the part of the network an event can change, exactly:
//! [`incremental`].
//!
//! ## Speed
//!
//! A re-solve costs O((Σ path lengths) · log links) over the re-solved flows, and max-min
//! re-solves only the flows an event can change, by level and by bottleneck
//! ([`incremental`]). On a 1024-host fat-tree under web-search traffic, over 100 000 flows,
//! on an idle machine, max-min runs about 420 000 flows/s at load 0.1, 270 000 at 0.2 and
//! 100 000 at 0.3 (the aim of 10⁵ met), 11 800 at 0.5 (69 flows re-solved per event, 19
//! changing rate) and 2 200 at 0.7 (the shared machine varies by ±20 %); 10⁶ flows on a
//! 4 394-host fat-tree at load 0.3 take 17 s. With every flow started at once (PDQ's Fig. 8:
//! 10 240 flows on BCube(4,4)) a run takes 2 s, and 40 960 flows on BCube(4,5) 41 s.
//!
//! SRPT and PDQ repair the last strict-priority pass from what changed since: an arrival, a
//! sending subflow's end, two sending subflows that changed order on a link, and what those
//! change in turn, in key order ([`priority_repair`]): about 4 subflows evaluated per event
//! where the full pass walked 270 (1024 hosts, load 0.5, 10 000 flows). SRPT and PDQ at
//! 1024 hosts: about 180 000 / 80 000 / 75 000 flows/s at loads 0.3 / 0.5 / 0.7 over 100 000
//! flows; 10⁶ PDQ flows on the 4 394-host fat-tree at load 0.3 in 7 s; PDQ with 10 240 flows
//! started at once on BCube(4,4) in 0.3 s, 34 560 on the 3456-host fat-tree in 0.8 s, 40 960
//! on BCube(4,5) in 2.4 s. D3 re-solves every active flow at every event (with deadlines
//! every rate moves with time); it skips a flow whose first or last link is full, and
//! computes desires only for deadline flows. Figures, profiles and what is left:
//! bench/RESULTS.md ("Flow-level model").

mod allocate;
pub mod d3;
pub mod incremental;
mod link_flows;
pub mod maxmin;
pub mod paths;
mod policy;
pub mod priority;
pub mod priority_repair;
mod report;
mod series;
mod setup;
mod state;

use crate::metrics::RunOutput;
use crate::net::Network;
use crate::protocols::Transport;
use crate::run::{Progress, ProgressClock, RunError, UNFINISHED_GUARD};
use crate::units::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub use crate::run::{check_flow_count, check_scenario, MAX_FLOWS};
pub use link_flows::LinkFlows;
pub use maxmin::MaxMin;
pub use policy::Policy;
pub use state::FlowStats;
use state::{rate_changed, Event, FlowState, Kind, Status, UNALLOCATED};

/// The flow-level simulation of a prepared scenario; [`FlowSimulation::run`] gives the same
/// [`RunOutput`] as the packet engine, so the same writers produce `flows.csv`, `ports.csv`
/// and `summary.json`.
pub struct FlowSimulation {
    now: Time,
    net: Network,
    transport: Transport,
    policy: Policy,
    flows: Vec<FlowState>,
    /// Per flow: its subflows, `first_sub[f]..first_sub[f + 1]` (one but for M-PDQ). The graph,
    /// the policies and `load` work on subflows; events, status and bytes left are per flow.
    first_sub: Vec<u32>,
    /// Per subflow: its flow, its rate and the bits it has carried (settled with its flow,
    /// for flows of several subflows).
    owner: Vec<u32>,
    sub_rate: Vec<f64>,
    sub_carried: Vec<f64>,
    /// Per subflow: the time it spent paused (rate 0) up to its flow's `last`, for PDQ's flow
    /// aging at `aging_rate` (α; 0 is off, and then it is not kept).
    sub_paused: Vec<Time>,
    /// Per subflow: its flow's absolute deadline, or [`d3::NO_DEADLINE`] (for D3's solve).
    sub_deadline: Vec<Time>,
    aging_rate: f64,
    graph: LinkFlows,
    capacity: Vec<f64>,
    /// Events, earliest first; ties by flow, generation and kind.
    heap: BinaryHeap<Reverse<Event>>,
    next_arrival: usize,
    flows_done: usize,
    stop: Option<Time>,
    abort_at_deadline: bool,
    events: u64,
    stats: FlowStats,
    // Scratch of the rate recomputation.
    dirty: Vec<u32>,
    /// Subflows arrived since the last recomputation, and the lowest level (rate per unit of
    /// weight) among those that ended: what bounds the levels a max-min recomputation can
    /// change ([`incremental`], "Levels below the event's").
    arrived: Vec<u32>,
    ended_level: f64,
    /// Of the recomputation under way: flows below this level keep their rates.
    level_floor: f64,
    /// Per link: the sum of the current rates of its flows (bit/s), kept as rates change
    /// where something reads it: max-min's recomputation and the time series
    /// ([`FlowSimulation::keeps_load`]).
    load: Vec<f64>,
    /// Re-solve whole components under max-min, and run the full priority pass under SRPT
    /// and PDQ (to test the pruning and the repaired pass against).
    full_recompute: bool,
    /// Per entry of [`LAZY_BUDGETS`], the flows solved per recomputation (over all its solves),
    /// smoothed (a spike capped at 4× the estimate); infinite until tried. `forced_budget`
    /// overrides the choice (for tests).
    budget_cost: [f64; 2],
    forced_budget: Option<u32>,
    /// Links whose flows join the max-min set: (link, all of them or only those bottlenecked
    /// there).
    open: Vec<(u32, bool)>,
    /// Per link: its marks in the current max-min recomputation (the set, the openings).
    notes: Vec<incremental::LinkNotes>,
    /// The max-min set as the water-filling reads it.
    problem: maxmin::Problem,
    flow_mark: Vec<u32>,
    epoch: u32,
    /// The active subflows in id order, and some ended ones until [`Self::prune_active`],
    /// which an arrival calls once the list has grown past `prune_at`.
    active: Vec<u32>,
    prune_at: usize,
    /// Flows arrived and not ended (the bound on the heap's live events).
    active_flows: usize,
    /// Flows whose subflows changed rate in this recomputation, and their stamp.
    touched: Vec<u32>,
    touch_mark: Vec<u32>,
    comp_links: Vec<u32>,
    comp_flows: Vec<u32>,
    local: Vec<u32>,
    rates: Vec<f64>,
    order: Vec<u32>,
    greedy: priority::Greedy,
    merp_keys: Vec<Time>,
    /// SRPT's and PDQ's last priority pass, repaired at each event.
    repair: priority_repair::PriorityRepair,
    merp_table: Vec<crate::protocols::merp::schedule::FlowEntry>,
    maxmin: MaxMin,
    d3: d3::D3,
    /// Per link of the max-min set: whether a flow of the set changed rate on it.
    changed_links: Vec<bool>,
    /// Time series, when `output.series_interval_us > 0`.
    sampler: Option<series::Sampler>,
    /// `output.paths`: write each flow's path.
    write_paths: bool,
    /// The memory budget and its estimate, and why the run must stop when it passed it.
    memory: crate::budget::MemoryPlan,
    over_budget: Option<crate::error::ConfigError>,
    /// Per port: wire bytes and (whole) packets carried.
    port_bytes: Vec<u64>,
    port_pkts: Vec<u64>,
    name: Option<String>,
    seed: u64,
    /// The load the flows offer (for the summary).
    offered: crate::metrics::load::OfferedLoad,
    topology_name: String,
    lb_name: String,
}

impl FlowSimulation {
    /// Re-solve whole connected components under max-min, instead of the part joined
    /// through saturated links, and run SRPT's and PDQ's priority pass over every active
    /// subflow instead of repairing the last one: slower, the same allocation (for tests of
    /// that claim).
    pub fn set_full_recompute(&mut self, on: bool) {
        self.full_recompute = on;
    }

    /// Max-min's lazy solves before it grows through every full link, instead of the adaptive
    /// choice (`None`): any budget gives the same allocation (for tests of that claim).
    pub fn set_lazy_budget(&mut self, budget: Option<u32>) {
        self.forced_budget = budget;
    }

    /// The policy the transport maps to.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Runs to the end (every flow finished or terminated, or `stop_s`). `progress` is called
    /// about every 200 ms of wall time; returning `false` stops with [`RunError::Interrupted`].
    pub fn run(self, progress: &mut dyn FnMut(Progress) -> bool) -> Result<RunOutput, RunError> {
        self.run_with_stats(progress).map(|(out, _)| out)
    }

    /// [`FlowSimulation::run`], also returning what the rate recomputations cost.
    pub fn run_with_stats(
        mut self,
        progress: &mut dyn FnMut(Progress) -> bool,
    ) -> Result<(RunOutput, FlowStats), RunError> {
        let wall = std::time::Instant::now();
        let mut clock = ProgressClock::new(wall).watching(&self.memory);
        let guard = self
            .flows
            .last()
            .map(|f| f.spec.start + UNFINISHED_GUARD)
            .unwrap_or(Time::ZERO);
        let horizon = self.stop.unwrap_or(guard);
        let mut batches: u64 = 0;
        loop {
            let next = self.next_time();
            let sample = self.sampler.as_ref().and_then(|s| s.next);
            if let Some(ts) = sample.filter(|&ts| ts <= horizon && next.is_none_or(|t| ts <= t)) {
                // Integrals up to the sample need no settling: nothing changes before `next`.
                self.now = ts;
                self.sample();
                if let Some(e) = self.over_budget.take() {
                    return Err(RunError::Memory(e));
                }
                continue;
            }
            let Some(t) = next.filter(|&t| t <= horizon) else {
                break;
            };
            self.now = t;
            self.arrivals_at(t);
            self.departures_at(t);
            self.recompute();
            batches += 1;
            if batches & 0x3ff == 0 {
                let p = Progress {
                    sim_time: self.now,
                    flows_done: self.flows_done,
                    flows_total: self.flows.len(),
                };
                clock.tick(p, progress)?;
            }
        }
        if let Some(stop) = self.stop {
            self.now = stop;
        }
        let stats = self.stats;
        Ok((self.finish(wall.elapsed().as_secs_f64()), stats))
    }

    /// The next arrival or live heap event (stale heap entries are dropped on the way).
    fn next_time(&mut self) -> Option<Time> {
        while let Some(&Reverse(e)) = self.heap.peek() {
            if e.is_live(&self.flows) {
                break;
            }
            self.heap.pop();
        }
        let a = self.flows.get(self.next_arrival).map(|f| f.spec.start);
        let h = self.heap.peek().map(|Reverse(e)| e.time());
        match (a, h) {
            (Some(a), Some(h)) => Some(a.min(h)),
            (a, h) => a.or(h),
        }
    }

    fn arrivals_at(&mut self, t: Time) {
        while let Some(f) = self.flows.get(self.next_arrival) {
            if f.spec.start > t {
                break;
            }
            let i = self.next_arrival as u32;
            self.next_arrival += 1;
            self.events += 1;
            let f = &mut self.flows[i as usize];
            if f.status == Status::Unroutable {
                continue;
            }
            f.status = Status::Active;
            f.last = t;
            // No rate yet: whatever the policy gives it (zero included) counts as a change,
            // so the flow gets its first event (PDQ may find it hopeless while paused).
            f.rate = UNALLOCATED;
            self.active_flows += 1;
            if let (true, Some(d)) = (self.abort_at_deadline, f.spec.deadline) {
                self.heap
                    .push(Reverse(Event::new(f.spec.start + d, i, 0, Kind::Abort)));
            }
            for e in self.subflows(i) {
                self.sub_rate[e as usize] = UNALLOCATED;
                self.active.push(e);
                self.arrived.push(e);
                self.graph.insert(e);
                self.dirty.extend_from_slice(self.graph.path(e));
            }
            if self.active.len() > self.prune_at {
                // Max-min never walks the list, so nothing else would drop the ended flows.
                self.prune_active();
            }
            self.stats.peak_active = self.stats.peak_active.max(self.active.len());
        }
    }

    fn departures_at(&mut self, t: Time) {
        while let Some(&Reverse(e)) = self.heap.peek() {
            if e.time() > t {
                break;
            }
            self.heap.pop();
            if !e.is_live(&self.flows) {
                continue;
            }
            let f = e.flow();
            let st = &self.flows[f as usize];
            self.events += 1;
            match e.kind() {
                Kind::Finish => {
                    let fin = t + st.overhead;
                    self.end_flow(f, Status::Finished(fin));
                }
                Kind::Hopeless | Kind::Abort => self.end_flow(f, Status::Terminated(t)),
            }
        }
    }

    /// Settles the flow's bytes up to now and takes it off its links.
    fn end_flow(&mut self, f: u32, status: Status) {
        self.settle(f);
        for e in self.subflows(f) {
            // A flow that ends before its first allocation (UNALLOCATED) counts as level 0.
            let r = self.sub_rate[e as usize].max(0.0);
            self.ended_level = self.ended_level.min(r / self.weight(e));
            if self.keeps_load() {
                self.add_path_load(e, -r);
            }
        }
        if let Some(s) = &mut self.sampler {
            s.ended.push(f);
        }
        let st = &mut self.flows[f as usize];
        if let Status::Finished(_) = status {
            st.remaining = 0.0;
        }
        st.status = status;
        self.flows_done += 1;
        self.active_flows -= 1;
        self.account_bytes(f);
        for e in self.subflows(f) {
            self.graph.remove(e);
            self.dirty.extend_from_slice(self.graph.path(e));
            if self.policy.repairs_its_pass() {
                self.repair.leave(e, &self.graph);
            }
        }
    }

    /// Whether the links' loads are kept: max-min reads them, and so do the time series; the
    /// other policies solve from capacities and would only pay for them (D3 with deadlines,
    /// where every rate changes at every event: 15 % of its instructions).
    fn keeps_load(&self) -> bool {
        self.policy.is_max_min() || self.sampler.is_some()
    }

    /// Changes by `delta` bit/s the load of every link of subflow `e`'s path (callers ask
    /// [`FlowSimulation::keeps_load`] first). Always inlined: as a call it cost D3 0.3 %.
    #[inline(always)]
    fn add_path_load(&mut self, e: u32, delta: f64) {
        for k in 0..self.graph.path(e).len() {
            let m = self.graph.path(e)[k] as usize;
            self.add_load(m, delta);
        }
    }

    /// Changes link `m`'s load by `delta` bit/s (the series integrate it first).
    #[inline]
    fn add_load(&mut self, m: usize, delta: f64) {
        if let Some(s) = &mut self.sampler {
            s.integrate(m, self.load[m], self.now);
        }
        self.load[m] += delta;
    }

    /// The subflows of flow `f`.
    fn subflows(&self, f: u32) -> std::ops::Range<u32> {
        self.first_sub[f as usize]..self.first_sub[f as usize + 1]
    }

    /// Brings `remaining` of an active flow (and what its subflows carried) to `now` at the
    /// current rates.
    fn settle(&mut self, f: u32) {
        let now = self.now;
        let st = &mut self.flows[f as usize];
        if now > st.last {
            st.remaining = st.bits_left_at(now);
            let since = now - st.last;
            let ps = since.ps() as f64;
            st.last = now;
            let subs = self.first_sub[f as usize]..self.first_sub[f as usize + 1];
            // What each subflow carried splits a multipath flow's bytes among its paths, and
            // its time paused ages PDQ's order: one path without aging needs neither.
            if subs.len() > 1 || self.aging_rate != 0.0 {
                for e in subs {
                    let r = self.sub_rate[e as usize];
                    self.sub_carried[e as usize] += r.max(0.0) * ps * 1e-12;
                    if r <= 0.0 {
                        self.sub_paused[e as usize] += since;
                    }
                }
            }
        }
    }

    /// Adds the wire bytes the flow carried to every port of its subflows' paths (once, when
    /// it ends): the flow's bytes shared in proportion to what each subflow carried.
    fn account_bytes(&mut self, f: u32) {
        let st = &self.flows[f as usize];
        let sent_bits = st.wire as f64 * 8.0 - st.remaining;
        let wire = st.wire;
        let (mss, header) = self.transport.data_packet_sizes();
        let subs = self.subflows(f);
        let carried: f64 = subs.clone().map(|e| self.sub_carried[e as usize]).sum();
        for e in subs.clone() {
            let share = if subs.len() == 1 {
                sent_bits
            } else if carried > 0.0 {
                sent_bits * self.sub_carried[e as usize] / carried
            } else {
                0.0
            };
            let bytes = ((share / 8.0).round() as u64).min(wire);
            let pkts = bytes.div_ceil((mss + header) as u64);
            let (a, b) = self.graph.range[e as usize];
            for k in a as usize..b as usize {
                let p = self.graph.arena[k] as usize;
                self.port_bytes[p] += bytes;
                self.port_pkts[p] += pkts;
            }
        }
    }

    /// Recomputes the rates of the flows an event can have changed, and reschedules the flows
    /// whose rate did change. Max-min policies re-solve the part of the network joined to the
    /// touched links through saturated links, grown until it is closed ([`incremental`]); the
    /// others every active flow.
    fn recompute(&mut self) {
        if self.dirty.is_empty() {
            return;
        }
        self.stats.recomputations += 1;
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.notes.iter_mut().for_each(|n| n.clear_epochs());
            self.flow_mark.fill(0);
            self.touch_mark.fill(0);
            self.epoch = 1;
        }
        if self.policy.is_max_min() {
            self.recompute_max_min();
        } else {
            self.ended_level = f64::INFINITY;
            if !self.policy.repairs_its_pass() {
                self.take_every_active_flow();
            }
            self.allocate();
            self.dirty.clear();
            self.arrived.clear();
            self.stats.solves += 1;
        }
        self.apply_rates();
    }

    /// Sets the solved rates (`rates[i]` of `comp_flows[i]`) and reschedules every flow one
    /// of whose subflows changed rate.
    fn apply_rates(&mut self) {
        let epoch = self.epoch;
        self.stats.component_flows += self.comp_flows.len() as u64;
        self.stats.component_links += self.comp_links.len() as u64;
        self.touched.clear();
        for i in 0..self.comp_flows.len() {
            let e = self.comp_flows[i];
            let r = self.rates[i];
            let old = self.sub_rate[e as usize];
            if rate_changed(old, r) {
                let f = self.owner[e as usize];
                if self.touch_mark[f as usize] != epoch {
                    // Its bytes up to now at the old rates, before any subflow's changes.
                    self.touch_mark[f as usize] = epoch;
                    self.settle(f);
                    self.touched.push(f);
                }
                if self.keeps_load() {
                    self.add_path_load(e, r - old.max(0.0));
                }
                self.sub_rate[e as usize] = r;
                self.stats.rate_changes += 1;
            }
        }
        for k in 0..self.touched.len() {
            let f = self.touched[k];
            let subs = self.subflows(f);
            let rate = if subs.len() == 1 {
                self.sub_rate[subs.start as usize]
            } else {
                subs.map(|e| self.sub_rate[e as usize].max(0.0)).sum()
            };
            let st = &mut self.flows[f as usize];
            st.rate = rate;
            st.generation = st.generation.wrapping_add(1);
            self.schedule(f);
        }
        // Each reschedule leaves the flow's previous event in the heap, stale. Where most
        // rates change at every event (D3's desires, many flows started at once) they would
        // pile up to events × flows. A flow has at most two live events (its next one and its
        // deadline abort), so the heap is rebuilt from its live events once it holds four
        // times as many entries as there are active flows: at least half of it is stale.
        self.stats.peak_heap = self.stats.peak_heap.max(self.heap.len());
        if self.heap.len() > 4 * (self.active_flows + 256) {
            let flows = &self.flows;
            self.heap.retain(|&Reverse(e)| e.is_live(flows));
        }
    }

    /// Drops the subflows of ended flows from `active`, which keeps subflow id order (the
    /// flows' start order: D3's first come first served then sorts an already sorted list).
    fn prune_active(&mut self) {
        let (flows, owner) = (&self.flows, &self.owner);
        self.active
            .retain(|&e| flows[owner[e as usize] as usize].status == Status::Active);
        self.prune_at = 2 * self.active.len() + 1024;
    }

    /// Every active subflow and every link, for the policies that re-solve the whole network.
    fn take_every_active_flow(&mut self) {
        self.prune_active();
        self.comp_flows.clone_from(&self.active);
        for (i, &e) in self.comp_flows.iter().enumerate() {
            self.local[e as usize] = i as u32;
        }
        if self.comp_links.len() != self.capacity.len() {
            self.comp_links = (0..self.capacity.len() as u32).collect();
        }
    }

    /// Pushes the flow's next event under its current generation: its finish at the current
    /// rate or, for PDQ with Early Termination, the moment it becomes hopeless, if earlier.
    fn schedule(&mut self, f: u32) {
        let st = &self.flows[f as usize];
        let finish = paths::fluid_duration(st.remaining, st.rate).map(|d| st.last + d);
        let mut event = finish.map(|t| (t, Kind::Finish));
        if let (true, Some(d)) = (self.policy.gives_up_hopeless(), st.spec.deadline) {
            // PDQ's sender (and D3's, quenching) gives up once its unsent bytes at the NIC
            // rate no longer fit before the deadline: rem(τ)/nic > D − τ with
            // rem(τ) = rem − rate·τ, i.e. from τ* = (nic·D − rem)/(nic − rate) on.
            let deadline = st.spec.start + d;
            let nic = st.nic_bps;
            let left = deadline.saturating_sub(st.last).as_secs_f64();
            let slack_bits = nic * left - st.remaining;
            let hopeless = if slack_bits < 0.0 {
                Some(st.last)
            } else if st.rate < nic {
                let tau = slack_bits / (nic - st.rate);
                // τ ≥ 0 here, so the cast's truncation is `floor` (without its library call);
                // a τ beyond what a Time holds (a rate a hair below the NIC's) saturates.
                Some(st.last + Time(((tau * 1e12) as u64).saturating_add(1)))
            } else {
                None
            };
            if let Some(h) = hopeless {
                if event.is_none_or(|(t, _)| h < t) {
                    event = Some((h, Kind::Hopeless));
                }
            }
        }
        if let Some((t, kind)) = event {
            self.heap
                .push(Reverse(Event::new(t, f, st.generation, kind)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event's key gives back its fields and orders as the tuple (time, flow, generation,
    /// kind) does, over the whole range of each field.
    #[test]
    fn event_keys_order_as_their_fields() {
        let kinds = [Kind::Finish, Kind::Hopeless, Kind::Abort];
        let draw = |i: u64, what: &str| crate::rng::derive_u64(11, what, i);
        let fields: Vec<(u64, u32, u32, usize)> = (0..2000)
            .map(|i| {
                // Few distinct values of each field, so that ties reach every later field.
                (
                    [0, 1, u64::MAX - 1, u64::MAX][draw(i, "t") as usize % 4],
                    [0, 7, MAX_FLOWS as u32 - 1][draw(i, "f") as usize % 3],
                    [0, 1, u32::MAX][draw(i, "g") as usize % 3],
                    draw(i, "k") as usize % 3,
                )
            })
            .collect();
        let event = |&(t, f, g, k): &(u64, u32, u32, usize)| Event::new(Time(t), f, g, kinds[k]);
        for a in &fields {
            let e = event(a);
            assert_eq!(
                (e.time(), e.flow(), e.generation(), e.kind()),
                (Time(a.0), a.1, a.2, kinds[a.3])
            );
            for b in fields.iter().take(200) {
                assert_eq!(event(a).cmp(&event(b)), a.cmp(b), "{a:?} against {b:?}");
            }
        }
    }
}
