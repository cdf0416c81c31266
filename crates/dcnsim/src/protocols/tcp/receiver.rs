//! The TCP receiver: answers SYNs, reassembles byte ranges, ACKs every data packet.
//!
//! One ACK per data packet (no delayed ACK, see the module doc), carrying the cumulative next
//! expected byte, `ece` = CE of *that* data packet (DCTCP per-packet echo, never latched) and
//! the packet's `ts` in `ts_echo`. The reply echoes the packet's protocol
//! [`Header`](crate::net::header::Header) (always empty for TCP), so explicit-rate protocols
//! reuse this receiver.

use super::TcpParams;
use crate::net::packet::{Ecn, FlowId, HostId, Packet, PacketKind};
use crate::protocols::{Endpoint, ReceiverEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup};
use crate::units::Time;
use std::collections::VecDeque;

pub struct TcpReceiver {
    flow: FlowId,
    /// The receiver's own host (the flow's destination) and the flow's sender.
    host: HostId,
    peer: HostId,
    path_key: u32,
    header: u32,
    size: u64,
    /// Next byte expected in order; every byte below it has been delivered.
    rcv_nxt: u64,
    /// Out-of-order data above `rcv_nxt`: sorted, disjoint, non-touching half-open ranges.
    /// A small `Vec` is the right structure: it rarely holds more than a few holes, and it is
    /// kept (not reallocated) across packets.
    ooo: Vec<(u64, u64)>,
    /// Packets waiting for `poll_transmit`. Normally at most one; a queue keeps the receiver
    /// correct even if a driver handles several packets before draining. Capacity is reused.
    out: VecDeque<Packet>,
    completed: bool,
    event: Option<EndpointEvent>,
}

impl TcpReceiver {
    pub fn new(p: &TcpParams, f: &FlowSetup) -> TcpReceiver {
        TcpReceiver::with_header_bytes(p.header, f)
    }

    /// A receiver whose replies are `header` bytes on the wire: the cumulative-ACK receiver of
    /// other protocols (pFabric, RCP, D3), whose replies also echo the data packet's
    /// [`Header`](crate::net::header::Header) fields.
    pub fn with_header_bytes(header: u32, f: &FlowSetup) -> TcpReceiver {
        TcpReceiver {
            flow: f.flow,
            host: f.dst,
            peer: f.src,
            path_key: f.path_key,
            header,
            size: f.size,
            rcv_nxt: 0,
            ooo: Vec::new(),
            out: VecDeque::with_capacity(2),
            completed: false,
            event: None,
        }
    }

    /// Records the byte range `[seq, end)` as received.
    fn absorb(&mut self, seq: u64, end: u64) {
        if end <= self.rcv_nxt {
            return; // a duplicate: nothing new
        }
        if seq <= self.rcv_nxt {
            self.rcv_nxt = end;
            // The hole may now be filled: swallow every stored range that starts at or below
            // the new edge. Stored ranges never touch, so only the last swallowed one can reach
            // beyond it.
            let k = self.ooo.partition_point(|r| r.0 <= self.rcv_nxt);
            if k > 0 {
                self.rcv_nxt = self.rcv_nxt.max(self.ooo[k - 1].1);
                self.ooo.drain(..k);
            }
        } else {
            // Merge with every stored range it overlaps or touches: those are ooo[i..j].
            let i = self.ooo.partition_point(|r| r.1 < seq);
            let j = self.ooo.partition_point(|r| r.0 <= end);
            if i == j {
                self.ooo.insert(i, (seq, end));
            } else {
                let merged = (seq.min(self.ooo[i].0), end.max(self.ooo[j - 1].1));
                self.ooo[i] = merged;
                self.ooo.drain(i + 1..j);
            }
        }
    }

    fn reply(&mut self, now: Time, kind: PacketKind, to: &Packet) {
        self.out.push_back(Packet {
            kind,
            ack: self.rcv_nxt,
            size: self.header,
            // ACKs are not ECN-capable (RFC 3168 §6.1.4); DCTCP marks only data.
            ecn: Ecn::NotEct,
            // Per-packet echo (DCTCP §3.1 with m = 1): no RFC 3168 latching.
            ece: to.ecn == Ecn::Ce,
            ts_echo: to.ts,
            // Protocol header fields travel back to the sender (nothing for TCP).
            header: to.header,
            ..Packet::of_flow(self.flow, self.host, self.peer, self.path_key, now)
        });
    }

    fn check_complete(&mut self) {
        if !self.completed && self.rcv_nxt >= self.size {
            self.completed = true;
            self.event = Some(EndpointEvent::Completed);
        }
    }

    #[cfg(test)]
    pub(super) fn ooo_ranges(&self) -> &[(u64, u64)] {
        &self.ooo
    }
}

impl Endpoint for TcpReceiver {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        match pkt.kind {
            // Every SYN is answered, duplicates included: the sender retransmits its SYN when
            // the SYN *or* the SYN-ACK was lost, and only a fresh SYN-ACK can end its wait.
            PacketKind::Syn => {
                self.reply(now, PacketKind::SynAck, pkt);
                // A zero-byte flow is complete as soon as it is open (never made by the
                // workload; handled so that it cannot hang or panic).
                self.check_complete();
            }
            PacketKind::Data => {
                let end = pkt.seq + pkt.payload as u64;
                self.absorb(pkt.seq, end);
                self.reply(now, PacketKind::Ack, pkt);
                self.check_complete();
            }
            // ACKs and SYN-ACKs travel the other way; FIN is not used.
            _ => {}
        }
    }

    /// No timers: without delayed ACKs the receiver only ever reacts to packets.
    fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.event.take()
    }
}

