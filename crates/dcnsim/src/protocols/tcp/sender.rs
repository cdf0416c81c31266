//! The TCP sender: handshake, sequence space, loss recovery (RFC 5681 §3.2 fast retransmit and
//! fast recovery, RFC 6582 partial ACKs, RFC 3042 limited transmit) and the RFC 6298 timer. How
//! cwnd and ssthresh move on new ACKs, ECN echoes, fast retransmit and timeouts, and whether
//! data is ECN-capable, is the congestion controller's ([`super::cc`]: NewReno, DCTCP, D2TCP).
//!
//! Sequence space: data bytes are numbered from 0; `snd_una ≤ snd_nxt ≤ snd_max ≤ size`.
//! `snd_nxt` is the next byte to send and falls back to `snd_una` on a timeout (go-back-N);
//! `snd_max` is one past the highest byte ever sent. Every segment starts at a multiple of the
//! MSS, and cumulative ACKs land on those boundaries, so a retransmission at `snd_una` is
//! always exactly one original segment.

use super::cc::{Ack, CongestionControl, Conn, Controller, Window};
use super::rto::RttEstimator;
use super::TcpParams;
use crate::net::packet::{Ecn, FlowId, HostId, Packet, PacketKind};
use crate::protocols::{Endpoint, SenderEndpoint};
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
    /// The window policy (NewReno, DCTCP, D2TCP).
    cc: Controller,

    state: State,
    syn_pending: bool,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Congestion window and slow-start threshold, in bytes: the controller's, except during
    /// a fast recovery, where the sender inflates and deflates cwnd (RFC 5681, RFC 6582).
    win: Window,
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
    event: Option<EndpointEvent>,
    stats: SenderStats,
    /// Cwnd validation as Linux's `tcp_cwnd_validate` (see `cc/newreno.rs`): whether the
    /// window stopped a send in the current window of data, the largest flight sent in it,
    /// and the `snd_nxt` at which that window ends.
    cwnd_limited: bool,
    max_flight: u64,
    usage_end: u64,
}

impl TcpSender {
    pub fn new(p: &TcpParams, f: &FlowSetup) -> TcpSender {
        TcpSender::with_controller(p, f, Controller::new(p, f))
    }

