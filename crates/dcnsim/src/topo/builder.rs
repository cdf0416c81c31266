//! The one way every kind assembles a [`TopoSpec`]: add named nodes and links, apply the
//! link overrides, check that the graph is connected, write the description.

use super::check;
use super::{BufferSize, LinkOverride, LinkSpec, NodeKind, NodeSpec, TopoSpec};
use crate::error::{ConfigError, ConfigResult};
use crate::units::{Rate, Time};
use std::collections::HashMap;

/// Rate, delay and queue of a link, the same both ways.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct LinkParams {
    pub rate: Rate,
    pub delay: Time,
    pub buffer: BufferSize,
    pub ecn_k_pkts: Option<u32>,
}

impl LinkParams {
    pub fn with_rate(self, rate: Rate) -> LinkParams {
        LinkParams { rate, ..self }
    }
}

#[derive(Default)]
pub(super) struct Builder {
    nodes: Vec<NodeSpec>,
    links: Vec<LinkSpec>,
    hosts: Vec<usize>,
    racks: Vec<Vec<u32>>,
    index: HashMap<String, usize>,
    /// Host id of each node; `u32::MAX` for switches.
    host_id: Vec<u32>,
    hosts_relay: bool,
    /// File line of each link ([`TopoSpec::link_lines`]); empty unless a file gives them.
    link_lines: Vec<u32>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Adds a node; if the name is taken, returns the index of the node that has it.
    pub fn try_add(&mut self, kind: NodeKind, name: &str) -> Result<usize, usize> {
        if let Some(&old) = self.index.get(name) {
            return Err(old);
        }
        let i = self.nodes.len();
        self.nodes.push(NodeSpec {
            kind,
            name: name.to_string(),
        });
        self.index.insert(name.to_string(), i);
        if kind == NodeKind::Host {
            self.host_id.push(self.hosts.len() as u32);
            self.hosts.push(i);
        } else {
            self.host_id.push(u32::MAX);
        }
        Ok(i)
    }

    /// Adds a node whose name is unique by construction (the generated kinds).
    pub fn add(&mut self, kind: NodeKind, name: String) -> usize {
        self.try_add(kind, &name)
            .unwrap_or_else(|_| panic!("generated node name '{name}' is not unique"))
    }

    /// Adds hosts `h{first}`…, one per id, and returns their node indices.
    pub fn hosts(&mut self, count: usize) -> Vec<usize> {
        (0..count)
            .map(|_| {
                let id = self.hosts.len();
                self.add(NodeKind::Host, format!("h{id}"))
            })
            .collect()
    }

    /// Makes the layout server-centric: hosts relay for other hosts.
    pub fn hosts_relay(&mut self) {
        self.hosts_relay = true;
    }

    pub fn switch(&mut self, name: String) -> usize {
        self.add(NodeKind::Switch, name)
    }

    pub fn link(&mut self, a: usize, b: usize, p: LinkParams) {
        debug_assert_ne!(a, b, "a link joins two different nodes");
        self.links.push(LinkSpec {
            a,
            b,
            rate_ab: p.rate,
            delay_ab: p.delay,
            rate_ba: p.rate,
            delay_ba: p.delay,
            buffer: p.buffer,
            ecn_k_pkts: p.ecn_k_pkts,
        });
    }

    /// [`Builder::link`] for a link declared on line `line` of a topology file.
    pub fn link_on_line(&mut self, a: usize, b: usize, p: LinkParams, line: u32) {
        debug_assert_eq!(
            self.link_lines.len(),
            self.links.len(),
            "every link has a line"
        );
        self.link(a, b, p);
        self.link_lines.push(line);
    }

