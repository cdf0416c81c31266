//! MERP's scheduling arithmetic on one link's flow table, as pure functions: the virtual
//! deadline generator (Algorithm 2) and the two path metrics of route control, GPE
//! (Algorithm 5) and GMER (Algorithm 6).
//!
//! All three rest on eq. (5): on a link of capacity C, at time cT, a flow f scheduled after the
//! set B of flows finishes with expansion ratio
//! `((cT − f.aT)·C + Σ_{B ∪ {f}} rs) / f.size` — the bytes still to cross the link before f is
//! done, plus what the link could have carried since f arrived, over f's size. It grows with
//! the completion time, so the order that minimises the *largest* ratio is built from the back
//! (Lawler's rule for 1||f_max): the flow whose ratio is smallest when it finishes last goes
//! last, then the same on the others. Algorithm 2 is exactly that, O(n²); the tests check it
//! against every order of random small tables.
//!
//! Units: sizes and remaining sizes in wire bytes, C in bytes/s, times as [`Time`]; ratios
//! and rates in f64.

use crate::net::packet::{FlowId, HostId};
use crate::units::Time;

/// A flow in a link's flow state table T (§4.3.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowEntry {
    pub flow: FlowId,
    /// Destination host (GMER compares it).
    pub dst: HostId,
    /// Flow size and the part of it still to cross this link, in wire bytes.
    pub size: u64,
    pub rs: u64,
    /// The flow's arrival time aT: when its sender sent the SYN, the same on every link
    /// ([`super`], "One arrival time per flow").
    pub arrival: Time,
    /// Virtual deadline (vdl) and expected sending rate (esr, bytes/s) at this link.
    pub vdl: Time,
    pub esr: f64,
    /// When the flow last sent a packet across the link (soft state, [`super::switch`]).
    pub last_seen: Time,
    /// Since when the flow's packets have left this link with its full grant (α·C) while no
    /// link before this one held it; `Time::MAX` otherwise. With the latest DET's and DATA
    /// packet's arrival here, and whether that DET came with a detecting rate from the links
    /// before, it tells the work-conserving hand-over that the flow is held on another link
    /// ([`super::switch`]).
    pub granted_at: Time,
    pub last_det: Time,
    pub last_data: Time,
    pub held_upstream: bool,
}

impl FlowEntry {
    /// A flow new to a link: nothing of it has crossed, no vdl or esr yet.
    pub fn new(flow: FlowId, dst: HostId, size: u64, arrival: Time, now: Time) -> FlowEntry {
        FlowEntry {
            flow,
            dst,
            size,
            rs: size,
            arrival,
            vdl: Time::ZERO,
            esr: f64::INFINITY,
            last_seen: now,
            granted_at: Time::MAX,
            last_det: Time::ZERO,
            last_data: Time::ZERO,
            held_upstream: false,
        }
    }

    /// Eq. (5): the expansion ratio of this flow if it finishes once `bytes` more (its own
    /// remainder included) have crossed the link from `now`.
    fn ratio(&self, now: Time, c: f64, bytes: u64) -> f64 {
        let waited = now.saturating_sub(self.arrival).as_secs_f64();
        (waited * c + bytes as f64) / self.size.max(1) as f64
    }

    /// Line 11 of Algorithm 1: vdl = aT + size / esr.
    pub fn deadline_from_esr(&self) -> Time {
        self.arrival + secs(self.size as f64 / self.esr)
    }
}

/// Seconds as [`Time`], saturating (an infinite rate gives zero, a zero rate the far future).
fn secs(s: f64) -> Time {
    if s.is_nan() || s >= Time::MAX.as_secs_f64() {
        Time::MAX
    } else {
        Time::from_secs_f64(s)
    }
}

/// Algorithm 2 (VDG), after the new flow is in `table`: orders the flows from the back, each
/// time taking last the flow whose ratio is smallest when it finishes last (ties: the higher
/// flow id goes last, so equal flows are served in id order), and gives each its virtual deadline `cT + (bytes up to and including
/// it) / C` and expected sending rate `size / (vdl − aT)`. `table` is reordered (by the
/// schedule, first flow first); `c` is the link's capacity in bytes/s.
pub fn vdg(table: &mut [FlowEntry], now: Time, c: f64) {
    let mut rest: u64 = table.iter().map(|f| f.rs).sum();
    // The unscheduled flows are table[..end]; each round moves the chosen one to end − 1.
    for end in (1..=table.len()).rev() {
        let mut last = 0;
        let mut best = (f64::INFINITY, 0);
        for (i, f) in table[..end].iter().enumerate() {
            let key = (f.ratio(now, c, rest), f.flow);
            if key.0 < best.0 || (key.0 == best.0 && key.1 > best.1) {
                best = key;
                last = i;
            }
        }
        table.swap(last, end - 1);
        let f = &mut table[end - 1];
        f.vdl = now + secs(rest as f64 / c);
        let span = f.vdl.saturating_sub(f.arrival).as_secs_f64();
        f.esr = if span > 0.0 {
            f.size as f64 / span
        } else {
            f64::INFINITY
        };
        rest -= f.rs;
    }
}

