//! The network built from a [`TopoSpec`]: nodes, ports (egress queue + outgoing link), and the
//! routing tables. Everything is a dense index.
//!
//! A full-duplex link is two ports, one at each end; `ports[p].reverse` is the port of the
//! opposite direction. A port serialises one packet at a time onto its link; packets then
//! travel the link's propagation delay in a FIFO "pipe" (every packet on a link is delayed the
//! same, so the pipe stays ordered and only its head needs an event).

use super::packet::{PacketPool, PacketRef};
use super::queue::{Discipline, Queue};
use super::ring::Ring;
use super::routing::{Graph, RoutingTable};
use crate::topo::{NodeKind, TopoSpec};
use crate::units::{Rate, Time};

pub type NodeIdx = u32;
pub type PortIdx = u32;

pub struct Node {
    pub kind: NodeKind,
    pub name: String,
    /// Host id for hosts.
    pub host: Option<u32>,
    pub ports: Vec<PortIdx>,
}

/// Counters of one port since the start of the run (the two every hop updates first: see
/// [`Port`]'s layout).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct PortCounters {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    pub ecn_marks: u64,
}

/// A packet on (or scheduled onto) a link: when it starts serialising and when it reaches the
/// far end.
#[derive(Clone, Copy, Debug)]
pub struct InFlight {
    pub start: Time,
    pub arrival: Time,
    pub packet: PacketRef,
    /// Wire size, kept here so that retiring the backlog does not touch the packet pool.
    pub size: u32,
}

/// An egress port and its link.
///
/// A FIFO port is **eager**: a packet's departure is fixed the moment it is accepted
/// (`start = max(now, busy_until)`), because nothing that arrives later can overtake it. It goes
/// straight into the pipe, and the port needs no transmit-complete event: one event per packet
/// per hop (its arrival). The packets of the pipe whose `start` is still in the future are the
/// queue; `backlog_*` count them, and [`Port::settle`] retires those that have started. Other
/// disciplines (priority, rank) choose at dequeue time, so they keep a [`Queue`] and serialise
/// one packet at a time with a `TxDone` event.
///
/// **Layout.** Every hop reads two ports, and the port records do not stay in the L1 cache
/// between hops, so the fields are in declaration order (`repr(C)`), aligned to a cache line:
/// the pipe and the backlog fill the first line, the rest of what an eager hop reads fills
/// the second (counters included), and the queue's limit and marking threshold open the
/// third; what only set-up, reports and the non-eager path read comes last (test
/// `a_hop_reads_the_first_three_lines`; bench/RESULTS.md, "Packet level: cache lines, again").
#[repr(C, align(64))]
pub struct Port {
    /// Packets on the wire (eager: and scheduled onto it), oldest first.
    pub pipe: Ring<InFlight>,
    /// Eager: when the last accepted packet finishes serialising.
    pub busy_until: Time,
    /// Eager: packets (and bytes) accepted but not yet started, and the pipe index of the
    /// first of them.
    pub backlog_pkts: u64,
    pub backlog_bytes: u64,
    backlog_from: usize,
    /// Serialisation time of one byte when it is a whole number of picoseconds.
    ps_per_byte: Option<u64>,
    pub delay: Time,
    pub peer: NodeIdx,
    pub eager: bool,
    pub up: bool,
    /// The port is a switch's egress (not a host NIC): queueing delay is measured here.
    pub at_switch: bool,
    pub counters: PortCounters,
    /// Buffer limit and marking threshold for every discipline; holds the packets only for
    /// non-eager ports.
    pub queue: Queue,
    pub node: NodeIdx,
    pub reverse: PortIdx,
    pub link: u32,
    pub rate: Rate,
    /// Non-eager: the packet being serialised, if any.
    pub transmitting: Option<PacketRef>,
    /// `counters.tx_bytes` at the previous series sample.
    pub sampled_tx_bytes: u64,
}

impl Port {
    /// Time to serialise `bytes` on this port's link.
    #[inline]
    pub fn ser(&self, bytes: u64) -> Time {
        match self.ps_per_byte {
            Some(ps) => Time(bytes * ps),
            None => self.rate.tx_time(bytes),
        }
    }

    /// Eager ports: retires from the backlog the packets that have started by `now`.
    #[inline]
    pub fn settle(&mut self, now: Time) {
        while let Some(f) = self.pipe.get(self.backlog_from) {
            if f.start > now {
                break;
            }
            self.backlog_from += 1;
            self.backlog_pkts -= 1;
            self.backlog_bytes -= f.size as u64;
        }
    }

    /// Eager ports: puts an accepted packet on the link schedule. Returns its arrival time at
    /// the far end and whether the pipe was empty (then the caller schedules the arrival).
    #[inline]
    pub fn schedule(&mut self, now: Time, packet: PacketRef, size: u64) -> (Time, bool) {
        let start = now.max(self.busy_until);
        self.busy_until = start + self.ser(size);
        let arrival = self.busy_until + self.delay;
        let was_empty = self.pipe.is_empty();
        self.pipe.push_back(InFlight {
            start,
            arrival,
            packet,
            size: size as u32,
        });
        self.backlog_pkts += 1;
        self.backlog_bytes += size;
        (arrival, was_empty)
    }

