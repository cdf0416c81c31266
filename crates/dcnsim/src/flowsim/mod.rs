//! # The flow-level (fluid) model: `engine = "flow"`
//!
//! For networks of thousands of hosts and millions of flows, where packets are too many to
//! simulate: every flow is a fluid that crosses the links of one path at a rate, and the rates
//! of all flows present are recomputed at every arrival and completion by the allocation
//! policy of the transport — the allocation its packet-level mechanism aims at. Same scenario
//! schema (`engine = "flow"` beside the other top-level keys), same topologies, same flows
//! ([`crate::workload::generate`], through [`crate::engine::prepare()`], which also refuses what
//! this model cannot honour: [`check_scenario`]), same outputs ([`RunOutput`], so `flows.csv`,
//! `ports.csv` and `summary.json` come from the same writers). The PDQ paper evaluates
//! PDQ, D3 and RCP with both a packet-level and a flow-level simulator (its scaling figures plot
//! "Pkt Level" beside "Flow Level" up to 4096 servers); this is our flow level.
//!
//! ## Policies (from `transport.protocol`)
//!
//! | protocol | policy | |
//! |---|---|---|
//! | `tcp`, `dctcp`, `d2tcp`, `mcp`, `rcp` | max-min fair | water-filling ([`maxmin`]) |
//! | `d3` | D3's routers: desired rate plus fair share of the spare, first come first served | [`d3`]; quenching as PDQ's Early Termination |
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
//! ("Incremental max-min", exact). The others recompute every active flow: their keys move
//! with time (bytes left, D3's desired rates), so a part of the network left alone would keep
//! an order or a desire that is out of date, and the allocation would depend on which
//! events happened to touch it. `workload.abort_at_deadline` ends a flow at its deadline
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
//! * A lone flow's FCT is its ideal FCT exactly; an M-PDQ flow alone on BCube(2,3) runs at
//!   m times line rate on its m distinct parallel paths, to the picosecond
//!   (tests/flowsim_multipath.rs, with M-PDQ against PDQ on a lightly loaded BCube); hand-derived max-min (4 flows on a star),
//!   weighted max-min (weights 4/2/1), PDQ (EDF before size, preemption, Early Termination)
//!   and MERP's motivating example (Table 1: A, C, B with FCTs 3, 7, 7 units; SRPT gives 3, 3,
//!   10) to the picosecond.
//! * M/G/1 processor sharing on one 10 Gb/s link, Poisson arrivals, mean slowdown against
//!   1/(1 − ρ) at the realised load (ρ ≈ 0.2, 0.5, 0.8): exponential sizes (mean 100 KB,
//!   40 k–200 k flows) 1.2538 vs 1.2547, 2.0272 vs 2.0503, 5.449 vs 5.528; web search
//!   (40 k–300 k flows) 1.2463 vs 1.2517, 2.0293 vs 2.0483, 5.579 vs 5.617 — all within 1.5 %.
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
//!
//! ## Speed
//!
//! A re-solve costs O((Σ path lengths) · log links) over the re-solved flows. On a 1024-host
//! fat-tree under web-search traffic, max-min re-solves ~16 flows per event at load 0.3
//! (31 000–33 000 flows/s over 100 000 flows), but at 0.5 and beyond a change spreads through
//! most of the coupled active set (≈ 1 000 flows/s), far from the aim of 10⁵; only 2–5 flows
//! change rate per event. With every flow started at once (PDQ's Fig. 8: 10 240 flows on
//! BCube(4,4)) the adaptive budget takes a run from 57 s to 21 s. The other policies re-solve every active flow at every event, in
//! O(active flows · path length) with no component to find: SRPT and PDQ keep their order from
//! one solve to the next and sort only the flows that sent since ([`priority::PriorityOrder`]).
//! SRPT at 1024 hosts: 11 000–17 000 flows/s over 10 000 flows; PDQ with 10 240 flows started
//! at once on BCube(4,4) in 2.6 s. Figures, profile and what would close the gap to 10⁵:
//! bench/RESULTS.md ("Flow-level model").

