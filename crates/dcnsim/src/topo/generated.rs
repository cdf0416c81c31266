//! The regular data-center layouts: star, dumbbell, single-rooted tree, fat-tree, leaf-spine.
//! Keys, names and host order are documented in the module doc of `topo`.
//!
//! Each builder adds the hosts first (so node index = host id), then the switches, then the
//! host links in host order, then the switch–switch links tier by tier. The order of links is
//! part of the output (port numbering follows it), so it is kept simple and documented here.

use super::builder::{Builder, LinkParams};
use super::check::{rate_or, size};
use super::TopologyConfig;
use crate::error::{ConfigError, ConfigResult};
use crate::validate::at_least_one;

pub(super) type Built = (Builder, String);

/// Links each host of `hosts` to `sw` and records them as one rack.
fn rack_on(b: &mut Builder, sw: usize, hosts: &[usize], p: LinkParams) {
    for &h in hosts {
        b.link(h, sw, p);
    }
    b.rack(hosts);
}

pub(super) fn star(cfg: &TopologyConfig, p: &LinkParams) -> ConfigResult<Built> {
    let n = at_least_one("topology.hosts", cfg.hosts, 8)?;
    size(&[&[("hosts", n)], &[("", 1)]])?;
    let mut b = Builder::new();
    let hosts = b.hosts(n);
    let sw = b.switch("sw".into());
    rack_on(&mut b, sw, &hosts, *p);
    Ok((b, "star".into()))
}

pub(super) fn dumbbell(cfg: &TopologyConfig, p: &LinkParams) -> ConfigResult<Built> {
    let s = at_least_one("topology.senders", cfg.senders, 8)?;
    let r = at_least_one("topology.receivers", cfg.receivers, s)?;
    size(&[&[("senders", s)], &[("receivers", r)], &[("", 2)]])?;
    let bottleneck = rate_or(cfg.bottleneck_gbps, "topology.bottleneck_gbps", p.rate)?;
    let mut b = Builder::new();
    let left_hosts = b.hosts(s);
    let right_hosts = b.hosts(r);
    let left = b.switch("left".into());
    let right = b.switch("right".into());
    rack_on(&mut b, left, &left_hosts, *p);
    rack_on(&mut b, right, &right_hosts, *p);
    b.link(left, right, p.with_rate(bottleneck));
    Ok((b, format!("dumbbell {s} to {r}")))
}

pub(super) fn tree(cfg: &TopologyConfig, p: &LinkParams) -> ConfigResult<Built> {
    let tors = at_least_one("topology.tors", cfg.tors, 3)?;
    let per = at_least_one("topology.hosts_per_tor", cfg.hosts_per_tor, 3)?;
    size(&[
        &[("tors", tors), ("hosts_per_tor", per)],
        &[("tors", tors)],
        &[("", 1)],
    ])?;
    let up = rate_or(cfg.core_gbps, "topology.core_gbps", p.rate)?;
    let mut b = Builder::new();
    let hosts = b.hosts(tors * per);
    let tor: Vec<usize> = (0..tors).map(|t| b.switch(format!("tor{t}"))).collect();
    let root = b.switch("root".into());
    for (t, chunk) in hosts.chunks(per).enumerate() {
        rack_on(&mut b, tor[t], chunk, *p);
    }
    for &t in &tor {
        b.link(t, root, p.with_rate(up));
    }
    Ok((b, format!("tree of {tors} ToRs x {per} hosts")))
}

pub(super) fn fattree(cfg: &TopologyConfig, p: &LinkParams) -> ConfigResult<Built> {
    let k = cfg.k.unwrap_or(4);
    if k < 2 || !k.is_multiple_of(2) {
        return Err(ConfigError::new(
            "topology.k",
            format!("must be an even number >= 2 (e.g. 4 or 8), got {k}"),
        ));
    }
    let half = k / 2;
    // hosts k^3/4, edge + agg k^2, core k^2/4
    size(&[
        &[("k", k), ("", half), ("", half)],
        &[("k", k), ("k", k)],
        &[("", half), ("", half)],
    ])?;
    let agg_rate = rate_or(cfg.agg_gbps, "topology.agg_gbps", p.rate)?;
    let core_rate = rate_or(cfg.core_gbps, "topology.core_gbps", p.rate)?;
    let mut b = Builder::new();
    let hosts = b.hosts(k * half * half);
    let mut edge = Vec::with_capacity(k * half);
    let mut agg = Vec::with_capacity(k * half);
    for pod in 0..k {
        for i in 0..half {
            edge.push(b.switch(format!("edge{pod}_{i}")));
        }
        for j in 0..half {
            agg.push(b.switch(format!("agg{pod}_{j}")));
        }
    }
    let core: Vec<usize> = (0..half * half)
        .map(|c| b.switch(format!("core{c}")))
        .collect();
    // Edge switch e = pod·k/2 + i holds hosts e·k/2 .. e·k/2 + k/2 - 1.
    for (e, chunk) in hosts.chunks(half).enumerate() {
        rack_on(&mut b, edge[e], chunk, *p);
    }
    for pod in 0..k {
        for i in 0..half {
            for j in 0..half {
                b.link(
                    edge[pod * half + i],
                    agg[pod * half + j],
                    p.with_rate(agg_rate),
                );
            }
        }
    }
    // Aggregation switch j of every pod reaches the j-th group of k/2 cores, so each core
    // has exactly one link into each pod (Al-Fares et al., §3).
    for pod in 0..k {
        for j in 0..half {
            for m in 0..half {
                b.link(
                    agg[pod * half + j],
                    core[j * half + m],
                    p.with_rate(core_rate),
                );
            }
        }
    }
    Ok((b, format!("k={k} fat-tree")))
}

pub(super) fn leafspine(cfg: &TopologyConfig, p: &LinkParams) -> ConfigResult<Built> {
    let leaves = at_least_one("topology.leaves", cfg.leaves, 2)?;
    let spines = at_least_one("topology.spines", cfg.spines, 10)?;
    let per = at_least_one("topology.hosts_per_leaf", cfg.hosts_per_leaf, 10)?;
    let (l, sp) = (("leaves", leaves), ("spines", spines));
    size(&[&[l, ("hosts_per_leaf", per)], &[l], &[sp]])?;
    // leaves × spines links can be large even when the node count is not.
    size(&[&[l, sp]])?;
    let up = rate_or(cfg.spine_gbps, "topology.spine_gbps", p.rate)?;
    let mut b = Builder::new();
    let hosts = b.hosts(leaves * per);
    let leaf: Vec<usize> = (0..leaves).map(|i| b.switch(format!("leaf{i}"))).collect();
    let spine: Vec<usize> = (0..spines).map(|j| b.switch(format!("spine{j}"))).collect();
    for (i, chunk) in hosts.chunks(per).enumerate() {
        rack_on(&mut b, leaf[i], chunk, *p);
    }
    for &l in &leaf {
        for &s in &spine {
            b.link(l, s, p.with_rate(up));
        }
    }
    Ok((
        b,
        format!("leaf-spine {leaves} leaves x {spines} spines x {per} hosts"),
    ))
}
