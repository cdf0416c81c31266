//! The D3 sender: one rate request per RTT, data paced at the path's smallest allocation,
//! a FIN that returns the allocation, quenching of deadline flows that cannot make it.

use super::{
    rate_of, D3Header, D3Params, FLAG_HEADER_ONLY, FLAG_QUENCH, FLAG_REQUEST, HEADER_BYTES,
    MAX_HOPS,
};
use crate::net::header::Header;
use crate::net::packet::{Packet, PacketKind};
use crate::protocols::paced::PacedCore;
use crate::protocols::tcp::RttEstimator;
use crate::protocols::{Endpoint, SenderEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup, SenderStats};
use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    SynSent,
    Established,
    /// The application gave up while a request was in flight: its reply is awaited (nothing
    /// else is sent), so that the FIN returns the allocations the routers gave it.
    Aborting,
    /// Every byte acknowledged, or quenched: the FIN is due.
    Closing,
    Done,
}

pub struct D3Sender {
    core: PacedCore,
    deadline: Option<Time>,
    quench: bool,
    /// The unit of the header's rates, bit/s.
    unit_bps: u64,
    state: State,
    syn_pending: bool,
    /// The allocations of the latest reply, by hop, returned with the next request or FIN.
    alloc: [u16; MAX_HOPS],
    prev_desired: u16,
    /// The reply to the previous request has arrived: the next packet may carry a request.
    request_ready: bool,
    /// The flow gives up (FIN, then `Terminated`) rather than finishing.
    quenched: bool,
    event: Option<EndpointEvent>,
}

impl D3Sender {
    pub fn new(p: &D3Params, f: &FlowSetup) -> D3Sender {
        let rtt = RttEstimator::new(p.initial_rto, p.min_rto, p.max_rto);
        D3Sender {
            core: PacedCore::new(f, p.mss, p.header + HEADER_BYTES, rtt),
            deadline: f.deadline,
            quench: p.quench,
            unit_bps: p.unit_bps,
            state: State::Idle,
            syn_pending: false,
            alloc: [0; MAX_HOPS],
            prev_desired: 0,
            request_ready: false,
            quenched: false,
            event: None,
        }
    }

    /// r = remaining wire bytes / time to the deadline, rounded up to a whole unit (so that
    /// getting what it asks for meets the deadline); 0 for flows without a deadline and for
    /// flows past it. Exact in integers: bits · 10¹² / (ps · unit) in 128 bits (at most
    /// 2⁶⁴ · 8 · 10¹² ≈ 2¹⁰⁶ over 2⁶⁴ · 10¹² ≈ 2¹⁰⁴).
    fn desired_rate(&self, now: Time) -> u16 {
        let Some(deadline) = self.deadline else {
            return 0;
        };
        if now >= deadline {
            return 0;
        }
        let remaining = self.core.size - self.core.snd_una.min(self.core.size);
        let wire = remaining + remaining.div_ceil(self.core.mss) * self.core.header as u64;
        let ps_left = (deadline - now).ps() as u128;
        let bits_ps = wire as u128 * 8 * Time::PS_PER_SEC as u128;
        let units = bits_ps.div_ceil(ps_left * self.unit_bps as u128);
        units.min(u16::MAX as u128) as u16
    }

    /// §6.1.3: a deadline flow whose deadline has passed gives up.
    fn past_deadline(&self, now: Time) -> bool {
        self.quench && self.deadline.is_some_and(|d| now >= d)
    }

    fn quench_now(&mut self) {
        self.quenched = true;
        self.state = State::Closing;
        self.core.rto_at = None;
    }

    /// A request: this RTT's desired rate, last RTT's numbers to return.
    fn request(&mut self, now: Time, extra_flags: u8) -> Header {
        let desired = self.desired_rate(now);
        let h = D3Header {
            alloc: self.alloc,
            desired,
            prev_desired: self.prev_desired,
            hop: 0,
            flags: FLAG_REQUEST | extra_flags,
        };
        self.prev_desired = desired;
        self.request_ready = false;
        Header::of(h)
    }

    /// The reply to a request: the new allocations and the rate for the next RTT.
    fn take_reply(&mut self, h: &D3Header) {
        self.alloc = h.alloc;
        self.core.set_rate(rate_of(h.path_minimum(), self.unit_bps));
        self.request_ready = true;
        if self.quench && self.deadline.is_some() && h.has(FLAG_QUENCH) {
            self.quench_now();
        }
    }

    /// A header-only request is due now: paused (base rate) with data left, and the reply to
    /// the previous request is in. (A flow sending at a rate that spaces its packets more than
    /// an RTT apart asks with its next data packet; see the module doc.)
    fn header_only_request_due(&self) -> bool {
        self.state == State::Established
            && self.request_ready
            && self.core.rate.0 == 0
            && self.core.has_data()
    }

    /// The rate the sender paces at now.
    pub fn rate(&self) -> crate::units::Rate {
        self.core.rate
    }

    /// Whether the flow was quenched.
    pub fn is_quenched(&self) -> bool {
        self.quenched
    }
}

