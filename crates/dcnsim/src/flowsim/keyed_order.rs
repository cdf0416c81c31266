//! SRPT's and PDQ's pass: the active subflows kept in key order with their keys from one pass
//! to the next, and the greedy pass over them, which skips the subflows still paused where
//! they were.
//!
//! **The order.** A key moves only if its flow sent since the last pass: a paused flow's bits
//! left stand still, and settling them when its rate changes gives the very number its key
//! was read as (one expression for both, `FlowState::bits_left_at`). The caller marks the
//! last pass's senders stale ([`KeyedOrder::restale_last_senders`]). A pass takes the stale
//! and the new subflows out,
//! computes their keys, sorts them (they come out nearly sorted, by their last keys) and
//! merges them back: the others keep their keys and their order. PDQ's flow aging moves
//! every paused key, so with aging every key is computed at every pass. The result is always
//! the one order of today's keys, ties by subflow id.
//!
//! **The pass** is [`super::priority`]'s strict-priority greedy pass. It looks at two links
//! of a subflow before anything else, its first (its source's NIC) and the one a pass last
//! found it paused at: if either is full, the subflow is paused and takes nothing, as in the
//! full pass, and the pass goes on without walking its path or touching its state. Most
//! paused subflows wait where they waited at the last event, so most are skipped so. Only the
//! subflows it does not skip, the last pass's senders and arrivals can have a new rate; the
//! pass reports those.

use super::priority::{cmp_keyed, Greedy, Key};
use super::LinkFlows;
use std::cmp::Ordering;

/// A subflow in the order: its key, id, the first link of its path (its source's NIC;
/// [`NO_LINK`] for an empty path), and the link a pass last found it paused at (the last link,
/// the destination's NIC, until then).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    key: Key,
    subflow: u32,
    first: u32,
    block: u32,
}

/// The links of a subflow with an empty path (which the full pass gives 0).
const NO_LINK: u32 = u32::MAX;

fn less(a: &Entry, b: &Entry) -> bool {
    cmp_keyed((a.key, a.subflow), (b.key, b.subflow)) == Ordering::Less
}

/// Shifts per entry an insertion sort may make before a full sort takes over.
const INSERTION_BUDGET: usize = 8;

/// Sorts by key (ties by subflow id) a list that is nearly sorted; an insertion sort puts it
/// right in about one pass. Should the keys have moved much (more than [`INSERTION_BUDGET`]
/// shifts per entry), a full sort takes over.
fn sort_nearly_sorted(order: &mut [Entry]) {
    let mut budget = INSERTION_BUDGET * order.len();
    for i in 1..order.len() {
        let x = order[i];
        if !less(&x, &order[i - 1]) {
            continue;
        }
        let mut j = i;
        while j > 0 && less(&x, &order[j - 1]) {
            order[j] = order[j - 1];
            j -= 1;
        }
        order[j] = x;
        budget = budget.saturating_sub(i - j);
        if budget == 0 {
            order.sort_unstable_by(|a, b| cmp_keyed((a.key, a.subflow), (b.key, b.subflow)));
            return;
        }
    }
}

/// Marks `e` stale if it is current, and queues it to be keyed.
fn restale(place: &mut [Place], to_key: &mut Vec<u32>, e: u32) {
    if place[e as usize] == Place::Current {
        place[e as usize] = Place::Stale;
        to_key.push(e);
    }
}

/// Where a subflow stands in a [`KeyedOrder`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    /// Not active (not arrived yet, or ended).
    Out,
    /// In the order, with its current key.
    Current,
    /// Active, to be keyed (again) at the next pass: new, or its entry in the order is out of
    /// date.
    Stale,
}

/// The active subflows in key order, and the pass over them.
#[derive(Default)]
pub struct KeyedOrder {
    order: Vec<Entry>,
    /// Per subflow: where it stands (one byte read per entry in a pass).
    place: Vec<Place>,
    /// Subflows to key (again) at the next pass: arrivals and stale ones.
    to_key: Vec<u32>,
    /// Scratch of a pass: the keyed entries, and the new order.
    moved: Vec<Entry>,
    merged: Vec<Entry>,
    greedy: SkippingGreedy,
}

/// The greedy pass's state: its steps' residuals, and which subflows it gave a positive rate
/// and reported.
#[derive(Default)]
struct SkippingGreedy {
    steps: Greedy,
    /// The subflows given a positive rate by this pass (the last, between passes), and by
    /// the one before.
    sending: Vec<u32>,
    sent_before: Vec<u32>,
    /// Per subflow: the pass that last reported it.
    reported: Vec<u32>,
    pass: u32,
}

