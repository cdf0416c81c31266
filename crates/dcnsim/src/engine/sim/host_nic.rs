//! Host NICs that push back on their own transports (`topology.host_nic = "backpressure"`,
//! the default; issue 32).
//!
//! A real sender does not lose packets to its own NIC: Linux throttles each socket before the
//! queue discipline (TCP Small Queues, TSQ) and a full device queue stops the qdisc; ns-3 has
//! flow control between the device queue and the queue discipline. Here:
//!
//! * **Hold one, ask for no more.** A packet an endpoint emits into its host's full NIC queue
//!   is **held** in the host, and the endpoint is not asked for further packets until that
//!   one has entered the queue. (Real TSQ bounds a socket's bytes in the qdisc and device
//!   together; here one flow may fill the whole NIC queue, the device queue of this model, and
//!   have one packet more waiting.) The rest of its burst stays
//!   unsent inside the transport, in its own order, and does not count as in flight: a
//!   window-based sender is then not limited by its window, so its window stops growing
//!   (Linux's `tcp_is_cwnd_limited`, modelled in [`crate::protocols::tcp::cc`]). Without
//!   both, a lone flow whose NIC is its bottleneck would grow its window into its own host
//!   without bound and later hold a shared bottleneck with a window no halving brings down.
//! * **Turns.** The flows of one port take turns in the order the port's discipline would
//!   serve their held packets: the best priority class (priority queues) or the best rank
//!   (rank and pFabric queues) first, and round robin among equals — so a FIFO NIC serves its
//!   flows round robin, roughly what Linux's per-flow qdiscs (fq, fq_codel) give, and
//!   pFabric's NIC still sends the most urgent flow first. A packet offered while others are
//!   held waits behind them, last in the turns; an endpoint whose packet entered the queue is
//!   asked at once for its next one, which (the queue being full again) waits last in turn.
//!   An endpoint held on one NIC of a multi-NIC host (BCube) sends on none until its packet
//!   goes: TSQ is per socket.
//! * **When.** A queued port (priority, rank, or a switch agent's) takes a held packet each
//!   time it dequeues one. An eager FIFO port ([`crate::net::network::Port`]) frees a slot
//!   when its oldest waiting packet starts serialising: one [`Event::NicRoom`] per such start
//!   while packets are held (the twin of a queued port's `TxDone`, ordered like it), at no
//!   cost to ports that hold nothing.
//! * **What the NIC sees.** A held packet reaches the queue as if emitted then: the switch
//!   agents of PDQ, D3, RCP, MERP and PACE see it at enqueue and dequeue, ECN marking applies,
//!   a rank queue orders it. A host's queue drops nothing of its own traffic except a packet
//!   larger than its whole (byte-limited) buffer, which could never enter.
//! * **Relayed packets** (server-centric layouts such as BCube, whose servers forward for
//!   others) cannot be pushed back on: their sender is elsewhere. Where the NIC queue is full
//!   or holds packets they are held too, each taking its turn with the host's own endpoints,
//!   up to a second buffer of the queue's size; beyond that they are dropped, as at a switch.
//!   Without their turn they would meet a queue that the host's held packets refill the
//!   instant a slot frees, and a server would starve what it forwards behind its own flows.
//! * **Failures.** A packet offered to a NIC whose link is down is lost, and a link that fails
//!   loses the packets its host held for it, as it loses its queue.
//! * **Timers.** A held endpoint's timer that is already due (a paced packet it may not send
//!   yet) is not re-armed; the endpoint is asked again when its packet enters the queue.
//! * **Freeing.** A flow's endpoints are not freed while its host holds one of their packets:
//!   that side may have more to send (a FIN, a TERM that releases switch state), and is asked
//!   for it when the held packet enters the NIC.
//! * **Counted:** the time each packet waited in the host (the summary's `host_wait`, and per
//!   flow `host_delay_mean_s` over its data packets), and drops at host NIC ports apart from
//!   fabric drops (`packets.dropped_host_nic`: a host's own packets under `"droptail"`,
//!   relayed packets, and packets lost on a failed host link; `packets.dropped_fabric`). A
//!   held packet was emitted, so it is in flight at the end of a run that stops early.
//!
//! The NIC queue itself is the size its link gives it (100 packets by default), so a short
//! flow still waits behind up to a buffer of a long flow's packets, as behind a device queue
//! without byte queue limits. `"droptail"` keeps the behaviour before issue 32: a full NIC
//! queue drops the host's packets as a switch would, and endpoints are always asked for all
//! they have.

