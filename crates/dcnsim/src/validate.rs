//! The value checks the configuration's readers share: read an optional key with its default,
//! check its range, and on bad input return a [`ConfigError`] that names the full key path
//! (`transport.min_rto_us`, `routing.conga_tau_us`, `topology.hosts`) and says what is valid.
//!
//! One function per meaning, used by every table (transport, path choice, topology): a
//! reader passes the key path it reads. This module sits beside [`crate::units`] and
//! [`crate::error`] at the bottom of the layers, so every layer above may use it.
//!
//! # RTO bounds
//!
//! Every transport with the keys `min_rto_us`, `initial_rto_us` and `max_rto_us` reads them
//! with [`rto_bounds`], and so follows one rule:
//! - each must be a finite time > 0 µs, and `max_rto_us ≥ min_rto_us`;
//! - an `initial_rto_us` the scenario sets is used as written: it must lie in
//!   `[min_rto_us, max_rto_us]`, else it is refused (never clamped), and the message gives both
//!   bounds' values and says which of them are defaults, so the fix (set that bound) is named;
//! - an `initial_rto_us` left unset is its default moved into the bounds.
//!
//! Why refuse: two values the user wrote that contradict each other are bad input, and this
//! project's rule for bad input is a clear error rather than a silent change. A default
//! derived from the network (MERP's `min_rto_us`, one RTT) gives way to an `initial_rto_us`
//! the user set, in that protocol's `network_defaults`, so it never causes a refusal.

use crate::error::{AtKey, ConfigError, ConfigResult};
use crate::units::{num, RangeError, Time};
use std::fmt::Display;

/// A time in µs at `key` (a timer, a link's propagation delay), refused unless finite, at
/// least a picosecond and at most the simulation horizon ([`crate::units`]).
pub fn micros(key: &str, us: f64) -> ConfigResult<Time> {
    match Time::try_from_us_f64(us) {
        Ok(Time::ZERO) if us > 0.0 => Err(ConfigError::new(
            key,
            format!("{} µs rounds to 0 ps; give at least 1e-6", num(us)),
        )),
        Ok(Time::ZERO) | Err(RangeError::Negative { .. }) => Err(ConfigError::new(
            key,
            format!("must be a finite time > 0 µs (got {})", num(us)),
        )),
        t => t.at_key(key),
    }
}

/// The value of the choice named `set` at `key` among `choices` (name, value), the first
/// choice when unset; an unknown name is refused as an unknown `what` (`capacity`,
/// `variant`), listing the names.
pub fn choice<T: Copy>(
    key: &str,
    what: &str,
    set: Option<&str>,
    choices: &[(&str, T)],
) -> ConfigResult<T> {
    let Some(name) = set else {
        return Ok(choices[0].1);
    };
    match choices.iter().find(|(n, _)| *n == name) {
        Some(&(_, value)) => Ok(value),
        None => {
            let valid: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            Err(ConfigError::new(
                key,
                format!("unknown {what} '{name}'; valid: {}", valid.join(", ")),
            ))
        }
    }
}

/// [`micros`] of the value at `key`, `default` when it is unset.
pub fn micros_or(key: &str, v: Option<f64>, default: f64) -> ConfigResult<Time> {
    micros(key, v.unwrap_or(default))
}

/// A count at `key` (`default` when unset), refused when 0.
pub fn at_least_one<T: Copy + Default + PartialEq>(
    key: &str,
    v: Option<T>,
    default: T,
) -> ConfigResult<T> {
    let v = v.unwrap_or(default);
    if v == T::default() {
        return Err(ConfigError::new(key, "must be at least 1"));
    }
    Ok(v)
}

/// A whole number at `key` (`default` when unset), refused outside `[lo, hi]`.
pub fn int_within<T: Copy + PartialOrd + Display>(
    key: &str,
    v: Option<T>,
    default: T,
    lo: T,
    hi: T,
) -> ConfigResult<T> {
    let v = v.unwrap_or(default);
    if !(lo <= v && v <= hi) {
        return Err(ConfigError::new(
            key,
            format!("must be between {lo} and {hi} (got {v})"),
        ));
    }
    Ok(v)
}

/// A number at `key` (`default` when unset), refused unless finite and in `[lo, hi]`.
pub fn number_in(key: &str, v: Option<f64>, default: f64, lo: f64, hi: f64) -> ConfigResult<f64> {
    let v = v.unwrap_or(default);
    if !(v.is_finite() && v >= lo && v <= hi) {
        return Err(ConfigError::new(
            key,
            format!("must be a number in [{lo}, {hi}] (got {})", num(v)),
        ));
    }
    Ok(v)
}

