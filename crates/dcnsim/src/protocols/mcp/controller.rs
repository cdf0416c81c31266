//! MCP's window policy: eqs. (10) and (11) once per RTT (see the module doc of [`super`] for
//! the reading of each term and its units).

use super::{price, AbortRule, McpHeader, McpParams};
use crate::net::header::Header;
use crate::protocols::tcp::cc::{newreno, Ack, CongestionControl, Conn, Dctcp, Window};
use crate::protocols::tcp::TcpParams;
use crate::protocols::FlowSetup;
use crate::units::Time;

/// Where the update's window of packets stands. A window starts at an update (or the
/// handshake) and covers the data sent after it: the first ACK that finds `snd_nxt` past
/// `mark` opens it up to that `snd_nxt`, and the ACK that reaches it closes it.
#[derive(Clone, Copy, Debug)]
enum Round {
    /// Since `since`, nothing sent after `mark` yet seen.
    Waiting { since: Time, mark: u64 },
    /// Ends when `snd_una` reaches `end`.
    Open { since: Time, end: u64 },
}

/// MCP's state for one flow.
#[derive(Clone, Debug)]
pub struct Mcp {
    opt: bool,
    abort: AbortRule,
    aim_early: bool,
    /// Absolute deadline; flows without one run `fallback` (DCTCP).
    deadline: Option<Time>,
    fallback: Option<Dctcp>,
    /// Payload and wire bytes of a full segment.
    mss: f64,
    packet: f64,
    /// The path's slowest and fastest link (bit/s) and marking threshold (packets).
    bottleneck_bps: f64,
    fastest_bps: f64,
    k_pkts: f64,
    /// The window W in packets, with its fraction; the sender's cwnd is W rounded up to whole
    /// segments (`cwnd_set`, what we last wrote: a cwnd that differs was set by loss recovery).
    w: f64,
    cwnd_set: u64,
    round: Round,
    /// The window's expected amount, fixed at its start: γ (bytes/s) and the bytes left then
    /// (no window is expected to carry more).
    gamma: f64,
    remaining: f64,
    /// Bytes acknowledged since the window started, and those whose ACK echoed CE.
    acked: u64,
    marked: u64,
    /// Z, the virtual queue (packets): how far the flow is behind its expected rate.
    z: f64,
    /// F·x of the previous update (approx), for the load estimate.
    prev_fx: f64,
    /// The latest Σ Q and Σ λ the path's switches stamped (opt).
    path: McpHeader,
    wants_abort: bool,
    /// Updates made, for tests and diagnostics.
    pub updates: u64,
}

impl Mcp {
    pub fn new(m: &McpParams, p: &TcpParams, f: &FlowSetup) -> Mcp {
        let mss = p.mss as f64;
        Mcp {
            opt: m.opt,
            abort: m.abort,
            aim_early: m.aim_early,
            deadline: f.deadline,
            fallback: f.deadline.is_none().then(|| Dctcp::new(p)),
            mss,
            packet: mss + p.header as f64,
            bottleneck_bps: f.path.bottleneck.bits_per_sec() as f64,
            fastest_bps: f.path.fastest.bits_per_sec() as f64,
            k_pkts: f.path.ecn_k_pkts.unwrap_or(0) as f64,
            w: 1.0,
            cwnd_set: 0,
            round: Round::Waiting {
                since: Time::ZERO,
                mark: 0,
            },
            gamma: 0.0,
            remaining: 0.0,
            acked: 0,
            marked: 0,
            z: 0.0,
            prev_fx: 0.0,
            path: McpHeader::default(),
            wants_abort: false,
            updates: 0,
        }
    }

    /// DCTCP's state, for a flow without deadline.
    pub fn fallback(&self) -> Option<&Dctcp> {
        self.fallback.as_ref()
    }

    /// The virtual queue Z (packets).
    pub fn virtual_queue(&self) -> f64 {
        self.z
    }

    /// The window W (packets, with its fraction).
    pub fn window_pkts(&self) -> f64 {
        self.w
    }

