//! MCP-Opt's switches: the "additional field in the packet header" of §4 to which every port
//! adds its queue length and its link price as a data packet arrives. A port's arrival rate y
//! is the bytes that arrived in its last complete measuring interval over that interval (every
//! packet counts, ACKs and other flows included).

use super::{price, McpParams};
use crate::net::network::{Network, Port};
use crate::net::packet::{Header, Packet, PacketKind};
use crate::net::PortIdx;
use crate::units::Time;

#[derive(Clone, Debug)]
struct Load {
    /// The link's rate, bytes/s.
    capacity: f64,
    /// The interval under way: when it started and the bytes that arrived in it.
    start: Time,
    bytes: u64,
    /// The arrival rate of the last complete interval, bytes/s.
    rate: f64,
}

pub struct McpSwitch {
    interval: Time,
    ports: Vec<Load>,
}

impl McpSwitch {
    pub fn new(p: &McpParams, net: &Network) -> McpSwitch {
        McpSwitch {
            interval: p.rate_interval,
            ports: net
                .ports
                .iter()
                .map(|port| Load {
                    capacity: port.rate.bits_per_sec() as f64 / 8.0,
                    start: Time::ZERO,
                    bytes: 0,
                    rate: 0.0,
                })
                .collect(),
        }
    }

    /// A packet arrives at `port`'s queue: count it, and add the port's queue and price to a
    /// data packet's field.
    pub fn on_enqueue(&mut self, now: Time, port: PortIdx, at: &Port, pkt: &mut Packet) {
        let load = &mut self.ports[port as usize];
        if now >= load.start + self.interval {
            // A packet after an idle gap closes the interval under way; the ones the gap
            // spanned were empty.
            let elapsed = (now - load.start).ps() / self.interval.ps();
            load.rate = if elapsed == 1 {
                load.bytes as f64 / self.interval.as_secs_f64()
            } else {
                0.0
            };
            load.start += self.interval * elapsed;
            load.bytes = 0;
        }
        load.bytes += pkt.size as u64;
        // Switches stamp (§4: "the switch adds its own price and queue length"), not the
        // sender's NIC, whose queue is the flow's own burst; the ACK echoing the sums passes.
        if pkt.kind != PacketKind::Data || !at.at_switch {
            return;
        }
        if let Header::Mcp(h) = &mut pkt.header {
            h.queue_pkts = h.queue_pkts.saturating_add(at.queue.len_pkts() as u32);
            h.price += price(load.capacity, load.rate) as f32;
        }
    }

    /// The arrival rate (bytes/s) of `port`'s last complete interval (for tests).
    pub fn arrival_rate(&self, port: PortIdx) -> f64 {
        self.ports[port as usize].rate
    }
}
