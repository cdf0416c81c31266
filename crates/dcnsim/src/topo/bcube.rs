//! BCube(n, k) — Guo et al., "BCube: A High Performance, Server-centric Network Architecture
//! for Modular Data Centers", SIGCOMM 2009, §3.
//!
//! # Layout
//!
//! n^(k+1) servers, each with k+1 ports, and k+1 levels of n^k switches with n ports. A
//! server's address is its k+1 base-n digits a_k…a_0 and its host id is Σ a_i·n^i (so `h5`
//! in BCube(2,3) is 0101). The level-l switch a server connects to joins the n servers that
//! differ from it only in digit l; its name is `sw{l}_{j}` with j the server's other k digits
//! read as a base-n number (digit l removed), and the server sits on its port a_l. This is the
//! paper's recursive construction unrolled (BCube_k = n BCube_{k−1}s plus n^k level-k
//! switches). Switches never link to switches: every path alternates server, switch, server,
//! and the servers relay.
//!
//! Links are added level by level, so a server's port l is its level-l port (port numbering
//! follows link order). Racks are the level-0 switches: hosts j·n … j·n+n−1.
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `n` | 2 | switch ports, ≥ 2 |
//! | `k` | 3 | levels − 1, ≥ 0 (BCube_0 is n servers on one switch) |
//!
//! The defaults are PDQ's BCube(2,3) (16 servers, 32 switches, 64 links; §6, Fig. 11). Every
//! link runs at `link_gbps`.
//!
//! # Routing
//!
//! Paper: BCubeRouting corrects one differing digit per server hop, in the order of a
//! permutation of the levels; BuildPathSet (§4.1) makes k+1 *parallel* (link- and
//! intermediate-node-disjoint) paths between A and B, one per level i: if a_i ≠ b_i, DCRouting
//! corrects the digits in the cyclic order i, i−1, …, 0, k, …, i+1; if a_i = b_i, AltDCRouting
//! first steps to a level-i neighbour C (c_i ≠ a_i), then corrects from i−1 down, digit i
//! last. With h differing digits the first h paths have h server hops (shortest) and the other
//! k+1−h have h+2.
//!
//! dcnsim offers two path choices on BCube (`routing.lb`):
//!
//! **`ecmp`** (default, as on every topology): routing tables are equal-cost **shortest** paths,
//! computed with servers allowed to relay, and each node — a relaying server included — hashes
//! the flow's 5-tuple (path key included) onto its next hops. For servers differing in the
//! digit set D (h = |D|):
//!
//! - the source has exactly h equal-cost first hops, its ports at the levels in D; they are
//!   the first hops of the h DCRouting paths of BuildPathSet, and every DCRouting path is one
//!   of the equal-cost paths of the tables ([`parallel_paths`] computes them; a test checks
//!   both), so a pair differing in all digits has all k+1 first hops;
//! - two flows (or multipath subflows, each with its own `path_key`) hashed onto different
//!   first hops are link-disjoint when h ≤ 2 (the two correction orders share nothing). For
//!   h ≥ 3 the relaying servers hash independently, so such subflows can meet again at a
//!   server where both have corrected the same digits and then share a link;
//! - the k+1−h AltDCRouting paths (one hop longer at each end) are not in the tables: a
//!   shortest-path table cannot hold them, so a multipath transport gets up to h paths.
//!
//! **`bcube_paths`** ([`crate::lb::bcube_paths`]): BCube's own address-based routing. Each
//! (sub)flow is hashed once onto a level i = 0…k (flow-level ECMP over the k+1 parallel paths,
//! as PDQ's §6 does for M-PDQ) and every server and switch forwards it along BuildPathSet's
//! path i, computing the next hop from the addresses (no table); ACKs retrace the path
//! backwards. All k+1 paths are usable whatever h, and a flow's path is link-disjoint from the
//! other k paths of the pair. The routing tables are not consulted, so failures are not routed
//! around.

use super::builder::{Builder, LinkParams};
use super::check::MAX_NODES;
use super::generated::Built;
use super::TopologyConfig;
use crate::error::{ConfigError, ConfigResult};

/// Digits of a BCube(n, k) address, least significant (level 0) first.
fn digits(n: usize, k: usize, id: usize) -> Vec<usize> {
    let mut d = Vec::with_capacity(k + 1);
    let mut x = id;
    for _ in 0..=k {
        d.push(x % n);
        x /= n;
    }
    d
}

fn number(n: usize, digits: &[usize]) -> usize {
    digits.iter().rev().fold(0, |acc, &d| acc * n + d)
}

