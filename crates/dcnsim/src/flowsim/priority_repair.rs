//! SRPT's and PDQ's strict-priority pass, repaired from what changed since the last pass
//! instead of run again over every active subflow.
//!
//! **The full pass** ([`Greedy::run`]) serves the active subflows in key order (ties by id),
//! each taking the smallest residual along its path; a link's residual at a subflow's place
//! is its capacity less the rates of the subflows served before it there, taken off one by
//! one in key order. So a subflow's rate is a function of, on each of its links, the sequence
//! of (subflow, rate) served before it; paused subflows (rate 0) take nothing and are not in
//! it. A subflow can get another rate than at the last pass only where such a sequence
//! changed:
//! 1. a subflow arrived: it is evaluated;
//! 2. a subflow with a rate ended: the subflows of its links are evaluated;
//! 3. two subflows with rates on one link changed order (their keys fall as they send, each at
//!    its own rate): the subflows of that link are evaluated;
//! 4. a paused subflow's key moved (M-PDQ: its flow's bits left are shared by its subflows,
//!    so it moves with a sending sibling; PDQ's aging: every paused key falls as it waits):
//!    it is evaluated, unless the subflows with rates before it on the link it was paused at
//!    are still the same ones;
//! 5. an evaluated subflow's rate changed: the subflows after it on its links are evaluated
//!    (if it takes more, only those with rates: a paused one finds its full link still full).
//!
//! Of a link's subflows, only those with rates and those paused *at that link* are evaluated:
//! a subflow is paused because the first link of its path that is full at its place is, and
//! what another link leaves it does not change that. Each subflow remembers where its last
//! evaluation paused it.
//!
//! Nothing else moves a sequence. A subflow that sends and overtakes a paused one changes
//! neither: the paused one took nothing, so the sender's sequences are the same, and the
//! paused one finds one more rate taken before it, so a link that was full for it still is
//! (float subtraction and the greedy's clamp to 0 are monotone). Keys never rise between
//! passes (bits left only fall, and aging only divides them more), so no sender falls
//! behind a paused subflow.
//!
//! The evaluation follows the full pass's arithmetic exactly: the pending subflows are taken
//! in key order, so every subflow before one has its final rate, and a link's residual is
//! its capacity less the rates of the subflows with rates before it, taken off in key order
//! with the greedy's clamp ([`Greedy::taken`]). The rates are therefore the full pass's, bit
//! for bit (test `repaired_pass_equals_the_full_pass`, and
//! `repaired_priority_pass_equals_the_full_pass` on whole runs).
//!
//! Keys are read when needed, now or at the last pass's time (for rules 3 and 4), from the
//! flows' state, each at most once per pass: the caller's key function must give, for the
//! last pass's time, the key that pass read.

use super::priority::{cmp_keyed, Greedy, Key};
use super::LinkFlows;
use crate::units::Time;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// A subflow's key as integers whose order is [`cmp_keyed`]'s (for the heap of pending
/// subflows): class, size by the order of `f64::total_cmp`, id.
type HeapKey = (u64, u64, u32);

/// No link (a subflow not known to be paused at one).
const NO_LINK: u32 = u32::MAX;

fn heap_key(k: Key, e: u32) -> HeapKey {
    let bits = k.size.to_bits();
    // total_cmp's order as an unsigned integer: negatives reversed below the positives.
    let size = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    (k.class.ps(), size, e)
}

/// The greedy pass's result between passes, and the scratch of a repair.
#[derive(Default)]
pub struct PriorityRepair {
    /// Per subflow: its rate at the last pass (0 if paused or not active), and whether it
    /// is active.
    rate: Vec<f64>,
    live: Vec<bool>,
    /// Per subflow: the link its last evaluation found full at its place, if it was paused
    /// ([`NO_LINK`] otherwise).
    block: Vec<u32>,
    /// The subflows to evaluate in this pass.
    pending: Pending,
    /// The keys read in this pass, at the last pass's time and now (a key is read many
    /// times: on each link where it is compared).
    memo: KeyMemo,
    /// Per link: its subflows with a rate (what a residual there is made of, a few where
    /// the link has many subflows); the links with two or more (rule 3), each listed once
    /// (`listed`), dropped lazily when they fall below.
    senders_on: Vec<Vec<u32>>,
    shared: Vec<u32>,
    listed: Vec<bool>,
    /// The subflows with a rate, listed once (for rule 4: kept only when a flow may have
    /// several subflows).
    multipath: bool,
    senders: Vec<u32>,
    is_sender_listed: Vec<bool>,
    /// Subflows with a rate that ended since the last pass (rule 2).
    ended: Vec<u32>,
    /// Scratch: a link's subflows with rates, with their keys.
    before: Vec<(Key, u32)>,
    then_now: Vec<(Key, Key, u32)>,
    /// The full pass.
    greedy: Greedy,
    order: Vec<u32>,
    keys: Vec<Key>,
    full_rates: Vec<f64>,
    /// When the last pass ran.
    last_pass: Time,
}

