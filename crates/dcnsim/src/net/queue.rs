//! Egress queue disciplines: drop-tail FIFO with optional ECN marking, strict priority classes,
//! and the rank queue.
//!
//! * **FIFO**: drop-tail at the buffer limit (packets or bytes). With an ECN threshold `K`
//!   (packets), an ECN-capable packet that is accepted while `K` or more packets wait ahead of it
//!   is marked CE — the instantaneous-queue marking of DCTCP (RED with weight 1 and
//!   min = max = K). Not-ECT packets are never marked, only dropped when the buffer is full.
//! * **Priority**: `n` FIFO bands sharing one buffer; band = `packet.priority` (0 first,
//!   clamped to the last band); dequeue from the lowest non-empty band; drop-tail on the shared
//!   buffer.
//! * **Rank**: one buffer ordered by `packet.rank` (lower is more urgent, ties by arrival);
//!   dequeue the best rank; when full, drop the worst-ranked packet, the arriving one included
//!   (the latest arrival loses a tie). This is MERP's switch.
//! * **Pfabric**: the rank queue with pFabric's dequeue rule (Alizadeh et al., SIGCOMM 2013,
//!   §4.1): find the best-ranked packet, then send the *earliest-arrived packet of that packet's
//!   flow*. Within a flow later packets carry smaller remaining sizes (better ranks), so
//!   dequeuing the best packet itself would send each flow's newest packet first and reorder
//!   every flow. Drops are those of the rank queue: the worst rank in the queue, the arriving
//!   packet included, the latest arrival losing a tie (§4.1, "drops the lowest priority
//!   packet"). Both scans are over the few packets a pFabric buffer (~2 BDP) holds.
//!
//! A switch agent may mark a packet *protected* ([`Queue::push_forced`]): it is queued even
//! when the buffer is full (explicit-rate protocols whose router counters must never miss a
//! control packet; the caller strips the payload first).
//!
//! Occupancy is tracked in packets and bytes; a packet being serialised has left the queue.

use super::packet::{Ecn, PacketPool, PacketRef};
use crate::topo::BufferSize;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discipline {
    Fifo,
    Priority { classes: u8 },
    Rank,
    Pfabric,
}

/// What happened to a packet offered to the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// Accepted; `marked` if it was marked CE on the way in.
    Accepted { marked: bool },
    /// The buffer was full and this packet (possibly another than the one offered, for the rank
    /// queue) was dropped. The caller releases it from the pool.
    Dropped(PacketRef),
}

/// The limit and the threshold first: an eager port's hop reads them and nothing else of its
/// queue (see [`super::network::Port`]'s layout).
#[repr(C)]
pub struct Queue {
    limit: BufferSize,
    ecn_k_pkts: Option<u32>,
    discipline: Discipline,
    bands: Vec<VecDeque<PacketRef>>,
    /// Rank queue: (rank, arrival number, packet), unsorted; scanned on dequeue and drop. Rank
    /// queues are small (a few BDP), so a scan beats keeping an order.
    ranked: Vec<(u64, u64, PacketRef)>,
    arrivals: u64,
    len_pkts: u64,
    len_bytes: u64,
}

impl Queue {
    pub fn new(discipline: Discipline, limit: BufferSize, ecn_k_pkts: Option<u32>) -> Queue {
        let bands = match discipline {
            Discipline::Fifo => 1,
            Discipline::Priority { classes } => classes.max(1) as usize,
            Discipline::Rank | Discipline::Pfabric => 0,
        };
        Queue {
            discipline,
            limit,
            ecn_k_pkts,
            bands: (0..bands).map(|_| VecDeque::new()).collect(),
            ranked: Vec::new(),
            arrivals: 0,
            len_pkts: 0,
            len_bytes: 0,
        }
    }

    pub fn len_pkts(&self) -> u64 {
        self.len_pkts
    }

    pub fn len_bytes(&self) -> u64 {
        self.len_bytes
    }

    pub fn is_empty(&self) -> bool {
        self.len_pkts == 0
    }

    fn fits(&self, size: u64) -> bool {
        self.admits(self.len_pkts, self.len_bytes, size)
    }

    /// Whether a packet of `size` bytes fits a buffer of this queue's limit that holds
    /// `pkts` packets and `bytes` bytes (also used for the eager FIFO's backlog).
    pub fn admits(&self, pkts: u64, bytes: u64, size: u64) -> bool {
        match self.limit {
            BufferSize::Packets(n) => pkts < n,
            BufferSize::Bytes(b) => bytes + size <= b,
        }
    }

    /// The buffer limit.
    pub fn limit(&self) -> BufferSize {
        self.limit
    }

    pub fn ecn_k_pkts(&self) -> Option<u32> {
        self.ecn_k_pkts
    }

