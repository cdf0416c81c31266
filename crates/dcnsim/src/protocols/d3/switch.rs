//! D3's router: three counters per egress port, updated by every request that passes, and
//! (under `d3_capacity = "adjusted"`) the capacity they hand out, moved every interval from
//! what the port sent and its queue.

use super::{
    units_of, Capacity, D3Header, D3Params, FLAG_LONG_PATH, FLAG_QUENCH, FLAG_REQUEST, MAX_HOPS,
};
use crate::net::network::{Network, Port};
use crate::net::packet::{Packet, PacketKind};
use crate::net::PortIdx;
use crate::protocols::agent::{Admission, SwitchHooks};
use crate::units::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The adjusted capacity stays within [the link rate, this × the link rate] (module doc).
pub const MAX_CAPACITY_FACTOR: f64 = 2.0;

/// One port's counters, rates in units of the transport's `unit_bps`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// C: the link rate.
    pub capacity: u64,
    /// N: flows whose SYN passed and whose FIN has not.
    pub flows: u64,
    /// D: the sum of the flows' desired rates.
    pub demand: u64,
    /// A: the sum of the allocations handed out.
    pub allocated: u64,
}

impl Counters {
    /// Serves the request in `h` at hop `hop` (see the module doc of D3): returns the previous
    /// numbers, then allocates (unless the packet is a FIN) out of `handed_out` units (the
    /// link rate, or the adjusted capacity), never more than the link rate nor, when
    /// `follow_previous`, than the previous hop gave.
    fn serve(
        &mut self,
        h: &mut D3Header,
        hop: usize,
        kind: PacketKind,
        handed_out: u64,
        follow_previous: bool,
    ) {
        self.allocated = self.allocated.saturating_sub(h.alloc[hop] as u64);
        self.demand = self.demand.saturating_sub(h.prev_desired as u64);
        if kind == PacketKind::Fin {
            self.flows = self.flows.saturating_sub(1);
            h.alloc[hop] = 0;
            return;
        }
        if kind == PacketKind::Syn {
            self.flows += 1;
        }
        let desired = h.desired as u64;
        self.demand += desired;
        if hop == 0 && desired > self.capacity {
            h.flags |= FLAG_QUENCH;
        }
        let left = handed_out.saturating_sub(self.allocated);
        let fair_share = handed_out.saturating_sub(self.demand) / self.flows.max(1);
        // Snippet 1's `left > r ? r + fs : left`, capped at `left` (see the module doc): when
        // `left ≤ r` the cap alone gives `left`. Never more than the link carries (the
        // adjusted capacity may exceed it), and the link rate fits the header's 16 bits
        // (`Protocol::check_link_rates` of `D3Params`).
        let mut a = (desired + fair_share)
            .min(left)
            .min(self.capacity)
            .min(u16::MAX as u64);
        if follow_previous && hop > 0 {
            // §4: a bottleneck earlier on the path is not allocated again here. Slot hop − 1
            // holds what the previous router gave this request.
            a = a.min(h.alloc[hop - 1] as u64);
        }
        self.allocated += a;
        h.alloc[hop] = a as u16;
    }
}

/// One port's adjusted capacity (`d3_capacity = "adjusted"`).
#[derive(Clone, Debug)]
struct Adjust {
    /// The link rate and the capacity handed out, bit/s.
    link_bps: f64,
    capacity_bps: f64,
    /// The port's transmitted bytes (`PortCounters::tx_bytes`) at the last update: the bytes
    /// it sent in an interval are its utilisation.
    last_tx_bytes: u64,
    last_update: Time,
    /// `None` while the port has no flow (its capacity is then the link rate).
    next_update: Option<Time>,
}

/// The counters of every port's D3 router, by port index.
pub struct D3Switch {
    ports: Vec<Counters>,
    unit_bps: u64,
    /// `adjusted`: (α, β, interval) and every port's state; empty under `link`.
    gains: Option<(f64, f64, Time)>,
    adjust: Vec<Adjust>,
    /// (due time, port) of the pending updates; a port that went idle leaves a stale entry,
    /// skipped when it comes up.
    wake: BinaryHeap<Reverse<(Time, PortIdx)>>,
}

impl D3Switch {
    pub fn new(p: &D3Params, net: &Network) -> D3Switch {
        let gains = match p.capacity {
            Capacity::Adjusted {
                alpha,
                beta,
                interval,
            } => Some((alpha, beta, interval)),
            Capacity::Link => None,
        };
        D3Switch {
            ports: net
                .ports
                .iter()
                .map(|port| Counters {
                    capacity: units_of(port.rate, p.unit_bps),
                    ..Default::default()
                })
                .collect(),
            unit_bps: p.unit_bps,
            adjust: if gains.is_some() {
                net.ports
                    .iter()
                    .map(|port| {
                        let c = port.rate.bits_per_sec() as f64;
                        Adjust {
                            link_bps: c,
                            capacity_bps: c,
                            last_tx_bytes: 0,
                            last_update: Time::ZERO,
                            next_update: None,
                        }
                    })
                    .collect()
            } else {
                Vec::new()
            },
            gains,
            wake: BinaryHeap::new(),
        }
    }

    /// Port `port`'s counters (for tests and diagnostics).
    pub fn counters(&self, port: PortIdx) -> Counters {
        self.ports[port as usize]
    }

