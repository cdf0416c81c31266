//! Cost of PACE's Max-Min B-tree against the number of flows at a port.
//!
//! `cargo run --release -p dcnsim --example maxmin_btree [-- MAX_FLOWS]`
//!
//! For n = 10, 100, … flows with random demands and weights, it times what a forwarder does
//! per allocation message: one update (the flow's new demand: remove + insert) and one
//! offline computation (the allocation level pointers, eqs. 1–4). Beside it, the brute-force
//! progressive filling the tree replaces (O(n) per round, up to O(n²) per update), for the
//! sizes where it finishes quickly. O(log n) shows as a cost that grows by a constant step
//! per tenfold n. Results: bench/RESULTS.md ("PACE's Max-Min B-tree").

use dcnsim::protocols::pace::{Entry, MaxMinTree, NORM_ONE};
use std::hint::black_box;
use std::time::Instant;

/// A small deterministic generator (xorshift), so the example needs no RNG setup.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Demands: half want the whole link, half a random fraction (so the walk takes levels).
fn flow(rng: &mut Rng, id: u32, n: u64) -> Entry {
    let demand = if rng.below(2) == 0 {
        NORM_ONE
    } else {
        rng.below(2 * NORM_ONE / n.max(1)).max(1)
    };
    Entry {
        demand,
        weight: 65_536 * (1 + rng.below(4)),
        id,
    }
}

/// Progressive filling over a plain vector: the per-update cost the tree avoids.
fn progressive_filling(flows: &[Entry], c0: u64) -> (u64, u64) {
    let mut satisfied = vec![false; flows.len()];
    let (mut left, mut w_unsat): (u128, u128) =
        (c0 as u128, flows.iter().map(|f| f.weight as u128).sum());
    loop {
        let mut any = false;
        for (i, f) in flows.iter().enumerate() {
            if !satisfied[i] && f.demand as u128 * w_unsat <= left * f.weight as u128 {
                satisfied[i] = true;
                any = true;
            }
        }
        let (d, w) = flows
            .iter()
            .zip(&satisfied)
            .filter(|(_, s)| **s)
            .fold((0u128, 0u128), |a, (f, _)| {
                (a.0 + f.demand as u128, a.1 + f.weight as u128)
            });
        let total_w: u128 = flows.iter().map(|f| f.weight as u128).sum();
        left = (c0 as u128).saturating_sub(d);
        w_unsat = total_w - w;
        if !any || w_unsat == 0 {
            return (left as u64, w_unsat as u64);
        }
    }
}

fn main() {
    let max: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    println!(
        "| flows n | tree height | levels | update (remove + insert) ns | offline (levels) ns | \
         update + offline ns | progressive filling ns |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let mut n = 10u64;
    while n <= max {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ n);
        let mut tree = MaxMinTree::new();
        let mut flows: Vec<Entry> = (0..n as u32).map(|i| flow(&mut rng, i, n)).collect();
        for f in &flows {
            tree.insert(*f);
        }
        let ops = 200_000u64;
        // updates: a random flow gets a new demand
        let t = Instant::now();
        for _ in 0..ops {
            let i = rng.below(n) as usize;
            let new = flow(&mut rng, flows[i].id, n);
            tree.remove(&flows[i]);
            tree.insert(new);
            flows[i] = new;
        }
        let update = t.elapsed().as_nanos() as f64 / ops as f64;
        // the offline computation on the current tree
        let mut levels = Vec::new();
        let t = Instant::now();
        let mut depth = 0;
        for _ in 0..ops {
            depth = black_box(tree.allocate(black_box(NORM_ONE), &mut levels)).levels;
        }
        let offline = t.elapsed().as_nanos() as f64 / ops as f64;
        let brute = if n <= 10_000 {
            let reps = (2_000_000 / (n * n)).clamp(1, 10_000);
            let t = Instant::now();
            for _ in 0..reps {
                black_box(progressive_filling(black_box(&flows), NORM_ONE));
            }
            format!("{:.0}", t.elapsed().as_nanos() as f64 / reps as f64)
        } else {
            "—".into()
        };
        println!(
            "| {n} | {} | {depth} | {update:.0} | {offline:.0} | {:.0} | {brute} |",
            tree.height(),
            update + offline
        );
        n *= 10;
    }
}
