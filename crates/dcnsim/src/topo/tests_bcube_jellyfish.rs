//! BCube and Jellyfish: counts, degrees, the routes the tables give, determinism and errors.

use super::tests::{degree, topo, topo_err};
use super::*;
use crate::net::queue::Discipline;
use crate::net::{Network, NodeIdx, PortIdx};
use std::collections::HashSet;

fn network(t: &TopoSpec) -> Network {
    Network::build(t, Discipline::Fifo, &|_| None)
}

fn count_kind(t: &TopoSpec, kind: NodeKind) -> usize {
    t.nodes.iter().filter(|n| n.kind == kind).count()
}

/// Follows the first next hop from host `a` to host `b`; the nodes visited, `a` and `b`
/// included, or `None` if the walk dead-ends or loops.
fn walk(net: &Network, a: u32, b: u32) -> Option<Vec<NodeIdx>> {
    let mut node = net.hosts[a as usize];
    let mut seen = vec![node];
    while node != net.hosts[b as usize] {
        let &p = net.routing.next_hops(node, b).first()?;
        node = net.ports[p as usize].peer;
        if seen.len() > net.nodes.len() {
            return None;
        }
        seen.push(node);
    }
    Some(seen)
}

/// The port of `from` that leads to `to`.
fn port_to(net: &Network, from: NodeIdx, to: NodeIdx) -> PortIdx {
    *net.nodes[from as usize]
        .ports
        .iter()
        .find(|&&p| net.ports[p as usize].peer == to)
        .expect("adjacent")
}

#[test]
fn bcube_2_3_counts_names_and_ports() {
    let t = topo("kind = 'bcube'\nn = 2\nk = 3");
    assert_eq!(
        (
            t.hosts.len(),
            count_kind(&t, NodeKind::Switch),
            t.links.len()
        ),
        (16, 32, 64)
    );
    assert!(t.hosts_relay);
    assert_eq!(t.description, "BCube(2,3): 16 hosts, 32 switches, 64 links");
    for (id, &h) in t.hosts.iter().enumerate() {
        assert_eq!(t.nodes[h].name, format!("h{id}"));
        assert_eq!(degree(&t, &t.nodes[h].name), 4, "k+1 ports per server");
    }
    for level in 0..4 {
        for j in 0..8 {
            assert_eq!(
                degree(&t, &format!("sw{level}_{j}")),
                2,
                "n ports per switch"
            );
        }
    }
    // A server's port l is its level-l link: h13 = 1101 is on sw0_6 (011 → 110 read high to low), sw1_7,
    // sw2_5 (101), sw3_5 (101), and a level-l switch joins servers differing only in digit l.
    let net = network(&t);
    let h13 = &net.nodes[t.hosts[13]];
    let peers: Vec<&str> = h13
        .ports
        .iter()
        .map(|&p| net.node_name(net.ports[p as usize].peer))
        .collect();
    assert_eq!(peers, ["sw0_6", "sw1_7", "sw2_5", "sw3_5"]);
    let sw2_5 = t.node_index("sw2_5").unwrap();
    let mut members: Vec<&str> = t
        .links
        .iter()
        .filter(|l| l.b == sw2_5)
        .map(|l| &t.nodes[l.a].name[..])
        .collect();
    members.sort_unstable();
    assert_eq!(members, ["h13", "h9"]);
    assert_eq!(t.racks[6], vec![12, 13]);
    // The defaults are PDQ's BCube(2,3).
    assert_eq!(topo("kind = 'bcube'"), t);
    let b31 = topo("kind = 'bcube'\nn = 3\nk = 1");
    assert_eq!((b31.hosts.len(), b31.links.len()), (9, 18));
    assert_eq!(degree(&b31, "sw1_0"), 3);
}

#[test]
fn bcube_servers_relay_and_every_pair_has_a_shortest_path() {
    let t = topo("kind = 'bcube'\nn = 2\nk = 3");
    let net = network(&t);
    for a in 0..16u32 {
        for b in (0..16u32).filter(|&b| b != a) {
            let path = walk(&net, a, b).unwrap_or_else(|| panic!("no path h{a} -> h{b}"));
            // One server hop (two links) per differing digit.
            let h = (a ^ b).count_ones() as usize;
            assert_eq!(path.len() - 1, 2 * h, "h{a} -> h{b}");
        }
    }
}

