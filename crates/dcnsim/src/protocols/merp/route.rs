//! MEMR, MERP's route control (§5, Algorithms 4–6), as the switch agent's routing hook:
//! `routing.lb = "memr"`.
//!
//! At every node where a flow's SYN has more than one equal-cost next hop, the switch scores
//! each candidate egress link by its flow table: first GPE, the expansion ratio the new flow
//! would get there (Algorithm 5); among the links where that is smallest, GMER, the rate the
//! tail flow could expect, lowered to the esr of same-destination flows at least as large —
//! which carries what the links beyond already grant them (Algorithm 6). The best link is
//! pinned for the flow at that node: every later packet of the flow (DATA, DET, FIN and
//! retransmitted SYNs) follows it, so its flow-table entries stay on one path.
//!
//! Choices where the paper is silent:
//! * **A path is a next hop.** Algorithm 4 ranges over "paths" with "the flow state table
//!   T\[P\] of P"; each switch decides its own next hop from the table of that egress link, so a
//!   fat-tree path is chosen hop by hop (edge, then aggregation switch).
//! * **Ties** after both stages (e.g. every link idle) are broken by a hash of the flow and
//!   the node, as ECMP would, so that simultaneous flows do not all take the first link.
//! * **After a reroute** (a failed link gone from the candidates) a pinned choice that is no
//!   longer a candidate is chosen again, as at a SYN.
//! * ACKs and everything else MERP does not route go by ECMP.

use super::header::MerpHeader;
use super::schedule::{gmer, gpe, FlowEntry};
use super::switch::Link;
use crate::net::packet::Packet;
use crate::net::{NodeIdx, PortIdx};
use crate::units::Time;

/// Pinned next hops, per flow: (node, port) pairs, one per branching node of its path.
#[derive(Default)]
pub struct Memr {
    pins: Vec<Vec<(NodeIdx, PortIdx)>>,
    scratch: Vec<FlowEntry>,
}

impl Memr {
    /// The egress port of `pkt` at `node` among `candidates` (more than one), or `None` for
    /// packets MEMR does not route.
    pub fn route(
        &mut self,
        now: Time,
        node: NodeIdx,
        pkt: &Packet,
        candidates: &[PortIdx],
        links: &[Link],
    ) -> Option<PortIdx> {
        let h = MerpHeader::read(pkt)?;
        if !h.kind.is_forward() || candidates.len() < 2 {
            return None;
        }
        let flow = pkt.flow as usize;
        if flow >= self.pins.len() {
            self.pins.resize_with(flow + 1, Vec::new);
        }
        let pinned = self.pins[flow]
            .iter()
            .find(|(n, _)| *n == node)
            .map(|&(_, p)| p);
        if let Some(p) = pinned.filter(|p| candidates.contains(p)) {
            return Some(p);
        }
        let chosen = self.choose(now, node, pkt, &h, candidates, links);
        let pins = &mut self.pins[flow];
        match pins.iter_mut().find(|(n, _)| *n == node) {
            Some(pin) => pin.1 = chosen,
            None => pins.push((node, chosen)),
        }
        Some(chosen)
    }

    /// Algorithm 4: the links of least GPE, then the greatest GMER, then a hash.
    fn choose(
        &mut self,
        now: Time,
        node: NodeIdx,
        pkt: &Packet,
        h: &MerpHeader,
        candidates: &[PortIdx],
        links: &[Link],
    ) -> PortIdx {
        let size = (h.size as u64).max(1);
        // Scores compared with a relative tolerance: equal links tie exactly in exact
        // arithmetic, but the float sums of different tables need not.
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
        let mut best: Vec<(PortIdx, f64)> = Vec::with_capacity(candidates.len());
        let mut least = f64::INFINITY;
        for &p in candidates {
            let link = &links[p as usize];
            let er = gpe(&link.table, size, now, link.capacity, &mut self.scratch);
            if best.is_empty() || (er < least && !close(er, least)) {
                least = er;
                best.clear();
            } else if !close(er, least) {
                continue;
            }
            best.push((p, gmer(&link.table, size, pkt.dst, now, link.capacity)));
        }
        let top = best.iter().map(|b| b.1).fold(f64::NEG_INFINITY, f64::max);
        best.retain(|b| close(b.1, top));
        let pick = crate::rng::mix(((pkt.flow as u64) << 32) ^ node as u64) as usize % best.len();
        best[pick].0
    }
}

