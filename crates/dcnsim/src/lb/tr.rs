//! # TR: traffic-aware rerouting
//!
//! T. Zhang, Y. Lei, Q. Zhang, S. Zou, J. Huang, F. Li, "Fine-grained Load Balancing with
//! Traffic-aware Rerouting in Datacenter Networks", J. Cloud Computing 2021 (§"TR Design",
//! Algorithm 1, Table 1; seed 002).
//!
//! **Where.** At the source leaf of a leaf-spine, per packet. In a two-tier Clos a packet's
//! order can only change between the two leaves (one path from the sender to its leaf, one
//! from the far leaf to the receiver), so packets that reach the next leaf in order reach the
//! receiver in order. Hosts are unchanged.
//!
//! **Time to Next Leaf (eq. 1).** For uplink j, `TNL_j = ct + pd_j + lql_j/lqw_j + sql_j/sqw_j`:
//! the packet's arrival time at the leaf, the idle leaf-to-leaf delay over j's spine, the local
//! uplink's queue over its rate, and the spine's queue towards the next leaf over that port's
//! rate. Here `pd_j` is what an idle measurement of this packet gives: the propagation delay of
//! both links plus the packet's serialisation on each (computed from the topology, not probed);
//! `lql_j/lqw_j` is exactly how long the uplink needs to send what it already holds (the rest of
//! the packet on the wire included); `sql_j/sqw_j` is the last reported spine queue (below).
//!
//! **Algorithm 1.** Each flow direction keeps `fs` (payload bytes it has sent) and `p.TNL` (the
//! TNL of its previous packet). A packet adds its payload to `fs`; the uplinks with
//! `TNL_j ≥ p.TNL` form S (the others would probably overtake the previous packet). A short flow
//! (`fs ≤ T_l`, `routing.tr_long_bytes` = 100 KB) takes the uplink of S with the smallest TNL; a
//! long flow the uplink of S with the fewest short flows, ties to the smallest TNL. `p.TNL`
//! becomes the chosen uplink's TNL.
//!
//! **Spine queues in the TTL.** A spine that forwards a reverse packet (ACK, SYN-ACK) arriving
//! from leaf E writes the length q of its own queue towards E into the upper k bits of the
//! packet's TTL (`routing.tr_queue_bits` = 5; the lower 3 keep the hop count), as
//! `code = min(2^k − 1, ⌊q · 2^k / BS⌋)` with BS that port's buffer, in the buffer's unit. The
//! leaf the ACK reaches reads the code for (E, the uplink it arrived on), decodes
//! `sql = code · BS / 2^k` — the paper's "BS/2^k per step", exact in integers — and writes the
//! TTL's upper bits back to what hosts send ([`LbFields::HOST_TTL`]), so hosts never see a
//! change. The TTL is [`LbFields::ttl`]; nothing decrements it (no one reads the hop count).
//!
//! **Short flows per uplink.** `ns_j` counts the short flows present on uplink j: a short flow
//! joins j's count when it sends a packet there and is not counted there yet; it leaves when it
//! becomes long, or when its last packet on j is more than one RTT old (`routing.tr_inactive_us`,
//! default below) — and joins again on its next packet there. A flow sprayed over several
//! uplinks within an RTT is counted on each, as the paper's per-queue "last packet arrived at
//! the jth output queue" reads.
//!
//! **When the prediction holds.** On two leaves each spine's port towards the far leaf is fed
//! by one uplink at its own rate, so spine queues stay empty and eq. (1) is exact: TR does not
//! reorder. With many leaves a spine port is fed by all the others, and the queue a packet will
//! meet there changes during its flight (at 40 Gb/s, 25 µs of flight is 80 packets from other
//! leaves) and is reported to the leaf half a round trip late: arrivals then miss their TNL
//! by microseconds against 0.3 µs between packets, and TR reorders (`experiments/tr`: Figs.
//! 9–12). An experiment that read each spine's current queue instead of the reported one
//! reordered more, not less: every leaf then sends to the same empty spine at once.
//!
//! ## Choices where the paper is silent
//!
//! * **No uplink passes the TNL filter** (every uplink would deliver before the previous packet,
//!   e.g. when a newer ACK reports a shorter spine queue, or a small packet follows a full one):
//!   the packet takes its previous packet's uplink — the same FIFO path cannot reorder — and
//!   `p.TNL` becomes the larger of the two TNLs. If that uplink is no candidate any more (a
//!   failure), the uplink with the largest TNL. Counted in [`TrStats::no_ordered_uplink`].
//! * `TNL_j = p.TNL` passes the filter, as Algorithm 1's `≥` says. Two such packets reach the
//!   next leaf at the same picosecond, where the engine's order for simultaneous arrivals (not
//!   the send order) decides which goes first, so the pair may swap. With equal packet sizes and
//!   rates exact ties do occur (70 of 28.5 M data packets in the 50 runs of TR's Fig. 7; one
//!   duplicate ACK each, never a fast retransmit); a strict `>` would remove them but is not
//!   the paper's rule.
//! * Ties of TNL (equal delays and empty queues are common) and of (short flows, TNL) go to one
//!   of the tied at random, from each leaf's own stream (`tr`): a fixed order would pile every
//!   tie on one spine, and the paper wants long flows to "take full advantage of all available
//!   paths". (Keeping the previous packet's uplink on a tie was tried: at 40 Gb/s it reordered
//!   less, but a lone long flow then stays on one path as under ECMP — on the §2 layout TR's
//!   per-path spread came out as uneven as LetFlow's.)
//! * `fs` counts payload bytes, retransmissions included (a switch cannot tell them apart), so
//!   a flow's class matches the size classes of the outputs; pure-ACK directions never grow.
//! * **ACKs' own path** (`routing.tr_ack_path`). `"tr"` (default): TR routes every packet at its
//!   source leaf, ACKs included — Algorithm 1 has no exception, and the paper's Fig. 5 shows one
//!   flow's ACKs crossing two spines; each direction of a flow has its own state, as its own
//!   5-tuple would. An ACK stream is then a short flow and takes the earliest uplink, so ACKs
//!   gather on the fastest spines and the queues of the others are reported seldom. `"spray"`:
//!   reverse packets take a uniformly random uplink at their source leaf (the leaf's `tr`
//!   stream), so every spine's queue comes back about equally often — the "timely" knowledge
//!   the paper asks for. Either way a pure-ACK direction is no "short flow" for the counts: it
//!   carries no data.
//! * The inactivity threshold "one RTT" defaults to the smallest round-trip *propagation* delay
//!   between hosts of two different leaves (the paper's §2 calls the 200 µs round-trip
//!   propagation delay of its good paths "the RTT").
//! * Until an ACK reports a spine queue, it reads as empty (code 0). A report stays until the
//!   next one over the same spine: paths no ACK crosses keep an old value.
//! * A buffer counted in packets is turned into time with full 1500-byte packets.
//! * The flow table is exact, indexed by flow id (the paper hashes the 5-tuple into a table;
//!   collisions are not modelled). Traffic between hosts of one leaf takes its only port.
//! * Only `topology.kind = "leafspine"` is accepted (refused otherwise, in [`super::LbParams`]):
//!   the prediction assumes one spine hop between any two leaves.

