//! Shortest-path routing tables: for every node and destination host, the set of equal-cost
//! next-hop ports. Path choice (`lb/`) picks one of them per packet.
//!
//! Tables are computed by a breadth-first search from each destination host over the links
//! that are up. In switch-centric topologies hosts do not relay traffic for others (they are
//! leaves of the search); in server-centric ones (BCube) they do, and a relaying host's table
//! is built and used exactly as a switch's.
//!
//! **Destinations that share rows.** Hosts with one link, to the same node (a rack's switch),
//! are as far from every node but themselves as each other (no shortest path runs through a
//! one-link host), so every node but that one and the hosts themselves has the same next hops
//! towards each of them: they form one *class*, searched once from one of them, and the table
//! holds next hops per (class, node), not per (host, node). The searched host's own entry is
//! towards the others.
//! A destination's neighbour reaches it by its own link, and a host has no next hop towards
//! itself: `next_hops` answers those two cases from the destination. Every other host (several
//! links, or its link down) is a class of its own. On a 1024-host fat-tree this makes the
//! searches and the table 8× smaller; the next hops are the same, in the same order (tests).
//!
//! The table is a flat array of port indices with one (start, len) slice per (class, node), a
//! class's slices side by side.

use super::network::{NodeIdx, PortIdx};

const NONE: u32 = u32::MAX;

pub struct RoutingTable {
    /// Nodes in the network.
    nodes: usize,
    dsts: Vec<Destination>,
    /// (start, len) into `ports`, indexed by class * nodes + node: a class's rows together, as
    /// walks towards one destination read them.
    slices: Vec<(u32, u32)>,
    ports: Vec<PortIdx>,
}

/// What `next_hops` needs of a destination host.
#[derive(Clone, Copy)]
struct Destination {
    class: u32,
    /// Its node.
    node: NodeIdx,
    /// For a one-link host: the node at the other end of its link (else `NONE`), and that
    /// node's port towards it.
    neighbour: NodeIdx,
    last_hop: PortIdx,
}

/// What routing needs of the graph.
pub struct Graph<'a> {
    /// For each node, its egress ports as (port, peer node, up).
    pub adjacency: &'a [Vec<(PortIdx, NodeIdx, bool)>],
    /// Node index of each host id.
    pub hosts: &'a [NodeIdx],
    pub is_host: &'a [bool],
    /// Hosts relay packets addressed to other hosts (server-centric topologies).
    pub hosts_relay: bool,
}

impl RoutingTable {
    /// A table with no routes (before the first computation).
    pub fn empty() -> RoutingTable {
        RoutingTable {
            nodes: 0,
            dsts: Vec::new(),
            slices: Vec::new(),
            ports: Vec::new(),
        }
    }

    pub fn compute(g: &Graph) -> RoutingTable {
        let n = g.adjacency.len();
        let into = reverse_adjacency(g);
        let (dsts, members) = classes(g, &into);
        let mut slices = vec![(0u32, 0u32); n * members.len()];
        let mut ports = Vec::new();
        let mut search = Search::new(n);
        for (class, hosts) in members.iter().enumerate() {
            search.rows(g, &into, hosts, &mut ports, |node, start, len| {
                slices[class * n + node] = (start, len);
            });
        }
        RoutingTable {
            nodes: n,
            dsts,
            slices,
            ports,
        }
    }

    /// The size of the table [`RoutingTable::compute`] would build for `g`, without building
    /// it: the classes exactly, the next-hop entries from the searches of
    /// `samples(classes)` classes spread over them (exact when the classes are alike, as in
    /// every generated layout but Jellyfish; 0 when none is searched). Costs the graph's size
    /// in memory and a search per sample.
    pub fn size_of(g: &Graph, samples: impl FnOnce(usize) -> usize) -> TableSize {
        let n = g.adjacency.len();
        let into = reverse_adjacency(g);
        let (_, members) = classes(g, &into);
        let classes = members.len();
        let samples = samples(classes).min(classes);
        let mut search = Search::new(n);
        let mut ports = Vec::new();
        let (mut searched, mut entries) = (0usize, 0usize);
        let step = classes.div_ceil(samples.max(1)).max(1);
        for hosts in members.iter().step_by(step).take(samples) {
            ports.clear();
            search.rows(g, &into, hosts, &mut ports, |_, _, _| {});
            entries += ports.len();
            searched += 1;
        }
        TableSize {
            classes,
            nodes: n,
            hosts: g.hosts.len(),
            entries: if searched == 0 {
                0.0
            } else {
                entries as f64 / searched as f64 * classes as f64
            },
        }
    }

