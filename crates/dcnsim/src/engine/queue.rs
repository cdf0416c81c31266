//! The event queue: a binary min-heap ordered by `(time, seq)`.
//!
//! **Ordering contract.** Events run in order of time. At the same picosecond, events of a
//! lower [`Urgency`] class run first; within a class, events that name a canonical key (a port
//! index, say) run in key order, and the others in the order they were scheduled (a counter
//! taken at scheduling). Nothing else breaks ties, so a run is a pure function of its scenario
//! and seed.
//!
//! The simulation uses this so that packet events do not depend on *when* they were scheduled:
//! "a port finished sending" runs first (a packet that arrives at the very instant the previous
//! one leaves finds the queue as it is after the departure), then arrivals, then everything
//! else in scheduling order. Arrivals at the same picosecond are ordered by a hash of (time,
//! link): canonical, yet not always favouring the same link — a fixed order (say, by link
//! index) would always queue one sender's packet behind another's at a full drop-tail queue and
//! lock it out, an artefact no real switch has.

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// How an event breaks ties with others of the same time.
pub trait Urgency {
    /// Lower runs first.
    fn urgency(&self) -> u8;
    /// A key that orders events of one class at `time`, instead of their scheduling order.
    /// Keys should be unique among the pending events of that class; only the low 56 bits count.
    fn canonical_key(&self, time: Time) -> Option<u64> {
        let _ = time;
        None
    }
}

struct Entry<E> {
    time: Time,
    /// Urgency class in the top 8 bits, scheduling counter below.
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
            popped: 0,
        }
    }
}

impl<E: Urgency> EventQueue<E> {
    pub fn schedule(&mut self, time: Time, event: E) {
        let key = event.canonical_key(time).unwrap_or(self.next_seq) & ((1 << 56) - 1);
        let seq = ((event.urgency() as u64) << 56) | key;
        self.heap.push(Entry { time, seq, event });
        self.next_seq += 1;
    }

    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time, e.event))
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Events executed so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Urgency for char {
        fn urgency(&self) -> u8 {
            self.is_uppercase() as u8 ^ 1
        }
    }

    #[test]
    fn urgent_class_first_at_equal_times() {
        let mut q = EventQueue::default();
        q.schedule(Time(5), 'a');
        q.schedule(Time(5), 'B');
        q.schedule(Time(1), 'c');
        let order: String = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, "cBa");
    }

    #[test]
    fn earliest_first_then_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(Time(5), 'a');
        q.schedule(Time(1), 'b');
        q.schedule(Time(5), 'c');
        q.schedule(Time(1), 'd');
        q.schedule(Time(3), 'e');
        let order: String = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, "bdeac");
        assert_eq!(q.popped(), 5);
    }
}
