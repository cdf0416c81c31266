//! # D2TCP: deadline-aware DCTCP
//!
//! B. Vamanan, J. Hasan, T. N. Vijaykumar, "Deadline-Aware Datacenter TCP (D2TCP)",
//! SIGCOMM 2012, §3 ("gamma correction" of DCTCP's window cut). Everything of DCTCP stays —
//! switches mark at K on the instantaneous queue, receivers echo CE per packet, the sender keeps
//! α with gain g once per window (see [`crate::protocols::tcp`] and its DCTCP controller) —
//! except the cut on ECE. This file is D2TCP's congestion controller ([`D2tcp`], DCTCP's hooks
//! with another penalty) and that penalty:
//!
//! ```text
//!   p = α^d,      W ← W · (1 − p/2)
//! ```
//!
//! with the *deadline imminence factor* d = Tc / D:
//!
//! * **Tc** — time the flow still needs at the current window: its remaining bytes B sent at
//!   the average rate of a DCTCP sawtooth whose peak is W, i.e. 3W/4 per RTT:
//!   `Tc = B · RTT / (0.75 · W)` (paper §3.2; FujiZ's ns-3 `d2tcp-socket.cc` computes the same).
//!   B = flow size − `snd_una` (bytes not yet acknowledged — remaining, never the total size),
//!   W = cwnd in bytes, RTT = the sender's smoothed RTT (RFC 6298 SRTT). Both B and W are bytes,
//!   Tc and D picoseconds.
//! * **D** — time left until the flow's absolute deadline, `deadline − now`.
//! * d is clamped to **[0.5, 2]** (paper §3.2); a deadline already passed (D ≤ 0) gives d = 2.
//!   Flows **without a deadline use d = 1**, i.e. exactly DCTCP.
//!
//! Direction (a classic inversion bug): α ≤ 1, so a near-deadline flow (d > 1) gets p = α^d
//! *smaller* than α and backs off *less*; a far-deadline flow (d < 1) gets a larger p and backs
//! off more.
//!
//! ## Parameters
//!
//! `transport.protocol = "d2tcp"` takes every key of `dctcp` (`dctcp_g`, `dctcp_init_alpha`
//! and the TCP keys) with the same defaults, and the same default marking threshold of the
//! ports (`topology.ecn_k_pkts`). D2TCP itself adds:
//!
//! | key | default | source |
//! |---|---|---|
//! | `d2tcp_d_min` | 0.5 | paper §3.2 (lower clamp of d) |
//! | `d2tcp_d_max` | 2.0 | paper §3.2 (upper clamp of d) |
//!
//! They are refused for any other protocol. Deadlines come from the workload (`deadline` or the
//! flow file's `deadline_s`).
//!
//! ## Choices where the paper is silent
//!
//! * **When d is computed.** Once per window: at the window's single ECE cut (the cut happens at
//!   most once per observation window, see the DCTCP choices), with the α of that moment, the
//!   current cwnd, SRTT and remaining bytes. No per-ACK recomputation from noisy samples.
//! * **Flows are not killed at their deadline**: a late flow keeps sending with d = 2 (the
//!   paper's behaviour as we read it; FujiZ's ns-3 closes the socket instead). Whether it met
//!   its deadline is for the metrics to say.
//! * **No RTT sample yet** (cannot happen after the handshake, kept for safety): d = 1.

use crate::protocols::tcp::cc::{Ack, CongestionControl, Conn, Dctcp, Window};
use crate::units::Time;

pub const DEFAULT_D_MIN: f64 = 0.5;
pub const DEFAULT_D_MAX: f64 = 2.0;

/// D2TCP's congestion controller ([`crate::protocols::tcp::cc`]): DCTCP's hooks and state,
/// with the cut's α replaced by this flow's [`Penalty`].
#[derive(Clone, Debug)]
pub struct D2tcp {
    dctcp: Dctcp,
    penalty: Penalty,
}

impl D2tcp {
    /// `deadline` is the flow's absolute deadline (`None`: plain DCTCP); `[d_min, d_max]` the
    /// clamp of d.
    pub fn new(dctcp: Dctcp, deadline: Option<Time>, d_min: f64, d_max: f64) -> D2tcp {
        D2tcp {
            dctcp,
            penalty: Penalty {
                deadline,
                d_min,
                d_max,
            },
        }
    }

