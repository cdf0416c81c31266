//! The PDQ sender (§3.1) and its multipath form (§6): one flow as n subflows, each a PDQ flow
//! to the switches (n = 1 is plain PDQ). Choices are listed in the module doc of [`super`].

use super::header::{deadline_field, ns_field, rate_to_kbps, PdqHeader, WIRE_BYTES};
use super::host_rtt::PairShare;
use super::PdqParams;
use crate::net::packet::{Packet, PacketKind};
use crate::protocols::{Endpoint, Protocol, SenderEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup, SenderStats};
use crate::units::{Rate, Time};
use std::collections::VecDeque;

/// `seq` of a probe and of its ACK (a probe carries no data).
pub const PROBE_SEQ: u64 = u64::MAX;
/// Aging's time unit t (§7, Fig. 12: "in terms of 100 ms").

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for the SYN-ACK: when the SYN went out, `None` while it is still to send.
    Opening(Option<Time>),
    Open,
    /// TERM sent (its share is done, or the flow ended).
    Closed,
}

/// One subflow: its own scheduling variables (R_S, P_S, I_S, RTT_S), its share of segments and
/// its pacing and probing clocks.
#[derive(Clone, Debug)]
struct Subflow {
    index: u8,
    path_key: u32,
    phase: Phase,
    rate_bps: u64,
    pause_by: u32,
    inter_probe: u16,
    /// RTT_S: the smoothed RTT, for the sender's own clocks (RTO, probing, Early Termination).
    rtt: Option<Time>,
    /// The least RTT of a data packet so far (`pdq_base_rtt = "host"`: of this flow's and of
    /// its host's running flows to the same destination, as of its last ACK).
    base_rtt: Option<Time>,
    /// Segments of this subflow not yet sent (or to send again), in order.
    pending: VecDeque<u32>,
    /// Their payload bytes: T_S, read at every packet, without a walk over `pending` (which
    /// made a flow's cost quadratic in its size: a 100 MB flow has 70 000 segments).
    pending_bytes: u64,
    /// Segments sent and not yet acknowledged, with their send times, oldest first.
    outstanding: VecDeque<(u32, Time)>,
    /// The last data packet: when it left and its wire size (pacing at the current rate).
    last_data: Option<(Time, u32)>,
    next_probe: Time,
    /// Flow aging: when the current pause began, and the pause time accumulated before it.
    paused_since: Option<Time>,
    waited: Time,
}

/// Payload bytes of segment `seg` of a flow of `size` bytes: `mss`, less in the last one.
fn seg_bytes(seg: u32, size: u64, mss: u32) -> u32 {
    let start = seg as u64 * mss as u64;
    (size - start).min(mss as u64) as u32
}

/// Payload bytes of segments `lo..hi`.
fn shares_bytes(lo: u32, hi: u32, size: u64, mss: u32) -> u64 {
    (hi as u64 * mss as u64).min(size) - (lo as u64 * mss as u64).min(size)
}

impl Subflow {
    fn remaining_segments(&self) -> usize {
        self.pending.len() + self.outstanding.len()
    }

    fn sending(&self) -> bool {
        self.phase == Phase::Open && self.rate_bps > 0
    }

    /// When the next data packet may leave: one packet time at the current rate after the
    /// last one (so a new rate applies at once, not after a gap paced at the old one).
    fn next_send(&self) -> Time {
        match self.last_data {
            Some((t, size)) if self.rate_bps > 0 => {
                t + Rate::bps(self.rate_bps).tx_time(size as u64)
            }
            _ => Time::ZERO,
        }
    }

    fn probe_interval(&self) -> Time {
        let rtt = self.rtt.unwrap_or(Time::from_us(10));
        // I_S in hundredths of an RTT; ø (0) and anything under one RTT probe once per RTT.
        Time::from_ps(rtt.ps() / 100 * self.inter_probe.max(100) as u64)
    }

    fn waited(&self, now: Time) -> Time {
        self.waited
            + self
                .paused_since
                .map_or(Time::ZERO, |t| now.saturating_sub(t))
    }
}

