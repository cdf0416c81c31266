//! The TCP sender: handshake, NewReno congestion control and loss recovery, RFC 6298 timer,
//! and, for DCTCP, the α estimator and the α-proportional window cut.
//!
//! Sequence space: data bytes are numbered from 0; `snd_una ≤ snd_nxt ≤ snd_max ≤ size`.
//! `snd_nxt` is the next byte to send and falls back to `snd_una` on a timeout (go-back-N);
//! `snd_max` is one past the highest byte ever sent. Every segment starts at a multiple of the
//! MSS, and cumulative ACKs land on those boundaries, so a retransmission at `snd_una` is
//! always exactly one original segment.

use super::rto::RttEstimator;
use super::TcpParams;
use crate::net::packet::{Ecn, FlowId, HostId, Packet, PacketKind};
use crate::protocols::{EndpointEvent, FlowSetup, SenderStats};
use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Created; `start` not called yet.
    Idle,
    SynSent,
    Established,
    /// Every byte acknowledged: no timers, no packets, ever again.
    Done,
}

/// DCTCP sender state (Alizadeh et al. §3.1; RFC 8257 §3.3).
#[derive(Clone, Debug)]
struct Dctcp {
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

pub struct TcpSender {
    flow: FlowId,
    src: HostId,
    dst: HostId,
    path_key: u32,
    size: u64,
    header: u32,
    mss: u64,
    dupack_threshold: u32,
    limited_transmit: bool,
    /// Receiver window in bytes; `u64::MAX` when unlimited.
    rwnd: u64,
    dctcp: Option<Dctcp>,

    state: State,
    syn_pending: bool,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Congestion window and slow-start threshold, in bytes.
    cwnd: u64,
    ssthresh: u64,
    dupacks: u32,
    /// Bytes sent beyond cwnd by limited transmit since the last new ACK (RFC 3042); they
    /// do not count in the FlightSize that sets ssthresh (RFC 5681 §3.2 step 2).
    limited_bytes: u64,
    in_recovery: bool,
    /// RFC 6582 `recover` of the current fast recovery, as one past the highest byte sent
    /// when it began: an ACK ≥ this is a full ACK.
    recover: u64,
    /// `recover` as set by the last timeout: fast retransmit is allowed only for dupACKs whose
    /// ACK covers more than it (RFC 6582 §3.2 step 2).
    rto_recover: Option<u64>,
    first_partial_seen: bool,
    /// A segment (by first byte) to retransmit before any new data.
    retx_pending: Option<u64>,
    rtt: RttEstimator,
    deadline: Option<Time>,
    /// D2TCP: the flow's deadline and the clamp of d; `None` for NewReno and DCTCP.
    d2tcp: Option<crate::protocols::d2tcp::D2tcp>,
    event: Option<EndpointEvent>,
    stats: SenderStats,
}

impl TcpSender {
    pub fn new(p: &TcpParams, f: &FlowSetup) -> TcpSender {
        let mss = p.mss as u64;
        TcpSender {
            flow: f.flow,
            src: f.src,
            dst: f.dst,
            path_key: f.path_key,
            size: f.size,
            header: p.header,
            mss,
            dupack_threshold: p.dupack_threshold,
            limited_transmit: p.limited_transmit,
            rwnd: p.rwnd_pkts.map_or(u64::MAX, |w| w as u64 * mss),
            dctcp: p.dctcp.then_some(Dctcp {
                alpha: p.dctcp_init_alpha,
                g: p.dctcp_g,
                bytes_acked: 0,
                bytes_marked: 0,
                window_end: None,
                reduced: false,
                windows: 0,
                cuts: 0,
            }),
            state: State::Idle,
            syn_pending: false,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: p.init_cwnd_pkts as u64 * mss,
            // RFC 5681 §3.1: "arbitrarily high".
            ssthresh: u64::MAX,
            dupacks: 0,
            limited_bytes: 0,
            in_recovery: false,
            recover: 0,
            rto_recover: None,
            first_partial_seen: false,
            retx_pending: None,
            rtt: RttEstimator::new(p.initial_rto, p.min_rto, p.max_rto),
            deadline: None,
            d2tcp: p
                .d2tcp
                .map(|(d_min, d_max)| crate::protocols::d2tcp::D2tcp {
                    deadline: f.deadline,
                    d_min,
                    d_max,
                }),
            event: None,
            stats: SenderStats::default(),
        }
    }

    /// Opens the connection: queues the SYN and arms the timer that retransmits it.
    pub fn start(&mut self, now: Time) {
        if self.state != State::Idle {
            return;
        }
        self.state = State::SynSent;
        self.syn_pending = true;
        self.deadline = Some(now + self.rtt.rto());
    }