impl ReceiverEndpoint for TcpReceiver {
    fn bytes_delivered(&self) -> u64 {
        self.rcv_nxt.min(self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::Protocol;

    const MSS: u64 = 1460;

    fn rx(size: u64) -> TcpReceiver {
        let p = TcpParams::from_config("dctcp", &Default::default()).unwrap();
        let f = FlowSetup {
            src: 1,
            dst: 2,
            path_key: 99,
            ..FlowSetup::for_tests(size)
        };
        TcpReceiver::new(&p, &f)
    }

    fn data(seg: u64, ecn: Ecn, ts: Time) -> Packet {
        Packet {
            kind: PacketKind::Data,
            seq: seg * MSS,
            payload: MSS as u32,
            size: MSS as u32 + 40,
            ecn,
            ts,
            ..Default::default()
        }
    }

    /// Delivers one data segment and returns the ACK number of the single reply.
    fn feed(r: &mut TcpReceiver, seg: u64) -> u64 {
        r.handle_packet(Time::ZERO, &data(seg, Ecn::Ect, Time::ZERO));
        let a = r
            .poll_transmit(Time::ZERO)
            .expect("one ACK per data packet");
        assert!(r.poll_transmit(Time::ZERO).is_none());
        a.ack
    }

    #[test]
    fn out_of_order_ranges_merge_and_ack_jumps_when_hole_fills() {
        let mut r = rx(6 * MSS);
        assert_eq!(feed(&mut r, 0), MSS);
        assert_eq!(feed(&mut r, 2), MSS);
        assert_eq!(r.ooo_ranges(), &[(2 * MSS, 3 * MSS)]);
        assert_eq!(feed(&mut r, 4), MSS);
        assert_eq!(r.ooo_ranges(), &[(2 * MSS, 3 * MSS), (4 * MSS, 5 * MSS)]);
        // Segment 3 touches both stored ranges: they become one.
        assert_eq!(feed(&mut r, 3), MSS);
        assert_eq!(r.ooo_ranges(), &[(2 * MSS, 5 * MSS)]);
        // A duplicate inside the stored range changes nothing.
        assert_eq!(feed(&mut r, 3), MSS);
        assert_eq!(r.ooo_ranges(), &[(2 * MSS, 5 * MSS)]);
        assert_eq!(r.bytes_delivered(), MSS);
        // Segment 1 fills the hole: the cumulative ACK jumps over everything stored.
        assert_eq!(feed(&mut r, 1), 5 * MSS);
        assert!(r.ooo_ranges().is_empty());
        assert_eq!(r.bytes_delivered(), 5 * MSS);
        assert_eq!(r.poll_event(), None);
        assert_eq!(feed(&mut r, 5), 6 * MSS);
        assert_eq!(r.poll_event(), Some(EndpointEvent::Completed));
    }

    #[test]
    fn completed_is_emitted_exactly_once() {
        let mut r = rx(2 * MSS);
        feed(&mut r, 1);
        assert_eq!(r.poll_event(), None);
        feed(&mut r, 0);
        assert_eq!(r.poll_event(), Some(EndpointEvent::Completed));
        assert_eq!(r.poll_event(), None);
        // Duplicates after completion are still ACKed but complete nothing again.
        assert_eq!(feed(&mut r, 0), 2 * MSS);
        assert_eq!(feed(&mut r, 1), 2 * MSS);
        assert_eq!(r.poll_event(), None);
    }

    #[test]
    fn ack_echoes_ce_per_packet_and_timestamp() {
        let mut r = rx(10 * MSS);
        let marks = [Ecn::Ce, Ecn::Ect, Ecn::Ce, Ecn::Ce, Ecn::NotEct];
        let mut echoes = Vec::new();
        for (i, &m) in marks.iter().enumerate() {
            let ts = Time::from_us(5 + i as u64);
            r.handle_packet(Time::from_us(100), &data(i as u64, m, ts));
            let a = r.poll_transmit(Time::from_us(100)).unwrap();
            assert_eq!(a.kind, PacketKind::Ack);
            assert_eq!((a.src, a.dst, a.flow, a.path_key), (2, 1, 7, 99));
            assert_eq!(a.size, 40);
            assert_eq!(a.ecn, Ecn::NotEct);
            assert_eq!(a.ts_echo, ts);
            echoes.push(a.ece);
        }
        // Exactly the CE pattern, not latched after the first mark.
        assert_eq!(echoes, [true, false, true, true, false]);
    }

    #[test]
    fn every_syn_is_answered_with_a_synack() {
        let mut r = rx(MSS);
        for ts in [Time::ZERO, Time::from_us(1000)] {
            let syn = Packet {
                kind: PacketKind::Syn,
                size: 40,
                ts,
                ..Default::default()
            };
            r.handle_packet(ts, &syn);
            let a = r.poll_transmit(ts).unwrap();
            assert_eq!(
                (a.kind, a.ack, a.ts_echo, a.size),
                (PacketKind::SynAck, 0, ts, 40)
            );
        }
        assert_eq!(r.poll_event(), None);
    }

    #[test]
    fn zero_byte_flow_completes_on_syn() {
        let mut r = rx(0);
        r.handle_packet(
            Time::ZERO,
            &Packet {
                kind: PacketKind::Syn,
                ..Default::default()
            },
        );
        assert!(r.poll_transmit(Time::ZERO).is_some());
        assert_eq!(r.poll_event(), Some(EndpointEvent::Completed));
    }
}
