//! PACE's parking lot (seed 001, §IV). The paper names the pieces — forwarders F1…F5, the
//! bottleneck F4–F5, sender groups a, b, c, d with different RTTs, "RTT ≈ 150 µs", 1 Gbps —
//! but its Fig. 5 is not in the text, so this is a layout that fits every statement in it.
//!
//! ```text
//!  group a         group b         group c         group d
//!  h0..h15         h16..h31        h32..h47        h48..h63
//!     |               |               |               |
//!     F1 ------------ F2 ------------ F3 ------------ F4 ============ F5
//!                                                     |  bottleneck   |
//!                                              cross receivers    receivers
//!                                                h80..h95         h64..h79
//! ```
//!
//! (defaults: `forwarders` = 5, `hosts_per_group` = 16, `receivers` = 16,
//! `cross_receivers` = 16). With n forwarders there are n−1 groups, lettered a, b, …, group i
//! at F(i+1); receivers hang on Fn, cross receivers on F(n−1). Host ids: group a, b, …, then
//! receivers, then cross receivers; racks in the same order (one per group, cross receivers
//! last and only if there are any). Links: host links in host-id order, then F1–F2, …,
//! F(n−1)–Fn; the last one runs at `bottleneck_gbps` (default `link_gbps`).
//!
//! **Round-trip times.** When `link_delay_us` is not given, every link of the parking lot gets
//! [`DEFAULT_DELAY_US`] = 6.25 µs. At 1 Gbps (`link_gbps = 1`, as in the paper) a 1500 B packet
//! takes 12 µs to serialise and a 64 B ack 0.512 µs, so each link adds 2 × 6.25 + 12 + 0.512
//! ≈ 25 µs to the unloaded round trip of a full-size packet (store-and-forward at every hop):
//!
//! | sender → receiver at F5 | links | propagation RTT | unloaded RTT |
//! |---|---|---|---|
//! | a (F1) | 6 | 75 µs | ≈ 150 µs |
//! | b (F2) | 5 | 62.5 µs | ≈ 125 µs |
//! | c (F3) | 4 | 50 µs | ≈ 100 µs |
//! | d (F4) | 3 | 37.5 µs | ≈ 75 µs |
//! | c → cross receiver (F4) | 3 | 37.5 µs | ≈ 75 µs |
//!
//! Why 150 µs for group a, counting serialisation: the paper's scalability runs (Table 1) use
//! "one of the a senders, i.e. same RTT", so group a is the reference, and PACE "requires p to
//! be greater than one RTT" with an initial period of 200 µs — an RTT of 150 µs keeps that
//! true, whereas 150 µs of propagation alone (225 µs measured) would break it. With another
//! `link_gbps` the serialisation part changes; set `link_delay_us` to taste.
//!
//! **Why it fits the text.** Scenario 1: flows from a, b, c, d all cross F4–F5, the only link
//! they all share, and their RTTs differ (150/125/100/75 µs). Scenario 2 (Fig. 5b) is the
//! same graph: S1 = group a → receivers (crosses F3–F4 and F4–F5), S2 = group d → receivers
//! (F4–F5 only), S3 = group c → cross receivers (F3–F4 only). Then S3 starting cuts S1 "due to
//! F3" and frees F4–F5 for S2, the queue to watch is F4's, and with weights 2, 1, 4 S2 gets half
//! of S1 until S3 takes two thirds of F3–F4 — as the paper describes.
//!
//! **Why 16 hosts per group.** The 64- and 250-flow runs start every flow at group a; with 16
//! senders and 16 receivers at most 16 flows share a host link, whose 1 Gbps / 16 is still
//! far above the bottleneck share (1 Gbps / 64 or / 250), so F4–F5 stays the one bottleneck.
//! Scenario 1's ten flows (a, b, c, d, a, …) need at most three hosts in a group.

use super::builder::{Builder, LinkParams};
use super::check::{rate_or, size};
use super::generated::Built;
use super::TopologyConfig;
use crate::error::{ConfigError, ConfigResult};
use crate::validate::at_least_one;

/// Link delay of the parking lot when `link_delay_us` is not given (see the module doc).
pub const DEFAULT_DELAY_US: f64 = 6.25;

/// Group letters bound the number of forwarders: groups a…y at F1…F25.
const MAX_FORWARDERS: usize = 26;

pub(super) fn build(cfg: &TopologyConfig, p: &LinkParams) -> ConfigResult<Built> {
    let n = at_least_one("topology.forwarders", cfg.forwarders, 5)?;
    if !(2..=MAX_FORWARDERS).contains(&n) {
        return Err(ConfigError::new(
            "topology.forwarders",
            format!("must be between 2 and {MAX_FORWARDERS} (groups are lettered a..y), got {n}"),
        ));
    }
    let m = at_least_one("topology.hosts_per_group", cfg.hosts_per_group, 16)?;
    let r = at_least_one("topology.receivers", cfg.receivers, 16)?;
    // Zero is allowed: scenario 1 has no use for the cross receivers.
    let x = cfg.cross_receivers.unwrap_or(16);
    size(&[
        &[("", n - 1), ("hosts_per_group", m)],
        &[("receivers", r)],
        &[("cross_receivers", x)],
        &[("", n)],
    ])?;
    let bottleneck = rate_or(cfg.bottleneck_gbps, "topology.bottleneck_gbps", p.rate)?;

    let mut b = Builder::new();
    let groups: Vec<Vec<usize>> = (0..n - 1).map(|_| b.hosts(m)).collect();
    let receivers = b.hosts(r);
    let cross = b.hosts(x);
    let fwd: Vec<usize> = (1..=n).map(|i| b.switch(format!("F{i}"))).collect();
    for (g, hosts) in groups.iter().enumerate() {
        for &h in hosts {
            b.link(h, fwd[g], *p);
        }
        b.rack(hosts);
    }
    for &h in &receivers {
        b.link(h, fwd[n - 1], *p);
    }
    b.rack(&receivers);
    for &h in &cross {
        b.link(h, fwd[n - 2], *p);
    }
    if x > 0 {
        b.rack(&cross);
    }
    for i in 0..n - 1 {
        let rate = if i == n - 2 { bottleneck } else { p.rate };
        b.link(fwd[i], fwd[i + 1], p.with_rate(rate));
    }
    Ok((
        b,
        format!(
            "parking lot F1..F{n} (bottleneck F{}-F{n}), {} groups of {m} senders",
            n - 1,
            n - 1
        ),
    ))
}