impl KeyedOrder {
    /// Sizes the tables for `subflows` subflows.
    pub fn new(subflows: usize) -> KeyedOrder {
        KeyedOrder {
            place: vec![Place::Out; subflows],
            greedy: SkippingGreedy {
                reported: vec![0; subflows],
                ..SkippingGreedy::default()
            },
            ..KeyedOrder::default()
        }
    }

    /// A subflow that has just arrived.
    pub fn join(&mut self, e: u32) {
        self.place[e as usize] = Place::Stale; // keyed at the next pass, queued once
        self.to_key.push(e);
    }

    /// A subflow that ended.
    pub fn leave(&mut self, e: u32) {
        self.place[e as usize] = Place::Out;
    }

    /// Subflow `e`'s key may have moved: it is keyed again at the next pass.
    pub fn restale(&mut self, e: u32) {
        restale(&mut self.place, &mut self.to_key, e);
    }

    /// Marks stale every subflow of the flows the last pass gave a positive rate: their keys
    /// have moved since. `siblings(e)`: the subflows of e's flow.
    pub fn restale_last_senders(&mut self, siblings: impl Fn(u32) -> std::ops::Range<u32>) {
        let (place, to_key) = (&mut self.place, &mut self.to_key);
        for &e in &self.greedy.sending {
            siblings(e).for_each(|s| restale(place, to_key, s));
        }
    }

    /// The pass. Keys the new and stale subflows (every subflow if `all_stale`) with `key`,
    /// merges them into the order, and gives the rates in that order, all in one walk.
    /// Writes to `out` every subflow whose rate may differ from its last one, with its rate:
    /// those the pass did not skip, and at rate 0 the last pass's senders still active and
    /// the `arrived` ones (whose first rate, 0 included, is a change).
    pub fn pass(
        &mut self,
        key: impl Fn(u32) -> Key,
        all_stale: bool,
        arrived: &[u32],
        net: &LinkFlows,
        capacity: &[f64],
        mut out: Solved,
    ) {
        if all_stale {
            for i in 0..self.order.len() {
                let e = self.order[i].subflow;
                self.restale(e);
            }
        }
        // The keyed entries, in the order they were marked (arrivals, then the senders in
        // their last passes' key order): nearly sorted.
        self.moved.clear();
        for &e in &self.to_key {
            if self.place[e as usize] != Place::Out {
                let path = net.path(e);
                self.moved.push(Entry {
                    key: key(e),
                    subflow: e,
                    first: path.first().map_or(NO_LINK, |&l| l),
                    block: path.last().map_or(NO_LINK, |&l| l),
                });
            }
        }
        self.to_key.clear();
        sort_nearly_sorted(&mut self.moved);

        self.greedy.start(capacity);
        out.flows.clear();
        out.rates.clear();
        self.merged.clear();
        let (old, new) = (&self.order, &self.moved);
        let (mut i, mut j) = (0, 0);
        loop {
            // The next entry of the new order: the smaller head of the old entries still
            // current and the keyed ones.
            while i < old.len() && self.place[old[i].subflow as usize] != Place::Current {
                i += 1;
            }
            let x = match (old.get(i), new.get(j)) {
                (Some(a), Some(b)) if less(a, b) => {
                    i += 1;
                    *a
                }
                (_, Some(b)) => {
                    j += 1;
                    *b
                }
                (Some(a), None) => {
                    i += 1;
                    *a
                }
                (None, None) => break,
            };
            self.merged.push(x);
            let x = self.merged.last_mut().expect("pushed");
            self.greedy.visit(x, net, capacity, &mut out);
        }
        for x in &self.moved {
            self.place[x.subflow as usize] = Place::Current;
        }
        std::mem::swap(&mut self.order, &mut self.merged);
        self.greedy.finish(capacity, arrived, &self.place, &mut out);
    }
}

impl SkippingGreedy {
    fn start(&mut self, capacity: &[f64]) {
        self.steps.start(capacity);
        self.pass = self.pass.wrapping_add(1);
        if self.pass == 0 {
            self.reported.fill(0);
            self.pass = 1;
        }
        std::mem::swap(&mut self.sending, &mut self.sent_before);
        self.sending.clear();
    }

