//! What the simulation hands back: time-series samples during the run, and the flow records,
//! counters and port table at its end.

use super::{Event, Simulation};
use crate::metrics::series::SeriesKind;
use crate::metrics::{FlowRecord, PathHop, PortInfo, RunCost, RunOutput};
use crate::net::ideal;
use crate::topo::NodeKind;

impl Simulation {
    // ---------------------------------------------------------------- series

    pub(super) fn sample(&mut self) {
        let iv = self.series_interval.expect("sampling is on");
        self.next_sample = None;
        let t = self.now.as_secs_f64();
        // The rows this sample adds: every port's, and a flow's for every flow with endpoints
        // or with bytes not yet sampled (those that ended since the previous sample).
        let flow_rows = self
            .flows
            .iter()
            .filter(|f| f.endpoints.is_some() || f.arrived_bytes > f.sampled_bytes)
            .count();
        let rows = self.series_port_rows as usize + flow_rows;
        let bytes = self.series.bytes_to_grow(rows);
        if bytes as u64 > self.series_room {
            let e = self.memory.series_error(self.series.len(), bytes, self.now);
            self.over_budget = Some(e);
            return;
        }
        for (i, f) in self.flows.iter_mut().enumerate() {
            if f.endpoints.is_some() || f.arrived_bytes > f.sampled_bytes {
                let bits = (f.arrived_bytes - f.sampled_bytes) as f64 * 8.0;
                self.series.push(
                    t,
                    SeriesKind::FlowGoodputBps,
                    i as u32,
                    bits / iv.as_secs_f64(),
                );
                f.sampled_bytes = f.arrived_bytes;
            }
        }
        for (i, p) in self.net.ports.iter_mut().enumerate() {
            let is_switch = self.net.nodes[p.node as usize].kind == NodeKind::Switch;
            if is_switch {
                let queued = p.queued_bytes(self.now);
                self.series
                    .push(t, SeriesKind::QueueBytes, i as u32, queued as f64);
            }
            let capacity = p.rate.bytes_in(iv).max(1) as f64;
            let sent = p.counters.tx_bytes - p.sampled_tx_bytes;
            p.sampled_tx_bytes = p.counters.tx_bytes;
            self.series
                .push(t, SeriesKind::LinkUtil, i as u32, sent as f64 / capacity);
        }
        // Sampling ends when nothing is left to simulate: no flow to start or finish, no
        // packet in the network (the last ones drain after their flows end). Until then it
        // goes on, up to `stop_s` if set.
        let more = self.next_flow < self.flows.len() || !self.all_flows_done();
        let draining = self.pool.live() > 0 && self.stop.is_some_and(|s| self.now + iv <= s);
        if more || draining {
            self.events.schedule(self.now + iv, Event::Sample);
            self.next_sample = Some(self.now + iv);
        }
    }

    // ---------------------------------------------------------------- the end

    /// Queueing delay of packets still waiting when the run stops counts up to the stop, on
    /// both kinds of port: eager ports counted it to the packet's (future) start, queued ports
    /// not at all yet.
    fn settle_queue_waits(&mut self) {
        let now = self.now;
        let mut queued = Vec::new();
        for p in &mut self.net.ports {
            if !p.at_switch {
                continue;
            }
            if p.eager {
                for f in p.pipe.iter().filter(|f| f.start > now) {
                    let pkt = self.pool.get(f.packet);
                    if pkt.payload > 0 {
                        let w = &mut self.queue_wait[pkt.flow as usize];
                        *w = w.saturating_sub(f.start - now);
                    }
                }
            } else {
                queued.clear();
                p.queue.drain_all(&mut queued);
                for &r in &queued {
                    let pkt = self.pool.get(r);
                    if pkt.payload > 0 {
                        self.queue_wait[pkt.flow as usize] += now - self.enqueued_at[r.index()];
                    }
                }
            }
        }
    }

    /// Packets still held in hosts when the run stops count their wait up to the stop.
    fn settle_host_waits(&mut self) {
        let Some(h) = &self.host_holds else {
            return;
        };
        let mut c = self.counters;
        c.host_held_pkts = h.waited_pkts;
        c.host_wait_total = h.wait_total;
        c.host_wait_max = h.wait_max;
        for (r, since) in h.held() {
            let wait = self.now - since;
            c.host_held_pkts += 1;
            c.host_wait_total += wait;
            c.host_wait_max = c.host_wait_max.max(wait);
            let pkt = self.pool.get(r);
            if pkt.payload > 0 {
                self.host_wait[pkt.flow as usize] += wait;
            }
        }
        self.counters = c;
    }