    /// Eager ports: when the oldest packet still waiting starts serialising (call
    /// [`Port::settle`] first), if any waits.
    pub fn next_start(&self) -> Option<Time> {
        (self.backlog_pkts > 0)
            .then(|| self.pipe.get(self.backlog_from))
            .flatten()
            .map(|f| f.start)
    }

    /// Takes the head of the pipe (it has arrived). On an eager port the head leaves the
    /// backlog if it was still counted there; the other packets that have started by now are
    /// retired by the next [`Port::settle`], which every reader of the backlog calls first (one
    /// settle per hop instead of two: −2 % instructions on the fat-tree).
    #[inline]
    pub fn pop_arrived(&mut self) -> InFlight {
        let head = self.pipe.pop_front().expect("an arrival without a packet");
        if self.eager {
            if self.backlog_from == 0 {
                self.backlog_pkts -= 1;
                self.backlog_bytes -= head.size as u64;
            } else {
                self.backlog_from -= 1;
            }
        }
        head
    }

    /// Bytes waiting to be sent at `now`.
    pub fn queued_bytes(&mut self, now: Time) -> u64 {
        if self.eager {
            self.settle(now);
            self.backlog_bytes
        } else {
            self.queue.len_bytes()
        }
    }

    /// The link failed: hands every packet still waiting to `out` (the caller drops them) and
    /// marks those already on the wire lost (they are dropped when they would have arrived, so
    /// the pending events stay valid).
    pub fn fail(&mut self, now: Time, pool: &mut PacketPool, out: &mut Vec<PacketRef>) {
        self.queue.drain_all(out);
        if self.eager {
            self.settle(now);
            out.extend(
                (self.backlog_from..self.pipe.len())
                    .map(|i| self.pipe.get(i).expect("in the pipe").packet),
            );
            self.pipe.truncate(self.backlog_from);
            self.backlog_pkts = 0;
            self.backlog_bytes = 0;
            self.busy_until = self.pipe.back().map_or(now, |f| f.arrival - self.delay);
        }
        for f in self.pipe.iter() {
            pool.get_mut(f.packet).lost = true;
        }
        if let Some(r) = self.transmitting {
            pool.get_mut(r).lost = true;
        }
    }
}

pub struct Network {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// Node of each host id.
    pub hosts: Vec<NodeIdx>,
    pub routing: RoutingTable,
    /// (port a→b, port b→a) of each topology link.
    pub links: Vec<(PortIdx, PortIdx)>,
    /// Hosts forward packets addressed to other hosts (server-centric topologies such as
    /// BCube); they route them with the same tables and path choice as switches.
    pub hosts_relay: bool,
}

impl Network {
    /// Builds nodes and ports. Every egress queue, a host's NIC included, gets `discipline`,
    /// its link's buffer and ECN marking threshold — the link's own, else the one
    /// `default_ecn_k` returns for the port's rate (the transport's default). A sender that
    /// outruns its own NIC fills that queue, and then the simulation holds its packets in the
    /// host or drops them (`topology.host_nic`; the engine's `host_nic` module): the queue
    /// itself is the size the link gives it, so ECN marks and the queueing delay inside the
    /// host stay those of a NIC queue of that size.
    pub fn build(
        spec: &TopoSpec,
        discipline: Discipline,
        default_ecn_k: &dyn Fn(Rate) -> Option<u32>,
    ) -> Network {
        let mut nodes: Vec<Node> = spec
            .nodes
            .iter()
            .map(|n| Node {
                kind: n.kind,
                name: n.name.clone(),
                host: None,
                ports: Vec::new(),
            })
            .collect();
        for (id, &node) in spec.hosts.iter().enumerate() {
            nodes[node].host = Some(id as u32);
        }
        let mut ports = Vec::with_capacity(spec.links.len() * 2);
        let mut links = Vec::with_capacity(spec.links.len());
        for (li, l) in spec.links.iter().enumerate() {
            let pa = ports.len() as PortIdx;
            let pb = pa + 1;
            for (from, to, rate, delay, reverse) in [
                (l.a, l.b, l.rate_ab, l.delay_ab, pb),
                (l.b, l.a, l.rate_ba, l.delay_ba, pa),
            ] {
                let k = l.ecn_k_pkts.or_else(|| default_ecn_k(rate));
                let queue = Queue::new(discipline, l.buffer, k);
                let ps_per_byte = (8 * Time::PS_PER_SEC)
                    .checked_rem(rate.0)
                    .filter(|&r| r == 0)
                    .map(|_| 8 * Time::PS_PER_SEC / rate.0);
                nodes[from].ports.push(ports.len() as PortIdx);
                ports.push(Port {
                    node: from as NodeIdx,
                    peer: to as NodeIdx,
                    reverse,
                    link: li as u32,
                    rate,
                    delay,
                    queue,
                    eager: discipline == Discipline::Fifo,
                    busy_until: Time::ZERO,
                    backlog_pkts: 0,
                    backlog_bytes: 0,
                    backlog_from: 0,
                    ps_per_byte,
                    transmitting: None,
                    pipe: Ring::default(),
                    up: true,
                    at_switch: spec.nodes[from].kind == NodeKind::Switch,
                    counters: PortCounters::default(),
                    sampled_tx_bytes: 0,
                });
            }
            links.push((pa, pb));
        }
        let hosts: Vec<NodeIdx> = spec.hosts.iter().map(|&h| h as NodeIdx).collect();
        let mut net = Network {
            nodes,
            ports,
            hosts,
            routing: RoutingTable::empty(),
            links,
            hosts_relay: spec.hosts_relay,
        };
        net.recompute_routes();
        net
    }