use super::{flow_dir, flow_hash, hash_threshold, Fabric, LbParams, SourceEdge};
use crate::net::network::Port;
use crate::net::packet::{LbFields, Packet};
use crate::net::ring::Ring;
use crate::net::{Network, NodeIdx, PortIdx};
use crate::rng::StreamRng;
use crate::topo::{BufferSize, NodeKind};
use crate::units::Time;
use rand::RngExt;

/// The TTL's 8 bits less the 3 the hop count needs (TR: fewer than 7 hops in a data center).
pub const MAX_QUEUE_BITS: u32 = 5;
const HOP_BITS: u32 = 8 - MAX_QUEUE_BITS;
const HOP_MASK: u8 = (1 << HOP_BITS) - 1;
/// The size a queue counted in packets is turned into time with.
const FULL_PACKET_BYTES: u64 = 1500;
const NO_LEAF: u32 = u32::MAX;
const NO_UPLINK: u16 = u16::MAX;
const NO_PORT: PortIdx = PortIdx::MAX;
/// `seen` of a flow that is not counted on an uplink.
const NOT_COUNTED: Time = Time::MAX;

/// A leaf-to-leaf path over one spine, seen from the source leaf.
#[derive(Clone, Copy, Debug)]
struct Path {
    /// Propagation delay of the uplink and of the spine's port towards the next leaf.
    prop: Time,
    /// The spine's port towards the next leaf (`NO_PORT` if the spine has none).
    spine_port: PortIdx,
    /// The spine queue as the latest reverse ACK reported it, as a time at that port's rate.
    spine_wait: Time,
}

