//! Endpoints: a flow's start, its sender and receiver driven by packets and timers, what
//! they emit put on the host's NIC, and the flow's end.

use super::reorder::ReceiverInput;
use super::trace::trace_row;
use super::{admit, path_facts, receiver_timeout, Endpoints, Event, Side, Simulation};
use crate::metrics::series::TraceEvent;
use crate::net::ideal;
use crate::net::packet::{Packet, PacketKind, PacketRef};
use crate::net::NodeIdx;
use crate::protocols::{EndpointEvent, FlowSetup};

impl Simulation {
    pub(super) fn deliver(&mut self, r: PacketRef) {
        let pkt = self.pool.get(r);
        self.counters.delivered_pkts += 1;
        self.counters.delivered_bytes += pkt.size as u64;
        let flow = pkt.flow as usize;
        let side = if pkt.kind.is_reverse() {
            Side::Sender
        } else {
            Side::Receiver
        };
        if let Some(ep) = self.flows[flow].endpoints.as_mut() {
            match side {
                Side::Sender => {
                    ep.sender.handle_packet(self.now, pkt);
                    if ep.traced {
                        let cwnd = ep.sender.cwnd_bytes();
                        let row = trace_row(self.now, flow as u32, TraceEvent::Receive, pkt, cwnd);
                        self.trace.push(row);
                    }
                }
                Side::Receiver => {
                    let f = &mut self.flows[flow];
                    f.reorder.on_arrival(pkt);
                    let ep = f.endpoints.as_mut().expect("checked above");
                    // New bytes: those above what the receiver already holds in order (a
                    // copy of bytes it has released is not goodput). Only the series use them.
                    if self.series_interval.is_some() && pkt.kind == PacketKind::Data {
                        let held = ep.receiver.bytes_delivered();
                        let end = pkt.seq + pkt.payload as u64;
                        f.arrived_bytes += end.saturating_sub(pkt.seq.max(held));
                    }
                    let mut rx = ReceiverInput {
                        stats: &mut f.reorder,
                        dropped: &f.dropped,
                        size: f.spec.size_bytes,
                        now: self.now,
                    };
                    match ep.reseq.as_mut() {
                        None => rx.feed(&mut ep.receiver, pkt),
                        Some(rs) => {
                            let pass =
                                rs.handle_packet(self.now, pkt, ep.receiver.bytes_delivered());
                            rx.release_held(rs, &mut ep.receiver, pass.then_some(pkt));
                        }
                    }
                }
            }
            self.pool.release(r);
            self.after_endpoint(flow as u32, side);
        } else {
            // The flow is over and its state freed: a late duplicate or ACK.
            self.pool.release(r);
        }
    }

    pub(super) fn start_flow(&mut self, i: u32) {
        let idx = i as usize;
        self.next_flow = idx + 1;
        if let Some(next) = self.flows.get(idx + 1) {
            self.events
                .schedule(next.spec.start.max(self.now), Event::FlowStart(i + 1));
        }
        let f = &self.flows[idx];
        if let (true, Some(d)) = (self.abort_at_deadline, f.spec.deadline) {
            self.events
                .schedule(f.spec.start + d, Event::DeadlineAbort(i));
        }
        let path = ideal::best_path(&self.net, f.spec.src, f.spec.dst);
        let setup = FlowSetup {
            flow: i,
            src: f.spec.src,
            dst: f.spec.dst,
            size: f.spec.size_bytes,
            start: self.now,
            deadline: f.spec.deadline.map(|d| f.spec.start + d),
            weight: f.spec.weight,
            path_key: f.path_key,
            path: path_facts(&self.net, &path),
        };
        let (mss, header) = self.transport.data_packet_sizes();
        let ideal_fct = ideal::ideal_fct(&self.net, &path, setup.size, mss, header);
        let nic = self.net.nodes[self.net.hosts[setup.src as usize] as usize].ports[0];
        let mut sender = self
            .transport
            .new_sender(&setup, self.net.ports[nic as usize].rate);
        let receiver = self.transport.new_receiver(&setup);
        let reseq = self.lb.resequencer();
        sender.start(self.now);
        let f = &mut self.flows[idx];
        f.ideal_fct = ideal_fct;
        f.endpoints = Some(Box::new(Endpoints {
            sender,
            receiver,
            sender_done: false,
            traced: self.traced.contains(idx),
            timer: [None, None],
            generation: [0, 0],
            reseq,
        }));
        self.after_endpoint(i, Side::Sender);
    }