    /// The greedy step of the next subflow in key order. A subflow whose first link, or the
    /// link it was last paused at, is full is paused, as the full pass would find, and
    /// skipped; one found paused elsewhere remembers where.
    #[inline]
    fn visit(&mut self, x: &mut Entry, net: &LinkFlows, capacity: &[f64], out: &mut Solved) {
        if x.first == NO_LINK || self.steps.is_full(x.first) || self.steps.is_full(x.block) {
            return;
        }
        let e = x.subflow;
        let r = match self.steps.take(net.path(e), capacity) {
            Ok(r) => {
                self.sending.push(e);
                r
            }
            Err(block) => {
                if let Some(l) = block {
                    x.block = l;
                }
                0.0
            }
        };
        out.push(e, r);
        self.reported[e as usize] = self.pass;
    }

    /// Puts the residuals back and reports, at rate 0, the last pass's senders still active
    /// and the arrivals that the pass skipped.
    fn finish(&mut self, capacity: &[f64], arrived: &[u32], place: &[Place], out: &mut Solved) {
        self.steps.put_back(capacity);
        for &e in self.sent_before.iter().chain(arrived) {
            if self.reported[e as usize] != self.pass && place[e as usize] != Place::Out {
                self.reported[e as usize] = self.pass;
                out.push(e, 0.0);
            }
        }
    }
}

/// What a pass reports: `rates[i]` of `flows[i]` (the simulation's re-solved subflows and
/// their rates, which it reads as they are).
pub struct Solved<'a> {
    pub flows: &'a mut Vec<u32>,
    pub rates: &'a mut Vec<f64>,
}

