//! What a run produces: one record per flow, network counters, optional time series, and the
//! summary computed from them. Writing result directories lives in [`output`].

pub mod load;
pub mod output;
pub mod series;
pub mod summary;

use crate::units::Time;

/// One row of `flows.csv`. Unfinished flows have `finish = None` and stay in the table.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowRecord {
    pub flow_id: u32,
    pub src: u32,
    pub dst: u32,
    pub size_bytes: u64,
    pub start: Time,
    /// Whether the flow started before the run ended (a `stop_s` may come first).
    pub started: bool,
    pub finish: Option<Time>,
    /// When the protocol gave up on the flow (`EndpointEvent::Terminated`); such a flow has
    /// no `finish` and missed its deadline.
    pub terminated: Option<Time>,
    /// FCT of this flow alone on an idle network, sent at line rate with no handshake: the
    /// store-and-forward pipeline of its data packets along the best of its shortest paths.
    pub ideal_fct: Time,
    /// Relative to `start`.
    pub deadline: Option<Time>,
    pub retransmits: u64,
    pub timeouts: u64,
    pub bytes_delivered: u64,
    /// Data packets the sender put on the wire, retransmissions included.
    pub data_packets: u64,
    /// Retransmitted data packets whose segment the network had never dropped (reordering or
    /// a premature timeout made them).
    pub spurious_retransmits: u64,
    /// First transmissions that reached the receiving host after a later byte of the flow.
    pub ooo_arrivals: u64,
    /// Duplicate ACKs the receiver sent, by cause: the segment asked for was late
    /// (reordering) or had been dropped (loss).
    pub dupacks_reorder: u64,
    pub dupacks_loss: u64,
    /// Time the flow's data packets waited in switch egress queues, summed over its packets
    /// and their hops (FIFO ports only).
    pub queue_wait: Time,
    /// Time the flow's data packets waited in the sending host for room in its NIC queue
    /// (`topology.host_nic = "backpressure"`), summed over its packets.
    pub host_wait: Time,
}

impl FlowRecord {
    /// Mean switch queueing delay of the flow's data packets (summed over hops).
    pub fn queue_delay_mean(&self) -> Option<f64> {
        (self.data_packets > 0).then(|| self.queue_wait.as_secs_f64() / self.data_packets as f64)
    }

    /// Mean time the flow's data packets waited in the sending host for its NIC.
    pub fn host_delay_mean(&self) -> Option<f64> {
        (self.data_packets > 0).then(|| self.host_wait.as_secs_f64() / self.data_packets as f64)
    }

    /// Share of the flow's data packets that were spurious retransmissions: the TR paper's
    /// "retransmission ratio caused by reordering".
    pub fn reorder_retx_ratio(&self) -> Option<f64> {
        (self.data_packets > 0).then(|| self.spurious_retransmits as f64 / self.data_packets as f64)
    }

    pub fn fct(&self) -> Option<Time> {
        self.finish.map(|f| f - self.start)
    }

    /// FCT over ideal FCT (the expansion ratio of the MERP paper).
    pub fn slowdown(&self) -> Option<f64> {
        self.fct()
            .map(|f| f.ps() as f64 / self.ideal_fct.ps().max(1) as f64)
    }

    /// `None` for flows without a deadline. A deadline is met when the last byte reached the
    /// receiver at or before `start + deadline`; terminated flows and flows still unfinished
    /// when the run ended missed theirs.
    pub fn met_deadline(&self) -> Option<bool> {
        let d = self.deadline?;
        Some(self.terminated.is_none() && self.fct().is_some_and(|f| f <= d))
    }
}

/// Network-wide packet and byte counters. "Sent" counts what endpoints put into the network;
/// at any moment `sent = delivered + dropped + in flight` (checked by the conservation tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetCounters {
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    pub dropped_pkts: u64,
    pub dropped_bytes: u64,
    /// Of `dropped_pkts`, those dropped at a host's NIC queue (a host's own packets under
    /// `topology.host_nic = "droptail"`, relayed ones, and those lost with a failed host link).
    pub dropped_host_nic_pkts: u64,
    /// Packets that waited in their host for room in its NIC queue, and their summed and
    /// longest wait (packets still waiting at the end count up to the end).
    pub host_held_pkts: u64,
    pub host_wait_total: Time,
    pub host_wait_max: Time,
    pub ecn_marked: u64,
    /// Packet transmissions on links (one packet crossing one link counts once).
    pub link_transmissions: u64,
}

/// The cost of the run itself.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunCost {
    pub wall_s: f64,
    pub events: u64,
    pub sim_time: Time,
    pub peak_packets: usize,
}

/// A port as listed in `ports.csv` (ids used by the queue and link series).
#[derive(Clone, Debug, PartialEq)]
pub struct PortInfo {
    pub port: u32,
    pub node: String,
    pub peer: String,
    pub gbps: f64,
    pub delay_us: f64,
    /// The queue: its buffer and ECN marking threshold (packets), as the run used them.
    pub buffer: crate::topo::BufferSize,
    pub ecn_k_pkts: Option<u32>,
    /// Counters over the whole run.
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    pub ecn_marks: u64,
}

impl PortInfo {
    /// Port `i` of `net` as the run left it, with its counters.
    pub fn of(net: &crate::net::Network, i: usize, c: crate::net::network::PortCounters) -> Self {
        let p = &net.ports[i];
        PortInfo {
            port: i as u32,
            node: net.node_name(p.node).to_string(),
            peer: net.node_name(p.peer).to_string(),
            gbps: p.rate.as_gbps_f64(),
            delay_us: p.delay.as_us_f64(),
            buffer: p.queue.limit(),
            ecn_k_pkts: p.queue.ecn_k_pkts(),
            tx_packets: c.tx_packets,
            tx_bytes: c.tx_bytes,
            drops: c.drops,
            ecn_marks: c.ecn_marks,
        }
    }
}

/// One row of `paths.csv`: a port (a directed link) that a flow's data crossed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathHop {
    pub flow_id: u32,
    /// The port's position from the source host: 0 for the host's own NIC. Under the packet
    /// engine, the fewest links from the source host to the port's node over the ports the
    /// flow crossed (ports at one hop are alternatives the path choice spread packets over).
    pub hop: u32,
    pub port: u32,
    /// The flow's data packets that crossed the port (the packet engine; `None` under the
    /// flow-level engine, which has no packets).
    pub packets: Option<u64>,
}

/// Everything a run produced.
pub struct RunOutput {
    pub flows: Vec<FlowRecord>,
    pub counters: NetCounters,
    pub in_flight_bytes: u64,
    pub in_flight_pkts: u64,
    pub cost: RunCost,
    pub series: Option<series::Series>,
    /// The traced flows' sender events, when `output.trace_flow` lists any.
    pub trace: Option<Vec<series::TraceRow>>,
    pub ports: Vec<PortInfo>,
    /// The ports each flow's data crossed (`paths.csv`), by flow, then hop, then port, when
    /// `output.paths` is on.
    pub paths: Option<Vec<PathHop>>,
    /// The load the flows offered, next to the nominal one.
    pub load: load::OfferedLoad,
    /// Scenario facts for the summary.
    pub protocol: String,
    pub lb: String,
    pub topology: String,
    pub seed: u64,
    pub name: Option<String>,
}
