//! PACE's forwarder (§III.E): on every egress port, the offline weighted max-min allocation
//! (the [`MaxMinTree`]), the online filter of eqs. (5)–(7) with the outstanding-credit
//! counter A(t) and the queue Q_u(t), and the port's dynamic period.
//!
//! Allocation and terminate messages travel receiver → sender, so a port sees them on the
//! *reverse* link: an allocation entering port Y is served for the forward port
//! X = `Y.reverse` (the egress the flow's data takes over the same link). The request, on its
//! way to the receiver, records each forward port of the flow's path ([`FlowPath`]); the
//! agent routes the flow's allocations and terminate back over exactly those links
//! ([`PaceForwarder::reverse_route`]), so that the ports that allocate are the ports the data
//! crosses even where ECMP would hash the two directions apart. Data messages are found at
//! their port by a scan of the flow's at most [`MAX_HOPS`] recorded hops (no hashing).

use super::btree::{Allocation, Entry, Level, MaxMinTree};
use super::header::{
    bytes_of, capacity_bytes, credits, credits_up, period_time, PaceHeader, FLAG_FEEDBACK,
    MSG_ALLOCATION, MSG_DATA, MSG_REQUEST, MSG_TERMINATE,
};
use crate::net::header::Header;
use crate::net::network::{Network, Port};
use crate::net::packet::Packet;
use crate::net::{NodeIdx, PortIdx};
use crate::protocols::agent::{Admission, SwitchHooks};
use crate::units::{Rate, Time};

/// Egress ports of a flow's path that PACE manages (a fat-tree path has 6, NIC included);
/// ports beyond forward the flow unmanaged.
pub const MAX_HOPS: usize = 8;
/// C0 in the tree's normalized units: a demand of one full period's capacity.
pub const NORM_ONE: u64 = 1 << 32;
const NO_SLOT: u32 = u32::MAX;

/// Credits a port granted a flow for one epoch, and how many of them no data has used yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grant {
    pub epoch: u8,
    pub granted: u64,
    pub left: u64,
    pub live: bool,
}

/// A flow's state at one port: its key in the tree and its two live grants (the credits of
/// two periods are valid at once), older first.
#[derive(Clone, Copy, Debug, Default)]
struct FlowSlot {
    entry: Entry,
    grants: [Grant; 2],
}

/// One port's forwarder.
pub struct PortState {
    pub rate: Rate,
    tree: MaxMinTree,
    slots: Vec<FlowSlot>,
    free: Vec<u32>,
    /// A(t): bytes of credits granted and not yet used by data, nor expired.
    pub outstanding: u64,
    /// Q_u(t): bytes waiting in the port's queue, as of the last packet seen at the port.
    pub queue_bytes: u64,
    /// The port's own period, 20 µs units.
    pub period: u8,
    offline: Allocation,
    pub levels: Vec<Level>,
    /// A flow joined, left or changed its demand since the last offline computation.
    dirty: bool,
    /// The offline part runs at most once per period of the port (§III.E: "periodically").
    next_offline: Time,
}

#[derive(Clone, Copy, Debug, Default)]
struct Hop {
    /// The forward egress port.
    port: PortIdx,
    /// The node it leads to, and the port from there back over the same link.
    node: NodeIdx,
    back: PortIdx,
    slot: u32,
}

/// The forward ports a flow's request crossed, in order.
#[derive(Clone, Copy, Debug, Default)]
struct FlowPath {
    hops: [Hop; MAX_HOPS],
    len: u8,
}

impl FlowPath {
    fn find(&self, port: PortIdx) -> Option<usize> {
        self.hops[..self.len as usize]
            .iter()
            .position(|h| h.port == port)
    }
}

/// PACE's switch agent: every port's forwarder, and every flow's recorded path.
pub struct PaceForwarder {
    /// The initial (and smallest) period, 20 µs units.
    p_init: u8,
    /// Wire bytes of a full data packet (the period grows below two of them per weight).
    full_packet: u64,
    pub ports: Vec<PortState>,
    paths: Vec<FlowPath>,
}