    /// `workload.abort_at_deadline`: the application gives up on a flow still running at its
    /// deadline; it ends as if its protocol had terminated it, close packets included (PDQ's
    /// TERM, D3's and MERP's FIN, PACE's TERMINATE), so that switches holding state for it let
    /// it go. It counts as terminated now, and its delivered bytes stop here; a sender that
    /// must first hear a reply ([`Sender::is_closing`]) keeps its endpoints until it has.
    pub(super) fn abort_at_deadline(&mut self, i: u32) {
        let now = self.now;
        let f = &mut self.flows[i as usize];
        if f.finish.is_some() || f.terminated.is_some() {
            return;
        }
        let Some(ep) = f.endpoints.as_mut() else {
            return;
        };
        let (sender_closes, receiver_closes) = (ep.sender.abort(now), ep.receiver.abort(now));
        // Their close packets go out while the endpoints are still there; a sender that waits
        // for a reply gets its timer (in case the reply never comes).
        let sender_waits = ep.sender.is_closing();
        if receiver_closes {
            self.after_endpoint(i, Side::Receiver);
        }
        if sender_closes || sender_waits {
            self.after_endpoint(i, Side::Sender);
        }
        let held = self.any_side_held(i);
        let f = &mut self.flows[i as usize];
        if f.terminated.is_none() {
            f.terminated = Some(now);
            self.flows_done += 1;
        }
        // A sender still closing (D3 awaiting a reply) keeps both endpoints until it is done:
        // its receiver echoes the reply; so does a flow whose host holds one of its packets,
        // whose close packets are asked for when that packet enters the NIC. `after_endpoint`
        // frees them then.
        if !sender_waits && !held {
            f.free_endpoints();
        }
    }

    pub(super) fn timer(&mut self, flow: u32, side: Side, generation: u32) {
        let now = self.now;
        let Some(ep) = self.flows[flow as usize].endpoints.as_mut() else {
            return;
        };
        let s = side as usize;
        if ep.generation[s] != generation {
            return; // superseded by an earlier timer
        }
        ep.timer[s] = None;
        let due = match side {
            Side::Sender => ep.sender.poll_timeout(),
            Side::Receiver => receiver_timeout(ep),
        };
        if due.is_some_and(|t| t <= now) {
            match side {
                Side::Sender => {
                    let before = ep.sender.stats().timeouts;
                    ep.sender.handle_timeout(now);
                    if ep.sender.stats().timeouts > before {
                        self.flows[flow as usize].reorder.on_timeout();
                    }
                    let ep = self.flows[flow as usize].endpoints.as_mut().expect("alive");
                    if ep.traced {
                        let cwnd = ep.sender.cwnd_bytes();
                        self.trace.push(trace_row(
                            now,
                            flow,
                            TraceEvent::Timeout,
                            &Packet::default(),
                            cwnd,
                        ));
                    }
                }
                Side::Receiver => {
                    if ep.receiver.poll_timeout().is_some_and(|t| t <= now) {
                        ep.receiver.handle_timeout(now);
                    }
                    let f = &mut self.flows[flow as usize];
                    let ep = f.endpoints.as_mut().expect("alive");
                    if let Some(rs) = ep.reseq.as_mut() {
                        rs.handle_timeout(now);
                        let mut rx = ReceiverInput {
                            stats: &mut f.reorder,
                            dropped: &f.dropped,
                            size: f.spec.size_bytes,
                            now,
                        };
                        rx.release_held(rs, &mut ep.receiver, None);
                    }
                }
            }
        }
        self.after_endpoint(flow, side);
    }