/// The subflows to evaluate, in key order, each queued once per pass.
#[derive(Default)]
struct Pending {
    heap: BinaryHeap<Reverse<HeapKey>>,
    /// Per subflow: the pass that last queued it.
    queued: Vec<u32>,
    pass: u32,
}

impl Pending {
    /// Starts a pass; true when the counter wrapped round (the tags were cleared).
    fn next_pass(&mut self) -> bool {
        self.pass = self.pass.wrapping_add(1);
        if self.pass == 0 {
            self.queued.fill(0);
            self.pass = 1;
            return true;
        }
        false
    }

    /// Queues `e`, if active, for evaluation in this pass (once).
    fn queue(&mut self, e: u32, key: Key, live: &[bool]) {
        if self.queued[e as usize] != self.pass && live[e as usize] {
            self.queued[e as usize] = self.pass;
            self.heap.push(Reverse(heap_key(key, e)));
        }
    }
}

/// A key not read yet.
const NO_KEY: Key = Key {
    class: Time::ZERO,
    size: 0.0,
};

/// Per subflow, the keys read in a pass (tagged by the pass).
#[derive(Default)]
struct KeyMemo {
    then: Vec<(u32, Key)>,
    now: Vec<(u32, Key)>,
}

impl KeyMemo {
    fn read(memo: &mut [(u32, Key)], e: u32, pass: u32, key: &impl Fn(u32) -> Key) -> Key {
        let slot = &mut memo[e as usize];
        if slot.0 != pass {
            *slot = (pass, key(e));
        }
        slot.1
    }

    /// Forgets every key (when the pass counter wraps round).
    fn clear(&mut self) {
        self.then.fill((0, NO_KEY));
        self.now.fill((0, NO_KEY));
    }
}

/// What a pass reports: `rates[i]` of `flows[i]`, every subflow whose rate may differ from
/// the last pass's (the simulation's re-solved subflows and their rates).
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

/// What a repair needs to know of the subflows besides the links.
pub struct Keys<K, Siblings> {
    /// A subflow's key at a time: asked for now and for the last pass's time, where it must
    /// give the key that pass read.
    pub key: K,
    pub now: Time,
    /// The subflows of a subflow's flow (asked only if the repair was made `multipath`).
    pub siblings: Siblings,
}

impl PriorityRepair {
    /// Sized for `subflows` subflows on `links` links; `multipath` if a flow may have
    /// several.
    pub fn new(subflows: usize, links: usize, multipath: bool) -> PriorityRepair {
        PriorityRepair {
            multipath,
            rate: vec![0.0; subflows],
            live: vec![false; subflows],
            block: vec![NO_LINK; subflows],
            pending: Pending {
                queued: vec![0; subflows],
                ..Pending::default()
            },
            memo: KeyMemo {
                then: vec![(0, NO_KEY); subflows],
                now: vec![(0, NO_KEY); subflows],
            },
            is_sender_listed: vec![false; subflows],
            senders_on: vec![Vec::new(); links],
            listed: vec![false; links],
            ..PriorityRepair::default()
        }
    }

    /// A subflow that has just arrived (evaluated at the next pass: the caller lists it in
    /// `arrived`).
    pub fn join(&mut self, e: u32) {
        self.live[e as usize] = true;
    }

    /// A subflow that ended: if it had a rate, its links' subflows are evaluated at the next
    /// pass.
    pub fn leave(&mut self, e: u32, net: &LinkFlows) {
        self.live[e as usize] = false;
        if self.rate[e as usize] > 0.0 {
            self.ended.push(e);
            self.set_rate(e, 0.0, net);
        }
    }

