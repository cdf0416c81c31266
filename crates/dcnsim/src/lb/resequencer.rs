//! A receiver-side reordering buffer in front of a transport receiver (sans-IO, like the
//! transports): DRB's resequencing buffer and Presto's GRO changes.
//!
//! The engine hands every packet that reaches the receiving host to
//! [`Resequencer::handle_packet`] with the receiver's next expected byte; `true` means "give it
//! to the receiver now", `false` means the buffer kept a copy. After the receiver has taken
//! something, [`Resequencer::pop_ready`] yields held packets that are now in order (or all of
//! them once the hold timed out). [`Resequencer::poll_timeout`] / [`Resequencer::handle_timeout`]
//! drive the timer.
//!
//! Modes:
//! * `HoldEveryGap` (DRB): a data packet above the next expected byte is held.
//! * `FlowcellBoundary` (Presto §4): it is held only if its flowcell differs from the cell of the
//!   last packet delivered in order — reordering across cells that took different paths; a gap
//!   inside the current cell means loss and the packet goes up at once, so TCP sees the
//!   duplicate ACKs it needs for fast retransmit.
//!
//! A hold ends when the gap fills (the held packets go up in sequence order) or at the latest
//! `timeout` after the first packet of the current hold was held: then everything held goes up.
//! Packets without payload, and data at or below the next expected byte, pass at once. The
//! buffer has no size limit (the timeout bounds it). Nothing allocates per packet once the
//! buffer has reached its working size.

use crate::net::packet::Packet;
use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    HoldEveryGap,
    FlowcellBoundary,
}

pub struct Resequencer {
    mode: Mode,
    timeout: Time,
    /// Held packets in sequence order.
    held: VecDeque<Packet>,
    deadline: Option<Time>,
    /// The hold timed out: release everything.
    flushing: bool,
    /// Presto: flowcell of the last packet delivered in order.
    cell: Option<u16>,
    /// Packets ever held (for the per-flow statistics).
    pub held_total: u64,
}

impl Resequencer {
    pub fn new(mode: Mode, timeout: Time) -> Resequencer {
        Resequencer {
            mode,
            timeout,
            held: VecDeque::new(),
            deadline: None,
            flushing: false,
            cell: None,
            held_total: 0,
        }
    }

    /// A packet arrived; `next` is the receiver's next expected byte. Returns whether to
    /// deliver it now (otherwise it is held).
    pub fn handle_packet(&mut self, now: Time, pkt: &Packet, next: u64) -> bool {
        if pkt.payload == 0 || pkt.seq <= next {
            if pkt.payload > 0 {
                self.cell = Some(pkt.lb.cell);
            }
            return true;
        }
        let hold = match self.mode {
            Mode::HoldEveryGap => true,
            Mode::FlowcellBoundary => self.cell != Some(pkt.lb.cell),
        };
        if !hold {
            return true;
        }
        let at = self.held.partition_point(|p| p.seq <= pkt.seq);
        self.held.insert(at, pkt.clone());
        self.held_total += 1;
        self.deadline.get_or_insert(now + self.timeout);
        false
    }

    /// The next held packet to deliver, given the receiver's next expected byte now.
    pub fn pop_ready(&mut self, next: u64) -> Option<Packet> {
        let ready = self
            .held
            .front()
            .is_some_and(|p| self.flushing || p.seq <= next);
        let p = if ready { self.held.pop_front() } else { None };
        if let Some(p) = &p {
            self.cell = Some(p.lb.cell);
        }
        if self.held.is_empty() {
            self.deadline = None;
            self.flushing = false;
        }
        p
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.deadline
    }

    /// The hold timer fired: the next `pop_ready` calls release everything held.
    pub fn handle_timeout(&mut self, now: Time) {
        if self.deadline.is_some_and(|d| d <= now) {
            self.flushing = true;
            self.deadline = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(i: u64, cell: u16) -> Packet {
        let mut p = Packet {
            seq: i * 100,
            payload: 100,
            ..Default::default()
        };
        p.lb.cell = cell;
        p
    }

    /// Delivers `pkts` through the buffer into a cumulative-ACK receiver (its next expected
    /// byte); returns the ACK numbers the receiver would send.
    fn run(rs: &mut Resequencer, pkts: &[Packet], now: Time, next: &mut u64) -> Vec<u64> {
        let mut acks = Vec::new();
        let give = |p: &Packet, next: &mut u64, acks: &mut Vec<u64>| {
            if p.seq <= *next {
                *next = (*next).max(p.seq + p.payload as u64);
            }
            acks.push(*next);
        };
        for p in pkts {
            if rs.handle_packet(now, p, *next) {
                give(p, next, &mut acks);
            }
            while let Some(h) = rs.pop_ready(*next) {
                give(&h, next, &mut acks);
            }
        }
        acks
    }

    #[test]
    fn drb_mode_hides_reordering_from_the_receiver() {
        let mut rs = Resequencer::new(Mode::HoldEveryGap, Time::from_us(100));
        let mut next = 0;
        let order = [0, 2, 3, 1, 5, 4].map(|i| seg(i, 0));
        let acks = run(&mut rs, &order, Time::ZERO, &mut next);
        assert_eq!(acks, [100, 200, 300, 400, 500, 600], "no duplicate ACKs");
        assert_eq!(rs.poll_timeout(), None);
        assert_eq!(rs.held_total, 3);
    }

    #[test]
    fn presto_holds_across_a_cell_boundary_but_not_inside_a_cell() {
        let mut rs = Resequencer::new(Mode::FlowcellBoundary, Time::from_us(100));
        let mut next = 0;
        // Cell 0 = segments 0..3 on a slow path, cell 1 = 3..6 on a fast one: 3, 4 overtake 2.
        let order = [
            seg(0, 0),
            seg(1, 0),
            seg(3, 1),
            seg(4, 1),
            seg(2, 0),
            seg(5, 1),
        ];
        let acks = run(&mut rs, &order, Time::ZERO, &mut next);
        assert_eq!(acks, [100, 200, 300, 400, 500, 600]);
        // Inside cell 1, segment 7 is missing (lost): 8 goes up at once and makes a dupACK.
        let acks = run(&mut rs, &[seg(6, 1), seg(8, 1)], Time::ZERO, &mut next);
        assert_eq!(acks, [700, 700]);
    }

    #[test]
    fn a_hold_ends_at_the_timeout() {
        let mut rs = Resequencer::new(Mode::HoldEveryGap, Time::from_us(100));
        let mut next = 0;
        let acks = run(
            &mut rs,
            &[seg(0, 0), seg(2, 0), seg(3, 0)],
            Time::from_us(5),
            &mut next,
        );
        assert_eq!(acks, [100]);
        assert_eq!(rs.poll_timeout(), Some(Time::from_us(105)));
        rs.handle_timeout(Time::from_us(104));
        assert!(rs.pop_ready(next).is_none(), "not yet");
        rs.handle_timeout(Time::from_us(105));
        let released: Vec<u64> = std::iter::from_fn(|| rs.pop_ready(next))
            .map(|p| p.seq)
            .collect();
        assert_eq!(released, [200, 300]);
        assert_eq!(rs.poll_timeout(), None);
    }
}
