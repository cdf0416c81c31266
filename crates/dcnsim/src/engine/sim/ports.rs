//! Packets through ports: routing and path choice at a node, queueing (eager FIFO or at
//! dequeue), transmission, arrival at the far end, drops, and links that fail and recover.

use super::{count_crossing, Event, Simulation};
use crate::lb::Fabric;
use crate::net::network::InFlight;
use crate::net::packet::{Ecn, PacketKind, PacketRef};
use crate::net::queue::Enqueued;
use crate::net::{NodeIdx, PortIdx};
use crate::protocols::agent::Admission;
use crate::units::Time;

impl Simulation {
    pub(super) fn drop_packet(&mut self, r: PacketRef, port: Option<PortIdx>) {
        let pkt = self.pool.get(r);
        let size = pkt.size as u64;
        if pkt.kind == PacketKind::Data && pkt.payload > 0 {
            let f = &mut self.flows[pkt.flow as usize];
            if let Some(ep) = f.endpoints.as_ref() {
                f.dropped.insert(pkt.seq, ep.sender.snd_una());
            }
        }
        self.counters.dropped_pkts += 1;
        self.counters.dropped_bytes += size;
        if let Some(p) = port {
            let p = &mut self.net.ports[p as usize];
            p.counters.drops += 1;
            if !p.at_switch {
                self.counters.dropped_host_nic_pkts += 1;
            }
        }
        self.pool.release(r);
    }

    /// Routes a packet at `node` and queues it at the chosen egress port, or drops it where
    /// there is no route. (Inlined into its callers: −2 % instructions on the fat-tree.)
    #[inline(always)]
    pub(super) fn forward(&mut self, node: NodeIdx, r: PacketRef) {
        match self.route(node, r) {
            Some(port) => self.enqueue(port, r),
            None => self.drop_packet(r, None),
        }
    }

    /// The egress port of a packet at `node`: the switch agent's choice, else the path
    /// choice's among the routing table's next hops; `None` where there is no route.
    #[inline(always)]
    pub(super) fn route(&mut self, node: NodeIdx, r: PacketRef) -> Option<PortIdx> {
        let pkt = self.pool.get_mut(r);
        let candidates = self.net.routing.next_hops(node, pkt.dst);
        if self.agent.is_none() {
            // ECMP's choice needs neither the fabric view nor the path-choice dispatch.
            if let Some(port) = self.lb.ecmp_choice(node, pkt, candidates) {
                return Some(port);
            }
        }
        if let Some(a) = self.agent.as_mut() {
            // Asked before the empty check: an agent may route where the tables have no path.
            if let Some(port) = a.route(self.now, node, pkt, candidates, &self.net.ports) {
                return Some(port);
            }
        }
        if candidates.is_empty() {
            return None;
        }
        let mut fabric = Fabric {
            now: self.now,
            routing: &self.net.routing,
            ports: &mut self.net.ports,
        };
        Some(self.lb.choose(node, pkt, candidates, &mut fabric))
    }

    pub(super) fn enqueue(&mut self, port: PortIdx, r: PacketRef) {
        let p = &mut self.net.ports[port as usize];
        if !p.up {
            self.drop_packet(r, Some(port));
            return;
        }
        if p.eager {
            return self.enqueue_eager(port, r);
        }
        let admission = match self.agent.as_mut() {
            Some(a) => {
                let verdict = a.on_enqueue(self.now, port, p, self.pool.get_mut(r));
                // A hook may wake a sleeping port: keep the tick event at the earliest need.
                if let Some(t) = a.poll_timeout() {
                    if self.agent_wake.is_none_or(|w| t < w) {
                        self.agent_wake = Some(t.max(self.now));
                        self.events.schedule(t.max(self.now), Event::AgentTick);
                    }
                }
                verdict
            }
            None => Admission::Normal,
        };
        // Stamped before the queue decides: a rank queue may accept this packet and drop
        // another one instead.
        if p.at_switch && self.pool.get(r).payload > 0 {
            let i = r.index();
            if i >= self.enqueued_at.len() {
                self.enqueued_at.resize(i + 1, Time::ZERO);
            }
            self.enqueued_at[i] = self.now;
        }
        match p.queue.enqueue(&mut self.pool, r) {
            Enqueued::Accepted { marked } => {
                let pkt = self.pool.get(r);
                self.lb.on_accept(port, pkt.size as u64, self.now);
                if marked {
                    p.counters.ecn_marks += 1;
                    self.counters.ecn_marked += 1;
                }
            }
            Enqueued::Dropped(victim) if victim == r && admission == Admission::Protected => {
                // Never lost: the header goes on, beyond the buffer limit, without its payload.
                let pkt = self.pool.get_mut(r);
                pkt.size -= pkt.payload;
                pkt.payload = 0;
                p.queue.push_forced(&self.pool, r);
            }
            Enqueued::Dropped(victim) => {
                self.drop_packet(victim, Some(port));
                if victim == r {
                    return;
                }
            }
        }
        if self.net.ports[port as usize].transmitting.is_none() {
            self.start_tx(port);
        }
    }

