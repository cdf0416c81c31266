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
    /// `!(time << 64 | seq)`, where `seq` holds the urgency class in its top 8 bits and the
    /// tie-break key below: the heap is a max-heap, so the largest key is the earliest event,
    /// and one 128-bit comparison orders two entries.
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> Time {
        Time(!(self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        self.key.cmp(&o.key)
    }
}

/// The queue. `pop` leaves the popped entry in place as a *stale top*; the next `schedule`
/// overwrites it (one sift-down instead of a removal plus an insertion), which is the common
/// case: handling an event usually schedules at least one more. Any other call removes it first.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    stale_top: bool,
    next_seq: u64,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            stale_top: false,
            next_seq: 0,
            popped: 0,
        }
    }
}

impl<E: Urgency + Copy> EventQueue<E> {
    pub fn schedule(&mut self, time: Time, event: E) {
        let key = event.canonical_key(time).unwrap_or(self.next_seq) & ((1 << 56) - 1);
        let seq = ((event.urgency() as u64) << 56) | key;
        self.next_seq += 1;
        let entry = Entry {
            key: !(((time.0 as u128) << 64) | seq as u128),
            event,
        };
        if self.stale_top {
            self.stale_top = false;
            *self.heap.peek_mut().expect("a stale top is an entry") = entry;
        } else {
            self.heap.push(entry);
        }
    }

    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.drop_stale_top();
        let e = self.heap.peek()?;
        let out = (e.time(), e.event);
        self.stale_top = true;
        self.popped += 1;
        Some(out)
    }

    pub fn peek_time(&mut self) -> Option<Time> {
        self.drop_stale_top();
        self.heap.peek().map(|e| e.time())
    }

    fn drop_stale_top(&mut self) {
        if self.stale_top {
            self.stale_top = false;
            self.heap.pop();
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.stale_top as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    fn many_random_events_come_out_sorted() {
        let mut q = EventQueue::default();
        let mut x: u64 = 12345;
        let mut next = 0u32;
        let mut out = Vec::new();
        // Interleave pops and schedules the way the simulation does (pop, then schedule 0–2).
        for _ in 0..3000 {
            x = crate::rng::mix(x);
            for _ in 0..(x % 3) {
                let now = out.last().map_or(0, |&(t, _): &(Time, u32)| t.0);
                q.schedule(Time(now + (x >> 8) % 50), next);
                next += 1;
            }
            if let Some(e) = q.pop() {
                out.push(e);
            }
        }
        out.extend(std::iter::from_fn(|| q.pop()));
        assert_eq!(out.len(), next as usize);
        for w in out.windows(2) {
            assert!(
                w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1),
                "{w:?}"
            );
        }
    }

    impl Urgency for u32 {
        fn urgency(&self) -> u8 {
            1
        }
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
