//! `output.trace_flow`: which flows' senders are traced, and the rows they leave.
//!
//! Whether a flow is traced is asked at every packet its sender sends or receives, so the
//! answer is copied into the flow's endpoints when it starts (a flag beside the state the
//! packet reads anyway); the set here, a dense flag per flow (empty when nothing is traced),
//! answers it then, once per flow.

use crate::metrics::series::{TraceEvent, TraceRow};
use crate::net::packet::Packet;
use crate::units::Time;

/// The flows whose senders are traced.
#[derive(Debug, Default)]
pub(super) struct TracedFlows(Vec<bool>);

impl TracedFlows {
    /// `ids` are checked to exist by [`crate::run::prepare()`]; one that does not is ignored.
    pub(super) fn new(ids: &[u32], n_flows: usize) -> TracedFlows {
        if ids.is_empty() {
            return TracedFlows(Vec::new());
        }
        let mut traced = vec![false; n_flows];
        for &id in ids {
            if let Some(t) = traced.get_mut(id as usize) {
                *t = true;
            }
        }
        TracedFlows(traced)
    }

    pub(super) fn contains(&self, flow: usize) -> bool {
        self.0.get(flow) == Some(&true)
    }

    /// Whether any flow is traced (then the run writes `trace.csv`, empty or not).
    pub(super) fn any(&self) -> bool {
        !self.0.is_empty()
    }
}

/// The row of `flow`'s sender after `event` about packet `p` (a default packet for a timeout).
pub(super) fn trace_row(
    now: Time,
    flow: u32,
    event: TraceEvent,
    p: &Packet,
    cwnd_bytes: u64,
) -> TraceRow {
    TraceRow {
        time_s: now.as_secs_f64(),
        flow_id: flow,
        event,
        seq: p.seq,
        ack: p.ack,
        payload: p.payload,
        retransmit: p.retransmit,
        cwnd_bytes,
    }
}
