//! Paths chosen at the source edge (see the module doc of [`super`]): where each host enters
//! the fabric, and the mixed-radix digits of a path carried in the packet.

use super::{flow_hash, hash_threshold};
use crate::net::packet::Packet;
use crate::net::{Network, NodeIdx, PortIdx};

/// Where packets enter the fabric: the edge switch of every host, for the schemes that choose
/// a whole path there (see "Paths chosen at the source edge").
pub struct SourceEdge {
    /// Node of each host id, and the node its first link leads to.
    host_node: Vec<NodeIdx>,
    edge_of_host: Vec<NodeIdx>,
    nodes: usize,
}

impl SourceEdge {
    pub fn new(net: &Network) -> SourceEdge {
        let edge_of_host = net
            .hosts
            .iter()
            .map(|&h| {
                net.nodes[h as usize]
                    .ports
                    .first()
                    .map_or(h, |&p| net.ports[p as usize].peer)
            })
            .collect();
        SourceEdge {
            host_node: net.hosts.clone(),
            edge_of_host,
            nodes: net.nodes.len(),
        }
    }

    /// Nodes in the network (for per-node state of the schemes).
    pub fn nodes_hint(&self) -> usize {
        self.nodes
    }

    /// The edge switch of host `h`.
    #[inline]
    pub fn edge(&self, h: u32) -> NodeIdx {
        self.edge_of_host[h as usize]
    }

    /// Whether `node` is where `pkt` enters the fabric.
    #[inline]
    pub fn is_source(&self, node: NodeIdx, pkt: &Packet) -> bool {
        self.edge_of_host[pkt.src as usize] == node
    }

    /// A choice at a node that is not the source edge: the next digit of the packet's path, or
    /// the flow hash at a multi-homed sending host.
    #[inline]
    pub fn follow(&self, node: NodeIdx, pkt: &mut Packet, candidates: &[PortIdx]) -> PortIdx {
        let m = candidates.len();
        if m == 1 {
            return candidates[0];
        }
        if self.host_node[pkt.src as usize] == node {
            return candidates[hash_threshold(flow_hash(0, pkt), m)];
        }
        let digit = pkt.lb.path as usize % m;
        pkt.lb.path /= m as u16;
        candidates[digit]
    }
}

/// At the source edge: takes the first digit of `path` here and leaves the rest in the packet.
#[inline]
pub fn start_path(pkt: &mut Packet, path: u32, candidates: &[PortIdx]) -> PortIdx {
    let m = candidates.len() as u32;
    pkt.lb.path = (path / m) as u16;
    candidates[(path % m) as usize]
}
