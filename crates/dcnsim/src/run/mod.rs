//! What both engines share: set-up and the run's progress.
//!
//! [`prepare_within`] turns a scenario into a [`Prepared`] run, refusing everything either
//! engine cannot honour (for the flow-level one: [`flow_checks`]); the packet-level
//! [`crate::engine::Simulation`] and the flow-level [`crate::flowsim::FlowSimulation`] each run
//! a [`Prepared`], report [`Progress`] through a [`ProgressClock`] and stop with a [`RunError`].
//! This module sits below both engines, so neither imports the other: set-up used to live in
//! `engine` and call `flowsim`'s checks, while `flowsim` took its progress types from `engine`
//! (issue 38).

pub mod flow_checks;
pub mod prepare;
pub mod progress;

pub use flow_checks::{check_flow_count, check_scenario, MAX_FLOWS};
pub use prepare::{prepare, prepare_within, Prepared};
pub use progress::{Progress, ProgressClock, RunError, UNFINISHED_GUARD};
