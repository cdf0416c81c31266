//! The discrete-event engine: the event queue (with its ordering contract) and the simulation
//! that runs a prepared scenario.

pub mod queue;
pub mod sim;

pub use sim::{prepare, Prepared, Progress, RunError, Simulation};
