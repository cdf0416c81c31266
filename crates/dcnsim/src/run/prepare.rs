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
use crate::protocols::{Transport, TransportKeys};
use crate::topo::{self, BufferSize, LinkSpec, TopoSpec, TopologyConfig};
use crate::units::{Rate, Time};
use crate::workload::{self, FlowSpec, HostInfo};
use std::path::Path;

/// Everything a scenario resolves to before it runs. `validate` stops here.
pub struct Prepared {
    /// The scenario as given (with the buffer default of a protocol that sets one).
    pub scenario: Scenario,
    pub topo: TopoSpec,
    pub transport: Transport,
    /// The `[transport]` keys the run uses: those the scenario sets, and the defaults the
    /// network gives a transport that derives some
    /// ([`Transport::derives_defaults_from_network`]). `scenario.json` writes them
    /// ([`Prepared::scenario_json`]).
    pub transport_keys: TransportKeys,
    /// The path choice, read and checked once here.
    pub lb: LbParams,
    pub flows: Vec<FlowSpec>,
    /// The load the flows offer the host links, for the summary.
    pub load: crate::metrics::load::OfferedLoad,
    /// The memory budget, the run's estimate, and what the process held before: the run
    /// watches its series and its resident memory against them. With an unlimited budget the
    /// estimate is empty ([`Prepared::memory_estimate`] makes one).
    pub memory: MemoryPlan,
}

impl Prepared {
    /// The scenario as JSON, for `scenario.json`: every default of the scenario's tables
    /// filled in, and its `[transport]` table the keys the run used
    /// ([`Prepared::transport_keys`]): those the scenario sets, and those a transport derives
    /// from the network and the scenario left unset. A transport's fixed defaults (the tables
    /// of its module doc) are not written. Run again, `scenario.json` gives the same results.
    pub fn scenario_json(&self) -> String {
        let mut s = self.scenario.clone();
        s.transport = self.transport_keys.to_table();
        s.to_json()
    }

    /// The run's memory estimate ([`crate::budget::estimate`]): the one checked against the
    /// budget, or, prepared with an unlimited budget (which estimates nothing), one made now
    /// (for `validate`, which prints it).
    pub fn memory_estimate(&self) -> budget::Estimate {
        if self.memory.budget.bytes().is_some() {
            return self.memory.estimate.clone();
        }
        let facts = budget::NetworkFacts::of(&self.topo, None);
        let flows = budget::Flows::Generated(&self.flows);
        budget::estimate(&self.scenario, &facts, &self.transport, flows)
    }
}

/// [`prepare_within`] the memory the machine has available now ([`Budget::machine`]).
pub fn prepare(scenario: Scenario, base_dir: &Path) -> ConfigResult<Prepared> {
    prepare_within(scenario, base_dir, &Budget::machine())
}

