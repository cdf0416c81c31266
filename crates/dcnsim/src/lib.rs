//! # dcnsim — a packet-level data center network simulator
//!
//! A scenario (topology, transport, path choice, workload) is parsed and checked
//! ([`config::Scenario`], [`run::prepare()`]), then run by one single-threaded, deterministic
//! event loop ([`engine::Simulation`]) that produces per-flow records, counters, optional time
//! series and a summary ([`metrics`]).
//!
//! The layers, bottom up (a module imports only from its own layer and those below it; the
//! test `tests/layers.rs` holds the code to this list):
//! - [`units`]: integer picosecond [`units::Time`], [`units::Rate`] in bit/s, byte counts for
//!   people ([`units::human`]); [`rng`]: named random streams of the seed; [`error`]:
//!   configuration errors that name their key;
//!   [`validate`]: the range checks every configuration reader shares, and the one rule for
//!   RTO bounds; [`tagged`]: the one reader of a kind-tagged table (`[transport]` by its
//!   `protocol`), each variant's keys into its own type.
//! - [`topo`]: builders of network specifications from the scenario.
//! - [`workload`]: builders of flows from the scenario.
//! - [`net`]: packets in a pool, egress queues (drop-tail/ECN, priority, rank), ports and
//!   links, routing tables of equal-cost next hops; the packet's header slot, which each
//!   transport's header packs itself into.
//! - [`lb`]: path choice among those next hops (ECMP, RPS, DRB, Presto, LetFlow, CONGA, DRILL,
//!   …) and the `[routing]` table; it takes what it needs of the transport as plain values.
//! - [`protocols`]: transports as sans-IO state machines (TCP NewReno, DCTCP, …).
//! - [`config`]: the scenario file's schema.
//! - [`metrics`]: what comes out.
//! - [`budget`]: the memory a run may use, and the estimate that refuses a run too large for
//!   it before it allocates.
//! - [`run`]: set-up ([`run::prepare()`]: every check of a scenario, those of the flow-level
//!   model included) and the progress and error types of a run, shared by both engines.
//! - [`engine`] and [`flowsim`], side by side: the packet-level event loop, and the
//!   flow-level (fluid) model, `engine = "flow"` (same scenarios and outputs, rates from the
//!   transport's allocation policy instead of packets). Neither imports the other: what both
//!   need is in [`run`], so a change to one engine cannot break the other's build.
//! - This crate's root: [`prepare_text`], and [`run_prepared`], which dispatches on the
//!   `engine` key.
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
pub mod run;
pub mod tagged;
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
) -> error::ConfigResult<run::Prepared> {
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
) -> error::ConfigResult<run::Prepared> {
    let scenario = match format {
        Format::Toml => config::Scenario::from_toml_str(text, overrides)?,
        Format::Json => config::Scenario::from_json_str(text, overrides)?,
    };
    run::prepare_within(scenario, base_dir, budget)
}

/// Runs a prepared scenario with the engine its `engine` key names: the packet-level
/// [`engine::Simulation`] or the flow-level [`flowsim::FlowSimulation`]. Both give the same
/// [`metrics::RunOutput`].
pub fn run_prepared(
    prepared: run::Prepared,
    progress: &mut dyn FnMut(run::Progress) -> bool,
) -> Result<metrics::RunOutput, run::RunError> {
    match prepared.scenario.engine {
        config::Engine::Packet => engine::Simulation::new(prepared).run(progress),
        config::Engine::Flow => flowsim::FlowSimulation::new(prepared).run(progress),
    }
}