pub mod d3;
pub mod maxmin;
pub mod paths;
pub mod priority;
mod report;
mod series;

use crate::config::Scenario;
use crate::engine::sim::ProgressClock;
use crate::engine::{Prepared, Progress, RunError};
use crate::error::{ConfigError, ConfigResult};
use crate::metrics::RunOutput;
use crate::net::ideal::{self, BestPathsTo};
use crate::net::queue::Discipline;
use crate::net::{Network, PortIdx};
use crate::protocols::Transport;
use crate::units::Time;
use crate::workload::FlowSpec;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub use maxmin::MaxMin;

/// How the rates of the flows present are shared out, from the transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Max-min fair (TCP and its variants, RCP).
    MaxMin,
    /// D3's greedy first-come first-served allocation of desired rates plus fair share.
    D3 { quench: bool },
    /// Weighted max-min by `FlowSpec::weight` (PACE).
    WeightedMaxMin,
    /// Preemptive shortest remaining size first, per link (pFabric).
    Srpt,
    /// Preemptive priority by PDQ's comparator: earliest deadline, then smallest remaining.
    Pdq { early_termination: bool },
    /// Preemptive priority by MERP's virtual deadlines (VDG per link, smallest esr of a path).
    Merp,
}

impl Policy {
    pub fn of(transport: &Transport) -> Policy {
        match transport {
            Transport::Tcp(_) | Transport::Rcp(_) => Policy::MaxMin,
            Transport::D3(p) => Policy::D3 { quench: p.quench },
            Transport::Pace(_) => Policy::WeightedMaxMin,
            Transport::Pfabric(_) => Policy::Srpt,
            Transport::Pdq(p) => Policy::Pdq {
                early_termination: p.early_termination,
            },
            Transport::Merp(_) => Policy::Merp,
        }
    }

    /// Whether a deadline flow ends once its remaining bytes at its NIC rate no longer fit
    /// before its deadline (PDQ's Early Termination, D3's quenching).
    fn gives_up_hopeless(&self) -> bool {
        matches!(
            self,
            Policy::Pdq {
                early_termination: true
            } | Policy::D3 { quench: true }
        )
    }

    /// Max-min policies: their allocation depends on the flows present only, so an event
    /// changes only what it can reach (see "Incremental max-min").
    fn is_max_min(&self) -> bool {
        matches!(self, Policy::MaxMin | Policy::WeightedMaxMin)
    }

    pub fn name(&self) -> &'static str {
        match self {
            Policy::MaxMin => "max-min",
            Policy::D3 { .. } => "d3",
            Policy::WeightedMaxMin => "weighted max-min",
            Policy::Srpt => "srpt",
            Policy::Pdq { .. } => "pdq",
            Policy::Merp => "merp",
        }
    }
}

/// The path choices the fluid model follows: those that keep a (sub)flow on one path.
const PER_FLOW_PATHS: [&str; 2] = ["ecmp", "bcube_paths"];

/// Refuses what the fluid model cannot honour (called by [`crate::engine::prepare()`] when
/// `engine = "flow"`): per-packet tracing, link failures and path choices that move a flow
/// between paths.
pub fn check_scenario(s: &Scenario) -> ConfigResult<()> {
    let packet_only = "is packet-level only and is refused under engine = \"flow\"";
    if s.output.trace_flow.is_some() {
        return Err(ConfigError::new(
            "output.trace_flow",
            format!("{packet_only} (the fluid model has no packets to trace)"),
        ));
    }
    if !s.failures.is_empty() {
        return Err(ConfigError::new(
            "failures",
            format!("{packet_only} (the fluid model does not reroute)"),
        ));
    }
    if !PER_FLOW_PATHS.contains(&s.routing.lb.as_str()) {
        return Err(ConfigError::new(
            "routing.lb",
            format!(
                "'{}' {packet_only}: the fluid model routes each (sub)flow on one path for its \
                 life (routing.lb = \"ecmp\", or \"bcube_paths\" on a BCube)",
                s.routing.lb
            ),
        ));
    }
    Ok(())
}