    /// Seconds to the deadline, if any is left (none without a deadline).
    fn time_left(&self, now: Time) -> Option<f64> {
        let d = self.deadline?;
        (d > now).then(|| (d - now).as_secs_f64())
    }

    /// The expected rate γ (bytes/s): the remaining bytes over the time left, aimed one RTT
    /// before the deadline unless `mcp_aim = "deadline"` (module doc). With less than two
    /// RTTs left it asks for everything in the next RTT.
    fn expected_rate(&self, remaining: u64, left: f64, rtt: f64) -> f64 {
        let aim = if self.aim_early {
            (left - rtt).max(rtt).min(left)
        } else {
            left
        };
        remaining as f64 / aim
    }

    /// Sets W and the sender's window: whole segments, W rounded up.
    fn set_window(&mut self, pkts: f64, w: &mut Window) {
        self.w = pkts;
        // The 1e-9 keeps an exact whole number from rounding up by a float's last bit.
        w.cwnd = (pkts - 1e-9).ceil().max(1.0) as u64 * self.mss as u64;
        w.ssthresh = w.cwnd;
        self.cwnd_set = w.cwnd;
    }

    /// §4.2, in the units the module doc gives: the flow is further behind than the fastest
    /// link on its path could carry in `span` seconds.
    fn too_far_behind(&self, left: f64, tau: f64) -> bool {
        let span = match self.abort {
            AbortRule::Deficit => left,
            AbortRule::PerRtt => tau,
        };
        self.z * self.packet > self.fastest_bps / 8.0 * span
    }

    /// The once-per-RTT update, eq. (10) or (11), at the ACK that closed a window of `tau`
    /// seconds, outside a fast recovery.
    fn update(&mut self, c: &Conn, left: f64, tau: f64, w: &mut Window) {
        // The sender set the window itself since our last update (a loss): start from it.
        let wnd = if w.cwnd == self.cwnd_set {
            self.w
        } else {
            w.cwnd as f64 / self.mss
        };
        // The rate x: the packets acknowledged in the window, against γ(t), the rate expected
        // when it started, in packets per window.
        let x = self.acked as f64 / self.mss;
        let gamma = (self.gamma * tau).min(self.remaining) / self.mss;
        // A flow is never further behind than all it has left.
        self.z = (self.z + gamma - x).clamp(0.0, c.remaining() as f64 / self.mss);
        if self.too_far_behind(left, tau) {
            self.wants_abort = true;
            return;
        }
        let x = x.max(1.0);
        let source = self.z * gamma / (x * x);
        let network = if self.opt {
            let per_window = self.packet / tau;
            self.path.queue_pkts as f64 + self.path.price as f64 * per_window * per_window
        } else {
            let f = if self.acked > 0 {
                self.marked as f64 / self.acked as f64
            } else {
                0.0
            };
            let fx = f * x;
            let queue = if f > 0.0 { self.k_pkts + fx } else { 0.0 };
            let growth = fx - self.prev_fx;
            self.prev_fx = fx;
            let capacity = self.bottleneck_bps / 8.0 * tau / self.packet;
            queue + price(capacity, growth)
        };
        // A step of eq. (9)'s dynamics, bounded to a factor of two either way (module doc,
        // "Window"), and at least one packet.
        let next = (wnd + source - network).clamp((wnd / 2.0).max(1.0), 2.0 * wnd.max(1.0));
        self.set_window(next, w);
        self.updates += 1;
    }

    /// A new window starts now, covering what is sent after `mark`, with the rate expected
    /// of the flow now.
    fn restart(&mut self, c: &Conn, mark: u64) {
        self.round = Round::Waiting { since: c.now, mark };
        self.acked = 0;
        self.marked = 0;
        self.remaining = c.remaining() as f64;
        self.gamma = match (self.time_left(c.now), c.srtt) {
            (Some(left), Some(rtt)) => self.expected_rate(c.remaining(), left, rtt.as_secs_f64()),
            _ => 0.0,
        };
    }
}