    /// Sets `e`'s rate, keeping the count of subflows with rates on its links.
    fn set_rate(&mut self, e: u32, r: f64, net: &LinkFlows) {
        let was = self.rate[e as usize] > 0.0;
        self.rate[e as usize] = r;
        if was == (r > 0.0) {
            return;
        }
        for &l in net.path(e) {
            let senders = &mut self.senders_on[l as usize];
            if was {
                let at = senders.iter().position(|&g| g == e).expect("listed");
                senders.swap_remove(at);
            } else {
                senders.push(e);
                if senders.len() >= 2 && !self.listed[l as usize] {
                    self.listed[l as usize] = true;
                    self.shared.push(l);
                }
            }
        }
        if self.multipath && !was && !self.is_sender_listed[e as usize] {
            self.is_sender_listed[e as usize] = true;
            self.senders.push(e);
        }
    }

    /// `e`'s key now, and at the last pass (`then`), each read once per pass.
    fn now<K: Fn(u32, Time) -> Key, S>(
        memo: &mut KeyMemo,
        pass: u32,
        k: &Keys<K, S>,
        e: u32,
    ) -> Key {
        KeyMemo::read(&mut memo.now, e, pass, &|e| (k.key)(e, k.now))
    }

    fn then<K: Fn(u32, Time) -> Key, S>(
        memo: &mut KeyMemo,
        pass: u32,
        k: &Keys<K, S>,
        then: Time,
        e: u32,
    ) -> Key {
        KeyMemo::read(&mut memo.then, e, pass, &|e| (k.key)(e, then))
    }

    /// Queues the subflows on link `l` that a change of its sequence can reach (after
    /// `after`, if given): those with rates, and the paused ones that were paused at `l`
    /// (a subflow paused at another link stays paused whatever `l` leaves it).
    fn queue_link<K: Fn(u32, Time) -> Key, S>(
        &mut self,
        l: u32,
        net: &LinkFlows,
        keys: &Keys<K, S>,
        after: Option<(Key, u32)>,
    ) {
        let pass = self.pending.pass;
        for &g in net.flows_on(l) {
            let b = self.block[g as usize];
            if self.rate[g as usize] <= 0.0 && b != l && b != NO_LINK {
                continue;
            }
            let key = Self::now(&mut self.memo, pass, keys, g);
            if after.is_some_and(|a| cmp_keyed((key, g), a) != Ordering::Greater) {
                continue;
            }
            self.pending.queue(g, key, &self.live);
        }
    }

    /// The pass: queues what changed (rules 1–4), evaluates in key order, queueing after each
    /// subflow whose rate changed the subflows after it on its links (rule 5), and reports the
    /// evaluated subflows with their rates. `aged`: subflows whose keys move while they are
    /// paused (every active subflow under PDQ's aging; none otherwise), for rule 4.
    pub fn pass<K, Siblings>(
        &mut self,
        keys: &Keys<K, Siblings>,
        arrived: &[u32],
        aged: &[u32],
        net: &LinkFlows,
        capacity: &[f64],
        mut out: Solved,
    ) where
        K: Fn(u32, Time) -> Key,
        Siblings: Fn(u32) -> std::ops::Range<u32>,
    {
        out.flows.clear();
        out.rates.clear();
        if self.pending.next_pass() {
            self.memo.clear();
        }
        let pass = self.pending.pass;
        for &e in arrived {
            let key = Self::now(&mut self.memo, pass, keys, e);
            self.pending.queue(e, key, &self.live);
        }
        for k in 0..self.ended.len() {
            let e = self.ended[k];
            for &l in net.path(e) {
                self.queue_link(l, net, keys, None);
            }
        }
        self.ended.clear();
        self.queue_reordered_links(keys, net);
        self.queue_moved_paused(keys, aged);
        while let Some(Reverse((_, _, e))) = self.pending.heap.pop() {
            let key = Self::now(&mut self.memo, pass, keys, e);
            let r = self.evaluate(e, key, net, capacity, keys);
            out.push(e, r);
            let old = self.rate[e as usize];
            if r != old {
                self.set_rate(e, r, net);
                // Taking more leaves the paused subflows after it paused (a full link stays
                // full): only the sending ones may change. Taking less may also start those
                // paused at a link of its path.
                for &l in net.path(e) {
                    if r > old {
                        for &g in &self.senders_on[l as usize] {
                            let kg = Self::now(&mut self.memo, pass, keys, g);
                            if cmp_keyed((kg, g), (key, e)) == Ordering::Greater {
                                self.pending.queue(g, kg, &self.live);
                            }
                        }
                    } else {
                        self.queue_link(l, net, keys, Some((key, e)));
                    }
                }
            }
        }
        self.last_pass = keys.now;
    }

