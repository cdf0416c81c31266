//! NewReno's window policy (protocol `tcp`): slow start and congestion avoidance of RFC 5681
//! §3.1 with Appropriate Byte Counting (RFC 3465, L = 1 SMSS), and the reductions of RFC 5681
//! eq. (4) at a fast retransmit and at a timeout. Data is not ECN-capable. DCTCP and D2TCP
//! reuse these rules for growth and loss.
//!
//! Choices where the RFCs leave room:
//!
//! * **The window grows only while it is in use**, as Linux's `tcp_is_cwnd_limited` (RFC 5681
//!   has no such rule; RFC 7661 has a more elaborate one): in slow start while cwnd is below
//!   twice the largest flight of the current window of data, in congestion avoidance when the
//!   window stopped a send in it. A sender whose data is all sent, or whose host holds its
//!   packets for a full NIC (`topology.host_nic = "backpressure"`: the engine then does not
//!   ask it for more, as TCP Small Queues throttles a Linux socket), does not grow a window it
//!   does not use. Without it, a lone flow whose NIC is its bottleneck would grow its window
//!   without bound into its own host, and later hold the bottleneck of a competing flow with
//!   a window that halving cannot bring down (a second NewReno flow got 0.04 % of the link in
//!   `tests/bottleneck.rs` before this rule). A sender the engine always asks — NIC drop-tail,
//!   or room in the NIC — is stopped by its window whenever it has data, so the rule changes
//!   nothing there but the growth on the ACKs of a flow's last window.
//! * **ssthresh at a timeout during fast recovery** is min(FlightSize/2, the recovery's
//!   ssthresh). RFC 5681 eq. (4) sets ssthresh to *no more than* FlightSize/2; inside a
//!   recovery FlightSize counts every segment the inflated window let out, after a loss storm
//!   several times what the path holds. Linux (`tcp_enter_loss`) keeps the recovery's ssthresh;
//!   ns-3 halves its pipe estimate, about the recovery's window. Outside recovery:
//!   FlightSize/2.

use super::{Ack, CongestionControl, Conn, Window};

/// TCP NewReno's window policy (stateless: everything it needs is in the window).
#[derive(Clone, Copy, Debug, Default)]
pub struct NewReno;

/// Window growth on an ACK of `newly` bytes outside recovery.
#[inline]
pub(crate) fn grow(c: &Conn, newly: u64, w: &mut Window) {
    if !c.cwnd_limited {
        return;
    }
    if w.cwnd < w.ssthresh {
        // Slow start with Appropriate Byte Counting, L = 1 SMSS (RFC 5681 §3.1, RFC 3465).
        w.cwnd += newly.min(c.mss);
    } else {
        // Congestion avoidance, RFC 5681 eq. (3); at least 1 byte per ACK.
        w.cwnd += (c.mss * c.mss / w.cwnd).max(1);
    }
}

/// RFC 5681 eq. (4) at a fast retransmit: ssthresh = max(FlightSize/2, 2·SMSS).
#[inline]
pub(crate) fn halve(c: &Conn, flight: u64, w: &mut Window) {
    w.ssthresh = (flight / 2).max(2 * c.mss);
}

/// Retransmission timeout (RFC 5681 §3.1 eq. (4), loss window 1 SMSS).
#[inline]
pub(crate) fn timeout(c: &Conn, flight: u64, w: &mut Window) {
    let mut ssthresh = (flight / 2).max(2 * c.mss);
    if c.in_recovery {
        // Eq. (4) is an upper bound ("no more than FlightSize/2"). Inside a fast recovery
        // FlightSize holds everything the inflated window let out, after a loss storm several
        // times what the path holds, so keep the recovery's lower ssthresh (Linux's
        // tcp_enter_loss keeps it too).
        ssthresh = ssthresh.min(w.ssthresh);
    }
    w.ssthresh = ssthresh;
    w.cwnd = c.mss;
}

impl CongestionControl for NewReno {
    #[inline]
    fn on_ack(&mut self, c: &Conn, a: Ack, w: &mut Window) {
        if !c.in_recovery && !c.all_acked() {
            grow(c, a.newly_acked, w);
        }
    }

    #[inline]
    fn on_fast_retransmit(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        halve(c, flight, w);
    }

    #[inline]
    fn on_timeout(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        timeout(c, flight, w);
    }
}