/// Per flow direction.
#[derive(Clone, Copy, Debug)]
struct Dir {
    /// Payload bytes sent (fs).
    sent: u64,
    /// TNL of the previous packet (p.TNL).
    p_tnl: Time,
    /// Uplink of the previous packet.
    prev: PortIdx,
}

/// What TR did, for tests and curiosity.
#[derive(Clone, Copy, Debug, Default)]
pub struct TrStats {
    /// Packets routed at a source leaf.
    pub decisions: u64,
    /// Packets for which no uplink passed the TNL filter.
    pub no_ordered_uplink: u64,
    /// Reverse packets a spine wrote its queue into, and that a leaf read and restored.
    pub stamped: u64,
    pub restored: u64,
}

pub struct Tr {
    edge: SourceEdge,
    long_bytes: u64,
    bits: u32,
    spray_acks: bool,
    inactive: Time,
    leaf_of_node: Vec<u32>,
    is_spine: Vec<bool>,
    leaves: usize,
    /// Most uplinks of a leaf.
    width: usize,
    /// Index of each port among its leaf's uplinks (`NO_UPLINK` for other ports).
    uplink_of_port: Vec<u16>,
    /// Uplink ports of each leaf: `[leaf · width + j]`.
    uplinks: Vec<PortIdx>,
    /// `[(leaf · leaves + next leaf) · width + j]`.
    paths: Vec<Path>,
    /// Short flows counted on each port (leaf uplinks only): ns.
    ns: Vec<u32>,
    /// Per port: (time, flow) of the short-flow packets sent there, oldest first; an entry
    /// older than the inactivity threshold is the moment its flow may leave the count.
    recent: Vec<Ring<(Time, u32)>>,
    /// Per (flow, uplink j of its source leaf): when its latest packet went to j, or
    /// `NOT_COUNTED`.
    seen: Vec<Time>,
    dirs: Vec<Dir>,
    rngs: Vec<StreamRng>,
    pub stats: TrStats,
}