    /// Rule 3: on every link with two or more subflows with rates, whether their order by
    /// the last pass's keys is still their order now; every subflow of a link where it is
    /// not is queued.
    fn queue_reordered_links<K, Siblings>(&mut self, keys: &Keys<K, Siblings>, net: &LinkFlows)
    where
        K: Fn(u32, Time) -> Key,
    {
        let (pass, last) = (self.pending.pass, self.last_pass);
        let mut i = 0;
        while i < self.shared.len() {
            let l = self.shared[i];
            if self.senders_on[l as usize].len() < 2 {
                self.listed[l as usize] = false;
                self.shared.swap_remove(i);
                continue;
            }
            i += 1;
            let mut pairs = std::mem::take(&mut self.then_now);
            pairs.clear();
            for &e in &self.senders_on[l as usize] {
                let then = Self::then(&mut self.memo, pass, keys, last, e);
                pairs.push((then, Self::now(&mut self.memo, pass, keys, e), e));
            }
            pairs.sort_unstable_by(|a, b| cmp_keyed((a.0, a.2), (b.0, b.2)));
            let kept = pairs
                .windows(2)
                .all(|w| cmp_keyed((w[0].1, w[0].2), (w[1].1, w[1].2)) == Ordering::Less);
            self.then_now = pairs;
            if !kept {
                self.queue_link(l, net, keys, None);
            }
        }
    }

    /// Rule 4: the paused subflows whose keys moved, the paused subflows of flows with a
    /// sending subflow (multipath) and those of `aged`, but those still behind the same
    /// senders on the link they were paused at.
    fn queue_moved_paused<K, Siblings>(&mut self, keys: &Keys<K, Siblings>, aged: &[u32])
    where
        K: Fn(u32, Time) -> Key,
        Siblings: Fn(u32) -> std::ops::Range<u32>,
    {
        let mut i = 0;
        while self.multipath && i < self.senders.len() {
            let e = self.senders[i];
            if self.rate[e as usize] <= 0.0 {
                self.is_sender_listed[e as usize] = false;
                self.senders.swap_remove(i);
                continue;
            }
            i += 1;
            for s in (keys.siblings)(e) {
                self.queue_if_moved_past(s, keys);
            }
        }
        for &y in aged {
            self.queue_if_moved_past(y, keys);
        }
    }

    /// Queues `y` if it is active, paused, and no longer behind the same senders at the link
    /// it was paused at.
    fn queue_if_moved_past<K: Fn(u32, Time) -> Key, S>(&mut self, y: u32, keys: &Keys<K, S>) {
        if self.live[y as usize] && self.rate[y as usize] <= 0.0 && !self.still_blocked(y, keys) {
            let key = Self::now(&mut self.memo, self.pending.pass, keys, y);
            self.pending.queue(y, key, &self.live);
        }
    }

    /// Whether paused subflow `y`, whose key moved, is still paused at the link it was
    /// paused at: the subflows with rates there that were before it still are, and no other.
    /// (Their rates are the last pass's, which left that link full at `y`'s place.)
    fn still_blocked<K, Siblings>(&mut self, y: u32, keys: &Keys<K, Siblings>) -> bool
    where
        K: Fn(u32, Time) -> Key,
    {
        let b = self.block[y as usize];
        if b == NO_LINK {
            return false;
        }
        let (pass, last, memo) = (self.pending.pass, self.last_pass, &mut self.memo);
        let (then_y, now_y) = (
            Self::then(memo, pass, keys, last, y),
            Self::now(memo, pass, keys, y),
        );
        self.senders_on[b as usize].iter().all(|&g| {
            let then_g = Self::then(memo, pass, keys, last, g);
            let now_g = Self::now(memo, pass, keys, g);
            let was_before = cmp_keyed((then_g, g), (then_y, y)) == Ordering::Less;
            let is_before = cmp_keyed((now_g, g), (now_y, y)) == Ordering::Less;
            was_before == is_before
        })
    }

