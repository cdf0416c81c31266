//! Shortest-path routing tables: for every node and destination host, the set of equal-cost
//! next-hop ports. Path choice (`lb/`) picks one of them per packet.
//!
//! Tables are computed by a breadth-first search from each destination host over the links
//! that are up. In switch-centric topologies hosts do not relay traffic for others (they are
//! leaves of the search); in server-centric ones (BCube) they do, and a relaying host's table
//! is built and used exactly as a switch's. The table is a flat array of port indices with one
//! (start, len) slice per (node, destination): a lookup is two index operations.

use super::network::{NodeIdx, PortIdx};

pub struct RoutingTable {
    hosts: usize,
    /// (start, len) into `ports`, indexed by node * hosts + dst.
    slices: Vec<(u32, u32)>,
    ports: Vec<PortIdx>,
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
            hosts: 0,
            slices: Vec::new(),
            ports: Vec::new(),
        }
    }

    pub fn compute(g: &Graph) -> RoutingTable {
        let n = g.adjacency.len();
        let h = g.hosts.len();
        let mut slices = vec![(0u32, 0u32); n * h];
        let mut ports = Vec::new();
        // Reverse adjacency: who can reach node m in one hop (over an up link).
        let mut into: Vec<Vec<(PortIdx, NodeIdx)>> = vec![Vec::new(); n];
        for (node, adj) in g.adjacency.iter().enumerate() {
            for &(port, peer, up) in adj {
                if up {
                    into[peer as usize].push((port, node as NodeIdx));
                }
            }
        }
        let mut dist = vec![u32::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        let relays = |m: NodeIdx| g.hosts_relay || !g.is_host[m as usize];
        for (dst, &dst_node) in g.hosts.iter().enumerate() {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst_node as usize] = 0;
            queue.clear();
            queue.push_back(dst_node);
            while let Some(m) = queue.pop_front() {
                if m != dst_node && !relays(m) {
                    continue; // a host that does not relay is a leaf
                }
                for &(_, prev) in &into[m as usize] {
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
                let start = ports.len() as u32;
                for &(port, peer, up) in &g.adjacency[node] {
                    let relay_ok = peer == dst_node || relays(peer);
                    if up && relay_ok && dist[peer as usize].checked_add(1) == Some(dist[node]) {
                        ports.push(port);
                    }
                }
                slices[node * h + dst] = (start, ports.len() as u32 - start);
            }
        }
        RoutingTable {
            hosts: h,
            slices,
            ports,
        }
    }

    /// Equal-cost next-hop ports from `node` towards host `dst` (empty: unreachable).
    #[inline]
    pub fn next_hops(&self, node: NodeIdx, dst: u32) -> &[PortIdx] {
        let (start, len) = self.slices[node as usize * self.hosts + dst as usize];
        &self.ports[start as usize..(start + len) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