impl CongestionControl for Mcp {
    /// The initial window τ·γ(0), with τ the handshake's RTT sample (§4.1), at most the
    /// whole flow; a flow whose packets take longer than the time left at its path's slowest
    /// link ends at once.
    fn on_established(&mut self, c: &Conn, w: &mut Window) {
        if self.fallback.is_some() {
            return;
        }
        let wire_bits = (c.size as f64 / self.mss).ceil() * self.packet * 8.0;
        match (self.time_left(c.now), c.srtt) {
            (Some(left), Some(_)) if wire_bits > self.bottleneck_bps * left => {
                self.wants_abort = true;
            }
            (Some(left), Some(rtt)) => {
                let rtt = rtt.as_secs_f64();
                let bytes = (self.expected_rate(c.size, left, rtt) * rtt).min(c.size as f64);
                self.set_window((bytes / self.mss).max(1.0), w);
                self.restart(c, c.snd_nxt);
            }
            _ => self.wants_abort = true,
        }
    }

    fn on_ack(&mut self, c: &Conn, a: Ack, w: &mut Window) {
        if let Some(d) = self.fallback.as_mut() {
            return d.on_ack(c, a, w);
        }
        if let Some(h) = a.header.read::<McpHeader>() {
            self.path = h;
        }
        self.acked += a.newly_acked;
        if a.ece {
            self.marked += a.newly_acked;
        }
        let (since, end) = match self.round {
            Round::Open { since, end } => (since, end),
            // Data sent since the window started: it runs to the end of that data.
            Round::Waiting { since, mark } if c.snd_nxt > mark => {
                self.round = Round::Open {
                    since,
                    end: c.snd_nxt,
                };
                (since, c.snd_nxt)
            }
            Round::Waiting { .. } => return,
        };
        if c.snd_una < end || c.all_acked() {
            return;
        }
        match self.time_left(c.now) {
            None => self.wants_abort = true,
            // The sender owns the window in a fast recovery: this window runs on until an
            // ACK after it, and its time and shortfall count then.
            Some(_) if c.in_recovery => return,
            Some(left) => {
                let tau = (c.now - since).as_secs_f64();
                self.update(c, left, tau, w)
            }
        }
        self.restart(c, c.snd_nxt);
    }

    fn on_dupack(&mut self, c: &Conn, ece: bool, w: &mut Window) {
        if let Some(d) = self.fallback.as_mut() {
            d.on_dupack(c, ece, w);
        }
    }

    fn on_fast_retransmit(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        match self.fallback.as_mut() {
            Some(d) => d.on_fast_retransmit(c, flight, w),
            None => newreno::halve(c, flight, w),
        }
    }

    fn on_timeout(&mut self, c: &Conn, flight: u64, w: &mut Window) {
        match self.fallback.as_mut() {
            Some(d) => d.on_timeout(c, flight, w),
            None => {
                newreno::timeout(c, flight, w);
                if self.time_left(c.now).is_none() {
                    self.wants_abort = true;
                }
                // Go-back-N resends from snd_una: the window (its time, its count of what
                // arrived) runs on until what is sent from there is acknowledged, as through a
                // fast recovery.
                let (Round::Open { since, .. } | Round::Waiting { since, .. }) = self.round;
                self.round = Round::Waiting {
                    since,
                    mark: c.snd_una,
                };
            }
        }
    }

    fn ect(&self) -> bool {
        true
    }

    /// Also once the deadline has passed: the first packet or timer after it ends the flow.
    /// (A flow without a deadline runs DCTCP and is never given up.)
    fn wants_abort(&self, now: Time) -> bool {
        self.wants_abort || self.deadline.is_some_and(|d| now >= d)
    }

    /// `opt`: data packets carry the field the switches add their queue and price to.
    fn data_header(&self) -> Header {
        if self.opt && self.fallback.is_none() {
            Header::of(McpHeader::default())
        } else {
            Header::NONE
        }
    }
}