impl Solved<'_> {
    fn push(&mut self, e: u32, r: f64) {
        self.flows.push(e);
        self.rates.push(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Time;

    /// A seeded stream of random numbers.
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed;
        move || {
            state = crate::rng::mix(state);
            state
        }
    }

    /// One pass as the simulation runs SRPT's: the last pass's senders keyed again (one
    /// subflow per flow), keys by `size`.
    fn srpt_pass(
        order: &mut KeyedOrder,
        size: impl Fn(u32) -> f64,
        arrived: &[u32],
        net: &LinkFlows,
        capacity: &[f64],
        flows: &mut Vec<u32>,
        rates: &mut Vec<f64>,
    ) {
        order.restale_last_senders(|e| e..e + 1);
        let key = |e: u32| Key {
            class: Time::ZERO,
            size: size(e),
        };
        order.pass(key, false, arrived, net, capacity, Solved { flows, rates });
    }

    /// Subflows coming and going over the rounds of a test, as the simulation has them: ids
    /// are never used twice.
    struct Churn {
        active: Vec<u32>,
        ever: Vec<bool>,
    }

    impl Churn {
        fn new(n: u32) -> Churn {
            Churn {
                active: Vec::new(),
                ever: vec![false; n as usize],
            }
        }

        /// One round: each active subflow leaves with chance 1 in `leave`, then up to
        /// `arrive - 1` new ones join. Returns the arrivals.
        fn round(
            &mut self,
            next: &mut impl FnMut() -> u64,
            order: &mut KeyedOrder,
            leave: u64,
            arrive: u64,
        ) -> Vec<u32> {
            self.active.retain(|&e| {
                let stays = !next().is_multiple_of(leave);
                if !stays {
                    order.leave(e);
                }
                stays
            });
            let mut arrived = Vec::new();
            for _ in 0..next() % arrive {
                let e = (next() % self.ever.len() as u64) as u32;
                if !self.ever[e as usize] {
                    self.ever[e as usize] = true;
                    self.active.push(e);
                    arrived.push(e);
                    order.join(e);
                }
            }
            arrived
        }
    }

    /// Over random rounds of arrivals, departures and keys that move (most down, as bytes
    /// are sent, some up; the moved ones marked stale, as the caller does), the order is
    /// always the full sort of today's keys; and so it is when every key turns around at
    /// once (`all_stale`, and the full sort's turn in `sort_nearly_sorted`).
    #[test]
    fn the_order_is_the_full_sort_of_the_keys() {
        let n = 2000u32;
        let mut next = rng(7);
        let paths: Vec<[u32; 2]> = (0..n).map(|e| [e % 7, 7 + e % 5]).collect();
        let paths: Vec<&[u32]> = paths.iter().map(|p| &p[..]).collect();
        let net = LinkFlows::with_paths(&paths);
        let capacity = [1.0; 12];
        let mut keys = vec![
            Key {
                class: Time::ZERO,
                size: 0.0
            };
            n as usize
        ];
        let mut churn = Churn::new(n);
        let mut order = KeyedOrder::new(n as usize);
        let (mut flows, mut rates) = (Vec::new(), Vec::new());
        for round in 0..300 {
            let arrived = churn.round(&mut next, &mut order, 10, 8);
            for &e in &arrived {
                keys[e as usize] = Key {
                    class: Time((next() % 3) * 1000),
                    size: (next() % 1000) as f64,
                };
            }
            for &e in &churn.active {
                let moved = match next() % 8 {
                    0 | 1 => {
                        keys[e as usize].size *= 0.5;
                        true
                    }
                    2 => {
                        keys[e as usize].size += 100.0;
                        true
                    }
                    _ => false,
                };
                if moved {
                    order.restale(e);
                }
            }
            let all_stale = round % 50 == 49;
            if all_stale {
                for &e in &churn.active {
                    keys[e as usize].size = -keys[e as usize].size;
                }
            }
            let key = |e: u32| keys[e as usize];
            let out = Solved {
                flows: &mut flows,
                rates: &mut rates,
            };
            order.pass(key, all_stale, &arrived, &net, &capacity, out);
            let got: Vec<u32> = order
                .order
                .iter()
                .map(|x| {
                    assert_eq!(
                        x.key, keys[x.subflow as usize],
                        "round {round}: a stale key"
                    );
                    assert_eq!(x.first, x.subflow % 7);
                    x.subflow
                })
                .collect();
            let mut want = churn.active.clone();
            want.sort_by(|&a, &b| cmp_keyed((keys[a as usize], a), (keys[b as usize], b)));
            assert_eq!(got, want, "round {round}");
        }
    }

    /// The pass gives the full greedy pass's rates ([`Greedy::run`], which looks at every
    /// subflow) and reports every subflow whose rate changed, over random paths, capacities,
    /// arrivals, departures and keys.
    #[test]
    fn the_pass_gives_the_full_passs_rates() {
        let (n, links) = (1500u32, 24u32);
        let mut next = rng(11);
        let paths: Vec<Vec<u32>> = (0..n)
            .map(|_| {
                // A NIC of 4 (links 0..8), then up to three of the other links.
                let mut path = vec![(next() % 8) as u32];
                for _ in 0..next() % 4 {
                    let l = 8 + (next() % (links as u64 - 8)) as u32;
                    if !path.contains(&l) {
                        path.push(l);
                    }
                }
                path
            })
            .collect();
        let paths: Vec<&[u32]> = paths.iter().map(|p| &p[..]).collect();
        let net = LinkFlows::with_paths(&paths);
        let capacity: Vec<f64> = (0..links)
            .map(|l| {
                if l < 8 {
                    4.0
                } else {
                    1.0 + (next() % 8) as f64
                }
            })
            .collect();
        let mut keys = vec![0.0f64; n as usize];
        let mut rate = vec![0.0f64; n as usize];
        let mut churn = Churn::new(n);
        let mut order = KeyedOrder::new(n as usize);
        let mut greedy = Greedy::default();
        let (mut flows, mut rates, mut full) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..400 {
            let arrived = churn.round(&mut next, &mut order, 12, 6);
            for &e in &arrived {
                keys[e as usize] = (next() % 1000) as f64;
            }
            // Senders' keys fall, as their bytes go.
            for &e in &churn.active {
                if rate[e as usize] > 0.0 {
                    keys[e as usize] -= (next() % 200) as f64;
                }
            }
            let size = |e: u32| keys[e as usize];
            srpt_pass(
                &mut order, size, &arrived, &net, &capacity, &mut flows, &mut rates,
            );
            let key = |e: u32| Key {
                class: Time::ZERO,
                size: size(e),
            };
            // The full pass over every active subflow, in key order.
            let active = &mut churn.active;
            active.sort();
            let mut by_key: Vec<u32> = (0..active.len() as u32).collect();
            by_key.sort_by(|&a, &b| {
                let (a, b) = (active[a as usize], active[b as usize]);
                cmp_keyed((key(a), a), (key(b), b))
            });
            greedy.run(active, by_key.into_iter(), &net, &capacity, &mut full);
            for (i, &e) in active.iter().enumerate() {
                let reported = flows.iter().position(|&o| o == e).map(|k| rates[k]);
                let want = full[i];
                match reported {
                    Some(r) => assert_eq!(r, want, "round {round}, subflow {e}"),
                    None => {
                        assert_eq!(rate[e as usize], want, "round {round}, {e} not reported");
                        assert!(
                            !arrived.contains(&e),
                            "round {round}: arrival {e} unreported"
                        );
                    }
                }
                rate[e as usize] = want;
            }
            let mut ids = flows.clone();
            ids.sort();
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "round {round}: a subflow reported twice"
            );
        }
    }
}
