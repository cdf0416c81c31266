//! The base RTT a host's running flows to one destination have measured, shared by them
//! (`pdq_base_rtt = "host"`; the module doc of [`super`], "RTT_H"): the ensemble sharing of
//! RFC 2140 (and RFC 9040), among the connections open at once between two hosts.

use crate::net::packet::HostId;
use crate::units::Time;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The least data RTT the running flows from one host to another have measured, in
/// picoseconds (`u64::MAX` before the first, and again once the last of them has ended), and
/// how many flows run.
#[derive(Debug)]
pub struct PairRtt {
    least_ps: AtomicU64,
    flows: AtomicU32,
}

/// A flow's share of its pair's entry. The pair counts the flow while its share lives; when
/// the last running flow's share goes, the pair forgets its RTT, so that a later flow (maybe
/// on another path, after a failure) measures its own.
#[derive(Debug)]
pub struct PairShare(Arc<PairRtt>);

impl PairShare {
    /// Notes a flow's sample; returns the least RTT of the pair's running flows, this one
    /// included.
    pub fn note(&self, sample: Time) -> Time {
        let before = self.0.least_ps.fetch_min(sample.ps(), Ordering::Relaxed);
        Time::from_ps(before.min(sample.ps()))
    }

    /// The least RTT of the pair's running flows, if one has measured it.
    pub fn least(&self) -> Option<Time> {
        let ps = self.0.least_ps.load(Ordering::Relaxed);
        (ps != u64::MAX).then_some(Time::from_ps(ps))
    }
}

impl Drop for PairShare {
    fn drop(&mut self) {
        if self.0.flows.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.0.least_ps.store(u64::MAX, Ordering::Relaxed);
        }
    }
}

/// The entries of one run, by (source, destination).
type Pairs = HashMap<(HostId, HostId), Arc<PairRtt>>;

/// One run's table, made with the transport's parameters (a run makes its own from the
/// scenario) and shared by their copies, which every sender holds. A sender takes its share
/// of its pair's entry once, as it starts; from then on it reads and writes it without a
/// lookup. Atomic and behind a mutex only because a run's parameters must be `Send`; a run is
/// one thread.
#[derive(Clone, Default)]
pub struct HostRtts(Arc<Mutex<Pairs>>);

impl HostRtts {
    /// A new flow's share of the entry of flows from `src` to `dst`.
    pub fn join(&self, src: HostId, dst: HostId) -> PairShare {
        let mut table = self.0.lock().expect("one thread per run: never poisoned");
        let pair = table
            .entry((src, dst))
            .or_insert_with(|| {
                Arc::new(PairRtt {
                    least_ps: AtomicU64::new(u64::MAX),
                    flows: AtomicU32::new(0),
                })
            })
            .clone();
        pair.flows.fetch_add(1, Ordering::Relaxed);
        PairShare(pair)
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
    fn running_flows_of_a_pair_share_its_least_rtt_until_the_last_ends() {
        let table = HostRtts::default();
        let (first, second) = (table.join(0, 1), table.join(0, 1));
        let reverse = table.join(1, 0);
        assert_eq!(first.least(), None);
        assert_eq!(first.note(Time::from_us(30)), Time::from_us(30));
        assert_eq!(second.note(Time::from_us(50)), Time::from_us(30));
        assert_eq!(second.note(Time::from_us(20)), Time::from_us(20));
        assert_eq!(first.least(), Some(Time::from_us(20)));
        assert_eq!(reverse.least(), None);
        // A copy of the parameters shares the table.
        let third = table.clone().join(0, 1);
        assert_eq!(third.least(), Some(Time::from_us(20)));
        // The pair forgets only when its last running flow ends.
        drop((first, second));
        assert_eq!(third.least(), Some(Time::from_us(20)));
        drop(third);
        assert_eq!(table.join(0, 1).least(), None);
    }
}
