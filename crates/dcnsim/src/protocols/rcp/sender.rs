//! The RCP sender: SYN, then data paced at the rate the latest ACK carries.

use super::{RcpHeader, RcpParams, HEADER_BYTES, RATE_UNSET};
use crate::net::header::Header;
use crate::net::packet::{Packet, PacketKind};
use crate::protocols::paced::PacedCore;
use crate::protocols::tcp::RttEstimator;
use crate::protocols::{Endpoint, SenderEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup, SenderStats};
use crate::units::{Rate, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    SynSent,
    Established,
    Done,
}

pub struct RcpSender {
    core: PacedCore,
    state: State,
    syn_pending: bool,
    /// When the last packet (data or refresh) left.
    last_sent: Time,
    event: Option<EndpointEvent>,
}

impl RcpSender {
    pub fn new(p: &RcpParams, f: &FlowSetup) -> RcpSender {
        let rtt = RttEstimator::new(p.initial_rto, p.min_rto, p.max_rto);
        RcpSender {
            core: PacedCore::new(f, p.mss, p.header + HEADER_BYTES, rtt),
            state: State::Idle,
            syn_pending: false,
            last_sent: Time::ZERO,
            event: None,
        }
    }

    /// The rate the network names in a reply; an unstamped header keeps the current rate.
    fn take_rate(&mut self, pkt: &Packet) {
        if let Some(h) = pkt.header.read::<RcpHeader>() {
            if h.rate_kbps != RATE_UNSET {
                self.core.rate = Rate(h.rate_kbps as u64 * 1000);
            }
        }
    }

    fn header(&self, refresh: bool) -> Header {
        let rtt_ns = self
            .core
            .rtt
            .srtt()
            .map_or(0, |t| (t.ps() / 1000).min(u32::MAX as u64) as u32);
        Header::of(RcpHeader {
            rate_kbps: RATE_UNSET,
            rtt_ns,
            refresh,
        })
    }

    /// When a refresh is due: one RTT after the last packet, if the next data packet is later
    /// than that (or the rate is zero).
    fn refresh_due(&self) -> Option<Time> {
        if self.state != State::Established || !self.core.has_data() {
            return None;
        }
        let due = self.last_sent + self.core.rtt.srtt()?;
        match self.core.next_send_time() {
            Some(t) if t <= due => None,
            _ => Some(due),
        }
    }

    pub fn rate(&self) -> Rate {
        self.core.rate
    }

    fn finish(&mut self) {
        self.state = State::Done;
        self.core.rto_at = None;
        self.event = Some(EndpointEvent::SenderDone);
    }
}

impl Endpoint for RcpSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        match (self.state, pkt.kind) {
            (State::SynSent, PacketKind::SynAck) => {
                self.core.rtt.on_sample(now.saturating_sub(pkt.ts_echo));
                self.take_rate(pkt);
                self.state = State::Established;
                self.syn_pending = false;
                self.core.rto_at = None;
                if self.core.all_acked() {
                    self.finish();
                }
            }
            (State::Established, PacketKind::Ack) => {
                let refresh = pkt.header.read::<RcpHeader>().is_some_and(|h| h.refresh);
                self.core.on_ack(now, pkt, !refresh);
                self.take_rate(pkt);
                if self.core.all_acked() {
                    self.finish();
                }
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        if !self.core.rto_due(now) {
            return;
        }
        match self.state {
            State::SynSent => {
                self.syn_pending = true;
                self.core.on_syn_timeout(now);
            }
            State::Established if self.core.snd_max > self.core.snd_una => self.core.on_rto(now),
            _ => self.core.rto_at = None,
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        match self.state {
            State::SynSent if self.syn_pending => {
                self.syn_pending = false;
                let mut p = self.core.packet(now, PacketKind::Syn, 0, 0);
                p.header = self.header(false);
                Some(p)
            }
            State::Established => {
                if let Some((seq, payload, retransmit)) = self.core.next_segment(now) {
                    self.last_sent = now;
                    let mut p = self.core.packet(now, PacketKind::Data, seq, payload);
                    p.retransmit = retransmit;
                    p.header = self.header(false);
                    return Some(p);
                }
                if self.refresh_due().is_some_and(|t| t <= now) {
                    self.last_sent = now;
                    let mut p = self
                        .core
                        .packet(now, PacketKind::Data, self.core.snd_nxt, 0);
                    p.header = self.header(true);
                    return Some(p);
                }
                None
            }
            _ => None,
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        let pace = match self.state {
            State::Established => self.core.next_send_time(),
            _ => None,
        };
        [self.core.rto_at, pace, self.refresh_due()]
            .into_iter()
            .flatten()
            .min()
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.event.take()
    }
}

impl SenderEndpoint for RcpSender {
    fn start(&mut self, now: Time) {
        if self.state == State::Idle {
            self.state = State::SynSent;
            self.syn_pending = true;
            self.core.rto_at = Some(now + self.core.rtt.rto());
        }
    }

    fn stats(&self) -> SenderStats {
        self.core.stats
    }

    fn bytes_in_flight(&self) -> u64 {
        self.core.snd_max - self.core.snd_una
    }

    /// The cumulative acknowledgement: every byte below it has been acknowledged.
    fn snd_una(&self) -> u64 {
        self.core.snd_una
    }
}