    /// FIFO ports: admission, ECN marking and the departure time are all decided now.
    pub(super) fn enqueue_eager(&mut self, port: PortIdx, r: PacketRef) {
        let p = &mut self.net.ports[port as usize];
        p.settle(self.now);
        let pkt = self.pool.get_mut(r);
        let size = pkt.size as u64;
        if !p.queue.admits(p.backlog_pkts, p.backlog_bytes, size) {
            self.drop_packet(r, Some(port));
            return;
        }
        if let Some(k) = p.queue.ecn_k_pkts() {
            if p.backlog_pkts >= k as u64 && pkt.ecn == Ecn::Ect {
                pkt.ecn = Ecn::Ce;
                p.counters.ecn_marks += 1;
                self.counters.ecn_marked += 1;
            }
        }
        if p.busy_until > self.now && p.at_switch && pkt.payload > 0 {
            self.queue_wait[pkt.flow as usize] += p.busy_until - self.now;
        }
        self.lb.on_accept(port, size, self.now);
        let (arrival, was_empty) = p.schedule(self.now, r, size);
        if was_empty {
            self.events.schedule(arrival, Event::Arrive(port));
        }
    }

    /// Non-eager ports: takes the next packet from the queue onto the wire.
    pub(super) fn start_tx(&mut self, port: PortIdx) {
        let p = &mut self.net.ports[port as usize];
        if let Some(r) = p.queue.dequeue(&self.pool) {
            if let Some(a) = self.agent.as_mut() {
                a.on_dequeue(self.now, port, p, self.pool.get_mut(r));
            }
            p.transmitting = Some(r);
            let pkt = self.pool.get(r);
            if p.at_switch && pkt.payload > 0 {
                self.queue_wait[pkt.flow as usize] += self.now - self.enqueued_at[r.index()];
            }
            let done = self.now + p.ser(self.pool.get(r).size as u64);
            self.events.schedule(done, Event::TxDone(port));
            // A slot freed: a host holding packets for this NIC hands it the next.
            if self.host_holds.as_ref().is_some_and(|h| h.holding(port)) {
                self.release_held(port);
            }
        }
    }

    pub(super) fn tx_done(&mut self, port: PortIdx) {
        let p = &mut self.net.ports[port as usize];
        let r = p.transmitting.take().expect("TxDone without a packet");
        let arrival = self.now + p.delay;
        if p.pipe.is_empty() {
            self.events.schedule(arrival, Event::Arrive(port));
        }
        let size = self.pool.get(r).size;
        p.pipe.push_back(InFlight {
            start: self.now,
            arrival,
            packet: r,
            size,
        });
        if p.up {
            self.start_tx(port);
        }
    }

    pub(super) fn arrive(&mut self, port: PortIdx) {
        let p = &mut self.net.ports[port as usize];
        let InFlight {
            arrival, packet: r, ..
        } = p.pop_arrived();
        debug_assert_eq!(arrival, self.now);
        if let Some(next) = p.pipe.front() {
            self.events.schedule(next.arrival, Event::Arrive(port));
        }
        let pkt = self.pool.get_mut(r);
        if !p.up || pkt.lost {
            self.drop_packet(r, Some(port));
            return;
        }
        // Link counters count a packet when it has crossed the link.
        p.counters.tx_packets += 1;
        p.counters.tx_bytes += pkt.size as u64;
        if pkt.payload > 0 && self.count_paths {
            count_crossing(&mut self.crossed[pkt.flow as usize], port);
        }
        self.counters.link_transmissions += 1;
        let node = p.peer;
        self.lb.on_arrive(port, pkt, &mut self.net.ports, self.now);
        // A host that is not the destination relays (server-centric layouts such as BCube;
        // the routing tables send packets through hosts only there). The host table is small
        // and stays in cache, where the node records would not.
        if self.net.hosts[pkt.dst as usize] == node {
            self.deliver(r)
        } else if self.net.hosts_relay && self.net.nodes[node as usize].host.is_some() {
            self.relay_from_host(node, r)
        } else {
            self.forward(node, r)
        }
    }

    pub(super) fn agent_tick(&mut self) {
        let Some(a) = self.agent.as_mut() else {
            return;
        };
        if self.agent_wake != Some(self.now) {
            return; // superseded by an earlier wake-up
        }
        a.handle_timeout(self.now, &self.net.ports);
        self.agent_wake = a.poll_timeout().map(|t| t.max(self.now));
        if let Some(t) = self.agent_wake {
            self.events.schedule(t, Event::AgentTick);
        }
    }

    pub(super) fn set_link(&mut self, link: u32, up: bool) {
        let (a, b) = self.net.links[link as usize];
        for port in [a, b] {
            let p = &mut self.net.ports[port as usize];
            p.up = up;
            if !up {
                // Waiting packets are lost with the link; those on the wire are dropped when
                // they would have arrived.
                let mut lost = std::mem::take(&mut self.dropped_scratch);
                p.fail(self.now, &mut self.pool, &mut lost);
                for r in lost.drain(..) {
                    self.drop_packet(r, Some(port));
                }
                self.dropped_scratch = lost;
                self.drop_held(port);
            } else if !p.eager && p.transmitting.is_none() {
                self.start_tx(port);
            }
        }
        self.events
            .schedule(self.now + self.reroute_delay, Event::Reroute);
    }
}
