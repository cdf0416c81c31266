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
//! Files: this one (the loop, packets through ports, endpoints), `host_nic` (hosts that push
//! back on their transports), `reorder` (what each flow saw of reordering and loss, for
//! `flows.csv`), `report` (the run's output).

mod host_nic;
mod reorder;
mod report;
mod trace;

use super::queue::{EventQueue, Urgency};
use crate::budget::MemoryPlan;
use crate::error::ConfigError;
use crate::lb::resequencer::Resequencer;
use crate::lb::{Fabric, LbParams, PathChoice};
use crate::metrics::series::{Series, TraceEvent, TraceRow};
use crate::metrics::{NetCounters, RunOutput};
use crate::net::ideal;
use crate::net::network::InFlight;
use crate::net::packet::{Ecn, Packet, PacketKind, PacketPool, PacketRef};
use crate::net::queue::{Discipline, Enqueued};
use crate::net::{Network, NodeIdx, PortIdx};
use crate::protocols::agent::Admission;
use crate::protocols::SwitchAgent;
use crate::protocols::{EndpointEvent, FlowSetup, PathFacts, Receiver, Sender, Transport};
use crate::run::{Prepared, Progress, ProgressClock, RunError, UNFINISHED_GUARD};
use crate::topo::HostNic;
use crate::units::Time;
use crate::workload::FlowSpec;
use reorder::{DroppedSeqs, ReceiverInput, ReorderStats};
use trace::{trace_row, TracedFlows};

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
        } = p;
        let ecn = |rate| transport.default_ecn_k_pkts(rate);
        let mut net = Network::build(&topo, discipline, &ecn);
        let series_port_rows = net
            .ports
            .iter()
            .map(|p| 1 + (net.nodes[p.node as usize].kind == crate::topo::NodeKind::Switch) as u64)
            .sum();
        let lb_params = LbParams::from_config(&scenario.routing).expect("checked in prepare");
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

    // ---------------------------------------------------------------- packets through ports

    fn drop_packet(&mut self, r: PacketRef, port: Option<PortIdx>) {
        let pkt = self.pool.get(r);
        let size = pkt.size as u64;
        if pkt.kind == PacketKind::Data && pkt.payload > 0 {
            let f = &mut self.flows[pkt.flow as usize];
            if let Some(ep) = f.endpoints.as_ref() {
                f.dropped.insert(pkt.seq, ep.sender.snd_una());
            }
        }
        self.counters.dropped_pkts += 1;
        self.counters.dropped_bytes += size;
        if let Some(p) = port {
            let p = &mut self.net.ports[p as usize];
            p.counters.drops += 1;
            if !p.at_switch {
                self.counters.dropped_host_nic_pkts += 1;
            }
        }
        self.pool.release(r);
    }

    /// Routes a packet at `node` and queues it at the chosen egress port, or drops it where
    /// there is no route. (Inlined into its callers: −2 % instructions on the fat-tree.)
    #[inline(always)]
    fn forward(&mut self, node: NodeIdx, r: PacketRef) {
        match self.route(node, r) {
            Some(port) => self.enqueue(port, r),
            None => self.drop_packet(r, None),
        }
    }

    /// The egress port of a packet at `node`: the switch agent's choice, else the path
    /// choice's among the routing table's next hops; `None` where there is no route.
    #[inline(always)]
    fn route(&mut self, node: NodeIdx, r: PacketRef) -> Option<PortIdx> {
        let pkt = self.pool.get_mut(r);
        let candidates = self.net.routing.next_hops(node, pkt.dst);
        if self.agent.is_none() {
            // ECMP's choice needs neither the fabric view nor the path-choice dispatch.
            if let Some(port) = self.lb.ecmp_choice(node, pkt, candidates) {
                return Some(port);
            }
        }
        if let Some(a) = self.agent.as_mut() {
            // Asked before the empty check: an agent may route where the tables have no path.
            if let Some(port) = a.route(self.now, node, pkt, candidates, &self.net.ports) {
                return Some(port);
            }
        }
        if candidates.is_empty() {
            return None;
        }
        let mut fabric = Fabric {
            now: self.now,
            routing: &self.net.routing,
            ports: &mut self.net.ports,
        };
        Some(self.lb.choose(node, pkt, candidates, &mut fabric))
    }

    fn enqueue(&mut self, port: PortIdx, r: PacketRef) {
        let p = &mut self.net.ports[port as usize];
        if !p.up {
            self.drop_packet(r, Some(port));
            return;
        }
        if p.eager {
            return self.enqueue_eager(port, r);
        }
        let admission = match self.agent.as_mut() {
            Some(a) => {
                let verdict = a.on_enqueue(self.now, port, p, self.pool.get_mut(r));
                // A hook may wake a sleeping port: keep the tick event at the earliest need.
                if let Some(t) = a.poll_timeout() {
                    if self.agent_wake.is_none_or(|w| t < w) {
                        self.agent_wake = Some(t.max(self.now));
                        self.events.schedule(t.max(self.now), Event::AgentTick);
                    }
                }
                verdict
            }
            None => Admission::Normal,
        };
        // Stamped before the queue decides: a rank queue may accept this packet and drop
        // another one instead.
        if p.at_switch && self.pool.get(r).payload > 0 {
            let i = r.index();
            if i >= self.enqueued_at.len() {
                self.enqueued_at.resize(i + 1, Time::ZERO);
            }
            self.enqueued_at[i] = self.now;
        }
        match p.queue.enqueue(&mut self.pool, r) {
            Enqueued::Accepted { marked } => {
                let pkt = self.pool.get(r);
                self.lb.on_accept(port, pkt.size as u64, self.now);
                if marked {
                    p.counters.ecn_marks += 1;
                    self.counters.ecn_marked += 1;
                }
            }
            Enqueued::Dropped(victim) if victim == r && admission == Admission::Protected => {
                // Never lost: the header goes on, beyond the buffer limit, without its payload.
                let pkt = self.pool.get_mut(r);
                pkt.size -= pkt.payload;
                pkt.payload = 0;
                p.queue.push_forced(&self.pool, r);
            }
            Enqueued::Dropped(victim) => {
                self.drop_packet(victim, Some(port));
                if victim == r {
                    return;
                }
            }
        }
        if self.net.ports[port as usize].transmitting.is_none() {
            self.start_tx(port);
        }
    }

    /// FIFO ports: admission, ECN marking and the departure time are all decided now.
    fn enqueue_eager(&mut self, port: PortIdx, r: PacketRef) {
        let p = &mut self.net.ports[port as usize];
        p.settle(self.now);
        let pkt = self.pool.get_mut(r);
        let size = pkt.size as u64;
        if !p.queue.admits(p.backlog_pkts, p.backlog_bytes, size) {
            self.drop_packet(r, Some(port));
            return;
        }
        if let Some(k) = p.queue.ecn_k_pkts() {
            if p.backlog_pkts >= k as u64 && pkt.ecn == Ecn::Ect {
                pkt.ecn = Ecn::Ce;
                p.counters.ecn_marks += 1;
                self.counters.ecn_marked += 1;
            }
        }
        if p.busy_until > self.now && p.at_switch && pkt.payload > 0 {
            self.queue_wait[pkt.flow as usize] += p.busy_until - self.now;
        }
        self.lb.on_accept(port, size, self.now);
        let (arrival, was_empty) = p.schedule(self.now, r, size);
        if was_empty {
            self.events.schedule(arrival, Event::Arrive(port));
        }
    }

    /// Non-eager ports: takes the next packet from the queue onto the wire.
    fn start_tx(&mut self, port: PortIdx) {
        let p = &mut self.net.ports[port as usize];
        if let Some(r) = p.queue.dequeue(&self.pool) {
            if let Some(a) = self.agent.as_mut() {
                a.on_dequeue(self.now, port, p, self.pool.get_mut(r));
            }
            p.transmitting = Some(r);
            let pkt = self.pool.get(r);
            if p.at_switch && pkt.payload > 0 {
                self.queue_wait[pkt.flow as usize] += self.now - self.enqueued_at[r.index()];
            }
            let done = self.now + p.ser(self.pool.get(r).size as u64);
            self.events.schedule(done, Event::TxDone(port));
            // A slot freed: a host holding packets for this NIC hands it the next.
            if self.host_holds.as_ref().is_some_and(|h| h.holding(port)) {
                self.release_held(port);
            }
        }
    }

    fn tx_done(&mut self, port: PortIdx) {
        let p = &mut self.net.ports[port as usize];
        let r = p.transmitting.take().expect("TxDone without a packet");
        let arrival = self.now + p.delay;
        if p.pipe.is_empty() {
            self.events.schedule(arrival, Event::Arrive(port));
        }
        let size = self.pool.get(r).size;
        p.pipe.push_back(InFlight {
            start: self.now,
            arrival,
            packet: r,
            size,
        });
        if p.up {
            self.start_tx(port);
        }
    }

    fn arrive(&mut self, port: PortIdx) {
        let p = &mut self.net.ports[port as usize];
        let InFlight {
            arrival, packet: r, ..
        } = p.pop_arrived();
        debug_assert_eq!(arrival, self.now);
        if let Some(next) = p.pipe.front() {
            self.events.schedule(next.arrival, Event::Arrive(port));
        }
        let pkt = self.pool.get_mut(r);
        if !p.up || pkt.lost {
            self.drop_packet(r, Some(port));
            return;
        }
        // Link counters count a packet when it has crossed the link.
        p.counters.tx_packets += 1;
        p.counters.tx_bytes += pkt.size as u64;
        if pkt.payload > 0 && self.count_paths {
            count_crossing(&mut self.crossed[pkt.flow as usize], port);
        }
        self.counters.link_transmissions += 1;
        let node = p.peer;
        self.lb.on_arrive(port, pkt, &mut self.net.ports, self.now);
        // A host that is not the destination relays (server-centric layouts such as BCube;
        // the routing tables send packets through hosts only there). The host table is small
        // and stays in cache, where the node records would not.
        if self.net.hosts[pkt.dst as usize] == node {
            self.deliver(r)
        } else if self.net.hosts_relay && self.net.nodes[node as usize].host.is_some() {
            self.relay_from_host(node, r)
        } else {
            self.forward(node, r)
        }
    }

    fn agent_tick(&mut self) {
        let Some(a) = self.agent.as_mut() else {
            return;
        };
        if self.agent_wake != Some(self.now) {
            return; // superseded by an earlier wake-up
        }
        a.handle_timeout(self.now, &self.net.ports);
        self.agent_wake = a.poll_timeout().map(|t| t.max(self.now));
        if let Some(t) = self.agent_wake {
            self.events.schedule(t, Event::AgentTick);
        }
    }

    // ---------------------------------------------------------------- endpoints

    fn deliver(&mut self, r: PacketRef) {
        let pkt = self.pool.get(r);
        self.counters.delivered_pkts += 1;
        self.counters.delivered_bytes += pkt.size as u64;
        let flow = pkt.flow as usize;
        let side = if pkt.kind.is_reverse() {
            Side::Sender
        } else {
            Side::Receiver
        };
        if let Some(ep) = self.flows[flow].endpoints.as_mut() {
            match side {
                Side::Sender => {
                    ep.sender.handle_packet(self.now, pkt);
                    if ep.traced {
                        let cwnd = ep.sender.cwnd_bytes();
                        let row = trace_row(self.now, flow as u32, TraceEvent::Receive, pkt, cwnd);
                        self.trace.push(row);
                    }
                }
                Side::Receiver => {
                    let f = &mut self.flows[flow];
                    f.reorder.on_arrival(pkt);
                    let ep = f.endpoints.as_mut().expect("checked above");
                    // New bytes: those above what the receiver already holds in order (a
                    // copy of bytes it has released is not goodput). Only the series use them.
                    if self.series_interval.is_some() && pkt.kind == PacketKind::Data {
                        let held = ep.receiver.bytes_delivered();
                        let end = pkt.seq + pkt.payload as u64;
                        f.arrived_bytes += end.saturating_sub(pkt.seq.max(held));
                    }
                    let mut rx = ReceiverInput {
                        stats: &mut f.reorder,
                        dropped: &f.dropped,
                        size: f.spec.size_bytes,
                        now: self.now,
                    };
                    match ep.reseq.as_mut() {
                        None => rx.feed(&mut ep.receiver, pkt),
                        Some(rs) => {
                            let pass =
                                rs.handle_packet(self.now, pkt, ep.receiver.bytes_delivered());
                            rx.release_held(rs, &mut ep.receiver, pass.then_some(pkt));
                        }
                    }
                }
            }
            self.pool.release(r);
            self.after_endpoint(flow as u32, side);
        } else {
            // The flow is over and its state freed: a late duplicate or ACK.
            self.pool.release(r);
        }
    }

    fn start_flow(&mut self, i: u32) {
        let idx = i as usize;
        self.next_flow = idx + 1;
        if let Some(next) = self.flows.get(idx + 1) {
            self.events
                .schedule(next.spec.start.max(self.now), Event::FlowStart(i + 1));
        }
        let f = &self.flows[idx];
        if let (true, Some(d)) = (self.abort_at_deadline, f.spec.deadline) {
            self.events
                .schedule(f.spec.start + d, Event::DeadlineAbort(i));
        }
        let path = ideal::best_path(&self.net, f.spec.src, f.spec.dst);
        let setup = FlowSetup {
            flow: i,
            src: f.spec.src,
            dst: f.spec.dst,
            size: f.spec.size_bytes,
            start: self.now,
            deadline: f.spec.deadline.map(|d| f.spec.start + d),
            weight: f.spec.weight,
            path_key: f.path_key,
            path: path_facts(&self.net, &path),
        };
        let (mss, header) = self.transport.data_packet_sizes();
        let ideal_fct = ideal::ideal_fct(&self.net, &path, setup.size, mss, header);
        let nic = self.net.nodes[self.net.hosts[setup.src as usize] as usize].ports[0];
        let mut sender = self
            .transport
            .new_sender(&setup, self.net.ports[nic as usize].rate);
        let receiver = self.transport.new_receiver(&setup);
        let reseq = self.lb.resequencer();
        sender.start(self.now);
        let f = &mut self.flows[idx];
        f.ideal_fct = ideal_fct;
        f.endpoints = Some(Box::new(Endpoints {
            sender,
            receiver,
            sender_done: false,
            traced: self.traced.contains(idx),
            timer: [None, None],
            generation: [0, 0],
            reseq,
        }));
        self.after_endpoint(i, Side::Sender);
    }

    /// `workload.abort_at_deadline`: the application gives up on a flow still running at its
    /// deadline; it ends as if its protocol had terminated it, close packets included (PDQ's
    /// TERM, D3's and MERP's FIN, PACE's TERMINATE), so that switches holding state for it let
    /// it go. It counts as terminated now, and its delivered bytes stop here; a sender that
    /// must first hear a reply ([`Sender::is_closing`]) keeps its endpoints until it has.
    fn abort_at_deadline(&mut self, i: u32) {
        let now = self.now;
        let f = &mut self.flows[i as usize];
        if f.finish.is_some() || f.terminated.is_some() {
            return;
        }
        let Some(ep) = f.endpoints.as_mut() else {
            return;
        };
        let (sender_closes, receiver_closes) = (ep.sender.abort(now), ep.receiver.abort(now));
        // Their close packets go out while the endpoints are still there; a sender that waits
        // for a reply gets its timer (in case the reply never comes).
        let sender_waits = ep.sender.is_closing();
        if receiver_closes {
            self.after_endpoint(i, Side::Receiver);
        }
        if sender_closes || sender_waits {
            self.after_endpoint(i, Side::Sender);
        }
        let held = self.any_side_held(i);
        let f = &mut self.flows[i as usize];
        if f.terminated.is_none() {
            f.terminated = Some(now);
            self.flows_done += 1;
        }
        // A sender still closing (D3 awaiting a reply) keeps both endpoints until it is done:
        // its receiver echoes the reply; so does a flow whose host holds one of its packets,
        // whose close packets are asked for when that packet enters the NIC. `after_endpoint`
        // frees them then.
        if !sender_waits && !held {
            f.free_endpoints();
        }
    }

    fn timer(&mut self, flow: u32, side: Side, generation: u32) {
        let now = self.now;
        let Some(ep) = self.flows[flow as usize].endpoints.as_mut() else {
            return;
        };
        let s = side as usize;
        if ep.generation[s] != generation {
            return; // superseded by an earlier timer
        }
        ep.timer[s] = None;
        let due = match side {
            Side::Sender => ep.sender.poll_timeout(),
            Side::Receiver => receiver_timeout(ep),
        };
        if due.is_some_and(|t| t <= now) {
            match side {
                Side::Sender => {
                    let before = ep.sender.stats().timeouts;
                    ep.sender.handle_timeout(now);
                    if ep.sender.stats().timeouts > before {
                        self.flows[flow as usize].reorder.on_timeout();
                    }
                    let ep = self.flows[flow as usize].endpoints.as_mut().expect("alive");
                    if ep.traced {
                        let cwnd = ep.sender.cwnd_bytes();
                        self.trace.push(trace_row(
                            now,
                            flow,
                            TraceEvent::Timeout,
                            &Packet::default(),
                            cwnd,
                        ));
                    }
                }
                Side::Receiver => {
                    if ep.receiver.poll_timeout().is_some_and(|t| t <= now) {
                        ep.receiver.handle_timeout(now);
                    }
                    let f = &mut self.flows[flow as usize];
                    let ep = f.endpoints.as_mut().expect("alive");
                    if let Some(rs) = ep.reseq.as_mut() {
                        rs.handle_timeout(now);
                        let mut rx = ReceiverInput {
                            stats: &mut f.reorder,
                            dropped: &f.dropped,
                            size: f.spec.size_bytes,
                            now,
                        };
                        rx.release_held(rs, &mut ep.receiver, None);
                    }
                }
            }
        }
        self.after_endpoint(flow, side);
    }

    /// Collects what an endpoint wants after it was handed something: packets to send, events,
    /// and its next timer.
    fn after_endpoint(&mut self, flow: u32, side: Side) {
        let now = self.now;
        let spec = &self.flows[flow as usize].spec;
        let host = self.net.hosts[match side {
            Side::Sender => spec.src,
            Side::Receiver => spec.dst,
        } as usize];
        self.send_packets(flow, side, host);
        let blocked = self
            .host_holds
            .as_ref()
            .is_some_and(|h| h.is_blocked(flow, side));
        let held = self.any_side_held(flow);
        let f = &mut self.flows[flow as usize];
        let ep = f.endpoints.as_mut().expect("endpoint alive");
        let mut completed = false;
        let mut terminated = false;
        match side {
            Side::Sender => {
                while let Some(e) = ep.sender.poll_event() {
                    match e {
                        EndpointEvent::SenderDone => ep.sender_done = true,
                        EndpointEvent::Terminated => terminated = true,
                        EndpointEvent::Completed => {}
                    }
                }
            }
            Side::Receiver => {
                while let Some(e) = ep.receiver.poll_event() {
                    match e {
                        EndpointEvent::Completed => completed = true,
                        EndpointEvent::Terminated => terminated = true,
                        EndpointEvent::SenderDone => {}
                    }
                }
                // An aborted flow's count stops at the abort, as if its receiver were gone.
                if f.terminated.is_none() {
                    f.bytes_delivered = ep.receiver.bytes_delivered();
                }
            }
        }
        if completed && f.finish.is_none() && f.terminated.is_none() {
            f.finish = Some(now);
            self.flows_done += 1;
        } else if terminated && f.finish.is_none() && f.terminated.is_none() {
            f.terminated = Some(now);
            self.flows_done += 1;
        }
        // Schedule the endpoint's timer if it is earlier than the pending one. An endpoint
        // its host holds a packet of is asked again when that packet enters the NIC: a timer
        // due now (a paced packet it may not send yet) would only fire and fire until then.
        let s = side as usize;
        let due = match side {
            Side::Sender => ep.sender.poll_timeout(),
            Side::Receiver => receiver_timeout(ep),
        };
        if let Some(t) = due.filter(|&t| !(blocked && t <= now)) {
            let t = t.max(now);
            if ep.timer[s].is_none_or(|pending| t < pending) {
                ep.generation[s] = ep.generation[s].wrapping_add(1);
                ep.timer[s] = Some(t);
                self.events.schedule(
                    t,
                    Event::Timer {
                        flow,
                        side,
                        generation: ep.generation[s],
                    },
                );
            }
        }
        // Free the endpoints once both are finished, or the flow was terminated (and its
        // sender is not still closing); late packets are then absorbed. Not while its host
        // holds a packet of either side: that side has more to send (a FIN, a TERM), and is
        // asked for it when the held packet enters the NIC.
        if ((ep.sender_done && f.finish.is_some())
            || (f.terminated.is_some() && !ep.sender.is_closing()))
            && !held
        {
            f.free_endpoints();
        }
    }

    /// Whether a host holds a packet of either endpoint of `flow` for its NIC.
    fn any_side_held(&self, flow: u32) -> bool {
        (self.host_holds.as_ref()).is_some_and(|h| h.any_side_blocked(flow))
    }

    /// Hands an endpoint's packets to its host's NIC one by one, as it emits them. An
    /// endpoint whose packet the host holds (its NIC is full) is asked for no more until that
    /// packet enters the NIC ([`host_nic`]), as TCP Small Queues throttles a Linux socket.
    fn send_packets(&mut self, flow: u32, side: Side, host: NodeIdx) {
        let now = self.now;
        loop {
            if (self.host_holds.as_ref()).is_some_and(|h| h.is_blocked(flow, side)) {
                return;
            }
            let f = &mut self.flows[flow as usize];
            let Some(ep) = f.endpoints.as_mut() else {
                return;
            };
            let p = match side {
                Side::Sender => {
                    let Some(p) = ep.sender.poll_transmit(now) else {
                        return;
                    };
                    if p.kind == PacketKind::Data {
                        f.reorder.on_data_sent(&p, &f.dropped);
                    }
                    if ep.traced {
                        let cwnd = ep.sender.cwnd_bytes();
                        self.trace
                            .push(trace_row(now, flow, TraceEvent::Send, &p, cwnd));
                    }
                    p
                }
                Side::Receiver => {
                    let Some(p) = ep.receiver.poll_transmit(now) else {
                        return;
                    };
                    p
                }
            };
            let r = admit(&mut self.pool, &mut self.counters, p);
            self.send_from_host(host, r, side);
        }
    }

    // ---------------------------------------------------------------- failures

    fn set_link(&mut self, link: u32, up: bool) {
        let (a, b) = self.net.links[link as usize];
        for port in [a, b] {
            let p = &mut self.net.ports[port as usize];
            p.up = up;
            if !up {
                // Waiting packets are lost with the link; those on the wire are dropped when
                // they would have arrived.
                let mut lost = std::mem::take(&mut self.dropped_scratch);
                p.fail(self.now, &mut self.pool, &mut lost);
                for r in lost.drain(..) {
                    self.drop_packet(r, Some(port));
                }
                self.dropped_scratch = lost;
                self.drop_held(port);
            } else if !p.eager && p.transmitting.is_none() {
                self.start_tx(port);
            }
        }
        self.events
            .schedule(self.now + self.reroute_delay, Event::Reroute);
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