    /// Recomputes every routing table from the links that are up now.
    pub fn recompute_routes(&mut self) {
        self.routing = self.routing_graph(RoutingTable::compute);
    }

    /// Runs `search` on the graph routing reads: each node's egress ports with their peers and
    /// whether they are up, which nodes are hosts, and whether hosts relay.
    pub fn routing_graph<R>(&self, search: impl FnOnce(&Graph) -> R) -> R {
        let adjacency: Vec<Vec<(PortIdx, NodeIdx, bool)>> = self
            .nodes
            .iter()
            .map(|n| {
                n.ports
                    .iter()
                    .map(|&p| (p, self.ports[p as usize].peer, self.ports[p as usize].up))
                    .collect()
            })
            .collect();
        let is_host: Vec<bool> = self
            .nodes
            .iter()
            .map(|n| n.kind == NodeKind::Host)
            .collect();
        search(&Graph {
            adjacency: &adjacency,
            hosts: &self.hosts,
            is_host: &is_host,
            hosts_relay: self.hosts_relay,
        })
    }

    /// The link joining two named nodes, if any.
    pub fn find_link(&self, a: &str, b: &str) -> Option<u32> {
        self.links
            .iter()
            .position(|&(pa, _)| {
                let p = &self.ports[pa as usize];
                let (x, y) = (
                    &self.nodes[p.node as usize].name,
                    &self.nodes[p.peer as usize].name,
                );
                (x == a && y == b) || (x == b && y == a)
            })
            .map(|i| i as u32)
    }

    pub fn node_name(&self, n: NodeIdx) -> &str {
        &self.nodes[n as usize].name
    }
}

/// A small generated layout of every topology kind (a `[topology]` table as TOML), for tests
/// that run over all of them.
#[cfg(test)]
pub(crate) const TEST_LAYOUTS: [&str; 8] = [
    "kind = 'fattree'\nk = 4",
    "kind = 'leafspine'\nleaves = 3\nspines = 2\nhosts_per_leaf = 3",
    "kind = 'dumbbell'",
    "kind = 'star'",
    "kind = 'tree'",
    "kind = 'parkinglot'",
    "kind = 'bcube'\nn = 3\nk = 1",
    "kind = 'jellyfish'\nswitches = 12\nports_per_switch = 6\nhosts_per_switch = 2",
];

/// The FIFO network of a `[topology]` table given as TOML (seed 7), for tests.
#[cfg(test)]
pub(crate) fn test_network(layout: &str) -> Network {
    let cfg: crate::topo::TopologyConfig = toml::from_str(layout).expect("valid layout");
    let spec = crate::topo::build(&cfg, std::path::Path::new("."), 7).expect("builds");
    Network::build(&spec, Discipline::Fifo, &|_| None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::BufferSize;
    use std::mem::offset_of;

    /// Which cache line of a port a field starts in, and that it does not straddle two.
    fn line(offset: usize, size: usize) -> usize {
        assert_eq!(
            offset / 64,
            (offset + size - 1) / 64,
            "field at {offset} straddles"
        );
        offset / 64
    }

    #[test]
    fn a_hop_reads_the_first_three_lines() {
        assert_eq!(std::mem::align_of::<Port>(), 64);
        // First line: the pipe and the backlog (arrival and enqueue).
        assert_eq!(line(offset_of!(Port, pipe), size_of::<Ring<InFlight>>()), 0);
        assert_eq!(line(offset_of!(Port, busy_until), 8), 0);
        assert_eq!(line(offset_of!(Port, backlog_pkts), 8), 0);
        // Second: the rest of what an eager hop reads, the counters it updates included.
        for (offset, size) in [
            (offset_of!(Port, backlog_bytes), 8),
            (offset_of!(Port, backlog_from), 8),
            (offset_of!(Port, ps_per_byte), 16),
            (offset_of!(Port, delay), 8),
            (offset_of!(Port, peer), 4),
            (offset_of!(Port, eager), 1),
            (offset_of!(Port, up), 1),
            (offset_of!(Port, at_switch), 1),
            (offset_of!(Port, counters.tx_packets), 8),
            (offset_of!(Port, counters.tx_bytes), 8),
        ] {
            assert_eq!(line(offset, size), 1, "offset {offset}");
        }
        // Third: the queue's limit and marking threshold (enqueue only).
        let queue = offset_of!(Port, queue);
        assert_eq!(line(queue, size_of::<BufferSize>() + 8), 2);
    }
}