pub struct PdqSender {
    p: PdqParams,
    flow: u32,
    src: u32,
    dst: u32,
    size: u64,
    deadline: Option<Time>,
    nic: Rate,
    /// `pdq_base_rtt = "host"`: the base RTT the host's running flows to `dst` share.
    host_rtt: Option<PairShare>,
    segments: u32,
    acked: Vec<bool>,
    acked_count: u32,
    /// Segments acknowledged in order from the first: `acked[..acked_prefix]` are all true.
    acked_prefix: u32,
    subs: Vec<Subflow>,
    /// TERM packets waiting for `poll_transmit`.
    terms: VecDeque<Packet>,
    events: VecDeque<EndpointEvent>,
    finished: bool,
    next_shift: Time,
    /// The last time the sender was called (deadline wake-ups are only ever later).
    last_call: Time,
    stats: SenderStats,
}

impl PdqSender {
    pub fn new(p: &PdqParams, f: &FlowSetup, nic: Rate) -> PdqSender {
        let segments = super::segments_of(f.size, p.mss);
        let n = p.subflows_of(f.size);
        let host_rtt = p.host_rtts.as_ref().map(|t| t.join(f.src, f.dst));
        // Contiguous shares, as even as whole segments allow.
        let subs = (0..n)
            .map(|j| {
                let lo = (segments as u64 * j as u64 / n as u64) as u32;
                let hi = (segments as u64 * (j as u64 + 1) / n as u64) as u32;
                Subflow {
                    index: j as u8,
                    path_key: super::subflow_path_key(f.path_key, j),
                    phase: Phase::Opening(None),
                    rate_bps: 0,
                    pause_by: 0,
                    inter_probe: 0,
                    rtt: None,
                    base_rtt: None,
                    pending: (lo..hi).collect(),
                    pending_bytes: shares_bytes(lo, hi, f.size, p.mss),
                    outstanding: VecDeque::new(),
                    last_data: None,
                    next_probe: Time::MAX,
                    paused_since: None,
                    waited: Time::ZERO,
                }
            })
            .collect();
        PdqSender {
            p: p.clone(),
            flow: f.flow,
            src: f.src,
            dst: f.dst,
            size: f.size,
            deadline: f.deadline,
            nic,
            host_rtt,
            segments,
            acked: vec![false; segments as usize],
            acked_count: 0,
            acked_prefix: 0,
            subs,
            terms: VecDeque::new(),
            events: VecDeque::new(),
            finished: false,
            next_shift: Time::ZERO,
            last_call: Time::ZERO,
            stats: SenderStats::default(),
        }
    }

    fn seg_bytes(&self, seg: u32) -> u32 {
        seg_bytes(seg, self.size, self.p.mss)
    }

    fn unacked_bytes(&self) -> u64 {
        let mut b = (self.segments - self.acked_count) as u64 * self.p.mss as u64;
        if !self.acked[self.segments as usize - 1] {
            b -= (self.p.mss - self.seg_bytes(self.segments - 1)) as u64;
        }
        b
    }

    /// T_S: the subflow's bytes still to send, at the NIC rate (never the allocated rate).
    fn expected(&self, s: &Subflow) -> Time {
        if s.pending_bytes == 0 {
            Time::ZERO
        } else {
            self.nic.tx_time(s.pending_bytes)
        }
    }

    fn header(&self, s: &Subflow, now: Time) -> PdqHeader {
        let mut t = self.expected(s);
        if self.p.aging_rate > 0.0 {
            t = Time::from_secs_f64(
                t.as_secs_f64() / super::aging_divisor(self.p.aging_rate, s.waited(now)),
            );
        }
        PdqHeader {
            rate_kbps: rate_to_kbps(self.nic),
            pause_by: s.pause_by,
            deadline: deadline_field(self.deadline),
            expected_ns: ns_field(t),
            // The base RTT once a data packet has been acknowledged: Early Start's look-ahead
            // and the rate controller must not grow with the queue they act on (module doc).
            rtt_ns: self.base_rtt(s).or(s.rtt).map_or(0, ns_field),
            inter_probe: 0,
            subflow: s.index,
            pauser_crossed: false,
        }
    }

