//! The network: packets, queues, ports, links, switches, routing.

pub mod packet;
