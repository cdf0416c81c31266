//! The event queue: a binary min-heap ordered by `(time, seq)`.
//!
//! **Ordering contract.** Events run in order of time; events at the same picosecond run in the
//! order they were scheduled (`seq` is a counter taken at scheduling). Nothing else breaks ties,
//! so a run is a pure function of its scenario and seed.

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Time,
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

impl<E> EventQueue<E> {
    pub fn schedule(&mut self, time: Time, event: E) {
        self.heap.push(Entry {
            time,
            seq: self.next_seq,
            event,
        });
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
