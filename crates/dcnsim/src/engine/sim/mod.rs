//! The simulation: the network, the flows and their endpoints, driven by one event loop.
//!
//! Per packet the loop does: endpoint → host NIC queue → (link → next node → route + path
//! choice → egress queue)* → destination endpoint. FIFO ports fix a packet's departure when
//! they accept it, so a packet costs one event per hop (its arrival at the far end); other
//! disciplines add a transmit-complete event per hop (see [`crate::net::network::Port`]). Each
//! link has at most one pending arrival event (the head of its pipe), so the event queue holds
//! O(ports + flows) entries, not O(packets).
//!
//! A protocol with switch logic installs a [`SwitchAgent`] (see [`crate::protocols::agent`]):
//! then every port takes the dequeue-time path, the agent may choose a packet's egress port at
//! each node before the path choice does, and it sees each packet at enqueue and at dequeue;
//! its periodic work runs on one `AgentTick` event. Without an agent nothing here calls
//! it: the eager FIFO path is untouched.
//!
//! Endpoint timers are cancelled lazily: each endpoint has a generation number and the time of
//! its pending timer event; a timer that moved later is rescheduled when the stale event fires,
//! one that moved earlier gets a new event and the old one is ignored by its generation.
//!
//! A host's own packets meet its NIC through `host_nic`: by default a full NIC queue holds
//! them in the host instead of dropping them (`topology.host_nic`).
//!
//! Files: this one (the state and the loop), `ports` (packets through ports, and links that
//! fail), `endpoints` (flows' senders and receivers), `host_nic` (hosts that push back on their
//! transports), `reorder` (what each flow saw of reordering and loss, for `flows.csv`),
//! `report` (the run's output), `trace` (`output.trace_flow`).

mod endpoints;
mod host_nic;
mod ports;
mod reorder;
mod report;
mod trace;

use super::queue::{EventQueue, Urgency};
use crate::budget::MemoryPlan;
use crate::error::ConfigError;
use crate::lb::resequencer::Resequencer;
use crate::lb::PathChoice;
use crate::metrics::series::{Series, TraceRow};
use crate::metrics::{NetCounters, RunOutput};
use crate::net::packet::{Packet, PacketPool, PacketRef};
use crate::net::queue::Discipline;
use crate::net::{Network, PortIdx};
use crate::protocols::SwitchAgent;
use crate::protocols::{PathFacts, Receiver, Sender, Transport};
use crate::run::{Prepared, Progress, ProgressClock, RunError, UNFINISHED_GUARD};
use crate::topo::HostNic;
use crate::units::Time;
use crate::workload::FlowSpec;
use reorder::{DroppedSeqs, ReorderStats};
use trace::TracedFlows;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Sender,
    Receiver,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    /// A port finished serialising its packet.
    TxDone(PortIdx),
    /// The head of a port's link pipe reaches the far node.
    Arrive(PortIdx),
    FlowStart(u32),
    Timer {
        flow: u32,
        side: Side,
        generation: u32,
    },
    LinkState {
        link: u32,
        up: bool,
    },
    Reroute,
    Sample,
    /// The switch agent's periodic work.
    AgentTick,
    /// A flow's deadline, when the application aborts flows that miss it.
    DeadlineAbort(u32),
    /// An eager host NIC that holds packets has room for one more ([`host_nic`]).
    NicRoom(PortIdx),
}

impl Urgency for Event {
    /// Transmit completions (and a host NIC's room, its eager twin), then arrivals (in an
    /// order hashed from time and link), then the rest: see the ordering contract in
    /// [`super::queue`].
    fn urgency(&self) -> u8 {
        match self {
            Event::TxDone(_) | Event::NicRoom(_) => 0,
            Event::Arrive(_) => 1,
            _ => 2,
        }
    }

    fn canonical_key(&self, time: Time) -> Option<u64> {
        match *self {
            // A port is eager (NicRoom) or queued (TxDone), never both: the keys are unique.
            Event::TxDone(p) | Event::NicRoom(p) => Some(p as u64),
            // 32 bits of hash above the port's 24 (the queue keeps 56 bits): unique among the
            // pending arrivals, whose ports differ.
            Event::Arrive(p) => {
                let hash = crate::rng::mix(time.ps() ^ ((p as u64) << 40)) >> 32;
                Some((hash << 24) | (p as u64 & 0xff_ffff))
            }
            _ => None,
        }
    }
}