    /// The subflow's base RTT, or the host's to the destination if that is less (a flow of
    /// the host may have measured it since this one last heard an ACK).
    fn base_rtt(&self, s: &Subflow) -> Option<Time> {
        let host = self.host_rtt.as_ref().and_then(|r| r.least());
        match (s.base_rtt, host) {
            (Some(own), Some(host)) => Some(own.min(host)),
            (own, host) => own.or(host),
        }
    }

    fn packet(&self, s: &Subflow, now: Time, kind: PacketKind, seq: u64, payload: u32) -> Packet {
        let mut p = Packet {
            kind,
            seq,
            payload,
            size: payload + self.p.header + WIRE_BYTES,
            ..Packet::of_flow(self.flow, self.src, self.dst, s.path_key, now)
        };
        self.header(s, now).write(&mut p);
        p
    }

    fn rto(&self, s: &Subflow) -> Time {
        s.rtt
            .map_or(self.p.min_rto, |r| (r * 4).max(self.p.min_rto))
    }

    /// After an ACK or a timer: completion, Early Termination, M-PDQ load shifting, idle
    /// subflows closing.
    fn after_progress(&mut self, now: Time) {
        if self.acked_count == self.segments {
            self.finish(now, EndpointEvent::SenderDone);
            return;
        }
        if self.check_termination(now) {
            return;
        }
        if self.subs.len() > 1 && now >= self.next_shift {
            self.shift_load(now);
        }
    }

    /// Early Termination (§3.1), for deadline flows: the deadline has passed, the remaining
    /// bytes cannot make it even at the NIC rate, or the flow is paused with less than an RTT
    /// left.
    fn check_termination(&mut self, now: Time) -> bool {
        let Some(d) = self.deadline.filter(|_| self.p.early_termination) else {
            return false;
        };
        let remaining = self.nic.tx_time(self.unacked_bytes());
        let paused = self.subs.iter().all(|s| !s.sending());
        let rtt = self.subs.iter().filter_map(|s| s.rtt).min();
        let hopeless =
            now >= d || now + remaining > d || (paused && rtt.is_some_and(|r| now + r > d));
        if hopeless {
            self.finish(now, EndpointEvent::Terminated);
        }
        hopeless
    }

    /// Ends the flow: a TERM on every subflow still open, then `event`.
    fn finish(&mut self, now: Time, event: EndpointEvent) {
        for k in 0..self.subs.len() {
            self.close(k, now);
        }
        self.finished = true;
        self.events.push_back(event);
    }

    fn close(&mut self, k: usize, now: Time) {
        if self.subs[k].phase != Phase::Closed {
            let s = &self.subs[k];
            let term = self.packet(s, now, PacketKind::Fin, 0, 0);
            self.terms.push_back(term);
            self.subs[k].phase = Phase::Closed;
            self.subs[k].rate_bps = 0;
        }
    }

    /// M-PDQ (§6): once per RTT, moves unsent load of every paused subflow to the sending
    /// subflow with the least remaining load, half the difference between the two; closes
    /// subflows left with nothing to do.
    fn shift_load(&mut self, now: Time) {
        let rtt = self.subs.iter().filter_map(|s| s.rtt).min();
        self.next_shift = now + rtt.unwrap_or(Time::ZERO);
        for k in 0..self.subs.len() {
            let s = &self.subs[k];
            if s.phase != Phase::Open || s.rate_bps > 0 || s.pending.is_empty() {
                continue;
            }
            let target = (0..self.subs.len())
                .filter(|&j| self.subs[j].sending())
                .min_by_key(|&j| (self.subs[j].remaining_segments(), j));
            if let Some(j) = target {
                // Enough to even the two out (from the paused subflow's tail): repeated every
                // RTT this spreads a paused subflow's load over the sending ones without ever
                // leaving the receiving subflow with more than the paused one had.
                let gap = self.subs[k].remaining_segments() as isize
                    - self.subs[j].remaining_segments() as isize;
                let pending = &mut self.subs[k].pending;
                let n = (gap.max(0) as usize).div_ceil(2).min(pending.len());
                let moved: Vec<u32> = pending.drain(pending.len() - n..).collect();
                let bytes: u64 = moved.iter().map(|&g| self.seg_bytes(g) as u64).sum();
                self.subs[k].pending_bytes -= bytes;
                self.subs[j].pending_bytes += bytes;
                self.subs[j].pending.extend(moved);
            }
        }
        for k in 0..self.subs.len() {
            let s = &self.subs[k];
            if s.phase == Phase::Open && s.remaining_segments() == 0 {
                self.close(k, now);
            }
        }
    }

