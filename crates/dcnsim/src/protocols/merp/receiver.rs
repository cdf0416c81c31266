//! The MERP receiver (§4.2): answers every SYN, DATA and FIN with its ACK, copying asr and esr
//! into it; answers a DET with a BOOST when the DET's asr exceeds Q (the sender may start at
//! once), else with a DETACK. Data is reassembled by segment; the ACK number is cumulative.

use super::header::{MerpHeader, MerpKind};
use super::MerpParams;
use crate::net::packet::Packet;
use crate::protocols::segments::Segments;
use crate::protocols::{Endpoint, ReceiverEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup};
use crate::units::Time;

pub struct MerpReceiver {
    header: u32,
    segments: Segments,
}

impl MerpReceiver {
    pub fn new(p: &MerpParams, f: &FlowSetup) -> MerpReceiver {
        let segments = f.size.div_ceil(p.mss as u64) as usize;
        MerpReceiver {
            header: p.header,
            segments: Segments::new(p.mss, f.size, segments),
        }
    }
}

impl Endpoint for MerpReceiver {
    fn handle_packet(&mut self, _now: Time, pkt: &Packet) {
        let Some(h) = MerpHeader::read(pkt) else {
            return;
        };
        let kind = match h.kind {
            MerpKind::Syn => MerpKind::SynAck,
            MerpKind::Data => {
                if pkt.payload > 0 {
                    self.segments.receive(pkt.seq);
                }
                MerpKind::DataAck
            }
            MerpKind::Det if h.asr_kbps > h.q_kbps => MerpKind::Boost,
            MerpKind::Det => MerpKind::DetAck,
            MerpKind::Fin => MerpKind::FinAck,
            _ => return,
        };
        let mut ack = Packet {
            seq: pkt.seq,
            ack: self.bytes_delivered(),
            size: self.header,
            ts: pkt.ts,
            ..Packet::answer(pkt)
        };
        MerpHeader { kind, ..h }.write(&mut ack);
        // (An empty flow completes with its SYN.)
        self.segments.answer(ack);
    }

    fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        self.segments.poll_transmit()
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.segments.poll_event()
    }
}

impl ReceiverEndpoint for MerpReceiver {
    fn bytes_delivered(&self) -> u64 {
        self.segments.bytes_delivered()
    }
}
