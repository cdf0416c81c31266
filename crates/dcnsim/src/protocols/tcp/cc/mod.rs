//! # Congestion control: the window policy of the TCP sender
//!
//! The [`TcpSender`](super::TcpSender) keeps what every TCP of this family shares: the
//! sequence space, loss recovery (fast retransmit and fast recovery of RFC 5681 §3.2, the
//! NewReno partial-ACK rules of RFC 6582, limited transmit of RFC 3042) and the RFC 6298
//! retransmission timer. How the window moves on the events of a connection, and whether its
//! data is ECN-capable, is the congestion controller's: the shape of quinn-proto's
//! `Controller`, a handful of hooks that the sender calls with what it knows. Dispatch is by
//! enum ([`Controller`]), not a boxed trait object: the hooks run on every ACK. For the same
//! reason the hooks are `#[inline]`: without it they stayed calls, and the fat-tree benchmark
//! ran 0.5 % more instructions than with the code inside the sender (callgrind).
//!
//! ## The hooks ([`CongestionControl`])
//!
//! Each hook gets a [`Conn`] (a copy of the sender's state: time, sequence numbers, flow size,
//! SRTT, whether a fast recovery is under way) and the [`Window`] (cwnd and ssthresh, bytes),
//! which it may change.
//!
//! | hook | the sender calls it | NewReno does |
//! |---|---|---|
//! | `on_established` | at the SYN-ACK, after its RTT sample (the first) | nothing (the initial window stays) |
//! | `on_ack` | on every ACK that advances `snd_una`, before the sender's own recovery step | grows cwnd, outside recovery |
//! | `on_dupack` | on a duplicate ACK outside recovery that does not start a fast retransmit | nothing |
//! | `on_fast_retransmit` | at the dupACK that starts fast retransmit, before cwnd is inflated | ssthresh ← FlightSize/2 |
//! | `on_timeout` | when the retransmission timer fires with data outstanding | ssthresh ← FlightSize/2, cwnd ← 1 SMSS |
//! | `ect` | for every data packet | false |
//! | `wants_abort` | after every packet and timer the sender handles, with the time | false |
//! | `data_header` | for every data packet: the protocol header it carries | none |
//!
//! What stays the sender's: during a fast recovery it owns cwnd. It sets cwnd = ssthresh +
//! `dupack_threshold`·SMSS on entry (from the ssthresh `on_fast_retransmit` chose), inflates
//! by 1 SMSS per dupACK, deflates on partial ACKs and, at the full ACK, sets cwnd =
//! min(ssthresh, FlightSize + SMSS) (RFC 6582 §3.2). A controller that sets the window in
//! `on_ack` should therefore leave it alone while [`Conn::in_recovery`]; its ssthresh decides
//! the window after the recovery. The ACK that ends a recovery reaches `on_ack` with
//! `in_recovery` still true. The initial window (`init_cwnd_pkts`) and ssthresh (unbounded,
//! RFC 5681 §3.1) are set by the sender before any hook runs.
//!
//! ## The variants
//!
//! | protocol | controller | file |
//! |---|---|---|
//! | `tcp` | [`NewReno`] | `newreno.rs`: RFC 5681 §3.1 growth, eq. (4) reductions |
//! | `dctcp` | [`Dctcp`] | `dctcp.rs`: α per window of ACKs, the α-proportional cut on ECE, ECT data |
//! | `d2tcp` | [`D2tcp`] | `protocols/d2tcp/mod.rs`: DCTCP's hooks with the cut's α replaced by the penalty α^d |
//! | `mcp` | [`Mcp`] | `protocols/mcp/`: the window set once per RTT from the deadline deficit and the path's queue and price |
//!
//! [`Controller::new`] picks one from [`TcpParams`]. Accessors that tests and
//! traces use (`dctcp_alpha`, `dctcp_counters`, `cwnd`, `ssthresh`) stay on the sender.
//!
//! ## Adding a TCP-family protocol: how MCP plugs in
//!
//! A new window policy is one file implementing [`CongestionControl`], a variant of
//! [`Controller`] (and its arm in the dispatch macro), its parameters in `TcpParams`, and its
//! name in [`crate::protocols::Transport`]; the sender does not change. MCP (a deadline-aware
//! window computed once per RTT) would use:
//!
//! * **ECN over the last window**: `on_ack` gets every new ACK's bytes and ECE bit
//!   ([`Ack`]); a window ends when `snd_una` passes the `snd_nxt` noted at its start, as
//!   DCTCP's does (`dctcp.rs`). DupACKs acknowledge no new bytes (`on_dupack` has the ECE bit).
//! * **Remaining size and deadline**: [`Conn::remaining`] on every hook; the deadline is the
//!   flow's ([`FlowSetup::deadline`](crate::protocols::FlowSetup)), given to
//!   [`Controller::new`] as D2TCP's is. SRTT is [`Conn::srtt`].
//! * **Setting the window once per RTT**: at the ACK that closes a window, `on_ack` writes
//!   `w.cwnd` (and `w.ssthresh`) directly, outside recovery.
//! * **An initial window after the first RTT sample**: `on_established` sees the SYN-ACK's
//!   sample in `c.srtt` and may set `w.cwnd` before the first data leaves.
//! * **ECT data**: `ect` returns true.
//! * **Giving up on a flow**: `wants_abort` returns true; the sender then ends the flow at
//!   once with [`EndpointEvent::Terminated`](crate::protocols::EndpointEvent::Terminated) (no
//!   more packets, no timer), and the engine frees both endpoints and counts the deadline as
//!   missed.

