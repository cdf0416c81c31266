//! The event queue: a calendar of near-future slots in front of a binary heap, ordered by
//! `(time, seq)`.
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
//!
//! **Layout** (how, not what: the order above is exact whatever the layout). Most events of a
//! packet simulation fall a few microseconds ahead of now (a link's serialisation plus its
//! propagation delay). Those go into a ring of [`SLOTS`] slots of [`SLOT_PS`] picoseconds each
//! (a calendar queue without resizing): scheduling one is a push onto its slot's list, and the
//! next event is the earliest of the first non-empty slot, found with a bitmap. Events further
//! ahead than the ring reaches (retransmission timers, flow starts) go into a binary heap. A
//! pop takes the smaller of the two candidates by the full key, so the order is the one the
//! heap alone would give. Before this ring (2026-11-25) everything went through the heap, about a
//! third of a fat-tree run's instructions (bench/RESULTS.md, "Scale").

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

/// log2 of a ring slot's width in picoseconds: 4.096 ns, a few events per slot at the
/// densest benchmark (k = 8 fat-tree: ~530 events per µs).
const SLOT_SHIFT: u32 = 12;
/// A ring slot's width, ps.
pub const SLOT_PS: u64 = 1 << SLOT_SHIFT;
/// Ring slots: the ring reaches 2^14 × 4.096 ns = 67 µs ahead, beyond a 25 µs link's
/// propagation plus a full queue's drain at 40 Gb/s.
pub const SLOTS: usize = 1 << 14;
const WORDS: usize = SLOTS / 64;
const NIL: u32 = u32::MAX;
/// Tie-break keys and counters keep 56 bits (the class takes the top 8).
const KEY_MASK: u64 = (1 << 56) - 1;

/// A heap entry (events beyond the ring).
struct Entry<E> {
    /// `!(time << 64 | seq)`, where `seq` holds the urgency class in its top 8 bits and the
    /// tie-break key below: the heap is a max-heap, so the largest key is the earliest event,
    /// and one 128-bit comparison orders two entries.
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> u64 {
        !(self.key >> 64) as u64
    }
    fn seq(&self) -> u64 {
        !self.key as u64
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

/// A ring entry, in a slab; the entries of one slot form a singly linked list (unordered).
#[derive(Clone, Copy)]
struct Node<E> {
    time: u64,
    /// The class in the top 8 bits and, for events without a canonical key, the scheduling
    /// counter below; a canonical key is added when needed ([`EventQueue::seq_of`]).
    seq: u64,
    next: u32,
    event: E,
}

/// The queue. Every event in the ring has its slot number (`time / SLOT_PS`) in
/// `[cur, cur + SLOTS)`, where `cur` is the slot of the last event popped (time never goes
/// back); anything else is in the heap.
pub struct EventQueue<E> {
    /// First node of each slot's list (fixed-size arrays: indices masked to their length
    /// need no bounds check).
    heads: Box<[u32; SLOTS]>,
    /// One bit per slot: its list is not empty.
    occupied: Box<[u64; WORDS]>,
    nodes: Vec<Node<E>>,
    /// Free nodes, linked through `next`.
    free: u32,
    ring_len: usize,
    cur: u64,
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heads: vec![NIL; SLOTS].try_into().expect("SLOTS long"),
            occupied: vec![0; WORDS].try_into().expect("WORDS long"),
            nodes: Vec::new(),
            free: NIL,
            ring_len: 0,
            cur: 0,
            heap: BinaryHeap::new(),
            next_seq: 0,
            popped: 0,
        }
    }
}

