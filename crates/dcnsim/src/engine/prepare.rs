//! Resolving a scenario before it runs: every error surfaces here, so `validate` and `run`
//! refuse the same input with the same message.

use crate::config::Scenario;
use crate::error::{ConfigError, ConfigResult};
use crate::lb::PathChoice;
use crate::protocols::Transport;
use crate::topo::{self, TopoSpec};
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
pub fn prepare(scenario: Scenario, base_dir: &Path) -> ConfigResult<Prepared> {
    let topo = topo::build(&scenario.topology, base_dir)?;
    let transport = Transport::from_config(&scenario.transport)?;
    PathChoice::new(&scenario.routing.lb, topo.nodes.len(), scenario.seed)?;
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