    pub fn enqueue(&mut self, pool: &mut PacketPool, r: PacketRef) -> Enqueued {
        let size = pool.get(r).size as u64;
        if matches!(self.discipline, Discipline::Rank | Discipline::Pfabric) {
            return self.enqueue_ranked(pool, r, size);
        }
        if !self.fits(size) {
            return Enqueued::Dropped(r);
        }
        let marked = self.mark_if_over_threshold(pool, r);
        let pkt = pool.get(r);
        let band = (pkt.priority as usize).min(self.bands.len() - 1);
        self.bands[band].push_back(r);
        self.len_pkts += 1;
        self.len_bytes += size;
        Enqueued::Accepted { marked }
    }

    fn mark_if_over_threshold(&self, pool: &mut PacketPool, r: PacketRef) -> bool {
        match self.ecn_k_pkts {
            Some(k) if self.len_pkts >= k as u64 => {
                let pkt = pool.get_mut(r);
                if pkt.ecn == Ecn::Ect {
                    pkt.ecn = Ecn::Ce;
                    return true;
                }
                false
            }
            _ => false,
        }
    }

    fn enqueue_ranked(&mut self, pool: &mut PacketPool, r: PacketRef, size: u64) -> Enqueued {
        let rank = pool.get(r).rank;
        let arrival = self.arrivals;
        self.arrivals += 1;
        if !self.fits(size) {
            // Worst = highest rank, latest arrival among equals. The newcomer is a candidate.
            let worst = self
                .ranked
                .iter()
                .enumerate()
                .max_by_key(|(_, &(rk, seq, _))| (rk, seq));
            match worst {
                Some((i, &(wrank, _, victim))) if wrank > rank => {
                    self.ranked.swap_remove(i);
                    self.len_pkts -= 1;
                    self.len_bytes -= pool.get(victim).size as u64;
                    if !self.fits(size) {
                        // A byte-limited buffer may need more room than one victim freed; keep it
                        // simple and refuse the newcomer rather than evicting several packets.
                        self.ranked.push((wrank, u64::MAX, victim));
                        self.len_pkts += 1;
                        self.len_bytes += pool.get(victim).size as u64;
                        return Enqueued::Dropped(r);
                    }
                    // The newcomer is in; a mark on it is not reported (rank queues serve
                    // protocols that do not use ECN).
                    self.mark_if_over_threshold(pool, r);
                    self.ranked.push((rank, arrival, r));
                    self.len_pkts += 1;
                    self.len_bytes += size;
                    return Enqueued::Dropped(victim);
                }
                _ => return Enqueued::Dropped(r),
            }
        }
        let marked = self.mark_if_over_threshold(pool, r);
        self.ranked.push((rank, arrival, r));
        self.len_pkts += 1;
        self.len_bytes += size;
        Enqueued::Accepted { marked }
    }

    /// Queues a packet whatever the buffer holds (a switch agent's protected control packet;
    /// see the module doc). Occupancy may then exceed the limit until the queue drains.
    pub fn push_forced(&mut self, pool: &PacketPool, r: PacketRef) {
        let pkt = pool.get(r);
        let size = pkt.size as u64;
        match self.discipline {
            Discipline::Rank | Discipline::Pfabric => {
                self.ranked.push((pkt.rank, self.arrivals, r));
                self.arrivals += 1;
            }
            _ => {
                let band = (pkt.priority as usize).min(self.bands.len() - 1);
                self.bands[band].push_back(r);
            }
        }
        self.len_pkts += 1;
        self.len_bytes += size;
    }