impl<E: Urgency + Copy> EventQueue<E> {
    // Always inlined: at each call site the event's variant is known, so its urgency and
    // tie-break key fold to constants (−3 % instructions on the fat-tree).
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: E) {
        let class = (event.urgency() as u64) << 56;
        let counter = self.next_seq & KEY_MASK;
        self.next_seq += 1;
        let t = time.0;
        let slot = t >> SLOT_SHIFT;
        if slot.wrapping_sub(self.cur) < SLOTS as u64 {
            let s = slot as usize & (SLOTS - 1);
            // A canonical key only breaks ties at equal times, which are rare: in the ring it is
            // computed when two events of one time meet (`Node::seq`), not here. (The variant is
            // known at the inlined call site, so this test folds away, and the key with it.)
            let seq = match event.canonical_key(time) {
                Some(_) => class,
                None => class | counter,
            };
            let node = Node {
                time: t,
                seq,
                next: self.heads[s],
                event,
            };
            let i = if self.free != NIL {
                let i = self.free;
                self.free = self.nodes[i as usize].next;
                self.nodes[i as usize] = node;
                i
            } else {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            };
            self.heads[s] = i;
            self.occupied[s >> 6] |= 1 << (s & 63);
            self.ring_len += 1;
        } else {
            let seq = class | event.canonical_key(time).map_or(counter, |k| k & KEY_MASK);
            self.heap.push(Entry {
                key: !(((t as u128) << 64) | seq as u128),
                event,
            });
        }
    }

    /// The full tie-break word of ring node `i`: class, then canonical key or counter.
    #[inline]
    fn seq_of(&self, i: u32) -> u64 {
        let n = &self.nodes[i as usize];
        match n.event.canonical_key(Time(n.time)) {
            Some(k) => n.seq | (k & KEY_MASK),
            None => n.seq,
        }
    }

    /// The first occupied slot at or after `cur` in ring order (the ring must not be empty).
    #[inline]
    fn first_slot(&self) -> usize {
        let start = self.cur as usize & (SLOTS - 1);
        let mut w = start >> 6;
        let mut word = self.occupied[w] & (!0u64 << (start & 63));
        loop {
            if word != 0 {
                return ((w << 6) | word.trailing_zeros() as usize) & (SLOTS - 1);
            }
            w = (w + 1) & (WORDS - 1);
            word = self.occupied[w];
        }
    }

    /// Removes and returns the earliest event if its time is at most `horizon`.
    #[inline(always)]
    pub fn pop_until(&mut self, horizon: Time) -> Option<(Time, E)> {
        if self.ring_len == 0 {
            return self.pop_heap(horizon);
        }
        let slot = self.first_slot();
        let mut best = self.heads[slot];
        let mut best_prev = NIL;
        let n = &self.nodes[best as usize];
        let mut time = n.time;
        let (mut prev, mut i) = (best, n.next);
        while i != NIL {
            let n = &self.nodes[i as usize];
            if n.time < time || (n.time == time && self.seq_of(i) < self.seq_of(best)) {
                time = n.time;
                best = i;
                best_prev = prev;
            }
            prev = i;
            i = self.nodes[i as usize].next;
        }
        if let Some(h) = self.heap.peek() {
            let ht = h.time();
            if ht < time || (ht == time && h.seq() < self.seq_of(best)) {
                return self.pop_heap(horizon);
            }
        }
        if time > horizon.0 {
            return None;
        }
        let n = self.nodes[best as usize];
        if best_prev == NIL {
            self.heads[slot] = n.next;
            if n.next == NIL {
                self.occupied[slot >> 6] &= !(1 << (slot & 63));
            }
        } else {
            self.nodes[best_prev as usize].next = n.next;
        }
        self.nodes[best as usize].next = self.free;
        self.free = best;
        self.ring_len -= 1;
        self.popped += 1;
        // The ring's earliest slot, so no event in the ring is earlier.
        self.cur = n.time >> SLOT_SHIFT;
        Some((Time(n.time), n.event))
    }

    fn pop_heap(&mut self, horizon: Time) -> Option<(Time, E)> {
        let h = self.heap.peek()?;
        if h.time() > horizon.0 {
            return None;
        }
        let e = self.heap.pop().expect("peeked");
        self.popped += 1;
        // Time never goes back, except for an event scheduled in the past (then `cur` stays).
        self.cur = self.cur.max(e.time() >> SLOT_SHIFT);
        Some((Time(e.time()), e.event))
    }

    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time(u64::MAX))
    }

    pub fn len(&self) -> usize {
        self.ring_len + self.heap.len()
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

    /// An event with a class and, for class 0, a canonical key (as `Event::TxDone`).
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Ev {
        class: u8,
        key: u64,
        id: u32,
    }

    impl Urgency for Ev {
        fn urgency(&self) -> u8 {
            self.class
        }
        fn canonical_key(&self, _: Time) -> Option<u64> {
            (self.class == 0).then_some(self.key)
        }
    }

    #[test]
    fn ring_and_heap_give_the_order_of_one_sorted_list() {
        // Offsets from now: same slot, near slots, past the ring's reach, and ties at one time;
        // pops interleaved with schedules as in a simulation. The reference order is a sort by
        // (time, class, key or scheduling number), the contract in the module doc.
        let mut q = EventQueue::default();
        let mut x: u64 = 7;
        let mut seq = 0u64;
        let mut pending: Vec<(u64, u8, u64, u32)> = Vec::new();
        let mut now = 0u64;
        let mut next_id = 0u32;
        let mut popped = 0;
        for round in 0..20_000 {
            x = crate::rng::mix(x);
            for j in 0..(x % 3) {
                let r = crate::rng::mix(x ^ j);
                let dt = match r % 6 {
                    0 => 0,
                    1 => r % SLOT_PS,
                    2 => (r >> 8) % (SLOT_PS * 50),
                    3 => (r >> 8) % (SLOT_PS * SLOTS as u64 * 3),
                    4 => SLOT_PS * SLOTS as u64 - 1 + (r >> 60),
                    _ => 1_000_000_000 + (r >> 40),
                };
                let class = ((r >> 20) % 3) as u8;
                let ev = Ev {
                    class,
                    key: (r >> 24) & 0xffff,
                    id: next_id,
                };
                next_id += 1;
                let tie = if class == 0 { ev.key } else { seq };
                seq += 1;
                pending.push((now + dt, class, tie, ev.id));
                q.schedule(Time(now + dt), ev);
            }
            // Keys of class 0 must be unique among pending events of the class.
            if round % 2 == 0 {
                if let Some((t, ev)) = q.pop() {
                    pending.sort();
                    let want = pending.remove(0);
                    assert_eq!((t.0, ev.id), (want.0, want.3), "pop {popped}");
                    now = t.0;
                    popped += 1;
                }
            }
        }
        pending.sort();
        for want in pending {
            let (t, ev) = q.pop().expect("pending");
            assert_eq!((t.0, ev.id), (want.0, want.3));
        }
        assert!(q.pop().is_none());
    }
}
