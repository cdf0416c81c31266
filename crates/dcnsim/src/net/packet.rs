//! The packet: one struct for every protocol, small and `Clone`, living in a [`PacketPool`].
//!
//! Protocols fill the transport fields; the engine fills the bookkeeping fields. Header fields
//! of protocols with switch agents (RCP, D3, PDQ, MERP, PACE, MCP-Opt) go in the opaque
//! [`Header`] slot, so the packet never allocates. `size` is the wire size in bytes and includes
//! every header.

use super::header::Header;
use crate::units::Time;

/// Index of a flow in the simulation's flow table.
pub type FlowId = u32;
/// Host id: 0..N-1 in the order the topology documents.
pub type HostId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PacketKind {
    #[default]
    Data,
    Ack,
    Syn,
    SynAck,
    Fin,
}

impl PacketKind {
    /// True for packets that travel from the flow's receiver back to its sender.
    pub fn is_reverse(self) -> bool {
        matches!(self, PacketKind::Ack | PacketKind::SynAck)
    }
}

/// The two ECN bits of the IP header (RFC 3168), reduced to what matters here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect,
    Ce,
}

/// Fields of the path choices in `lb/` (10 bytes; the packet's budget is in `packet_stays_small`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LbFields {
    /// The path chosen at the source edge switch, as mixed-radix digits that the later choice
    /// points of the packet's path consume, least significant first (DRB's bouncing switch,
    /// Presto's flowcell path, LetFlow's flowlet path, CONGA's path beyond the first uplink).
    pub path: u16,
    /// Presto: flowcell number within the flow's direction (wraps), read by the receiver's
    /// reordering buffer.
    pub cell: u16,
    /// CONGA overlay header (SIGCOMM 2014 §3.2): the path tag chosen at the source leaf
    /// ([`LbFields::NONE`] outside the overlay), the path's congestion extent (max of the
    /// quantised DRE over its hops), and one piggybacked feedback entry (tag and metric) for
    /// the reverse direction.
    pub tag: u8,
    pub ce: u8,
    pub fb_tag: u8,
    pub fb_metric: u8,
    /// The IP TTL byte. Hosts send [`LbFields::HOST_TTL`] and never read it; hop decrements are
    /// not modelled. TR's spines write a queue length into its upper 5 bits on reverse ACKs and
    /// the leaf restores them (TR §"TNL calculation"; [`crate::lb::tr`]).
    pub ttl: u8,
}

impl LbFields {
    /// "No tag": the packet is outside CONGA's overlay / carries no feedback.
    pub const NONE: u8 = u8::MAX;
    /// The TTL every host puts in its packets (Linux's default).
    pub const HOST_TTL: u8 = 64;
}

impl Default for LbFields {
    fn default() -> Self {
        LbFields {
            path: 0,
            cell: 0,
            tag: LbFields::NONE,
            ce: 0,
            fb_tag: LbFields::NONE,
            fb_metric: 0,
            ttl: LbFields::HOST_TTL,
        }
    }
}

/// The fields every hop reads (addressing, sizes, flags, the path choices' fields) come first,
/// in the packet's first cache line; the transport's sequence numbers fill that line, and the
/// rest (timestamps, rank, the protocols' header) is read at the endpoints and by switch agents.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct Packet {
    // --- addressing
    pub flow: FlowId,
    /// Host that puts this packet on the wire, and the host it is addressed to.
    pub src: HostId,
    pub dst: HostId,
    /// Flow entropy hashed by per-flow path choice (the "source port"); subflows of one flow
    /// differ here.
    pub path_key: u32,
    /// Bytes on the wire, headers included.
    pub size: u32,
    /// Application payload bytes carried.
    pub payload: u32,
    pub kind: PacketKind,
    pub ecn: Ecn,
    /// On a link that failed while it was on the wire: dropped when it would have arrived.
    pub lost: bool,
    /// ECN-Echo on an ACK.
    pub ece: bool,
    /// Set by the sender on a retransmitted segment (used for statistics only).
    pub retransmit: bool,
    /// Strict-priority class: 0 is served first.
    pub priority: u8,
    /// Load-balancing fields written by switches (`lb/`); untouched by transports.
    pub lb: LbFields,

    // --- transport
    /// Data: sequence number of the first payload byte. Counting starts at 0 for the first
    /// payload byte (the SYN does not consume a number here).
    pub seq: u64,
    /// Ack: the next byte expected (cumulative).
    pub ack: u64,
    /// Sender's timestamp, echoed back by the receiver in `ts_echo` (RFC 7323 style).
    pub ts: Time,
    pub ts_echo: Time,
    /// Rank for the rank queue: lower is more urgent.
    pub rank: u64,
    pub header: Header,
}

