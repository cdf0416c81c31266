//! Which allocation policy a transport maps to (what the fluid model refuses is checked at
//! set-up: [`crate::run::flow_checks`]).

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