    /// The port by which a one-link host `dst` is reached from its neighbour, if it shares
    /// its rows with `other` (same class): then every node but that neighbour and the two
    /// hosts has the same next hops towards both.
    pub fn shared_last_hop(&self, dst: u32, other: u32) -> Option<PortIdx> {
        let (d, o) = (&self.dsts[dst as usize], &self.dsts[other as usize]);
        (d.class == o.class && d.neighbour != NONE).then_some(d.last_hop)
    }

    /// Equal-cost next-hop ports from `node` towards host `dst` (empty: unreachable, or `node`
    /// is `dst`'s own).
    #[inline]
    pub fn next_hops(&self, node: NodeIdx, dst: u32) -> &[PortIdx] {
        let d = &self.dsts[dst as usize];
        if node == d.neighbour {
            return std::slice::from_ref(&d.last_hop);
        }
        if node == d.node {
            return &[];
        }
        let (start, len) = self.slices[d.class as usize * self.nodes + node as usize];
        &self.ports[start as usize..(start + len) as usize]
    }
}

/// What a routing table holds, from [`RoutingTable::size_of`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TableSize {
    /// Destination classes (hosts that share rows count once).
    pub classes: usize,
    pub nodes: usize,
    pub hosts: usize,
    /// Next-hop entries over all rows (estimated from sampled classes).
    pub entries: f64,
}

impl TableSize {
    /// Bytes of the table: a (start, len) slice per (class, node), the entries, and a
    /// destination record per host. `entries_growth` is the factor the entries' array may
    /// hold beyond its length while it grows (1 to 2).
    pub fn bytes(&self, entries_growth: f64) -> f64 {
        let slice = std::mem::size_of::<(u32, u32)>() as f64;
        let entry = std::mem::size_of::<PortIdx>() as f64;
        let dst = (std::mem::size_of::<Destination>() + std::mem::size_of::<u32>()) as f64;
        self.classes as f64 * self.nodes as f64 * slice
            + self.entries * entry * entries_growth
            + self.hosts as f64 * dst
    }
}

/// Who can reach each node in one hop over an up link: (port, node) pairs.
fn reverse_adjacency(g: &Graph) -> Vec<Vec<(PortIdx, NodeIdx)>> {
    let mut into: Vec<Vec<(PortIdx, NodeIdx)>> = vec![Vec::new(); g.adjacency.len()];
    for (node, adj) in g.adjacency.iter().enumerate() {
        for &(port, peer, up) in adj {
            if up {
                into[peer as usize].push((port, node as NodeIdx));
            }
        }
    }
    into
}

/// Every host's [`Destination`], and each class's hosts. Classes: one per node with one-link
/// hosts, in the order of their first host, and one per other host.
fn classes(g: &Graph, into: &[Vec<(PortIdx, NodeIdx)>]) -> (Vec<Destination>, Vec<Vec<u32>>) {
    let mut class_of_neighbour = vec![NONE; g.adjacency.len()];
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut dsts = Vec::with_capacity(g.hosts.len());
    for (dst, &node) in g.hosts.iter().enumerate() {
        let h = node as usize;
        let neighbour = match (&g.adjacency[h][..], &into[h][..]) {
            (&[(_, out_peer, _)], &[(last_hop, in_peer)]) if out_peer == in_peer => {
                Some((in_peer, last_hop))
            }
            _ => None,
        };
        let class = match neighbour {
            Some((next_to, _)) if class_of_neighbour[next_to as usize] != NONE => {
                class_of_neighbour[next_to as usize]
            }
            _ => {
                let c = members.len() as u32;
                if let Some((next_to, _)) = neighbour {
                    class_of_neighbour[next_to as usize] = c;
                }
                members.push(Vec::new());
                c
            }
        };
        members[class as usize].push(dst as u32);
        let (neighbour, last_hop) = neighbour.unwrap_or((NONE, NONE));
        dsts.push(Destination {
            class,
            node,
            neighbour,
            last_hop,
        });
    }
    (dsts, members)
}

/// The breadth-first search of one class, with its scratch space.
struct Search {
    dist: Vec<u32>,
    queue: std::collections::VecDeque<NodeIdx>,
}

impl Search {
    fn new(nodes: usize) -> Search {
        Search {
            dist: vec![u32::MAX; nodes],
            queue: std::collections::VecDeque::new(),
        }
    }