    /// The DCTCP state underneath (α, counters).
    pub fn dctcp(&self) -> &Dctcp {
        &self.dctcp
    }
}

impl CongestionControl for D2tcp {
    #[inline]
    fn on_ack(&mut self, c: &Conn, a: Ack, w: &mut Window) {
        let pen = self.penalty;
        self.dctcp.on_ack_with(c, a, w, |alpha, cwnd| {
            pen.penalty(alpha, c.now, c.remaining(), cwnd, c.srtt)
        });
    }

    #[inline]
    fn on_dupack(&mut self, c: &Conn, ece: bool, w: &mut Window) {
        let pen = self.penalty;
        self.dctcp.on_dupack_with(c, ece, w, |alpha, cwnd| {
            pen.penalty(alpha, c.now, c.remaining(), cwnd, c.srtt)
        });
    }

    #[inline]
    fn on_fast_retransmit(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        self.dctcp.on_fast_retransmit(c, flight, w);
    }

    #[inline]
    fn on_timeout(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        self.dctcp.on_timeout(c, flight, w);
    }

    #[inline]
    fn ect(&self) -> bool {
        true
    }
}

/// The deadline-imminence penalty of one flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penalty {
    /// Absolute deadline of the flow; `None` behaves as DCTCP (d = 1).
    pub deadline: Option<Time>,
    pub d_min: f64,
    pub d_max: f64,
}

impl Penalty {
    /// The deadline imminence factor d at `now` (see the module doc).
    pub fn imminence(&self, now: Time, remaining: u64, cwnd: u64, srtt: Option<Time>) -> f64 {
        let (Some(deadline), Some(rtt)) = (self.deadline, srtt) else {
            return 1.0;
        };
        if deadline <= now {
            return self.d_max;
        }
        let time_left = (deadline - now).ps() as f64;
        let tc = remaining as f64 * rtt.ps() as f64 / (0.75 * cwnd.max(1) as f64);
        (tc / time_left).clamp(self.d_min, self.d_max)
    }

    /// The penalty p = α^d that replaces α in DCTCP's cut `W ← W·(1 − p/2)`.
    pub fn penalty(
        &self,
        alpha: f64,
        now: Time,
        remaining: u64,
        cwnd: u64,
        srtt: Option<Time>,
    ) -> f64 {
        alpha.powf(self.imminence(now, remaining, cwnd, srtt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d2(deadline_us: Option<u64>) -> Penalty {
        Penalty {
            deadline: deadline_us.map(Time::from_us),
            d_min: DEFAULT_D_MIN,
            d_max: DEFAULT_D_MAX,
        }
    }

    #[test]
    fn imminence_is_tc_over_d_hand_computed() {
        // B = 146 000 B, W = 14 600 B, RTT = 100 µs: Tc = 146000·100/(0.75·14600) = 1333.3 µs.
        let rtt = Some(Time::from_us(100));
        let at = |deadline_us| d2(Some(deadline_us)).imminence(Time::ZERO, 146_000, 14_600, rtt);
        assert!((at(1000) - 1.333_333).abs() < 1e-5, "{}", at(1000));
        assert!((at(2000) - 0.666_667).abs() < 1e-5);
        // Clamped at both ends; a passed deadline is the most imminent.
        assert_eq!(at(100_000), 0.5);
        assert_eq!(at(100), 2.0);
        assert_eq!(d2(Some(5)).imminence(Time::from_us(6), 1, 1, rtt), 2.0);
        // No deadline: plain DCTCP.
        assert_eq!(d2(None).imminence(Time::ZERO, 146_000, 14_600, rtt), 1.0);
    }

    #[test]
    fn near_deadline_backs_off_less_than_far_deadline() {
        let rtt = Some(Time::from_us(100));
        let alpha = 0.5;
        let p = |deadline_us| d2(deadline_us).penalty(alpha, Time::ZERO, 146_000, 14_600, rtt);
        let (near, none, far) = (p(Some(100)), p(None), p(Some(100_000)));
        // d = 2 → 0.25, d = 1 → 0.5, d = 0.5 → 0.7071.
        assert!((near - 0.25).abs() < 1e-12);
        assert!((none - 0.5).abs() < 1e-12);
        assert!((far - 0.5f64.sqrt()).abs() < 1e-12);
        assert!(near < none && none < far);
    }
}
