//! The PDQ receiver (§3.2): echoes the scheduling header of every SYN, data packet and probe in
//! its answer; one resequencing buffer per flow, shared by all of an M-PDQ flow's subflows
//! (§6), over the flow's byte sequence.

use super::header::{PdqHeader, WIRE_BYTES};
use super::sender::PROBE_SEQ;
use super::PdqParams;
use crate::net::packet::{Packet, PacketKind};
use crate::protocols::segments::Segments;
use crate::protocols::{Endpoint, ReceiverEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup};
use crate::units::Time;

pub struct PdqReceiver {
    header: u32,
    segments: Segments,
}

impl PdqReceiver {
    pub fn new(p: &PdqParams, f: &FlowSetup) -> PdqReceiver {
        let segments = f.size.div_ceil(p.mss as u64).max(1) as usize;
        PdqReceiver {
            header: p.header,
            segments: Segments::new(p.mss, f.size, segments),
        }
    }
}

impl Endpoint for PdqReceiver {
    fn handle_packet(&mut self, _now: Time, pkt: &Packet) {
        let Some(mut h) = PdqHeader::read(pkt) else {
            return;
        };
        if h.pause_by != 0 && !h.pauser_crossed {
            // The link that paused the flow is no longer on its path (a reroute): no link
            // paused it this time, and none granted anything. Its next probe asks them all.
            h.pause_by = 0;
            h.rate_kbps = 0;
        }
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
                self.segments.receive(pkt.seq);
            }
        }
        let mut ack = Packet {
            kind,
            seq,
            ack: self.bytes_delivered(),
            size: self.header + WIRE_BYTES,
            ts: pkt.ts,
            ..Packet::answer(pkt)
        };
        h.write(&mut ack);
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

impl ReceiverEndpoint for PdqReceiver {
    fn bytes_delivered(&self) -> u64 {
        self.segments.bytes_delivered()
    }
}