impl PaceForwarder {
    pub fn new(p_init: u8, full_packet: u64, net: &Network) -> PaceForwarder {
        PaceForwarder {
            p_init,
            full_packet,
            ports: net
                .ports
                .iter()
                .map(|p| PortState {
                    rate: p.rate,
                    tree: MaxMinTree::new(),
                    slots: Vec::new(),
                    free: Vec::new(),
                    outstanding: 0,
                    queue_bytes: 0,
                    period: p_init,
                    offline: Allocation {
                        aw_num: NORM_ONE,
                        aw_den: 1,
                        remainder: NORM_ONE,
                        levels: 0,
                    },
                    levels: Vec::new(),
                    dirty: false,
                    next_offline: Time::ZERO,
                })
                .collect(),
            paths: Vec::new(),
        }
    }

    /// Flows with state at `port`.
    pub fn flows_at(&self, port: PortIdx) -> u64 {
        self.ports[port as usize].tree.totals().count
    }

    /// A flow's live grants at `port` (tests and diagnostics).
    pub fn grants(&self, flow: u32, port: PortIdx) -> Option<[Grant; 2]> {
        let path = self.paths.get(flow as usize)?;
        let hop = path.hops[path.find(port)?];
        (hop.slot != NO_SLOT).then(|| self.ports[port as usize].slots[hop.slot as usize].grants)
    }

    /// The packet left `port`'s queue: the queue mirror is exact again.
    pub fn mirror_queue(&mut self, port: PortIdx, at: &Port) {
        self.ports[port as usize].queue_bytes = at.queue.len_bytes();
    }

    /// The port a reverse message (allocation, terminate) leaves `node` by: back over the
    /// link its flow's request came in on.
    pub fn reverse_route(&self, node: NodeIdx, pkt: &Packet) -> Option<PortIdx> {
        if !pkt.kind.is_reverse() || !pkt.header.holds::<PaceHeader>() {
            return None;
        }
        let path = self.paths.get(pkt.flow as usize)?;
        path.hops[..path.len as usize]
            .iter()
            .find(|h| h.node == node)
            .map(|h| h.back)
    }

    fn record_hop(&mut self, flow: usize, port: PortIdx, at: &Port) {
        if flow >= self.paths.len() {
            self.paths.resize(flow + 1, FlowPath::default());
        }
        let path = &mut self.paths[flow];
        if path.find(port).is_none() && (path.len as usize) < MAX_HOPS {
            path.hops[path.len as usize] = Hop {
                port,
                node: at.peer,
                back: at.reverse,
                slot: NO_SLOT,
            };
            path.len += 1;
        }
    }

    /// Eqs. (5)–(7) for the allocation message `h` at forward port `x`, hop `i` of `flow`.
    fn serve(&mut self, now: Time, flow: usize, i: usize, x: PortIdx, h: &mut PaceHeader) {
        let (p_init, full) = (self.p_init, self.full_packet);
        let st = &mut self.ports[x as usize];
        let p_in = h.period.max(1);
        let w = h.weight();
        // The offline part is fed the demand from the previous forwarder, normalized by what
        // this port carries in the message's period (a fraction of the link rate).
        let c_in = capacity_bytes(st.rate, p_in).max(1);
        let demand = (bytes_of(h.demand) as u128 * NORM_ONE as u128 / c_in as u128)
            .min(NORM_ONE as u128) as u64;
        let hop = &mut self.paths[flow].hops[i];
        if hop.slot == NO_SLOT {
            hop.slot = st.insert(demand, w);
        } else {
            st.update(hop.slot, demand, w);
        }
        let slot = hop.slot;
        st.recompute(now, p_init, full);
        // Dynamic periods: a flow never runs at a shorter period than a port of its path;
        // the fields scale with it (rounded up: they are upper bounds still to be cut).
        let p_out = p_in.max(st.period);
        let scale = |credits: u16| (bytes_of(credits) * p_out as u64).div_ceil(p_in as u64);
        let (d_prev, dp_prev, a_prev) = if p_out == p_in {
            (bytes_of(h.demand), bytes_of(h.potential), bytes_of(h.alloc))
        } else {
            (scale(h.demand), scale(h.potential), scale(h.alloc))
        };
        let c = capacity_bytes(st.rate, p_out) as u128;
        let off = st.offline;
        let den = off.aw_den as u128 * NORM_ONE as u128;
        // eq. (5): d_i = min{C(p)·w·a_w, d_{i−1}}
        let fair = (c * w as u128 * off.aw_num as u128 / den) as u64;
        let d_out = fair.min(d_prev);
        // eq. (6): d_{p,i} = min{C(p)·(w·a_w + r), d_{p,i−1}}
        let pot = (c
            * (w as u128 * off.aw_num as u128 + off.remainder as u128 * off.aw_den as u128)
            / den) as u64;
        let dp_out = pot.min(dp_prev);
        // eq. (7): a_i = min{2·C0 − A(t) − Q_u(t), d_i}, and never above what the previous
        // forwarders allowed. Old credits expire first (logical clock, validity 2p).
        st.expire(slot, h.epoch);
        let budget = (2 * c as u64).saturating_sub(st.outstanding + st.queue_bytes);
        let a_out = bytes_of(credits(budget.min(d_out).min(a_prev)));
        st.grant(slot, h.epoch, a_out);
        h.period = p_out;
        h.demand = credits_up(d_out); // a demand passed on is an upper bound
        h.potential = credits(dp_out);
        h.alloc = credits(a_out);
    }
}