    /// `e`'s rate: the smallest residual along its path at its place (0 if a link there is
    /// full), as the full pass computes it.
    fn evaluate<K: Fn(u32, Time) -> Key, Siblings>(
        &mut self,
        e: u32,
        key: Key,
        net: &LinkFlows,
        capacity: &[f64],
        keys: &Keys<K, Siblings>,
    ) -> f64 {
        let pass = self.pending.pass;
        let mut r = f64::INFINITY;
        for &l in net.path(e) {
            let mut before = std::mem::take(&mut self.before);
            before.clear();
            for &g in &self.senders_on[l as usize] {
                let kg = Self::now(&mut self.memo, pass, keys, g);
                if g != e && cmp_keyed((kg, g), (key, e)) == Ordering::Less {
                    before.push((kg, g));
                }
            }
            if before.len() > 1 {
                before.sort_unstable_by(|a, b| cmp_keyed(*a, *b));
            }
            let c = capacity[l as usize];
            let mut residual = c;
            for &(_, g) in &before {
                residual = Greedy::taken(residual, self.rate[g as usize], c);
            }
            self.before = before;
            r = r.min(residual);
            if r <= 0.0 {
                self.block[e as usize] = l;
                return 0.0;
            }
        }
        self.block[e as usize] = NO_LINK;
        if r.is_finite() {
            r
        } else {
            0.0
        }
    }

    /// The full pass over `active` (every active subflow) in key order, to test the repair
    /// against: reports every active subflow.
    pub fn full_pass<K: Fn(u32, Time) -> Key, S>(
        &mut self,
        active: &[u32],
        keys: &Keys<K, S>,
        net: &LinkFlows,
        capacity: &[f64],
        mut out: Solved,
    ) {
        self.ended.clear();
        self.keys.clear();
        self.keys
            .extend(active.iter().map(|&e| (keys.key)(e, keys.now)));
        self.order.clear();
        self.order.extend(0..active.len() as u32);
        let (key_of, order) = (&self.keys, &mut self.order);
        order.sort_unstable_by(|&a, &b| {
            cmp_keyed(
                (key_of[a as usize], active[a as usize]),
                (key_of[b as usize], active[b as usize]),
            )
        });
        let mut rates = std::mem::take(&mut self.full_rates);
        self.greedy.run(
            active,
            self.order.iter().copied(),
            net,
            capacity,
            &mut rates,
        );
        out.flows.clear();
        out.rates.clear();
        for (i, &e) in active.iter().enumerate() {
            self.block[e as usize] = NO_LINK;
            self.set_rate(e, rates[i], net);
            out.push(e, rates[i]);
        }
        self.full_rates = rates;
        self.last_pass = keys.now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded stream of random numbers.
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed;
        move || {
            state = crate::rng::mix(state);
            state
        }
    }

    fn key(size: f64) -> Key {
        Key {
            class: Time::ZERO,
            size,
        }
    }

    /// A small network for cases by hand: every subflow active from the first pass.
    struct Case {
        net: LinkFlows,
        capacity: Vec<f64>,
        /// Per subflow, its flow (M-PDQ), if several share one.
        flow_of: Option<Vec<u32>>,
        repair: PriorityRepair,
        /// Per subflow, its rate as the passes reported it.
        rates: Vec<f64>,
        passes: u64,
    }

    impl Case {
        fn new(paths: &[&[u32]], capacity: &[f64], flow_of: Option<Vec<u32>>) -> Case {
            let mut net = LinkFlows::with_paths(paths);
            let multipath = flow_of.is_some();
            let mut repair = PriorityRepair::new(paths.len(), capacity.len(), multipath);
            for e in 0..paths.len() as u32 {
                net.insert(e);
                repair.join(e);
            }
            Case {
                net,
                capacity: capacity.to_vec(),
                flow_of,
                repair,
                rates: vec![f64::NAN; paths.len()],
                passes: 0,
            }
        }