/// Parses nothing, checks everything: builds the topology, the transport and the flows, and
/// resolves failure links, so that every error surfaces before a run starts. Defaults that
/// depend on the network (see [`Transport::derives_defaults_from_network`]) are computed here,
/// into a copy of the transport's keys ([`Prepared::transport_keys`], which `scenario.json`
/// writes so it shows the values used); the scenario's own `[transport]` is left as given.
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
    // Reads and checks the keys the scenario sets; defaults that depend on the network come
    // next.
    let keys = TransportKeys::read(&scenario.transport)?;
    let declared = keys.transport()?;
    budget::check_before_topology(&scenario, budget)?;
    let mut topo = topo::build(&scenario.topology, base_dir, scenario.seed)?;
    if scenario.engine == crate::config::Engine::Flow {
        if let Some(n) = budget::flows_from_keys(&scenario, topo.hosts.len()) {
            super::check_flow_count(n)?;
        }
    }
    let facts = budget::check_before_flows(&scenario, &topo, &declared, budget)?;
    let (transport, transport_keys) = if declared.derives_defaults_from_network() {
        let net = Network::build(&topo, Discipline::Fifo, &|_| None);
        let (mss, header) = declared.data_packet_sizes();
        let scale = PathScale::measure(&net, (mss + header) as u64, header as u64);
        let used = keys.with_network_defaults(&declared, scale.as_ref(), &net);
        let transport = used
            .transport()
            .map_err(|e| network_default_error(e, &keys, &used, &scenario, &net, scale.as_ref()))?;
        (transport, used)
    } else {
        (declared, keys)
    };
    // Headers hold the links' rates (D3's 16-bit fields); the fluid has no header.
    if scenario.engine != crate::config::Engine::Flow {
        transport.check_link_rates(&mut topo.links.iter().flat_map(|l| [l.rate_ab, l.rate_ba]))?;
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
    lb.check_transport(transport.name(), transport.keeps_state_along_its_path())?;
    if scenario.engine == crate::config::Engine::Flow {
        super::check_scenario(&scenario)?;
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
    let w = &scenario.workload;
    let load = crate::metrics::load::OfferedLoad::of(
        &topo,
        &flows,
        // Checked by `generate`.
        crate::units::Time::from_secs_f64(w.start_s.unwrap_or(0.0)),
        host_rate,
        (w.kind == "poisson").then(|| w.load.unwrap_or(workload::DEFAULT_LOAD)),
        workload::poisson_senders(w, &info),
    );
    if scenario.engine == crate::config::Engine::Flow {
        super::check_flow_count(flows.len())?;
    }
    transport.check_flows(&flows)?;
    if let Some(&f) = (scenario.output.trace_flow.iter()).find(|&&f| f as usize >= flows.len()) {
        return Err(ConfigError::new(
            "output.trace_flow",
            format!(
                "flow {f} does not exist; this scenario has flows 0..={}",
                flows.len().saturating_sub(1)
            ),
        ));
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
    // Unlimited: no estimate (nothing checks it during the run); `memory_estimate` makes one
    // for those who print it.
    let estimate = match &facts {
        Some(facts) => {
            let e = budget::estimate(
                &scenario,
                facts,
                &transport,
                budget::Flows::Generated(&flows),
            );
            e.check(budget)?;
            e
        }
        None => budget::Estimate::default(),
    };
    Ok(Prepared {
        scenario,
        topo,
        transport,
        transport_keys,
        lb,
        flows,
        load,
        memory: MemoryPlan {
            budget: *budget,
            estimate,
            resident_before,
        },
    })
}

/// An error of a `[transport]` key the scenario left unset (in `set`, the keys it sets),
/// caused by a default the network filled (in `used`: [`TransportKeys::with_network_defaults`],
/// a multiple of the longest path's RTT, or
/// its BDP) — that key's own error, or another unset key's that names it (`max_rto_us: must
/// be ≥ min_rto_us`) — names instead the keys the user set that made the network so long: the
/// links' delays, or their rates when serialisation dominates the RTT. Other errors are
/// returned unchanged.
fn network_default_error(
    e: ConfigError,
    set: &TransportKeys,
    used: &TransportKeys,
    scenario: &Scenario,
    net: &Network,
    scale: Option<&PathScale>,
) -> ConfigError {
    let Some(key) = e.path.strip_prefix("transport.") else {
        return e;
    };
    let table = |t: &TransportKeys| {
        (t.to_table().keys.into_iter())
            .map(|(k, _)| k)
            .collect::<std::collections::BTreeSet<String>>()
    };
    let (given, now) = (table(set), table(used));
    // Filled by the network: unset (null, or left out of the table) before, set after.
    let filled: Vec<&String> = now.difference(&given).collect();
    let cause = if filled.iter().any(|k| *k == key) {
        Some(key.to_string())
    } else if !given.contains(key) {
        filled
            .iter()
            .find(|k| e.message.contains(k.as_str()))
            .map(|k| k.to_string())
    } else {
        None
    };
    let (Some(scale), Some(derived)) = (scale, cause) else {
        return e;
    };
    // The same longest path with packets of no size: its propagation delay alone.
    let propagation = PathScale::measure(net, 0, 0).map_or(Time::ZERO, |p| p.rtt);
    let by_delay = propagation.ps() >= scale.rtt.ps() / 2;
    // The keys that set the path's delays (or rates), those the scenario sets first: the
    // first one leads the message. link_delay_us and link_gbps have defaults, so they may
    // be what made it this long without being set.
    let t = &scenario.topology;
    let mut keys: Vec<String> = Vec::new();
    if t.file.is_some() {
        keys.push("topology.file".into());
    }
    for (i, o) in t.link_overrides.iter().enumerate() {
        match (by_delay, o.delay_us, o.gbps) {
            (true, Some(_), _) => keys.push(format!("topology.link_overrides[{i}].delay_us")),
            (false, _, Some(_)) => keys.push(format!("topology.link_overrides[{i}].gbps")),
            _ => {}
        }
    }
    if by_delay {
        let at = if t.link_delay_us.is_some() {
            0
        } else {
            keys.len()
        };
        keys.insert(at, "topology.link_delay_us".into());
    } else {
        let rates = [
            ("agg_gbps", t.agg_gbps),
            ("core_gbps", t.core_gbps),
            ("spine_gbps", t.spine_gbps),
            ("bottleneck_gbps", t.bottleneck_gbps),
        ];
        let set = rates.iter().filter(|(_, v)| v.is_some());
        keys.splice(0..0, set.map(|(k, _)| format!("topology.{k}")));
        keys.push("topology.link_gbps".into());
    }
    let path = keys[0].clone();
    let what = if by_delay {
        "the links' propagation delays"
    } else {
        "the time to send a packet over its slow links"
    };
    ConfigError::new(
        path,
        format!(
            "the network's longest round trip, {} s (most of it {what}), makes the default of \
             transport.{derived} out of range: {}: {}; lower {}, or set transport.{derived} \
             yourself",
            round(scale.rtt.as_secs_f64()),
            e.path,
            e.message,
            keys.join(" or "),
        ),
    )
}

/// Seconds to four significant digits, as people read them (`400 000.000 002 s` is noise):
/// plain between 1 ms and 10 000 s (`0.001235`, `123.5`), else in scientific notation.
fn round(s: f64) -> String {
    let four = format!("{s:.3e}");
    if (1e-3..1e4).contains(&s) {
        // The shortest text of the number those four digits give.
        format!("{}", four.parse::<f64>().expect("a formatted float parses"))
    } else {
        four
    }
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

#[cfg(test)]
mod tests {
    use super::round;

    #[test]
    fn seconds_print_with_four_significant_digits() {
        assert_eq!(round(0.001_234_56), "0.001235");
        assert_eq!(round(1.234_56), "1.235");
        assert_eq!(round(123.456), "123.5");
        assert_eq!(round(2.0), "2");
        assert_eq!(round(400_000.000_002), "4.000e5");
        assert_eq!(round(0.000_012_345_6), "1.235e-5");
    }
}
