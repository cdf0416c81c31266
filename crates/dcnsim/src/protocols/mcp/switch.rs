//! MCP-Opt's switches: the "additional field in the packet header" of §4 to which every port
//! adds its queue length and its link price as a data packet arrives.
//!
//! * **The queue** Q_l is the port's standing queue: the smallest queue a packet found on
//!   arriving in the last complete interval of `mcp_rate_interval_us` (the network's base RTT)
//!   or in the one under way. A packet's own burst (a window sent back to back) is not a
//!   queue the flows share, and the seed's Q_l is a long-term quantity (the queue the rate
//!   stability condition bounds).
//! * **The load** y_l is the bytes that arrived in each interval (every packet counts, ACKs
//!   and other flows included), averaged over `mcp_rate_average_us` (1 ms) by an exponential
//!   moving average with gain interval/average per interval: the seed's y is a long-term
//!   rate (eq. (3)), and a port busy for one base RTT would otherwise read as full and add a
//!   price of tens of packets per hop.

use super::{price, McpHeader, McpParams};
use crate::net::network::{Network, Port};
use crate::net::packet::{Packet, PacketKind};
use crate::net::PortIdx;
use crate::protocols::agent::{Admission, SwitchHooks};
use crate::units::Time;

#[derive(Clone, Debug)]
struct Load {
    /// The link's rate, bytes/s.
    capacity: f64,
    /// The interval under way: when it started, the bytes that arrived in it and the smallest
    /// queue (packets) an arrival found.
    start: Time,
    bytes: u64,
    least_queue: u32,
    /// The smallest queue of the last complete interval.
    last_least_queue: u32,
    /// The averaged arrival rate, bytes/s.
    rate: f64,
}

pub struct McpSwitch {
    interval: Time,
    /// The average's gain per interval.
    gain: f64,
    ports: Vec<Load>,
}

impl McpSwitch {
    pub fn new(p: &McpParams, net: &Network) -> McpSwitch {
        McpSwitch {
            interval: p.rate_interval,
            gain: (p.rate_interval.as_secs_f64() / p.rate_average.as_secs_f64()).min(1.0),
            ports: net
                .ports
                .iter()
                .map(|port| Load {
                    capacity: port.rate.bits_per_sec() as f64 / 8.0,
                    start: Time::ZERO,
                    bytes: 0,
                    least_queue: 0,
                    last_least_queue: 0,
                    rate: 0.0,
                })
                .collect(),
        }
    }

    /// A packet arrives at `port`'s queue: count it, and add the port's queue and price to a
    /// data packet's field.
    pub fn stamp(&mut self, now: Time, port: PortIdx, at: &Port, pkt: &mut Packet) {
        let load = &mut self.ports[port as usize];
        let queue = at.queue.len_pkts() as u32;
        if now >= load.start + self.interval {
            // A packet after an idle gap closes the interval under way; the ones the gap
            // spanned were empty (no bytes, no queue).
            let elapsed = (now - load.start).ps() / self.interval.ps();
            let sample = load.bytes as f64 / self.interval.as_secs_f64();
            load.rate += self.gain * (sample - load.rate);
            if elapsed > 1 {
                load.rate *= (1.0 - self.gain).powi((elapsed - 1).min(i32::MAX as u64) as i32);
            }
            load.last_least_queue = if elapsed == 1 { load.least_queue } else { 0 };
            load.start += self.interval * elapsed;
            load.bytes = 0;
            load.least_queue = queue;
        }
        load.least_queue = load.least_queue.min(queue);
        load.bytes += pkt.size as u64;
        // Switches stamp (§4: "the switch adds its own price and queue length"), not the
        // sender's NIC, whose queue is the flow's own burst; the ACK echoing the sums passes.
        if pkt.kind != PacketKind::Data || !at.at_switch {
            return;
        }
        pkt.header.update(|h: &mut McpHeader| {
            let standing = load.least_queue.min(load.last_least_queue);
            h.queue_pkts = h.queue_pkts.saturating_add(standing);
            h.price += price(load.capacity, load.rate) as f32;
        });
    }

    /// The averaged arrival rate (bytes/s) of `port` (for tests).
    pub fn arrival_rate(&self, port: PortIdx) -> f64 {
        self.ports[port as usize].rate
    }
}

impl SwitchHooks for McpSwitch {
    fn on_enqueue(&mut self, now: Time, port: PortIdx, at: &Port, pkt: &mut Packet) -> Admission {
        self.stamp(now, port, at, pkt);
        Admission::Normal
    }
}
