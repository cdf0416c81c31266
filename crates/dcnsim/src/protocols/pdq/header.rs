//! PDQ's scheduling header (§3.1 and footnote 11 of the paper): R_H, P_H, D_H, T_H, RTT_H and
//! I_H, plus the subflow index M-PDQ needs, packed into the packet's [`Header`] slot as fixed-point integers
//! so the packet stays within its size budget.
//!
//! | field | meaning | unit in the packet |
//! |---|---|---|
//! | `rate` (R_H) | rate: the sender writes its NIC rate, switches lower it | kbit/s |
//! | `pause_by` (P_H) | the link that paused the flow, or ø | egress port index + 1, 0 = ø |
//! | `deadline` (D_H) | absolute deadline, or none | units of 100 ns, `u32::MAX` = none |
//! | `expected` (T_H) | expected transmission time (remaining bytes / NIC rate) | ns, saturating |
//! | `rtt` (RTT_H) | the sender's RTT estimate, 0 before the first sample | ns, saturating |
//! | `inter_probe` (I_H) | inter-probing time | hundredths of an RTT, 0 = ø |
//! | `subflow` | M-PDQ subflow index (0 for PDQ) | low 7 bits of a byte |
//! | `pauser_crossed` | the link P_H names saw this packet (ours, not the paper's) | its top bit |
//!
//! On the wire the header costs [`WIRE_BYTES`] = 16 bytes (footnote 11: four 4-byte fields,
//! RTT and I reusing D's and T's slots on the reverse path).

use crate::net::header::{Header, Reader, WireHeader, Writer};
use crate::net::packet::Packet;
use crate::units::{Rate, Time};

/// Bytes the scheduling header adds to every PDQ packet (footnote 11).
pub const WIRE_BYTES: u32 = 16;
/// `deadline` value of a flow without deadline (ranks after every deadline).
pub const NO_DEADLINE: u32 = u32::MAX;
/// One deadline unit in picoseconds (100 ns): 2^32 units reach ~429 s.
const DEADLINE_UNIT_PS: u64 = 100_000;
/// The bit of the packed subflow byte that carries `pauser_crossed` (subflows are ≤ 64).
const PAUSER_CROSSED: u8 = 0x80;

/// The decoded scheduling header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PdqHeader {
    pub rate_kbps: u32,
    pub pause_by: u32,
    pub deadline: u32,
    pub expected_ns: u32,
    pub rtt_ns: u32,
    pub inter_probe: u16,
    pub subflow: u8,
    /// Set by the link P_H names when the packet crosses it on the forward path. A flow
    /// rerouted off its pausing link would otherwise stay paused for good: only that link may
    /// lift a pause (module doc, "A pausing link off the path").
    pub pauser_crossed: bool,
}

impl PdqHeader {
    pub fn read(pkt: &Packet) -> Option<PdqHeader> {
        pkt.header.read()
    }

    pub fn write(self, pkt: &mut Packet) {
        pkt.header = Header::of(self);
    }
}

/// Five `u32`, the `u16` and one byte for the subflow and `pauser_crossed`: the slot's 23.
impl WireHeader for PdqHeader {
    const TAG: u8 = 3;
    #[inline(always)]
    fn pack(&self, to: &mut Writer) {
        to.u32(self.rate_kbps);
        to.u32(self.pause_by);
        to.u32(self.deadline);
        to.u32(self.expected_ns);
        to.u32(self.rtt_ns);
        to.u16(self.inter_probe);
        to.u8(self.subflow
            | if self.pauser_crossed {
                PAUSER_CROSSED
            } else {
                0
            });
    }
    #[inline(always)]
    fn unpack(from: &mut Reader) -> Self {
        let mut h = PdqHeader {
            rate_kbps: from.u32(),
            pause_by: from.u32(),
            deadline: from.u32(),
            expected_ns: from.u32(),
            rtt_ns: from.u32(),
            inter_probe: from.u16(),
            ..PdqHeader::default()
        };
        let subflow = from.u8();
        h.subflow = subflow & !PAUSER_CROSSED;
        h.pauser_crossed = subflow & PAUSER_CROSSED != 0;
        h
    }
}

pub fn rate_to_kbps(r: Rate) -> u32 {
    (r.bits_per_sec() / 1000).min(u32::MAX as u64) as u32
}

pub fn kbps_to_bps(kbps: u32) -> u64 {
    kbps as u64 * 1000
}

pub fn deadline_field(d: Option<Time>) -> u32 {
    match d {
        None => NO_DEADLINE,
        Some(t) => (t.ps() / DEADLINE_UNIT_PS).min(NO_DEADLINE as u64 - 1) as u32,
    }
}

/// A time as saturating nanoseconds.
pub fn ns_field(t: Time) -> u32 {
    (t.ps() / 1000).min(u32::MAX as u64) as u32
}

/// The pause-by value naming egress port `port`.
pub fn link_id(port: u32) -> u32 {
    port + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_through_the_slot() {
        use crate::protocols::Protocol;
        assert!(super::super::PdqParams::HEADER_TAGS.contains(&PdqHeader::TAG));
        let h = PdqHeader {
            rate_kbps: 10_000_000,
            pause_by: 7,
            deadline: deadline_field(Some(Time::from_us(250))),
            expected_ns: ns_field(Time::from_us(3)),
            rtt_ns: 12_000,
            inter_probe: 200,
            subflow: 63,
            pauser_crossed: true,
        };
        crate::net::header::assert_round_trips(h);
        crate::net::header::assert_round_trips(PdqHeader {
            pauser_crossed: false,
            ..h
        });
        let mut p = Packet::default();
        h.write(&mut p);
        assert_eq!(PdqHeader::read(&p), Some(h));
        assert_eq!(h.deadline, 2500);
        assert_eq!(h.expected_ns, 3000);
        assert_eq!(deadline_field(None), NO_DEADLINE);
        assert_eq!(rate_to_kbps(Rate::gbps(10)), 10_000_000);
    }
}
