//! Units as types: [`Time`] in integer picoseconds, [`Rate`] in bit/s, [`Bytes`].
//!
//! Simulated time is a `u64` count of picoseconds: 2^64 ps is about 213 days, and every
//! serialisation time of a whole number of bytes on a link of a whole number of Mbit/s is an
//! exact integer of picoseconds. Floats appear only at the edges (configuration and output).
//!
//! # Limits of input
//!
//! Every time a scenario gives (start times, delays, timeouts, intervals, deadlines, `stop_s`,
//! failures, the times of a flow file) must be a finite number from 0 to the **simulation
//! horizon**, [`HORIZON_S`] = 10⁶ s (about 11.6 days), and every link rate a finite number of
//! Gbit/s up to [`MAX_GBPS`] = 4000 (4 Tbit/s, which the 32-bit kbit/s rate fields of PDQ, RCP
//! and MERP hold; the smallest rate is 1 bit/s). Configuration converts through the checked
//! constructors ([`Time::try_from_secs_f64`], [`Time::try_from_ms_f64`],
//! [`Time::try_from_us_f64`], [`Rate::try_from_gbps_f64`]), whose [`RangeError`] the caller
//! puts at its key ([`crate::error::AtKey`]); nothing out of range is clamped.
//!
//! The horizon is far below the 2^64 ps that a `Time` holds, so the sums a run makes of
//! values in range (a start plus a deadline, the time of an event plus a delay or a timeout)
//! stay exact: a run processes no event after its `stop_s` or, without one, after 60 s past
//! the last flow's start ([`crate::run::UNFINISHED_GUARD`]), both within about the
//! horizon. As a last guard, `Time` addition and multiplication saturate at [`Time::MAX`]
//! (a time no run reaches) instead of wrapping around, and so does [`Rate::tx_time`].

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
    /// The simulation horizon, [`HORIZON_S`], in picoseconds.
    pub const HORIZON: Time = Time(1_000_000 * Time::PS_PER_SEC);

    /// A time given in seconds (configuration), rounded to the nearest picosecond: refused
    /// unless finite and from 0 to [`HORIZON_S`].
    pub fn try_from_secs_f64(s: f64) -> Result<Time, RangeError> {
        time_in_range(s, "s", HORIZON_S).map(Time::from_secs_f64)
    }
    /// A time given in milliseconds, as [`Time::try_from_secs_f64`].
    pub fn try_from_ms_f64(ms: f64) -> Result<Time, RangeError> {
        time_in_range(ms, "ms", HORIZON_S * 1e3).map(|ms| Time::from_secs_f64(ms * 1e-3))
    }
    /// A time given in microseconds, as [`Time::try_from_secs_f64`].
    pub fn try_from_us_f64(us: f64) -> Result<Time, RangeError> {
        time_in_range(us, "µs", HORIZON_S * 1e6).map(Time::from_us_f64)
    }
    /// Rounds to the nearest picosecond; negative and NaN inputs become zero and inputs beyond
    /// [`Time::MAX`] become it. For computed values: input goes through
    /// [`Time::try_from_secs_f64`].
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

