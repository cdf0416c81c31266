//! # CONGA: congestion-aware flowlet load balancing
//!
//! M. Alizadeh, T. Edsall, S. Dharmapurikar, R. Vaidyanathan, K. Chu, A. Fingerhut, V. T. Lam,
//! F. Matus, R. Pan, N. Yadav, G. Varghese, "CONGA: Distributed Congestion-Aware Load
//! Balancing for Datacenters", ACM SIGCOMM 2014 (§3; baselines.md §13).
//!
//! **Overlay.** Between leaves, packets carry an overlay header ([`LbFields`]): `tag` (the path
//! chosen at the source leaf, LBTag), `ce` (the path's congestion extent), and one feedback
//! entry `fb_tag`, `fb_metric` for the opposite direction.
//!
//! **DRE (every port).** A register X counts the bytes a port accepts; every T_dre it decays,
//! X ← X·(1 − α). X ≈ rate·τ with τ = T_dre/α, so X/(C·τ) estimates the port's utilisation; the
//! metric is that ratio quantised to Q bits, ⌊X/(Cτ)·2^Q⌋ saturated at 2^Q − 1. Normalising by
//! the port's own rate C makes links of different speeds comparable.
//!
//! **Source leaf, per packet to another leaf.** If the flow's flowlet is alive (previous packet
//! at most T_fl ago) the packet keeps its tag. Otherwise, for each path t the cost is
//! max(local DRE metric of t's uplink, Congestion-To-Leaf\[dst leaf\]\[t\]); the least cost wins,
//! ties going to the flowlet's previous tag if it is among them, else at random. The leaf
//! writes tag, CE = 0 and one feedback entry from its Congestion-From-Leaf table for the
//! destination leaf — round-robin over the entries, an entry changed since it was last sent
//! first.
//!
//! **Every switch on the path** (the source leaf's uplink included) sets CE ← max(CE, metric of
//! the egress port it chose).
//!
//! **Destination leaf.** Stores CE in Congestion-From-Leaf\[src leaf\]\[tag\] (marked changed),
//! stores the piggybacked entry in Congestion-To-Leaf\[src leaf\]\[fb_tag\], and strips the header.
//!
//! **Aging.** A Congestion-To-Leaf entry not refreshed for `routing.conga_aging_us` (10 ms)
//! reads as 0, so a path once seen congested is tried again.
//!
//! ## Parameters
//!
//! `flowlet_gap_us` T_fl = 500 µs (ns-3 driver; the paper's value not re-checked),
//! `conga_tau_us` τ = 160 µs (paper), `conga_metric_bits` Q = 3 (paper), `conga_aging_us` =
//! 10 ms (ns-3 reading). α = 0.2 is fixed (as in the ns-3 driver) and T_dre = α·τ = 32 µs.
//!
//! ## Topologies
//!
//! Leaves are the switches with hosts. A **path tag** names a whole leaf-to-leaf path, chosen at
//! the source leaf as in "Paths chosen at the source edge" ([`crate::lb`]): in a leaf-spine the
//! tag is the uplink (= spine), exactly the paper's LBTag. In a **fat-tree** the edge switches
//! are the leaves and the fabric between them is CONGA's overlay, seen as two tiers: across pods
//! a tag names (aggregation switch, core switch) — (k/2)² paths, the aggregation switch following
//! the tag's second digit — and inside a pod it names the aggregation switch. The local metric is
//! the source edge's uplink; CE covers every later hop. Tags are at most 255 (u8).
//!
//! ## Choices where the paper is silent (or not followed)
//!
//! * Flowlet state per flow direction indexed by flow id (exact; the 64 K-entry hashed table
//!   and its collisions are not modelled).
//! * DRE decay is applied lazily (when a port is next read or written) but exactly as the
//!   periodic rule, on a global grid of T_dre periods.
//! * Feedback is only sent from entries that have been observed at least once.
//! * When routing is recomputed after a failure, tags (positions in candidate lists) may change
//!   meaning, so both congestion tables and all flowlets are cleared.
//! * Packets between hosts of one leaf carry no overlay header.
//!
//! [`LbFields`]: crate::net::packet::LbFields

use super::{flow_dir, start_path, Fabric, LbParams, SourceEdge};
use crate::net::packet::{LbFields, Packet};
use crate::net::{Network, NodeIdx, PortIdx};
use crate::rng::StreamRng;
use crate::units::Time;
use rand::RngExt;

