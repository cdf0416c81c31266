//! Units as types: [`Time`] in integer picoseconds, [`Rate`] in bit/s, [`Bytes`].
//!
//! Simulated time is a `u64` count of picoseconds: 2^64 ps is about 213 days, and every
//! serialisation time of a whole number of bytes on a link of a whole number of Mbit/s is an
//! exact integer of picoseconds. Floats appear only at the edges (configuration and output).

use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub, SubAssign};

/// A point in simulated time or a duration, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub const PS_PER_SEC: u64 = 1_000_000_000_000;

    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    /// Rounds to the nearest picosecond; negative and NaN inputs become zero.
    pub fn from_secs_f64(s: f64) -> Time {
        if s.is_nan() || s <= 0.0 {
            return Time::ZERO;
        }
        Time((s * 1e12).round() as u64)
    }
    pub fn from_us_f64(us: f64) -> Time {
        Time::from_secs_f64(us * 1e-6)
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e12
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// In µs, rounded to the nanosecond: a value that reads well in a scenario file and
    /// converts back ([`Time::from_us_f64`]) to exactly this time when it is whole nanoseconds.
    pub fn as_us_rounded_to_ns(self) -> f64 {
        (self.0.saturating_add(500) / 1_000) as f64 / 1e3
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 += o.0;
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}
impl SubAssign for Time {
    fn sub_assign(&mut self, o: Time) {
        self.0 -= o.0;
    }
}
impl Mul<u64> for Time {
    type Output = Time;
    fn mul(self, k: u64) -> Time {
        Time(self.0 * k)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6} us", self.as_us_f64())
    }
}

/// A link or sending rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn bps(bps: u64) -> Rate {
        Rate(bps)
    }
    pub const fn mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    pub const fn gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    /// From a possibly fractional Gbit/s figure (configuration input), rounded to 1 bit/s.
    pub fn from_gbps_f64(g: f64) -> Rate {
        Rate((g * 1e9).round().max(0.0) as u64)
    }
    pub const fn bits_per_sec(self) -> u64 {
        self.0
    }
    pub fn as_gbps_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }

    /// Time to put `bytes` on the wire at this rate, rounded up to a whole picosecond
    /// (exact whenever the rate divides 8e12 · bytes, e.g. any whole Mbit/s rate).
    pub fn tx_time(self, bytes: u64) -> Time {
        debug_assert!(self.0 > 0, "tx_time on a zero rate");
        let num = bytes as u128 * 8 * Time::PS_PER_SEC as u128;
        let r = self.0 as u128;
        Time(num.div_ceil(r) as u64)
    }

    /// Bytes this rate carries in `t` (rounded down).
    pub fn bytes_in(self, t: Time) -> u64 {
        (self.0 as u128 * t.0 as u128 / (8 * Time::PS_PER_SEC as u128)) as u64
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} Gbps", self.as_gbps_f64())
    }
}

/// A byte count (buffer sizes, flow sizes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl Bytes {
    pub const fn get(self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_rounded_to_the_nanosecond_convert_back() {
        for ps in [193_920_000u64, 58_176_000, 1_499, 1_500, 64_640_123] {
            let us = Time(ps).as_us_rounded_to_ns();
            let ns = (ps + 500) / 1_000;
            assert_eq!(
                Time::from_us_f64(us),
                Time::from_ns(ns),
                "{ps} ps -> {us} us"
            );
        }
        assert_eq!(Time(193_920_000).as_us_rounded_to_ns(), 193.92);
    }

    #[test]
    fn tx_time_is_exact_for_whole_rates() {
        assert_eq!(Rate::gbps(10).tx_time(1500), Time::from_ns(1200));
        assert_eq!(Rate::gbps(1).tx_time(1500), Time::from_us(12));
        assert_eq!(Rate::gbps(40).tx_time(1500), Time::from_ps(300_000));
        // 3 bytes at 7 bit/s: 24/7 s, rounded up to the next picosecond.
        assert_eq!(
            Rate::bps(7).tx_time(3).0,
            (24 * Time::PS_PER_SEC).div_ceil(7)
        );
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(Time::from_secs_f64(1e-6), Time::from_us(1));
        assert_eq!(Time::from_us(3).as_secs_f64(), 3e-6);
        assert_eq!(Time::from_secs_f64(-1.0), Time::ZERO);
        assert_eq!(Rate::gbps(10).bytes_in(Time::from_us(1)), 1250);
    }
}
