//! Path choice at switches (and multi-homed hosts): given the equal-cost next-hop ports towards
//! a packet's destination, pick one.
//!
//! `ecmp` (RFC 2992 hash-threshold): the flow's 5-tuple — here (src host, dst host, path key,
//! direction) — is hashed with a per-node seed into a 64-bit key; the key space is cut into as
//! many equal regions as there are next hops and the packet takes the region it falls in. Seeds
//! differ per switch (drawn from the scenario's `ecmp` stream), so flows that collide at one tier
//! do not all collide again at the next (no polarisation). Every packet of a flow, in one
//! direction, takes the same path.

use crate::error::{ConfigError, ConfigResult};
use crate::net::packet::Packet;
use crate::net::{NodeIdx, PortIdx};
use crate::rng;

pub const PATH_CHOICES: &[(&str, &str)] = &[(
    "ecmp",
    "per-flow hash-threshold ECMP (RFC 2992) with a per-switch hash seed",
)];

pub enum PathChoice {
    Ecmp { seeds: Vec<u64> },
}

impl PathChoice {
    pub fn new(name: &str, nodes: usize, seed: u64) -> ConfigResult<PathChoice> {
        match name {
            "ecmp" => Ok(PathChoice::Ecmp {
                seeds: (0..nodes as u64)
                    .map(|n| rng::derive_u64(seed, "ecmp", n))
                    .collect(),
            }),
            other => Err(ConfigError::new(
                "routing.lb",
                format!(
                    "unknown path choice '{other}'; valid: {}",
                    PATH_CHOICES
                        .iter()
                        .map(|p| p.0)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }

    /// Picks one of `candidates` (non-empty) for `pkt` at `node`.
    #[inline]
    pub fn choose(&mut self, node: NodeIdx, pkt: &Packet, candidates: &[PortIdx]) -> PortIdx {
        if candidates.len() == 1 {
            return candidates[0];
        }
        match self {
            PathChoice::Ecmp { seeds } => {
                let h = flow_hash(seeds[node as usize], pkt);
                candidates[hash_threshold(h, candidates.len())]
            }
        }
    }
}

/// Hash of the packet's flow identity in its direction of travel.
#[inline]
pub fn flow_hash(seed: u64, pkt: &Packet) -> u64 {
    let tuple = ((pkt.src as u64) << 32) | pkt.dst as u64;
    rng::mix(seed ^ rng::mix(tuple ^ ((pkt.path_key as u64) << 17)))
}

/// RFC 2992 hash-threshold: region `floor(h · n / 2^64)`.
#[inline]
pub fn hash_threshold(h: u64, n: usize) -> usize {
    ((h as u128 * n as u128) >> 64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_threshold_cuts_key_space_in_equal_regions() {
        assert_eq!(hash_threshold(0, 4), 0);
        assert_eq!(hash_threshold(u64::MAX / 4 - 1, 4), 0);
        assert_eq!(hash_threshold(u64::MAX / 4 + 1, 4), 1);
        assert_eq!(hash_threshold(u64::MAX, 4), 3);
    }

    #[test]
    fn ecmp_is_per_flow_and_spreads_flows() {
        let mut lb = PathChoice::new("ecmp", 2, 1).unwrap();
        let cands = [10, 11, 12, 13];
        let mut counts = [0usize; 4];
        for key in 0..4000u32 {
            let p = Packet {
                src: 1,
                dst: 2,
                path_key: key,
                ..Default::default()
            };
            let first = lb.choose(0, &p, &cands);
            let again = lb.choose(
                0,
                &Packet {
                    seq: 99,
                    ..p.clone()
                },
                &cands,
            );
            assert_eq!(first, again, "a flow's packets take one path");
            counts[(first - 10) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (900..1100).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn seeds_differ_per_switch() {
        let mut lb = PathChoice::new("ecmp", 2, 1).unwrap();
        let cands = [0, 1];
        let same = (0..1000u32)
            .filter(|&k| {
                let p = Packet {
                    path_key: k,
                    ..Default::default()
                };
                lb.choose(0, &p, &cands) == lb.choose(1, &p, &cands)
            })
            .count();
        assert!(
            (400..600).contains(&same),
            "choices at two switches look correlated: {same}"
        );
    }

    #[test]
    fn unknown_lb_names_the_valid_ones() {
        let err = PathChoice::new("magic", 1, 1).err().unwrap();
        assert_eq!(err.path, "routing.lb");
        assert!(err.message.contains("ecmp"));
    }
}