/// Saturates at [`Time::MAX`], a time no run reaches (module doc).
impl Add for Time {
    type Output = Time;
    #[inline]
    fn add(self, o: Time) -> Time {
        Time(self.0.saturating_add(o.0))
    }
}
impl AddAssign for Time {
    #[inline]
    fn add_assign(&mut self, o: Time) {
        *self = *self + o;
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
/// Saturates at [`Time::MAX`], as addition does.
impl Mul<u64> for Time {
    type Output = Time;
    #[inline]
    fn mul(self, k: u64) -> Time {
        Time(self.0.saturating_mul(k))
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
    /// From a possibly fractional Gbit/s figure, rounded to 1 bit/s (negative: zero). For
    /// computed values: input goes through [`Rate::try_from_gbps_f64`].
    pub fn from_gbps_f64(g: f64) -> Rate {
        Rate((g * 1e9).round().max(0.0) as u64)
    }
    /// A rate given in Gbit/s (configuration), rounded to 1 bit/s: refused unless finite and
    /// from 0 to [`MAX_GBPS`]. (Whether 0 is allowed is the caller's to say.)
    pub fn try_from_gbps_f64(g: f64) -> Result<Rate, RangeError> {
        if !g.is_finite() {
            return Err(RangeError::NotFinite(g));
        }
        if g < 0.0 {
            return Err(RangeError::Negative {
                got: g,
                unit: "Gbps",
            });
        }
        if g > MAX_GBPS {
            return Err(RangeError::AboveMax {
                got: g,
                max: MAX_GBPS,
                unit: "Gbps",
                what: "the largest link rate dcnsim supports (4 Tbit/s)",
            });
        }
        Ok(Rate::from_gbps_f64(g))
    }
    pub const fn bits_per_sec(self) -> u64 {
        self.0
    }
    pub fn as_gbps_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }

    /// Time to put `bytes` on the wire at this rate, rounded up to a whole picosecond
    /// (exact whenever the rate divides 8e12 · bytes, e.g. any whole Mbit/s rate); saturates
    /// at [`Time::MAX`] (more than 2^64 ps: a huge packet on a link of a few bit/s).
    pub fn tx_time(self, bytes: u64) -> Time {
        debug_assert!(self.0 > 0, "tx_time on a zero rate");
        let num = bytes as u128 * 8 * Time::PS_PER_SEC as u128;
        let r = self.0 as u128;
        Time(num.div_ceil(r).min(u64::MAX as u128) as u64)
    }

    /// Bytes this rate carries in `t` (rounded down).
    pub fn bytes_in(self, t: Time) -> u64 {
        (self.0 as u128 * t.0 as u128 / (8 * Time::PS_PER_SEC as u128)) as u64
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Divided, not multiplied by 1e-9: 4 Tbit/s reads 4000, not 4000.0000000000005.
        write!(f, "{} Gbps", self.0 as f64 / 1e9)
    }
}

/// The simulation horizon in seconds: the largest time a scenario may give (module doc).
pub const HORIZON_S: f64 = 1e6;
/// The largest link rate a scenario may give, in Gbit/s (module doc).
pub const MAX_GBPS: f64 = 4000.0;

/// Why a number given for a time or a rate cannot be one; the caller names the key
/// ([`crate::error::AtKey`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RangeError {
    /// NaN or ±infinity.
    NotFinite(f64),
    Negative {
        got: f64,
        unit: &'static str,
    },
    AboveMax {
        got: f64,
        max: f64,
        unit: &'static str,
        /// What the maximum is, for the message.
        what: &'static str,
    },
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RangeError::NotFinite(v) => write!(f, "must be a finite number, got {}", num(v)),
            RangeError::Negative { got, unit } => {
                write!(f, "must be >= 0 {unit}, got {}", num(got))
            }
            RangeError::AboveMax {
                got,
                max,
                unit,
                what,
            } => write!(
                f,
                "{} {unit} is beyond {what}; give at most {} {unit}",
                num(got),
                num(max)
            ),
        }
    }
}

impl std::error::Error for RangeError {}

/// A time in `unit` checked against the horizon, which is `max` in that unit.
fn time_in_range(v: f64, unit: &'static str, max: f64) -> Result<f64, RangeError> {
    if !v.is_finite() {
        return Err(RangeError::NotFinite(v));
    }
    if v < 0.0 {
        return Err(RangeError::Negative { got: v, unit });
    }
    if v > max {
        return Err(RangeError::AboveMax {
            got: v,
            max,
            unit,
            what: "the simulation horizon (1e6 s, about 11.6 days)",
        });
    }
    Ok(v)
}