struct Endpoints {
    sender: Sender,
    receiver: Receiver,
    sender_done: bool,
    /// Whether `output.trace_flow` lists this flow: its sender's events go to the trace (a
    /// flag here, on the endpoints every traced event already reads, costs the per-packet
    /// path no other memory).
    traced: bool,
    /// Per side: when its pending timer event fires, and the generation that event carries
    /// (an event of an older generation is stale).
    timer: [Option<Time>; 2],
    generation: [u32; 2],
    /// The reordering buffer in front of the receiver (DRB, Presto).
    reseq: Option<Resequencer>,
}

struct FlowState {
    spec: FlowSpec,
    path_key: u32,
    endpoints: Option<Box<Endpoints>>,
    finish: Option<Time>,
    /// When the protocol terminated the flow ([`EndpointEvent::Terminated`]), or the
    /// application aborted it at its deadline, if either did.
    terminated: Option<Time>,
    ideal_fct: Time,
    retransmits: u64,
    timeouts: u64,
    bytes_delivered: u64,
    /// Payload bytes that reached the receiving host beyond the receiver's in-order prefix
    /// (`flow_goodput_bps` is its rate), and its value at the previous series sample.
    arrived_bytes: u64,
    sampled_bytes: u64,
    data_packets: u64,
    reorder: ReorderStats,
    /// First byte of every data segment of this flow that the network dropped (while it runs).
    dropped: DroppedSeqs,
}

impl FlowState {
    /// Keeps the sender's counters and frees both endpoints: later packets are absorbed.
    fn free_endpoints(&mut self) {
        if let Some(ep) = self.endpoints.take() {
            let stats = ep.sender.stats();
            self.retransmits = stats.retransmits;
            self.timeouts = stats.timeouts;
            self.data_packets = stats.data_packets_sent;
        }
        self.dropped = DroppedSeqs::default();
    }
}

pub struct Simulation {
    now: Time,
    events: EventQueue<Event>,
    pool: PacketPool,
    net: Network,
    lb: PathChoice,
    transport: Transport,
    /// The protocol's switch half, if it has one, and the time of its live tick event.
    agent: Option<SwitchAgent>,
    agent_wake: Option<Time>,
    flows: Vec<FlowState>,
    next_flow: usize,
    /// Flows finished or terminated.
    flows_done: usize,
    stop: Option<Time>,
    counters: NetCounters,
    reroute_delay: Time,
    series_interval: Option<Time>,
    /// When the pending `Sample` event is due; `None` when sampling is off or has ended.
    next_sample: Option<Time>,
    series: Series,
    /// Bytes the series may take within the memory budget, and the rows every sample takes
    /// besides the flows' (a port's utilisation, a switch port's queue).
    series_room: u64,
    series_port_rows: u64,
    /// The budget, its estimate, and why the run must stop when it passed it.
    memory: MemoryPlan,
    over_budget: Option<ConfigError>,
    /// `output.trace_flow` (each flow's endpoints know whether they are traced) and what
    /// their senders did.
    traced: TracedFlows,
    /// `workload.abort_at_deadline`.
    abort_at_deadline: bool,
    trace: Vec<TraceRow>,
    dropped_scratch: Vec<PacketRef>,
    /// Non-eager ports: when each queued packet (by pool slot) was accepted, for its queueing
    /// delay (eager ports know it at once).
    enqueued_at: Vec<Time>,
    /// Per flow: time its data packets waited in switch queues, summed over packets and hops
    /// (a dense array apart from the flow table: it is touched at every congested hop).
    queue_wait: Vec<Time>,
    /// The packets hosts hold for their full NICs (`host_nic = "backpressure"`), and per flow
    /// the time its data packets waited there.
    host_holds: Option<host_nic::HostHolds>,
    host_wait: Vec<Time>,
    /// Per flow: the ports its data packets crossed, with a packet count each (`paths.csv`),
    /// in the order first crossed. A flow on one path has one entry per hop; sprayed flows
    /// have at most one per port they can reach (about 40 on a k = 8 fat-tree), so a linear
    /// scan, which finds ECMP's ports in a few compares, is kept. Empty when `count_paths` is
    /// off.
    crossed: Vec<Vec<(PortIdx, u32)>>,
    /// `output.paths`: count the crossings at all (off, the hot path skips them).
    count_paths: bool,
    /// The queue discipline of every port.
    discipline: Discipline,
    name: Option<String>,
    seed: u64,
    /// The load the flows offer (for the summary).
    load: crate::metrics::load::OfferedLoad,
    topology_name: String,
    lb_name: String,
}