use super::{Event, Side, Simulation};
use crate::net::network::Port;
use crate::net::packet::{PacketPool, PacketRef};
use crate::net::queue::Discipline;
use crate::net::{NodeIdx, PortIdx};
use crate::units::Time;

/// A packet a host holds: the one packet of an endpoint (a flow's sender or receiver side),
/// or a packet it relays for others (any number of those, up to the NIC's buffer).
#[derive(Clone, Copy, Debug)]
struct Held {
    flow: u32,
    side: Side,
    relayed: bool,
    packet: PacketRef,
    since: Time,
}

/// What one port holds.
#[derive(Default)]
struct Hold {
    /// One packet per endpoint and the relayed packets, in turn order from `turn`.
    held: Vec<Held>,
    /// Packets and bytes of `held` that the host relays for others.
    relayed_pkts: u64,
    relayed_bytes: u64,
    /// Index into `held` of the endpoint whose turn is next.
    turn: usize,
    /// The pending [`Event::NicRoom`] of an eager port, if any.
    wake: Option<Time>,
}

/// The packets hosts hold for their NICs, with the counters of their waiting.
pub(super) struct HostHolds {
    /// Per port; only host ports ever hold.
    holds: Vec<Hold>,
    /// Per flow, a bit per side: the host holds a packet of that endpoint.
    blocked: Vec<u8>,
    /// Packets held now, and their bytes.
    pub held_pkts: u64,
    pub held_bytes: u64,
    /// Packets that waited, their summed and longest wait.
    pub waited_pkts: u64,
    pub wait_total: Time,
    pub wait_max: Time,
}

impl HostHolds {
    pub fn new(ports: usize, flows: usize) -> HostHolds {
        HostHolds {
            holds: (0..ports).map(|_| Hold::default()).collect(),
            blocked: vec![0; flows],
            held_pkts: 0,
            held_bytes: 0,
            waited_pkts: 0,
            wait_total: Time::ZERO,
            wait_max: Time::ZERO,
        }
    }

    #[inline]
    pub fn holding(&self, port: PortIdx) -> bool {
        !self.holds[port as usize].held.is_empty()
    }

    /// The host holds a packet of this endpoint: it is asked for no more until that packet
    /// enters the NIC.
    #[inline]
    pub fn is_blocked(&self, flow: u32, side: Side) -> bool {
        self.blocked[flow as usize] & (1 << side as u8) != 0
    }

    /// The host holds a packet of either endpoint of `flow`.
    #[inline]
    pub fn any_side_blocked(&self, flow: u32) -> bool {
        self.blocked[flow as usize] != 0
    }

    /// Holds `r`, the packet the endpoint (`flow`, `side`) just emitted, at `port`.
    fn hold(&mut self, port: PortIdx, r: PacketRef, side: Side, pool: &PacketPool, now: Time) {
        let flow = pool.get(r).flow;
        debug_assert!(!self.is_blocked(flow, side), "one held packet per endpoint");
        self.blocked[flow as usize] |= 1 << side as u8;
        self.push(port, r, side, false, pool, now);
    }

    /// Holds `r`, a packet the host relays, at `port`, unless the relayed packets it holds
    /// there already fill a second buffer of the queue's size (`false`: the caller drops it).
    fn hold_relayed(
        &mut self,
        port: &Port,
        at: PortIdx,
        r: PacketRef,
        pool: &PacketPool,
        now: Time,
    ) -> bool {
        let hold = &self.holds[at as usize];
        let size = pool.get(r).size as u64;
        if !port
            .queue
            .admits(hold.relayed_pkts, hold.relayed_bytes, size)
        {
            return false;
        }
        self.push(at, r, Side::Sender, true, pool, now);
        true
    }