    pub fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        match (self.state, pkt.kind) {
            (State::SynSent, PacketKind::SynAck) => {
                // The echo names the SYN transmission that was answered, so the sample is
                // valid even after a SYN retransmission.
                self.rtt.on_sample(now.saturating_sub(pkt.ts_echo));
                self.state = State::Established;
                self.syn_pending = false;
                self.deadline = None;
                if self.snd_una >= self.size {
                    self.finish();
                }
            }
            (State::Established, PacketKind::Ack) => self.on_ack(now, pkt),
            // Duplicate SYN-ACKs, stray ACKs, anything after Done.
            _ => {}
        }
    }

    pub fn handle_timeout(&mut self, now: Time) {
        // Timers are cancelled lazily by the engine: an early or stale call is ignored.
        match self.deadline {
            Some(d) if now >= d => {}
            _ => return,
        }
        match self.state {
            State::SynSent => {
                self.stats.timeouts += 1;
                self.syn_pending = true;
                self.rtt.back_off();
                self.deadline = Some(now + self.rtt.rto());
            }
            State::Established if self.snd_max > self.snd_una => self.on_rto(now),
            _ => self.deadline = None,
        }
    }

    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        match self.state {
            State::SynSent if self.syn_pending => {
                self.syn_pending = false;
                Some(self.packet(now, PacketKind::Syn, 0, 0, Ecn::NotEct, false))
            }
            State::Established => {
                // A fast or partial-ACK retransmission goes out at once, outside the window
                // check (RFC 5681 §3.2 step 4; RFC 6582 §3.2 step 4).
                if let Some(seq) = self.retx_pending.take() {
                    if seq >= self.snd_una && seq < self.snd_max {
                        return Some(self.data(now, seq, true));
                    }
                }
                if self.snd_nxt >= self.size {
                    return None;
                }
                let payload = self.mss.min(self.size - self.snd_nxt);
                let window = self.cwnd.min(self.rwnd);
                let flight_after = self.snd_nxt - self.snd_una + payload;
                if flight_after > window {
                    // RFC 3042: on the first dupACKs one new segment each, while FlightSize
                    // stays ≤ cwnd + (dupACKs)·SMSS, within the receiver's window.
                    let extra = self.limited_transmit_allowance();
                    if flight_after > self.cwnd + extra || flight_after > self.rwnd {
                        return None;
                    }
                    self.limited_bytes += payload;
                }
                let seq = self.snd_nxt;
                // Below snd_max only after a go-back-N restart: then it is a resend.
                let retransmit = seq < self.snd_max;
                self.snd_nxt += payload;
                self.snd_max = self.snd_max.max(self.snd_nxt);
                Some(self.data(now, seq, retransmit))
            }
            _ => None,
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.deadline
    }

