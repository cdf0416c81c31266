//! Jellyfish — Singla et al., "Jellyfish: Networking Data Centers Randomly", NSDI 2012, §3.
//!
//! # Layout
//!
//! `switches` (20) top-of-rack switches `sw0`… with `ports_per_switch` (8) ports each;
//! `hosts_per_switch` (4) of them go to hosts and the other r = ports − hosts to a random
//! r-regular graph of switches (RRG(N, k, r) in the paper). Host ids switch by switch; racks:
//! one per switch. All links run at `link_gbps`.
//!
//! # Construction (the paper's procedure, §3)
//!
//! Drawn from the scenario seed's `topology.jellyfish` stream, so the same seed gives the same
//! graph and another seed (almost surely) another one:
//!
//! 1. Repeatedly join a uniformly random pair of switches that both have a free port and are
//!    not yet neighbours, until no such pair is left.
//! 2. While a switch s still has two or more free ports, remove a uniformly random link (x, y)
//!    with x, y not s and not neighbours of s, and link s to both x and y.
//!
//! A switch can end with one free port (when N·r is odd). The graph is simple (no self-loops,
//! no parallel links). A random r-regular graph with r ≥ 3 is connected with high probability;
//! should a draw be disconnected (likely only for r = 2), the whole construction is redrawn
//! from the same stream, up to 100 times, and the parameters are refused if none is connected.
//! Switch–switch links are listed in order of their (lower, higher) switch index.
//!
//! # Routing
//!
//! ECMP over all equal-cost shortest paths, as for every kind. The paper routes with the
//! k = 8 shortest paths (not all of equal length) and MPTCP, and shows ECMP leaves capacity
//! unused on Jellyfish (§5, Table 1); k-shortest-path routing needs per-path source routes,
//! which dcnsim's per-destination tables do not have, so it is not offered.
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `switches` | 20 | N, at least 2 |
//! | `ports_per_switch` | 8 | k, more than `hosts_per_switch`; the network degree r = k − hosts must be < N |
//! | `hosts_per_switch` | 4 | servers on every switch, at least 1 |

use super::builder::{Builder, LinkParams};
use super::check::size;
use super::generated::Built;
use super::TopologyConfig;
use crate::error::{ConfigError, ConfigResult};
use crate::rng::StreamRng;
use crate::validate::at_least_one;
use rand::RngExt;

/// Redraws allowed before a disconnected result refuses the parameters.
const DRAWS: usize = 100;

pub(super) fn build(cfg: &TopologyConfig, p: &LinkParams, seed: u64) -> ConfigResult<Built> {
    let n = at_least_one("topology.switches", cfg.switches, 20)?;
    let ports = at_least_one("topology.ports_per_switch", cfg.ports_per_switch, 8)?;
    let per = at_least_one("topology.hosts_per_switch", cfg.hosts_per_switch, 4)?;
    let sw = ("switches", n);
    size(&[
        &[sw, ("hosts_per_switch", per)],
        &[sw],
        &[sw, ("ports_per_switch", ports)],
    ])?;
    if n < 2 {
        return Err(ConfigError::new(
            "topology.switches",
            "must be at least 2 (one switch is a star: use kind = \"star\")",
        ));
    }
    if ports <= per {
        return Err(ConfigError::new(
            "topology.ports_per_switch",
            format!(
                "must exceed hosts_per_switch ({per}) so every switch has a port into the \
                 network, got {ports}"
            ),
        ));
    }
    let r = ports - per;
    if r >= n {
        return Err(ConfigError::new(
            "topology.ports_per_switch",
            format!(
                "leaves r = {r} network ports per switch but a switch can have at most {} \
                 neighbours among {n} switches; give at most {} ports or more switches",
                n - 1,
                per + n - 1
            ),
        ));
    }
    let mut rng = crate::rng::stream(seed, "topology.jellyfish");
    let edges = (0..DRAWS)
        .map(|_| random_regular(n, r, &mut rng))
        .find(|e| connected(n, e))
        .ok_or_else(|| {
            ConfigError::new(
                "topology.ports_per_switch",
                format!(
                    "{DRAWS} random graphs with {r} network ports per switch were all \
                     disconnected; give more ports per switch (r = ports − hosts ≥ 3)"
                ),
            )
        })?;
    let mut b = Builder::new();
    let hosts = b.hosts(n * per);
    let sw: Vec<usize> = (0..n).map(|i| b.switch(format!("sw{i}"))).collect();
    for (i, rack) in hosts.chunks(per).enumerate() {
        for &h in rack {
            b.link(h, sw[i], *p);
        }
        b.rack(rack);
    }
    for (x, y) in edges {
        b.link(sw[x], sw[y], *p);
    }
    Ok((
        b,
        format!("Jellyfish of {n} switches x {ports} ports ({per} hosts, {r} network)"),
    ))
}