const NO_LEAF: u32 = u32::MAX;
/// α of the DRE (ns-3 driver value); T_dre = α·τ.
pub const DRE_ALPHA: f64 = 0.2;

#[derive(Clone, Copy, Debug, Default)]
struct Dre {
    bytes: f64,
    /// Index of the T_dre period the register was last decayed to.
    period: u64,
    /// C·τ in bytes.
    c_tau: f64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Remote {
    metric: u8,
    updated: Option<Time>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Observed {
    metric: u8,
    changed: bool,
    seen: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Flowlet {
    last: Option<Time>,
    tag: u8,
}

pub struct Conga {
    edge: SourceEdge,
    gap: Time,
    aging: Time,
    dre_period: Time,
    q_max: u8,
    dre: Vec<Dre>,
    /// Dense leaf index of every node, `NO_LEAF` for non-leaves.
    leaf_of_node: Vec<u32>,
    leaves: usize,
    /// Tags per leaf pair (the most paths between any two leaves, at most 255).
    width: usize,
    /// Congestion-To-Leaf at leaf L: `[(L · leaves + dst) · width + tag]`.
    to_leaf: Vec<Remote>,
    /// Congestion-From-Leaf at leaf L: `[(L · leaves + src) · width + tag]`.
    from_leaf: Vec<Observed>,
    /// Round-robin position of the feedback per (leaf, remote leaf).
    fb_next: Vec<u8>,
    flowlets: Vec<Flowlet>,
    rngs: Vec<StreamRng>,
    /// Flowlets started (for tests).
    pub flowlets_started: u64,
}

impl Conga {
    pub fn new(edge: SourceEdge, net: &Network, flows: usize, p: &LbParams, seed: u64) -> Conga {
        let tau_s = p.conga_tau.as_secs_f64();
        let dre = net
            .ports
            .iter()
            .map(|port| Dre {
                bytes: 0.0,
                period: 0,
                c_tau: port.rate.bits_per_sec() as f64 / 8.0 * tau_s,
            })
            .collect();
        let mut leaf_of_node = vec![NO_LEAF; net.nodes.len()];
        let mut leaves = 0;
        for h in 0..net.hosts.len() as u32 {
            let e = edge.edge(h) as usize;
            if leaf_of_node[e] == NO_LEAF && !net.hosts.contains(&(e as u32)) {
                leaf_of_node[e] = leaves;
                leaves += 1;
            }
        }
        let leaves = leaves as usize;
        // Widest leaf-to-leaf path set, walking from each leaf towards one host of every leaf.
        let mut width = 1;
        let mut host_of_leaf = vec![None; leaves];
        for h in 0..net.hosts.len() as u32 {
            let l = leaf_of_node[edge.edge(h) as usize];
            if l != NO_LEAF && host_of_leaf[l as usize].is_none() {
                host_of_leaf[l as usize] = Some(h);
            }
        }
        for (node, &l) in leaf_of_node.iter().enumerate() {
            if l == NO_LEAF {
                continue;
            }
            for &h in host_of_leaf.iter().flatten() {
                let cands = net.routing.next_hops(node as NodeIdx, h);
                if !cands.is_empty() {
                    width = width.max(path_count(&edge, &net.routing, &net.ports, h, cands));
                }
            }
        }
        let width = width.min(255);
        let pairs = leaves * leaves;
        Conga {
            gap: p.flowlet_gap,
            aging: p.conga_aging,
            dre_period: Time::from_secs_f64(DRE_ALPHA * tau_s).max(Time(1)),
            q_max: ((1u32 << p.conga_metric_bits) - 1) as u8,
            dre,
            rngs: super::node_streams(seed, "conga", net.nodes.len()),
            edge,
            leaf_of_node,
            leaves,
            width,
            to_leaf: vec![Remote::default(); pairs * width],
            from_leaf: vec![Observed::default(); pairs * width],
            fb_next: vec![0; pairs],
            flowlets: vec![Flowlet::default(); 2 * flows],
            flowlets_started: 0,
        }
    }

    /// The port's quantised DRE metric at `now`.
    #[inline]
    fn metric(&mut self, port: PortIdx, now: Time) -> u8 {
        let d = self.decayed(port, now);
        let q = (d.bytes / d.c_tau * (self.q_max as f64 + 1.0)) as u64;
        q.min(self.q_max as u64) as u8
    }

    #[inline]
    fn decayed(&mut self, port: PortIdx, now: Time) -> Dre {
        let period = now.ps() / self.dre_period.ps();
        let d = &mut self.dre[port as usize];
        if period > d.period {
            let steps = (period - d.period).min(10_000) as i32;
            d.bytes *= (1.0 - DRE_ALPHA).powi(steps);
            d.period = period;
        }
        *d
    }

    /// DRE: a port accepted `bytes`.
    #[inline]
    pub fn on_accept(&mut self, port: PortIdx, bytes: u64, now: Time) {
        self.decayed(port, now);
        self.dre[port as usize].bytes += bytes as f64;
    }

    pub fn on_reroute(&mut self) {
        self.to_leaf.fill(Remote::default());
        self.from_leaf.fill(Observed::default());
        self.flowlets.fill(Flowlet::default());
    }

    #[inline]
    fn pair(&self, here: u32, other: u32) -> usize {
        here as usize * self.leaves + other as usize
    }

    pub fn choose(
        &mut self,
        node: NodeIdx,
        pkt: &mut Packet,
        candidates: &[PortIdx],
        fabric: &mut Fabric,
    ) -> PortIdx {
        let now = fabric.now;
        let here = self.leaf_of_node[node as usize];
        if here != NO_LEAF {
            if pkt.lb.tag != LbFields::NONE && self.edge.edge(pkt.dst) == node {
                self.receive_overlay(here, pkt, now);
            }
            if self.edge.is_source(node, pkt) {
                let dst_leaf = self.leaf_of_node[self.edge.edge(pkt.dst) as usize];
                if dst_leaf != here && dst_leaf != NO_LEAF {
                    return self.at_source_leaf(node, here, dst_leaf, pkt, candidates, fabric);
                }
            }
        }
        let port = if pkt.lb.tag != LbFields::NONE {
            self.edge.follow(node, pkt, candidates)
        } else if candidates.len() == 1 {
            candidates[0]
        } else {
            // Outside the overlay (a multi-homed host's NIC, odd layouts): the flow hash.
            candidates[super::hash_threshold(super::flow_hash(0, pkt), candidates.len())]
        };
        if pkt.lb.tag != LbFields::NONE {
            pkt.lb.ce = pkt.lb.ce.max(self.metric(port, now));
        }
        port
    }

    fn receive_overlay(&mut self, here: u32, pkt: &mut Packet, now: Time) {
        let src_leaf = self.leaf_of_node[self.edge.edge(pkt.src) as usize];
        if src_leaf != NO_LEAF {
            let base = self.pair(here, src_leaf) * self.width;
            if (pkt.lb.tag as usize) < self.width {
                self.from_leaf[base + pkt.lb.tag as usize] = Observed {
                    metric: pkt.lb.ce,
                    changed: true,
                    seen: true,
                };
            }
            if (pkt.lb.fb_tag as usize) < self.width {
                self.to_leaf[base + pkt.lb.fb_tag as usize] = Remote {
                    metric: pkt.lb.fb_metric,
                    updated: Some(now),
                };
            }
        }
        pkt.lb = LbFields::default();
    }

    fn at_source_leaf(
        &mut self,
        node: NodeIdx,
        here: u32,
        dst_leaf: u32,
        pkt: &mut Packet,
        candidates: &[PortIdx],
        fabric: &mut Fabric,
    ) -> PortIdx {
        let now = fabric.now;
        let paths = path_count(
            &self.edge,
            fabric.routing,
            fabric.ports,
            pkt.dst,
            candidates,
        )
        .min(self.width);
        let m0 = candidates.len();
        let i = flow_dir(pkt);
        let f = self.flowlets[i];
        let alive = f.last.is_some_and(|t| now - t <= self.gap) && (f.tag as usize) < paths;
        let tag = if alive {
            f.tag
        } else {
            self.flowlets_started += 1;
            let base = self.pair(here, dst_leaf) * self.width;
            let mut best = u8::MAX;
            let mut chosen = 0usize;
            let mut ties = 0u32;
            let mut prev_ok = false;
            for t in 0..paths {
                let local = self.metric(candidates[t % m0], now);
                let r = self.to_leaf[base + t];
                let remote = match r.updated {
                    Some(u) if now - u <= self.aging => r.metric,
                    _ => 0,
                };
                let cost = local.max(remote);
                if cost < best {
                    best = cost;
                    chosen = t;
                    ties = 1;
                    prev_ok = false;
                } else if cost == best {
                    ties += 1;
                    if self.rngs[node as usize].random_range(0..ties) == 0 {
                        chosen = t;
                    }
                }
                if cost == best && f.last.is_some() && t == f.tag as usize {
                    prev_ok = true;
                }
            }
            if prev_ok {
                f.tag
            } else {
                chosen as u8
            }
        };
        self.flowlets[i] = Flowlet {
            last: Some(now),
            tag,
        };
        let port = start_path(pkt, tag as u32, candidates);
        pkt.lb.tag = tag;
        let (fb_tag, fb_metric) = self.feedback(here, dst_leaf);
        pkt.lb.fb_tag = fb_tag;
        pkt.lb.fb_metric = fb_metric;
        pkt.lb.ce = self.metric(port, now);
        port
    }

    /// One Congestion-From-Leaf entry for `remote`: the next changed one in round-robin order,
    /// else the next observed one; `NONE` if nothing was ever observed from there.
    fn feedback(&mut self, here: u32, remote: u32) -> (u8, u8) {
        let pair = self.pair(here, remote);
        let base = pair * self.width;
        let start = self.fb_next[pair] as usize;
        let entries = &mut self.from_leaf[base..base + self.width];
        let pick = (0..self.width)
            .map(|k| (start + k) % self.width)
            .find(|&t| entries[t].changed)
            .or_else(|| {
                (0..self.width)
                    .map(|k| (start + k) % self.width)
                    .find(|&t| entries[t].seen)
            });
        match pick {
            Some(t) => {
                entries[t].changed = false;
                self.fb_next[pair] = ((t + 1) % self.width) as u8;
                (t as u8, entries[t].metric)
            }
            None => (LbFields::NONE, 0),
        }
    }
}

/// Paths from a source edge towards host `dst`: the product of the candidate counts met
/// walking the first candidate at each hop (exact in a symmetric Clos).
fn path_count(
    edge: &SourceEdge,
    routing: &crate::net::routing::RoutingTable,
    ports: &[crate::net::network::Port],
    dst: u32,
    first: &[PortIdx],
) -> usize {
    let target = edge.edge(dst);
    let mut count = first.len();
    let mut node = ports[first[0] as usize].peer;
    for _ in 0..16 {
        if node == target {
            break;
        }
        let next = routing.next_hops(node, dst);
        if next.is_empty() {
            break;
        }
        count = count.saturating_mul(next.len());
        node = ports[next[0] as usize].peer;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lb::testnet;
    use crate::net::packet::PacketKind;

    fn conga(net: &Network, flows: usize) -> Conga {
        let params = LbParams::from_config(&crate::lb::RoutingConfig {
            lb: "conga".into(),
            ..Default::default()
        })
        .unwrap();
        Conga::new(SourceEdge::new(net), net, flows, &params, 1)
    }

    #[test]
    fn dre_tracks_rate_times_tau_and_quantises_with_saturation() {
        let net =
            testnet::build("kind = \"leafspine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 1");
        let mut c = conga(&net, 1);
        // A 10 Gb/s port fed at half its rate for 2 ms: X → 0.5·C·τ, metric ⌊0.5·8⌋ = 4
        // (just below, by the discrete decay, so 3 or 4).
        let port = 0;
        let mut t = Time::ZERO;
        let step = Time::from_ns(2400); // 1500 B every 2.4 µs = 5 Gb/s
        while t < Time::from_ms(2) {
            c.on_accept(port, 1500, t);
            t += step;
        }
        let m = c.metric(port, t);
        assert!((3..=4).contains(&m), "{m}");
        let x = c.dre[0].bytes / c.dre[0].c_tau;
        assert!((0.4..0.6).contains(&x), "{x}");
        // Twice the line rate saturates at 2^Q − 1 = 7.
        for _ in 0..2000 {
            c.on_accept(port, 3000, t);
            t += step;
        }
        assert_eq!(c.metric(port, t), 7);
        // Idle for 10 τ: decays to 0.
        assert_eq!(c.metric(port, t + Time::from_us(1600)), 0);
    }

    /// Two leaves, two spines: leaf1 reports path 0 congested; new flowlets from leaf0 avoid it,
    /// packets of a live flowlet stay, and the report ages out after 10 ms.
    #[test]
    fn new_flowlets_avoid_the_congested_path_reported_by_the_remote_leaf() {
        let mut net =
            testnet::build("kind = \"leafspine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 1");
        let mut c = conga(&net, 4);
        let leaf0 = c.edge.edge(0);
        let cands = net.routing.next_hops(leaf0, 1).to_vec();
        let routing =
            std::mem::replace(&mut net.routing, crate::net::routing::RoutingTable::empty());
        let mut fabric = Fabric {
            now: Time::ZERO,
            routing: &routing,
            ports: &mut net.ports,
        };
        // An ACK from host 1 through leaf1 carries the feedback "path 0 has metric 6" to leaf0.
        let mut ack = Packet {
            flow: 3,
            src: 1,
            dst: 0,
            kind: PacketKind::Ack,
            ..Default::default()
        };
        ack.lb.tag = 1;
        ack.lb.fb_tag = 0;
        ack.lb.fb_metric = 6;
        c.choose(leaf0, &mut ack, &[0], &mut fabric);
        assert_eq!(
            ack.lb.tag,
            LbFields::NONE,
            "the destination leaf strips the header"
        );
        for flow in 0..3 {
            let mut p = Packet {
                flow,
                src: 0,
                dst: 1,
                ..Default::default()
            };
            assert_eq!(c.choose(leaf0, &mut p, &cands, &mut fabric), cands[1]);
            assert_eq!(p.lb.tag, 1);
        }
        // After the aging time the report is forgotten: both paths cost 0, ties go at random
        // (flowlets cleared, so no previous tag is preferred).
        let mut picks = std::collections::BTreeSet::new();
        for k in 0..40 {
            fabric.now = Time::from_ms(11) + Time::from_us(k);
            c.flowlets[0] = Flowlet::default();
            let mut p = Packet {
                flow: 0,
                src: 0,
                dst: 1,
                ..Default::default()
            };
            picks.insert(c.choose(leaf0, &mut p, &cands, &mut fabric));
        }
        assert_eq!(picks.len(), 2);
    }

    #[test]
    fn ce_is_the_max_over_hops_and_comes_back_as_feedback() {
        let mut net =
            testnet::build("kind = \"leafspine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 1");
        let mut c = conga(&net, 1);
        let leaf0 = c.edge.edge(0);
        let leaf1 = c.edge.edge(1);
        let up = net.routing.next_hops(leaf0, 1).to_vec();
        let spine = net.ports[up[0] as usize].peer;
        let down = net.routing.next_hops(spine, 1).to_vec();
        let to_host = net.routing.next_hops(leaf1, 1).to_vec();
        // Load the spine's downlink to 3/4 of C·τ: metric 6.
        let c_tau = c.dre[down[0] as usize].c_tau;
        c.on_accept(down[0], (0.75 * c_tau) as u64 + 1, Time::ZERO);
        let routing =
            std::mem::replace(&mut net.routing, crate::net::routing::RoutingTable::empty());
        let mut fabric = Fabric {
            now: Time::ZERO,
            routing: &routing,
            ports: &mut net.ports,
        };
        let mut p = Packet {
            src: 0,
            dst: 1,
            ..Default::default()
        };
        // Force the path through that spine: make the other uplink look busy.
        let c_tau_up = c.dre[up[1] as usize].c_tau;
        c.on_accept(up[1], c_tau_up as u64, Time::ZERO);
        assert_eq!(c.choose(leaf0, &mut p, &up, &mut fabric), up[0]);
        assert_eq!((p.lb.tag, p.lb.ce), (0, 0));
        assert_eq!(c.choose(spine, &mut p, &down, &mut fabric), down[0]);
        assert_eq!(p.lb.ce, 6);
        c.choose(leaf1, &mut p, &to_host, &mut fabric);
        let l0 = c.leaf_of_node[leaf0 as usize];
        let l1 = c.leaf_of_node[leaf1 as usize];
        let obs = c.from_leaf[c.pair(l1, l0) * c.width];
        assert!(obs.changed && obs.seen && obs.metric == 6);
        // The next packet from leaf1 to leaf0 (an ACK) carries it back.
        let mut ack = Packet {
            src: 1,
            dst: 0,
            kind: PacketKind::Ack,
            ..Default::default()
        };
        let back = net_hops(&routing, leaf1, 0);
        c.choose(leaf1, &mut ack, &back, &mut fabric);
        assert_eq!((ack.lb.fb_tag, ack.lb.fb_metric), (0, 6));
    }

    fn net_hops(r: &crate::net::routing::RoutingTable, n: NodeIdx, dst: u32) -> Vec<PortIdx> {
        r.next_hops(n, dst).to_vec()
    }

    #[test]
    fn fat_tree_tags_name_agg_and_core() {
        let net = testnet::build("kind = \"fattree\"\nk = 4");
        let c = conga(&net, 1);
        assert_eq!(c.width, 4, "(k/2)² paths between pods");
        assert_eq!(c.leaves, 8);
    }
}
