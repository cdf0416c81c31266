//! The base RTT a host has measured to each destination, shared by the host's flows
//! (`pdq_base_rtt = "host"`; the module doc of [`super`], "RTT_H"), as a host's per-destination
//! cache of path measurements does (RFC 2140, RFC 9040; Linux's `tcp_metrics`).

use crate::net::packet::HostId;
use crate::units::Time;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The least data RTT any flow from one host to another has measured, in picoseconds
/// (`u64::MAX` before the first).
#[derive(Debug)]
pub struct PairRtt(AtomicU64);

impl PairRtt {
    /// Notes a flow's sample; returns the least RTT of the pair so far, this one included.
    pub fn note(&self, sample: Time) -> Time {
        let before = self.0.fetch_min(sample.ps(), Ordering::Relaxed);
        Time::from_ps(before.min(sample.ps()))
    }

    /// The least RTT of the pair so far, if a flow has measured one.
    pub fn least(&self) -> Option<Time> {
        let ps = self.0.load(Ordering::Relaxed);
        (ps != u64::MAX).then_some(Time::from_ps(ps))
    }
}

/// The entries of one run, by (source, destination).
type Pairs = HashMap<(HostId, HostId), Arc<PairRtt>>;

/// One run's table, made with the transport's parameters (a run makes its own from the
/// scenario) and shared by their copies, which every sender holds. A sender takes its pair's
/// entry once, as it starts; from then on it reads and writes it without a lookup. Atomic and
/// behind a mutex only because a run's parameters must be `Send`; a run is one thread.
#[derive(Clone, Default)]
pub struct HostRtts(Arc<Mutex<Pairs>>);

impl HostRtts {
    /// The entry of flows from `src` to `dst`, made on the pair's first flow.
    pub fn pair(&self, src: HostId, dst: HostId) -> Arc<PairRtt> {
        let mut table = self.0.lock().expect("one thread per run: never poisoned");
        table
            .entry((src, dst))
            .or_insert_with(|| Arc::new(PairRtt(AtomicU64::new(u64::MAX))))
            .clone()
    }
}

/// Measurements, not parameters: two parameter sets are equal whatever their hosts measured.
impl PartialEq for HostRtts {
    fn eq(&self, _: &HostRtts) -> bool {
        true
    }
}

impl std::fmt::Debug for HostRtts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pairs = self.0.lock().map_or(0, |t| t.len());
        write!(f, "HostRtts({pairs} pairs)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_of_a_pair_share_its_least_rtt_and_other_pairs_do_not() {
        let table = HostRtts::default();
        let (first, second) = (table.pair(0, 1), table.pair(0, 1));
        let reverse = table.pair(1, 0);
        assert_eq!(first.least(), None);
        assert_eq!(first.note(Time::from_us(30)), Time::from_us(30));
        assert_eq!(second.note(Time::from_us(50)), Time::from_us(30));
        assert_eq!(second.note(Time::from_us(20)), Time::from_us(20));
        assert_eq!(first.least(), Some(Time::from_us(20)));
        assert_eq!(reverse.least(), None);
        // A copy of the parameters shares the table.
        assert_eq!(table.clone().pair(0, 1).least(), Some(Time::from_us(20)));
    }
}