/// A number as an error message shows it: `nan`, `inf` and `-inf` as TOML writes them, very
/// large and very small magnitudes in exponent form (`1e300`, not 301 digits).
pub fn num(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else if v != 0.0 && !(1e-6..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
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

/// Bytes as people read them: `12.3 GB` (powers of 1000, as the scenario's KB).
pub fn human(bytes: f64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB", "PB"];
    let mut v = bytes;
    let mut i = 0;
    while v >= 1000.0 && i + 1 < units.len() {
        v /= 1000.0;
        i += 1;
    }
    match (i, v) {
        (0, _) => format!("{v:.0} B"),
        (_, v) if v >= 1e4 => format!("{v:.2e} {}", units[i]),
        (_, v) if v >= 100.0 => format!("{v:.0} {}", units[i]),
        _ => format!("{v:.1} {}", units[i]),
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
    fn checked_conversions_refuse_what_does_not_fit() {
        assert_eq!(Time::try_from_secs_f64(1e-6), Ok(Time::from_us(1)));
        assert_eq!(Time::try_from_secs_f64(1e6), Ok(Time::HORIZON));
        assert_eq!(Time::try_from_us_f64(1e12), Ok(Time::HORIZON));
        assert_eq!(Time::try_from_ms_f64(1e9), Ok(Time::HORIZON));
        assert_eq!(Time::try_from_us_f64(0.0), Ok(Time::ZERO));
        // Exactly what the unchecked conversion gives, for every value in range.
        for us in [0.1, 1.0, 6.25, 193.92, 45.0, 1e9] {
            assert_eq!(Time::try_from_us_f64(us), Ok(Time::from_us_f64(us)));
        }
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let e = Time::try_from_secs_f64(v).unwrap_err();
            assert!(
                e.to_string().starts_with("must be a finite number, got "),
                "{e}"
            );
        }
        assert_eq!(
            Time::try_from_secs_f64(f64::NAN).unwrap_err().to_string(),
            "must be a finite number, got nan"
        );
        let e = Time::try_from_secs_f64(1e300).unwrap_err().to_string();
        assert!(e.contains("1e300 s") && e.contains("at most 1e6 s"), "{e}");
        let e = Time::try_from_us_f64(1e13).unwrap_err().to_string();
        assert!(e.contains("at most 1e12 µs"), "{e}");
        assert!(Time::try_from_secs_f64(1e6 * (1.0 + 1e-15)).is_err());
        assert!(Time::try_from_secs_f64(-1.0).is_err());
        assert_eq!(Rate::try_from_gbps_f64(4000.0), Ok(Rate::gbps(4000)));
        let e = Rate::try_from_gbps_f64(1e300).unwrap_err().to_string();
        assert!(e.contains("at most 4000 Gbps"), "{e}");
        assert!(Rate::try_from_gbps_f64(f64::NAN).is_err());
    }

    #[test]
    fn sums_saturate_instead_of_wrapping() {
        assert_eq!(Time::MAX + Time(1), Time::MAX);
        assert_eq!(Time::HORIZON * u64::MAX, Time::MAX);
        let mut t = Time(u64::MAX - 1);
        t += Time(5);
        assert_eq!(t, Time::MAX);
        // 4 GB at 1 bit/s is 3.4e10 s, beyond what a Time holds.
        assert_eq!(Rate::bps(1).tx_time(u32::MAX as u64), Time::MAX);
        // The largest rate over the longest time still counts its bytes exactly.
        let r = Rate::try_from_gbps_f64(MAX_GBPS).unwrap();
        assert_eq!(r.bytes_in(Time::HORIZON), 500_000_000_000_000_000);
    }

    #[test]
    fn numbers_in_messages_are_short() {
        assert_eq!(num(1e300), "1e300");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(-2.0), "-2");
        assert_eq!(num(f64::NEG_INFINITY), "-inf");
        assert_eq!(num(1e-9), "1e-9");
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(Time::from_secs_f64(1e-6), Time::from_us(1));
        assert_eq!(Time::from_us(3).as_secs_f64(), 3e-6);
        assert_eq!(Time::from_secs_f64(-1.0), Time::ZERO);
        assert_eq!(Rate::gbps(10).bytes_in(Time::from_us(1)), 1250);
    }
}