    /// `paths.csv`'s rows: every flow's crossed ports, each with its hop, the fewest links
    /// from the source host to the port's node over the ports the flow crossed (a breadth-first
    /// walk within those few ports), ordered by hop, then port.
    fn paths(&self) -> Vec<PathHop> {
        let mut rows = Vec::new();
        let mut hops: Vec<u32> = Vec::new();
        for (i, crossed) in self.crossed.iter().enumerate() {
            hops.clear();
            hops.resize(crossed.len(), u32::MAX);
            let src = self.net.hosts[self.flows[i].spec.src as usize];
            let mut level = 0;
            let mut frontier = vec![src];
            while !frontier.is_empty() {
                let mut next = Vec::new();
                for (k, &(port, _)) in crossed.iter().enumerate() {
                    let p = &self.net.ports[port as usize];
                    if hops[k] == u32::MAX && frontier.contains(&p.node) {
                        hops[k] = level;
                        next.push(p.peer);
                    }
                }
                frontier = next;
                level += 1;
            }
            let first = rows.len();
            // A port not reached from the source (cannot happen on a flow's own data path) is
            // kept, last, rather than hidden.
            rows.extend(crossed.iter().zip(&hops).map(|(&(port, n), &hop)| PathHop {
                flow_id: i as u32,
                hop,
                port,
                packets: Some(n as u64),
            }));
            rows[first..].sort_unstable_by_key(|r| (r.hop, r.port));
        }
        rows
    }

    pub(super) fn finish(mut self, wall_s: f64) -> RunOutput {
        let mut in_flight_bytes = 0;
        let mut in_flight_pkts = 0;
        for p in &self.net.ports {
            in_flight_bytes += p.queue.len_bytes();
            in_flight_pkts += p.queue.len_pkts();
            for r in p.pipe.iter().map(|f| f.packet).chain(p.transmitting) {
                in_flight_bytes += self.pool.get(r).size as u64;
                in_flight_pkts += 1;
            }
        }
        self.settle_queue_waits();
        self.settle_host_waits();
        if let Some(h) = &self.host_holds {
            in_flight_bytes += h.held_bytes;
            in_flight_pkts += h.held_pkts;
        }
        for f in &mut self.flows {
            if let Some(ep) = &f.endpoints {
                let stats = ep.sender.stats();
                f.retransmits = stats.retransmits;
                f.timeouts = stats.timeouts;
                f.data_packets = stats.data_packets_sent;
            }
        }
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| FlowRecord {
                flow_id: i as u32,
                src: f.spec.src,
                dst: f.spec.dst,
                size_bytes: f.spec.size_bytes,
                start: f.spec.start,
                started: i < self.next_flow,
                finish: f.finish,
                terminated: f.terminated,
                ideal_fct: if i >= self.next_flow {
                    // Never started (the run stopped first): compute it now for the record.
                    let (mss, header) = self.transport.data_packet_sizes();
                    let path = ideal::best_path(&self.net, f.spec.src, f.spec.dst);
                    ideal::ideal_fct(&self.net, &path, f.spec.size_bytes, mss, header)
                } else {
                    f.ideal_fct
                },
                deadline: f.spec.deadline,
                retransmits: f.retransmits,
                timeouts: f.timeouts,
                bytes_delivered: f.bytes_delivered,
                data_packets: f.data_packets,
                spurious_retransmits: f.reorder.spurious_retransmits,
                ooo_arrivals: f.reorder.ooo_arrivals,
                dupacks_reorder: f.reorder.dupacks_reorder,
                dupacks_loss: f.reorder.dupacks_loss,
                queue_wait: self.queue_wait[i],
                host_wait: self.host_wait[i],
            })
            .collect();
        let ports = (0..self.net.ports.len())
            .map(|i| PortInfo::of(&self.net, i, self.net.ports[i].counters))
            .collect();
        let paths = self.count_paths.then(|| self.paths());
        RunOutput {
            flows,
            counters: self.counters,
            in_flight_bytes,
            in_flight_pkts,
            cost: RunCost {
                wall_s,
                events: self.events.popped(),
                sim_time: self.now,
                peak_packets: self.pool.peak(),
            },
            series: self
                .series_interval
                .map(|_| std::mem::take(&mut self.series)),
            trace: (self.traced.any()).then(|| std::mem::take(&mut self.trace)),
            ports,
            paths,
            load: std::mem::take(&mut self.load),
            protocol: self.transport.name().to_string(),
            lb: self.lb_name.clone(),
            topology: self.topology_name.clone(),
            seed: self.seed,
            name: self.name.clone(),
        }
    }
}