    /// A sender whose window policy is `cc` rather than the one `p` names.
    pub fn with_controller(p: &TcpParams, f: &FlowSetup, cc: Controller) -> TcpSender {
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
            cc,
            state: State::Idle,
            syn_pending: false,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            win: Window {
                cwnd: p.init_cwnd_pkts as u64 * mss,
                // RFC 5681 §3.1: "arbitrarily high".
                ssthresh: u64::MAX,
            },
            dupacks: 0,
            limited_bytes: 0,
            in_recovery: false,
            recover: 0,
            rto_recover: None,
            first_partial_seen: false,
            retx_pending: None,
            rtt: RttEstimator::new(p.initial_rto, p.min_rto, p.max_rto),
            deadline: None,
            event: None,
            stats: SenderStats::default(),
            cwnd_limited: false,
            max_flight: 0,
            usage_end: 0,
        }
    }

    /// Slow-start threshold in bytes (`u64::MAX` until the first reduction).
    pub fn ssthresh(&self) -> u64 {
        self.win.ssthresh
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    pub fn srtt(&self) -> Option<Time> {
        self.rtt.srtt()
    }

    #[cfg(test)]
    pub(crate) fn controller(&self) -> &Controller {
        &self.cc
    }

    /// DCTCP's (and D2TCP's) α, or `None` for plain TCP.
    pub fn dctcp_alpha(&self) -> Option<f64> {
        self.cc.dctcp().map(|d| d.alpha())
    }

    /// DCTCP: (observation windows completed, ECE window cuts made).
    pub fn dctcp_counters(&self) -> (u64, u64) {
        self.cc.dctcp().map_or((0, 0), |d| d.counters())
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
        // The controller sees every new ACK, before the recovery step below: its accounting
        // (DCTCP's α) covers ACKs in recovery too; outside recovery it moves the window.
        let c = self.conn(now);
        let a = Ack {
            newly_acked: newly,
            ece: pkt.ece,
            header: pkt.header,
        };
        self.cc.on_ack(&c, a, &mut self.win);

        if self.snd_una >= self.size {
            self.finish();
            return;
        }

        if self.in_recovery {
            if ack >= self.recover {
                // Full ACK (RFC 6582 §3.2 step 3, first option).
                let flight = self.snd_max - self.snd_una;
                self.win.cwnd = self.win.ssthresh.min(flight.max(self.mss) + self.mss);
                self.in_recovery = false;
                self.dupacks = 0;
                self.restart_timer(now);
            } else {
                // Partial ACK (RFC 6582 §3.2 step 3): retransmit the next hole, deflate by
                // the bytes acked, add back one SMSS if at least one was acked, stay in
                // recovery; the timer restarts only on the first partial ACK.
                self.retx_pending = Some(self.snd_una);
                let w = &mut self.win;
                w.cwnd = w.cwnd.saturating_sub(newly);
                if newly >= self.mss {
                    w.cwnd += self.mss;
                }
                // Not in the RFC: never below one segment, so the sender cannot stall.
                w.cwnd = w.cwnd.max(self.mss);
                if !self.first_partial_seen {
                    self.first_partial_seen = true;
                    self.restart_timer(now);
                }
            }
            return;
        }

        // Outside recovery the controller has already moved the window.
        self.dupacks = 0;
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
            // (RFC 5681 §3.2 step 5). The controller is not asked inside a loss recovery.
            self.win.cwnd += self.mss;
            return;
        }
        if self.dupacks == self.dupack_threshold && self.rto_recover.is_none_or(|r| ack > r) {
            self.enter_fast_recovery(now);
        } else {
            let c = self.conn(now);
            self.cc.on_dupack(&c, ece, &mut self.win);
        }
    }

    fn enter_fast_recovery(&mut self, now: Time) {
        // The controller sets ssthresh from the FlightSize without the limited-transmit
        // segments (RFC 5681 §3.2 step 2); the inflated window is the sender's (step 3).
        let flight = self.snd_max - self.snd_una - self.limited_bytes;
        let c = self.conn(now);
        self.cc.on_fast_retransmit(&c, flight, &mut self.win);
        self.win.cwnd = self.win.ssthresh + self.dupack_threshold as u64 * self.mss;
        self.recover = self.snd_max;
        self.in_recovery = true;
        self.first_partial_seen = false;
        self.retx_pending = Some(self.snd_una);
        self.stats.fast_retransmits += 1;
    }

    /// Retransmission timeout (RFC 6298 §5.4–5.6; the window per RFC 5681 eq. (4) is the
    /// controller's).
    fn on_rto(&mut self, now: Time) {
        self.stats.timeouts += 1;
        let c = self.conn(now);
        self.cc
            .on_timeout(&c, self.snd_max - self.snd_una, &mut self.win);
        self.rto_recover = Some(self.snd_max);
        self.in_recovery = false;
        self.dupacks = 0;
        // Go-back-N: resend everything from snd_una, paced by slow start. The first segment
        // goes out through the ordinary send path (cwnd = 1 SMSS allows exactly it).
        self.snd_nxt = self.snd_una;
        self.retx_pending = None;
        self.rtt.back_off();
        self.deadline = Some(now + self.rtt.rto());
    }

    fn restart_timer(&mut self, now: Time) {
        self.deadline = (self.snd_max > self.snd_una).then(|| now + self.rtt.rto());
    }

    fn finish(&mut self) {
        self.end(EndpointEvent::SenderDone);
    }

    /// Ends the flow when the controller gives up on it (after every packet and timer).
    fn abort_if_asked(&mut self, now: Time) {
        if !matches!(self.state, State::Idle | State::Done) && self.cc.wants_abort(now) {
            self.syn_pending = false;
            self.end(EndpointEvent::Terminated);
        }
    }

    /// No packets and no timers after this; `event` is the last thing the sender reports.
    fn end(&mut self, event: EndpointEvent) {
        self.state = State::Done;
        self.deadline = None;
        self.retx_pending = None;
        self.in_recovery = false;
        self.event = Some(event);
    }

    /// What the controller's hooks see of the connection now.
    fn conn(&self, now: Time) -> Conn {
        Conn {
            now,
            mss: self.mss,
            size: self.size,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            srtt: self.rtt.srtt(),
            in_recovery: self.in_recovery,
            cwnd_limited: self.is_cwnd_limited(),
        }
    }

    /// Linux's `tcp_is_cwnd_limited`: in slow start, while cwnd is below twice the largest
    /// flight of the current window; in congestion avoidance, when the window stopped a send
    /// in it. A sender that is not asked for packets (its host holds one of them for a full
    /// NIC) is never stopped by its window, so its window stops growing.
    fn is_cwnd_limited(&self) -> bool {
        if self.win.cwnd < self.win.ssthresh {
            self.win.cwnd < 2 * self.max_flight
        } else {
            self.cwnd_limited
        }
    }

    /// Linux's `tcp_cwnd_validate`, after a send (`limited` false) or a send the window
    /// refused (`limited` true): a new window of data starts the record afresh; within one,
    /// being limited sticks and the largest flight is kept.
    fn note_window_use(&mut self, limited: bool) {
        let flight = self.snd_nxt - self.snd_una;
        if self.snd_una >= self.usage_end
            || limited
            || (!self.cwnd_limited && flight > self.max_flight)
        {
            self.cwnd_limited = limited;
            self.max_flight = flight;
            self.usage_end = self.snd_nxt;
        }
    }

    /// Builds the data segment starting at `seq` and does the per-transmission bookkeeping.
    #[inline]
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
        let ecn = if self.cc.ect() { Ecn::Ect } else { Ecn::NotEct };
        let mut p = self.packet(now, PacketKind::Data, seq, payload, ecn, retransmit);
        p.header = self.cc.data_header();
        p
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
            kind,
            seq,
            payload,
            size: payload + self.header,
            ecn,
            retransmit,
            ..Packet::of_flow(self.flow, self.src, self.dst, self.path_key, now)
        }
    }
}