impl Tr {
    pub fn new(edge: SourceEdge, net: &Network, flows: usize, p: &LbParams, seed: u64) -> Tr {
        let n = net.nodes.len();
        let mut leaf_of_node = vec![NO_LEAF; n];
        let mut leaf_nodes = Vec::new();
        for h in 0..net.hosts.len() as u32 {
            let e = edge.edge(h) as usize;
            if leaf_of_node[e] == NO_LEAF && net.nodes[e].kind == NodeKind::Switch {
                leaf_of_node[e] = leaf_nodes.len() as u32;
                leaf_nodes.push(e);
            }
        }
        let is_spine: Vec<bool> = (0..n)
            .map(|i| net.nodes[i].kind == NodeKind::Switch && leaf_of_node[i] == NO_LEAF)
            .collect();
        let mut uplink_of_port = vec![NO_UPLINK; net.ports.len()];
        let per_leaf: Vec<Vec<PortIdx>> = leaf_nodes
            .iter()
            .map(|&l| {
                net.nodes[l]
                    .ports
                    .iter()
                    .copied()
                    .filter(|&port| is_spine[net.ports[port as usize].peer as usize])
                    .collect()
            })
            .collect();
        let width = per_leaf.iter().map(Vec::len).max().unwrap_or(0).max(1);
        assert!(width < NO_UPLINK as usize, "more uplinks than TR indexes");
        let leaves = leaf_nodes.len();
        let mut uplinks = vec![NO_PORT; leaves * width];
        for (l, ups) in per_leaf.iter().enumerate() {
            for (j, &port) in ups.iter().enumerate() {
                uplink_of_port[port as usize] = j as u16;
                uplinks[l * width + j] = port;
            }
        }
        let mut paths = vec![
            Path {
                prop: Time::ZERO,
                spine_port: NO_PORT,
                spine_wait: Time::ZERO,
            };
            leaves * leaves * width
        ];
        for (l, ups) in per_leaf.iter().enumerate() {
            for (e, &far) in leaf_nodes.iter().enumerate() {
                for (j, &up) in ups.iter().enumerate() {
                    let spine = net.ports[up as usize].peer as usize;
                    let down = net.nodes[spine]
                        .ports
                        .iter()
                        .copied()
                        .find(|&q| net.ports[q as usize].peer as usize == far);
                    if let Some(down) = down {
                        paths[(l * leaves + e) * width + j] = Path {
                            prop: net.ports[up as usize].delay + net.ports[down as usize].delay,
                            spine_port: down,
                            spine_wait: Time::ZERO,
                        };
                    }
                }
            }
        }
        let inactive = p
            .tr_inactive
            .unwrap_or_else(|| smallest_rtt(net, &edge, &leaf_nodes, &per_leaf, &paths, width));
        Tr {
            long_bytes: p.tr_long_bytes,
            bits: p.tr_queue_bits,
            spray_acks: p.tr_spray_acks,
            inactive,
            rngs: super::node_streams(seed, "tr", n),
            edge,
            leaf_of_node,
            is_spine,
            leaves,
            width,
            uplink_of_port,
            uplinks,
            paths,
            ns: vec![0; net.ports.len()],
            recent: vec![Ring::default(); net.ports.len()],
            seen: vec![NOT_COUNTED; flows * width],
            dirs: vec![
                Dir {
                    sent: 0,
                    p_tnl: Time::ZERO,
                    prev: NO_PORT,
                };
                2 * flows
            ],
            stats: TrStats::default(),
        }
    }

    /// The inactivity threshold in use (one RTT unless set).
    pub fn inactive(&self) -> Time {
        self.inactive
    }

    #[inline]
    pub fn choose(
        &mut self,
        node: NodeIdx,
        pkt: &mut Packet,
        candidates: &[PortIdx],
        fabric: &mut Fabric,
    ) -> PortIdx {
        let here = self.leaf_of_node[node as usize];
        if here != NO_LEAF && self.edge.is_source(node, pkt) {
            let far = self.leaf_of_node[self.edge.edge(pkt.dst) as usize];
            if far != NO_LEAF && far != here {
                if self.spray_acks && pkt.kind.is_reverse() {
                    let m = candidates.len();
                    return candidates[self.rngs[node as usize].random_range(0..m)];
                }
                return self.at_source_leaf(here, far, node, pkt, candidates, fabric);
            }
        }
        // A spine's single port down, the far leaf's port to the host, traffic within a leaf.
        match candidates.len() {
            1 => candidates[0],
            m => candidates[hash_threshold(flow_hash(0, pkt), m)],
        }
    }

