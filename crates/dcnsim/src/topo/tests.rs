//! Counts, degrees, names and errors of the generated kinds, and the checks of `[topology]`.
//! The parking lot and the file format have their tests beside their code.

use super::*;
use crate::error::ConfigError;
use std::path::Path;

fn cfg(text: &str) -> TopologyConfig {
    toml::from_str(text).unwrap_or_else(|e| panic!("bad test TOML {text:?}: {e}"))
}

pub(super) fn topo(text: &str) -> TopoSpec {
    build(&cfg(text), Path::new("."), 1).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

pub(super) fn topo_err(text: &str) -> ConfigError {
    match build(&cfg(text), Path::new("."), 1) {
        Ok(t) => panic!("expected an error for {text:?}, got {}", t.description),
        Err(e) => e,
    }
}

pub(super) fn degree(t: &TopoSpec, name: &str) -> usize {
    let i = t
        .node_index(name)
        .unwrap_or_else(|| panic!("no node {name}"));
    t.links.iter().filter(|l| l.a == i || l.b == i).count()
}

/// Name of the one node host `id` is linked to.
pub(super) fn host_switch(t: &TopoSpec, id: usize) -> &str {
    let h = t.hosts[id];
    let mut ends = t.links.iter().filter_map(|l| match (l.a == h, l.b == h) {
        (true, _) => Some(l.b),
        (_, true) => Some(l.a),
        _ => None,
    });
    let sw = ends.next().expect("host has a link");
    assert!(ends.next().is_none(), "host h{id} has more than one link");
    &t.nodes[sw].name
}

/// Invariants of every generated kind: hosts named h0.. in id order and each with exactly one
/// link, to a switch; racks partition the host ids in order; names unique.
fn check_common(t: &TopoSpec) {
    for (id, &h) in t.hosts.iter().enumerate() {
        assert_eq!(t.nodes[h].name, format!("h{id}"));
        assert_eq!(t.nodes[h].kind, NodeKind::Host);
        let sw = t.node_index(host_switch(t, id)).unwrap();
        assert_eq!(t.nodes[sw].kind, NodeKind::Switch);
    }
    let flat: Vec<u32> = t.racks.iter().flatten().copied().collect();
    assert_eq!(flat, (0..t.hosts.len() as u32).collect::<Vec<_>>());
    for r in &t.racks {
        let sw: Vec<&str> = r.iter().map(|&h| host_switch(t, h as usize)).collect();
        assert!(
            sw.iter().all(|s| *s == sw[0]),
            "a rack sits under one switch"
        );
    }
    let mut names: Vec<&str> = t.nodes.iter().map(|n| &n.name[..]).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), t.nodes.len(), "names are unique");
}

fn switches(t: &TopoSpec) -> usize {
    t.nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Switch)
        .count()
}

#[test]
fn star() {
    let t = topo("kind = 'star'\nhosts = 5");
    check_common(&t);
    assert_eq!((t.hosts.len(), switches(&t), t.links.len()), (5, 1, 5));
    assert_eq!(degree(&t, "sw"), 5);
    assert_eq!(t.description, "star: 5 hosts, 1 switch, 5 links");
    assert_eq!(topo("kind = 'star'").hosts.len(), 8);
}

#[test]
fn dumbbell() {
    let t = topo("kind = 'dumbbell'\nsenders = 3\nreceivers = 2\nbottleneck_gbps = 1");
    check_common(&t);
    assert_eq!((t.hosts.len(), switches(&t), t.links.len()), (5, 2, 6));
    assert_eq!((degree(&t, "left"), degree(&t, "right")), (4, 3));
    assert_eq!((host_switch(&t, 2), host_switch(&t, 3)), ("left", "right"));
    assert_eq!(t.racks, vec![vec![0, 1, 2], vec![3, 4]]);
    let neck = t.links.last().unwrap();
    assert_eq!(neck.rate_ab, Rate::gbps(1));
    assert!(t.links[..5].iter().all(|l| l.rate_ab == Rate::gbps(10)));
    let d = topo("kind = 'dumbbell'");
    assert_eq!(d.hosts.len(), 16);
    assert_eq!(d.links.last().unwrap().rate_ab, Rate::gbps(10));
}

#[test]
fn tree_default_is_merps_nine_servers() {
    let t = topo("kind = 'tree'\nlink_gbps = 1\ncore_gbps = 2");
    check_common(&t);
    assert_eq!((t.hosts.len(), switches(&t), t.links.len()), (9, 4, 12));
    assert_eq!(degree(&t, "root"), 3);
    for tor in ["tor0", "tor1", "tor2"] {
        assert_eq!(degree(&t, tor), 4);
    }
    assert_eq!(host_switch(&t, 4), "tor1");
    assert_eq!(t.racks.len(), 3);
    assert!(t.links[9..].iter().all(|l| l.rate_ab == Rate::gbps(2)));
    let big = topo("kind = 'tree'\ntors = 4\nhosts_per_tor = 10");
    assert_eq!((big.hosts.len(), big.links.len()), (40, 44));
}