mod dctcp;
pub(crate) mod newreno;
#[cfg(test)]
pub(crate) mod probe;

pub use dctcp::Dctcp;
pub use newreno::NewReno;

use super::{TcpParams, Variant};
use crate::protocols::d2tcp::D2tcp;
use crate::protocols::mcp::Mcp;
use crate::protocols::FlowSetup;
use crate::units::Time;

/// Congestion window and slow-start threshold, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
}

/// The sender's state as a hook sees it (a copy: hooks cannot reach into the sender).
#[derive(Clone, Copy, Debug)]
pub struct Conn {
    pub now: Time,
    /// Payload bytes of a full segment (SMSS).
    pub mss: u64,
    /// Flow size in bytes.
    pub size: u64,
    /// First byte not yet cumulatively acknowledged (already advanced by the ACK at hand).
    pub snd_una: u64,
    /// Next byte to send (behind `snd_max` only during go-back-N after a timeout).
    pub snd_nxt: u64,
    /// One past the highest byte ever sent.
    pub snd_max: u64,
    /// Smoothed RTT (RFC 6298); `None` before the first sample (the SYN-ACK gives one).
    pub srtt: Option<Time>,
    /// A fast recovery is under way: the sender owns cwnd (see the module doc).
    pub in_recovery: bool,
    /// The window is in use, so growing it means something (Linux's `tcp_is_cwnd_limited`;
    /// `newreno.rs`).
    pub cwnd_limited: bool,
}

impl Conn {
    /// Bytes of the flow not yet acknowledged.
    pub fn remaining(&self) -> u64 {
        self.size - self.snd_una
    }

    /// Every byte is acknowledged: the sender finishes right after this hook.
    pub fn all_acked(&self) -> bool {
        self.snd_una >= self.size
    }
}

/// An ACK that advanced `snd_una`.
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    /// Bytes newly acknowledged (> 0).
    pub newly_acked: u64,
    /// ECN-Echo: the data packet this ACK answers arrived CE-marked.
    pub ece: bool,
    /// The protocol header the receiver echoed (MCP-Opt reads the path's queue and price).
    pub header: crate::net::header::Header,
}

/// The window policy of a TCP sender (see the module doc for when each hook runs).
pub trait CongestionControl {
    /// The connection is open; `c.srtt` holds the SYN-ACK's RTT sample.
    fn on_established(&mut self, c: &Conn, w: &mut Window) {
        let _ = (c, w);
    }

    /// A cumulative ACK advanced `snd_una` by `a.newly_acked` bytes. Called before the sender
    /// ends a recovery or the flow: outside recovery the window is the controller's to move.
    fn on_ack(&mut self, c: &Conn, a: Ack, w: &mut Window);

    /// A duplicate ACK outside recovery that did not start a fast retransmit.
    fn on_dupack(&mut self, c: &Conn, ece: bool, w: &mut Window) {
        let _ = (c, ece, w);
    }