    /// Records the hosts of one rack, given as node indices (converted to host ids).
    pub fn rack(&mut self, nodes: &[usize]) {
        let ids = nodes
            .iter()
            .map(|&n| {
                debug_assert_ne!(self.host_id[n], u32::MAX, "rack members are hosts");
                self.host_id[n]
            })
            .collect();
        self.racks.push(ids);
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    pub fn node(&self, i: usize) -> &NodeSpec {
        &self.nodes[i]
    }

    pub fn links(&self) -> &[LinkSpec] {
        &self.links
    }

    pub fn host_nodes(&self) -> &[usize] {
        &self.hosts
    }

    /// Applies `[[topology.link_overrides]]`. Each entry must name an existing link, set at
    /// least one value, and be the only entry for its link: two entries for one link would
    /// leave the reader guessing which one wins.
    pub fn apply_overrides(&mut self, overrides: &[LinkOverride]) -> ConfigResult<()> {
        if overrides.is_empty() {
            return Ok(());
        }
        let mut by_pair: HashMap<(usize, usize), usize> = HashMap::new();
        for (i, l) in self.links.iter().enumerate() {
            by_pair.insert((l.a.min(l.b), l.a.max(l.b)), i);
        }
        let mut done: HashMap<usize, usize> = HashMap::new();
        for (i, o) in overrides.iter().enumerate() {
            let key = format!("topology.link_overrides[{i}]");
            let [x, y] = &o.between;
            let mut ends = [0usize; 2];
            for (end, name) in ends.iter_mut().zip([x, y]) {
                *end = self.index_of(name).ok_or_else(|| {
                    ConfigError::new(
                        format!("{key}.between"),
                        format!("no node named '{name}' (names are listed in the module doc of topo, e.g. h0, leaf0, spine1)"),
                    )
                })?;
            }
            let pair = (ends[0].min(ends[1]), ends[0].max(ends[1]));
            let li = *by_pair.get(&pair).ok_or_else(|| {
                ConfigError::new(
                    format!("{key}.between"),
                    format!("'{x}' and '{y}' are not joined by a link"),
                )
            })?;
            if let Some(first) = done.insert(li, i) {
                return Err(ConfigError::new(
                    format!("{key}.between"),
                    format!("the link {x}–{y} is already overridden by link_overrides[{first}]; merge the two entries"),
                ));
            }
            let sets_queue =
                o.buffer_pkts.is_some() || o.buffer_kb.is_some() || o.ecn_k_pkts.is_some();
            if o.gbps.is_none() && o.delay_us.is_none() && !sets_queue {
                return Err(ConfigError::new(
                    key,
                    "sets nothing; give any of gbps, delay_us, buffer_pkts or buffer_kb, ecn_k_pkts",
                ));
            }
            let link = &mut self.links[li];
            if let Some(g) = o.gbps {
                let r = check::rate(g, &format!("{key}.gbps"))?;
                link.rate_ab = r;
                link.rate_ba = r;
            }
            if let Some(d) = o.delay_us {
                let t = crate::validate::micros(&format!("{key}.delay_us"), d)?;
                link.delay_ab = t;
                link.delay_ba = t;
            }
            match (o.buffer_pkts, o.buffer_kb) {
                (Some(_), Some(_)) => {
                    return Err(ConfigError::new(
                        format!("{key}.buffer_kb"),
                        "give only one of buffer_pkts and buffer_kb",
                    ))
                }
                (Some(p), None) => {
                    link.buffer = check::buffer_pkts(p, &format!("{key}.buffer_pkts"))?
                }
                (None, Some(kb)) => {
                    link.buffer = check::buffer_kb(kb, &format!("{key}.buffer_kb"))?
                }
                (None, None) => {}
            }
            if let Some(k) = o.ecn_k_pkts {
                link.ecn_k_pkts = Some(k);
            }
        }
        Ok(())
    }

    /// Checks connectivity and returns the spec. `what` starts the description ("k=4
    /// fat-tree"); `whole` is the error path if the graph is not connected.
    pub fn finish(self, what: &str, whole: &str) -> ConfigResult<TopoSpec> {
        if self.hosts.is_empty() {
            return Err(ConfigError::new(
                whole,
                "has no host; a topology needs at least one",
            ));
        }
        self.check_connected(whole)?;
        let switches = self.nodes.len() - self.hosts.len();
        let description = format!(
            "{what}: {}, {}, {}",
            plural(self.hosts.len(), "host", "hosts"),
            plural(switches, "switch", "switches"),
            plural(self.links.len(), "link", "links"),
        );
        Ok(TopoSpec {
            nodes: self.nodes,
            links: self.links,
            hosts: self.hosts,
            racks: self.racks,
            description,
            hosts_relay: self.hosts_relay,
            link_lines: self.link_lines,
        })
    }

    /// Every node must reach every other: routing tables would otherwise have holes that
    /// show up only as flows that never finish.
    fn check_connected(&self, whole: &str) -> ConfigResult<()> {
        let n = self.nodes.len();
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
        for l in &self.links {
            adj[l.a].push(l.b);
            adj[l.b].push(l.a);
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
        match seen.iter().position(|s| !s) {
            None => Ok(()),
            Some(lost) => Err(ConfigError::new(
                whole,
                format!(
                    "the network is not connected: '{}' cannot reach '{}'; add links so every node is reachable",
                    self.nodes[0].name, self.nodes[lost].name
                ),
            )),
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}
