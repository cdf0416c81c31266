//! Switch agents: the switch half of a protocol, installed on every egress port.
//!
//! A protocol with switch logic (RCP, D3, PDQ, MERP, PACE, MCP-Opt) reads and rewrites its
//! packets' [`Header`](crate::net::packet::Header) fields as they pass each port, and keeps
//! per-port state (an advertised rate, allocation counters, a flow list). One [`SwitchAgent`]
//! value holds that state for *every* port of the network, in dense vectors indexed by
//! [`PortIdx`], so an agent can also update another port's state (PDQ commits a flow's state
//! on the forward link when its ACK passes the reverse link: the forward egress port of the
//! previous hop is `Port::reverse` of the port the ACK leaves by).
//!
//! ## Where the engine calls it
//!
//! * [`route`](SwitchAgent::route): a packet is at `node` (a switch, its source host, or a
//!   relaying host) and needs an egress port, before the path choice of [`crate::lb`] runs.
//!   The agent sees the time, the packet, the equal-cost candidate ports of the routing table
//!   for its destination (possibly none, after a failure) and every port read-only (rate,
//!   queue length, up/down). `Some(port)` sends the packet there, into that port's
//!   `on_enqueue`; `None` leaves the choice to the routing table and the path choice. It is
//!   `&mut`, so an agent can choose and pin a flow's route: MERP's MEMR, at a SYN, will pick
//!   one of the candidates from its own per-port state, remember it per flow (a dense vector
//!   by flow and node, no hash map: this is on the per-packet path) and return it for the
//!   flow's later packets. PDQ uses it to send ACKs back over the links their data came by.
//!   The answer is not checked against the candidates (a reverse path need not be shortest);
//!   a port that is down drops the packet as usual.
//! * [`on_enqueue`](SwitchAgent::on_enqueue): a packet is offered to the port's queue, before
//!   admission (it may still be dropped). The agent may rewrite the packet and answers an
//!   [`Admission`]: `Protected` packets are never dropped for lack of buffer — if the queue
//!   refuses one, the engine strips its payload (`size -= payload`, `payload = 0`) and queues
//!   the header-only remainder beyond the limit ([`Queue::push_forced`]). The receiver then sees
//!   a data packet with no payload and answers it like any other (the header survives, the
//!   bytes are recovered by the sender's loss recovery). This is how an explicit-rate router
//!   keeps counters that must see every request (D3) from drifting when a queue overflows.
//! * [`on_dequeue`](SwitchAgent::on_dequeue): the packet leaves the queue and starts
//!   serialising onto the link. Rewrites here see the queue as the packet leaves it.
//! * [`poll_timeout`](SwitchAgent::poll_timeout) / [`handle_timeout`](SwitchAgent::handle_timeout):
//!   periodic work (RCP's control interval, D3's capacity adjustment, PDQ's rate
//!   controller). The engine asks `poll_timeout()` after every `handle_timeout` and after
//!   every `on_enqueue` (so a hook may
//!   wake a sleeping port), keeps one live event at the earliest answer and ignores superseded
//!   ones. `poll_timeout` is therefore on the per-packet path: keep it O(1) (a heap's top).
//!   `handle_timeout` sees every port (queue occupancy, rate) and must tolerate being called
//!   when nothing is due.
//!
//! Every port has the agent, a host's NIC included: the first link of a path is managed like
//! any other (RCP, D3 and PDQ routers are link controllers; a sender's own NIC is its first
//! bottleneck). A packet delivered to its destination host passes no further port. Packets of
//! the reverse direction (ACKs) pass the agents too; each protocol decides what they mean to
//! it (RCP and D3 ignore them).
//!
//! ## Cost
//!
//! With an agent, every port takes the dequeue-time path of the engine (a queue and a
//! transmit-complete event per hop), because an agent's rewrite at dequeue must happen when
//! the packet leaves. Without one (TCP, DCTCP, D2TCP, pFabric) the engine never calls into this
//! module: FIFO ports stay eager (one event per packet per hop).
//!
//! Dispatch is by enum, as for endpoints. Like endpoints, an agent is sans-IO: time and
//! packets in, rewritten fields and a verdict out; unit tests drive it with hand-built packets.
//!
//! [`Queue::push_forced`]: crate::net::queue::Queue::push_forced

use crate::net::network::{Network, Port};
use crate::net::packet::Packet;
use crate::net::PortIdx;
use crate::units::Time;

/// What the queue should do with a packet the agent has seen at enqueue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// The queue's own rule (drop-tail, rank drop, …).
    Normal,
    /// Never dropped for lack of buffer: queued header-only beyond the limit if it does not fit.
    Protected,
}

/// Soft state per port: when a port next looks for entries of flows gone silent (PDQ's flow
/// list, MERP's flow table). It looks every quarter of the timeout, when a packet passes, so an
/// entry outlives its flow's last packet by at most 1.25 timeouts.
#[derive(Clone, Copy, Debug, Default)]
pub struct SilenceSweep {
    next: Time,
}

impl SilenceSweep {
    /// Drops from `entries` those whose flow (`last_seen` of each) has sent nothing across
    /// the port for more than `timeout`, if a look is due now.
    pub fn forget_silent<T>(
        &mut self,
        entries: &mut Vec<T>,
        now: Time,
        timeout: Time,
        last_seen: impl Fn(&T) -> Time,
    ) {
        if now < self.next {
            return;
        }
        self.next = now + Time::from_ps(timeout.ps() / 4);
        entries.retain(|e| now.saturating_sub(last_seen(e)) <= timeout);
    }
}