/// The largest expansion ratio of `table` under the order VDG gives, for tests and reports.
pub fn max_ratio_in_order(order: &[FlowEntry], now: Time, c: f64) -> f64 {
    let mut done = 0;
    order.iter().fold(0.0, |worst, f| {
        done += f.rs;
        f64::max(worst, f.ratio(now, c, done))
    })
}

/// Algorithm 5 (GPE): the expansion ratio a new flow of `size` bytes arriving now would get on
/// a link whose table is `table`, in VDG's order of the table plus the new flow (ties: the new
/// flow goes last). `scratch` is reused between calls.
pub fn gpe(table: &[FlowEntry], size: u64, now: Time, c: f64, scratch: &mut Vec<FlowEntry>) -> f64 {
    scratch.clear();
    scratch.extend_from_slice(table);
    let mut rest: u64 = scratch.iter().map(|f| f.rs).sum::<u64>() + size;
    loop {
        // Line 3: the new flow last, unless some flow is strictly better there.
        let mine = (rest as f64) / size.max(1) as f64;
        let mut best = (mine, None);
        for (i, f) in scratch.iter().enumerate() {
            let r = f.ratio(now, c, rest);
            if r < best.0 {
                best = (r, Some(i));
            }
        }
        match best.1 {
            None => return mine,
            Some(i) => {
                rest -= scratch[i].rs;
                scratch.swap_remove(i);
            }
        }
    }
}