/// Name of group `g` (0 = a).
pub fn group_letter(g: usize) -> char {
    (b'a' + g as u8) as char
}

#[cfg(test)]
mod tests {
    use super::super::tests::{degree, host_switch, topo};
    use super::*;
    use crate::topo::{BufferSize, NodeKind, TopoSpec};
    use crate::units::Time;

    /// Unloaded RTT of a 1500 B packet and its 64 B ack along the unique path a → b.
    fn rtt(t: &TopoSpec, from: &str, to: &str) -> Time {
        // The parking lot is a tree: depth-first search finds the one path.
        let (a, b) = (t.node_index(from).unwrap(), t.node_index(to).unwrap());
        let mut prev: Vec<Option<usize>> = vec![None; t.nodes.len()];
        let mut stack = vec![a];
        let mut seen = vec![false; t.nodes.len()];
        seen[a] = true;
        while let Some(u) = stack.pop() {
            for (li, l) in t.links.iter().enumerate() {
                let v = if l.a == u {
                    l.b
                } else if l.b == u {
                    l.a
                } else {
                    continue;
                };
                if !seen[v] {
                    seen[v] = true;
                    prev[v] = Some(li);
                    stack.push(v);
                }
            }
        }
        let mut total = Time::ZERO;
        let mut v = b;
        while v != a {
            let l = &t.links[prev[v].unwrap()];
            total += l.delay_ab + l.delay_ba + l.rate_ab.tx_time(1500) + l.rate_ba.tx_time(64);
            v = if l.a == v { l.b } else { l.a };
        }
        total
    }

    #[test]
    fn default_layout_matches_the_doc() {
        let t = topo("kind = 'parkinglot'\nlink_gbps = 1");
        assert_eq!(t.hosts.len(), 96);
        assert_eq!(t.nodes.len(), 101);
        assert_eq!(t.links.len(), 96 + 4);
        let names: Vec<&str> = t.nodes[96..].iter().map(|n| &n.name[..]).collect();
        assert_eq!(names, ["F1", "F2", "F3", "F4", "F5"]);
        // Groups a..d at F1..F4, receivers at F5, cross receivers at F4.
        for (first, sw) in [
            (0, "F1"),
            (16, "F2"),
            (32, "F3"),
            (48, "F4"),
            (64, "F5"),
            (80, "F4"),
        ] {
            for h in first..first + 16 {
                assert_eq!(host_switch(&t, h), sw, "host h{h}");
            }
        }
        assert_eq!(t.racks.len(), 6);
        assert_eq!(t.racks[0], (0..16).collect::<Vec<u32>>());
        assert_eq!(t.racks[5], (80..96).collect::<Vec<u32>>());
        assert_eq!(degree(&t, "F1"), 17);
        assert_eq!(degree(&t, "F4"), 16 + 16 + 2);
        assert_eq!(degree(&t, "F5"), 17);
        assert_eq!(t.links[99].a, t.node_index("F4").unwrap());
        assert_eq!(t.links[99].b, t.node_index("F5").unwrap());
        assert_eq!(t.links[0].delay_ab, Time::from_ns(6250));
        assert_eq!(t.links[0].buffer, BufferSize::Packets(100));
        assert!(t.nodes[..96].iter().all(|n| n.kind == NodeKind::Host));
    }

    #[test]
    fn round_trip_times_match_the_doc() {
        let t = topo("kind = 'parkinglot'\nlink_gbps = 1");
        let us = |from: &str, to: &str| rtt(&t, from, to).as_us_f64();
        // 25.012 µs per link: 12.5 propagation + 12 + 0.512 serialisation.
        assert!((us("h0", "h64") - 150.072).abs() < 1e-9);
        assert!((us("h16", "h64") - 125.06).abs() < 1e-9);
        assert!((us("h32", "h64") - 100.048).abs() < 1e-9);
        assert!((us("h48", "h64") - 75.036).abs() < 1e-9);
        assert!((us("h32", "h80") - 75.036).abs() < 1e-9);
    }

    #[test]
    fn given_delay_wins_and_bottleneck_rate_applies() {
        let t = topo(
            "kind = 'parkinglot'\nforwarders = 3\nhosts_per_group = 2\nreceivers = 1\n\
             cross_receivers = 0\nlink_delay_us = 2\nbottleneck_gbps = 0.5",
        );
        assert_eq!(t.hosts.len(), 5);
        assert_eq!(t.racks.len(), 3);
        assert!(t.links.iter().all(|l| l.delay_ab == Time::from_us(2)));
        let last = t.links.last().unwrap();
        assert_eq!(
            (t.nodes[last.a].name.as_str(), t.nodes[last.b].name.as_str()),
            ("F2", "F3")
        );
        assert_eq!(last.rate_ab.bits_per_sec(), 500_000_000);
        assert_eq!(t.links[0].rate_ab.bits_per_sec(), 10_000_000_000);
        assert_eq!(group_letter(1), 'b');
    }
}