#[test]
fn fattree_k4_and_k8() {
    let t = topo("kind = 'fattree'\nk = 4");
    check_common(&t);
    assert_eq!((t.hosts.len(), switches(&t), t.links.len()), (16, 20, 48));
    assert_eq!(
        t.description,
        "k=4 fat-tree: 16 hosts, 20 switches, 48 links"
    );
    for n in t.nodes.iter().filter(|n| n.kind == NodeKind::Switch) {
        assert_eq!(degree(&t, &n.name), 4, "{}", n.name);
    }
    assert_eq!(t.racks.len(), 8);
    assert_eq!(t.racks[1], vec![2, 3]);
    assert_eq!(host_switch(&t, 5), "edge1_0");
    // Every core reaches each pod once; agg j of each pod reaches cores j*2, j*2+1.
    let linked = |a: &str, b: &str| {
        let (a, b) = (t.node_index(a).unwrap(), t.node_index(b).unwrap());
        t.links
            .iter()
            .any(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a))
    };
    assert!(linked("agg2_1", "core2") && linked("agg2_1", "core3"));
    assert!(!linked("agg2_1", "core0") && !linked("agg2_0", "core3"));
    assert!(linked("edge3_0", "agg3_1") && !linked("edge3_0", "agg2_1"));

    let t = topo("kind = 'fattree'\nk = 8\nagg_gbps = 10\ncore_gbps = 40");
    check_common(&t);
    assert_eq!((t.hosts.len(), switches(&t)), (128, 80));
    assert_eq!(t.links.len(), 128 + 8 * 4 * 4 + 8 * 4 * 4);
    let core = t.node_index("core15").unwrap();
    for l in &t.links {
        let want = if l.a == core || t.nodes[l.b].name.starts_with("core") {
            Rate::gbps(40)
        } else {
            Rate::gbps(10)
        };
        assert_eq!(l.rate_ab, want);
    }
    assert_eq!(degree(&t, "core15"), 8);
    let two = topo("kind = 'fattree'\nk = 2");
    assert_eq!(
        (two.hosts.len(), switches(&two), two.links.len()),
        (2, 5, 6)
    );
}

#[test]
fn leafspine_and_overrides() {
    let text = "kind = 'leafspine'\nleaves = 3\nspines = 4\nhosts_per_leaf = 5\nspine_gbps = 40";
    let t = topo(text);
    check_common(&t);
    assert_eq!((t.hosts.len(), switches(&t), t.links.len()), (15, 7, 27));
    assert_eq!(degree(&t, "leaf2"), 5 + 4);
    assert_eq!(degree(&t, "spine3"), 3);
    assert_eq!(host_switch(&t, 14), "leaf2");
    assert_eq!(topo("kind = 'leafspine'").hosts.len(), 20);

    let o = topo(&format!(
        "{text}\n[[link_overrides]]\nbetween = ['spine3', 'leaf0']\ngbps = 10\ndelay_us = 37.5"
    ));
    let (leaf0, spine3) = (
        t.node_index("leaf0").unwrap(),
        t.node_index("spine3").unwrap(),
    );
    let mut changed = 0;
    for (before, after) in t.links.iter().zip(&o.links) {
        if (before.a, before.b) == (leaf0, spine3) {
            changed += 1;
            assert_eq!(
                (after.rate_ab, after.rate_ba),
                (Rate::gbps(10), Rate::gbps(10))
            );
            assert_eq!(after.delay_ab, Time::from_ns(37_500));
            assert_eq!(after.delay_ba, Time::from_ns(37_500));
        } else {
            assert_eq!(before, after);
        }
    }
    assert_eq!(changed, 1);
}

#[test]
fn override_errors_name_the_entry() {
    let base = "kind = 'leafspine'\nleaves = 2\nspines = 2\nhosts_per_leaf = 1";
    let cases = [
        (
            "between = ['leaf0', 'spine9']\ngbps = 1",
            "topology.link_overrides[0].between",
            "no node named 'spine9'",
        ),
        (
            "between = ['leaf0', 'leaf1']\ngbps = 1",
            "topology.link_overrides[0].between",
            "not joined",
        ),
        (
            "between = ['leaf0', 'spine1']",
            "topology.link_overrides[0]",
            "sets nothing",
        ),
        (
            "between = ['leaf0', 'spine1']\ngbps = -2",
            "topology.link_overrides[0].gbps",
            "positive rate",
        ),
        (
            "between = ['leaf0', 'spine1']\ndelay_us = 0",
            "topology.link_overrides[0].delay_us",
            "must be a finite time > 0 µs (got 0)",
        ),
    ];
    for (entry, path, msg) in cases {
        let e = topo_err(&format!("{base}\n[[link_overrides]]\n{entry}"));
        assert_eq!(e.path, path, "{entry}: {e}");
        assert!(e.message.contains(msg), "{entry}: {e}");
    }
    let twice = "[[link_overrides]]\nbetween = ['leaf0', 'spine1']\ngbps = 1\n";
    let e = topo_err(&format!(
        "{base}\n{twice}{}",
        twice.replace("'leaf0', 'spine1'", "'spine1', 'leaf0'")
    ));
    assert_eq!(e.path, "topology.link_overrides[1].between");
    assert!(
        e.message
            .contains("already overridden by link_overrides[0]"),
        "{e}"
    );
}