/// The switch halves of the protocols that have one, each holding the state of every port.
pub enum SwitchAgent {
    Pdq(super::pdq::PdqAgent),
    Rcp(super::rcp::RcpSwitch),
    D3(super::d3::D3Switch),
    Merp(super::merp::MerpSwitch),
    Pace(super::pace::PaceForwarder),
    Mcp(super::mcp::McpSwitch),
}

impl SwitchAgent {
    /// The agent of `transport` for this network, if the protocol has switch logic. `lb` is
    /// the path choice: a protocol's own route control (MERP's MEMR) is one of them.
    pub fn new(
        transport: &super::Transport,
        net: &Network,
        lb: crate::lb::LbKind,
    ) -> Option<SwitchAgent> {
        use super::Transport;
        match transport {
            Transport::Tcp(p) => match &p.variant {
                super::tcp::Variant::Mcp(m) if m.opt => {
                    Some(SwitchAgent::Mcp(super::mcp::McpSwitch::new(m, net)))
                }
                _ => None,
            },
            Transport::Pfabric(_) => None,
            Transport::Pdq(p) => Some(SwitchAgent::Pdq(super::pdq::PdqAgent::new(
                p.switch, p.subflows, net,
            ))),
            Transport::Rcp(p) => Some(SwitchAgent::Rcp(super::rcp::RcpSwitch::new(p, net))),
            Transport::D3(p) => Some(SwitchAgent::D3(super::d3::D3Switch::new(p, net))),
            Transport::Merp(p) => Some(SwitchAgent::Merp(super::merp::MerpSwitch::new(
                p,
                net,
                lb == crate::lb::LbKind::Memr,
            ))),
            Transport::Pace(p) => Some(SwitchAgent::Pace(super::pace::PaceForwarder::new(
                p.period_units,
                p.full_packet(),
                net,
            ))),
        }
    }

    /// A packet is offered to `port`'s queue (see the module doc).
    pub fn on_enqueue(
        &mut self,
        now: Time,
        port: PortIdx,
        at: &Port,
        pkt: &mut Packet,
    ) -> Admission {
        match self {
            SwitchAgent::Pdq(a) => a.on_enqueue(now, port, at, pkt),
            SwitchAgent::Rcp(a) => a.on_enqueue(now, port, pkt),
            SwitchAgent::D3(a) => a.on_enqueue(now, port, at.counters.tx_bytes, pkt),
            SwitchAgent::Merp(a) => {
                a.on_enqueue(now, port, pkt);
                Admission::Normal
            }
            SwitchAgent::Pace(a) => a.on_enqueue(now, port, at, pkt),
            SwitchAgent::Mcp(a) => {
                a.on_enqueue(now, port, at, pkt);
                Admission::Normal
            }
        }
    }

    /// The egress port `pkt` takes at `node` when the agent decides its route, or `None` for
    /// the path choice among `candidates` (the routing table's equal-cost ports towards its
    /// destination). `ports` is every port of the network, by index. See the module doc.
    #[inline]
    pub fn route(
        &mut self,
        now: Time,
        node: crate::net::NodeIdx,
        pkt: &Packet,
        candidates: &[PortIdx],
        ports: &[Port],
    ) -> Option<PortIdx> {
        let _ = ports;
        match self {
            // PDQ's ACKs retrace their data's path, whatever the candidates.
            SwitchAgent::Pdq(a) => a.reverse_route(node, pkt),
            SwitchAgent::Merp(a) => a.route(now, node, pkt, candidates),
            SwitchAgent::Pace(a) => a.reverse_route(node, pkt),
            SwitchAgent::Mcp(_) => None,
            SwitchAgent::Rcp(_) | SwitchAgent::D3(_) => None,
        }
    }

    /// A packet leaves `port`'s queue and starts serialising.
    pub fn on_dequeue(&mut self, now: Time, port: PortIdx, at: &Port, pkt: &mut Packet) {
        match self {
            SwitchAgent::Pdq(_) | SwitchAgent::Rcp(_) | SwitchAgent::D3(_) => {}
            SwitchAgent::Merp(a) => a.on_dequeue(now, port, pkt),
            SwitchAgent::Pace(a) => a.on_dequeue(port, at),
            SwitchAgent::Mcp(_) => {}
        }
    }

    /// When the agent next wants [`handle_timeout`](Self::handle_timeout).
    pub fn poll_timeout(&self) -> Option<Time> {
        match self {
            SwitchAgent::Pdq(_) => None, // the rate controller runs lazily (see protocols::pdq)
            SwitchAgent::Rcp(a) => a.poll_timeout(),
            SwitchAgent::D3(a) => a.poll_timeout(),
            SwitchAgent::Merp(_) | SwitchAgent::Pace(_) | SwitchAgent::Mcp(_) => None,
        }
    }

    /// Periodic work due at `now`; `ports` is every port of the network, by index.
    pub fn handle_timeout(&mut self, now: Time, ports: &[Port]) {
        match self {
            SwitchAgent::Pdq(_) => {}
            SwitchAgent::Rcp(a) => a.handle_timeout(now, ports),
            SwitchAgent::D3(a) => a.handle_timeout(now, ports),
            SwitchAgent::Merp(_) | SwitchAgent::Pace(_) | SwitchAgent::Mcp(_) => {}
        }
    }
}
