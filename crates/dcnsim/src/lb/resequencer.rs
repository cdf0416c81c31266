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
//! A held packet waits until the gap below it fills or until it has been held `timeout`; when
//! that expires, the buffer gives up on the gaps below it: it and every held packet below it go
//! up in sequence order (held packets above it keep waiting, each for its own full hold).
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
    /// Held packets in sequence order, with the time each was held.
    held: VecDeque<(Time, Packet)>,
    /// When the oldest held packet's hold expires.
    deadline: Option<Time>,
    /// Set by the timer: held packets up to this sequence number go up (cleared when the
    /// release stops).
    release_upto: Option<u64>,
    /// Data handed to the receiver above its next expected byte (expired holds, Presto's
    /// in-cell gaps): sorted, disjoint byte ranges, so that [`Resequencer::extend`] knows
    /// where the receiver will stand once a gap below them fills.
    released: Vec<(u64, u64)>,
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
            release_upto: None,
            released: Vec::new(),
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
            self.note_released(pkt);
            return true;
        }
        let at = self.held.partition_point(|(_, p)| p.seq <= pkt.seq);
        self.held.insert(at, (now, pkt.clone()));
        self.held_total += 1;
        self.deadline.get_or_insert(now + self.timeout);
        false
    }

    /// The next held packet to deliver, given the receiver's next expected byte now.
    pub fn pop_ready(&mut self, next: u64) -> Option<Packet> {
        let upto = self.release_upto;
        let ready = self
            .held
            .front()
            .is_some_and(|(_, p)| p.seq <= next || upto.is_some_and(|u| p.seq <= u));
        if !ready {
            // Nothing more goes up now: the next expiry is that of the oldest remaining hold.
            self.release_upto = None;
            self.deadline = self
                .held
                .iter()
                .map(|h| h.0)
                .min()
                .map(|t| t + self.timeout);
            return None;
        }
        let (_, p) = self.held.pop_front().expect("checked");
        if p.seq > next {
            self.note_released(&p);
        }
        self.cell = Some(p.lb.cell);
        Some(p)
    }

    /// The receiver's next expected byte once everything up to `next` is in: `next` carried
    /// through the data already handed up out of order.
    pub fn extend(&mut self, mut next: u64) -> u64 {
        let k = self.released.partition_point(|r| r.0 <= next);
        if k > 0 {
            next = next.max(self.released[k - 1].1);
            self.released.drain(..k);
        }
        next
    }

    fn note_released(&mut self, p: &Packet) {
        let (seq, end) = (p.seq, p.seq + p.payload as u64);
        let i = self.released.partition_point(|r| r.1 < seq);
        let j = self.released.partition_point(|r| r.0 <= end);
        if i == j {
            self.released.insert(i, (seq, end));
        } else {
            let merged = (seq.min(self.released[i].0), end.max(self.released[j - 1].1));
            self.released[i] = merged;
            self.released.drain(i + 1..j);
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.deadline
    }

    /// The hold timer fired: the next `pop_ready` calls release the expired holds (and what is
    /// in order behind them).
    pub fn handle_timeout(&mut self, now: Time) {
        if self.deadline.is_some_and(|d| d <= now) {
            self.release_upto = self
                .held
                .iter()
                .filter(|(t, _)| *t + self.timeout <= now)
                .map(|(_, p)| p.seq)
                .max();
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
    fn a_younger_hold_keeps_its_full_time() {
        let mut rs = Resequencer::new(Mode::HoldEveryGap, Time::from_us(100));
        let mut next = 0;
        run(&mut rs, &[seg(0, 0), seg(2, 0)], Time::ZERO, &mut next);
        run(&mut rs, &[seg(5, 0)], Time::from_us(60), &mut next);
        assert_eq!(rs.poll_timeout(), Some(Time::from_us(100)));
        rs.handle_timeout(Time::from_us(100));
        let released: Vec<u64> = std::iter::from_fn(|| rs.pop_ready(next))
            .map(|p| p.seq)
            .collect();
        assert_eq!(released, [200], "segment 5 was held only 40 µs");
        assert_eq!(rs.poll_timeout(), Some(Time::from_us(160)));
    }

    #[test]
    fn an_expired_hold_releases_the_younger_ones_below_it() {
        let mut rs = Resequencer::new(Mode::HoldEveryGap, Time::from_us(100));
        let mut next = 0;
        run(&mut rs, &[seg(0, 0), seg(5, 0)], Time::ZERO, &mut next);
        run(
            &mut rs,
            &[seg(3, 0), seg(7, 0)],
            Time::from_us(60),
            &mut next,
        );
        rs.handle_timeout(Time::from_us(100));
        let released: Vec<u64> = std::iter::from_fn(|| rs.pop_ready(next))
            .map(|p| p.seq)
            .collect();
        assert_eq!(released, [300, 500]);
        assert_eq!(rs.poll_timeout(), Some(Time::from_us(160)));
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