impl Simulation {
    /// A simulation whose queues use the discipline the transport asks for.
    pub fn new(p: Prepared) -> Simulation {
        let discipline = p.transport.discipline();
        Simulation::with_discipline(p, discipline)
    }

    /// A simulation whose queues use `discipline` (for protocols that need priority or rank
    /// queues, and for tests of the non-FIFO port path).
    pub fn with_discipline(p: Prepared, discipline: Discipline) -> Simulation {
        let Prepared {
            scenario,
            topo,
            transport,
            flows,
            load,
            memory,
            transport_keys: _,
            lb: lb_params,
        } = p;
        let ecn = |rate| transport.default_ecn_k_pkts(rate);
        let mut net = Network::build(&topo, discipline, &ecn);
        let series_port_rows = net
            .ports
            .iter()
            .map(|p| 1 + (net.nodes[p.node as usize].kind == crate::topo::NodeKind::Switch) as u64)
            .sum();
        let agent = SwitchAgent::new(&transport, &net, lb_params.kind == crate::lb::LbKind::Memr);
        if agent.is_some() {
            // An agent acts when a packet leaves the queue: no port may fix departures early.
            for p in &mut net.ports {
                p.eager = false;
            }
        }
        let lb = PathChoice::new(&lb_params, &net, flows.len(), scenario.seed);
        let mut events = EventQueue::default();
        if let Some(f) = flows.first() {
            events.schedule(f.start, Event::FlowStart(0));
        }
        for f in &scenario.failures {
            let link = net
                .find_link(&f.link[0], &f.link[1])
                .expect("checked in prepare");
            events.schedule(
                Time::from_secs_f64(f.down_s),
                Event::LinkState { link, up: false },
            );
            if let Some(up) = f.up_s {
                events.schedule(Time::from_secs_f64(up), Event::LinkState { link, up: true });
            }
        }
        let series_interval = (scenario.output.series_interval_us > 0.0)
            .then(|| Time::from_us_f64(scenario.output.series_interval_us).max(Time(1)));
        if let Some(iv) = series_interval {
            events.schedule(iv, Event::Sample);
        }
        let agent_wake = agent.as_ref().and_then(|a| a.poll_timeout());
        if let Some(t) = agent_wake {
            events.schedule(t, Event::AgentTick);
        }
        let n_flows = flows.len();
        let n_ports = net.ports.len();
        let flows = flows
            .into_iter()
            .enumerate()
            .map(|(i, spec)| FlowState {
                spec,
                // An ephemeral "source port": stable per flow, different across flows.
                path_key: crate::rng::derive_u64(scenario.seed, "path_key", i as u64) as u32,
                endpoints: None,
                finish: None,
                terminated: None,
                ideal_fct: Time::ZERO,
                retransmits: 0,
                timeouts: 0,
                bytes_delivered: 0,
                arrived_bytes: 0,
                sampled_bytes: 0,
                data_packets: 0,
                reorder: ReorderStats::default(),
                dropped: DroppedSeqs::default(),
            })
            .collect();
        Simulation {
            now: Time::ZERO,
            events,
            pool: PacketPool::default(),
            net,
            lb,
            transport,
            agent,
            agent_wake,
            flows,
            next_flow: 0,
            flows_done: 0,
            stop: scenario.stop_s.map(Time::from_secs_f64),
            counters: NetCounters::default(),
            reroute_delay: Time::from_us_f64(scenario.routing.reroute_delay_us),
            series_interval,
            next_sample: series_interval,
            series: Series::default(),
            series_room: memory.series_room(),
            series_port_rows,
            memory,
            over_budget: None,
            traced: TracedFlows::new(&scenario.output.trace_flow, n_flows),
            abort_at_deadline: scenario.workload.abort_at_deadline.unwrap_or(false),
            trace: Vec::new(),
            dropped_scratch: Vec::new(),
            enqueued_at: Vec::new(),
            queue_wait: vec![Time::ZERO; n_flows],
            host_holds: (scenario.topology.host_nic == HostNic::Backpressure)
                .then(|| host_nic::HostHolds::new(n_ports, n_flows)),
            host_wait: vec![Time::ZERO; n_flows],
            crossed: if scenario.output.paths {
                vec![Vec::new(); n_flows]
            } else {
                Vec::new()
            },
            count_paths: scenario.output.paths,
            discipline,
            name: scenario.name.clone(),
            seed: scenario.seed,
            load,
            topology_name: topo.description.clone(),
            lb_name: scenario.routing.lb.clone(),
        }
    }

