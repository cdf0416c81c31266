//! Resolving a scenario before it runs: every error surfaces here, so `validate` and `run`
//! refuse the same input with the same message. That includes a run too large for its memory
//! budget ([`crate::budget`]): it is refused before anything sized by the topology or the flow
//! count is allocated.

use crate::budget::{self, Budget, MemoryPlan};
use crate::config::Scenario;
use crate::error::{ConfigError, ConfigResult};
use crate::lb::LbParams;
use crate::net::queue::Discipline;
use crate::net::scale::PathScale;
use crate::net::Network;
use crate::protocols::Transport;
use crate::topo::{self, BufferSize, LinkSpec, TopoSpec, TopologyConfig};
use crate::units::Rate;
use crate::workload::{self, FlowSpec, HostInfo};
use std::path::Path;

/// Everything a scenario resolves to before it runs. `validate` stops here.
pub struct Prepared {
    pub scenario: Scenario,
    pub topo: TopoSpec,
    pub transport: Transport,
    pub flows: Vec<FlowSpec>,
    /// The memory budget, the run's estimate, and what the process held before: the run
    /// watches its series and its resident memory against them.
    pub memory: MemoryPlan,
}

/// [`prepare_within`] the memory the machine has available now ([`Budget::machine`]).
pub fn prepare(scenario: Scenario, base_dir: &Path) -> ConfigResult<Prepared> {
    prepare_within(scenario, base_dir, &Budget::machine())
}

/// Parses nothing, checks everything: builds the topology, the transport and the flows, and
/// resolves failure links, so that every error surfaces before a run starts. Defaults that
/// depend on the network (see [`Transport::derives_defaults_from_network`]) are resolved here
/// and written into the returned scenario, so `scenario.json` shows the values used.
///
/// A run whose memory estimate passes `budget` is refused ([`crate::budget`]): before a
/// generated topology is built when its routing tables alone would pass it, once the topology
/// is built (before the network, its routing tables and the flows are), with the flow count
/// the workload's keys give, and again once the flows are generated.
pub fn prepare_within(
    mut scenario: Scenario,
    base_dir: &Path,
    budget: &Budget,
) -> ConfigResult<Prepared> {
    let resident_before = budget::resident_bytes();
    // Checks the keys the scenario sets; defaults that depend on the network come next.
    let declared = Transport::from_config(&scenario.transport)?;
    budget::check_before_topology(&scenario, budget)?;
    let mut topo = topo::build(&scenario.topology, base_dir, scenario.seed)?;
    if scenario.engine == crate::config::Engine::Flow {
        if let Some(n) = budget::flows_from_keys(&scenario, topo.hosts.len()) {
            crate::flowsim::check_flow_count(n)?;
        }
    }
    let facts = budget::check_before_flows(&scenario, &topo, &declared, budget)?;
    if declared.derives_defaults_from_network() {
        let net = Network::build(&topo, Discipline::Fifo, &|_| None);
        let (mss, header) = declared.data_packet_sizes();
        let scale = PathScale::measure(&net, (mss + header) as u64, header as u64);
        declared.network_defaults(&mut scenario.transport, scale.as_ref(), &net);
    }
    let transport = Transport::from_config(&scenario.transport)?;
    // D3's 16-bit header fields hold the links' rates in its unit (the fluid has no header).
    if let (Transport::D3(p), false) = (&transport, scenario.engine == crate::config::Engine::Flow)
    {
        p.check_link_rates(topo.links.iter().flat_map(|l| [l.rate_ab, l.rate_ba]))?;
    }
    // A protocol's own buffer default (pFabric's 2 BDP) applies when the scenario sets none.
    let t = &mut scenario.topology;
    if t.buffer_pkts.is_none() && t.buffer_kb.is_none() {
        if let Some(b) = transport.default_buffer_pkts() {
            t.buffer_pkts = Some(b);
            topo = topo::build(&scenario.topology, base_dir, scenario.seed)?;
        }
    }
    check_marking_below_buffer(&scenario.topology, &topo, &transport)?;
    let lb = LbParams::from_config(&scenario.routing)?;
    lb.check_topology(&scenario.topology.kind)?;
    lb.check_transport(&transport)?;
    if scenario.engine == crate::config::Engine::Flow {
        crate::flowsim::check_scenario(&scenario)?;
    }
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
    if scenario.engine == crate::config::Engine::Flow {
        crate::flowsim::check_flow_count(flows.len())?;
    }
    if let Transport::Pace(_) = transport {
        crate::protocols::pace::check_weights(&flows)?;
    }
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
    let estimate = budget::estimate(
        &scenario,
        &facts,
        &transport,
        budget::Flows::Generated(&flows),
    );
    estimate.check(budget)?;
    Ok(Prepared {
        scenario,
        topo,
        transport,
        flows,
        memory: MemoryPlan {
            budget: *budget,
            estimate,
            resident_before,
        },
    })
}

