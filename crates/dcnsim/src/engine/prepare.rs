//! Resolving a scenario before it runs: every error surfaces here, so `validate` and `run`
//! refuse the same input with the same message.

use crate::config::Scenario;
use crate::error::{ConfigError, ConfigResult};
use crate::lb::LbParams;
use crate::protocols::Transport;
use crate::topo::{self, BufferSize, TopoSpec};
use crate::workload::{self, FlowSpec, HostInfo};
use std::path::Path;

/// Everything a scenario resolves to before it runs. `validate` stops here.
pub struct Prepared {
    pub scenario: Scenario,
    pub topo: TopoSpec,
    pub transport: Transport,
    pub flows: Vec<FlowSpec>,
}

/// Parses nothing, checks everything: builds the topology, the transport and the flows, and
/// resolves failure links, so that every error surfaces before a run starts.
pub fn prepare(mut scenario: Scenario, base_dir: &Path) -> ConfigResult<Prepared> {
    let transport = Transport::from_config(&scenario.transport)?;
    // A protocol's own buffer default (pFabric's 2 BDP) applies when the scenario sets none.
    let t = &mut scenario.topology;
    if t.buffer_pkts.is_none() && t.buffer_kb.is_none() {
        t.buffer_pkts = transport.default_buffer_pkts();
    }
    let topo = topo::build(&scenario.topology, base_dir, scenario.seed)?;
    check_marking_below_buffer(&topo, &transport)?;
    LbParams::from_config(&scenario.routing)?.check_topology(&scenario.topology.kind)?;
    let host_rate = topo
        .hosts
        .first()
        .and_then(|&h| topo.links.iter().find(|l| l.a == h || l.b == h))
        .map(|l| {
            if topo.hosts.contains(&l.a) {
                l.rate_ab
            } else {
                l.rate_ba
            }
        })
        .ok_or_else(|| ConfigError::new("topology", "the topology has no host with a link"))?;
    let info = HostInfo {
        count: topo.hosts.len() as u32,
        host_rate,
        racks: topo.racks.clone(),
    };
    let flows = workload::generate(&scenario.workload, &info, scenario.seed, base_dir)?;
    if let Some(f) = scenario.output.trace_flow {
        if f as usize >= flows.len() {
            return Err(ConfigError::new(
                "output.trace_flow",
                format!(
                    "flow {f} does not exist; this scenario has flows 0..={}",
                    flows.len() - 1
                ),
            ));
        }
    }
    for (i, f) in scenario.failures.iter().enumerate() {
        let known = |n: &str| topo.nodes.iter().position(|x| x.name == n);
        let (Some(a), Some(b)) = (known(&f.link[0]), known(&f.link[1])) else {
            return Err(ConfigError::new(
                format!("failures[{i}].link"),
                format!(
                    "no node named '{}' or '{}' in this topology",
                    f.link[0], f.link[1]
                ),
            ));
        };
        if !topo
            .links
            .iter()
            .any(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
        {
            return Err(ConfigError::new(
                format!("failures[{i}].link"),
                format!(
                    "'{}' and '{}' are not joined by a link",
                    f.link[0], f.link[1]
                ),
            ));
        }
    }
    Ok(Prepared {
        scenario,
        topo,
        transport,
        flows,
    })
}

/// An ECN threshold at or above a port's buffer never marks before the queue drops: DCTCP would
/// silently behave as TCP on drop-tail. Refuse it, naming the first such link.
fn check_marking_below_buffer(topo: &TopoSpec, transport: &Transport) -> ConfigResult<()> {
    for l in &topo.links {
        for (rate, from, to) in [(l.rate_ab, l.a, l.b), (l.rate_ba, l.b, l.a)] {
            let Some(k) = transport.ecn_threshold_pkts(rate) else {
                continue;
            };
            // A byte buffer is compared in full-size packets of the transport.
            let (mss, header) = transport.data_packet_sizes();
            let fits = match l.buffer {
                BufferSize::Packets(n) => (k as u64) < n,
                BufferSize::Bytes(b) => (k as u64) * ((mss + header) as u64) < b,
            };
            if !fits {
                return Err(ConfigError::new(
                    "transport.ecn_k_pkts",
                    format!(
                        "the marking threshold K = {k} packets is not below the {} buffer of the \
                         {}–{} link: the queue would drop before it marks; lower K or raise the buffer",
                        match l.buffer {
                            BufferSize::Packets(n) => format!("{n}-packet"),
                            BufferSize::Bytes(b) => format!("{b}-byte"),
                        },
                        topo.nodes[from].name,
                        topo.nodes[to].name
                    ),
                ));
            }
        }
    }
    Ok(())
}