#[test]
fn common_keys_are_validated_with_their_path() {
    let cases = [
        (
            "kind = 'star'\nlink_gbps = -1",
            "topology.link_gbps",
            "positive rate",
        ),
        (
            "kind = 'star'\nlink_gbps = 0",
            "topology.link_gbps",
            "positive rate",
        ),
        (
            "kind = 'star'\nlink_delay_us = -1",
            "topology.link_delay_us",
            "must be a finite time > 0 µs (got -1)",
        ),
        (
            "kind = 'star'\nbuffer_pkts = 10\nbuffer_kb = 150",
            "topology.buffer_kb",
            "only one of",
        ),
        (
            "kind = 'star'\nbuffer_pkts = 0",
            "topology.buffer_pkts",
            "at least 1",
        ),
        (
            "kind = 'star'\nbuffer_kb = -3",
            "topology.buffer_kb",
            "positive size",
        ),
        ("kind = 'star'\nhosts = 0", "topology.hosts", "at least 1"),
        (
            "kind = 'ring'",
            "topology.kind",
            "expected one of star, dumbbell",
        ),
        ("kind = 'fattree'\nk = 5", "topology.k", "even"),
        ("kind = 'fattree'\nk = 0", "topology.k", "even"),
        ("kind = 'fattree'\nk = 1000", "topology.k", "more than"),
        (
            "kind = 'fattree'\ncore_gbps = -40",
            "topology.core_gbps",
            "positive rate",
        ),
        (
            "kind = 'dumbbell'\nbottleneck_gbps = -1",
            "topology.bottleneck_gbps",
            "positive rate",
        ),
        (
            "kind = 'leafspine'\nspines = 0",
            "topology.spines",
            "at least 1",
        ),
        (
            "kind = 'parkinglot'\nforwarders = 1",
            "topology.forwarders",
            "between 2 and 26",
        ),
        (
            "kind = 'tree'\nhosts_per_tor = 0",
            "topology.hosts_per_tor",
            "at least 1",
        ),
    ];
    for (text, path, msg) in cases {
        let e = topo_err(text);
        assert_eq!(e.path, path, "{text:?}: {e}");
        assert!(e.message.contains(msg), "{text:?}: {e}");
    }
}

#[test]
fn keys_of_other_kinds_are_refused() {
    let cases = [
        (
            "kind = 'leafspine'\nk = 8",
            "topology.k",
            "not used by kind 'leafspine'; its keys are: leaves, spines, hosts_per_leaf, \
             spine_gbps, link_gbps, link_delay_us, buffer_pkts, buffer_kb, ecn_k_pkts, host_nic, \
             link_overrides; k is for kind 'fattree' or 'bcube'",
        ),
        (
            "kind = 'star'\nreceivers = 2",
            "topology.receivers",
            "receivers is for kind 'dumbbell' or 'parkinglot'",
        ),
        (
            "kind = 'fattree'\nhosts = 4",
            "topology.hosts",
            "hosts is for kind 'star'",
        ),
        (
            "kind = 'tree'\nfile = 'x.topo'",
            "topology.file",
            "file is for kind 'file'",
        ),
        (
            "kind = 'file'\nfile = 'x.topo'\ntors = 2",
            "topology.tors",
            "tors is for kind 'tree'",
        ),
    ];
    for (text, path, msg) in cases {
        let e = topo_err(text);
        assert_eq!(e.path, path, "{text:?}: {e}");
        assert!(e.message.contains(msg), "{text:?}: {e}");
    }
}

#[test]
fn buffers_and_delays_reach_every_link() {
    let t = topo("kind = 'tree'\nbuffer_kb = 150\nlink_delay_us = 10");
    assert!(t
        .links
        .iter()
        .all(|l| l.buffer == BufferSize::Bytes(150_000) && l.delay_ba == Time::from_us(10)));
    let t = topo("kind = 'star'\nbuffer_pkts = 250");
    assert_eq!(t.links[0].buffer, BufferSize::Packets(250));
    assert_eq!(topo("kind = 'star'").links[0].delay_ab, Time::from_us(1));
}

#[test]
fn every_kind_is_listed_and_serialises_back() {
    let kinds: Vec<&str> = TOPOLOGIES.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        kinds,
        [
            "star",
            "dumbbell",
            "tree",
            "fattree",
            "leafspine",
            "parkinglot",
            "bcube",
            "jellyfish",
            "file"
        ]
    );
    let c = cfg("kind = 'leafspine'\n[[link_overrides]]\nbetween = ['leaf0', 'spine1']\ngbps = 1");
    let json = serde_json::to_string(&c).unwrap();
    assert!(!json.contains("null"), "{json}");
    assert_eq!(serde_json::from_str::<TopologyConfig>(&json).unwrap(), c);
    assert_eq!(
        TopologyConfig::of_kind("fattree").effective_link_delay_us(),
        1.0
    );
}