/// Algorithm 6 (GMER): the rate the tail flow of this link could expect if a new flow of
/// `size` bytes to `dst` joined it — C over the smallest last-place ratio of the table plus the
/// new flow — lowered to the esr of any flow in the table to the same destination that is at
/// least as large (what the links beyond already grant such flows). Bytes/s.
pub fn gmer(table: &[FlowEntry], size: u64, dst: HostId, now: Time, c: f64) -> f64 {
    let rest: u64 = table.iter().map(|f| f.rs).sum::<u64>() + size;
    let mine = rest as f64 / size.max(1) as f64;
    let smallest = table
        .iter()
        .map(|f| f.ratio(now, c, rest))
        .fold(mine, f64::min);
    let tail = c / smallest;
    table
        .iter()
        .filter(|f| f.dst == dst && size <= f.size)
        .map(|f| f.esr)
        .fold(tail, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamRng as StdRng;
    use rand::RngExt;
    use rand_chacha::rand_core::SeedableRng;

    fn entry(flow: u32, arrival_s: f64, size: u64, rs: u64) -> FlowEntry {
        FlowEntry {
            rs,
            ..FlowEntry::new(flow, 0, size, Time::from_secs_f64(arrival_s), Time::ZERO)
        }
    }

    /// The paper's motivating example (Table 1, Fig. 1c) on a link of 1 byte/s. At t = 0 A
    /// (size 3) and C (size 4) arrive: A goes first. At t = 3 A is done and B (size 3) arrives
    /// while C still has its 4 bytes: VDG schedules C before B, ratios 7/4 for C and 7/3 for B.
    #[test]
    fn motivating_example_puts_c_before_b() {
        let mut t = vec![entry(2, 0.0, 4, 4), entry(1, 3.0, 3, 3)];
        vdg(&mut t, Time::from_secs_f64(3.0), 1.0);
        assert_eq!(t.iter().map(|f| f.flow).collect::<Vec<_>>(), vec![2, 1]);
        assert_eq!(t[0].vdl, Time::from_secs_f64(7.0));
        assert_eq!(t[1].vdl, Time::from_secs_f64(10.0));
        assert!((max_ratio_in_order(&t, Time::from_secs_f64(3.0), 1.0) - 7.0 / 3.0).abs() < 1e-12);
        // esr = size / (vdl − aT): C 4/7, B 3/7 bytes/s.
        assert!((t[0].esr - 4.0 / 7.0).abs() < 1e-12 && (t[1].esr - 3.0 / 7.0).abs() < 1e-12);
        // At time 0, with A (size 3) and C (size 4) both new, SRPT order is also min-max: A first.
        let mut t = vec![entry(0, 0.0, 3, 3), entry(2, 0.0, 4, 4)];
        vdg(&mut t, Time::ZERO, 1.0);
        assert_eq!(t[0].flow, 0);
    }

    fn permutations(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in permutations(n - 1) {
            for i in 0..=p.len() {
                let mut q = p.clone();
                q.insert(i, n - 1);
                out.push(q);
            }
        }
        out
    }

    fn random_table(rng: &mut StdRng, n: usize, now_s: f64) -> Vec<FlowEntry> {
        (0..n)
            .map(|i| {
                let size = rng.random_range(1_000..3_000_000u64);
                let rs = rng.random_range(0..=size);
                entry(i as u32, rng.random_range(0.0..now_s), size, rs)
            })
            .collect()
    }

    /// VDG's order is optimal: no order of the table has a smaller largest ratio.
    #[test]
    fn vdg_is_optimal_against_every_order() {
        let mut rng = StdRng::seed_from_u64(7);
        let c = 125_000_000.0; // 1 Gb/s
        for case in 0..400 {
            let n = 1 + case % 7;
            let now = Time::from_secs_f64(0.05);
            let table = random_table(&mut rng, n, 0.05);
            let mut scheduled = table.clone();
            vdg(&mut scheduled, now, c);
            let ours = max_ratio_in_order(&scheduled, now, c);
            let best = permutations(n)
                .iter()
                .map(|p| {
                    let order: Vec<FlowEntry> = p.iter().map(|&i| table[i]).collect();
                    max_ratio_in_order(&order, now, c)
                })
                .fold(f64::INFINITY, f64::min);
            assert!(
                ours <= best * (1.0 + 1e-12),
                "case {case}: VDG {ours} vs best {best}"
            );
            // Deadlines follow the order; each esr gives back its deadline.
            for w in scheduled.windows(2) {
                assert!(w[0].vdl <= w[1].vdl);
            }
            for f in &scheduled {
                let back = f.deadline_from_esr();
                assert!(back.ps().abs_diff(f.vdl.ps()) <= 2, "{back} vs {}", f.vdl);
            }
        }
    }

    /// GPE is the new flow's ratio in VDG's schedule of the table plus the flow.
    #[test]
    fn gpe_agrees_with_vdg_on_the_extended_table() {
        let mut rng = StdRng::seed_from_u64(11);
        let c = 125_000_000.0;
        let now = Time::from_secs_f64(0.02);
        let mut scratch = Vec::new();
        for case in 0..300 {
            let table = random_table(&mut rng, case % 6, 0.02);
            let size = rng.random_range(1_000..3_000_000u64);
            let g = gpe(&table, size, now, c, &mut scratch);
            let mut all = table.clone();
            all.push(FlowEntry {
                arrival: now,
                ..entry(999, 0.0, size, size)
            });
            vdg(&mut all, now, c);
            let mut done = 0;
            let mine = all
                .iter()
                .find_map(|f| {
                    done += f.rs;
                    (f.flow == 999).then(|| done as f64 / size as f64)
                })
                .unwrap();
            assert!(
                (g - mine).abs() <= 1e-9 * mine,
                "case {case}: GPE {g} vs VDG {mine}"
            );
        }
        // An empty link: the flow alone, ratio 1.
        assert_eq!(gpe(&[], 5_000, now, c, &mut scratch), 1.0);
    }

    /// GMER: the tail rate, lowered by a same-destination flow at least as large.
    #[test]
    fn gmer_by_hand() {
        let c = 100.0;
        let now = Time::from_secs_f64(1.0);
        // Empty link: the new flow is the tail, ratio 1, rate C.
        assert_eq!(gmer(&[], 50, 3, now, c), 100.0);
        // One flow of 100 B with 100 B left that arrived at 0: last-place ratios are
        // new: (100 + 50)/50 = 3, old: (1·100 + 150)/100 = 2.5 → tail rate 100 / 2.5 = 40.
        let mut old = entry(1, 0.0, 100, 100);
        old.dst = 4;
        old.esr = 25.0;
        assert!((gmer(&[old], 50, 3, now, c) - 40.0).abs() < 1e-12);
        // Same destination and at least as large: its esr (25) bounds the new flow's rate.
        assert!((gmer(&[old], 50, 4, now, c) - 25.0).abs() < 1e-12);
        // A larger new flow is not bounded by a smaller one's esr.
        assert!((gmer(&[old], 200, 4, now, c) - c / 1.5).abs() < 1e-9);
    }
}