    /// Puts a held packet last in the turns: just before the cursor, which stays on the
    /// packet whose turn is next.
    fn push(
        &mut self,
        port: PortIdx,
        r: PacketRef,
        side: Side,
        relayed: bool,
        pool: &PacketPool,
        now: Time,
    ) {
        let pkt = pool.get(r);
        self.held_pkts += 1;
        self.held_bytes += pkt.size as u64;
        let hold = &mut self.holds[port as usize];
        if relayed {
            hold.relayed_pkts += 1;
            hold.relayed_bytes += pkt.size as u64;
        }
        let at = hold.turn.min(hold.held.len());
        hold.held.insert(
            at,
            Held {
                flow: pkt.flow,
                side,
                relayed,
                packet: r,
                since: now,
            },
        );
        hold.turn = at + 1;
    }

    /// The held packet that goes next at `port` under `discipline` (an index into the port's
    /// list): the best by the discipline's order, the first in turn order among equals.
    fn next(&self, port: PortIdx, discipline: Discipline, pool: &PacketPool) -> Option<usize> {
        let hold = &self.holds[port as usize];
        let n = hold.held.len();
        if n == 0 {
            return None;
        }
        let turn = hold.turn % n;
        let key = |i: usize| -> u64 {
            let pkt = pool.get(hold.held[i].packet);
            match discipline {
                Discipline::Fifo => 0,
                Discipline::Priority { .. } => pkt.priority as u64,
                Discipline::Rank | Discipline::Pfabric => pkt.rank,
            }
        };
        if discipline == Discipline::Fifo {
            return Some(turn);
        }
        (0..n).map(|k| (turn + k) % n).min_by_key(|&i| key(i))
    }

    /// The packet that would go next at `port`, without taking it.
    fn peek(&self, port: PortIdx, discipline: Discipline, pool: &PacketPool) -> Option<PacketRef> {
        let i = self.next(port, discipline, pool)?;
        Some(self.holds[port as usize].held[i].packet)
    }

    /// Takes the packet [`HostHolds::peek`] names and records its wait: the packet, its
    /// endpoint (now unblocked) and how long it waited.
    fn take(
        &mut self,
        port: PortIdx,
        discipline: Discipline,
        pool: &PacketPool,
        now: Time,
    ) -> Option<(Held, Time)> {
        let i = self.next(port, discipline, pool)?;
        let hold = &mut self.holds[port as usize];
        // `remove`, not `swap_remove`: the others keep their turns, and the one after this
        // endpoint slides into `i`, so its turn is next.
        let h = hold.held.remove(i);
        hold.turn = i;
        if h.relayed {
            hold.relayed_pkts -= 1;
            hold.relayed_bytes -= pool.get(h.packet).size as u64;
        } else {
            self.blocked[h.flow as usize] &= !(1 << h.side as u8);
        }
        let waited = now - h.since;
        self.held_pkts -= 1;
        self.held_bytes -= pool.get(h.packet).size as u64;
        self.waited_pkts += 1;
        self.wait_total += waited;
        self.wait_max = self.wait_max.max(waited);
        Some((h, waited))
    }

    /// Every packet `port` holds (its link failed), its endpoint unblocked; the caller drops
    /// them. Their waits are not counted.
    fn drain(&mut self, port: PortIdx, pool: &PacketPool, out: &mut Vec<Held>) {
        let hold = &mut self.holds[port as usize];
        hold.relayed_pkts = 0;
        hold.relayed_bytes = 0;
        for h in hold.held.drain(..) {
            if !h.relayed {
                self.blocked[h.flow as usize] &= !(1 << h.side as u8);
            }
            self.held_pkts -= 1;
            self.held_bytes -= pool.get(h.packet).size as u64;
            out.push(h);
        }
        hold.turn = 0;
    }

    /// Every held packet with the time it was held (for the end-of-run accounting).
    pub fn held(&self) -> impl Iterator<Item = (PacketRef, Time)> + '_ {
        self.holds
            .iter()
            .flat_map(|h| h.held.iter().map(|h| (h.packet, h.since)))
    }
}