/// The retransmission timeout's bounds and first value, as a transport uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtoBounds {
    pub min: Time,
    pub initial: Time,
    pub max: Time,
}

/// The values in µs a transport uses for the RTO keys the scenario leaves unset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoDefaults {
    pub min_us: f64,
    pub initial_us: f64,
    pub max_us: f64,
}

/// Reads `transport.min_rto_us`, `transport.initial_rto_us` and `transport.max_rto_us` (the
/// scenario's values, `None` where unset) by the one rule of the module doc: an initial RTO
/// the scenario sets outside `[min, max]` is refused, an unset one is its default moved into
/// them.
pub fn rto_bounds(
    min_us: Option<f64>,
    initial_us: Option<f64>,
    max_us: Option<f64>,
    defaults: RtoDefaults,
) -> ConfigResult<RtoBounds> {
    let min = micros_or("transport.min_rto_us", min_us, defaults.min_us)?;
    let max = micros_or("transport.max_rto_us", max_us, defaults.max_us)?;
    // "1000 µs", or "1000 µs, its default" when the scenario left the key unset: a refusal
    // caused by a default must say so, or the user looks for a value they never wrote.
    let shown = |t: Time, set: bool| {
        let us = num(t.as_us_f64());
        if set {
            format!("{us} µs")
        } else {
            format!("{us} µs, its default")
        }
    };
    if max < min {
        return Err(ConfigError::new(
            "transport.max_rto_us",
            format!("must be ≥ min_rto_us ({})", shown(min, min_us.is_some())),
        ));
    }
    let initial = match initial_us {
        None => Time::from_us_f64(defaults.initial_us).clamp(min, max),
        Some(us) => {
            let t = micros("transport.initial_rto_us", us)?;
            if t < min || t > max {
                return Err(ConfigError::new(
                    "transport.initial_rto_us",
                    format!(
                        "must lie between min_rto_us ({}) and max_rto_us ({}) (got {} µs); \
                         set those keys to move the bounds",
                        shown(min, min_us.is_some()),
                        shown(max, max_us.is_some()),
                        num(us)
                    ),
                ));
            }
            t
        }
    };
    Ok(RtoBounds { min, initial, max })
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "transport.k";

    #[test]
    fn micros_takes_finite_positive_times_up_to_the_horizon() {
        assert_eq!(micros(K, 1.5).unwrap(), Time::from_ns(1500));
        assert_eq!(micros(K, 1e-6).unwrap(), Time::from_ps(1));
        for bad in [
            0.0,
            -0.0,
            -1.0,
            1e-9,
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            1e300,
        ] {
            let e = micros(K, bad).unwrap_err();
            assert_eq!(e.path, K, "{bad}");
        }
        assert!(micros(K, 0.0).unwrap_err().message.contains("> 0 µs"));
        assert!(micros(K, 1e-9)
            .unwrap_err()
            .message
            .contains("rounds to 0 ps; give at least 1e-6"));
        // The horizon (1e6 s) is the largest time.
        assert!(micros(K, 1e12).is_ok());
        assert!(micros(K, 1.0001e12).is_err());
    }

    #[test]
    fn micros_or_reads_the_default_only_when_unset() {
        assert_eq!(micros_or(K, None, 3.0).unwrap(), Time::from_us(3));
        assert_eq!(micros_or(K, Some(2.0), 3.0).unwrap(), Time::from_us(2));
        assert!(micros_or(K, Some(f64::NAN), 3.0).is_err());
    }

    #[test]
    fn choice_gives_the_first_when_unset_and_refuses_an_unknown_name_listing_the_names() {
        let choices = [("adjusted", 1), ("link", 2)];
        assert_eq!(choice("t.c", "capacity", None, &choices).unwrap(), 1);
        assert_eq!(
            choice("t.c", "capacity", Some("link"), &choices).unwrap(),
            2
        );
        let e = choice("t.c", "capacity", Some("Link"), &choices).unwrap_err();
        assert_eq!(e.path, "t.c");
        assert_eq!(e.message, "unknown capacity 'Link'; valid: adjusted, link");
    }

    #[test]
    fn at_least_one_refuses_zero_only() {
        assert_eq!(at_least_one(K, None, 4u32).unwrap(), 4);
        assert_eq!(at_least_one(K, Some(u32::MAX), 4).unwrap(), u32::MAX);
        assert_eq!(at_least_one(K, Some(1usize), 4).unwrap(), 1);
        let e = at_least_one(K, Some(0u32), 4).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            (K, "must be at least 1")
        );
        assert!(at_least_one(K, None, 0usize).is_err());
    }

    #[test]
    fn int_within_is_inclusive() {
        assert_eq!(int_within(K, None, 2u32, 1, 4).unwrap(), 2);
        assert_eq!(int_within(K, Some(1u32), 2, 1, 4).unwrap(), 1);
        assert_eq!(int_within(K, Some(4u32), 2, 1, 4).unwrap(), 4);
        let e = int_within(K, Some(u32::MAX), 2, 1, 4).unwrap_err();
        assert_eq!(e.path, K);
        assert!(e.message.contains("between 1 and 4"), "{}", e.message);
        assert!(int_within(K, Some(0u32), 2, 1, 4).is_err());
    }

    #[test]
    fn number_in_refuses_non_finite_and_out_of_range() {
        assert_eq!(number_in(K, None, 0.5, 0.0, 1.0).unwrap(), 0.5);
        assert_eq!(number_in(K, Some(0.0), 0.5, 0.0, 1.0).unwrap(), 0.0);
        assert_eq!(number_in(K, Some(1.0), 0.5, 0.0, 1.0).unwrap(), 1.0);
        for bad in [
            -1e-12,
            1.0 + 1e-12,
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            1e300,
        ] {
            let e = number_in(K, Some(bad), 0.5, 0.0, 1.0).unwrap_err();
            assert_eq!(e.path, K, "{bad}");
            assert!(e.message.contains("[0, 1]"), "{}", e.message);
        }
        // Unbounded above: finiteness still holds.
        assert!(number_in(K, Some(f64::INFINITY), 0.5, 0.0, f64::INFINITY).is_err());
    }

    const D: RtoDefaults = RtoDefaults {
        min_us: 1000.0,
        initial_us: 3000.0,
        max_us: 1e6,
    };

    fn path(r: ConfigResult<RtoBounds>) -> String {
        r.unwrap_err().path
    }

    #[test]
    fn rto_defaults_are_moved_into_the_bounds_the_user_set() {
        let b = rto_bounds(None, None, None, D).unwrap();
        assert_eq!(
            (b.min, b.initial, b.max),
            (
                Time::from_us(1000),
                Time::from_us(3000),
                Time::from_ms(1000)
            )
        );
        let b = rto_bounds(Some(5000.0), None, None, D).unwrap();
        assert_eq!(b.initial, Time::from_us(5000));
        let b = rto_bounds(None, None, Some(2000.0), D).unwrap();
        assert_eq!(b.initial, Time::from_us(2000));
    }

    #[test]
    fn an_initial_rto_the_user_set_is_refused_outside_the_bounds() {
        let e = rto_bounds(None, Some(10.0), None, D).unwrap_err();
        assert_eq!(e.path, "transport.initial_rto_us");
        assert!(
            e.message.contains("min_rto_us (1000 µs, its default)"),
            "{}",
            e.message
        );
        let e = rto_bounds(Some(100.0), Some(500.0), Some(50.0), D).unwrap_err();
        assert_eq!(e.path, "transport.max_rto_us");
        assert!(e.message.contains("(100 µs)"), "{}", e.message);
        let e = rto_bounds(Some(100.0), Some(500.0), Some(450.0), D).unwrap_err();
        assert!(e.message.contains("max_rto_us (450 µs)"), "{}", e.message);
        for bad in [f64::NAN, -1.0, 0.0, 1e300] {
            assert_eq!(
                path(rto_bounds(None, Some(bad), None, D)),
                "transport.initial_rto_us"
            );
            assert_eq!(
                path(rto_bounds(Some(bad), None, None, D)),
                "transport.min_rto_us"
            );
            assert_eq!(
                path(rto_bounds(None, None, Some(bad), D)),
                "transport.max_rto_us"
            );
        }
        // The bounds are inclusive.
        let b = rto_bounds(Some(100.0), Some(100.0), Some(100.0), D).unwrap();
        assert_eq!(
            (b.min, b.initial, b.max),
            (Time::from_us(100), Time::from_us(100), Time::from_us(100))
        );
    }
}
