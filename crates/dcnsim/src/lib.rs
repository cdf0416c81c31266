//! # dcnsim — a packet-level data center network simulator
//!
//! A scenario (topology, transport, path choice, workload) is parsed and checked
//! ([`config::Scenario`], [`engine::prepare()`]), then run by one single-threaded, deterministic
//! event loop ([`engine::Simulation`]) that produces per-flow records, counters, optional time
//! series and a summary ([`metrics`]).
//!
//! The layers, bottom up:
//! - [`units`]: integer picosecond [`units::Time`], [`units::Rate`] in bit/s; [`validate`]: the
//!   range checks every configuration reader shares, and the one rule for RTO bounds.
//! - [`net`]: packets in a pool, egress queues (drop-tail/ECN, priority, rank), ports and links,
//!   routing tables of equal-cost next hops.
//! - [`lb`]: path choice among those next hops (ECMP, RPS, DRB, Presto, LetFlow, CONGA, DRILL).
//! - [`protocols`]: transports as sans-IO state machines (TCP NewReno, DCTCP).
//! - [`topo`], [`workload`]: builders of networks and flows from the scenario.
//! - [`engine`]: the event loop; [`metrics`]: what comes out.
//! - [`budget`]: the memory a run may use, and the estimate that refuses a run too large for
//!   it before it allocates.
//! - [`flowsim`]: the flow-level (fluid) model, `engine = "flow"`: same scenarios and outputs,
//!   rates from the transport's allocation policy instead of packets ([`run_prepared`]
//!   dispatches on the `engine` key).
//!
//! Same scenario and seed, same output, on every machine: time is an integer, ties break by
//! scheduling order, and randomness comes from named streams of the seed ([`rng`]).

pub mod budget;
pub mod config;
pub mod engine;
pub mod error;
pub mod flowsim;
pub mod lb;
pub mod metrics;
pub mod net;
pub mod protocols;
pub mod rng;
pub mod topo;
pub mod units;
pub mod validate;
pub mod workload;

use std::path::Path;

/// Input formats of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

/// Parses, applies overrides and checks a scenario without running it, within the memory the
/// machine has available ([`budget::Budget::machine`]).
pub fn prepare_text(
    text: &str,
    format: Format,
    overrides: &[String],
    base_dir: &Path,
) -> error::ConfigResult<engine::Prepared> {
    prepare_text_within(
        text,
        format,
        overrides,
        base_dir,
        &budget::Budget::machine(),
    )
}

/// [`prepare_text`] with a memory budget of the caller's ([`budget`]).
pub fn prepare_text_within(
    text: &str,
    format: Format,
    overrides: &[String],
    base_dir: &Path,
    budget: &budget::Budget,
) -> error::ConfigResult<engine::Prepared> {
    let scenario = match format {
        Format::Toml => config::Scenario::from_toml_str(text, overrides)?,
        Format::Json => config::Scenario::from_json_str(text, overrides)?,
    };
    engine::prepare_within(scenario, base_dir, budget)
}

/// Runs a prepared scenario with the engine its `engine` key names: the packet-level
/// [`engine::Simulation`] or the flow-level [`flowsim::FlowSimulation`]. Both give the same
/// [`metrics::RunOutput`].
pub fn run_prepared(
    prepared: engine::Prepared,
    progress: &mut dyn FnMut(engine::Progress) -> bool,
) -> Result<metrics::RunOutput, engine::RunError> {
    match prepared.scenario.engine {
        config::Engine::Packet => engine::Simulation::new(prepared).run(progress),
        config::Engine::Flow => flowsim::FlowSimulation::new(prepared).run(progress),
    }
}