impl SwitchHooks for PaceForwarder {
    /// PACE's credits and replies retrace their request's path.
    fn route(
        &mut self,
        _now: Time,
        node: NodeIdx,
        pkt: &Packet,
        _candidates: &[PortIdx],
        _ports: &[Port],
    ) -> Option<PortIdx> {
        self.reverse_route(node, pkt)
    }

    fn on_dequeue(&mut self, _now: Time, port: PortIdx, at: &Port, _pkt: &mut Packet) {
        self.mirror_queue(port, at);
    }

    fn on_enqueue(&mut self, now: Time, port: PortIdx, at: &Port, pkt: &mut Packet) -> Admission {
        let Some(mut h) = pkt.header.read::<PaceHeader>() else {
            return Admission::Normal;
        };
        // Q_u mirror: exact at every packet offered to or leaving the port (a data packet
        // the queue then drops counts until the next one; PACE's data is not dropped).
        self.ports[port as usize].queue_bytes = at.queue.len_bytes() + pkt.size as u64;
        let flow = pkt.flow as usize;
        match (pkt.kind.is_reverse(), h.msg) {
            (false, MSG_REQUEST) => {
                self.record_hop(flow, port, at);
                Admission::Protected
            }
            (false, MSG_DATA) => {
                if let Some(i) = self.paths.get(flow).and_then(|p| p.find(port)) {
                    let slot = self.paths[flow].hops[i].slot;
                    if slot != NO_SLOT {
                        let st = &mut self.ports[port as usize];
                        if h.has(FLAG_FEEDBACK) {
                            st.trim(slot, h.epoch, bytes_of(h.alloc));
                        }
                        if pkt.payload > 0 {
                            st.charge(slot, pkt.size as u64);
                        }
                    }
                }
                if pkt.payload == 0 {
                    Admission::Protected // feedback without data: a control message
                } else {
                    Admission::Normal // data is kept from overflowing by credits alone
                }
            }
            (true, MSG_ALLOCATION) => {
                if let Some(i) = self.paths.get(flow).and_then(|p| p.find(at.reverse)) {
                    self.serve(now, flow, i, at.reverse, &mut h);
                    pkt.header = Header::of(h);
                }
                Admission::Protected
            }
            (true, MSG_TERMINATE) => {
                if let Some(i) = self.paths.get(flow).and_then(|p| p.find(at.reverse)) {
                    let hop = &mut self.paths[flow].hops[i];
                    if hop.slot != NO_SLOT {
                        self.ports[at.reverse as usize].release(hop.slot);
                        hop.slot = NO_SLOT;
                    }
                }
                Admission::Protected
            }
            _ => Admission::Protected,
        }
    }
}

