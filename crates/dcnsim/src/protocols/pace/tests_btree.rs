//! The Max-Min B-tree against plain references: its order and sums against a sorted vector
//! under random inserts and removes, and its allocation against a brute-force progressive
//! filling in exact rational arithmetic, on thousands of random demand/weight sets.

use super::btree::{Entry, MaxMinTree, FANOUT};
use rand::RngExt;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::cmp::Ordering;

/// Weighted max-min by progressive filling (Bertsekas & Gallager): every round gives the
/// unsatisfied flows the capacity left per weight; flows whose demand is within it take their
/// demand and leave; stop when a round satisfies nobody. O(n²), no sorting, no tree. Returns
/// each flow's allocation as (numerator, denominator).
fn progressive_filling(c0: u64, flows: &[(u64, u64)]) -> Vec<(u128, u128)> {
    let mut alloc: Vec<Option<(u128, u128)>> = vec![None; flows.len()];
    let mut left = c0 as u128; // satisfied flows take exactly their demand: stays an integer
    loop {
        let w_unsat: u128 = flows
            .iter()
            .zip(&alloc)
            .filter(|(_, a)| a.is_none())
            .map(|(f, _)| f.1 as u128)
            .sum();
        if w_unsat == 0 {
            break;
        }
        // share per weight = left / w_unsat; flow satisfied iff d / w ≤ left / w_unsat
        let newly: Vec<usize> = (0..flows.len())
            .filter(|&i| {
                alloc[i].is_none() && flows[i].0 as u128 * w_unsat <= left * flows[i].1 as u128
            })
            .collect();
        if newly.is_empty() {
            for (i, f) in flows.iter().enumerate() {
                if alloc[i].is_none() {
                    alloc[i] = Some((f.1 as u128 * left, w_unsat));
                }
            }
            break;
        }
        for i in newly {
            alloc[i] = Some((flows[i].0 as u128, 1));
            left -= flows[i].0 as u128;
        }
    }
    alloc
        .into_iter()
        .map(|a| a.expect("every flow allocated"))
        .collect()
}

fn same(a: (u128, u128), b: (u128, u128)) -> bool {
    a.0 * b.1 == b.0 * a.1
}

fn tree_of(flows: &[(u64, u64)]) -> MaxMinTree {
    let mut t = MaxMinTree::new();
    for (i, &(d, w)) in flows.iter().enumerate() {
        t.insert(Entry {
            demand: d,
            weight: w,
            id: i as u32,
        });
    }
    t
}

/// A random flow set: a mix of small, fair-sized and huge demands, weights 1/256..16 in 16.16
/// fixed point, sometimes equal demands or weights (ties).
fn random_flows(rng: &mut ChaCha8Rng, c0: u64) -> Vec<(u64, u64)> {
    let n = match rng.random_range(0..10) {
        0 => rng.random_range(1..4),
        1..=6 => rng.random_range(1..40),
        _ => rng.random_range(40..400),
    };
    let tie_w = rng.random_range(1..=65_536u64 * 4);
    (0..n)
        .map(|_| {
            let d = match rng.random_range(0..5) {
                0 => rng.random_range(0..c0 / 1000),
                1 => c0 / n as u64,
                2 => c0,
                _ => rng.random_range(0..=c0),
            };
            let w = if rng.random_bool(0.3) {
                tie_w
            } else {
                rng.random_range(256..=65_536u64 * 16)
            };
            (d, w)
        })
        .collect()
}

#[test]
fn allocation_equals_progressive_filling_on_random_sets() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut levels = Vec::new();
    let mut multi_level = 0;
    for case in 0..3000 {
        let c0 = if case % 3 == 0 {
            1 << 32
        } else {
            rng.random_range(1..=1u64 << 32)
        };
        let flows = random_flows(&mut rng, c0);
        let tree = tree_of(&flows);
        let alloc = tree.allocate(c0, &mut levels);
        multi_level += (alloc.levels > 2) as u32;
        let want = progressive_filling(c0, &flows);
        for (i, &(d, w)) in flows.iter().enumerate() {
            let got = alloc.of(d, w);
            assert!(
                same(got, want[i]),
                "case {case}, flow {i} (d {d}, w {w}): tree {got:?}, filling {:?}",
                want[i]
            );
        }
        // r: the capacity no flow wants, only when every flow is satisfied.
        let demand: u64 = flows.iter().map(|f| f.0).sum();
        let all_satisfied = flows.iter().all(|&(d, w)| alloc.of(d, w) == (d as u128, 1));
        let r = if all_satisfied {
            c0.saturating_sub(demand)
        } else {
            0
        };
        assert_eq!(alloc.remainder, r, "case {case}");
        // Level pointers move right (the last one may stay: it satisfied nobody new) and
        // their allocation per weight grows (eq. 3).
        let n = levels.len();
        assert!(levels.windows(2).enumerate().all(|(j, l)| (l[0].k < l[1].k
            || (j + 2 == n && l[0].k == l[1].k))
            && l[0].aw_num as u128 * l[1].aw_den as u128
                <= l[1].aw_num as u128 * l[0].aw_den as u128));
    }
    assert!(
        multi_level > 100,
        "too few cases needed more than two levels"
    );
}

