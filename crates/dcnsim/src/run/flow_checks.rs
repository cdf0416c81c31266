//! What the flow-level model ([`crate::flowsim`], `engine = "flow"`) cannot honour, refused at
//! set-up ([`super::prepare_within`]) with the other errors of a scenario. They live here, below
//! both engines, so that set-up need not import the flow-level engine.

use crate::config::Scenario;
use crate::error::{ConfigError, ConfigResult};

/// Flows the flow-level engine takes: a flow id fits the 30 bits its event key has for it
/// (`flowsim`'s `Event`).
pub const MAX_FLOWS: usize = 1 << 30;

/// The path choices the fluid model follows: those that keep a (sub)flow on one path.
const PER_FLOW_PATHS: [&str; 2] = ["ecmp", "bcube_paths"];

/// Refuses what the fluid model cannot honour (called by [`super::prepare_within`] when
/// `engine = "flow"`): per-packet tracing, link failures and path choices that move a flow
/// between paths.
pub fn check_scenario(s: &Scenario) -> ConfigResult<()> {
    let packet_only = "is packet-level only and is refused under engine = \"flow\"";
    if !s.output.trace_flow.is_empty() {
        return Err(ConfigError::new(
            "output.trace_flow",
            format!("{packet_only} (the fluid model has no packets to trace)"),
        ));
    }
    if !s.failures.is_empty() {
        return Err(ConfigError::new(
            "failures",
            format!("{packet_only} (the fluid model does not reroute)"),
        ));
    }
    if !PER_FLOW_PATHS.contains(&s.routing.lb.as_str()) {
        return Err(ConfigError::new(
            "routing.lb",
            format!(
                "'{}' {packet_only}: the fluid model routes each (sub)flow on one path for its \
                 life (routing.lb = \"ecmp\", or \"bcube_paths\" on a BCube)",
                s.routing.lb
            ),
        ));
    }
    Ok(())
}

/// Refuses a workload of more flows than the flow-level engine numbers ([`MAX_FLOWS`]; called
/// by [`super::prepare_within`] when `engine = "flow"`, once the flows are generated).
pub fn check_flow_count(flows: usize) -> ConfigResult<()> {
    if flows > MAX_FLOWS {
        return Err(ConfigError::new(
            "workload",
            format!(
                "{flows} flows; engine = \"flow\" takes at most {MAX_FLOWS} (2^30): split the \
                 workload into several runs"
            ),
        ));
    }
    Ok(())
}