/// The subflows on each directed link, and each subflow's links: the bipartite graph the
/// policies work on (its "flows" are subflows: one per flow, but `subflows` per M-PDQ flow).
/// Removal is O(path length) through each hop's slot in its link's list.
#[derive(Default)]
pub struct LinkFlows {
    /// Per link: the active flows crossing it.
    on: Vec<Vec<u32>>,
    /// Per flow: its links, as a range of `arena`.
    range: Vec<(u32, u32)>,
    arena: Vec<PortIdx>,
    /// Parallel to `arena`: where the flow sits in that hop's `on` list while active.
    slot: Vec<u32>,
}

impl LinkFlows {
    pub fn flows_on(&self, l: u32) -> &[u32] {
        &self.on[l as usize]
    }

    pub fn path(&self, f: u32) -> &[PortIdx] {
        let (a, b) = self.range[f as usize];
        &self.arena[a as usize..b as usize]
    }

    fn insert(&mut self, f: u32) {
        let (a, b) = self.range[f as usize];
        for k in a as usize..b as usize {
            let l = self.arena[k] as usize;
            self.slot[k] = self.on[l].len() as u32;
            self.on[l].push(f);
        }
    }

    fn remove(&mut self, f: u32) {
        let (a, b) = self.range[f as usize];
        for k in a as usize..b as usize {
            let l = self.arena[k] as usize;
            let s = self.slot[k] as usize;
            self.on[l].swap_remove(s);
            if let Some(&moved) = self.on[l].get(s) {
                // The flow that took the slot: find its hop on this link and update it.
                let (ma, mb) = self.range[moved as usize];
                for j in ma as usize..mb as usize {
                    if self.arena[j] as usize == l {
                        self.slot[j] = s as u32;
                    }
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Status {
    Waiting,
    Active,
    /// When the last byte reached the receiver.
    Finished(Time),
    Terminated(Time),
    /// No route between its hosts.
    Unroutable,
}

struct FlowState {
    spec: FlowSpec,
    status: Status,
    /// Wire bytes (payload and headers) and the bits of them still to send at `last`.
    wire: u64,
    remaining: f64,
    /// The sum of its subflows' rates.
    rate: f64,
    last: Time,
    /// Generation of the flow's live event in the heap; older ones are stale.
    generation: u32,
    overhead: Time,
    ideal_fct: Time,
    /// Rate of its first link (the NIC), for PDQ's Early Termination.
    nic_bps: f64,
}

/// What the rate recomputations cost over a run (for benchmarks and profiles).
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowStats {
    /// Recomputations (one per distinct event time with a change).
    pub recomputations: u64,
    /// Flows and links re-solved (a max-min component, or all), summed over recomputations.
    pub component_flows: u64,
    pub component_links: u64,
    /// Flows whose rate changed (each is rescheduled), summed.
    pub rate_changes: u64,
    /// Solves of the policy (a max-min recomputation that grows its component solves again).
    pub solves: u64,
}

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

/// Relative rate difference below which a recomputed rate is taken as unchanged.
const RATE_EPSILON: f64 = 1e-12;

/// Whether a re-solve moved a flow's rate from `old` to `new`: a re-solve of a different set
/// of flows may reach the same rate by a different sum, and a difference at rounding level is
/// no change (no reschedule, no expansion).
fn rate_changed(old: f64, new: f64) -> bool {
    (new - old).abs() > RATE_EPSILON * new.max(old)
}

/// The rate of a flow that has just arrived, before its first allocation.
const UNALLOCATED: f64 = -1.0;

/// What an event in the heap does when it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// The flow's last byte leaves at the fluid rate.
    Finish = 0,
    /// PDQ Early Termination: from now on the flow cannot meet its deadline even at its NIC
    /// rate.
    Hopeless = 1,
    /// `workload.abort_at_deadline`.
    Abort = 2,
}

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
    /// Per subflow: its flow, its rate and the bits it has carried (settled with its flow).
    owner: Vec<u32>,
    sub_rate: Vec<f64>,
    sub_carried: Vec<f64>,
    /// Per subflow: the time it spent paused (rate 0) up to its flow's `last`, for PDQ's flow
    /// aging at `aging_rate` (α; 0 is off).
    sub_paused: Vec<Time>,
    aging_rate: f64,
    graph: LinkFlows,
    capacity: Vec<f64>,
    /// (time, flow, generation, kind), earliest first; ties in that order.
    heap: BinaryHeap<Reverse<(Time, u32, u32, Kind)>>,
    next_arrival: usize,
    flows_done: usize,
    stop: Option<Time>,
    abort_at_deadline: bool,
    events: u64,
    stats: FlowStats,
    // Scratch of the rate recomputation.
    dirty: Vec<u32>,
    /// Per link: the sum of the current rates of its flows (bit/s), kept as rates change.
    load: Vec<f64>,
    /// Re-solve whole components even under max-min (to test the pruning against).
    full_recompute: bool,
    /// Per entry of [`LAZY_BUDGETS`], the flows solved per recomputation (over all its solves),
    /// smoothed; infinite until tried. `forced_budget` overrides the choice (for tests).
    budget_cost: [f64; 2],
    forced_budget: Option<u32>,
    open: Vec<u32>,
    open_mark: Vec<u32>,
    link_pos: Vec<u32>,
    comp_count: Vec<u32>,
    avail: Vec<f64>,
    solve_residual: Vec<f64>,
    link_mark: Vec<u32>,
    flow_mark: Vec<u32>,
    epoch: u32,
    /// The active subflows in id order, and some ended ones until [`Self::prune_active`].
    active: Vec<u32>,
    /// Flows whose subflows changed rate in this recomputation, and their stamp.
    touched: Vec<u32>,
    touch_mark: Vec<u32>,
    comp_links: Vec<u32>,
    comp_flows: Vec<u32>,
    local: Vec<u32>,
    rates: Vec<f64>,
    order: Vec<u32>,
    residual: Vec<f64>,
    merp_keys: Vec<Time>,
    /// SRPT's and PDQ's keys (per subflow) and order, kept between solves.
    keys: Vec<priority::Key>,
    priority_order: priority::PriorityOrder,
    merp_table: Vec<crate::protocols::merp::schedule::FlowEntry>,
    maxmin: MaxMin,
    d3: d3::D3,
    /// Per link: the stamp of the last expansion in which a component flow on it changed rate.
    change_mark: Vec<u32>,
    change_stamp: u32,
    /// Per component link: the largest rate per unit of weight of its outside flows, and of
    /// its component flows after a solve.
    outside_max: Vec<f64>,
    comp_max: Vec<f64>,
    /// Time series, when `output.series_interval_us > 0`.
    sampler: Option<series::Sampler>,
    /// Per port: wire bytes and (whole) packets carried.
    port_bytes: Vec<u64>,
    port_pkts: Vec<u64>,
    name: Option<String>,
    seed: u64,
    topology_name: String,
    lb_name: String,
}

impl FlowSimulation {
    pub fn new(p: Prepared) -> FlowSimulation {
        let Prepared {
            scenario,
            topo,
            transport,
            flows,
        } = p;
        let net = Network::build(&topo, Discipline::Fifo, &|_| None);
        let policy = Policy::of(&transport);
        let (mss, header) = transport.data_packet_sizes();
        let router = paths::Router::new(&scenario.routing.lb, &net, scenario.seed);
        let mut graph = LinkFlows {
            on: vec![Vec::new(); net.ports.len()],
            ..LinkFlows::default()
        };
        // Ideal FCTs through the best path of the packet engine, the flows taken by destination
        // so that the nodes' best-path scores are computed once per destination.
        let mut by_dst: Vec<u32> = (0..flows.len() as u32).collect();
        by_dst.sort_by_key(|&i| flows[i as usize].dst);
        let mut ideal = vec![Time::ZERO; flows.len()];
        let mut best: Option<(u32, BestPathsTo)> = None;
        for &i in &by_dst {
            let spec = &flows[i as usize];
            if best.as_ref().is_none_or(|(d, _)| *d != spec.dst) {
                best = Some((spec.dst, BestPathsTo::new(&net, spec.dst)));
            }
            let path = best
                .as_mut()
                .map(|(_, b)| b.from(spec.src))
                .unwrap_or_default();
            ideal[i as usize] = ideal::ideal_fct(&net, &path, spec.size_bytes, mss, header);
        }
        let mut states = Vec::with_capacity(flows.len());
        let mut first_sub = Vec::with_capacity(flows.len() + 1);
        let mut owner = Vec::with_capacity(flows.len());
        for (i, spec) in flows.into_iter().enumerate() {
            let path_key = crate::rng::derive_u64(scenario.seed, "path_key", i as u64) as u32;
            let n = match &transport {
                Transport::Pdq(p) => p.subflows_of(spec.size_bytes),
                _ => 1,
            };
            // Every subflow on its own path (the packet sender's path keys); the flow's last
            // bit arrives by the slowest pipeline of them, each carrying an even share.
            let share = spec.size_bytes.div_ceil(n as u64);
            let mut routed = true;
            let mut overhead = Time::ZERO;
            first_sub.push(graph.range.len() as u32);
            for j in 0..n {
                let key = crate::protocols::pdq::subflow_path_key(path_key, j);
                let start = graph.arena.len() as u32;
                routed &= router.route(&net, spec.src, spec.dst, key, &mut graph.arena);
                let end = graph.arena.len() as u32;
                graph.range.push((start, end));
                owner.push(i as u32);
                let path = &graph.arena[start as usize..end as usize];
                overhead = overhead.max(paths::pipeline_overhead(&net, path, share, mss, header));
            }
            let first = graph.range[first_sub[i] as usize];
            let path = &graph.arena[first.0 as usize..first.1 as usize];
            let wire = paths::wire_bytes(spec.size_bytes, mss, header);
            states.push(FlowState {
                status: if routed {
                    Status::Waiting
                } else {
                    Status::Unroutable
                },
                wire,
                remaining: wire as f64 * 8.0,
                rate: 0.0,
                last: spec.start,
                generation: 0,
                overhead,
                ideal_fct: ideal[i],
                nic_bps: path
                    .first()
                    .map_or(0.0, |&p| net.ports[p as usize].rate.bits_per_sec() as f64),
                spec,
            });
        }
        first_sub.push(graph.range.len() as u32);
        let n_subs = owner.len();
        graph.slot = vec![0; graph.arena.len()];
        let capacity: Vec<f64> = net
            .ports
            .iter()
            .map(|p| p.rate.bits_per_sec() as f64)
            .collect();
        let aging_rate = match &transport {
            Transport::Pdq(p) => p.aging_rate,
            _ => 0.0,
        };
        let n_links = net.ports.len();
        let n_flows = states.len();
        FlowSimulation {
            now: Time::ZERO,
            transport,
            policy,
            flows: states,
            first_sub,
            owner,
            sub_rate: vec![0.0; n_subs],
            sub_carried: vec![0.0; n_subs],
            sub_paused: vec![Time::ZERO; n_subs],
            aging_rate,
            graph,
            capacity,
            heap: BinaryHeap::new(),
            next_arrival: 0,
            flows_done: 0,
            stop: scenario.stop_s.map(Time::from_secs_f64),
            abort_at_deadline: scenario.workload.abort_at_deadline.unwrap_or(false),
            events: 0,
            stats: FlowStats::default(),
            dirty: Vec::new(),
            load: vec![0.0; n_links],
            full_recompute: false,
            budget_cost: [f64::INFINITY; 2],
            forced_budget: None,
            open: Vec::new(),
            open_mark: vec![0; n_links],
            link_pos: vec![0; n_links],
            comp_count: vec![0; n_links],
            avail: Vec::new(),
            solve_residual: Vec::new(),
            link_mark: vec![0; n_links],
            flow_mark: vec![0; n_subs],
            epoch: 0,
            active: Vec::new(),
            touched: Vec::new(),
            touch_mark: vec![0; n_flows],
            comp_links: Vec::new(),
            comp_flows: Vec::new(),
            local: vec![0; n_subs],
            rates: Vec::new(),
            order: Vec::new(),
            residual: Vec::new(),
            merp_keys: Vec::new(),
            keys: Vec::new(),
            priority_order: priority::PriorityOrder::default(),
            merp_table: Vec::new(),
            maxmin: MaxMin::default(),
            d3: d3::D3::default(),
            change_mark: vec![0; n_links],
            change_stamp: 0,
            outside_max: Vec::new(),
            comp_max: Vec::new(),
            sampler: (scenario.output.series_interval_us > 0.0).then(|| {
                let iv = Time::from_us_f64(scenario.output.series_interval_us).max(Time(1));
                series::Sampler::new(iv, n_flows, n_links)
            }),
            port_bytes: vec![0; n_links],
            port_pkts: vec![0; n_links],
            name: scenario.name.clone(),
            seed: scenario.seed,
            topology_name: topo.description.clone(),
            lb_name: scenario.routing.lb.clone(),
            net,
        }
    }

    /// Re-solve whole connected components under max-min too, instead of the part joined
    /// through saturated links: slower, the same allocation (for tests of that claim).
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
        let mut clock = ProgressClock::new(wall);
        let guard = self
            .flows
            .last()
            .map(|f| f.spec.start + crate::engine::sim::UNFINISHED_GUARD)
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
        while let Some(&Reverse((t, f, g, kind))) = self.heap.peek() {
            let st = &self.flows[f as usize];
            let live = st.status == Status::Active && (kind == Kind::Abort || g == st.generation);
            if live {
                break;
            }
            self.heap.pop();
            let _ = t;
        }
        let a = self.flows.get(self.next_arrival).map(|f| f.spec.start);
        let h = self.heap.peek().map(|Reverse(e)| e.0);
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
            if let (true, Some(d)) = (self.abort_at_deadline, f.spec.deadline) {
                self.heap
                    .push(Reverse((f.spec.start + d, i, 0, Kind::Abort)));
            }
            for e in self.subflows(i) {
                self.sub_rate[e as usize] = UNALLOCATED;
                self.active.push(e);
                self.graph.insert(e);
                self.dirty.extend_from_slice(self.graph.path(e));
            }
        }
    }

    fn departures_at(&mut self, t: Time) {
        while let Some(&Reverse((et, f, g, kind))) = self.heap.peek() {
            if et > t {
                break;
            }
            self.heap.pop();
            let st = &self.flows[f as usize];
            if st.status != Status::Active || (kind != Kind::Abort && g != st.generation) {
                continue;
            }
            self.events += 1;
            match kind {
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
            let r = self.sub_rate[e as usize].max(0.0);
            for k in 0..self.graph.path(e).len() {
                let m = self.graph.path(e)[k] as usize;
                self.add_load(m, -r);
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
        self.account_bytes(f);
        for e in self.subflows(f) {
            self.graph.remove(e);
            self.dirty.extend_from_slice(self.graph.path(e));
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
            let ps = (now - st.last).ps() as f64;
            st.remaining = (st.remaining - st.rate.max(0.0) * ps * 1e-12).max(0.0);
            let since = now - st.last;
            st.last = now;
            for e in self.first_sub[f as usize]..self.first_sub[f as usize + 1] {
                let r = self.sub_rate[e as usize];
                self.sub_carried[e as usize] += r.max(0.0) * ps * 1e-12;
                if r <= 0.0 {
                    self.sub_paused[e as usize] += since;
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
    /// touched links through saturated links, grown until it is closed (see "Incremental
    /// max-min"); the others every active flow.
    fn recompute(&mut self) {
        if self.dirty.is_empty() {
            return;
        }
        self.stats.recomputations += 1;
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.link_mark.fill(0);
            self.open_mark.fill(0);
            self.flow_mark.fill(0);
            self.touch_mark.fill(0);
            self.epoch = 1;
        }
        let epoch = self.epoch;
        if !self.policy.is_max_min() {
            self.dirty.clear();
            self.take_every_active_flow();
            self.allocate();
            self.stats.solves += 1;
            self.apply_rates();
            return;
        }
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
        self.apply_rates();
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
                let delta = r - old.max(0.0);
                for k in 0..self.graph.path(e).len() {
                    let m = self.graph.path(e)[k] as usize;
                    self.add_load(m, delta);
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
    }

    /// Drops the subflows of ended flows from `active`, which keeps subflow id order (the
    /// flows' start order: D3's first come first served then sorts an already sorted list).
    fn prune_active(&mut self) {
        let (flows, owner) = (&self.flows, &self.owner);
        self.active
            .retain(|&e| flows[owner[e as usize] as usize].status == Status::Active);
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
    fn available(&mut self) {
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

    /// A subflow's weight under the policy (its flow's under weighted max-min, else 1).
    fn weight(&self, e: u32) -> f64 {
        if self.policy == Policy::WeightedMaxMin {
            self.flows[self.owner[e as usize] as usize].spec.weight
        } else {
            1.0
        }
    }

    /// The rates of `comp_flows` into `rates`, by the policy.
    fn allocate(&mut self) {
        let now = self.now;
        match self.policy {
            Policy::MaxMin | Policy::WeightedMaxMin => {
                self.available();
                let (flows, owner) = (&self.flows, &self.owner);
                let weighted = self.policy == Policy::WeightedMaxMin;
                let unit = |_| 1.0;
                let by_spec = |e: u32| flows[owner[e as usize] as usize].spec.weight;
                self.maxmin.solve(
                    &self.comp_links,
                    &self.comp_flows,
                    &self.graph,
                    self.capacity.len(),
                    &self.avail,
                    if weighted { &by_spec } else { &unit },
                    &mut self.rates,
                    &mut self.solve_residual,
                );
            }
            Policy::D3 { .. } => {
                let (flows, owner) = (&self.flows, &self.owner);
                let info = |e: u32| {
                    let st = &flows[owner[e as usize] as usize];
                    let dt = (now - st.last).ps() as f64 * 1e-12;
                    d3::D3Flow {
                        start: st.spec.start,
                        deadline: st.spec.deadline.map(|d| st.spec.start + d),
                        remaining: (st.remaining - st.rate.max(0.0) * dt).max(0.0),
                    }
                };
                self.d3.solve(
                    now,
                    &self.comp_links,
                    &self.comp_flows,
                    &self.graph,
                    &self.capacity,
                    &info,
                    &mut self.rates,
                );
            }
            Policy::Srpt | Policy::Pdq { .. } | Policy::Merp => {
                let (flows, owner, first_sub) = (&self.flows, &self.owner, &self.first_sub);
                // A subflow's share of its flow's bytes left: all of them but under M-PDQ,
                // whose load shifting keeps its subflows' loads even (see "M-PDQ").
                let remaining = |e: u32| {
                    let f = owner[e as usize] as usize;
                    let st = &flows[f];
                    let dt = (now - st.last).ps() as f64 * 1e-12;
                    let n = first_sub[f + 1] - first_sub[f];
                    (st.remaining - st.rate.max(0.0) * dt).max(0.0) / n as f64
                };
                // PDQ's size as the switches see it: aged by the time the subflow was paused.
                let (aging_rate, sub_rate, sub_paused) =
                    (self.aging_rate, &self.sub_rate, &self.sub_paused);
                let pdq_size = |e: u32| {
                    let size = remaining(e);
                    if aging_rate == 0.0 {
                        return size;
                    }
                    let paused_now = if sub_rate[e as usize] <= 0.0 {
                        now - flows[owner[e as usize] as usize].last
                    } else {
                        Time::ZERO
                    };
                    let waited = sub_paused[e as usize] + paused_now;
                    size / crate::protocols::pdq::aging_divisor(aging_rate, waited)
                };
                let comp = &self.comp_flows;
                self.order.clear();
                match self.policy {
                    Policy::Srpt | Policy::Pdq { .. } => {
                        let srpt = self.policy == Policy::Srpt;
                        self.keys.resize(
                            self.owner.len(),
                            priority::Key {
                                class: Time::ZERO,
                                size: 0.0,
                            },
                        );
                        for &e in comp {
                            self.keys[e as usize] = if srpt {
                                priority::Key {
                                    class: Time::ZERO,
                                    size: remaining(e),
                                }
                            } else {
                                let s = &flows[owner[e as usize] as usize].spec;
                                priority::Key {
                                    class: s.deadline.map_or(Time::MAX, |d| s.start + d),
                                    size: pdq_size(e),
                                }
                            };
                        }
                        // Kept in order: the subflows of flows that have not sent since the
                        // last solve (rate 0; a new flow's rate is UNALLOCATED).
                        let kept = |e: u32| {
                            let st = &flows[owner[e as usize] as usize];
                            st.status == Status::Active && st.rate == 0.0
                        };
                        let local = &self.local;
                        let sorted = self.priority_order.update(comp, &self.keys, &kept);
                        self.order.extend(sorted.iter().map(|&e| local[e as usize]));
                    }
                    _ => {
                        self.order.extend(0..comp.len() as u32);
                        self.merp_keys.clear();
                        self.merp_keys.resize(comp.len(), Time::ZERO);
                        let info = |f: u32| {
                            let st = &flows[owner[f as usize] as usize];
                            priority::MerpFlow {
                                id: f,
                                dst: st.spec.dst,
                                size: st.wire,
                                rs: (remaining(f) / 8.0).ceil() as u64,
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
                    }
                }
                priority::greedy(
                    &self.comp_links,
                    &self.comp_flows,
                    &self.order,
                    &self.graph,
                    &self.capacity,
                    &mut self.residual,
                    &mut self.rates,
                );
            }
        }
    }

    /// Pushes the flow's next event under its current generation: its finish at the current
    /// rate or, for PDQ with Early Termination, the moment it becomes hopeless, if earlier.
    fn schedule(&mut self, f: u32) {
        let st = &self.flows[f as usize];
        let finish = paths::fluid_duration(st.remaining, st.rate).map(|d| st.last + d);
        let mut event = finish.map(|t| (t, Kind::Finish));
        if let (true, Some(d)) = (self.policy.gives_up_hopeless(), st.spec.deadline) {
            // PDQ's sender (and D3's, quenching) gives up once its unsent bytes at the NIC rate no longer fit before
            // the deadline: rem(τ)/nic > D − τ with rem(τ) = rem − rate·τ, i.e. from
            // τ* = (nic·D − rem)/(nic − rate) on.
            let deadline = st.spec.start + d;
            let nic = st.nic_bps;
            let left = deadline.saturating_sub(st.last).as_secs_f64();
            let slack_bits = nic * left - st.remaining;
            let hopeless = if slack_bits < 0.0 {
                Some(st.last)
            } else if st.rate < nic {
                let tau = slack_bits / (nic - st.rate);
                Some(st.last + Time((tau * 1e12).floor() as u64 + 1))
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
            self.heap.push(Reverse((t, f, st.generation, kind)));
        }
    }
}