/// Whether the NIC queue of `port` takes a packet of `size` bytes now. An empty queue takes
/// anything: a packet larger than the whole buffer meets the queue (and its drop) rather than
/// waiting for ever.
fn has_room(p: &mut Port, size: u64, now: Time) -> bool {
    if p.eager {
        p.settle(now);
        p.backlog_pkts == 0 || p.queue.admits(p.backlog_pkts, p.backlog_bytes, size)
    } else {
        p.queue.is_empty()
            || p.queue
                .admits(p.queue.len_pkts(), p.queue.len_bytes(), size)
    }
}

impl Simulation {
    /// A packet the endpoint (`side` of its flow) at host `node` emitted: to the NIC the
    /// routing chooses, held there if the NIC queue is full (or already holds packets) and the
    /// host pushes back.
    pub(super) fn send_from_host(&mut self, node: NodeIdx, r: PacketRef, side: Side) {
        if let Some(port) = self.route_to_nic(node, r) {
            let holds = self.host_holds.as_mut().expect("only when holding");
            holds.hold(port, r, side, &self.pool, self.now);
            self.wake_nic_when_room(port);
        }
    }

    /// A packet host `node` relays for others (server-centric layouts): where its NIC queue
    /// is full or holds packets, it waits its turn with the host's own flows, up to a second
    /// buffer of the queue's size (beyond, it is dropped, as at a switch). Without its turn a
    /// relayed packet would meet a queue the host's held packets refill the instant a slot
    /// frees, and the traffic the host forwards would starve behind its own.
    pub(super) fn relay_from_host(&mut self, node: NodeIdx, r: PacketRef) {
        if let Some(port) = self.route_to_nic(node, r) {
            let holds = self.host_holds.as_mut().expect("only when holding");
            let p = &self.net.ports[port as usize];
            if holds.hold_relayed(p, port, r, &self.pool, self.now) {
                self.wake_nic_when_room(port);
            } else {
                self.drop_packet(r, Some(port));
            }
        }
    }

    /// Routes a packet leaving host `node` and queues it at its NIC (or drops it where there
    /// is no route, or the link is down); returns the NIC instead when the host must hold the
    /// packet: the host pushes back, and the NIC queue is full or already holds packets.
    fn route_to_nic(&mut self, node: NodeIdx, r: PacketRef) -> Option<PortIdx> {
        if self.host_holds.is_none() {
            self.forward(node, r);
            return None;
        }
        let Some(port) = self.route(node, r) else {
            self.drop_packet(r, None);
            return None;
        };
        let p = &mut self.net.ports[port as usize];
        let holds = self.host_holds.as_ref().expect("checked above");
        if p.up && (holds.holding(port) || !has_room(p, self.pool.get(r).size as u64, self.now)) {
            return Some(port);
        }
        self.enqueue(port, r);
        None
    }

    /// Moves held packets into the NIC queue of `port` while it has room, and asks each
    /// endpoint whose packet went in for its next ones.
    pub(super) fn release_held(&mut self, port: PortIdx) {
        let discipline = self.discipline;
        loop {
            let Some(holds) = self.host_holds.as_mut() else {
                return;
            };
            let Some(r) = holds.peek(port, discipline, &self.pool) else {
                break;
            };
            let size = self.pool.get(r).size as u64;
            if !has_room(&mut self.net.ports[port as usize], size, self.now) {
                break;
            }
            let (h, waited) = holds
                .take(port, discipline, &self.pool, self.now)
                .expect("peeked");
            if self.pool.get(h.packet).payload > 0 {
                self.host_wait[h.flow as usize] += waited;
            }
            self.enqueue(port, h.packet);
            if !h.relayed && self.flows[h.flow as usize].endpoints.is_some() {
                self.after_endpoint(h.flow, h.side);
            }
        }
        self.wake_nic_when_room(port);
    }

    /// An eager port that holds packets gets an [`Event::NicRoom`] when its oldest waiting
    /// packet starts serialising (a queued port releases held packets as it dequeues).
    fn wake_nic_when_room(&mut self, port: PortIdx) {
        let holds = self.host_holds.as_mut().expect("only called when holding");
        let p = &mut self.net.ports[port as usize];
        if !p.eager || !holds.holding(port) || holds.holds[port as usize].wake.is_some() {
            return;
        }
        p.settle(self.now);
        if let Some(t) = p.next_start() {
            holds.holds[port as usize].wake = Some(t);
            self.events.schedule(t, Event::NicRoom(port));
        }
    }