    /// Searches from one host of the class `hosts` (it stands for all of them), appends every
    /// node's next hops towards the class to `ports` and reports each row as
    /// `row(node, start, len)` (nodes that have no row are not reported).
    fn rows(
        &mut self,
        g: &Graph,
        into: &[Vec<(PortIdx, NodeIdx)>],
        hosts: &[u32],
        ports: &mut Vec<PortIdx>,
        mut row: impl FnMut(usize, u32, u32),
    ) {
        let relays = |m: NodeIdx| g.hosts_relay || !g.is_host[m as usize];
        let dist = &mut self.dist;
        let dst_node = g.hosts[hosts[0] as usize];
        dist.iter_mut().for_each(|d| *d = u32::MAX);
        dist[dst_node as usize] = 0;
        self.queue.clear();
        self.queue.push_back(dst_node);
        while let Some(m) = self.queue.pop_front() {
            if m != dst_node && !relays(m) {
                continue; // a host that does not relay is a leaf
            }
            for &(_, prev) in &into[m as usize] {
                if dist[prev as usize] == u32::MAX {
                    dist[prev as usize] = dist[m as usize] + 1;
                    self.queue.push_back(prev);
                }
            }
        }
        for node in 0..g.adjacency.len() {
            let own = node == dst_node as usize;
            let shared = hosts.len() > 1;
            if (own && !shared) || dist[node] == u32::MAX {
                continue;
            }
            // The searched host's own row is towards the other hosts of its class: out
            // over its link (if up) to their neighbour, at distance 1 from them.
            let want = if own { 2 } else { dist[node] };
            let start = ports.len() as u32;
            for &(port, peer, up) in &g.adjacency[node] {
                let relay_ok = peer == dst_node || relays(peer);
                if up && relay_ok && dist[peer as usize].checked_add(1) == Some(want) {
                    ports.push(port);
                }
            }
            row(node, start, ports.len() as u32 - start);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table before destinations shared rows: a search from every host, next hops per
    /// (node, host).
    fn per_host_reference(g: &Graph) -> Vec<Vec<Vec<PortIdx>>> {
        let n = g.adjacency.len();
        let mut into: Vec<Vec<NodeIdx>> = vec![Vec::new(); n];
        for (node, adj) in g.adjacency.iter().enumerate() {
            for &(_, peer, up) in adj {
                if up {
                    into[peer as usize].push(node as NodeIdx);
                }
            }
        }
        let relays = |m: NodeIdx| g.hosts_relay || !g.is_host[m as usize];
        let mut table = vec![vec![Vec::new(); g.hosts.len()]; n];
        for (dst, &dst_node) in g.hosts.iter().enumerate() {
            let mut dist = vec![u32::MAX; n];
            dist[dst_node as usize] = 0;
            let mut queue = std::collections::VecDeque::from([dst_node]);
            while let Some(m) = queue.pop_front() {
                if m != dst_node && !relays(m) {
                    continue;
                }
                for &prev in &into[m as usize] {
                    if dist[prev as usize] == u32::MAX {
                        dist[prev as usize] = dist[m as usize] + 1;
                        queue.push_back(prev);
                    }
                }
            }
            for node in 0..n {
                if node == dst_node as usize || dist[node] == u32::MAX {
                    continue;
                }
                for &(port, peer, up) in &g.adjacency[node] {
                    let relay_ok = peer == dst_node || relays(peer);
                    if up && relay_ok && dist[peer as usize].checked_add(1) == Some(dist[node]) {
                        table[node][dst].push(port);
                    }
                }
            }
        }
        table
    }

    fn assert_same_as_reference(g: &Graph, what: &str) {
        let t = RoutingTable::compute(g);
        let want = per_host_reference(g);
        for (node, row) in want.iter().enumerate() {
            for (dst, hops) in row.iter().enumerate() {
                assert_eq!(
                    t.next_hops(node as NodeIdx, dst as u32),
                    &hops[..],
                    "{what}: node {node}, host {dst}"
                );
            }
        }
    }

    /// Single-link hosts on a host, which relays or not: h1 and h2 hang off host h0, which
    /// is linked to switch s3 with h4 and h5; h6 hangs off h5.
    #[test]
    fn hosts_on_a_host_share_rows_relaying_or_not() {
        let link = |adj: &mut Vec<Vec<(PortIdx, NodeIdx, bool)>>, a: usize, b: usize| {
            let p = adj.iter().map(Vec::len).sum::<usize>() as PortIdx;
            adj[a].push((p, b as NodeIdx, true));
            adj[b].push((p + 1, a as NodeIdx, true));
        };
        let mut adj = vec![Vec::new(); 7];
        for (a, b) in [(0, 1), (0, 2), (0, 3), (3, 4), (3, 5), (5, 6)] {
            link(&mut adj, a, b);
        }
        let hosts = [0, 1, 2, 4, 5, 6];
        let is_host = [true, true, true, false, true, true, true];
        for hosts_relay in [false, true] {
            let g = Graph {
                adjacency: &adj,
                hosts: &hosts,
                is_host: &is_host,
                hosts_relay,
            };
            assert_same_as_reference(&g, &format!("relaying {hosts_relay}"));
        }
    }

    /// Racks share rows; the next hops are those of a search from every host, on every kind of
    /// generated topology (server-centric BCube included) and with links down, one direction
    /// or both, host links among them.
    #[test]
    fn shared_rows_give_every_hosts_own_next_hops() {
        use crate::net::network::{test_network, TEST_LAYOUTS};
        for text in TEST_LAYOUTS {
            let mut net = test_network(text);
            let mut x = 99u64;
            for round in 0..6 {
                net.routing_graph(|g| {
                    assert_same_as_reference(g, &format!("{text}, round {round}"))
                });
                // Take a few more ports down: one direction of a link, or both.
                for _ in 0..3 {
                    x = crate::rng::mix(x);
                    let p = (x % net.ports.len() as u64) as usize;
                    net.ports[p].up = false;
                    if x & (1 << 40) != 0 {
                        let r = net.ports[p].reverse as usize;
                        net.ports[r].up = false;
                    }
                }
            }
        }
    }

    /// The size a table would have, without building it: exact with every class searched,
    /// and on the symmetric layouts (fat-tree, leaf-spine, star) from a few classes too.
    #[test]
    fn size_of_counts_the_table_it_would_build() {
        use crate::net::network::{test_network, TEST_LAYOUTS};
        for text in TEST_LAYOUTS {
            let net = test_network(text);
            net.routing_graph(|g| {
                let t = RoutingTable::compute(g);
                let size = RoutingTable::size_of(g, |c| c);
                assert_eq!(size.classes * size.nodes, t.slices.len(), "{text}");
                assert_eq!(size.entries, t.ports.len() as f64, "{text}");
                let sampled = RoutingTable::size_of(g, |_| 2);
                if ["fattree", "leafspine", "star"]
                    .iter()
                    .any(|k| text.contains(k))
                {
                    assert_eq!(sampled.entries, t.ports.len() as f64, "{text}");
                }
            });
        }
    }

    /// Two hosts (0, 1) joined by two parallel two-hop paths through switches 2 and 3, plus a
    /// host 4 hanging off switch 2. Ports numbered as listed.
    #[test]
    fn equal_cost_next_hops_and_failures() {
        // node: 0=h0, 1=h1, 2=s2, 3=s3, 4=h4 (host id 2)
        let mut adj: Vec<Vec<(PortIdx, NodeIdx, bool)>> = vec![
            vec![(0, 2, true), (1, 3, true)], // h0 has two NICs
            vec![(2, 2, true), (3, 3, true)], // h1 too
            vec![(4, 0, true), (5, 1, true), (6, 4, true)],
            vec![(7, 0, true), (8, 1, true)],
            vec![(9, 2, true)],
        ];
        let hosts = [0, 1, 4];
        let is_host = [true, true, false, false, true];
        let t = RoutingTable::compute(&Graph {
            adjacency: &adj,
            hosts: &hosts,
            is_host: &is_host,
            hosts_relay: false,
        });
        assert_eq!(t.next_hops(0, 1), &[0, 1]);
        assert_eq!(t.next_hops(2, 1), &[5]);
        assert_eq!(t.next_hops(4, 0), &[9]);
        // h4 reaches h1 only through s2; s3 must not relay via a host.
        assert_eq!(t.next_hops(3, 2), &[] as &[PortIdx]);
        // Take s2–h1 down: h0 now reaches h1 only via s3.
        adj[2][1].2 = false;
        let t = RoutingTable::compute(&Graph {
            adjacency: &adj,
            hosts: &hosts,
            is_host: &is_host,
            hosts_relay: false,
        });
        assert_eq!(t.next_hops(0, 1), &[1]);
        // Server-centric: hosts relay, so s3 reaches h4 through h0 or h1 and then s2.
        adj[2][1].2 = true;
        let t = RoutingTable::compute(&Graph {
            adjacency: &adj,
            hosts: &hosts,
            is_host: &is_host,
            hosts_relay: true,
        });
        assert_eq!(t.next_hops(3, 2), &[7, 8]);
        assert_eq!(t.next_hops(0, 2), &[0], "the direct path beats relaying");
    }
}
