//! The retransmission timer of RFC 6298: SRTT/RTTVAR estimation, the [min, max] clamp and
//! exponential backoff. Pure arithmetic on [`Time`]; the sender owns the deadline.

use crate::units::Time;

/// Clock granularity G of RFC 6298 §2: the simulated clock ticks in picoseconds, so G is 1 ps
/// and `max(G, 4·RTTVAR)` is `4·RTTVAR` except for a perfectly constant RTT.
const CLOCK_GRANULARITY: Time = Time(1);

/// RFC 6298 estimator. Gains α = 1/8, β = 1/4 and K = 4 are fixed by the RFC (§2.3).
///
/// Integer picoseconds: `(3·RTTVAR + |err|) / 4` and `(7·SRTT + R) / 8` truncate to a whole
/// picosecond, which is far below any RTT that matters.
#[derive(Clone, Debug)]
pub(crate) struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    initial_rto: Time,
    min_rto: Time,
    max_rto: Time,
    /// Number of doublings since the last RTT sample (RFC 6298 §5.5).
    backoff: u32,
}

impl RttEstimator {
    /// `initial_rto` is used until the first sample (RFC 6298 §2.1); every RTO, initial or
    /// computed, is clamped to `[min_rto, max_rto]` (§2.4, §2.5).
    pub(crate) fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> RttEstimator {
        debug_assert!(min_rto <= max_rto);
        RttEstimator {
            srtt: None,
            rttvar: Time::ZERO,
            initial_rto,
            min_rto,
            max_rto,
            backoff: 0,
        }
    }

    /// Feeds one RTT measurement R.
    ///
    /// A fresh sample also discards the backoff: RFC 6298 §5.7 / Karn keep the backed-off RTO
    /// only until a valid sample arrives, and the RTO is then recomputed from (2.3).
    pub(crate) fn on_sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                // RFC 6298 (2.2).
                self.srtt = Some(r);
                self.rttvar = Time(r.0 / 2);
            }
            Some(srtt) => {
                // RFC 6298 (2.3): RTTVAR first, with the *old* SRTT, then SRTT.
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Time((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Time((7 * srtt.0 + r.0) / 8));
            }
        }
        self.backoff = 0;
    }

    /// Doubles the RTO (RFC 6298 §5.5); stops counting once the cap is reached so the shift
    /// can never overflow.
    pub(crate) fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// The current RTO: the clamped base value doubled once per backoff, capped at max.
    #[inline]
    pub(crate) fn rto(&self) -> Time {
        let base = match self.srtt {
            None => self.initial_rto,
            Some(srtt) => srtt + Time((4 * self.rttvar.0).max(CLOCK_GRANULARITY.0)),
        };
        let base = base.max(self.min_rto).min(self.max_rto);
        let factor = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        Time(base.0.saturating_mul(factor)).min(self.max_rto)
    }

    pub(crate) fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    #[cfg(test)]
    pub(crate) fn rttvar(&self) -> Time {
        self.rttvar
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    #[test]
    fn rto_uses_initial_value_before_any_sample() {
        let e = RttEstimator::new(us(1000), us(200), us(1_000_000));
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rto(), us(1000));
        // The initial value is clamped too.
        let e = RttEstimator::new(us(100), us(200), us(1_000_000));
        assert_eq!(e.rto(), us(200));
    }

    #[test]
    fn srtt_rttvar_follow_rfc6298_hand_computed() {
        let mut e = RttEstimator::new(us(1000), Time(1), us(1_000_000));
        // First sample R = 100 µs: SRTT = 100, RTTVAR = 50, RTO = 100 + 4·50 = 300 µs.
        e.on_sample(us(100));
        assert_eq!(e.srtt(), Some(us(100)));
        assert_eq!(e.rttvar(), us(50));
        assert_eq!(e.rto(), us(300));
        // R = 200: RTTVAR = 3/4·50 + 1/4·|100−200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5;
        // RTO = 112.5 + 250 = 362.5 µs. (Updating SRTT first would give RTTVAR = 59.375.)
        e.on_sample(us(200));
        assert_eq!(e.rttvar(), Time::from_ns(62_500));
        assert_eq!(e.srtt(), Some(Time::from_ns(112_500)));
        assert_eq!(e.rto(), Time::from_ns(362_500));
        // R = 50: err = 62.5; RTTVAR = 3/4·62.5 + 62.5/4 = 62.5; SRTT = 98.4375 + 6.25 =
        // 104.6875; RTO = 104.6875 + 250 = 354.6875 µs.
        e.on_sample(us(50));
        assert_eq!(e.rttvar(), Time::from_ns(62_500));
        assert_eq!(e.srtt(), Some(Time::from_ps(104_687_500)));
        assert_eq!(e.rto(), Time::from_ps(354_687_500));
    }

    #[test]
    fn min_rto_clamps_small_rtts() {
        let mut e = RttEstimator::new(us(1000), us(1000), us(1_000_000));
        e.on_sample(us(20)); // 20 + 4·10 = 60 µs, below the 1 ms floor
        assert_eq!(e.rto(), us(1000));
    }

    #[test]
    fn backoff_doubles_and_caps_and_a_sample_resets_it() {
        let mut e = RttEstimator::new(us(1000), us(1000), us(5000));
        let mut seen = vec![e.rto()];
        for _ in 0..5 {
            e.back_off();
            seen.push(e.rto());
        }
        assert_eq!(seen, [1000, 2000, 4000, 5000, 5000, 5000].map(us));
        // Many more backoffs never overflow.
        for _ in 0..200 {
            e.back_off();
        }
        assert_eq!(e.rto(), us(5000));
        e.on_sample(us(20));
        assert_eq!(e.rto(), us(1000));
    }
}