/// Under a transport that uses ECN, a marking threshold at or above a port's buffer never
/// marks before the queue drops: DCTCP would silently behave as TCP on drop-tail. Refuse it,
/// naming the key the threshold came from and the first such link. (Under a transport without
/// ECN nothing is marked, so any threshold is harmless.)
fn check_marking_below_buffer(
    cfg: &TopologyConfig,
    topo: &TopoSpec,
    transport: &Transport,
) -> ConfigResult<()> {
    if !transport.uses_ecn() {
        return Ok(());
    }
    for (li, l) in topo.links.iter().enumerate() {
        // A link of a topology file: its line, for the error.
        let line = match (&cfg.file, topo.link_lines.get(li)) {
            (Some(f), Some(n)) => Some(format!("{f} line {n}")),
            _ => None,
        };
        for (rate, from, to) in [(l.rate_ab, l.a, l.b), (l.rate_ba, l.b, l.a)] {
            let Some(k) = l.ecn_k_pkts.or_else(|| transport.default_ecn_k_pkts(rate)) else {
                continue;
            };
            // A byte buffer is compared in full-size packets of the transport.
            let (mss, header) = transport.data_packet_sizes();
            let fits = match l.buffer {
                BufferSize::Packets(n) => (k as u64) < n,
                BufferSize::Bytes(b) => (k as u64) * ((mss + header) as u64) < b,
            };
            if fits {
                continue;
            }
            let (a, b) = (&topo.nodes[from].name, &topo.nodes[to].name);
            let (key, whose) = threshold_origin(cfg, l, a, b, rate, line.as_deref());
            let declared = match (&line, key.as_str() == line.as_deref().unwrap_or("")) {
                (Some(at), false) => format!(" (declared on {at})"),
                _ => String::new(),
            };
            return Err(ConfigError::new(
                key,
                format!(
                    "{whose} K = {k} packets is not below the {} buffer of the {a}–{b} \
                     link{declared}: the queue would drop before it marks; lower K or raise the \
                     buffer",
                    match l.buffer {
                        BufferSize::Packets(n) => format!("{n}-packet"),
                        BufferSize::Bytes(b) => format!("{b}-byte"),
                    },
                ),
            ));
        }
    }
    Ok(())
}

/// Which key gave link `l` (between nodes named `a` and `b`) its marking threshold, and how to
/// describe it: a link override, the file's link line (`line`: `net.topo line 7`, for a link
/// of a topology file), `topology.ecn_k_pkts`, or the transport's default for the port's rate.
fn threshold_origin(
    cfg: &TopologyConfig,
    l: &LinkSpec,
    a: &str,
    b: &str,
    rate: Rate,
    line: Option<&str>,
) -> (String, String) {
    let joins = |o: &crate::topo::LinkOverride| {
        let [x, y] = &o.between;
        (x == a && y == b) || (x == b && y == a)
    };
    if let Some(i) = cfg
        .link_overrides
        .iter()
        .position(|o| o.ecn_k_pkts.is_some() && joins(o))
    {
        let key = format!("topology.link_overrides[{i}].ecn_k_pkts");
        return (key, "the link's marking threshold".into());
    }
    match (l.ecn_k_pkts, cfg.ecn_k_pkts) {
        (Some(k), global) if global != Some(k) => (
            line.unwrap_or("topology.file").into(),
            "the marking threshold of this link line".into(),
        ),
        (Some(_), _) => ("topology.ecn_k_pkts".into(), "the marking threshold".into()),
        (None, _) => (
            "topology.ecn_k_pkts".into(),
            format!("the transport's default marking threshold for a {rate} port (set one here)"),
        ),
    }
}
