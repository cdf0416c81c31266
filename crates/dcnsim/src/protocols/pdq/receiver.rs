//! The PDQ receiver (§3.2): echoes the scheduling header of every SYN, data packet and probe in
//! its answer; one resequencing buffer per flow, shared by all of an M-PDQ flow's subflows
//! (§6), over the flow's byte sequence.

use super::header::{PdqHeader, WIRE_BYTES};
use super::sender::PROBE_SEQ;
use super::PdqParams;
use crate::net::packet::{Packet, PacketKind};
use crate::protocols::{EndpointEvent, FlowSetup};
use crate::units::Time;
use std::collections::VecDeque;

pub struct PdqReceiver {
    mss: u32,
    header: u32,
    size: u64,
    /// Segments received, in or out of order.
    got: Vec<bool>,
    /// Segments delivered in order (the prefix of `got` that is complete).
    in_order: u32,
    out: VecDeque<Packet>,
    events: VecDeque<EndpointEvent>,
    completed: bool,
}

impl PdqReceiver {
    pub fn new(p: &PdqParams, f: &FlowSetup) -> PdqReceiver {
        let segments = f.size.div_ceil(p.mss as u64).max(1) as usize;
        PdqReceiver {
            mss: p.mss,
            header: p.header,
            size: f.size,
            got: vec![false; segments],
            in_order: 0,
            out: VecDeque::new(),
            events: VecDeque::new(),
            completed: false,
        }
    }

    pub fn handle_packet(&mut self, _now: Time, pkt: &Packet) {
        let Some(h) = PdqHeader::read(pkt) else {
            return;
        };
        let kind = match pkt.kind {
            PacketKind::Syn => PacketKind::SynAck,
            PacketKind::Data => PacketKind::Ack,
            _ => return, // TERM: nothing to answer
        };
        let mut seq = pkt.seq;
        if pkt.kind == PacketKind::Data && pkt.seq != PROBE_SEQ {
            if pkt.payload == 0 {
                seq = PROBE_SEQ; // its payload was stripped in a full queue: answer as a probe
            } else {
                let seg = (pkt.seq / self.mss as u64) as usize;
                self.got[seg] = true;
                while self.got.get(self.in_order as usize) == Some(&true) {
                    self.in_order += 1;
                }
            }
        }
        let mut ack = Packet {
            flow: pkt.flow,
            src: pkt.dst,
            dst: pkt.src,
            path_key: pkt.path_key,
            kind,
            seq,
            ack: self.bytes_delivered(),
            size: self.header + WIRE_BYTES,
            ts: pkt.ts,
            ts_echo: pkt.ts,
            ..Default::default()
        };
        h.write(&mut ack);
        self.out.push_back(ack);
        if !self.completed && self.in_order as usize == self.got.len() {
            self.completed = true;
            self.events.push_back(EndpointEvent::Completed);
        }
    }

    pub fn handle_timeout(&mut self, _now: Time) {}

    pub fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        self.out.pop_front()
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        None
    }

    pub fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }

    pub fn bytes_delivered(&self) -> u64 {
        (self.in_order as u64 * self.mss as u64).min(self.size)
    }
}