impl Endpoint for D3Sender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        let Some(h) = pkt.header.read::<D3Header>() else {
            return;
        };
        match (self.state, pkt.kind) {
            (State::SynSent, PacketKind::SynAck) => {
                self.core.rtt.on_sample(now.saturating_sub(pkt.ts_echo));
                self.state = State::Established;
                self.syn_pending = false;
                self.core.rto_at = None;
                self.take_reply(&h);
                if self.core.all_acked() && !self.quenched {
                    self.state = State::Closing;
                }
            }
            (State::Established, PacketKind::Ack) => {
                self.core.on_ack(now, pkt, !h.has(FLAG_HEADER_ONLY));
                if h.has(FLAG_REQUEST) {
                    self.take_reply(&h);
                    if self.core.snd_max == self.core.snd_una {
                        self.core.rto_at = None; // the request timer of a paused flow
                    }
                }
                if self.core.all_acked() && self.state == State::Established {
                    self.state = State::Closing;
                    self.core.rto_at = None;
                }
            }
            (State::Aborting, PacketKind::SynAck | PacketKind::Ack)
                if pkt.kind == PacketKind::SynAck || h.has(FLAG_REQUEST) =>
            {
                self.take_reply(&h);
                self.state = State::Closing;
                self.core.rto_at = None;
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
            State::Established => {
                if self.core.snd_max > self.core.snd_una {
                    // Data was lost. A request in flight was not (requests and the replies
                    // that carry their allocations back are protected), so none is added: a
                    // second request would keep two in flight for good, each returning the
                    // allocations the other's reply brought, and the routers would never get
                    // one of them back.
                    self.core.on_rto(now);
                } else {
                    // Paused, and the reply to the header-only request has not come for a
                    // whole RTO: only a failed link loses one. Ask again.
                    self.request_ready = true;
                    self.core.rto_at = None;
                }
            }
            State::Aborting => {
                self.state = State::Closing;
                self.core.rto_at = None;
            }
            _ => self.core.rto_at = None,
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if self.state == State::Established && self.request_ready && self.past_deadline(now) {
            self.quench_now();
        }
        match self.state {
            State::SynSent if self.syn_pending => {
                self.syn_pending = false;
                let mut p = self.core.packet(now, PacketKind::Syn, 0, 0);
                p.header = self.request(now, 0);
                Some(p)
            }
            State::Established => {
                if let Some((seq, payload, retransmit)) = self.core.next_segment(now) {
                    let mut p = self.core.packet(now, PacketKind::Data, seq, payload);
                    p.retransmit = retransmit;
                    p.header = if self.request_ready {
                        self.request(now, 0)
                    } else {
                        Header::of(D3Header::default())
                    };
                    return Some(p);
                }
                if self.header_only_request_due() {
                    let mut p = self
                        .core
                        .packet(now, PacketKind::Data, self.core.snd_nxt, 0);
                    p.header = self.request(now, FLAG_HEADER_ONLY);
                    if self.core.rto_at.is_none() {
                        self.core.rto_at = Some(now + self.core.rtt.rto());
                    }
                    return Some(p);
                }
                None
            }
            State::Closing => {
                // The FIN returns the last request's numbers to every router on the path.
                let mut p = self.core.packet(now, PacketKind::Fin, self.core.snd_max, 0);
                p.header = Header::of(D3Header {
                    alloc: self.alloc,
                    desired: 0,
                    prev_desired: self.prev_desired,
                    hop: 0,
                    flags: 0,
                });
                self.state = State::Done;
                self.core.rto_at = None;
                self.event = Some(if self.quenched {
                    EndpointEvent::Terminated
                } else {
                    EndpointEvent::SenderDone
                });
                Some(p)
            }
            _ => None,
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        let pace = match self.state {
            State::Established => self.core.next_send_time(),
            _ => None,
        };
        [self.core.rto_at, pace].into_iter().flatten().min()
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.event.take()
    }

    /// The application gives up: the FIN returns the flow's numbers, as quenching does. With
    /// a request in flight (the SYN, or one on a data packet) the routers have already taken
    /// back the allocations the sender holds and handed out new ones that only the reply
    /// brings: the sender then waits for that reply ([`Self::is_closing`]) and its FIN returns
    /// those. If the reply does not come within a timeout (a failed link lost it), the FIN
    /// goes with what the sender holds. Returns whether a FIN is due now.
    fn abort(&mut self, now: Time) -> bool {
        let reply_due = match self.state {
            State::Idle | State::Done | State::Aborting => return false,
            State::SynSent => true,
            State::Established => !self.request_ready,
            State::Closing => false,
        };
        if reply_due {
            self.quenched = true;
            self.state = State::Aborting;
            self.core.rto_at = Some(now + self.core.rtt.rto());
            return false;
        }
        self.quench_now();
        true
    }
}

impl SenderEndpoint for D3Sender {
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

    /// Aborted, and waiting for the reply to its last request before the FIN.
    fn is_closing(&self) -> bool {
        self.state == State::Aborting
    }
}
