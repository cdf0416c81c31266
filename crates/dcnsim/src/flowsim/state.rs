//! A flow's state, the run's cost counters, and the event heap's keys.

use crate::run::MAX_FLOWS;
use crate::units::Time;
use crate::workload::FlowSpec;

/// Where a flow is in its life.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Status {
    Waiting,
    Active,
    /// When the last byte reached the receiver.
    Finished(Time),
    Terminated(Time),
    /// No route between its hosts.
    Unroutable,
}

/// A flow's progress (its subflows' rates and links are kept apart, per subflow).
pub(super) struct FlowState {
    pub(super) spec: FlowSpec,
    pub(super) status: Status,
    /// Wire bytes (payload and headers) and the bits of them still to send at `last`.
    pub(super) wire: u64,
    pub(super) remaining: f64,
    /// The sum of its subflows' rates.
    pub(super) rate: f64,
    pub(super) last: Time,
    /// Generation of the flow's live event in the heap; older ones are stale.
    pub(super) generation: u32,
    pub(super) overhead: Time,
    pub(super) ideal_fct: Time,
    /// Rate of its first link (the NIC), for PDQ's Early Termination.
    pub(super) nic_bps: f64,
}

impl FlowState {
    /// Whether a heap event of this flow (its generation and kind) is still to happen: the
    /// flow is active and, but for the deadline abort, the event is of its current rate.
    pub(super) fn is_live(&self, generation: u32, kind: Kind) -> bool {
        self.status == Status::Active && (kind == Kind::Abort || generation == self.generation)
    }

    /// Its bits left at `now` at its current rate. The one expression for both settling the
    /// flow and reading its bits left between settlements: SRPT's and PDQ's repair reads a
    /// subflow's key at the last pass's time again, and relies on getting the number that
    /// pass read, whether the flow was settled there or not.
    pub(super) fn bits_left_at(&self, now: Time) -> f64 {
        let ps = now.saturating_sub(self.last).ps() as f64;
        (self.remaining - self.rate.max(0.0) * ps * 1e-12).max(0.0)
    }
}

/// What the rate recomputations cost over a run (for benchmarks and profiles).
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowStats {
    /// Recomputations (one per distinct event time with a change).
    pub recomputations: u64,
    /// Flows and links re-solved (a max-min component, or all; for SRPT and PDQ the subflows
    /// their repaired pass evaluated, and no links), summed over recomputations.
    pub component_flows: u64,
    pub component_links: u64,
    /// Flows whose rate changed (each is rescheduled), summed.
    pub rate_changes: u64,
    /// Solves of the policy (a max-min recomputation that grows its component solves again).
    pub solves: u64,
    /// Most events ever pending in the heap, live and stale (bounded by a few per active flow).
    pub peak_heap: usize,
    /// Most subflows ever in the list of active ones, ended ones not yet dropped included
    /// (at most twice the active subflows at the last drop, plus 1 024).
    pub peak_active: usize,
}

/// Relative rate difference below which a recomputed rate is taken as unchanged.
const RATE_EPSILON: f64 = 1e-12;

/// Whether a re-solve moved a flow's rate from `old` to `new`: a re-solve of a different set
/// of flows may reach the same rate by a different sum, and a difference at rounding level is
/// no change (no reschedule, no expansion).
pub(super) fn rate_changed(old: f64, new: f64) -> bool {
    (new - old).abs() > RATE_EPSILON * new.max(old)
}

/// The rate of a flow that has just arrived, before its first allocation.
pub(super) const UNALLOCATED: f64 = -1.0;

/// A heap event as one integer whose order is that of (time, flow, generation, kind): one
/// comparison per step of the heap instead of a tuple's four.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Event(pub(super) u128);

impl Event {
    pub(super) fn new(t: Time, flow: u32, generation: u32, kind: Kind) -> Event {
        debug_assert!((flow as usize) < MAX_FLOWS);
        Event(
            (t.ps() as u128) << 64
                | (flow as u128) << 34
                | (generation as u128) << 2
                | kind as u128,
        )
    }

    pub(super) fn time(self) -> Time {
        Time((self.0 >> 64) as u64)
    }

    pub(super) fn flow(self) -> u32 {
        (self.0 >> 34) as u32 & (MAX_FLOWS as u32 - 1)
    }

    pub(super) fn generation(self) -> u32 {
        (self.0 >> 2) as u32
    }

    pub(super) fn kind(self) -> Kind {
        match self.0 & 3 {
            0 => Kind::Finish,
            1 => Kind::Hopeless,
            _ => Kind::Abort,
        }
    }

    /// Whether it is still to happen (not superseded by a reschedule, its flow not ended).
    pub(super) fn is_live(self, flows: &[FlowState]) -> bool {
        flows[self.flow() as usize].is_live(self.generation(), self.kind())
    }
}

/// What an event in the heap does when it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// The flow's last byte leaves at the fluid rate.
    Finish = 0,
    /// PDQ Early Termination: from now on the flow cannot meet its deadline even at its NIC
    /// rate.
    Hopeless = 1,
    /// `workload.abort_at_deadline`.
    Abort = 2,
}
