//! The network: packets and their pool, egress queues, ports and links, routing tables.

pub mod header;
pub mod ideal;
pub mod network;
pub mod packet;
pub mod queue;
pub mod ring;
pub mod routing;
pub mod scale;

pub use network::{Network, NodeIdx, PortIdx};