        /// One pass with the keys at the last pass and now (sizes); the first one takes every
        /// subflow as arrived. Returns the rates.
        fn pass(&mut self, then: &[f64], now: &[f64]) -> Vec<f64> {
            let flow_of = self.flow_of.as_deref().unwrap_or_default();
            let siblings = |e: u32| {
                let mine = |g: &u32| *g == flow_of[e as usize];
                let first = flow_of.iter().position(mine).expect("its own") as u32;
                first..first + flow_of.iter().filter(|g| mine(g)).count() as u32
            };
            // The passes run at times 1, 2, …: a key is asked for now or the last pass's time.
            let t = Time(self.passes + 1);
            self.passes += 1;
            let keys = Keys {
                key: |e: u32, at: Time| {
                    assert!(at == t || at.0 + 1 == t.0, "a key at {at:?}");
                    key(if at == t { now } else { then }[e as usize])
                },
                now: t,
                siblings,
            };
            let arrived: Vec<u32> = if self.rates[0].is_nan() {
                (0..self.rates.len() as u32).collect()
            } else {
                Vec::new()
            };
            let (mut flows, mut out) = (Vec::new(), Vec::new());
            let solved = Solved {
                flows: &mut flows,
                rates: &mut out,
            };
            let (net, capacity) = (&self.net, &self.capacity);
            self.repair
                .pass(&keys, &arrived, &[], net, capacity, solved);
            for (&e, &r) in flows.iter().zip(&out) {
                self.rates[e as usize] = r;
            }
            self.rates.clone()
        }
    }

    /// Rule 3 by hand. A and B share link 0 (capacity 3); A also crosses link 1 (capacity 1).
    /// A first takes 1 and B the 2 left. Once B's key falls below A's (B sends faster), B
    /// takes all of link 0 and A nothing: no subflow came or went, the order alone changed.
    #[test]
    fn senders_that_change_order_on_a_link_are_evaluated() {
        let mut case = Case::new(&[&[0, 1], &[0]], &[3.0, 1.0], None);
        let then = [5.0, 10.0];
        assert_eq!(case.pass(&then, &then), [1.0, 2.0]);
        assert_eq!(case.pass(&then, &[4.5, 4.0]), [0.0, 3.0]);
    }

    /// Rule 4 by hand (M-PDQ). Flow F has subflow 0 on link 0 and subflow 1 on link 1; flow
    /// G (subflow 2) holds link 1 with a smaller key, so subflow 1 waits. As F sends on
    /// subflow 0 its key (shared by subflow 1) falls below G's: subflow 1 takes link 1.
    #[test]
    fn a_paused_sibling_whose_key_passes_a_sender_is_evaluated() {
        let mut case = Case::new(&[&[0], &[1], &[1]], &[1.0, 1.0], Some(vec![0, 0, 1]));
        let then = [5.0, 5.0, 4.0];
        assert_eq!(case.pass(&then, &then), [1.0, 0.0, 1.0]);
        assert_eq!(case.pass(&then, &[3.0, 3.0, 3.5]), [1.0, 1.0, 0.0]);
    }