    fn at_source_leaf(
        &mut self,
        here: u32,
        far: u32,
        node: NodeIdx,
        pkt: &Packet,
        candidates: &[PortIdx],
        fabric: &mut Fabric,
    ) -> PortIdx {
        let now = fabric.now;
        self.stats.decisions += 1;
        let d = flow_dir(pkt);
        // A pure-ACK direction carries no data: it is never counted as a short flow.
        let data = !pkt.kind.is_reverse();
        let was_short = self.dirs[d].sent <= self.long_bytes;
        self.dirs[d].sent += pkt.payload as u64;
        let short = self.dirs[d].sent <= self.long_bytes;
        if data && was_short && !short {
            self.uncount(here, pkt.flow);
        }
        if !short {
            for &c in candidates {
                self.expire(c, now);
            }
        }
        let Dir { p_tnl, prev, .. } = self.dirs[d];
        let size = pkt.size as u64;
        let base = (here as usize * self.leaves + far as usize) * self.width;
        let rng = &mut self.rngs[node as usize];
        // The best uplink of S by (short flows for a long flow, TNL), ties at random; and the
        // fallbacks for an empty S.
        let mut best: Option<(u32, Time, PortIdx)> = None;
        let mut ties = 0u32;
        let mut prev_tnl: Option<Time> = None;
        let mut latest = (Time::ZERO, candidates[0]);
        for &c in candidates {
            let j = self.uplink_of_port[c as usize];
            let path = match j {
                NO_UPLINK => None,
                j => Some(self.paths[base + j as usize]).filter(|p| p.spine_port != NO_PORT),
            };
            let tnl = if let Some(path) = path {
                let up = &fabric.ports[c as usize];
                let local = if up.eager {
                    up.busy_until.saturating_sub(now)
                } else {
                    up.ser(up.queue.len_bytes())
                };
                now + local
                    + up.ser(size)
                    + path.prop
                    + path.spine_wait
                    + fabric.ports[path.spine_port as usize].ser(size)
            } else {
                Time::MAX // not a path to the next leaf: never better than a real one
            };
            if c == prev {
                prev_tnl = Some(tnl);
            }
            if tnl >= latest.0 {
                latest = (tnl, c);
            }
            if tnl < p_tnl {
                continue; // would probably arrive before the previous packet
            }
            let key = if short { 0 } else { self.ns[c as usize] };
            match best {
                Some((k, t, _)) if (key, tnl) > (k, t) => {}
                Some((k, t, _)) if (key, tnl) == (k, t) => {
                    ties += 1;
                    if rng.random_range(0..ties) == 0 {
                        best = Some((key, tnl, c));
                    }
                }
                _ => {
                    best = Some((key, tnl, c));
                    ties = 1;
                }
            }
        }
        let (port, tnl) = match (best, prev_tnl) {
            (Some((_, t, c)), _) => (c, t),
            (None, Some(t)) => {
                self.stats.no_ordered_uplink += 1;
                (prev, t)
            }
            (None, None) => {
                self.stats.no_ordered_uplink += 1;
                (latest.1, latest.0)
            }
        };
        let dir = &mut self.dirs[d];
        dir.p_tnl = p_tnl.max(tnl);
        dir.prev = port;
        if data && short {
            self.count(pkt.flow, port, now);
        }
        port
    }

    /// A short flow sent a packet on uplink `port` at `now`.
    fn count(&mut self, flow: u32, port: PortIdx, now: Time) {
        let j = self.uplink_of_port[port as usize];
        if j == NO_UPLINK {
            return;
        }
        self.expire(port, now);
        let slot = flow as usize * self.width + j as usize;
        if self.seen[slot] == NOT_COUNTED {
            self.ns[port as usize] += 1;
        }
        self.seen[slot] = now;
        self.recent[port as usize].push_back((now, flow));
    }

    /// Flows whose latest packet on `port` is more than the inactivity threshold old leave its
    /// count.
    fn expire(&mut self, port: PortIdx, now: Time) {
        let j = self.uplink_of_port[port as usize];
        if j == NO_UPLINK {
            return;
        }
        let recent = &mut self.recent[port as usize];
        while let Some(&(t, flow)) = recent.front() {
            if now - t <= self.inactive {
                break;
            }
            recent.pop_front();
            let slot = flow as usize * self.width + j as usize;
            if self.seen[slot] == t {
                self.seen[slot] = NOT_COUNTED;
                self.ns[port as usize] -= 1;
            }
        }
    }

    /// The flow became long: it leaves every uplink's count.
    fn uncount(&mut self, leaf: u32, flow: u32) {
        for j in 0..self.width {
            let slot = flow as usize * self.width + j;
            if self.seen[slot] != NOT_COUNTED {
                self.seen[slot] = NOT_COUNTED;
                self.ns[self.uplinks[leaf as usize * self.width + j] as usize] -= 1;
            }
        }
    }

