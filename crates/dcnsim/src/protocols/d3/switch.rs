//! D3's router: three counters per egress port, updated by every request that passes.

use super::{units_of, D3Header, FLAG_LONG_PATH, FLAG_QUENCH, FLAG_REQUEST, MAX_HOPS};
use crate::net::network::Network;
use crate::net::packet::{Header, Packet, PacketKind};
use crate::net::PortIdx;
use crate::protocols::agent::Admission;

/// One port's counters, rates in bytes/µs.
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
    /// numbers, then allocates (unless the packet is a FIN).
    fn serve(&mut self, h: &mut D3Header, hop: usize, kind: PacketKind) {
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
        let left = self.capacity.saturating_sub(self.allocated);
        let fair_share = self.capacity.saturating_sub(self.demand) / self.flows.max(1);
        // Snippet 1's `left > r ? r + fs : left`, capped at `left` (see the module doc): when
        // `left ≤ r` the cap alone gives `left`.
        let a = (desired + fair_share).min(left).min(u16::MAX as u64);
        self.allocated += a;
        h.alloc[hop] = a as u16;
    }
}

/// The counters of every port's D3 router, by port index.
pub struct D3Switch {
    ports: Vec<Counters>,
}

impl D3Switch {
    pub fn new(net: &Network) -> D3Switch {
        D3Switch {
            ports: net
                .ports
                .iter()
                .map(|p| Counters {
                    capacity: units_of(p.rate),
                    ..Default::default()
                })
                .collect(),
        }
    }

    /// Port `port`'s counters (for tests and diagnostics).
    pub fn counters(&self, port: PortIdx) -> Counters {
        self.ports[port as usize]
    }

    /// SYN, FIN and requests are served and protected, and so are the replies that carry
    /// their allocations back (SYN-ACK, and the ACK echoing a request); everything else passes
    /// untouched.
    pub fn on_enqueue(&mut self, port: PortIdx, pkt: &mut Packet) -> Admission {
        let kind = pkt.kind;
        let Header::D3(h) = &mut pkt.header else {
            return Admission::Normal;
        };
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
        self.ports[port as usize].serve(h, hop, kind);
        h.hop += 1;
        Admission::Protected
    }
}
