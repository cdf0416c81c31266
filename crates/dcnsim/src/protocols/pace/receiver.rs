//! The PACE receiver (§III.C): once the request arrives it issues an allocation every period
//! — potential demand = the maximum, demand and allocation = the potential demand the sender
//! last returned — until every byte has arrived; then it sends terminate.

use super::header::{
    bytes_of, credits_up, period_time, PaceHeader, FLAG_FEEDBACK, FLAG_GAP, MSG_ALLOCATION,
    MSG_DATA, MSG_REQUEST, MSG_TERMINATE, WEIGHT_ONE, WIRE_BYTES,
};
use super::PaceParams;
use crate::net::header::Header;
use crate::net::packet::{FlowId, HostId, Packet, PacketKind};
use crate::protocols::{Endpoint, ReceiverEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup};
use crate::units::Time;
use std::collections::VecDeque;

/// The feedback of the latest allocation the sender answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Feedback {
    epoch: u8,
    potential: u16,
    period: u8,
}

pub struct PaceReceiver {
    flow: FlowId,
    /// This host (the flow's destination) and the sender's.
    me: HostId,
    peer: HostId,
    path_key: u32,
    size: u64,
    /// Wire bytes of a control message.
    control_bytes: u32,
    p_init: u8,
    w_receiver: u16,
    w_sender: u16,
    /// d_p's initial value: the sender's p·R for the initial period (from its request).
    max_potential: u16,
    feedback: Option<Feedback>,
    /// The logical clock: one tick per allocation (period).
    epoch: u8,
    next_alloc: Option<Time>,
    delivered: u64,
    started: bool,
    completed: bool,
    /// Data arrived out of order since the last allocation.
    gap: bool,
    out: VecDeque<Packet>,
    event: Option<EndpointEvent>,
}

impl PaceReceiver {
    pub fn new(p: &PaceParams, f: &FlowSetup) -> PaceReceiver {
        PaceReceiver {
            flow: f.flow,
            me: f.dst,
            peer: f.src,
            path_key: f.path_key,
            size: f.size,
            control_bytes: p.header + WIRE_BYTES,
            p_init: p.period_units,
            w_receiver: WEIGHT_ONE,
            w_sender: WEIGHT_ONE,
            max_potential: 0,
            feedback: None,
            epoch: 0,
            next_alloc: None,
            delivered: 0,
            started: false,
            completed: false,
            gap: false,
            out: VecDeque::with_capacity(2),
            event: None,
        }
    }

    fn control(&self, now: Time, h: PaceHeader) -> Packet {
        Packet {
            kind: PacketKind::Ack,
            ack: self.delivered,
            size: self.control_bytes,
            header: Header::of(h),
            ..Packet::of_flow(self.flow, self.me, self.peer, self.path_key, now)
        }
    }

    /// The current period: the one the sender last returned (the path's), else the initial.
    fn period(&self) -> u8 {
        self.feedback.map_or(self.p_init, |f| f.period)
    }

    /// This period's allocation message. Its fields are in credits of the *initial* period,
    /// which forwarders raise to their own: so the flow's period can shrink again when the
    /// forwarders' periods do. The demand the sender returned (for its period) is rescaled
    /// to the initial period, rounded up.
    fn allocation(&mut self, now: Time) -> Packet {
        self.epoch = self.epoch.wrapping_add(1);
        let demand = match self.feedback {
            None => self.max_potential,
            Some(f) => credits_up(
                (bytes_of(f.potential) * self.p_init as u64).div_ceil(f.period.max(1) as u64),
            ),
        };
        let h = PaceHeader {
            msg: MSG_ALLOCATION,
            flags: if std::mem::take(&mut self.gap) {
                FLAG_GAP
            } else {
                0
            },
            epoch: self.epoch,
            period: self.p_init,
            potential: self.max_potential,
            demand,
            alloc: demand,
            w_sender: self.w_sender,
            w_receiver: self.w_receiver,
        };
        self.control(now, h)
    }

    fn push(&mut self, p: Packet) {
        self.out.push_back(p);
    }

    /// The flow's end: no more allocations, and TERMINATE for the forwarders of the path.
    fn terminate(&mut self, now: Time) {
        self.completed = true;
        self.next_alloc = None;
        let t = PaceHeader {
            msg: MSG_TERMINATE,
            ..Default::default()
        };
        let p = self.control(now, t);
        self.push(p);
    }

    /// The allocations issued so far (the logical clock; wraps at 256).
    pub fn epoch(&self) -> u8 {
        self.epoch
    }
}

impl Endpoint for PaceReceiver {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        let Some(h) = pkt.header.read::<PaceHeader>() else {
            return;
        };
        if self.completed {
            return;
        }
        match (pkt.kind, h.msg) {
            (PacketKind::Syn, MSG_REQUEST) if !self.started => {
                self.started = true;
                self.w_sender = h.w_sender.max(1);
                self.max_potential = h.potential;
                let a = self.allocation(now);
                self.push(a);
                self.next_alloc = Some(now + period_time(self.period()));
            }
            (PacketKind::Data, MSG_DATA) => {
                if h.has(FLAG_FEEDBACK) {
                    let newer = self
                        .feedback
                        .is_none_or(|f| h.epoch.wrapping_sub(f.epoch) as i8 >= 0);
                    if newer {
                        self.feedback = Some(Feedback {
                            epoch: h.epoch,
                            potential: h.potential,
                            period: h.period.max(1),
                        });
                    }
                }
                // In order only: PACE's path is one and lossless (see the module doc). A
                // resent segment may straddle what has arrived (other packet boundaries).
                let end = pkt.seq + pkt.payload as u64;
                if pkt.payload > 0 && pkt.seq <= self.delivered && end > self.delivered {
                    self.delivered = end;
                } else if pkt.payload > 0 && pkt.seq > self.delivered {
                    self.gap = true;
                }
                if self.delivered >= self.size {
                    self.terminate(now);
                    self.event = Some(EndpointEvent::Completed);
                }
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.next_alloc.is_some_and(|t| now >= t) {
            let a = self.allocation(now);
            self.push(a);
            self.next_alloc = Some(now + period_time(self.period()));
        }
    }

    fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.next_alloc
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.event.take()
    }

    /// The application gives up on the flow: TERMINATE, as at completion, so that the
    /// forwarders of the path let the flow go; nothing else is sent.
    fn abort(&mut self, now: Time) -> bool {
        if self.completed {
            return false;
        }
        self.out.clear();
        self.terminate(now);
        true
    }
}

impl ReceiverEndpoint for PaceReceiver {
    fn bytes_delivered(&self) -> u64 {
        self.delivered.min(self.size)
    }
}