    /// Collects what an endpoint wants after it was handed something: packets to send, events,
    /// and its next timer.
    pub(super) fn after_endpoint(&mut self, flow: u32, side: Side) {
        let now = self.now;
        let spec = &self.flows[flow as usize].spec;
        let host = self.net.hosts[match side {
            Side::Sender => spec.src,
            Side::Receiver => spec.dst,
        } as usize];
        self.send_packets(flow, side, host);
        let blocked = self
            .host_holds
            .as_ref()
            .is_some_and(|h| h.is_blocked(flow, side));
        let held = self.any_side_held(flow);
        let f = &mut self.flows[flow as usize];
        let ep = f.endpoints.as_mut().expect("endpoint alive");
        let mut completed = false;
        let mut terminated = false;
        match side {
            Side::Sender => {
                while let Some(e) = ep.sender.poll_event() {
                    match e {
                        EndpointEvent::SenderDone => ep.sender_done = true,
                        EndpointEvent::Terminated => terminated = true,
                        EndpointEvent::Completed => {}
                    }
                }
            }
            Side::Receiver => {
                while let Some(e) = ep.receiver.poll_event() {
                    match e {
                        EndpointEvent::Completed => completed = true,
                        EndpointEvent::Terminated => terminated = true,
                        EndpointEvent::SenderDone => {}
                    }
                }
                // An aborted flow's count stops at the abort, as if its receiver were gone.
                if f.terminated.is_none() {
                    f.bytes_delivered = ep.receiver.bytes_delivered();
                }
            }
        }
        if completed && f.finish.is_none() && f.terminated.is_none() {
            f.finish = Some(now);
            self.flows_done += 1;
        } else if terminated && f.finish.is_none() && f.terminated.is_none() {
            f.terminated = Some(now);
            self.flows_done += 1;
        }
        // Schedule the endpoint's timer if it is earlier than the pending one. An endpoint
        // its host holds a packet of is asked again when that packet enters the NIC: a timer
        // due now (a paced packet it may not send yet) would only fire and fire until then.
        let s = side as usize;
        let due = match side {
            Side::Sender => ep.sender.poll_timeout(),
            Side::Receiver => receiver_timeout(ep),
        };
        if let Some(t) = due.filter(|&t| !(blocked && t <= now)) {
            let t = t.max(now);
            if ep.timer[s].is_none_or(|pending| t < pending) {
                ep.generation[s] = ep.generation[s].wrapping_add(1);
                ep.timer[s] = Some(t);
                self.events.schedule(
                    t,
                    Event::Timer {
                        flow,
                        side,
                        generation: ep.generation[s],
                    },
                );
            }
        }
        // Free the endpoints once both are finished, or the flow was terminated (and its
        // sender is not still closing); late packets are then absorbed. Not while its host
        // holds a packet of either side: that side has more to send (a FIN, a TERM), and is
        // asked for it when the held packet enters the NIC.
        if ((ep.sender_done && f.finish.is_some())
            || (f.terminated.is_some() && !ep.sender.is_closing()))
            && !held
        {
            f.free_endpoints();
        }
    }

    /// Whether a host holds a packet of either endpoint of `flow` for its NIC.
    pub(super) fn any_side_held(&self, flow: u32) -> bool {
        (self.host_holds.as_ref()).is_some_and(|h| h.any_side_blocked(flow))
    }

    /// Hands an endpoint's packets to its host's NIC one by one, as it emits them. An
    /// endpoint whose packet the host holds (its NIC is full) is asked for no more until that
    /// packet enters the NIC ([`host_nic`]), as TCP Small Queues throttles a Linux socket.
    pub(super) fn send_packets(&mut self, flow: u32, side: Side, host: NodeIdx) {
        let now = self.now;
        loop {
            if (self.host_holds.as_ref()).is_some_and(|h| h.is_blocked(flow, side)) {
                return;
            }
            let f = &mut self.flows[flow as usize];
            let Some(ep) = f.endpoints.as_mut() else {
                return;
            };
            let p = match side {
                Side::Sender => {
                    let Some(p) = ep.sender.poll_transmit(now) else {
                        return;
                    };
                    if p.kind == PacketKind::Data {
                        f.reorder.on_data_sent(&p, &f.dropped);
                    }
                    if ep.traced {
                        let cwnd = ep.sender.cwnd_bytes();
                        self.trace
                            .push(trace_row(now, flow, TraceEvent::Send, &p, cwnd));
                    }
                    p
                }
                Side::Receiver => {
                    let Some(p) = ep.receiver.poll_transmit(now) else {
                        return;
                    };
                    p
                }
            };
            let r = admit(&mut self.pool, &mut self.counters, p);
            self.send_from_host(host, r, side);
        }
    }
}