    pub fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.event.take()
    }

    pub fn stats(&self) -> SenderStats {
        self.stats
    }

    /// Bytes sent and not yet cumulatively acknowledged (`snd_max − snd_una`). After a
    /// timeout this still counts the old copies that may be in the network.
    pub fn bytes_in_flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// Congestion window in bytes (for time series).
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// Slow-start threshold in bytes (`u64::MAX` until the first reduction).
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    pub fn srtt(&self) -> Option<Time> {
        self.rtt.srtt()
    }

    /// DCTCP's α, or `None` for plain TCP.
    pub fn dctcp_alpha(&self) -> Option<f64> {
        self.dctcp.as_ref().map(|d| d.alpha)
    }

    /// DCTCP: (observation windows completed, ECE window cuts made).
    pub fn dctcp_counters(&self) -> (u64, u64) {
        self.dctcp.as_ref().map_or((0, 0), |d| (d.windows, d.cuts))
    }

    // ----------------------------------------------------------------------------------------

    fn on_ack(&mut self, now: Time, pkt: &Packet) {
        let ack = pkt.ack;
        if ack > self.snd_max {
            return; // acknowledges bytes never sent: not from our receiver
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack, pkt);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_dupack(now, ack, pkt.ece);
        }
        // ack < snd_una: an old, reordered ACK; it carries nothing new.
    }

    fn on_new_ack(&mut self, now: Time, ack: u64, pkt: &Packet) {
        let newly = ack - self.snd_una;
        // Timestamp RTT sample (RFC 7323 §4): the echo identifies the transmission that
        // triggered this ACK, so it is valid for retransmissions too and Karn's rule is not
        // needed. One sample per ACK that advances snd_una.
        self.rtt.on_sample(now.saturating_sub(pkt.ts_echo));
        self.snd_una = ack;
        self.limited_bytes = 0;
        // After a go-back-N restart the receiver may already hold what we were about to resend.
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dctcp_account(newly, pkt.ece);

        if self.snd_una >= self.size {
            self.finish();
            return;
        }

        if self.in_recovery {
            if ack >= self.recover {
                // Full ACK (RFC 6582 §3.2 step 3, first option).
                let flight = self.snd_max - self.snd_una;
                self.cwnd = self.ssthresh.min(flight.max(self.mss) + self.mss);
                self.in_recovery = false;
                self.dupacks = 0;
                self.restart_timer(now);
            } else {
                // Partial ACK (RFC 6582 §3.2 step 3): retransmit the next hole, deflate by
                // the bytes acked, add back one SMSS if at least one was acked, stay in
                // recovery; the timer restarts only on the first partial ACK.
                self.retx_pending = Some(self.snd_una);
                self.cwnd = self.cwnd.saturating_sub(newly);
                if newly >= self.mss {
                    self.cwnd += self.mss;
                }
                // Not in the RFC: never below one segment, so the sender cannot stall.
                self.cwnd = self.cwnd.max(self.mss);
                if !self.first_partial_seen {
                    self.first_partial_seen = true;
                    self.restart_timer(now);
                }
            }
            return;
        }

        self.dupacks = 0;
        // An ACK that triggers the DCTCP cut does not also grow the window.
        if !(pkt.ece && self.dctcp_cut(now)) {
            if self.cwnd < self.ssthresh {
                // Slow start with Appropriate Byte Counting, L = 1 SMSS (RFC 5681 §3.1, RFC 3465).
                self.cwnd += newly.min(self.mss);
            } else {
                // Congestion avoidance, RFC 5681 eq. (3); at least 1 byte per ACK.
                self.cwnd += (self.mss * self.mss / self.cwnd).max(1);
            }
        }
        self.restart_timer(now);
    }

    /// Bytes limited transmit lets the flight exceed cwnd by now: one SMSS per duplicate ACK
    /// below the fast-retransmit threshold, outside recovery and go-back-N.
    fn limited_transmit_allowance(&self) -> u64 {
        let eligible = self.limited_transmit
            && !self.in_recovery
            && self.dupacks < self.dupack_threshold
            && self.snd_nxt == self.snd_max;
        if eligible {
            self.dupacks as u64 * self.mss
        } else {
            0
        }
    }

    fn on_dupack(&mut self, now: Time, ack: u64, ece: bool) {
        self.dupacks += 1;
        if self.in_recovery {
            // Window inflation: each dupACK means a segment has left the network
            // (RFC 5681 §3.2 step 5). No DCTCP cut inside a loss recovery.
            self.cwnd += self.mss;
            return;
        }
        if self.dupacks == self.dupack_threshold && self.rto_recover.is_none_or(|r| ack > r) {
            self.enter_fast_recovery();
        } else if ece {
            self.dctcp_cut(now);
        }
    }

    fn enter_fast_recovery(&mut self) {
        // DCTCP reduces once per window across all congestion signals (RFC 8257 §3.5, RFC
        // 3168 §6.1.2): after a reduction in this window (an ECN cut, typically), a loss keeps
        // its ssthresh.
        let reduced_this_window = self.dctcp.as_ref().is_some_and(|d| d.reduced);
        if !reduced_this_window {
            let flight = self.snd_max - self.snd_una - self.limited_bytes;
            self.ssthresh = (flight / 2).max(2 * self.mss);
        }
        self.cwnd = self.ssthresh + self.dupack_threshold as u64 * self.mss;
        self.recover = self.snd_max;
        self.in_recovery = true;
        self.first_partial_seen = false;
        self.retx_pending = Some(self.snd_una);
        self.stats.fast_retransmits += 1;
        self.mark_reduced();
    }

    /// Retransmission timeout (RFC 6298 §5.4–5.6, RFC 5681 §3.1 eq. (4)).
    fn on_rto(&mut self, now: Time) {
        self.stats.timeouts += 1;
        let flight = self.snd_max - self.snd_una;
        let mut ssthresh = (flight / 2).max(2 * self.mss);
        if self.in_recovery {
            // Eq. (4) is an upper bound ("no more than FlightSize/2"). Inside a fast recovery
            // FlightSize holds everything the inflated window let out, after a loss storm
            // several times what the path holds, so keep the recovery's lower ssthresh (Linux's
            // tcp_enter_loss keeps it too).
            ssthresh = ssthresh.min(self.ssthresh);
        }
        self.ssthresh = ssthresh;
        self.cwnd = self.mss;
        self.rto_recover = Some(self.snd_max);
        self.in_recovery = false;
        self.dupacks = 0;
        // Go-back-N: resend everything from snd_una, paced by slow start. The first segment
        // goes out through the ordinary send path (cwnd = 1 SMSS allows exactly it).
        self.snd_nxt = self.snd_una;
        self.retx_pending = None;
        self.mark_reduced();
        self.rtt.back_off();
        self.deadline = Some(now + self.rtt.rto());
    }

    fn restart_timer(&mut self, now: Time) {
        self.deadline = (self.snd_max > self.snd_una).then(|| now + self.rtt.rto());
    }

    fn finish(&mut self) {
        self.state = State::Done;
        self.deadline = None;
        self.retx_pending = None;
        self.in_recovery = false;
        self.event = Some(EndpointEvent::SenderDone);
    }

    /// Builds the data segment starting at `seq` and does the per-transmission bookkeeping.
    fn data(&mut self, now: Time, seq: u64, retransmit: bool) -> Packet {
        let payload = self.mss.min(self.size - seq) as u32;
        self.stats.data_packets_sent += 1;
        if retransmit {
            self.stats.retransmits += 1;
        }
        // RFC 6298 §5.1: start the timer when data goes out and it is not running.
        if self.deadline.is_none() {
            self.deadline = Some(now + self.rtt.rto());
        }
        let ecn = if self.dctcp.is_some() {
            Ecn::Ect
        } else {
            Ecn::NotEct
        };
        self.packet(now, PacketKind::Data, seq, payload, ecn, retransmit)
    }

    fn packet(
        &self,
        now: Time,
        kind: PacketKind,
        seq: u64,
        payload: u32,
        ecn: Ecn,
        retransmit: bool,
    ) -> Packet {
        Packet {
            flow: self.flow,
            src: self.src,
            dst: self.dst,
            path_key: self.path_key,
            kind,
            seq,
            payload,
            size: payload + self.header,
            ecn,
            retransmit,
            ts: now,
            ..Default::default()
        }
    }

    // --- DCTCP ------------------------------------------------------------------------------

    /// Per-ACK accounting and the once-per-window α update (RFC 8257 §3.3 steps 2–9).
    fn dctcp_account(&mut self, newly: u64, ece: bool) {
        let snd_una = self.snd_una;
        let snd_nxt = self.snd_nxt;
        let Some(d) = self.dctcp.as_mut() else {
            return;
        };
        // The first observation window is the initial flight: it starts with the first ACK.
        let end = *d.window_end.get_or_insert(snd_nxt);
        d.bytes_acked += newly;
        if ece {
            d.bytes_marked += newly;
        }
        if snd_una >= end {
            let f = if d.bytes_acked > 0 {
                d.bytes_marked as f64 / d.bytes_acked as f64
            } else {
                0.0
            };
            d.alpha = (1.0 - d.g) * d.alpha + d.g * f;
            d.bytes_acked = 0;
            d.bytes_marked = 0;
            d.window_end = Some(snd_nxt);
            d.reduced = false;
            d.windows += 1;
        }
    }

    /// The ECE reaction: `cwnd ← cwnd·(1 − α/2)` at most once per window, ssthresh set to
    /// the same but not below 2 SMSS, no retransmission. Returns whether it cut. D2TCP uses
    /// the penalty α^d in place of α (see [`crate::protocols::d2tcp`]).
    fn dctcp_cut(&mut self, now: Time) -> bool {
        let mss = self.mss;
        let remaining = self.size - self.snd_una;
        let srtt = self.rtt.srtt();
        let Some(d) = self.dctcp.as_mut() else {
            return false;
        };
        if d.reduced {
            return false;
        }
        let p = match &self.d2tcp {
            Some(d2) => d2.penalty(d.alpha, now, remaining, self.cwnd, srtt),
            None => d.alpha,
        };
        let target = (self.cwnd as f64 * (1.0 - p / 2.0)) as u64;
        self.ssthresh = target.max(2 * mss);
        self.cwnd = self.cwnd.min(self.ssthresh);
        d.reduced = true;
        d.cuts += 1;
        true
    }

    /// A loss reaction counts as this window's reduction (RFC 3168 §6.1.2: at most one
    /// window reduction per RTT for loss and ECN together).
    fn mark_reduced(&mut self) {
        if let Some(d) = self.dctcp.as_mut() {
            d.reduced = true;
        }
    }
}