/// Index, within its level, of the level-`level` switch of server `id`: the server's digits
/// with digit `level` removed.
pub fn switch_of(n: usize, k: usize, id: usize, level: usize) -> usize {
    let mut d = digits(n, k, id);
    d.remove(level);
    number(n, &d)
}

/// BuildPathSet's k+1 parallel paths from server `a` to server `b` (a ≠ b), as host-id
/// sequences from `a` to `b`; entry i is the path of level i (DCRouting when a_i ≠ b_i, else
/// AltDCRouting through the neighbour whose digit i is a_i + 1 mod n — the paper leaves the
/// neighbour open).
pub fn parallel_paths(n: usize, k: usize, a: usize, b: usize) -> Vec<Vec<usize>> {
    let target = digits(n, k, b);
    // Corrects the differing digits in the cyclic order from, from−1, …, from+1.
    let correct_from = |start: Vec<usize>, from: usize, path: &mut Vec<usize>| {
        let mut cur = start;
        for step in 0..=k {
            let level = (from + (k + 1) - step) % (k + 1);
            if cur[level] != target[level] {
                cur[level] = target[level];
                path.push(number(n, &cur));
            }
        }
    };
    let src = digits(n, k, a);
    (0..=k)
        .map(|i| {
            let mut path = vec![a];
            if src[i] != target[i] {
                correct_from(src.clone(), i, &mut path);
            } else {
                let mut c = src.clone();
                c[i] = (c[i] + 1) % n;
                path.push(number(n, &c));
                correct_from(c, (i + k) % (k + 1), &mut path);
            }
            path
        })
        .collect()
}

pub(super) fn build(cfg: &TopologyConfig, p: &LinkParams) -> ConfigResult<Built> {
    let n = cfg.n.unwrap_or(2);
    let k = cfg.k.unwrap_or(3);
    if n < 2 {
        return Err(ConfigError::new(
            "topology.n",
            format!("must be at least 2 (ports per switch), got {n}"),
        ));
    }
    // servers n^(k+1) + switches (k+1)·n^k, checked before anything is allocated. k + 1 is
    // checked too: k = usize::MAX (from a scenario dict) wrapped to 0 levels of one server.
    let levels = k.checked_add(1);
    let servers = levels
        .and_then(|e| u32::try_from(e).ok())
        .and_then(|e| n.checked_pow(e))
        .filter(|&s| s <= MAX_NODES);
    let switches = servers
        .zip(levels)
        .and_then(|(s, l)| (s / n).checked_mul(l));
    let (servers, per_level) = match (servers, switches) {
        (Some(s), Some(w)) if s + w <= MAX_NODES => (s, s / n),
        _ => {
            // The key to name: n when even BCube(n, 1) is too large and BCube(2, k) is not,
            // else k (either may be lowered; the message says so).
            let k_alone = u32::try_from(k)
                .ok()
                .and_then(|e| 2usize.checked_pow(e))
                .and_then(|p| p.checked_mul(k + 3)) // 2^(k+1) servers + (k+1)·2^k switches
                .is_none_or(|s| s > MAX_NODES);
            let n_alone = n
                .checked_mul(n)
                .and_then(|s| s.checked_add(2 * n)) // n² servers + 2n switches
                .is_none_or(|s| s > MAX_NODES);
            return Err(ConfigError::new(
                if n_alone && !k_alone {
                    "topology.n"
                } else {
                    "topology.k"
                },
                format!(
                    "BCube({n},{k}) has n^(k+1) servers and (k+1)·n^k switches, more than \
                     the {MAX_NODES} nodes supported; lower k or n"
                ),
            ));
        }
    };
    let mut b = Builder::new();
    b.hosts_relay();
    let hosts = b.hosts(servers);
    let mut sw = Vec::with_capacity((k + 1) * per_level);
    for level in 0..=k {
        for j in 0..per_level {
            sw.push(b.switch(format!("sw{level}_{j}")));
        }
    }
    // Level by level (a server's port l is its level-l port); within a level, switch by
    // switch, each switch's servers in port order.
    let stride = |level: usize| n.pow(level as u32);
    for level in 0..=k {
        for j in 0..per_level {
            // Server on port d of switch j: insert digit d at position `level` of j.
            let low = j % stride(level);
            let high = j / stride(level);
            for d in 0..n {
                let id = (high * n + d) * stride(level) + low;
                debug_assert_eq!(switch_of(n, k, id, level), j);
                b.link(hosts[id], sw[level * per_level + j], *p);
            }
        }
    }
    for rack in hosts.chunks(n) {
        b.rack(rack);
    }
    Ok((b, format!("BCube({n},{k})")))
}