    pub fn dequeue(&mut self, pool: &PacketPool) -> Option<PacketRef> {
        let r = match self.discipline {
            Discipline::Rank => {
                let (i, _) = self
                    .ranked
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, &(rk, seq, _))| (rk, seq))?;
                self.ranked.swap_remove(i).2
            }
            Discipline::Pfabric => {
                let &(_, _, best) = self.ranked.iter().min_by_key(|&&(rk, seq, _)| (rk, seq))?;
                let flow = pool.get(best).flow;
                let (i, _) = self
                    .ranked
                    .iter()
                    .enumerate()
                    .filter(|(_, &(_, _, r))| pool.get(r).flow == flow)
                    .min_by_key(|(_, &(_, seq, _))| seq)
                    .expect("the best packet's own flow has a packet");
                self.ranked.swap_remove(i).2
            }
            _ => self.bands.iter_mut().find_map(|b| b.pop_front())?,
        };
        self.len_pkts -= 1;
        self.len_bytes -= pool.get(r).size as u64;
        Some(r)
    }

    /// Removes every packet (a failed link flushes its queue); the caller releases them.
    pub fn drain_all(&mut self, out: &mut Vec<PacketRef>) {
        for b in &mut self.bands {
            out.extend(b.drain(..));
        }
        out.extend(self.ranked.drain(..).map(|(_, _, r)| r));
        self.len_pkts = 0;
        self.len_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;

    fn pkt(
        pool: &mut PacketPool,
        seq: u64,
        size: u32,
        ecn: Ecn,
        priority: u8,
        rank: u64,
    ) -> PacketRef {
        pool.insert(Packet {
            seq,
            size,
            ecn,
            priority,
            rank,
            ..Default::default()
        })
    }

    fn drain_seqs(q: &mut Queue, pool: &PacketPool) -> Vec<u64> {
        std::iter::from_fn(|| q.dequeue(pool))
            .map(|r| pool.get(r).seq)
            .collect()
    }

    #[test]
    fn fifo_drops_tail_at_packet_limit() {
        let mut pool = PacketPool::default();
        let mut q = Queue::new(Discipline::Fifo, BufferSize::Packets(2), None);
        for s in 0..3 {
            let r = pkt(&mut pool, s, 1500, Ecn::NotEct, 0, 0);
            let res = q.enqueue(&mut pool, r);
            assert_eq!(res == Enqueued::Dropped(r), s == 2);
        }
        assert_eq!(q.len_bytes(), 3000);
        assert_eq!(drain_seqs(&mut q, &pool), vec![0, 1]);
        assert_eq!(q.len_bytes(), 0);
    }

    #[test]
    fn fifo_byte_limit_counts_sizes() {
        let mut pool = PacketPool::default();
        let mut q = Queue::new(Discipline::Fifo, BufferSize::Bytes(3000), None);
        let a = pkt(&mut pool, 0, 1500, Ecn::NotEct, 0, 0);
        let b = pkt(&mut pool, 1, 1000, Ecn::NotEct, 0, 0);
        let c = pkt(&mut pool, 2, 1000, Ecn::NotEct, 0, 0);
        let d = pkt(&mut pool, 3, 500, Ecn::NotEct, 0, 0);
        assert!(matches!(q.enqueue(&mut pool, a), Enqueued::Accepted { .. }));
        assert!(matches!(q.enqueue(&mut pool, b), Enqueued::Accepted { .. }));
        assert_eq!(q.enqueue(&mut pool, c), Enqueued::Dropped(c));
        assert!(matches!(q.enqueue(&mut pool, d), Enqueued::Accepted { .. }));
    }

    #[test]
    fn ecn_marks_ect_packets_from_k_waiting() {
        let mut pool = PacketPool::default();
        let mut q = Queue::new(Discipline::Fifo, BufferSize::Packets(10), Some(2));
        let mut marks = vec![];
        for s in 0..4 {
            let r = pkt(&mut pool, s, 1500, Ecn::Ect, 0, 0);
            marks.push(q.enqueue(&mut pool, r) == Enqueued::Accepted { marked: true });
        }
        // Two packets ahead of the third: it and the fourth are marked.
        assert_eq!(marks, vec![false, false, true, true]);
        let not_ect = pkt(&mut pool, 9, 1500, Ecn::NotEct, 0, 0);
        assert_eq!(
            q.enqueue(&mut pool, not_ect),
            Enqueued::Accepted { marked: false }
        );
        assert_eq!(pool.get(not_ect).ecn, Ecn::NotEct);
    }

    #[test]
    fn priority_serves_lower_class_first_fifo_within() {
        let mut pool = PacketPool::default();
        let mut q = Queue::new(
            Discipline::Priority { classes: 3 },
            BufferSize::Packets(10),
            None,
        );
        for (s, prio) in [(0, 2), (1, 0), (2, 1), (3, 0), (4, 7)] {
            let r = pkt(&mut pool, s, 100, Ecn::NotEct, prio, 0);
            q.enqueue(&mut pool, r);
        }
        // Class 7 is clamped to the last class (2), behind seq 0.
        assert_eq!(drain_seqs(&mut q, &pool), vec![1, 3, 2, 0, 4]);
    }

    #[test]
    fn rank_queue_dequeues_best_and_drops_worst_including_arrival() {
        let mut pool = PacketPool::default();
        let mut q = Queue::new(Discipline::Rank, BufferSize::Packets(3), None);
        for (s, rank) in [(0, 50), (1, 10), (2, 30)] {
            let r = pkt(&mut pool, s, 100, Ecn::NotEct, 0, rank);
            assert!(matches!(q.enqueue(&mut pool, r), Enqueued::Accepted { .. }));
        }
        // A better packet arrives at a full queue: the worst waiting one (rank 50) is dropped.
        let better = pkt(&mut pool, 3, 100, Ecn::NotEct, 0, 20);
        let res = q.enqueue(&mut pool, better);
        assert!(matches!(res, Enqueued::Dropped(v) if pool.get(v).seq == 0));
        // A worse packet arrives: it is the one dropped.
        let worse = pkt(&mut pool, 4, 100, Ecn::NotEct, 0, 99);
        assert_eq!(q.enqueue(&mut pool, worse), Enqueued::Dropped(worse));
        // An equal-rank newcomer loses the tie (latest arrival is worst).
        let tie = pkt(&mut pool, 5, 100, Ecn::NotEct, 0, 30);
        assert_eq!(q.enqueue(&mut pool, tie), Enqueued::Dropped(tie));
        assert_eq!(drain_seqs(&mut q, &pool), vec![1, 3, 2]);
    }

    fn flow_pkt(pool: &mut PacketPool, flow: u32, seq: u64, rank: u64) -> PacketRef {
        pool.insert(Packet {
            flow,
            seq,
            size: 1500,
            rank,
            ..Default::default()
        })
    }

    /// (flow, seq) in dequeue order.
    fn drain_flows(q: &mut Queue, pool: &PacketPool) -> Vec<(u32, u64)> {
        std::iter::from_fn(|| q.dequeue(pool))
            .map(|r| (pool.get(r).flow, pool.get(r).seq))
            .collect()
    }

    #[test]
    fn pfabric_sends_the_oldest_packet_of_the_most_urgent_flow() {
        let mut pool = PacketPool::default();
        let mut q = Queue::new(Discipline::Pfabric, BufferSize::Packets(10), None);
        // Flow 1 (remaining 9000, 7500, 6000) interleaved with flow 2 (remaining 8000, 3000):
        // flow 2's second packet is the best of all, so flow 2 goes first, oldest packet
        // first; then flow 1 in sequence order, although its last packet has the best rank.
        for (flow, seq, rank) in [
            (1, 0, 9000),
            (2, 0, 8000),
            (1, 1, 7500),
            (2, 1, 3000),
            (1, 2, 6000),
        ] {
            let r = flow_pkt(&mut pool, flow, seq, rank);
            assert!(matches!(q.enqueue(&mut pool, r), Enqueued::Accepted { .. }));
        }
        assert_eq!(
            drain_flows(&mut q, &pool),
            vec![(2, 0), (2, 1), (1, 0), (1, 1), (1, 2)]
        );
        // The plain rank queue sends the best packets themselves: it reorders both flows.
        let mut rank = Queue::new(Discipline::Rank, BufferSize::Packets(10), None);
        for (flow, seq, rk) in [
            (1, 0, 9000),
            (2, 0, 8000),
            (1, 1, 7500),
            (2, 1, 3000),
            (1, 2, 6000),
        ] {
            let r = flow_pkt(&mut pool, flow, seq, rk);
            rank.enqueue(&mut pool, r);
        }
        assert_eq!(
            drain_flows(&mut rank, &pool),
            vec![(2, 1), (1, 2), (1, 1), (2, 0), (1, 0)]
        );
    }

    #[test]
    fn pfabric_drops_the_worst_packet_in_the_queue_arrival_included() {
        let mut pool = PacketPool::default();
        let mut q = Queue::new(Discipline::Pfabric, BufferSize::Packets(3), None);
        for (flow, seq, rank) in [(1, 0, 5000), (2, 0, 9000), (2, 1, 7500)] {
            let r = flow_pkt(&mut pool, flow, seq, rank);
            q.enqueue(&mut pool, r);
        }
        // A more urgent arrival evicts flow 2's oldest packet (rank 9000, the worst).
        let urgent = flow_pkt(&mut pool, 3, 0, 1000);
        let res = q.enqueue(&mut pool, urgent);
        assert!(
            matches!(res, Enqueued::Dropped(v) if (pool.get(v).flow, pool.get(v).seq) == (2, 0))
        );
        // An arrival worse than everything queued is itself the victim.
        let lazy = flow_pkt(&mut pool, 4, 0, 8000);
        assert_eq!(q.enqueue(&mut pool, lazy), Enqueued::Dropped(lazy));
        // Flow 2's remaining packet still goes out after the more urgent flows.
        assert_eq!(drain_flows(&mut q, &pool), vec![(3, 0), (1, 0), (2, 1)]);
    }

    #[test]
    fn forced_packets_exceed_the_limit() {
        let mut pool = PacketPool::default();
        let mut q = Queue::new(Discipline::Fifo, BufferSize::Packets(1), None);
        let a = pkt(&mut pool, 0, 1500, Ecn::NotEct, 0, 0);
        let b = pkt(&mut pool, 1, 40, Ecn::NotEct, 0, 0);
        q.enqueue(&mut pool, a);
        assert_eq!(q.enqueue(&mut pool, b), Enqueued::Dropped(b));
        q.push_forced(&pool, b);
        assert_eq!((q.len_pkts(), q.len_bytes()), (2, 1540));
        assert_eq!(drain_seqs(&mut q, &pool), vec![0, 1]);
    }
}
