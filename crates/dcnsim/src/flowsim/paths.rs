//! Each (sub)flow's route as a list of directed links (egress ports, whose dense indices are
//! the links of the fluid model), chosen as the packet engine's per-flow path choice (ECMP or
//! `bcube_paths`) would choose it, and the constant part of its completion time.

use crate::lb::bcube_paths::BcubePaths;
use crate::lb::LbKind;
use crate::lb::{flow_hash, hash_threshold};
use crate::net::packet::Packet;
use crate::net::{Network, PortIdx};
use crate::rng;
use crate::units::Time;

/// ECMP path choice as [`crate::lb::PathChoice::Ecmp`] makes it: at every node, the flow hash
/// with that node's seed picks among the equal-cost next hops (RFC 2992 hash-threshold).
pub struct EcmpPaths {
    seeds: Vec<u64>,
}

impl EcmpPaths {
    pub fn new(net: &Network, seed: u64) -> EcmpPaths {
        EcmpPaths {
            seeds: (0..net.nodes.len() as u64)
                .map(|n| rng::derive_u64(seed, "ecmp", n))
                .collect(),
        }
    }

    /// Appends the ports from host `src` to host `dst` for a flow (or subflow) with `path_key`
    /// to `out`; returns false (and leaves `out` as it was) if `dst` is unreachable.
    pub fn route(
        &self,
        net: &Network,
        src: u32,
        dst: u32,
        path_key: u32,
        out: &mut Vec<PortIdx>,
    ) -> bool {
        let pkt = Packet {
            src,
            dst,
            path_key,
            ..Packet::default()
        };
        let start = out.len();
        let target = net.hosts[dst as usize];
        let mut node = net.hosts[src as usize];
        while node != target {
            let c = net.routing.next_hops(node, dst);
            // Every next hop is one step closer, so a path is never longer than the nodes.
            if c.is_empty() || out.len() - start > net.nodes.len() {
                out.truncate(start);
                return false;
            }
            let p = if c.len() == 1 {
                c[0]
            } else {
                c[hash_threshold(flow_hash(self.seeds[node as usize], &pkt), c.len())]
            };
            out.push(p);
            node = net.ports[p as usize].peer;
        }
        true
    }
}

/// The per-flow path choices the fluid model follows (a flow keeps one path for its life).
pub enum Router {
    Ecmp(EcmpPaths),
    /// BCube's parallel paths, one hashed per (sub)flow ([`crate::lb::bcube_paths`]).
    Bcube(BcubePaths),
}

impl Router {
    /// The path choice `lb` (`ecmp` or `bcube_paths`: [`super::check_scenario`] refuses the
    /// others) for `net`.
    pub fn new(lb: LbKind, net: &Network, seed: u64) -> Router {
        match lb {
            LbKind::BcubePaths => Router::Bcube(BcubePaths::new(net, seed)),
            _ => Router::Ecmp(EcmpPaths::new(net, seed)),
        }
    }

    /// Appends the ports from host `src` to host `dst` for a (sub)flow with `path_key` to
    /// `out`; returns false (and leaves `out` as it was) if `dst` is unreachable.
    pub fn route(
        &self,
        net: &Network,
        src: u32,
        dst: u32,
        path_key: u32,
        out: &mut Vec<PortIdx>,
    ) -> bool {
        match self {
            Router::Ecmp(e) => e.route(net, src, dst, path_key, out),
            Router::Bcube(b) => {
                let i = b.path_of(src, dst, path_key);
                let target = net.hosts[dst as usize];
                let mut node = net.hosts[src as usize];
                while node != target {
                    let p = b.next_port(node, src, dst, i, false);
                    out.push(p);
                    node = net.ports[p as usize].peer;
                }
                true
            }
        }
    }
}

/// Bytes on the wire of `payload` bytes cut into segments of `mss` with `header` bytes each
/// (at least one segment, as an empty flow still sends one packet).
pub fn wire_bytes(payload: u64, mss: u32, header: u32) -> u64 {
    payload + header as u64 * payload.div_ceil(mss as u64).max(1)
}

/// Time for `bits` at `rate_bps` in the fluid model, rounded up to a whole picosecond. Every
/// duration of the model goes through here, so a lone flow's time matches its overhead
/// (below) to the picosecond.
pub fn fluid_duration(bits: f64, rate_bps: f64) -> Option<Time> {
    if rate_bps <= 0.0 {
        return None;
    }
    let ps = bits * 1e12 / rate_bps;
    if ps.is_nan() || ps >= Time::MAX.ps() as f64 {
        return None;
    }
    // `ceil` by hand: the library call is a function call on the baseline x86-64 target,
    // at every reschedule. Same value: below 2^53 a fraction rounds up, above it every f64 is
    // a whole number.
    let whole = ps.max(0.0) as u64;
    Some(Time(if (whole as f64) < ps {
        whole + 1
    } else {
        whole
    }))
}

/// The lowest rate along `path`, bit/s.
pub fn bottleneck_bps(net: &Network, path: &[PortIdx]) -> f64 {
    path.iter()
        .map(|&p| net.ports[p as usize].rate.bits_per_sec())
        .min()
        .unwrap_or(0) as f64
}

/// What a flow's completion time adds to the fluid transmission of its bytes: the path's
/// propagation delay plus the store-and-forward pipeline of its packets (with equal link rates,
/// one full packet's serialisation per hop after the first). Defined as the flow's ideal FCT on
/// `path` (`ideal`) less its fluid time at the path's bottleneck rate, so that a flow alone on
/// the network finishes exactly at its ideal FCT.
pub fn pipeline_overhead(
    net: &Network,
    path: &[PortIdx],
    ideal: Time,
    payload: u64,
    mss: u32,
    header: u32,
) -> Time {
    let bits = wire_bytes(payload, mss, header) as f64 * 8.0;
    let alone = fluid_duration(bits, bottleneck_bps(net, path)).unwrap_or(Time::ZERO);
    ideal.saturating_sub(alone)
}

/// Whether two paths have the same rate and delay hop by hop (then every flow has the same
/// ideal FCT along both).
pub fn same_hops(net: &Network, a: &[PortIdx], b: &[PortIdx]) -> bool {
    let hop = |&p: &PortIdx| {
        let port = &net.ports[p as usize];
        (port.rate, port.delay)
    };
    a.len() == b.len() && a.iter().map(hop).eq(b.iter().map(hop))
}