/// Fig. 3's example shape: one light flow with a large weight leaves its share to the rest,
/// which split it by weight (1, 1, 2).
#[test]
fn the_paper_example_shape() {
    let c0 = 1_000_000u64;
    let w = 65_536u64;
    // flow 1: weight 4, demand 0.1; flows 2, 3: weight 1; flow 4: weight 2; all want all.
    let flows = [(100_000, 4 * w), (c0, w), (c0, w), (c0, 2 * w)];
    let mut levels = Vec::new();
    let a = tree_of(&flows).allocate(c0, &mut levels);
    // Level 0: 1/8 per weight: flow 1 (0.1/4 = 0.025) is satisfied. Level 1: 0.9 over
    // weight 4: 0.225 per weight.
    assert_eq!(levels.len(), 2);
    assert_eq!(
        (levels[0].k, levels[0].aw_num, levels[0].aw_den),
        (1, c0, 8 * w)
    );
    assert_eq!(a.of(flows[0].0, flows[0].1), (100_000, 1));
    assert!(same(a.of(c0, w), (225_000, 1)));
    assert!(same(a.of(c0, 2 * w), (450_000, 1)));
    assert_eq!(a.remainder, 0);
}

#[test]
fn inserts_and_removes_keep_order_fill_and_sums() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut tree = MaxMinTree::new();
    let mut reference: Vec<Entry> = Vec::new();
    let mut next_id = 0u32;
    for step in 0..20_000 {
        let grow = reference.len() < 50 || rng.random_bool(if step < 10_000 { 0.6 } else { 0.4 });
        if grow {
            let e = Entry {
                demand: rng.random_range(0..1000),
                weight: rng.random_range(1..8),
                id: next_id,
            };
            next_id += 1;
            tree.insert(e);
            reference.push(e);
        } else {
            let i = rng.random_range(0..reference.len());
            let e = reference.swap_remove(i);
            assert!(tree.remove(&e));
            assert!(!tree.remove(&e), "removed twice");
        }
        if step % 97 == 0 {
            tree.check();
            reference.sort_by(|a, b| a.key_cmp(b));
            assert_eq!(tree.entries(), reference);
        }
    }
    tree.check();
    while let Some(e) = reference.pop() {
        assert!(tree.remove(&e));
    }
    tree.check();
    assert!(tree.is_empty() && tree.height() == 1);
}

#[test]
fn height_grows_as_log_of_the_flows() {
    let mut tree = MaxMinTree::new();
    for i in 0..100_000u32 {
        tree.insert(Entry {
            demand: (i as u64 * 7919) % 100_003,
            weight: 1 + (i as u64 % 5),
            id: i,
        });
    }
    tree.check();
    // Nodes are at least half full: height ≤ 1 + log_{FANOUT/2}(n / (FANOUT/2)) + 1.
    let bound = 2
        + (100_000f64 / (FANOUT / 2) as f64)
            .log((FANOUT / 2) as f64)
            .ceil() as usize;
    assert!(tree.height() <= bound, "height {} > {bound}", tree.height());
    assert!(tree.height() >= 4);
}

#[test]
fn satisfied_prefix_matches_a_scan() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let flows: Vec<(u64, u64)> = (0..500)
        .map(|_| (rng.random_range(0..10_000), rng.random_range(1..100)))
        .collect();
    let tree = tree_of(&flows);
    for _ in 0..500 {
        let (num, den) = (rng.random_range(0..20_000u64), rng.random_range(1..200u64));
        let s = tree.satisfied(num, den);
        let scan: Vec<_> = flows
            .iter()
            .filter(|&&(d, w)| {
                (d as u128 * den as u128).cmp(&(num as u128 * w as u128)) != Ordering::Greater
            })
            .collect();
        assert_eq!(s.count, scan.len() as u64);
        assert_eq!(s.demand, scan.iter().map(|f| f.0).sum::<u64>());
        assert_eq!(s.weight, scan.iter().map(|f| f.1).sum::<u64>());
    }
}
