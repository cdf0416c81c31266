//! # dcnsim — a packet-level data center network simulator
//!
//! PLACEHOLDER crate essay (written with the engine).

pub mod config;
pub mod error;
pub mod net;
pub mod protocols;
pub mod rng;
pub mod topo;
pub mod units;
pub mod workload;
