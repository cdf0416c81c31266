//! PACE's messages and their fields (§III.A–B), in the encodings of §III.B: allocations in
//! 2-byte fields of credits of [`CREDIT_BYTES`] = 8 bytes, the period in one byte of
//! [`PERIOD_UNIT_US`] = 20 µs, and (our choice, the paper gives none) weights in 2 bytes of
//! 8.8 fixed point.
//!
//! | message | kind | fields it carries |
//! |---|---|---|
//! | request | `Syn`, sender → receiver | sender weight; `potential` = the sender's p·R (its NIC rate over the initial period) |
//! | allocation | `Ack`, receiver → sender | epoch, period, potential demand d_p, demand d, allocation a, both weights; `ack` = bytes received in order |
//! | data | `Data`, sender → receiver | epoch; the first one after an allocation sets [`FLAG_FEEDBACK`] and returns its a, d_p and period |
//! | terminate | `Ack`, receiver → sender | — (every byte arrived) |
//!
//! The header costs [`WIRE_BYTES`] = 14 bytes on every PACE packet: message and flags, epoch
//! (the logical clock of credits, one per period), period (1 byte each), d_p, d, a (2 bytes
//! each), the two weights (2 bytes each).

use crate::net::header::{Reader, WireHeader, Writer};
use crate::units::{Rate, Time};

/// Bytes PACE's header adds to every packet on the wire.
pub const WIRE_BYTES: u32 = 14;
/// One credit (§III.B).
pub const CREDIT_BYTES: u64 = 8;
/// One unit of the period field (§III.B).
pub const PERIOD_UNIT_US: u64 = 20;
/// Weight 1 in the 8.8 fixed point of the weight fields.
pub const WEIGHT_ONE: u16 = 256;

pub const MSG_REQUEST: u8 = 1;
pub const MSG_ALLOCATION: u8 = 2;
pub const MSG_DATA: u8 = 3;
pub const MSG_TERMINATE: u8 = 4;

/// A data message that returns the allocation of its `epoch` (§III.D).
pub const FLAG_FEEDBACK: u8 = 1;
/// An allocation whose receiver saw data out of order since its previous one: data was lost
/// (only a failed link or an overflowing buffer loses it), resend from `ack`.
pub const FLAG_GAP: u8 = 2;

/// PACE's header fields. Allocation fields in credits, the period in 20 µs units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PaceHeader {
    pub msg: u8,
    pub flags: u8,
    /// The receiver's logical clock when it issued the allocation (wraps).
    pub epoch: u8,
    pub period: u8,
    /// d_p: the demand the flow could have next period.
    pub potential: u16,
    /// d: the flow's demand this period.
    pub demand: u16,
    /// a: what every forwarder so far can allocate this period.
    pub alloc: u16,
    pub w_sender: u16,
    pub w_receiver: u16,
}

impl WireHeader for PaceHeader {
    const TAG: u8 = 5;
    #[inline(always)]
    fn pack(&self, to: &mut Writer) {
        for b in [self.msg, self.flags, self.epoch, self.period] {
            to.u8(b);
        }
        for v in [
            self.potential,
            self.demand,
            self.alloc,
            self.w_sender,
            self.w_receiver,
        ] {
            to.u16(v);
        }
    }
    #[inline(always)]
    fn unpack(from: &mut Reader) -> Self {
        PaceHeader {
            msg: from.u8(),
            flags: from.u8(),
            epoch: from.u8(),
            period: from.u8(),
            potential: from.u16(),
            demand: from.u16(),
            alloc: from.u16(),
            w_sender: from.u16(),
            w_receiver: from.u16(),
        }
    }
}

impl PaceHeader {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// The flow's weight at forwarders: sender weight × receiver weight, in 16.16 fixed
    /// point (never 0).
    pub fn weight(&self) -> u64 {
        (self.w_sender as u64 * self.w_receiver as u64).max(1)
    }
}

/// Bytes as whole credits, rounded down and saturating at the 2-byte field's maximum.
pub fn credits(bytes: u64) -> u16 {
    (bytes / CREDIT_BYTES).min(u16::MAX as u64) as u16
}

/// Bytes as credits rounded up (saturating): for demands, which must not shrink in transit.
pub fn credits_up(bytes: u64) -> u16 {
    bytes.div_ceil(CREDIT_BYTES).min(u16::MAX as u64) as u16
}

pub fn bytes_of(credits: u16) -> u64 {
    credits as u64 * CREDIT_BYTES
}

/// The period field as a time (0 is read as one unit).
pub fn period_time(units: u8) -> Time {
    Time::from_us(units.max(1) as u64 * PERIOD_UNIT_US)
}

/// Bytes a link of `rate` carries in `units` periods units: C(p) = p·R.
pub fn capacity_bytes(rate: Rate, units: u8) -> u64 {
    // R [bit/s] × units × 20 µs / 8 = R · units / 400 000
    (rate.bits_per_sec() as u128 * units.max(1) as u128 / 400_000) as u64
}

/// A flow weight in the 8.8 fixed point of the header, if it is representable (1/256 to
/// 255.99…; rounded to the nearest 1/256).
pub fn weight_field(w: f64) -> Option<u16> {
    let v = (w * WEIGHT_ONE as f64).round();
    (w.is_finite() && (1.0..=u16::MAX as f64).contains(&v)).then_some(v as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_follow_section_3b() {
        // 1 credit = 8 bytes, 2-byte fields: at most 65 535 credits = 524 280 bytes.
        assert_eq!(credits(25_000), 3125);
        assert_eq!(credits(7), 0);
        assert_eq!(credits_up(7), 1);
        assert_eq!(credits(10_000_000), u16::MAX);
        assert_eq!(bytes_of(u16::MAX), 524_280);
        // 1-byte period in 20 µs units: 200 µs is 10; at most 5.1 ms.
        assert_eq!(period_time(10), Time::from_us(200));
        assert_eq!(period_time(255), Time::from_us(5100));
        // C(200 µs) at 1 Gb/s = 25 000 bytes; at 10 Gb/s = 250 000.
        assert_eq!(capacity_bytes(Rate::gbps(1), 10), 25_000);
        assert_eq!(capacity_bytes(Rate::gbps(10), 10), 250_000);
        assert_eq!(weight_field(2.0), Some(512));
        assert_eq!(weight_field(0.5), Some(128));
        assert_eq!(weight_field(0.001), None);
        assert_eq!(weight_field(300.0), None);
    }

    #[test]
    fn header_is_its_wire_size_and_round_trips_through_the_slot() {
        use crate::protocols::Protocol;
        assert!(super::super::PaceParams::HEADER_TAGS.contains(&PaceHeader::TAG));
        assert_eq!(std::mem::size_of::<PaceHeader>(), WIRE_BYTES as usize);
        crate::net::header::assert_round_trips(PaceHeader {
            msg: 3,
            flags: 0xa5,
            epoch: 255,
            period: 10,
            potential: 1,
            demand: u16::MAX,
            alloc: 300,
            w_sender: WEIGHT_ONE,
            w_receiver: 2 * WEIGHT_ONE,
        });
    }

    #[test]
    fn weight_combines_sender_and_receiver() {
        let h = PaceHeader {
            w_sender: 512,
            w_receiver: 384,
            ..Default::default()
        };
        assert_eq!(h.weight(), 3 * 65_536); // 2 × 1.5 in 16.16
    }
}