impl Packet {
    /// A packet of `flow` from `src` to `dst`, with the flow's path entropy, stamped `now`:
    /// the fields every transport fills alike. Set the rest by struct update.
    pub fn of_flow(flow: FlowId, src: HostId, dst: HostId, path_key: u32, now: Time) -> Packet {
        Packet {
            flow,
            src,
            dst,
            path_key,
            ts: now,
            ..Default::default()
        }
    }

    /// The start of a reply to `to`: back to its sender with its path entropy, echoing its
    /// timestamp. Set the kind, size, stamp and the rest by struct update.
    pub fn answer(to: &Packet) -> Packet {
        Packet {
            flow: to.flow,
            src: to.dst,
            dst: to.src,
            path_key: to.path_key,
            ts_echo: to.ts,
            ..Default::default()
        }
    }
}

/// Handle to a packet in the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketRef(u32);

impl PacketRef {
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The handle of pool slot `i` (for lists linked through slot-indexed arrays).
    pub fn from_index(i: u32) -> PacketRef {
        PacketRef(i)
    }
}

/// A slab of packets with a free list: the steady state allocates nothing per packet.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: usize,
    peak: usize,
}

impl PacketPool {
    pub fn insert(&mut self, pkt: Packet) -> PacketRef {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = pkt;
                PacketRef(i)
            }
            None => {
                self.slots.push(pkt);
                PacketRef(self.slots.len() as u32 - 1)
            }
        }
    }

    /// Returns the packet's slot to the pool. The handle must not be used afterwards.
    pub fn release(&mut self, r: PacketRef) {
        self.live -= 1;
        self.free.push(r.0);
    }

    pub fn get(&self, r: PacketRef) -> &Packet {
        &self.slots[r.index()]
    }

    pub fn get_mut(&mut self, r: PacketRef) -> &mut Packet {
        &mut self.slots[r.index()]
    }

    /// Packets alive now (in queues, on links).
    pub fn live(&self) -> usize {
        self.live
    }

    /// Most packets ever alive at once.
    pub fn peak(&self) -> usize {
        self.peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packets are copied into and out of the pool and scanned by queues: keep them small.
    /// 128 bytes: two cache lines (the packet is aligned to one), of which the fields take
    /// 104 (the header slot's 24 and the path choices' 10 included); any growth beyond that
    /// should first shrink something.
    #[test]
    fn packet_stays_small() {
        assert_eq!(std::mem::size_of::<Header>(), 24);
        assert_eq!(std::mem::size_of::<Packet>(), 128);
        assert!(std::mem::offset_of!(Packet, header) + std::mem::size_of::<Header>() <= 104);
    }

    /// What every hop reads lies in the packet's first cache line.
    #[test]
    fn a_hop_reads_the_first_line() {
        use std::mem::offset_of;
        assert_eq!(std::mem::align_of::<Packet>(), 64);
        let lb = offset_of!(Packet, lb) + std::mem::size_of::<LbFields>();
        for end in [
            offset_of!(Packet, flow) + 4,
            offset_of!(Packet, src) + 4,
            offset_of!(Packet, dst) + 4,
            offset_of!(Packet, path_key) + 4,
            offset_of!(Packet, size) + 4,
            offset_of!(Packet, payload) + 4,
            offset_of!(Packet, kind) + 1,
            offset_of!(Packet, ecn) + 1,
            offset_of!(Packet, lost) + 1,
            offset_of!(Packet, priority) + 1,
            lb,
        ] {
            assert!(end <= 64, "a field ends at {end}");
        }
    }

    #[test]
    fn pool_reuses_released_slots() {
        let mut pool = PacketPool::default();
        let a = pool.insert(Packet {
            seq: 1,
            ..Default::default()
        });
        let b = pool.insert(Packet {
            seq: 2,
            ..Default::default()
        });
        pool.release(a);
        let c = pool.insert(Packet {
            seq: 3,
            ..Default::default()
        });
        assert_eq!(c, a);
        assert_eq!(pool.get(c).seq, 3);
        assert_eq!(pool.get(b).seq, 2);
        assert_eq!((pool.live(), pool.peak()), (2, 2));
    }

    /// The packet is copied into and out of the pool on every hop's path; keep it small.
    #[test]
    fn lb_fields_take_10_bytes() {
        assert_eq!(std::mem::size_of::<LbFields>(), 10);
    }
}
