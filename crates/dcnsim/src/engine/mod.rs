//! The discrete-event engine: the event queue (with its ordering contract) and the simulation
//! that runs a prepared scenario. Set-up and the progress types, shared with the flow-level
//! engine, are in [`crate::run`]; they are re-exported here, where they used to be.

pub mod queue;
pub mod sim;

pub use crate::run::{prepare, prepare_within, Prepared, Progress, RunError};
pub use sim::Simulation;