impl PortState {
    fn insert(&mut self, demand: u64, weight: u64) -> u32 {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.slots.push(FlowSlot::default());
                self.slots.len() as u32 - 1
            }
        };
        let entry = Entry { demand, weight, id };
        self.slots[id as usize] = FlowSlot {
            entry,
            grants: [Grant::default(); 2],
        };
        self.tree.insert(entry);
        self.dirty = true;
        id
    }

    fn update(&mut self, slot: u32, demand: u64, weight: u64) {
        let s = &mut self.slots[slot as usize];
        if s.entry.demand == demand && s.entry.weight == weight {
            return;
        }
        let old = s.entry;
        s.entry.demand = demand;
        s.entry.weight = weight;
        let new = s.entry;
        self.tree.remove(&old);
        self.tree.insert(new);
        self.dirty = true;
    }

    /// The flow is gone (terminate): its credits return, it leaves the tree.
    fn release(&mut self, slot: u32) {
        let s = self.slots[slot as usize];
        for g in s.grants.iter().filter(|g| g.live) {
            self.outstanding -= g.left;
        }
        self.tree.remove(&s.entry);
        self.free.push(slot);
        self.dirty = true;
    }

    /// The offline part (eqs. 1–4) and the port's period, when a flow changed since the
    /// last computation and a period of the port has passed since.
    fn recompute(&mut self, now: Time, p_init: u8, full_packet: u64) {
        if !self.dirty || now < self.next_offline {
            return;
        }
        self.dirty = false;
        self.offline = self.tree.allocate(NORM_ONE, &mut self.levels);
        // §III.E.3: grow the period while level k0's allocation per weight, C(p)/W, is below
        // two full packets; with fewer flows it shrinks back, never below the initial one.
        let w = self.tree.totals().weight as u128; // 16.16 fixed point
        let need_bits = 2 * full_packet as u128 * 8 * w;
        let per_unit = self.rate.bits_per_sec().max(1) as u128 * 65_536 * 20 / 1_000_000;
        let units = need_bits.div_ceil(per_unit).min(u8::MAX as u128) as u8;
        self.period = units.max(p_init);
        self.next_offline = now + period_time(self.period);
    }

    /// Releases grants two or more epochs older than `epoch`, and a grant of `epoch` itself
    /// (a repeated allocation replaces it).
    fn expire(&mut self, slot: u32, epoch: u8) {
        let s = &mut self.slots[slot as usize];
        for g in s.grants.iter_mut().filter(|g| g.live) {
            let age = epoch.wrapping_sub(g.epoch) as i8;
            if age >= 2 || age <= 0 {
                self.outstanding -= g.left;
                g.live = false;
            }
        }
    }

    /// Records the new grant as the newest; the older of two live grants gives way.
    fn grant(&mut self, slot: u32, epoch: u8, bytes: u64) {
        let s = &mut self.slots[slot as usize];
        if s.grants[1].live {
            if s.grants[0].live {
                self.outstanding -= s.grants[0].left;
            }
            s.grants[0] = s.grants[1];
        }
        s.grants[1] = Grant {
            epoch,
            granted: bytes,
            left: bytes,
            live: true,
        };
        if !s.grants[0].live {
            s.grants[0] = Grant::default();
        }
        self.outstanding += bytes;
    }

    /// Data used `bytes` of the flow's credits: the oldest grant first.
    fn charge(&mut self, slot: u32, mut bytes: u64) {
        let s = &mut self.slots[slot as usize];
        for g in s.grants.iter_mut().filter(|g| g.live) {
            let take = g.left.min(bytes);
            g.left -= take;
            self.outstanding -= take;
            bytes -= take;
        }
    }

    /// The sender's feedback: of the grant of `epoch` it received only `final_bytes` (a
    /// forwarder nearer the sender cut it); the rest here is released at once.
    fn trim(&mut self, slot: u32, epoch: u8, final_bytes: u64) {
        let s = &mut self.slots[slot as usize];
        if let Some(g) = s.grants.iter_mut().find(|g| g.live && g.epoch == epoch) {
            let allowed = final_bytes.saturating_sub(g.granted - g.left);
            if g.left > allowed {
                self.outstanding -= g.left - allowed;
                g.granted -= g.left - allowed;
                g.left = allowed;
            }
        }
    }

    /// The offline output: allocation per weight and remainder (tests and diagnostics).
    pub fn offline(&self) -> Allocation {
        self.offline
    }

    pub fn tree(&self) -> &MaxMinTree {
        &self.tree
    }
}