#[cfg(test)]
mod tests {
    use super::super::header::MerpKind;
    use super::*;
    use crate::net::packet::PacketKind;

    const C: f64 = 125e6; // 1 Gb/s in bytes/s

    fn flow(id: u32, dst: u32, size: u64, esr: f64) -> FlowEntry {
        FlowEntry {
            esr,
            ..FlowEntry::new(id, dst, size, Time::ZERO, Time::ZERO)
        }
    }

    fn links(a: Vec<FlowEntry>, b: Vec<FlowEntry>) -> Vec<Link> {
        [a, b]
            .into_iter()
            .map(|table| {
                let mut link = Link::new(C);
                link.table = table;
                link
            })
            .collect()
    }

    fn packet(kind: MerpKind, dst: u32, size: u32) -> Packet {
        let mut p = Packet {
            flow: 9,
            dst,
            ..Default::default()
        };
        MerpHeader {
            kind,
            size,
            asr_kbps: 1_000_000,
            esr: f32::INFINITY,
            q_kbps: 800_000,
        }
        .write(&mut p);
        p
    }

    /// Stage 1: a 1 MB flow finishing behind a 100 KB one on link 0 has expansion ratio 1.1
    /// (the 100 KB flow goes first: last-place ratio 11 against 1.1); alone on link 1, 1.0.
    #[test]
    fn the_least_expansion_ratio_wins() {
        let l = links(vec![flow(1, 5, 100_000, C)], vec![]);
        let mut m = Memr::default();
        let syn = packet(MerpKind::Syn, 3, 1_000_000);
        assert_eq!(m.route(Time::ZERO, 0, &syn, &[0, 1], &l), Some(1));
    }

    /// Stage 2: equal tables, except that link 0's flow goes to the same destination and the
    /// links beyond grant it only 10 MB/s (its esr): the new flow, no larger, would be held to
    /// that too, so link 1 (tail rate C / 2) wins.
    #[test]
    fn a_slow_same_destination_flow_steers_new_flows_away() {
        let l = links(
            vec![flow(1, 3, 500_000, 10e6)],
            vec![flow(2, 4, 500_000, 10e6)],
        );
        let mut m = Memr::default();
        let syn = packet(MerpKind::Syn, 3, 500_000);
        assert_eq!(m.route(Time::ZERO, 0, &syn, &[0, 1], &l), Some(1));
        // The same flow's later packets follow the pin, even if the tables change.
        let empty = links(vec![], vec![flow(2, 4, 9_000_000, 1.0)]);
        let data = packet(MerpKind::Data, 3, 500_000);
        assert_eq!(m.route(Time::ZERO, 0, &data, &[0, 1], &empty), Some(1));
        // Once the pinned link is no longer a candidate (a failure), it chooses again.
        assert_eq!(
            m.route(Time::ZERO, 0, &data, &[0], &empty),
            None,
            "one candidate"
        );
        let mut l3 = links(vec![], vec![]);
        l3.push(Link::new(C));
        assert!(m.route(Time::ZERO, 0, &data, &[0, 2], &l3).is_some());
        // ACKs are not MEMR's.
        let mut ack = packet(MerpKind::DataAck, 3, 500_000);
        ack.kind = PacketKind::Ack;
        assert_eq!(m.route(Time::ZERO, 0, &ack, &[0, 1], &l), None);
    }
}
