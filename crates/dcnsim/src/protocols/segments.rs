//! What the scheduling protocols' receivers (PDQ, MERP) share: data reassembled by segment, a
//! cumulative ACK number, the answers queued for the engine, and the flow's completion once
//! every segment is in. Each protocol decides what to answer and with which header.

use crate::net::packet::Packet;
use crate::protocols::EndpointEvent;
use std::collections::VecDeque;

pub(crate) struct Segments {
    mss: u32,
    size: u64,
    /// Segments received, in or out of order.
    got: Vec<bool>,
    /// Segments delivered in order (the prefix of `got` that is complete).
    in_order: u32,
    out: VecDeque<Packet>,
    events: VecDeque<EndpointEvent>,
    completed: bool,
}

impl Segments {
    /// A flow of `size` bytes in `segments` segments of `mss` bytes.
    pub fn new(mss: u32, size: u64, segments: usize) -> Segments {
        Segments {
            mss,
            size,
            got: vec![false; segments],
            in_order: 0,
            out: VecDeque::new(),
            events: VecDeque::new(),
            completed: false,
        }
    }

    /// The data segment that starts at byte `seq` has arrived (one beyond the flow is ignored).
    pub fn receive(&mut self, seq: u64) {
        let seg = (seq / self.mss as u64) as usize;
        if let Some(g) = self.got.get_mut(seg) {
            *g = true;
        }
        while self.got.get(self.in_order as usize) == Some(&true) {
            self.in_order += 1;
        }
    }

    /// Bytes delivered in order: the cumulative ACK number.
    pub fn bytes_delivered(&self) -> u64 {
        (self.in_order as u64 * self.mss as u64).min(self.size)
    }

    /// Queues an answer; the flow completes with the first answer sent once every segment is
    /// in (a flow of no segments, with its first).
    pub fn answer(&mut self, ack: Packet) {
        self.out.push_back(ack);
        if !self.completed && self.in_order as usize == self.got.len() {
            self.completed = true;
            self.events.push_back(EndpointEvent::Completed);
        }
    }

    pub fn poll_transmit(&mut self) -> Option<Packet> {
        self.out.pop_front()
    }

    pub fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Out-of-order segments wait for the gap; the flow completes with the first answer after
    /// the last one, once; an empty flow with its first answer.
    #[test]
    fn reassembles_in_order_and_completes_once() {
        let mut s = Segments::new(1000, 2500, 3);
        s.receive(2000);
        assert_eq!(s.bytes_delivered(), 0);
        s.receive(0);
        assert_eq!(s.bytes_delivered(), 1000);
        s.answer(Packet::default());
        assert_eq!(s.poll_event(), None);
        s.receive(1000);
        assert_eq!(s.bytes_delivered(), 2500);
        s.receive(7000); // beyond the flow: ignored
        s.answer(Packet::default());
        s.answer(Packet::default());
        assert_eq!(s.poll_event(), Some(EndpointEvent::Completed));
        assert_eq!(s.poll_event(), None);
        assert!((0..3).all(|_| s.poll_transmit().is_some()));
        assert!(s.poll_transmit().is_none());

        let mut empty = Segments::new(1000, 0, 0);
        empty.answer(Packet::default());
        assert_eq!(empty.poll_event(), Some(EndpointEvent::Completed));
    }
}
