//! Which allocation policy a transport maps to, and what the fluid model refuses.

use super::MAX_FLOWS;
use crate::config::Scenario;
use crate::error::{ConfigError, ConfigResult};
use crate::protocols::Transport;

/// How the rates of the flows present are shared out, from the transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Max-min fair (TCP and its variants, RCP).
    MaxMin,
    /// D3's greedy first-come first-served allocation of desired rates plus fair share, in
    /// whole units of `unit_bps` bit/s.
    D3 { quench: bool, unit_bps: u64 },
    /// Weighted max-min by `FlowSpec::weight` (PACE).
    WeightedMaxMin,
    /// Preemptive shortest remaining size first, per link (pFabric).
    Srpt,
    /// Preemptive priority by PDQ's comparator: earliest deadline, then smallest remaining.
    Pdq { early_termination: bool },
    /// Preemptive priority by MERP's virtual deadlines (VDG per link, smallest esr of a path).
    Merp,
}

impl Policy {
    pub fn of(transport: &Transport) -> Policy {
        match transport {
            Transport::Tcp(_) | Transport::Rcp(_) => Policy::MaxMin,
            Transport::D3(p) => Policy::D3 {
                quench: p.quench,
                unit_bps: p.unit_bps,
            },
            Transport::Pace(_) => Policy::WeightedMaxMin,
            Transport::Pfabric(_) => Policy::Srpt,
            Transport::Pdq(p) => Policy::Pdq {
                early_termination: p.early_termination,
            },
            Transport::Merp(_) => Policy::Merp,
        }
    }

    /// Whether a deadline flow ends once its remaining bytes at its NIC rate no longer fit
    /// before its deadline (PDQ's Early Termination, D3's quenching).
    pub(super) fn gives_up_hopeless(&self) -> bool {
        matches!(
            self,
            Policy::Pdq {
                early_termination: true
            } | Policy::D3 { quench: true, .. }
        )
    }

    /// Max-min policies: their allocation depends on the flows present only, so an event
    /// changes only what it can reach ([`incremental`]).
    pub(super) fn is_max_min(&self) -> bool {
        matches!(self, Policy::MaxMin | Policy::WeightedMaxMin)
    }

    /// SRPT and PDQ repair their last pass ([`priority_repair`]).
    pub(super) fn repairs_its_pass(&self) -> bool {
        matches!(self, Policy::Srpt | Policy::Pdq { .. })
    }

    pub fn name(&self) -> &'static str {
        match self {
            Policy::MaxMin => "max-min",
            Policy::D3 { .. } => "d3",
            Policy::WeightedMaxMin => "weighted max-min",
            Policy::Srpt => "srpt",
            Policy::Pdq { .. } => "pdq",
            Policy::Merp => "merp",
        }
    }
}

/// The path choices the fluid model follows: those that keep a (sub)flow on one path.
const PER_FLOW_PATHS: [&str; 2] = ["ecmp", "bcube_paths"];

/// Refuses what the fluid model cannot honour (called by [`crate::engine::prepare()`] when
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
/// by [`crate::engine::prepare()`] when `engine = "flow"`, once the flows are generated).
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