impl Endpoint for TcpSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        match (self.state, pkt.kind) {
            (State::SynSent, PacketKind::SynAck) => {
                // The echo names the SYN transmission that was answered, so the sample is
                // valid even after a SYN retransmission.
                self.rtt.on_sample(now.saturating_sub(pkt.ts_echo));
                self.state = State::Established;
                self.syn_pending = false;
                self.deadline = None;
                let c = self.conn(now);
                self.cc.on_established(&c, &mut self.win);
                if self.snd_una >= self.size {
                    self.finish();
                }
            }
            (State::Established, PacketKind::Ack) => self.on_ack(now, pkt),
            // Duplicate SYN-ACKs, stray ACKs, anything after Done.
            _ => {}
        }
        self.abort_if_asked(now);
    }

    fn handle_timeout(&mut self, now: Time) {
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
        self.abort_if_asked(now);
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
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
                let window = self.win.cwnd.min(self.rwnd);
                let flight_after = self.snd_nxt - self.snd_una + payload;
                if flight_after > window {
                    // RFC 3042: on the first dupACKs one new segment each, while FlightSize
                    // stays ≤ cwnd + (dupACKs)·SMSS, within the receiver's window.
                    let extra = self.limited_transmit_allowance();
                    if flight_after > self.win.cwnd + extra || flight_after > self.rwnd {
                        self.note_window_use(flight_after > self.win.cwnd);
                        return None;
                    }
                    self.limited_bytes += payload;
                }
                let seq = self.snd_nxt;
                // Below snd_max only after a go-back-N restart: then it is a resend.
                let retransmit = seq < self.snd_max;
                self.snd_nxt += payload;
                self.snd_max = self.snd_max.max(self.snd_nxt);
                self.note_window_use(false);
                Some(self.data(now, seq, retransmit))
            }
            _ => None,
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.deadline
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.event.take()
    }
}

impl SenderEndpoint for TcpSender {
    /// Opens the connection: queues the SYN and arms the timer that retransmits it.
    fn start(&mut self, now: Time) {
        if self.state != State::Idle {
            return;
        }
        self.state = State::SynSent;
        self.syn_pending = true;
        self.deadline = Some(now + self.rtt.rto());
    }

    fn stats(&self) -> SenderStats {
        self.stats
    }

    /// Congestion window in bytes (for time series).
    fn cwnd(&self) -> u64 {
        self.win.cwnd
    }

    /// Bytes sent and not yet cumulatively acknowledged (`snd_max − snd_una`). After a
    /// timeout this still counts the old copies that may be in the network.
    fn bytes_in_flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    fn snd_una(&self) -> u64 {
        self.snd_una
    }
}
