//! The discrete-event engine: the event queue (with its ordering contract) and the simulation
//! that runs a prepared scenario.

pub mod prepare;
pub mod queue;
pub mod sim;

pub use prepare::{prepare, prepare_within, Prepared};
pub use sim::{Progress, RunError, Simulation};