/// h0 = 0000 and h15 = 1111 differ in every digit: all k+1 = 4 ports of h0 are equal-cost first
/// hops, and BuildPathSet's four parallel paths (each starting on a different level) are paths
/// of the tables and share no link.
#[test]
fn bcube_pair_differing_in_all_digits_has_k_plus_1_disjoint_paths() {
    let t = topo("kind = 'bcube'\nn = 2\nk = 3");
    let net = network(&t);
    let first: HashSet<PortIdx> = net
        .routing
        .next_hops(net.hosts[0], 15)
        .iter()
        .copied()
        .collect();
    let all: HashSet<PortIdx> = net.nodes[t.hosts[0]].ports.iter().copied().collect();
    assert_eq!(first, all);
    check_parallel_paths(&net, 2, 3, 0, 15, 4);
}

/// For every pair: BuildPathSet gives k+1 pairwise link-disjoint paths; the h DCRouting ones
/// (h = differing digits) are shortest and lie in the routing tables, the others are longer by
/// two server hops.
#[test]
fn bcube_build_path_set_is_parallel_and_its_shortest_paths_are_routable() {
    for (n, k) in [(2usize, 3usize), (3, 2)] {
        let t = topo(&format!("kind = 'bcube'\nn = {n}\nk = {k}"));
        let net = network(&t);
        let servers = t.hosts.len();
        for a in 0..servers {
            for b in (0..servers).filter(|&b| b != a) {
                let digits = |x: usize| (0..=k).map(move |l| x / n.pow(l as u32) % n);
                let h = digits(a).zip(digits(b)).filter(|(x, y)| x != y).count();
                check_parallel_paths(&net, n, k, a, b, h);
            }
        }
    }
}

fn check_parallel_paths(net: &Network, n: usize, k: usize, a: usize, b: usize, h: usize) {
    let paths = bcube::parallel_paths(n, k, a, b);
    assert_eq!(paths.len(), k + 1);
    let mut used: HashSet<PortIdx> = HashSet::new();
    let mut shortest = 0;
    for path in &paths {
        assert_eq!((path[0], *path.last().unwrap()), (a, b));
        let routable = path.len() - 1 == h;
        shortest += routable as usize;
        assert!(path.len() - 1 == h || path.len() - 1 == h + 2, "{path:?}");
        for w in path.windows(2) {
            let (x, y) = (net.hosts[w[0]], net.hosts[w[1]]);
            // The switch joining the two servers: the level where their digits differ.
            let level = (0..=k)
                .find(|&l| w[0] / n.pow(l as u32) % n != w[1] / n.pow(l as u32) % n)
                .unwrap();
            let sw = net.ports[net.nodes[x as usize].ports[level] as usize].peer;
            let (up, down) = (port_to(net, x, sw), port_to(net, sw, y));
            assert!(used.insert(up) && used.insert(down), "paths share a link");
            if routable {
                assert!(net.routing.next_hops(x, b as u32).contains(&up));
                assert!(net.routing.next_hops(sw, b as u32).contains(&down));
            }
        }
    }
    assert_eq!(shortest, h, "one shortest path per differing digit");
}

