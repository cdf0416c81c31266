//! The MERP sender (§4.1): a SYN, then DATA while the network's asr exceeds Q and DETs (header
//! only) while it does not, both paced at asr; a BOOST starts DATA at once; a FIN when every
//! byte is acknowledged, resent until its FINACK. Every packet carries the flow's size, asr =
//! the sender's own link capacity (switches lower it), the esr its receiver echoed last
//! (infinity before the first echo) and Q. Loss recovery resends only the segments its
//! receiver has not reported (the paced core's selective recovery; module doc of [`super`]).

use super::header::{kbps, MerpHeader, MerpKind};
use super::MerpParams;
use crate::net::packet::Packet;
use crate::protocols::paced::PacedCore;
use crate::protocols::tcp::RttEstimator;
use crate::protocols::{Endpoint, SenderEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup, SenderStats};
use crate::units::{Rate, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    SynSent,
    /// Connected: sending DATA or detecting, by the latest asr.
    Open,
    /// Every byte acknowledged; the FIN is out.
    FinSent,
    Done,
}

pub struct MerpSender {
    core: PacedCore,
    state: State,
    /// Whether the latest asr lets DATA out (asr > Q); otherwise DETs are sent.
    sending_data: bool,
    /// The latest asr (the DET rate while detecting) and the esr to stamp on packets.
    asr: Rate,
    esr_echo: f32,
    /// The header fields the sender fills: wire size of the flow, own link rate, Q.
    wire_size: u32,
    nic_kbps: u32,
    q_kbps: u32,
    /// When the last DET left: the next may leave one DET's size at asr later, asr being the
    /// latest (a DETACK that raises the rate brings the next DET forward).
    last_det: Option<Time>,
    det_bytes: u32,
    control_pending: Option<MerpKind>,
    event: Option<EndpointEvent>,
}

impl MerpSender {
    pub fn new(p: &MerpParams, f: &FlowSetup, nic_rate: Rate) -> MerpSender {
        let rtt = RttEstimator::new(p.initial_rto, p.min_rto, p.max_rto);
        let segments = f.size.div_ceil(p.mss as u64);
        let wire = f.size + segments * p.header as u64;
        MerpSender {
            core: PacedCore::new(f, p.mss, p.header, rtt).with_selective_acks(),
            state: State::Idle,
            sending_data: false,
            asr: Rate(0),
            esr_echo: f32::INFINITY,
            wire_size: wire.min(u32::MAX as u64) as u32,
            nic_kbps: kbps(nic_rate.bits_per_sec() as f64),
            q_kbps: kbps(p.q * nic_rate.bits_per_sec() as f64),
            last_det: None,
            det_bytes: p.header,
            control_pending: None,
            event: None,
        }
    }

    /// Takes the asr and esr a reply brings back and chooses DATA or detection (§4.1).
    fn take_rates(&mut self, h: &MerpHeader) {
        self.esr_echo = h.esr;
        self.asr = Rate(h.asr_bps());
        let data = h.asr_kbps > h.q_kbps || h.kind == MerpKind::Boost;
        if data {
            self.core.rate = self.asr;
        } else if self.sending_data {
            // Postponed: the first DET may leave at once.
            self.last_det = None;
        }
        self.sending_data = data;
    }

    fn header(&self, kind: MerpKind) -> MerpHeader {
        MerpHeader {
            kind,
            size: self.wire_size,
            asr_kbps: self.nic_kbps,
            esr: self.esr_echo,
            q_kbps: self.q_kbps,
        }
    }

    fn control(&self, now: Time, kind: MerpKind) -> Packet {
        let mut p = self
            .core
            .packet(now, kind.packet_kind(), self.core.snd_una, 0);
        self.header(kind).write(&mut p);
        p
    }

    /// When the next DET may leave while detecting: at once for the first, then one DET's
    /// size at the latest asr after the previous one.
    fn next_det(&self) -> Option<Time> {
        if self.asr.0 == 0 {
            return None;
        }
        Some(match self.last_det {
            None => Time::ZERO,
            Some(t) => t + self.asr.tx_time(self.det_bytes as u64),
        })
    }

    /// Whether the sender is sending DATA now (rather than detecting).
    pub fn sending_data(&self) -> bool {
        self.sending_data
    }
}

impl Endpoint for MerpSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        let Some(h) = MerpHeader::read(pkt) else {
            return;
        };
        match (self.state, h.kind) {
            (State::SynSent, MerpKind::SynAck) => {
                self.core.rtt.on_sample(now.saturating_sub(pkt.ts_echo));
                self.core.rto_at = None;
                self.state = State::Open;
                self.last_det = None;
                self.take_rates(&h);
            }
            (State::Open, MerpKind::DataAck) => {
                self.core.on_ack(now, pkt, true);
                self.take_rates(&h);
            }
            (State::Open, MerpKind::DetAck | MerpKind::Boost) => {
                // A DET queues behind everything: its round trip is no RTT sample. Its ACK
                // number may still advance snd_una.
                self.core.on_ack(now, pkt, false);
                self.take_rates(&h);
            }
            (State::FinSent, MerpKind::FinAck) => {
                self.state = State::Done;
                self.core.rto_at = None;
                self.event = Some(EndpointEvent::SenderDone);
            }
            _ => {}
        }
        if self.state == State::Open && self.core.all_acked() {
            self.state = State::FinSent;
            self.control_pending = Some(MerpKind::Fin);
            self.core.rto_at = Some(now + self.core.rtt.rto());
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        if !self.core.rto_due(now) {
            return;
        }
        match self.state {
            State::SynSent => {
                self.control_pending = Some(MerpKind::Syn);
                self.core.on_syn_timeout(now);
            }
            State::FinSent => {
                self.control_pending = Some(MerpKind::Fin);
                self.core.on_syn_timeout(now);
            }
            State::Open if self.core.snd_max > self.core.snd_una => self.core.on_rto(now),
            _ => self.core.rto_at = None,
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if let Some(kind) = self.control_pending.take() {
            return Some(self.control(now, kind));
        }
        if self.state != State::Open {
            return None;
        }
        if self.sending_data {
            let (seq, payload, _) = self.core.next_segment(now)?;
            let mut p = self
                .core
                .packet(now, MerpKind::Data.packet_kind(), seq, payload);
            self.header(MerpKind::Data).write(&mut p);
            return Some(p);
        }
        if self.next_det().is_some_and(|t| now >= t) {
            self.last_det = Some(now);
            return Some(self.control(now, MerpKind::Det));
        }
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        let pacing = match self.state {
            State::Open if self.sending_data => self.core.next_send_time(),
            State::Open => self.next_det(),
            _ => None,
        };
        match (self.core.rto_at, pacing) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.event.take()
    }

    /// The application gives up: one FIN, so that the links of the path drop the flow.
    fn abort(&mut self, _now: Time) -> bool {
        if matches!(self.state, State::Idle | State::Done) {
            return false;
        }
        self.state = State::Done;
        self.control_pending = Some(MerpKind::Fin);
        self.core.rto_at = None;
        self.event = Some(EndpointEvent::Terminated);
        true
    }
}

impl SenderEndpoint for MerpSender {
    fn start(&mut self, now: Time) {
        if self.state == State::Idle {
            self.state = State::SynSent;
            self.control_pending = Some(MerpKind::Syn);
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