    /// Each subflow's unsent bytes as kept, and as a walk over its segments finds them.
    #[cfg(test)]
    pub(super) fn pending_bytes_kept_and_walked(&self) -> Vec<(u64, u64)> {
        self.subs
            .iter()
            .map(|s| {
                let walked = s.pending.iter().map(|&g| self.seg_bytes(g) as u64).sum();
                (s.pending_bytes, walked)
            })
            .collect()
    }
}

impl Endpoint for PdqSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        self.last_call = now;
        if self.finished {
            return;
        }
        let Some(h) = PdqHeader::read(pkt) else {
            return;
        };
        let Some(k) = self.subs.iter().position(|s| s.index == h.subflow) else {
            return;
        };
        let s = &mut self.subs[k];
        match pkt.kind {
            PacketKind::SynAck => {
                if !matches!(s.phase, Phase::Opening(_)) {
                    return;
                }
                s.phase = Phase::Open;
            }
            PacketKind::Ack if s.phase == Phase::Open => {}
            _ => return,
        }
        // RTT_S: exponentially averaged samples (gain 1/8, as TCP's SRTT).
        let sample = now.saturating_sub(pkt.ts_echo);
        s.rtt = Some(match s.rtt {
            None => sample,
            Some(r) => Time::from_ps((r.ps() * 7 + sample.ps()) / 8),
        });
        if pkt.kind == PacketKind::Ack && pkt.seq != PROBE_SEQ {
            let least = self.host_rtt.as_ref().map_or(sample, |r| r.note(sample));
            s.base_rtt = Some(s.base_rtt.map_or(least, |b| b.min(least)));
        }
        // R_S = R_H, P_S = P_H, I_S = I_H; except that a SYN-ACK whose SYN asked for no rate
        // carries the sender's own R_H back untouched: no grant, the flow starts paused and
        // probes at once.
        let was_sending = s.rate_bps > 0;
        let granted = pkt.kind != PacketKind::SynAck || self.p.switch.syn_requests_rate;
        s.rate_bps = if granted {
            super::header::kbps_to_bps(h.rate_kbps)
        } else {
            0
        };
        s.pause_by = h.pause_by;
        s.inter_probe = h.inter_probe;
        if s.rate_bps > 0 && !was_sending {
            s.waited = s.waited(now);
            s.paused_since = None;
        } else if s.rate_bps == 0 && (was_sending || pkt.kind == PacketKind::SynAck) {
            s.paused_since.get_or_insert(now);
            s.next_probe = if granted {
                now + s.probe_interval()
            } else {
                now
            };
        } else if pkt.seq == PROBE_SEQ {
            s.next_probe = now + s.probe_interval();
        }
        if pkt.kind == PacketKind::Ack && pkt.seq != PROBE_SEQ {
            let seg = (pkt.seq / self.p.mss as u64) as u32;
            if let Some(i) = s.outstanding.iter().position(|&(g, _)| g == seg) {
                s.outstanding.remove(i);
            }
            if !std::mem::replace(&mut self.acked[seg as usize], true) {
                self.acked_count += 1;
            }
            while self.acked.get(self.acked_prefix as usize) == Some(&true) {
                self.acked_prefix += 1;
            }
        }
        self.after_progress(now);
    }

    fn handle_timeout(&mut self, now: Time) {
        self.last_call = now;
        if self.finished {
            return;
        }
        for k in 0..self.subs.len() {
            let rto = self.rto(&self.subs[k]);
            let s = &mut self.subs[k];
            match s.phase {
                Phase::Opening(Some(sent)) if sent + rto <= now => {
                    s.phase = Phase::Opening(None); // send the SYN again
                    self.stats.timeouts += 1;
                }
                Phase::Open if s.outstanding.front().is_some_and(|&(_, t)| t + rto <= now) => {
                    // Go back: every unacknowledged segment of the subflow is sent again.
                    self.stats.timeouts += 1;
                    while let Some((g, _)) = s.outstanding.pop_back() {
                        if !self.acked[g as usize] {
                            s.pending.push_front(g);
                            s.pending_bytes += seg_bytes(g, self.size, self.p.mss) as u64;
                            self.stats.retransmits += 1;
                        }
                    }
                }
                _ => {}
            }
        }
        self.after_progress(now);
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if let Some(t) = self.terms.pop_front() {
            return Some(t);
        }
        if self.finished {
            return None;
        }
        for k in 0..self.subs.len() {
            let s = &self.subs[k];
            match s.phase {
                Phase::Opening(None) => {
                    let syn = self.packet(s, now, PacketKind::Syn, 0, 0);
                    self.subs[k].phase = Phase::Opening(Some(now));
                    return Some(syn);
                }
                Phase::Open if s.rate_bps > 0 && now >= s.next_send() && !s.pending.is_empty() => {
                    let seg = s.pending[0];
                    let payload = self.seg_bytes(seg);
                    let pkt = self.packet(
                        s,
                        now,
                        PacketKind::Data,
                        seg as u64 * self.p.mss as u64,
                        payload,
                    );
                    let s = &mut self.subs[k];
                    s.pending.pop_front();
                    s.pending_bytes -= payload as u64;
                    s.outstanding.push_back((seg, now));
                    s.last_data = Some((now, pkt.size));
                    s.next_probe = now + s.probe_interval();
                    self.stats.data_packets_sent += 1;
                    return Some(pkt);
                }
                Phase::Open if now >= s.next_probe && !s.pending.is_empty() => {
                    let probe = self.packet(s, now, PacketKind::Data, PROBE_SEQ, 0);
                    let s = &mut self.subs[k];
                    s.next_probe = now + s.probe_interval();
                    return Some(probe);
                }
                _ => {}
            }
        }
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        if self.finished {
            return None;
        }
        let mut due = Time::MAX;
        for s in &self.subs {
            match s.phase {
                Phase::Opening(Some(sent)) => due = due.min(sent + self.rto(s)),
                Phase::Opening(None) => due = self.last_call,
                Phase::Open => {
                    if !s.pending.is_empty() {
                        due = due.min(s.next_probe);
                        if s.rate_bps > 0 {
                            due = due.min(s.next_send());
                        }
                    }
                    if let Some(&(_, t)) = s.outstanding.front() {
                        due = due.min(t + self.rto(s));
                    }
                }
                Phase::Closed => {}
            }
        }
        if let (Some(d), true) = (self.deadline, self.p.early_termination) {
            // Wake when "paused with less than an RTT left" or the deadline itself arrives.
            let rtt = self.subs.iter().filter_map(|s| s.rtt).min();
            let paused_limit = rtt.map(|r| d.saturating_sub(r) + Time::from_ps(1));
            for wake in [Some(d), paused_limit].into_iter().flatten() {
                if wake > self.last_call {
                    due = due.min(wake);
                }
            }
        }
        (due != Time::MAX).then_some(due)
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }

    /// The application gives up: TERM on every open subflow, as Early Termination does.
    fn abort(&mut self, now: Time) -> bool {
        if self.finished {
            return false;
        }
        self.finish(now, EndpointEvent::Terminated);
        true
    }
}

impl SenderEndpoint for PdqSender {
    fn start(&mut self, now: Time) {
        self.last_call = now;
        for s in &mut self.subs {
            s.paused_since = Some(now);
        }
        self.check_termination(now);
    }

    fn stats(&self) -> SenderStats {
        self.stats
    }

    fn bytes_in_flight(&self) -> u64 {
        self.subs
            .iter()
            .flat_map(|s| s.outstanding.iter())
            .map(|&(g, _)| self.seg_bytes(g) as u64)
            .sum()
    }

    /// The acknowledged prefix of the flow's bytes (PDQ acknowledges each segment alone):
    /// the first byte of the first segment not yet acknowledged, or the size when all are.
    fn snd_una(&self) -> u64 {
        (self.acked_prefix as u64 * self.p.mss as u64).min(self.size)
    }
}
