//! Named random streams derived from the scenario seed.
//!
//! Every consumer of randomness (the workload, ECMP hash seeds, each load balancer, failures)
//! draws from its own stream, named by a string. Two runs that differ only in protocol therefore
//! see the very same flows at the very same times, and adding a random draw to one component
//! never shifts another's. Streams are ChaCha8, which is portable across platforms and versions.

use rand_chacha::rand_core::SeedableRng;
pub use rand_chacha::ChaCha8Rng as StreamRng;

/// The stream called `name` of the scenario seeded with `seed`.
pub fn stream(seed: u64, name: &str) -> StreamRng {
    StreamRng::seed_from_u64(mix(seed ^ fnv1a(name.as_bytes())))
}

/// A 64-bit value derived from the seed and a name, for things that need a seed, not a stream
/// (e.g. per-switch hash seeds).
pub fn derive_u64(seed: u64, name: &str, index: u64) -> u64 {
    mix(mix(seed ^ fnv1a(name.as_bytes())) ^ index)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// SplitMix64's finaliser: a bijective mixer with good avalanche.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a: u64 = stream(7, "workload").random();
        let b: u64 = stream(7, "workload").random();
        let c: u64 = stream(7, "ecmp").random();
        let d: u64 = stream(8, "workload").random();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
