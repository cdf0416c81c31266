//! # RPS: random packet spraying
//!
//! A. Dixit, P. Prakash, Y. C. Hu, R. R. Kompella, "On the Impact of Packet Spraying in Data
//! Center Networks", IEEE INFOCOM 2013 (§III, the scheme; baselines.md §10).
//!
//! Every switch sends every packet to a next hop drawn uniformly at random among the
//! equal-cost next hops for its destination, at every hop that has more than one. No state,
//! no parameters; hosts run unmodified TCP (no reordering buffer).
//!
//! Choices where the paper is silent: each switch draws from its own random stream of the
//! scenario seed (`rps` stream, indexed by node), so one switch's draws never depend on the
//! order in which other switches forward. On asymmetric paths RPS sprays equally anyway; that
//! is its documented failure mode and is kept.

use crate::net::{NodeIdx, PortIdx};
use crate::rng::StreamRng;
use rand::RngExt;

pub struct Rps {
    rngs: Vec<StreamRng>,
}

impl Rps {
    pub fn new(nodes: usize, seed: u64) -> Rps {
        Rps {
            rngs: super::node_streams(seed, "rps", nodes),
        }
    }

    #[inline]
    pub fn choose(&mut self, node: NodeIdx, candidates: &[PortIdx]) -> PortIdx {
        if candidates.len() == 1 {
            return candidates[0];
        }
        candidates[self.rngs[node as usize].random_range(0..candidates.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_candidate_equally_likely_and_per_packet() {
        let mut rps = Rps::new(2, 7);
        let cands = [3, 4, 5, 6];
        let mut counts = [0u32; 4];
        let mut changes = 0;
        let mut last = 0;
        for _ in 0..40_000 {
            let p = rps.choose(1, &cands);
            counts[(p - 3) as usize] += 1;
            changes += (p != last) as u32;
            last = p;
        }
        // 10 000 expected each; 4 sigma ≈ 350.
        assert!(
            counts.iter().all(|c| c.abs_diff(10_000) < 400),
            "{counts:?}"
        );
        // Consecutive packets of one flow change path 3/4 of the time.
        assert!(changes.abs_diff(30_000) < 600, "{changes}");
        assert_eq!(rps.choose(0, &[9]), 9);
    }
}
