//! The PACE sender (§III.D): a request opens the flow; each allocation brings credits for one
//! period, which the sender spreads evenly over that period and never exceeds; the first
//! data message after an allocation returns its fields (feedback).

use super::header::{
    bytes_of, capacity_bytes, credits, credits_up, period_time, PaceHeader, FLAG_FEEDBACK,
    FLAG_GAP, MSG_ALLOCATION, MSG_DATA, MSG_REQUEST, MSG_TERMINATE, WIRE_BYTES,
};
use super::PaceParams;
use crate::net::header::Header;
use crate::net::packet::{FlowId, HostId, Packet, PacketKind};
use crate::protocols::{Endpoint, SenderEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup, SenderStats};
use crate::units::{Rate, Time};

/// A request unanswered this long is sent again. Only a failed link can lose one (control
/// messages are never dropped for lack of buffer), while a port's queue can hold one for up
/// to 2·p of the longest period (10.2 ms, eq. 7): four of the longest periods.
pub const REQUEST_RETRY: Time = Time::from_us(4 * 5100);
/// When the receiver's count of bytes received in order has not moved for this long while
/// data is outstanding, data was lost without the receiver seeing a gap (the tail of a
/// burst): the sender goes back to the first missing byte. As long as [`REQUEST_RETRY`], for
/// the same reason: a queue built at a long period can outlive it.
pub const GO_BACK_AFTER: Time = REQUEST_RETRY;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    Requesting,
    Active,
    Done,
}

/// Credits of one allocation: `bytes` not yet used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Credits {
    pub epoch: u8,
    pub bytes: u64,
    pub live: bool,
}

pub struct PaceSender {
    flow: FlowId,
    src: HostId,
    dst: HostId,
    path_key: u32,
    size: u64,
    mss: u64,
    /// Wire bytes added to every packet (base header and PACE's).
    header: u32,
    w_sender: u16,
    p_init: u8,
    nic_rate: Rate,
    state: State,
    request_pending: bool,
    request_at: Option<Time>,
    snd_nxt: u64,
    snd_max: u64,
    /// The receiver's first missing byte, from its latest allocation.
    acked: u64,
    /// The credits of the two valid periods, older first.
    credits: [Credits; 2],
    /// Pacing of the latest allocation that granted credits: its bytes over its period.
    pace_bytes: u64,
    pace_period: Time,
    next_send: Time,
    /// When the oldest byte not yet reported received was sent, or the report last
    /// advanced: how long data has been outstanding without news.
    last_progress: Time,
    /// Gap reports arriving before this are older than the last go-back: ignored.
    gap_holdoff: Time,
    feedback: Option<PaceHeader>,
    stats: SenderStats,
    event: Option<EndpointEvent>,
}

impl PaceSender {
    pub fn new(p: &PaceParams, f: &FlowSetup, nic_rate: Rate) -> PaceSender {
        PaceSender {
            flow: f.flow,
            src: f.src,
            dst: f.dst,
            path_key: f.path_key,
            size: f.size,
            mss: p.mss as u64,
            header: p.header + WIRE_BYTES,
            w_sender: super::header::weight_field(f.weight).unwrap_or(u16::MAX),
            p_init: p.period_units,
            nic_rate,
            state: State::Idle,
            request_pending: false,
            request_at: None,
            snd_nxt: 0,
            snd_max: 0,
            acked: 0,
            credits: [Credits::default(); 2],
            pace_bytes: 0,
            pace_period: Time::ZERO,
            next_send: Time::ZERO,
            last_progress: Time::ZERO,
            gap_holdoff: Time::ZERO,
            feedback: None,
            stats: SenderStats::default(),
            event: None,
        }
    }

    fn packet(&self, now: Time, kind: PacketKind, seq: u64, payload: u32, h: PaceHeader) -> Packet {
        Packet {
            kind,
            seq,
            payload,
            size: payload + self.header,
            header: Header::of(h),
            ..Packet::of_flow(self.flow, self.src, self.dst, self.path_key, now)
        }
    }

    /// Credits held now, in bytes.
    pub fn credit_bytes(&self) -> u64 {
        self.credits
            .iter()
            .filter(|c| c.live)
            .map(|c| c.bytes)
            .sum()
    }

    /// Wire bytes of the data not sent yet.
    fn wire_left(&self) -> u64 {
        let left = self.size - self.snd_nxt.min(self.size);
        left + left.div_ceil(self.mss) * self.header as u64
    }

    /// The payload of the next data message the credits allow: a full segment, or a shorter
    /// one that uses the last credits — but never a payload smaller than the header, unless
    /// it ends the flow.
    fn next_payload(&self) -> Option<u64> {
        let left = self.size.saturating_sub(self.snd_nxt);
        if left == 0 {
            return None;
        }
        let room = self.credit_bytes().saturating_sub(self.header as u64);
        let payload = self.mss.min(left).min(room);
        (payload > 0 && payload >= left.min(self.header as u64)).then_some(payload)
    }