    fn all_flows_done(&self) -> bool {
        self.flows_done == self.flows.len()
    }

    /// Runs to the end. `progress` is called about every 200 ms of wall time; returning
    /// `false` stops the run with [`RunError::Interrupted`].
    pub fn run(
        mut self,
        progress: &mut dyn FnMut(Progress) -> bool,
    ) -> Result<RunOutput, RunError> {
        let wall = std::time::Instant::now();
        let mut clock = ProgressClock::new(wall).watching(&self.memory);
        let guard = self
            .flows
            .last()
            .map(|f| f.spec.start + UNFINISHED_GUARD)
            .unwrap_or(Time::ZERO);
        let horizon = self.stop.unwrap_or(guard);
        loop {
            if self.stop.is_none() && self.all_flows_done() {
                break;
            }
            let Some((t, ev)) = self.events.pop_until(horizon) else {
                break;
            };
            self.now = t;
            self.handle(ev);
            if self.events.popped() & 0xfff == 0 {
                if let Some(e) = self.over_budget.take() {
                    return Err(RunError::Memory(e));
                }
                let p = Progress {
                    sim_time: self.now,
                    flows_done: self.flows_done,
                    flows_total: self.flows.len(),
                };
                clock.tick(p, progress)?;
            }
        }
        // Every flow ended without a stop_s: the interval they ended in is sampled too, at its
        // end, as when a stop_s lets the pending sample come and as the flow-level engine does
        // (nothing after the last flow is simulated, so the run itself still ends here).
        if let (None, Some(due)) = (self.stop, self.next_sample) {
            if self.all_flows_done() {
                let end = self.now;
                self.now = due;
                self.sample();
                self.now = end;
            }
        }
        if let Some(e) = self.over_budget.take() {
            return Err(RunError::Memory(e));
        }
        if let Some(stop) = self.stop {
            self.now = stop;
        }
        Ok(self.finish(wall.elapsed().as_secs_f64()))
    }

    #[inline(always)]
    fn handle(&mut self, ev: Event) {
        match ev {
            Event::TxDone(p) => self.tx_done(p),
            Event::Arrive(p) => self.arrive(p),
            Event::FlowStart(i) => self.start_flow(i),
            Event::Timer {
                flow,
                side,
                generation,
            } => self.timer(flow, side, generation),
            Event::LinkState { link, up } => self.set_link(link, up),
            Event::Reroute => {
                self.net.recompute_routes();
                self.lb.on_reroute();
            }
            Event::Sample => self.sample(),
            Event::AgentTick => self.agent_tick(),
            Event::DeadlineAbort(i) => self.abort_at_deadline(i),
            Event::NicRoom(p) => self.nic_room(p),
        }
    }
}

/// Counts one data packet of a flow across `port` (see [`Simulation::crossed`]); the vector
/// grows only when the flow reaches a new port.
#[inline(always)]
fn count_crossing(crossed: &mut Vec<(PortIdx, u32)>, port: PortIdx) {
    match crossed.iter_mut().find(|(p, _)| *p == port) {
        Some((_, n)) => *n = n.saturating_add(1),
        None => crossed.push((port, 1)),
    }
}

/// The rates and marking threshold of a path's ports ([`PathFacts`]).
fn path_facts(net: &crate::net::Network, path: &[PortIdx]) -> PathFacts {
    let ports = path.iter().map(|&p| &net.ports[p as usize]);
    PathFacts {
        bottleneck: ports.clone().map(|p| p.rate).min().unwrap_or_default(),
        fastest: ports.clone().map(|p| p.rate).max().unwrap_or_default(),
        ecn_k_pkts: ports.filter_map(|p| p.queue.ecn_k_pkts()).min(),
    }
}

/// The receiver side's next timer: the transport's or its reordering buffer's.
fn receiver_timeout(ep: &Endpoints) -> Option<Time> {
    let hold = ep.reseq.as_ref().and_then(|rs| rs.poll_timeout());
    match (ep.receiver.poll_timeout(), hold) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Puts a packet an endpoint emitted into the pool, counted as sent.
fn admit(pool: &mut PacketPool, counters: &mut NetCounters, p: Packet) -> PacketRef {
    counters.sent_pkts += 1;
    counters.sent_bytes += p.size as u64;
    pool.insert(p)
}