    /// The capacity port `port` hands out now, bit/s: the adjusted one, or the link rate.
    pub fn capacity_bps(&self, port: PortIdx) -> f64 {
        match self.adjust.get(port as usize) {
            Some(a) => a.capacity_bps,
            None => (self.ports[port as usize].capacity * self.unit_bps) as f64,
        }
    }

    /// SYN, FIN and requests are served and protected, and so are the replies that carry
    /// their allocations back (SYN-ACK, and the ACK echoing a request); everything else passes
    /// untouched. `tx_bytes`: the port's transmit counter (`PortCounters::tx_bytes`), from
    /// which a sleeping port that wakes counts what it sends.
    pub fn serve(
        &mut self,
        now: Time,
        port: PortIdx,
        tx_bytes: u64,
        pkt: &mut Packet,
    ) -> Admission {
        let kind = pkt.kind;
        pkt.header
            .update(|h: &mut D3Header| self.serve_header(now, port, tx_bytes, kind, h))
            .unwrap_or(Admission::Normal)
    }

    /// [`D3Switch::serve`] on the packet's header.
    fn serve_header(
        &mut self,
        now: Time,
        port: PortIdx,
        tx_bytes: u64,
        kind: PacketKind,
        h: &mut D3Header,
    ) -> Admission {
        if kind.is_reverse() {
            let reply = kind == PacketKind::SynAck || h.has(FLAG_REQUEST);
            return if reply {
                Admission::Protected
            } else {
                Admission::Normal
            };
        }
        let control = matches!(kind, PacketKind::Syn | PacketKind::Fin);
        if !control && !h.has(FLAG_REQUEST) {
            return Admission::Normal;
        }
        let hop = h.hop as usize;
        if hop >= MAX_HOPS {
            h.flags |= FLAG_LONG_PATH;
            return Admission::Protected;
        }
        let counters = &mut self.ports[port as usize];
        match (self.gains, self.adjust.get_mut(port as usize)) {
            (Some((_, _, interval)), Some(a)) => {
                let handed_out = (a.capacity_bps / self.unit_bps as f64) as u64;
                counters.serve(h, hop, kind, handed_out, true);
                if counters.flows > 0 && a.next_update.is_none() {
                    // The first flow wakes the port: its utilisation counts from now.
                    a.last_update = now;
                    a.last_tx_bytes = tx_bytes;
                    let due = now + interval;
                    a.next_update = Some(due);
                    self.wake.push(Reverse((due, port)));
                }
            }
            _ => {
                let handed_out = counters.capacity;
                counters.serve(h, hop, kind, handed_out, false);
            }
        }
        h.hop += 1;
        Admission::Protected
    }
}

impl SwitchHooks for D3Switch {
    fn on_enqueue(&mut self, now: Time, port: PortIdx, at: &Port, pkt: &mut Packet) -> Admission {
        self.serve(now, port, at.counters.tx_bytes, pkt)
    }

    /// When the next capacity update is due (`adjusted` only).
    fn poll_timeout(&self) -> Option<Time> {
        self.wake.peek().map(|Reverse((t, _))| *t)
    }

    /// The capacity updates due at `now`.
    fn handle_timeout(&mut self, now: Time, ports: &[Port]) {
        let Some((alpha, beta, interval)) = self.gains else {
            return;
        };
        while let Some(&Reverse((due, port))) = self.wake.peek() {
            if due > now {
                break;
            }
            self.wake.pop();
            let a = &mut self.adjust[port as usize];
            if a.next_update != Some(due) {
                continue; // the port went idle since
            }
            let at = &ports[port as usize];
            let queue_bits = at.queue.len_bytes() as f64 * 8.0;
            let sent_bits = at.counters.tx_bytes.saturating_sub(a.last_tx_bytes) as f64 * 8.0;
            let t = (now - a.last_update).as_secs_f64();
            if t > 0.0 {
                a.capacity_bps = adjusted_capacity(
                    a.capacity_bps,
                    a.link_bps,
                    t,
                    interval.as_secs_f64(),
                    sent_bits / t,
                    queue_bits,
                    alpha,
                    beta,
                );
            }
            a.last_tx_bytes = at.counters.tx_bytes;
            a.last_update = now;
            if self.ports[port as usize].flows == 0 {
                // No flow to compensate for: the port hands out its link rate and sleeps.
                a.capacity_bps = a.link_bps;
                a.next_update = None;
            } else {
                let next = now + interval;
                a.next_update = Some(next);
                self.wake.push(Reverse((next, port)));
            }
        }
    }
}

/// D3's capacity adjustment over `t` seconds of an update interval of `interval` seconds:
/// `C ← C + (t/interval)·(α·(C_link − u) − β·q/interval)`, with u the rate the port sent at
/// and q its queue, kept within [C_link, [`MAX_CAPACITY_FACTOR`]·C_link] (module doc). Rates
/// in bit/s, `q` in bits.
#[allow(clippy::too_many_arguments)]
pub fn adjusted_capacity(
    capacity: f64,
    link: f64,
    t: f64,
    interval: f64,
    u: f64,
    q: f64,
    alpha: f64,
    beta: f64,
) -> f64 {
    let next = capacity + (t / interval) * (alpha * (link - u) - beta * q / interval);
    next.clamp(link, MAX_CAPACITY_FACTOR * link)
}
