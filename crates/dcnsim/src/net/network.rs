//! The network built from a [`TopoSpec`]: nodes, ports (egress queue + outgoing link), and the
//! routing tables. Everything is a dense index.
//!
//! A full-duplex link is two ports, one at each end; `ports[p].reverse` is the port of the
//! opposite direction. A port serialises one packet at a time onto its link; packets then
//! travel the link's propagation delay in a FIFO "pipe" (every packet on a link is delayed the
//! same, so the pipe stays ordered and only its head needs an event).

use super::packet::PacketRef;
use super::queue::{Discipline, Queue};
use super::routing::{Graph, RoutingTable};
use crate::topo::{NodeKind, TopoSpec};
use crate::units::{Rate, Time};
use std::collections::VecDeque;

pub type NodeIdx = u32;
pub type PortIdx = u32;

pub struct Node {
    pub kind: NodeKind,
    pub name: String,
    /// Host id for hosts.
    pub host: Option<u32>,
    pub ports: Vec<PortIdx>,
}

/// Counters of one port since the start of the run.
#[derive(Clone, Copy, Debug, Default)]
pub struct PortCounters {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    pub ecn_marks: u64,
}

pub struct Port {
    pub node: NodeIdx,
    pub peer: NodeIdx,
    pub reverse: PortIdx,
    pub link: u32,
    pub rate: Rate,
    pub delay: Time,
    pub queue: Queue,
    /// The packet being serialised, if any.
    pub transmitting: Option<PacketRef>,
    /// Packets on the wire with their arrival time at the peer, oldest first.
    pub pipe: VecDeque<(Time, PacketRef)>,
    pub up: bool,
    pub counters: PortCounters,
    /// `counters.tx_bytes` at the previous series sample.
    pub sampled_tx_bytes: u64,
}

pub struct Network {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// Node of each host id.
    pub hosts: Vec<NodeIdx>,
    pub routing: RoutingTable,
    /// (port a→b, port b→a) of each topology link.
    pub links: Vec<(PortIdx, PortIdx)>,
}

impl Network {
    /// Builds nodes and ports. Every egress queue, a host's NIC included, gets `discipline`,
    /// its link's buffer and the ECN threshold `ecn_k` returns for its link rate: a sender that
    /// outruns its own NIC fills that queue and loses packets there, as with a real NIC queue
    /// of that size. (An unlimited NIC queue would let a lone flow's window grow without bound
    /// and hide milliseconds of queueing inside the host.)
    pub fn build(
        spec: &TopoSpec,
        discipline: Discipline,
        ecn_k: &dyn Fn(Rate) -> Option<u32>,
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
                let queue = Queue::new(discipline, l.buffer, ecn_k(rate));
                nodes[from].ports.push(ports.len() as PortIdx);
                ports.push(Port {
                    node: from as NodeIdx,
                    peer: to as NodeIdx,
                    reverse,
                    link: li as u32,
                    rate,
                    delay,
                    queue,
                    transmitting: None,
                    pipe: VecDeque::new(),
                    up: true,
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
        };
        net.recompute_routes();
        net
    }

    /// Recomputes every routing table from the links that are up now.
    pub fn recompute_routes(&mut self) {
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
        self.routing = RoutingTable::compute(&Graph {
            adjacency: &adjacency,
            hosts: &self.hosts,
            is_host: &is_host,
        });
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
