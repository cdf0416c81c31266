//! MCP's window policy: eqs. (10) and (11) once per RTT (see the module doc of [`super`] for
//! the reading of each term and its units).

use super::{price, McpHeader, McpParams};
use crate::net::packet::Header;
use crate::protocols::tcp::cc::{newreno, Ack, CongestionControl, Conn, Dctcp, Window};
use crate::protocols::tcp::TcpParams;
use crate::protocols::FlowSetup;
use crate::units::Time;

/// MCP's state for one flow.
#[derive(Clone, Debug)]
pub struct Mcp {
    opt: bool,
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
    /// The update's window: it ends when `snd_una` reaches `window_end`; bytes acknowledged in
    /// it and those whose ACK echoed CE.
    window_end: Option<u64>,
    acked: u64,
    marked: u64,
    /// Z, the virtual queue (packets per RTT).
    z: f64,
    /// F·W of the previous update (approx), for the load estimate.
    prev_fw: f64,
    /// The latest Σ Q and Σ λ the path's switches stamped (opt).
    path: McpHeader,
    abort: bool,
    /// Updates made, for tests and diagnostics.
    pub updates: u64,
}

impl Mcp {
    pub fn new(m: &McpParams, p: &TcpParams, f: &FlowSetup) -> Mcp {
        let mss = p.mss as f64;
        Mcp {
            opt: m.opt,
            deadline: f.deadline,
            fallback: f.deadline.is_none().then(|| Dctcp::new(p)),
            mss,
            packet: mss + p.header as f64,
            bottleneck_bps: f.path.bottleneck.bits_per_sec() as f64,
            fastest_bps: f.path.fastest.bits_per_sec() as f64,
            k_pkts: f.path.ecn_k_pkts.unwrap_or(0) as f64,
            window_end: None,
            acked: 0,
            marked: 0,
            z: 0.0,
            prev_fw: 0.0,
            path: McpHeader::default(),
            abort: false,
            updates: 0,
        }
    }

    /// DCTCP's state, for a flow without deadline.
    pub fn fallback(&self) -> Option<&Dctcp> {
        self.fallback.as_ref()
    }

    /// The virtual queue Z (packets per RTT).
    pub fn virtual_queue(&self) -> f64 {
        self.z
    }

    /// Seconds to the deadline, if any is left (none without a deadline).
    fn time_left(&self, now: Time) -> Option<f64> {
        let d = self.deadline?;
        (d > now).then(|| (d - now).as_secs_f64())
    }

    /// A link of `bps` in packets per RTT of `tau` seconds.
    fn pkts_per_rtt(&self, bps: f64, tau: f64) -> f64 {
        bps / 8.0 * tau / self.packet
    }

    /// §4.2: a flow ends when its deadline has passed or it needs more than the fastest link
    /// on its path could give (module doc). Returns the expected rate γ (bytes/s) otherwise.
    fn expected_rate(&mut self, c: &Conn) -> Option<f64> {
        let gamma = c.remaining() as f64 / self.time_left(c.now)?;
        (gamma * 8.0 <= self.fastest_bps).then_some(gamma)
    }

    /// The once-per-RTT update, eq. (10) or (11), outside a fast recovery.
    fn update(&mut self, c: &Conn, gamma: f64, w: &mut Window) {
        let Some(srtt) = c.srtt else { return };
        let tau = srtt.as_secs_f64();
        let wnd = w.cwnd as f64 / self.mss;
        // The rate x is the whole segments the window lets fly: the sender sends a segment only
        // when it fits, so a window of 5.7 packets carries 5 per RTT (module doc, "Window").
        let x = wnd.floor().max(1.0);
        let gamma = gamma * tau / self.mss;
        self.z = (self.z + gamma - x).max(0.0);
        let source = self.z * gamma / (x * x);
        let network = if self.opt {
            let per_rtt = self.packet / tau;
            self.path.queue_pkts as f64 + self.path.price as f64 * per_rtt * per_rtt
        } else {
            let f = if self.acked > 0 {
                self.marked as f64 / self.acked as f64
            } else {
                0.0
            };
            let fw = f * x;
            let queue = if f > 0.0 { self.k_pkts + fw } else { 0.0 };
            let growth = fw - self.prev_fw;
            self.prev_fw = fw;
            queue + price(self.pkts_per_rtt(self.bottleneck_bps, tau), growth)
        };
        // At least one packet, at most twice the last window: more would leave as a line-rate
        // burst that no round of ACKs clocked (slow start's bound too).
        let next = (wnd + source - network).clamp(1.0, 2.0 * wnd.max(1.0));
        w.cwnd = (next * self.mss).round() as u64;
        w.ssthresh = w.cwnd;
        self.updates += 1;
    }
}

impl CongestionControl for Mcp {
    /// The initial window τ·γ(0), from the handshake's RTT sample (§4.1); a flow that needs
    /// more than the fastest link on its path ends at once.
    fn on_established(&mut self, c: &Conn, w: &mut Window) {
        if self.fallback.is_some() {
            return;
        }
        match (self.time_left(c.now), c.srtt) {
            (Some(left), Some(_)) if c.size as f64 * 8.0 / left > self.fastest_bps => {
                self.abort = true;
            }
            (Some(left), Some(rtt)) => {
                let bytes = c.size as f64 / left * rtt.as_secs_f64();
                w.cwnd = (bytes.round() as u64).max(c.mss);
                w.ssthresh = w.cwnd;
            }
            _ => self.abort = true,
        }
    }

    fn on_ack(&mut self, c: &Conn, a: Ack, w: &mut Window) {
        if let Some(d) = self.fallback.as_mut() {
            return d.on_ack(c, a, w);
        }
        if let Header::Mcp(h) = a.header {
            self.path = h;
        }
        let end = *self.window_end.get_or_insert(c.snd_nxt);
        self.acked += a.newly_acked;
        if a.ece {
            self.marked += a.newly_acked;
        }
        if c.snd_una >= end && !c.all_acked() {
            match self.expected_rate(c) {
                None => self.abort = true,
                Some(gamma) if !c.in_recovery => self.update(c, gamma, w),
                Some(_) => {}
            }
            self.window_end = Some(c.snd_nxt);
            self.acked = 0;
            self.marked = 0;
        }
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
                if self.expected_rate(c).is_none() {
                    self.abort = true;
                }
            }
        }
    }

    fn ect(&self) -> bool {
        true
    }

    fn wants_abort(&self, _now: Time) -> bool {
        self.abort
    }

    /// `opt`: data packets carry the field the switches add their queue and price to.
    fn data_header(&self) -> Header {
        if self.opt && self.fallback.is_none() {
            Header::Mcp(McpHeader::default())
        } else {
            Header::None
        }
    }
}