    /// `pkt` crossed the link of port `from`: a spine writes its queue into a reverse packet
    /// coming up from a leaf; a leaf reads it from one coming down from a spine and restores
    /// the TTL.
    #[inline]
    pub fn on_arrive(&mut self, from: PortIdx, pkt: &mut Packet, ports: &mut [Port], now: Time) {
        if !pkt.kind.is_reverse() {
            return;
        }
        let (sender, node, back) = {
            let p = &ports[from as usize];
            (p.node as usize, p.peer as usize, p.reverse)
        };
        if self.is_spine[node] {
            if self.leaf_of_node[sender] != NO_LEAF {
                let code = encode(&mut ports[back as usize], now, self.bits);
                pkt.lb.ttl = (code << HOP_BITS) | (pkt.lb.ttl & HOP_MASK);
                self.stats.stamped += 1;
            }
        } else if self.is_spine[sender] && self.leaf_of_node[node] != NO_LEAF {
            // `back` is this leaf's uplink to that spine; the ACK comes from the far leaf.
            let here = self.leaf_of_node[node] as usize;
            let far = self.leaf_of_node[self.edge.edge(pkt.src) as usize];
            let j = self.uplink_of_port[back as usize];
            if far != NO_LEAF && j != NO_UPLINK {
                let i = (here * self.leaves + far as usize) * self.width + j as usize;
                let spine_port = self.paths[i].spine_port;
                if spine_port != NO_PORT {
                    self.paths[i].spine_wait = decode(
                        pkt.lb.ttl >> HOP_BITS,
                        &ports[spine_port as usize],
                        self.bits,
                    );
                }
            }
            pkt.lb.ttl = (LbFields::HOST_TTL & !HOP_MASK) | (pkt.lb.ttl & HOP_MASK);
            self.stats.restored += 1;
        }
    }
}

/// The queue of `port` in `bits` bits: `min(2^bits − 1, ⌊q · 2^bits / BS⌋)`, q and BS in the
/// buffer's unit (packets waiting, or bytes waiting).
pub fn encode(port: &mut Port, now: Time, bits: u32) -> u8 {
    let (q, bs) = match port.queue.limit() {
        BufferSize::Packets(n) => {
            let q = if port.eager {
                port.settle(now);
                port.backlog_pkts
            } else {
                port.queue.len_pkts()
            };
            (q, n)
        }
        BufferSize::Bytes(b) => (port.queued_bytes(now), b),
    };
    let levels = 1u128 << bits;
    ((q as u128 * levels) / bs.max(1) as u128).min(levels - 1) as u8
}

/// A code back into the time the spine port needs to send `code · BS / 2^bits`.
pub fn decode(code: u8, port: &Port, bits: u32) -> Time {
    let bs_bytes = match port.queue.limit() {
        BufferSize::Packets(n) => n * FULL_PACKET_BYTES,
        BufferSize::Bytes(b) => b,
    } as u128;
    let bits_ps = code as u128 * bs_bytes * 8 * Time::PS_PER_SEC as u128;
    Time((bits_ps / ((1u128 << bits) * port.rate.bits_per_sec() as u128)) as u64)
}

/// The smallest round-trip propagation delay between hosts of two different leaves.
fn smallest_rtt(
    net: &Network,
    edge: &SourceEdge,
    leaf_nodes: &[usize],
    per_leaf: &[Vec<PortIdx>],
    paths: &[Path],
    width: usize,
) -> Time {
    let leaves = leaf_nodes.len();
    // Round trip of each leaf's fastest host link.
    let host_rtt: Vec<Option<Time>> = leaf_nodes
        .iter()
        .map(|&l| {
            (0..net.hosts.len() as u32)
                .filter(|&h| edge.edge(h) as usize == l)
                .filter_map(|h| net.nodes[net.hosts[h as usize] as usize].ports.first())
                .map(|&p| {
                    net.ports[p as usize].delay
                        + net.ports[net.ports[p as usize].reverse as usize].delay
                })
                .min()
        })
        .collect();
    let mut best = Time::MAX;
    for l in 0..leaves {
        for e in (0..leaves).filter(|&e| e != l) {
            let (Some(a), Some(b)) = (host_rtt[l], host_rtt[e]) else {
                continue;
            };
            for (j, &up) in per_leaf[l].iter().enumerate() {
                let path = paths[(l * leaves + e) * width + j];
                if path.spine_port == NO_PORT {
                    continue;
                }
                let back = net.ports[path.spine_port as usize].reverse;
                let fabric = path.prop
                    + net.ports[back as usize].delay
                    + net.ports[net.ports[up as usize].reverse as usize].delay;
                best = best.min(a + b + fabric);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests;