/// The paper's random construction of a (near) r-regular simple graph on `n` nodes; edges as
/// (lower, higher), sorted.
fn random_regular(n: usize, r: usize, rng: &mut StreamRng) -> Vec<(usize, usize)> {
    let mut adj: Vec<Vec<usize>> = vec![Vec::with_capacity(r); n];
    let mut edges: Vec<(usize, usize)> = Vec::with_capacity(n * r / 2);
    let link = |adj: &mut Vec<Vec<usize>>, edges: &mut Vec<(usize, usize)>, x: usize, y: usize| {
        adj[x].push(y);
        adj[y].push(x);
        edges.push((x, y));
    };
    // 1. Random pairs of non-adjacent switches with free ports.
    loop {
        let open: Vec<usize> = (0..n).filter(|&s| adj[s].len() < r).collect();
        let joinable = |x: usize, y: usize| x != y && !adj[x].contains(&y);
        // Rejection sampling while pairs are plentiful; an exhaustive list when it stalls,
        // which also tells when no pair is left.
        let mut pick = None;
        for _ in 0..32 {
            if open.len() < 2 {
                break;
            }
            let (x, y) = (
                open[rng.random_range(0..open.len())],
                open[rng.random_range(0..open.len())],
            );
            if joinable(x, y) {
                pick = Some((x, y));
                break;
            }
        }
        if pick.is_none() {
            let pairs: Vec<(usize, usize)> = open
                .iter()
                .enumerate()
                .flat_map(|(i, &x)| open[i + 1..].iter().map(move |&y| (x, y)))
                .filter(|&(x, y)| joinable(x, y))
                .collect();
            if pairs.is_empty() {
                break;
            }
            pick = Some(pairs[rng.random_range(0..pairs.len())]);
        }
        let (x, y) = pick.expect("a pair was chosen");
        link(&mut adj, &mut edges, x, y);
    }
    // 2. Switches left with two or more free ports split a random link.
    for s in 0..n {
        while r - adj[s].len() >= 2 {
            let candidates: Vec<usize> = (0..edges.len())
                .filter(|&e| {
                    let (x, y) = edges[e];
                    x != s && y != s && !adj[s].contains(&x) && !adj[s].contains(&y)
                })
                .collect();
            if candidates.is_empty() {
                break;
            }
            let e = candidates[rng.random_range(0..candidates.len())];
            let (x, y) = edges.swap_remove(e);
            adj[x].retain(|&v| v != y);
            adj[y].retain(|&v| v != x);
            link(&mut adj, &mut edges, s, x);
            link(&mut adj, &mut edges, s, y);
        }
    }
    for e in &mut edges {
        *e = (e.0.min(e.1), e.0.max(e.1));
    }
    edges.sort_unstable();
    edges
}

fn connected(n: usize, edges: &[(usize, usize)]) -> bool {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(x, y) in edges {
        adj[x].push(y);
        adj[y].push(x);
    }
    let mut seen = vec![false; n];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(u) = stack.pop() {
        for &v in &adj[u] {
            if !seen[v] {
                seen[v] = true;
                stack.push(v);
            }
        }
    }
    seen.iter().all(|&s| s)
}