    /// Over random rounds of arrivals, departures and falling keys (the senders' fall, each at
    /// its own pace; M-PDQ's subflows share their flow's), the repaired pass gives, bit for
    /// bit, the full pass's rates over every active subflow in key order ([`Greedy::run`]),
    /// and reports every subflow whose rate changed and every arrival.
    #[test]
    fn repaired_pass_equals_the_full_pass() {
        // (seed, subflows per flow, whether paused keys fall too, as under PDQ's aging)
        for (seed, per_flow, aging) in [
            (11u64, 1u32, false),
            (12, 1, false),
            (13, 3, false),
            (14, 1, true),
            (15, 3, true),
        ] {
            let flows = 500u32;
            let n = flows * per_flow;
            let mut next = rng(seed);
            // A source NIC (links 0..8), a destination NIC (8..16), and per subflow up to
            // two fabric links (16..28); the subflows of a flow share its NICs.
            let mut paths = Vec::new();
            let mut flow_of = Vec::new();
            for f in 0..flows {
                let (src, dst) = ((next() % 8) as u32, 8 + (next() % 8) as u32);
                for _ in 0..per_flow {
                    let mut path = vec![src];
                    for _ in 0..next() % 3 {
                        let l = 16 + (next() % 12) as u32;
                        if !path.contains(&l) {
                            path.push(l);
                        }
                    }
                    path.push(dst);
                    paths.push(path);
                    flow_of.push(f);
                }
            }
            let paths: Vec<&[u32]> = paths.iter().map(|p| &p[..]).collect();
            let mut net = LinkFlows::with_paths(&paths);
            let capacity: Vec<f64> = (0..28)
                .map(|l| {
                    if l < 16 {
                        4.0
                    } else {
                        1.0 + (next() % 8) as f64
                    }
                })
                .collect();
            let mut flow_key = vec![0.0f64; flows as usize];
            let subflow_keys =
                |fk: &[f64]| -> Vec<Key> { flow_of.iter().map(|&f| key(fk[f as usize])).collect() };
            let mut repair = PriorityRepair::new(n as usize, 28, per_flow > 1);
            let mut rates = vec![0.0f64; n as usize];
            let (mut active, mut started) = (Vec::<u32>::new(), 0u32);
            let mut greedy = Greedy::default();
            let mut full = Vec::new();
            let (mut changes, mut reorders) = (0, 0);
            for round in 0..400 {
                let then = subflow_keys(&flow_key);
                // The senders' flows fall, by what they sent (ties on purpose: few sizes).
                let mut sent = vec![0.0f64; flows as usize];
                for &e in &active {
                    sent[flow_of[e as usize] as usize] += rates[e as usize];
                }
                for f in 0..flows as usize {
                    if sent[f] > 0.0 {
                        flow_key[f] = (flow_key[f] - sent[f] * (next() % 4) as f64).max(0.0);
                    } else if aging {
                        flow_key[f] *= 1.0 - (next() % 3) as f64 * 0.05;
                    }
                }
                // Departures: whole flows, with chance 1 in 8.
                let mut gone = vec![false; flows as usize];
                for &e in &active {
                    if next().is_multiple_of(8) {
                        gone[flow_of[e as usize] as usize] = true;
                    }
                }
                active.retain(|&e| {
                    let stays = !gone[flow_of[e as usize] as usize];
                    if !stays {
                        net.remove(e);
                        repair.leave(e, &net);
                    }
                    stays
                });
                // Arrivals: up to 4 flows, in id order.
                let mut arrived = Vec::new();
                for _ in 0..next() % 5 {
                    if started < flows {
                        flow_key[started as usize] = (next() % 40) as f64;
                        for e in started * per_flow..(started + 1) * per_flow {
                            net.insert(e);
                            repair.join(e);
                            active.push(e);
                            arrived.push(e);
                        }
                        started += 1;
                    }
                }
                let now = subflow_keys(&flow_key);
                let before = rates.clone();
                let (mut got_flows, mut got_rates) = (Vec::new(), Vec::new());
                {
                    let siblings = |e: u32| {
                        let f = flow_of[e as usize];
                        f * per_flow..(f + 1) * per_flow
                    };
                    // Round r's pass runs at time r + 1; its last pass, at r.
                    let t = Time(round + 1);
                    let keys = Keys {
                        key: |e: u32, at: Time| {
                            assert!(at == t || at.0 + 1 == t.0, "a key at {at:?}");
                            let keys = if at == t { &now } else { &then };
                            keys[e as usize]
                        },
                        now: t,
                        siblings,
                    };
                    let solved = Solved {
                        flows: &mut got_flows,
                        rates: &mut got_rates,
                    };
                    let aged: &[u32] = if aging { &active } else { &[] };
                    repair.pass(&keys, &arrived, aged, &net, &capacity, solved);
                }
                for (&e, &r) in got_flows.iter().zip(&got_rates) {
                    rates[e as usize] = r;
                }
                // The full pass over every active subflow, in key order.
                active.sort();
                let mut by_key: Vec<u32> = (0..active.len() as u32).collect();
                by_key.sort_by(|&a, &b| {
                    let (a, b) = (active[a as usize], active[b as usize]);
                    cmp_keyed((now[a as usize], a), (now[b as usize], b))
                });
                let mut then_order = by_key.clone();
                then_order.sort_by(|&a, &b| {
                    let (a, b) = (active[a as usize], active[b as usize]);
                    cmp_keyed((then[a as usize], a), (then[b as usize], b))
                });
                reorders += usize::from(then_order != by_key);
                greedy.run(&active, by_key.into_iter(), &net, &capacity, &mut full);
                for (i, &e) in active.iter().enumerate() {
                    assert_eq!(
                        rates[e as usize].to_bits(),
                        full[i].to_bits(),
                        "seed {seed}, round {round}, subflow {e}: {} against {}",
                        rates[e as usize],
                        full[i]
                    );
                    if before[e as usize] != full[i] {
                        changes += 1;
                        assert!(got_flows.contains(&e), "round {round}: {e} unreported");
                    }
                }
                for e in &arrived {
                    assert!(
                        got_flows.contains(e),
                        "round {round}: arrival {e} unreported"
                    );
                }
            }
            eprintln!("seed {seed}: {changes} changes, {reorders} reorders");
            assert!(
                changes > 300 && reorders > 100,
                "{changes} changes, {reorders} reorders"
            );
        }
    }
}
