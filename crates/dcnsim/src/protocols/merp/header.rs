//! MERP's nine packet types, their three priorities (Table 2) and the header fields every
//! packet carries (§4.1): flow size, actual sending rate (asr), expected sending rate (esr) and
//! the detecting rate threshold (Q).

use crate::net::header::{Header, Reader, WireHeader, Writer};
use crate::net::packet::{Packet, PacketKind};

/// The nine packet types of §3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MerpKind {
    Syn,
    /// A detecting packet of a postponed flow (header only).
    Det,
    Data,
    Fin,
    SynAck,
    DetAck,
    /// A receiver's "start now": the answer to a DET whose asr exceeds Q.
    Boost,
    DataAck,
    FinAck,
}

impl MerpKind {
    /// Every kind, indexed by its header code (the discriminant).
    const ALL: [MerpKind; 9] = [
        MerpKind::Syn,
        MerpKind::Det,
        MerpKind::Data,
        MerpKind::Fin,
        MerpKind::SynAck,
        MerpKind::DetAck,
        MerpKind::Boost,
        MerpKind::DataAck,
        MerpKind::FinAck,
    ];

    /// Table 2: SYN, SYNACK and BOOST high (0); DATA, DATAACK, FIN and FINACK middle (1); DET
    /// and DETACK low (2). Switch buffers serve the highest first and drop the lowest.
    pub fn priority(self) -> u8 {
        match self {
            MerpKind::Syn | MerpKind::SynAck | MerpKind::Boost => 0,
            MerpKind::Data | MerpKind::DataAck | MerpKind::Fin | MerpKind::FinAck => 1,
            MerpKind::Det | MerpKind::DetAck => 2,
        }
    }

    /// The engine's kind: the sender's four types travel forward, the receiver's five back.
    pub fn packet_kind(self) -> PacketKind {
        match self {
            MerpKind::Syn => PacketKind::Syn,
            MerpKind::Det | MerpKind::Data => PacketKind::Data,
            MerpKind::Fin => PacketKind::Fin,
            MerpKind::SynAck => PacketKind::SynAck,
            MerpKind::DetAck | MerpKind::Boost | MerpKind::DataAck | MerpKind::FinAck => {
                PacketKind::Ack
            }
        }
    }

    /// Packets switches act on (Algorithm 1): the sender's types. ACKs of all five kinds pass
    /// untouched (§3: "the five types of ACK packets do not trigger actions on switches").
    pub fn is_forward(self) -> bool {
        matches!(
            self,
            MerpKind::Syn | MerpKind::Det | MerpKind::Data | MerpKind::Fin
        )
    }
}

/// The header fields (§4.1). Units: `size` in wire bytes (saturating at 4 GiB), rates in
/// kbit/s, `esr` in bytes/s (a float so that "infinity", its initial value, is exact).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MerpHeader {
    pub kind: MerpKind,
    pub size: u32,
    pub asr_kbps: u32,
    pub esr: f32,
    pub q_kbps: u32,
}

impl WireHeader for MerpHeader {
    const TAG: u8 = 4;
    #[inline(always)]
    fn pack(&self, to: &mut Writer) {
        to.u8(self.kind as u8);
        to.u32(self.size);
        to.u32(self.asr_kbps);
        to.f32(self.esr);
        to.u32(self.q_kbps);
    }
    #[inline(always)]
    fn unpack(from: &mut Reader) -> Self {
        MerpHeader {
            kind: MerpKind::ALL[from.u8() as usize],
            size: from.u32(),
            asr_kbps: from.u32(),
            esr: from.f32(),
            q_kbps: from.u32(),
        }
    }
}

impl MerpHeader {
    pub fn read(p: &Packet) -> Option<MerpHeader> {
        p.header.read()
    }

    /// Writes the header and what follows from its type: the engine's kind and the rank the
    /// priority buffer orders by.
    pub fn write(self, p: &mut Packet) {
        p.kind = self.kind.packet_kind();
        p.rank = self.kind.priority() as u64;
        p.priority = self.kind.priority();
        p.header = Header::of(self);
    }

    pub fn asr_bps(&self) -> u64 {
        self.asr_kbps as u64 * 1000
    }
}

/// A rate in bit/s as header kbit/s, rounded down (a switch never grants more than it has),
/// saturating.
pub fn kbps(bps: f64) -> u32 {
    (bps / 1000.0).clamp(0.0, u32::MAX as f64) as u32
}
