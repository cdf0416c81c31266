//! The MERP receiver (§4.2): answers every SYN, DATA and FIN with its ACK, copying asr and esr
//! into it; answers a DET with a BOOST when the DET's asr exceeds Q (the sender may start at
//! once), else with a DETACK. Data is reassembled by segment; the ACK number is cumulative.

use super::header::{MerpHeader, MerpKind};
use super::MerpParams;
use crate::net::packet::Packet;
use crate::protocols::{EndpointEvent, FlowSetup};
use crate::units::Time;
use std::collections::VecDeque;

pub struct MerpReceiver {
    mss: u32,
    header: u32,
    size: u64,
    /// Segments received, in or out of order, and the complete prefix of them.
    got: Vec<bool>,
    in_order: u32,
    out: VecDeque<Packet>,
    events: VecDeque<EndpointEvent>,
    completed: bool,
}

impl MerpReceiver {
    pub fn new(p: &MerpParams, f: &FlowSetup) -> MerpReceiver {
        let segments = f.size.div_ceil(p.mss as u64) as usize;
        MerpReceiver {
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
        let Some(h) = MerpHeader::read(pkt) else {
            return;
        };
        let kind = match h.kind {
            MerpKind::Syn => MerpKind::SynAck,
            MerpKind::Data => {
                if pkt.payload > 0 {
                    let seg = (pkt.seq / self.mss as u64) as usize;
                    if let Some(g) = self.got.get_mut(seg) {
                        *g = true;
                    }
                    while self.got.get(self.in_order as usize) == Some(&true) {
                        self.in_order += 1;
                    }
                }
                MerpKind::DataAck
            }
            MerpKind::Det if h.asr_kbps > h.q_kbps => MerpKind::Boost,
            MerpKind::Det => MerpKind::DetAck,
            MerpKind::Fin => MerpKind::FinAck,
            _ => return,
        };
        let mut ack = Packet {
            flow: pkt.flow,
            src: pkt.dst,
            dst: pkt.src,
            path_key: pkt.path_key,
            seq: pkt.seq,
            ack: self.bytes_delivered(),
            size: self.header,
            ts: pkt.ts,
            ts_echo: pkt.ts,
            ..Default::default()
        };
        MerpHeader { kind, ..h }.write(&mut ack);
        self.out.push_back(ack);
        // (An empty flow completes with its SYN.)
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