#[test]
fn bcube_refuses_bad_parameters_naming_the_key() {
    let e = topo_err("kind = 'bcube'\nn = 1");
    assert_eq!(e.path, "topology.n");
    assert!(e.message.contains("at least 2"), "{e}");
    let e = topo_err("kind = 'bcube'\nn = 8\nk = 12");
    assert_eq!(e.path, "topology.k");
    assert!(e.message.contains("BCube(8,12)"), "{e}");
    let e = topo_err("kind = 'bcube'\nn = 2\nk = 200");
    assert_eq!(e.path, "topology.k");
    // The largest k a scenario dict can hold (JSON's u64, beyond TOML's integers): k + 1
    // must not wrap to 0 levels of one server (then 2^64 empty levels were looped over).
    let json = format!(r#"{{"kind": "bcube", "n": 2, "k": {}}}"#, usize::MAX);
    let cfg: TopologyConfig = serde_json::from_str(&json).expect("a valid table");
    let e = build(&cfg, std::path::Path::new("."), 1).expect_err("refused");
    assert_eq!(e.path, "topology.k");
    let e = topo_err("kind = 'fattree'\nn = 2");
    assert_eq!(e.path, "topology.n");
    assert!(e.message.contains("bcube"), "{e}");
    assert_eq!(topo("kind = 'bcube'\nn = 4\nk = 0").hosts.len(), 4);
}

fn jelly(extra: &str) -> TopoSpec {
    topo(&format!(
        "kind = 'jellyfish'\nswitches = 30\nports_per_switch = 7\nhosts_per_switch = 3\n{extra}"
    ))
}

fn switch_edges(t: &TopoSpec) -> Vec<(usize, usize)> {
    t.links
        .iter()
        .filter(|l| t.nodes[l.a].kind == NodeKind::Switch && t.nodes[l.b].kind == NodeKind::Switch)
        .map(|l| (l.a.min(l.b), l.a.max(l.b)))
        .collect()
}

#[test]
fn jellyfish_degrees_and_a_simple_connected_graph() {
    let t = jelly("");
    assert_eq!((t.hosts.len(), count_kind(&t, NodeKind::Switch)), (90, 30));
    assert!(!t.hosts_relay);
    let edges = switch_edges(&t);
    let unique: HashSet<_> = edges.iter().collect();
    assert_eq!(unique.len(), edges.len(), "no parallel links");
    assert!(edges.iter().all(|(a, b)| a != b), "no self-loops");
    // 30 switches x 4 network ports: every port used but at most two left free (two switches
    // that end adjacent with one free port each).
    assert!(edges.len() * 2 >= 30 * 4 - 2, "{} links", edges.len());
    for i in 0..30 {
        let d = degree(&t, &format!("sw{i}"));
        assert!(d == 7 || d == 6, "sw{i} has degree {d}");
    }
    for (id, &h) in t.hosts.iter().enumerate() {
        assert_eq!(super::tests::host_switch(&t, id), format!("sw{}", id / 3));
        assert_eq!(degree(&t, &t.nodes[h].name), 1);
    }
    assert_eq!(t.racks[29], vec![87, 88, 89]);
    let net = network(&t);
    for a in 0..90u32 {
        for b in (0..90u32).filter(|&b| b != a) {
            assert!(walk(&net, a, b).is_some(), "h{a} -> h{b}");
        }
    }
}

#[test]
fn jellyfish_graph_follows_the_seed() {
    let seeded = |seed: u64| {
        let cfg: TopologyConfig = toml::from_str(
            "kind = 'jellyfish'\nswitches = 30\nports_per_switch = 7\nhosts_per_switch = 3",
        )
        .unwrap();
        build(&cfg, std::path::Path::new("."), seed).unwrap()
    };
    assert_eq!(switch_edges(&seeded(7)), switch_edges(&seeded(7)));
    assert_ne!(switch_edges(&seeded(7)), switch_edges(&seeded(8)));
    // Even r = 2 (a union of cycles unless redrawn) comes out connected.
    let cfg: TopologyConfig = toml::from_str(
        "kind = 'jellyfish'\nswitches = 12\nports_per_switch = 3\nhosts_per_switch = 1",
    )
    .unwrap();
    for seed in 0..5 {
        build(&cfg, std::path::Path::new("."), seed).unwrap();
    }
}

#[test]
fn jellyfish_refuses_impossible_parameters_naming_the_key() {
    let e = topo_err("kind = 'jellyfish'\nports_per_switch = 4\nhosts_per_switch = 4");
    assert_eq!(e.path, "topology.ports_per_switch");
    assert!(e.message.contains("hosts_per_switch"), "{e}");
    let e =
        topo_err("kind = 'jellyfish'\nswitches = 5\nports_per_switch = 10\nhosts_per_switch = 2");
    assert_eq!(e.path, "topology.ports_per_switch");
    assert!(e.message.contains("at most 6 ports"), "{e}");
    let e = topo_err("kind = 'jellyfish'\nswitches = 1");
    assert_eq!(e.path, "topology.switches");
    let e = topo_err("kind = 'jellyfish'\nswitches = 0");
    assert_eq!(e.path, "topology.switches");
    let e =
        topo_err("kind = 'jellyfish'\nswitches = 3\nports_per_switch = 2\nhosts_per_switch = 1");
    assert_eq!(e.path, "topology.ports_per_switch");
    assert!(e.message.contains("disconnected"), "{e}");
    let e = topo_err("kind = 'star'\nhosts_per_switch = 2");
    assert_eq!(e.path, "topology.hosts_per_switch");
    let e = topo_err("kind = 'jellyfish'\nswitches = 100000000\nhosts_per_switch = 100");
    assert_eq!(e.path, "topology.switches");
}
