//! DCTCP's window policy (protocol `dctcp`): Alizadeh et al., "Data Center TCP (DCTCP)",
//! SIGCOMM 2010, §3.1, as written down in RFC 8257 §3. The sender estimates α, the fraction
//! of its bytes whose ACK echoed CE, once per window of data with gain g, and on ECE cuts
//! `cwnd ← cwnd·(1 − α/2)` at most once per window. Growth and loss are NewReno's
//! ([`super::newreno`]). Data packets (retransmissions included) carry ECT.
//!
//! Choices where the sources are silent:
//!
//! * **Observation window.** It ends when the cumulative ACK reaches `window_end`, then
//!   `window_end ← snd_nxt` (Linux, RFC 8257). The first window is the initial flight (it
//!   starts at the first data ACK; Linux starts it at the SYN, making its first window one
//!   ACK long). DupACKs count 0 bytes acknowledged (RFC 8257 §3.3 ignores SACKed bytes).
//! * **The cut.** On an ACK with ECE, at most once per observation window:
//!   `ssthresh ← max(cwnd·(1 − α/2), 2·SMSS)`, `cwnd ← min(cwnd, ssthresh)` (the floor of
//!   2 SMSS is Linux's `dctcp_ssthresh`). α is updated first when the same ACK closes a
//!   window, so the cut uses the freshest α. The ACK that cuts does not also grow cwnd. No cut
//!   during fast recovery; a fast retransmit or timeout counts as the window's one reduction
//!   (RFC 3168 §6.1.2). The reduction is immediate (no PRR-style spreading over the window).
//!   The other way round, a loss found by three dupACKs in the window of an ECN cut keeps
//!   the cut's ssthresh (cwnd becomes ssthresh + 3 SMSS as usual): "a DCTCP sender will only
//!   reduce the cwnd once per window of data across all loss signals" (RFC 8257 §3.5; Linux's
//!   `tcp_enter_recovery` does not reduce again while a CWR reduction is under way).
//!
//! D2TCP ([`crate::protocols::d2tcp`]) runs these same hooks with another penalty in the cut.

use super::newreno;
use super::{Ack, CongestionControl, Conn, Window};
use crate::protocols::tcp::TcpParams;

/// DCTCP sender state (Alizadeh et al. §3.1; RFC 8257 §3.3).
#[derive(Clone, Debug)]
pub struct Dctcp {
    alpha: f64,
    g: f64,
    /// Bytes newly acknowledged in the current observation window, and those of them whose
    /// ACK carried ECE.
    bytes_acked: u64,
    bytes_marked: u64,
    /// The window ends when `snd_una` reaches this byte. `None` until the first data ACK.
    window_end: Option<u64>,
    /// A reduction (ECE cut, fast retransmit or timeout) already happened in this window.
    reduced: bool,
    /// Windows completed (α updates) and ECE cuts made, for tests and diagnostics.
    windows: u64,
    cuts: u64,
}

impl Dctcp {
    pub fn new(p: &TcpParams) -> Dctcp {
        Dctcp {
            alpha: p.dctcp_init_alpha,
            g: p.dctcp_g,
            bytes_acked: 0,
            bytes_marked: 0,
            window_end: None,
            reduced: false,
            windows: 0,
            cuts: 0,
        }
    }

    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// (observation windows completed, ECE window cuts made).
    pub fn counters(&self) -> (u64, u64) {
        (self.windows, self.cuts)
    }

    /// Per-ACK accounting and the once-per-window α update (RFC 8257 §3.3 steps 2–9).
    #[inline]
    fn account(&mut self, c: &Conn, a: Ack) {
        // The first observation window is the initial flight: it starts with the first ACK.
        let end = *self.window_end.get_or_insert(c.snd_nxt);
        self.bytes_acked += a.newly_acked;
        if a.ece {
            self.bytes_marked += a.newly_acked;
        }
        if c.snd_una >= end {
            let f = if self.bytes_acked > 0 {
                self.bytes_marked as f64 / self.bytes_acked as f64
            } else {
                0.0
            };
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
            self.window_end = Some(c.snd_nxt);
            self.reduced = false;
            self.windows += 1;
        }
    }

    /// The ECE reaction: `cwnd ← cwnd·(1 − p/2)` at most once per window, ssthresh set to
    /// the same but not below 2 SMSS, no retransmission. `penalty(α, cwnd)` gives p: α for
    /// DCTCP, α^d for D2TCP; it is only evaluated when the cut happens. Returns whether it cut.
    #[inline]
    fn cut(&mut self, c: &Conn, w: &mut Window, penalty: impl FnOnce(f64, u64) -> f64) -> bool {
        if self.reduced {
            return false;
        }
        let p = penalty(self.alpha, w.cwnd);
        let target = (w.cwnd as f64 * (1.0 - p / 2.0)) as u64;
        w.ssthresh = target.max(2 * c.mss);
        w.cwnd = w.cwnd.min(w.ssthresh);
        self.reduced = true;
        self.cuts += 1;
        true
    }

    /// `on_ack` with the cut's penalty as a parameter (see [`Dctcp::cut`]).
    #[inline]
    pub(crate) fn on_ack_with(
        &mut self,
        c: &Conn,
        a: Ack,
        w: &mut Window,
        penalty: impl FnOnce(f64, u64) -> f64,
    ) {
        self.account(c, a);
        if c.in_recovery || c.all_acked() {
            return; // no cut inside a loss recovery; the sender owns the window there
        }
        // An ACK that triggers the cut does not also grow the window.
        if !(a.ece && self.cut(c, w, penalty)) {
            newreno::grow(c, a.newly_acked, w);
        }
    }

    /// `on_dupack` with the cut's penalty as a parameter.
    #[inline]
    pub(crate) fn on_dupack_with(
        &mut self,
        c: &Conn,
        ece: bool,
        w: &mut Window,
        penalty: impl FnOnce(f64, u64) -> f64,
    ) {
        if ece {
            self.cut(c, w, penalty);
        }
    }
}

impl CongestionControl for Dctcp {
    #[inline]
    fn on_ack(&mut self, c: &Conn, a: Ack, w: &mut Window) {
        self.on_ack_with(c, a, w, |alpha, _| alpha);
    }

    #[inline]
    fn on_dupack(&mut self, c: &Conn, ece: bool, w: &mut Window) {
        self.on_dupack_with(c, ece, w, |alpha, _| alpha);
    }

    #[inline]
    fn on_fast_retransmit(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        // Once per window across all congestion signals (RFC 8257 §3.5, RFC 3168 §6.1.2):
        // after a reduction in this window (an ECN cut, typically) the loss keeps its ssthresh.
        if !self.reduced {
            newreno::halve(c, flight, w);
        }
        self.reduced = true;
    }

    #[inline]
    fn on_timeout(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        newreno::timeout(c, flight, w);
        // A loss reaction counts as this window's reduction (RFC 3168 §6.1.2: at most one
        // window reduction per RTT for loss and ECN together).
        self.reduced = true;
    }

    #[inline]
    fn ect(&self) -> bool {
        true
    }
}
