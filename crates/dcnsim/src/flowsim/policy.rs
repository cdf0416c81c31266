//! Which allocation policy a transport maps to (what the fluid model refuses is checked at
//! set-up: [`crate::run::flow_checks`]).

use crate::protocols::Transport;

/// How the rates of the flows present are shared out: each transport names its own
/// ([`crate::protocols::Caps::fluid`]).
pub use crate::protocols::FluidPolicy as Policy;

impl Policy {
    pub fn of(transport: &Transport) -> Policy {
        transport.caps().fluid
    }

    /// Whether a deadline flow ends once its remaining bytes at its NIC rate no longer fit
    /// before its deadline (PDQ's Early Termination, D3's quenching).
    pub(super) fn gives_up_hopeless(&self) -> bool {
        matches!(
            self,
            Policy::Pdq {
                early_termination: true,
                ..
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
