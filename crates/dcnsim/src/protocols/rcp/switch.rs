//! RCP's router: one advertised rate per egress port, updated every control interval.

use super::{RcpHeader, RcpParams, RATE_UNSET};
use crate::net::network::{Network, Port};
use crate::net::packet::Packet;
use crate::net::PortIdx;
use crate::protocols::agent::{Admission, SwitchHooks};
use crate::units::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// ns-2's cap on the control interval.
const MAX_INTERVAL_S: f64 = 0.01;
/// ns-2's `min_pprtt_`: the rate floor is this many full packets per d0.
const MIN_PKTS_PER_RTT: f64 = 0.01;
const FULL_PACKET_BITS: f64 = 1500.0 * 8.0;

#[derive(Clone, Debug)]
struct Link {
    capacity_bps: f64,
    rate_bps: f64,
    /// Average RTT of the flows crossing the link, seconds.
    d0_s: f64,
    last_update: Time,
    /// `None` while the link sleeps (idle at full rate).
    next_update: Option<Time>,
    arrived_bytes: u64,
    /// Σ bytes × RTT_p and Σ bytes over the forward packets that carried an RTT.
    rtt_weighted: f64,
    rtt_bytes: u64,
}

/// The state of every port's RCP router, by port index.
pub struct RcpSwitch {
    alpha: f64,
    beta: f64,
    links: Vec<Link>,
    /// (due time, port) of the pending updates; every awake link has exactly one entry.
    wake: BinaryHeap<Reverse<(Time, PortIdx)>>,
}

impl RcpSwitch {
    pub fn new(p: &RcpParams, net: &Network) -> RcpSwitch {
        let links = net
            .ports
            .iter()
            .map(|port| {
                let c = port.rate.bits_per_sec() as f64;
                Link {
                    capacity_bps: c,
                    rate_bps: p.init_rate * c,
                    d0_s: p.init_rtt.as_secs_f64(),
                    last_update: Time::ZERO,
                    next_update: None,
                    arrived_bytes: 0,
                    rtt_weighted: 0.0,
                    rtt_bytes: 0,
                }
            })
            .collect();
        RcpSwitch {
            alpha: p.alpha,
            beta: p.beta,
            links,
            wake: BinaryHeap::new(),
        }
    }

    /// The rate port `port` advertises now, bit/s (for tests and diagnostics).
    pub fn rate_bps(&self, port: PortIdx) -> f64 {
        self.links[port as usize].rate_bps
    }

    /// The average RTT port `port` uses, seconds.
    pub fn d0_s(&self, port: PortIdx) -> f64 {
        self.links[port as usize].d0_s
    }

    /// Counts the packet into the port's arrivals and stamps the port's rate into its header
    /// (the path minimum).
    pub fn stamp(&mut self, now: Time, port: PortIdx, pkt: &mut Packet) -> Admission {
        let link = &mut self.links[port as usize];
        link.arrived_bytes += pkt.size as u64;
        if link.next_update.is_none() {
            link.last_update = now;
            let due = now + interval(link.d0_s);
            link.next_update = Some(due);
            self.wake.push(Reverse((due, port)));
        }
        if pkt.kind.is_reverse() {
            return Admission::Normal;
        }
        let size = pkt.size;
        pkt.header.update(|h: &mut RcpHeader| {
            let offered = (link.rate_bps / 1000.0) as u64;
            if h.rate_kbps == RATE_UNSET || (h.rate_kbps as u64) > offered {
                h.rate_kbps = offered.min(RATE_UNSET as u64 - 1) as u32;
            }
            if h.rtt_ns > 0 {
                link.rtt_weighted += size as f64 * h.rtt_ns as f64 * 1e-9;
                link.rtt_bytes += size as u64;
            }
        });
        Admission::Normal
    }

    /// The rate law for one link; returns its next update time, or `None` if it sleeps.
    fn update(&mut self, port: PortIdx, now: Time, queue_bytes: u64) -> Option<Time> {
        let (alpha, beta) = (self.alpha, self.beta);
        let link = &mut self.links[port as usize];
        let t = (now - link.last_update).as_secs_f64();
        let c = link.capacity_bps;
        if t > 0.0 {
            let y = link.arrived_bytes as f64 * 8.0 / t;
            let q = queue_bytes as f64 * 8.0;
            link.rate_bps = rate_law(link.rate_bps, c, t, link.d0_s, y, q, alpha, beta);
        }
        if link.rtt_bytes > 0 {
            link.d0_s = link.rtt_weighted / link.rtt_bytes as f64;
        }
        let idle = link.arrived_bytes == 0 && queue_bytes == 0 && link.rate_bps >= c;
        link.arrived_bytes = 0;
        link.rtt_weighted = 0.0;
        link.rtt_bytes = 0;
        link.last_update = now;
        link.next_update = (!idle).then(|| now + interval(link.d0_s));
        link.next_update
    }
}

impl SwitchHooks for RcpSwitch {
    fn on_enqueue(&mut self, now: Time, port: PortIdx, _at: &Port, pkt: &mut Packet) -> Admission {
        self.stamp(now, port, pkt)
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.wake.peek().map(|Reverse((t, _))| *t)
    }

    fn handle_timeout(&mut self, now: Time, ports: &[Port]) {
        while let Some(&Reverse((due, port))) = self.wake.peek() {
            if due > now {
                break;
            }
            self.wake.pop();
            let q = ports[port as usize].queue.len_bytes();
            if let Some(next) = self.update(port, now, q) {
                self.wake.push(Reverse((next, port)));
            }
        }
    }
}

/// RCP's rate law for one control interval: `R · [1 + (T/d0)·(α·(C − y) − β·q/d0) / C]`,
/// clamped to [R_min, C] with R_min = 0.01 full packets per d0. Rates in bit/s, `t` and `d0`
/// in seconds, `q` in bits.
#[allow(clippy::too_many_arguments)]
pub fn rate_law(r: f64, c: f64, t: f64, d0: f64, y: f64, q: f64, alpha: f64, beta: f64) -> f64 {
    let next = r * (1.0 + (t / d0) * (alpha * (c - y) - beta * q / d0) / c);
    let r_min = MIN_PKTS_PER_RTT * FULL_PACKET_BITS / d0;
    next.clamp(r_min.min(c), c)
}

fn interval(d0_s: f64) -> Time {
    Time::from_secs_f64(d0_s.min(MAX_INTERVAL_S)).max(Time(1))
}