    /// [`Event::NicRoom`]: the eager port's oldest waiting packet has started.
    pub(super) fn nic_room(&mut self, port: PortIdx) {
        if let Some(holds) = self.host_holds.as_mut() {
            holds.holds[port as usize].wake = None;
            self.release_held(port);
        }
    }

    /// The link of `port` failed: what its host held for it is lost with its queue, and the
    /// endpoints are asked for their next packets (which meet the link down).
    pub(super) fn drop_held(&mut self, port: PortIdx) {
        let Some(holds) = self.host_holds.as_mut() else {
            return;
        };
        let mut lost = Vec::new();
        holds.drain(port, &self.pool, &mut lost);
        for h in lost {
            self.drop_packet(h.packet, Some(port));
            if !h.relayed && self.flows[h.flow as usize].endpoints.is_some() {
                self.after_endpoint(h.flow, h.side);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;

    fn pkt(pool: &mut PacketPool, flow: u32, rank: u64) -> PacketRef {
        pool.insert(Packet {
            flow,
            rank,
            size: 1500,
            ..Packet::default()
        })
    }

    fn order(h: &mut HostHolds, d: Discipline, pool: &PacketPool) -> Vec<u32> {
        std::iter::from_fn(|| h.take(0, d, pool, Time::ZERO))
            .map(|(held, _)| held.flow)
            .collect()
    }

    #[test]
    fn fifo_takes_endpoints_in_turn_and_a_returning_one_goes_last() {
        let mut pool = PacketPool::default();
        let mut h = HostHolds::new(1, 10);
        for flow in [7, 3, 9] {
            let r = pkt(&mut pool, flow, 0);
            h.hold(0, r, Side::Sender, &pool, Time::ZERO);
        }
        assert!(h.is_blocked(7, Side::Sender) && !h.is_blocked(7, Side::Receiver));
        let (first, _) = h.take(0, Discipline::Fifo, &pool, Time::ZERO).unwrap();
        assert_eq!(first.flow, 7);
        assert!(!h.is_blocked(7, Side::Sender));
        // Flow 7 emits its next packet: it waits behind 3 and 9.
        let r = pkt(&mut pool, 7, 0);
        h.hold(0, r, Side::Sender, &pool, Time::ZERO);
        assert_eq!(order(&mut h, Discipline::Fifo, &pool), [3, 9, 7]);
        assert_eq!((h.held_pkts, h.held_bytes, h.waited_pkts), (0, 0, 4));
        assert!(!h.holding(0));
    }

    #[test]
    fn rank_queues_take_the_best_rank_first_and_turns_among_equals() {
        let mut pool = PacketPool::default();
        let mut h = HostHolds::new(1, 10);
        for (flow, rank) in [(1, 50), (2, 30), (3, 30), (4, 10)] {
            let r = pkt(&mut pool, flow, rank);
            h.hold(0, r, Side::Sender, &pool, Time::ZERO);
        }
        assert_eq!(order(&mut h, Discipline::Pfabric, &pool), [4, 2, 3, 1]);
    }

    /// Equal ranks (or priority classes) take turns, also after a better-ranked packet was
    /// taken from the middle of the list: a held packet goes last in the turns. (Appended at
    /// the end, an endpoint that emits its next packet at once, as it does while it has data,
    /// landed at the cursor again and was served for ever while its equal waited.) Here A
    /// waits behind X (better) and B; after X, A and B alternate.
    #[test]
    fn equal_ranks_take_turns_after_a_better_one_left() {
        let mut pool = PacketPool::default();
        let mut h = HostHolds::new(1, 10);
        for (flow, rank) in [(1, 5), (9, 1), (2, 5)] {
            let r = pkt(&mut pool, flow, rank);
            h.hold(0, r, Side::Sender, &pool, Time::ZERO);
        }
        let (first, _) = h.take(0, Discipline::Rank, &pool, Time::ZERO).unwrap();
        assert_eq!(first.flow, 9, "the best rank first");
        // Flows 1 and 2 always have a next packet of the same rank, held as soon as they
        // are served.
        let mut served = Vec::new();
        for _ in 0..6 {
            let (h1, _) = h.take(0, Discipline::Rank, &pool, Time::ZERO).unwrap();
            served.push(h1.flow);
            let r = pkt(&mut pool, h1.flow, 5);
            h.hold(0, r, Side::Sender, &pool, Time::ZERO);
        }
        let alternates = served.windows(2).all(|w| w[0] != w[1]);
        assert!(
            alternates,
            "round robin among equal ranks: served {served:?}"
        );
    }

    #[test]
    fn waits_are_counted_from_hold_to_take() {
        let mut pool = PacketPool::default();
        let mut h = HostHolds::new(2, 2);
        let a = pkt(&mut pool, 0, 0);
        let b = pkt(&mut pool, 1, 0);
        h.hold(1, a, Side::Sender, &pool, Time::from_us(1));
        h.hold(1, b, Side::Receiver, &pool, Time::from_us(2));
        assert!(!h.holding(0) && h.holding(1));
        assert_eq!(h.held().count(), 2);
        let (held, w) = h
            .take(1, Discipline::Fifo, &pool, Time::from_us(5))
            .unwrap();
        assert_eq!((held.packet, w), (a, Time::from_us(4)));
        let mut lost = Vec::new();
        h.drain(1, &pool, &mut lost);
        assert_eq!(lost.iter().map(|h| h.packet).collect::<Vec<_>>(), [b]);
        assert!(!h.is_blocked(1, Side::Receiver));
        assert_eq!(
            (h.held_pkts, h.waited_pkts, h.wait_total),
            (0, 1, Time::from_us(4))
        );
    }

    /// A simulation of `text` (TOML) with the flows of `csv`, not yet run.
    fn simulation(name: &str, text: &str, csv: &str) -> Simulation {
        let dir = std::env::temp_dir().join(format!("dcnsim-unit-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("flows.csv"), csv).unwrap();
        let p = crate::prepare_text(text, crate::Format::Toml, &[], &dir).unwrap();
        Simulation::new(p)
    }

    /// Runs events until `until` holds (or the events run out); whether it held.
    fn step_until(sim: &mut Simulation, mut until: impl FnMut(&Simulation) -> bool) -> bool {
        while let Some((t, ev)) = sim.events.pop_until(Time::from_ms(1000)) {
            sim.now = t;
            sim.handle(ev);
            if until(sim) {
                return true;
            }
        }
        false
    }

    /// An aborted flow whose host holds one of its packets still sends its close packets
    /// (the FIN/TERM that tell the switches holding state for it to let it go): its endpoint
    /// is not freed until the held packet enters the NIC and it can be asked for them.
    /// (Freed at once, they were lost without trace.) With `droptail` they always go out.
    #[test]
    fn an_aborted_flow_blocked_at_its_nic_still_sends_its_close_packet() {
        for protocol in ["pdq", "merp"] {
            // h0's NIC holds one waiting packet: two flows out of h0 and ACKs of a flow into
            // it keep it full.
            let text = format!(
                r#"
[topology]
kind = "star"
hosts = 3
link_gbps = 10
link_delay_us = 1
[[topology.link_overrides]]
between = ["h0", "sw"]
buffer_pkts = 1
[transport]
protocol = "{protocol}"
[workload]
kind = "flows"
file = "flows.csv"
"#
            );
            let csv = "src,dst,size_bytes,start_s\n0,1,2000000,0\n0,2,2000000,0\n1,0,2000000,0\n";
            let mut sim = simulation(protocol, &text, csv);
            let blocked = step_until(&mut sim, |s| {
                s.now > Time::from_us(200)
                    && s.flows[0].endpoints.is_some()
                    && s.host_holds.as_ref().unwrap().is_blocked(0, Side::Sender)
            });
            assert!(
                blocked,
                "{protocol}: flow 0's sender never waited for its NIC"
            );
            let sent = sim.counters.sent_pkts;
            sim.abort_at_deadline(0);
            // The close packet went out now, or the sender is kept until its held packet
            // enters the NIC and it can be asked for its close packet.
            assert!(
                sim.counters.sent_pkts > sent || sim.flows[0].endpoints.is_some(),
                "{protocol}: the aborted flow was freed with its close packet unsent"
            );
        }
    }
}
