//! Time series sampled at a fixed interval, kept as columns.
//!
//! Kinds: `flow_goodput_bps` (the rate at which the flow's new payload bytes reached its
//! receiving host during the interval, per active flow, id = flow id: bytes above what the
//! receiver had already released in order when they arrived, counted as they arrive, before
//! any reordering buffer; so it never exceeds the links that bring them, unlike the in-order
//! release, which jumps by a window when a retransmission fills a hole. A copy of bytes held
//! above that point — out of order at the receiver (a go-back-N resend after a timeout), or in
//! a DRB/Presto reordering buffer — counts again. The
//! flow-level engine gives the rate its model allocates, also capped by the links), `queue_bytes` (occupancy of each switch egress
//! queue at the sample instant, id = port id), `link_util` (fraction of the interval each
//! switch-or-host egress link spent transmitting, by bytes sent, id = port id).
//!
//! Samples are taken every interval from one interval after 0 while flows are present or to
//! come, the last one at the first multiple of the interval after the last flow ended (so its
//! last bytes are sampled), never after `stop_s`; with a `stop_s`, the packet engine also
//! samples while the last packets drain. Once nothing is left to simulate the series end,
//! however far `stop_s` is. They never hold
//! more memory than the budget leaves them ([`crate::budget`]): the sample that would
//! pass it stops the run with [`crate::run::RunError::Memory`].

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesKind {
    FlowGoodputBps,
    QueueBytes,
    LinkUtil,
}

impl SeriesKind {
    pub fn name(self) -> &'static str {
        match self {
            SeriesKind::FlowGoodputBps => "flow_goodput_bps",
            SeriesKind::QueueBytes => "queue_bytes",
            SeriesKind::LinkUtil => "link_util",
        }
    }
}

/// What a traced sender did (`output.trace_flow`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// It sent a packet (data, SYN).
    Send,
    /// It received a packet (ACK, SYN-ACK).
    Receive,
    /// Its retransmission timer fired.
    Timeout,
}

impl TraceEvent {
    pub fn name(self) -> &'static str {
        match self {
            TraceEvent::Send => "send",
            TraceEvent::Receive => "receive",
            TraceEvent::Timeout => "timeout",
        }
    }
}

/// One row of `trace.csv`: the event, the packet's sequence and acknowledgement numbers
/// (payload bytes counted from 0), its payload, whether it is a retransmission, and the
/// sender's congestion window after the event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRow {
    pub time_s: f64,
    /// The traced flow whose sender it is (`output.trace_flow` may list several).
    pub flow_id: u32,
    pub event: TraceEvent,
    pub seq: u64,
    pub ack: u64,
    pub payload: u32,
    pub retransmit: bool,
    pub cwnd_bytes: u64,
}

#[derive(Default, Clone, Debug)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub kind: Vec<SeriesKind>,
    pub id: Vec<u32>,
    pub value: Vec<f64>,
}

impl Series {
    pub fn push(&mut self, time_s: f64, kind: SeriesKind, id: u32, value: f64) {
        self.time_s.push(time_s);
        self.kind.push(kind);
        self.id.push(id);
        self.value.push(value);
    }

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }

    /// Bytes of one row, over the four columns.
    pub const ROW_BYTES: usize = 8 + std::mem::size_of::<SeriesKind>() + 4 + 8;

    /// The most bytes the columns hold on the way to holding `more` rows more: their
    /// capacity, or, when they must grow, the old and the new capacity together (the moment of
    /// the copy).
    pub fn bytes_to_grow(&self, more: usize) -> usize {
        let cap = self.time_s.capacity();
        let need = self.len() + more;
        if need <= cap {
            cap * Self::ROW_BYTES
        } else {
            (cap + need.max(2 * cap)) * Self::ROW_BYTES
        }
    }
}