    fn on_allocation(&mut self, now: Time, pkt: &Packet, h: &PaceHeader) {
        if self.state == State::Requesting {
            self.state = State::Active;
            self.request_at = None;
            self.last_progress = now;
        }
        let ack = pkt.ack.min(self.size);
        if ack > self.acked {
            self.acked = ack;
            self.last_progress = now;
        }
        let period = period_time(h.period);
        if self.acked < self.snd_nxt {
            if h.has(FLAG_GAP) && now >= self.gap_holdoff {
                // The receiver saw a hole (data lost): resend from it. Reports sent before the
                // resent data can have arrived (within a period, > 1 RTT) are not acted on.
                self.stats.fast_retransmits += 1;
                self.snd_nxt = self.acked;
                self.gap_holdoff = now + period;
                self.last_progress = now;
            } else if now.saturating_sub(self.last_progress) > GO_BACK_AFTER {
                // Nothing more has arrived for long: lost without a gap to show it.
                self.stats.timeouts += 1;
                self.snd_nxt = self.acked;
                self.last_progress = now;
            }
        }
        // Logical clock: credits two periods old expire; the new ones are the newest.
        for c in self.credits.iter_mut() {
            if c.live && h.epoch.wrapping_sub(c.epoch) as i8 >= 2 {
                c.live = false;
            }
        }
        if self.credits[1].live {
            self.credits[0] = self.credits[1];
        }
        let bytes = bytes_of(h.alloc);
        self.credits[1] = Credits {
            epoch: h.epoch,
            bytes,
            live: true,
        };
        if bytes > 0 {
            self.pace_bytes = bytes;
            self.pace_period = period;
            // The new rate applies now: wait at most one full packet's gap at it.
            let full = self.pace_gap(self.mss + self.header as u64);
            self.next_send = self.next_send.max(now).min(now + full);
        }
        // Feedback: the allocation as received, and as potential demand no more than what
        // will be left once the credits held now are used.
        let after = self.wire_left().saturating_sub(self.credit_bytes());
        self.feedback = Some(PaceHeader {
            msg: MSG_DATA,
            flags: FLAG_FEEDBACK,
            epoch: h.epoch,
            period: h.period,
            potential: credits_up(bytes_of(h.potential).min(after)),
            demand: 0,
            alloc: h.alloc,
            w_sender: self.w_sender,
            w_receiver: h.w_receiver,
        });
    }

    /// Spread over the period: a packet's share of it at the granted rate.
    fn pace_gap(&self, wire: u64) -> Time {
        Time((wire as u128 * self.pace_period.ps() as u128 / self.pace_bytes.max(1) as u128) as u64)
    }

    /// Takes `bytes` of credits, the oldest first.
    fn spend(&mut self, mut bytes: u64) {
        for c in self.credits.iter_mut().filter(|c| c.live) {
            let take = c.bytes.min(bytes);
            c.bytes -= take;
            bytes -= take;
        }
        debug_assert_eq!(bytes, 0, "sent beyond the credits");
    }

    /// Bytes per second the sender paces at now (latest granted credits over their period).
    pub fn pacing_rate_bps(&self) -> f64 {
        if self.pace_bytes == 0 {
            return 0.0;
        }
        self.pace_bytes as f64 * 8.0 / self.pace_period.as_secs_f64()
    }
}

impl Endpoint for PaceSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        let Some(h) = pkt.header.read::<PaceHeader>() else {
            return;
        };
        if pkt.kind != PacketKind::Ack || self.state == State::Done {
            return;
        }
        match h.msg {
            MSG_ALLOCATION => self.on_allocation(now, pkt, &h),
            MSG_TERMINATE => {
                self.state = State::Done;
                self.request_at = None;
                self.feedback = None;
                self.event = Some(EndpointEvent::SenderDone);
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.state == State::Requesting && self.request_at.is_some_and(|t| now >= t) {
            self.stats.timeouts += 1;
            self.request_pending = true;
            self.request_at = None;
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        match self.state {
            State::Requesting if self.request_pending => {
                self.request_pending = false;
                self.request_at = Some(now + REQUEST_RETRY);
                let h = PaceHeader {
                    msg: MSG_REQUEST,
                    period: self.p_init,
                    potential: credits(capacity_bytes(self.nic_rate, self.p_init)),
                    w_sender: self.w_sender,
                    ..Default::default()
                };
                Some(self.packet(now, PacketKind::Syn, 0, 0, h))
            }
            State::Active => {
                let payload = self.next_payload();
                if let Some(payload) = payload.filter(|_| now >= self.next_send) {
                    let seq = self.snd_nxt;
                    if seq == self.acked {
                        self.last_progress = now; // nothing was outstanding until now
                    }
                    let wire = payload + self.header as u64;
                    self.spend(wire);
                    self.snd_nxt += payload;
                    if seq < self.snd_max {
                        self.stats.retransmits += 1;
                    }
                    self.snd_max = self.snd_max.max(self.snd_nxt);
                    self.stats.data_packets_sent += 1;
                    self.next_send = now.max(self.next_send) + self.pace_gap(wire);
                    let h = self.feedback.take().unwrap_or(PaceHeader {
                        msg: MSG_DATA,
                        epoch: self.credits[1].epoch,
                        w_sender: self.w_sender,
                        ..Default::default()
                    });
                    return Some(self.packet(now, PacketKind::Data, seq, payload as u32, h));
                }
                if payload.is_none() {
                    // No data can go with these credits: the feedback goes alone.
                    let h = self.feedback.take()?;
                    return Some(self.packet(now, PacketKind::Data, self.snd_nxt, 0, h));
                }
                None
            }
            _ => None,
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        match self.state {
            State::Requesting => self.request_at,
            State::Active => self.next_payload().map(|_| self.next_send),
            _ => None,
        }
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.event.take()
    }
}

impl SenderEndpoint for PaceSender {
    fn start(&mut self, _now: Time) {
        if self.state == State::Idle {
            self.state = State::Requesting;
            self.request_pending = true;
        }
    }

    fn stats(&self) -> SenderStats {
        self.stats
    }

    fn bytes_in_flight(&self) -> u64 {
        self.snd_nxt.saturating_sub(self.acked)
    }

    /// The receiver's first missing byte as last reported: every later question about drops
    /// (retransmissions, go-back) is at or above it, and it never decreases.
    fn snd_una(&self) -> u64 {
        self.acked
    }
}
