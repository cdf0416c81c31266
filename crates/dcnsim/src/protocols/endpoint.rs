//! What the engine asks of a sender and of a receiver: the sans-IO contract of the module doc
//! ([`crate::protocols`]), as traits every protocol's endpoints implement.
//!
//! The engine does not call these traits through objects: the registry
//! ([`crate::protocols::registry`]) wraps each protocol's endpoints in the [`Sender`] and
//! [`Receiver`] enums and dispatches by `match`, which inlines on the per-packet path.
//!
//! [`Sender`]: crate::protocols::Sender
//! [`Receiver`]: crate::protocols::Receiver

use crate::net::packet::Packet;
use crate::units::Time;

/// What an endpoint reports to the application and the metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointEvent {
    /// Receiver: every byte of the flow has arrived, in order.
    Completed,
    /// Sender: every byte has been acknowledged; the sender holds no more timers.
    SenderDone,
    /// Either side: the protocol gave up on the flow (D3 and PDQ terminate a flow that can no
    /// longer meet its deadline). The flow ends now, unfinished, and counts as having missed
    /// its deadline; the engine frees both endpoints at once, so neither side is called again
    /// and packets still in flight are absorbed. Report it once, after the packets the
    /// endpoint still wants sent (e.g. a termination notice) are queued in `poll_transmit`.
    Terminated,
}

/// Counters a sender keeps for the per-flow output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments sent again (fast retransmit, partial-ACK retransmit or timeout).
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Data packets (first transmissions and retransmissions) sent.
    pub data_packets_sent: u64,
}

/// Either side of a flow. After every `handle_*` call the engine drains `poll_transmit` and
/// `poll_event` and then reads `poll_timeout`.
pub trait Endpoint {
    fn handle_packet(&mut self, now: Time, pkt: &Packet);

    /// The time of `poll_timeout` has come (or passed: it must tolerate an early call).
    fn handle_timeout(&mut self, now: Time) {
        let _ = now;
    }

    /// The next packet to put on the wire, in order.
    fn poll_transmit(&mut self, now: Time) -> Option<Packet>;

    /// The earliest time the endpoint wants `handle_timeout`.
    fn poll_timeout(&self) -> Option<Time>;

    fn poll_event(&mut self) -> Option<EndpointEvent>;

    /// The application gives up on the flow (`workload.abort_at_deadline`). A protocol whose
    /// switches keep state for the flow closes as on its own termination (PDQ's TERM, D3's
    /// and MERP's FIN from the sender; PACE's TERMINATE from the receiver), so that they let
    /// it go. Returns whether it has such packets to send; by default it sends nothing more.
    fn abort(&mut self, now: Time) -> bool {
        let _ = now;
        false
    }
}

/// The sending side.
pub trait SenderEndpoint: Endpoint {
    /// Called once at the flow's start time.
    fn start(&mut self, now: Time);

    fn stats(&self) -> SenderStats;

    /// Congestion window in bytes, for traces (protocols without one report 0).
    fn cwnd(&self) -> u64 {
        0
    }

    /// Bytes sent but not yet acknowledged (for conservation checks and series).
    fn bytes_in_flight(&self) -> u64;

    /// The acknowledged prefix: every payload byte below it has been acknowledged, and it
    /// never decreases. The cumulative ACK for the TCP family, pFabric, RCP and D3; for PDQ,
    /// which acknowledges segments one by one, the start of its first unacknowledged segment.
    fn snd_una(&self) -> u64;

    /// After [`Endpoint::abort`], whether the sender still has to hear from the network
    /// before it can close (D3: the reply to a request in flight carries allocations that its
    /// FIN must return). The engine keeps both endpoints until then.
    fn is_closing(&self) -> bool {
        false
    }
}

/// The receiving side.
pub trait ReceiverEndpoint: Endpoint {
    /// Payload bytes delivered in order to the application so far.
    fn bytes_delivered(&self) -> u64;
}