    /// Fast retransmit is starting: set ssthresh. `flight` is the FlightSize of RFC 5681
    /// §3.2 step 2 (segments sent by limited transmit left out). The sender then sets cwnd
    /// to ssthresh + `dupack_threshold`·SMSS.
    fn on_fast_retransmit(&mut self, c: &Conn, flight: u64, w: &mut Window);

    /// The retransmission timer fired with `flight` = `snd_max − snd_una` bytes outstanding
    /// (`c.in_recovery`: during a fast recovery, which the sender ends now). Set ssthresh and
    /// the loss window; the sender goes back to `snd_una`.
    fn on_timeout(&mut self, c: &Conn, flight: u64, w: &mut Window);

    /// Whether data packets are ECN-capable (ECT). SYNs never are.
    fn ect(&self) -> bool {
        false
    }

    /// Whether the flow should be given up at `now` (see the module doc).
    fn wants_abort(&self, now: Time) -> bool {
        let _ = now;
        false
    }

    /// The protocol header of data packets, for controllers whose switches fill it in
    /// (MCP-Opt); none by default.
    fn data_header(&self) -> crate::net::header::Header {
        crate::net::header::Header::NONE
    }
}

/// The congestion controllers, by enum for dispatch on the per-ACK path.
pub enum Controller {
    NewReno(NewReno),
    Dctcp(Dctcp),
    D2tcp(D2tcp),
    /// Boxed: MCP's state is several times the others'.
    Mcp(Box<Mcp>),
    /// A scripted controller for the sender's tests of the seam itself.
    #[cfg(test)]
    Probe(probe::Probe),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $body:expr) => {
        match $self {
            Controller::NewReno($c) => $body,
            Controller::Dctcp($c) => $body,
            Controller::D2tcp($c) => $body,
            Controller::Mcp($c) => $body,
            #[cfg(test)]
            Controller::Probe($c) => $body,
        }
    };
}

impl Controller {
    /// The controller `p` asks for, for the flow `f`.
    pub fn new(p: &TcpParams, f: &FlowSetup) -> Controller {
        match &p.variant {
            Variant::NewReno => Controller::NewReno(NewReno),
            Variant::Dctcp => Controller::Dctcp(Dctcp::new(p)),
            Variant::D2tcp { d_min, d_max, late } => {
                Controller::D2tcp(D2tcp::new(Dctcp::new(p), f.deadline, *d_min, *d_max, *late))
            }
            Variant::Mcp(m) => Controller::Mcp(Box::new(Mcp::new(m, p, f))),
        }
    }

    /// DCTCP's state, for DCTCP and D2TCP.
    pub fn dctcp(&self) -> Option<&Dctcp> {
        match self {
            Controller::Dctcp(d) => Some(d),
            Controller::D2tcp(d) => Some(d.dctcp()),
            Controller::Mcp(m) => m.fallback(),
            _ => None,
        }
    }
}

impl CongestionControl for Controller {
    #[inline]
    fn on_established(&mut self, c: &Conn, w: &mut Window) {
        dispatch!(self, cc => cc.on_established(c, w))
    }
    #[inline]
    fn on_ack(&mut self, c: &Conn, a: Ack, w: &mut Window) {
        dispatch!(self, cc => cc.on_ack(c, a, w))
    }
    #[inline]
    fn on_dupack(&mut self, c: &Conn, ece: bool, w: &mut Window) {
        dispatch!(self, cc => cc.on_dupack(c, ece, w))
    }
    #[inline]
    fn on_fast_retransmit(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        dispatch!(self, cc => cc.on_fast_retransmit(c, flight, w))
    }
    #[inline]
    fn on_timeout(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        dispatch!(self, cc => cc.on_timeout(c, flight, w))
    }
    #[inline]
    fn ect(&self) -> bool {
        dispatch!(self, cc => cc.ect())
    }
    #[inline]
    fn wants_abort(&self, now: Time) -> bool {
        dispatch!(self, cc => cc.wants_abort(now))
    }
    #[inline]
    fn data_header(&self) -> crate::net::header::Header {
        dispatch!(self, cc => cc.data_header())
    }
}
