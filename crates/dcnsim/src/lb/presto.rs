//! # Presto: flowcells at the edge, reordering hidden by the receiver
//!
//! K. He, E. Rozner, K. Agarwal, W. Felter, J. Carter, A. Akella, "Presto: Edge-based Load
//! Balancing for Fast Datacenter Networks", ACM SIGCOMM 2015 (§3 the sender's flowcells, §4 the
//! receiver's GRO changes; baselines.md §12).
//!
//! **Sender edge.** Each direction of each flow is cut into **flowcells** of
//! `routing.flowcell_bytes` (65 536: one maximal TSO segment) of payload; a packet that would
//! overflow the current cell starts the next one. Each new flowcell takes the **next path** of
//! the flow in round-robin order; every packet of a cell takes the same path. Paths are numbered
//! as in "Paths chosen at the source edge" ([`crate::lb`]); path = (flow's random start +
//! cell number), so consecutive cells change the first-hop uplink and P consecutive cells
//! cover all P paths. The cell number travels in the packet ([`LbFields::cell`]) as Presto's
//! flowcell id does.
//!
//! **Receiver.** A GRO-like buffer in front of TCP ([`super::resequencer`], mode "flowcell
//! boundary"): a packet above the next expected byte whose cell differs from the cell of the
//! last in-order packet is probably reordered across a cell boundary (the cells took different
//! paths) and is held, at most `routing.reorder_timeout_us` (100 µs) after the hold began; a gap
//! inside the current cell is treated as loss and pushed up at once, so TCP's fast retransmit
//! still works.
//!
//! Choices where the paper is silent (or not checked): byte counting uses payload bytes, so
//! packets without payload (ACKs) never start a cell and the reverse direction moves paths only
//! with its data; the cell number is 16 bits and wraps; the flow's first path is random
//! (`presto` stream) rather than chosen by a controller; path weights for asymmetry (the
//! paper's controller can change them) are not modelled — all paths are used equally; the hold
//! timeout is a parameter (the paper's value was not confirmed); the buffer has no size limit.
//!
//! [`LbFields::cell`]: crate::net::packet::LbFields::cell

use super::{flow_dir, start_path, SourceEdge};
use crate::net::packet::Packet;
use crate::net::{NodeIdx, PortIdx};
use crate::rng;
use crate::units::Time;

#[derive(Clone, Copy, Debug, Default)]
struct Cell {
    /// The flow direction's random first path.
    start: u16,
    /// Current flowcell number and the payload bytes it holds so far.
    id: u16,
    bytes: u64,
}

pub struct Presto {
    edge: SourceEdge,
    flowcell_bytes: u64,
    cells: Vec<Cell>,
    pub reorder_timeout: Time,
}

impl Presto {
    pub fn new(
        edge: SourceEdge,
        flows: usize,
        flowcell_bytes: u64,
        reorder_timeout: Time,
        seed: u64,
    ) -> Presto {
        Presto {
            edge,
            flowcell_bytes,
            cells: (0..2 * flows as u64)
                .map(|i| Cell {
                    start: rng::derive_u64(seed, "presto", i) as u16,
                    ..Default::default()
                })
                .collect(),
            reorder_timeout,
        }
    }

    #[inline]
    pub fn choose(&mut self, node: NodeIdx, pkt: &mut Packet, candidates: &[PortIdx]) -> PortIdx {
        if !self.edge.is_source(node, pkt) {
            return self.edge.follow(node, pkt, candidates);
        }
        // Every packet passes its sender's edge once: count it into its flowcell there, even
        // when the destination hangs off the same switch (the receiver reads the cell number).
        let c = &mut self.cells[flow_dir(pkt)];
        let payload = pkt.payload as u64;
        if payload > 0 {
            if c.bytes > 0 && c.bytes + payload > self.flowcell_bytes {
                c.id = c.id.wrapping_add(1);
                c.bytes = 0;
            }
            c.bytes += payload;
        }
        pkt.lb.cell = c.id;
        let path = c.start.wrapping_add(c.id);
        start_path(pkt, path as u32, candidates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lb::testnet;

    #[test]
    fn flowcells_of_64kb_round_robin_over_uplinks() {
        let net =
            testnet::build("kind = \"leafspine\"\nleaves = 2\nspines = 4\nhosts_per_leaf = 1");
        let mut presto = Presto::new(SourceEdge::new(&net), 1, 65_536, Time::from_us(100), 3);
        let leaf0 = net.ports[net.nodes[net.hosts[0] as usize].ports[0] as usize].peer;
        let cands = net.routing.next_hops(leaf0, 1).to_vec();
        assert_eq!(cands.len(), 4);
        let mut per_cell: Vec<(u16, PortIdx)> = Vec::new();
        for i in 0..(45 * 8) as u64 {
            let mut pkt = Packet {
                src: 0,
                dst: 1,
                seq: i * 1460,
                payload: 1460,
                ..Default::default()
            };
            let port = presto.choose(leaf0, &mut pkt, &cands);
            match per_cell.last() {
                Some(&(cell, p)) if cell == pkt.lb.cell => {
                    assert_eq!(p, port, "a cell keeps its path")
                }
                _ => per_cell.push((pkt.lb.cell, port)),
            }
        }
        // 44 full segments fit in 64 KB (44 · 1460 = 64 240), so 360 packets make 9 cells.
        assert_eq!(per_cell.len(), 9);
        let first_four: std::collections::BTreeSet<PortIdx> =
            per_cell[..4].iter().map(|c| c.1).collect();
        assert_eq!(
            first_four.len(),
            4,
            "four consecutive cells use all four uplinks"
        );
        assert_eq!(per_cell[0].1, per_cell[4].1, "round-robin repeats");
    }

    #[test]
    fn acks_never_start_a_cell() {
        let net =
            testnet::build("kind = \"leafspine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 1");
        let mut presto = Presto::new(SourceEdge::new(&net), 1, 1000, Time::from_us(100), 3);
        let leaf1 = net.ports[net.nodes[net.hosts[1] as usize].ports[0] as usize].peer;
        let cands = net.routing.next_hops(leaf1, 0).to_vec();
        let ports: Vec<PortIdx> = (0..10)
            .map(|_| {
                let mut ack = Packet {
                    src: 1,
                    dst: 0,
                    kind: crate::net::packet::PacketKind::Ack,
                    ..Default::default()
                };
                presto.choose(leaf1, &mut ack, &cands)
            })
            .collect();
        assert!(ports.iter().all(|&p| p == ports[0]));
    }
}
