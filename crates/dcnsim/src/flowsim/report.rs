//! The run's output in the packet engine's shape: flow records (packet-only fields 0), port
//! counters from the fluid bytes, network counters, the cost of the run.

use super::{FlowSimulation, Status};
use crate::metrics::{FlowRecord, NetCounters, PathHop, PortInfo, RunCost, RunOutput};
use crate::net::network::PortCounters;

impl FlowSimulation {
    /// `paths.csv`'s rows: the links of every flow that started, at their positions along its
    /// path (M-PDQ's subflows each add theirs; a port two share is listed once).
    fn paths(&self) -> Vec<PathHop> {
        let mut rows = Vec::new();
        for (f, flow) in self.flows.iter().enumerate() {
            if matches!(flow.status, Status::Waiting | Status::Unroutable) {
                continue;
            }
            let first = rows.len();
            for e in self.first_sub[f]..self.first_sub[f + 1] {
                for (hop, &port) in self.graph.path(e).iter().enumerate() {
                    rows.push(PathHop {
                        flow_id: f as u32,
                        hop: hop as u32,
                        port,
                        packets: None,
                    });
                }
            }
            rows[first..].sort_unstable_by_key(|r| (r.hop, r.port));
        }
        rows.dedup();
        rows
    }

    pub(super) fn finish(mut self, wall_s: f64) -> RunOutput {
        // Flows still running at the end (a `stop_s`): what they sent so far.
        for f in 0..self.flows.len() as u32 {
            if self.flows[f as usize].status == Status::Active {
                self.settle(f);
                self.account_bytes(f);
            }
        }
        let (mss, header) = self.transport.data_packet_sizes();
        let mut counters = NetCounters::default();
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (finish, terminated) = match f.status {
                    Status::Finished(t) => (Some(t), None),
                    Status::Terminated(t) => (None, Some(t)),
                    _ => (None, None),
                };
                let sent_wire = match f.status {
                    Status::Waiting | Status::Unroutable => 0,
                    _ => (((f.wire as f64 * 8.0 - f.remaining) / 8.0).round() as u64).min(f.wire),
                };
                // Payload delivered: the wire bytes sent less one header per packet begun.
                let bytes_delivered = if finish.is_some() {
                    f.spec.size_bytes
                } else {
                    let pkts = sent_wire.div_ceil((mss + header) as u64);
                    sent_wire
                        .saturating_sub(pkts * header as u64)
                        .min(f.spec.size_bytes)
                };
                let pkts = sent_wire.div_ceil((mss + header) as u64);
                counters.sent_pkts += pkts;
                counters.sent_bytes += sent_wire;
                counters.delivered_pkts += pkts;
                counters.delivered_bytes += sent_wire;
                FlowRecord {
                    started: f.status != Status::Waiting,
                    flow_id: i as u32,
                    src: f.spec.src,
                    dst: f.spec.dst,
                    size_bytes: f.spec.size_bytes,
                    start: f.spec.start,
                    finish,
                    terminated,
                    ideal_fct: f.ideal_fct,
                    deadline: f.spec.deadline,
                    retransmits: 0,
                    timeouts: 0,
                    bytes_delivered,
                    data_packets: pkts,
                    spurious_retransmits: 0,
                    ooo_arrivals: 0,
                    dupacks_reorder: 0,
                    dupacks_loss: 0,
                    queue_wait: crate::units::Time::ZERO,
                    host_wait: crate::units::Time::ZERO,
                }
            })
            .collect();
        counters.link_transmissions = self.port_pkts.iter().sum();
        let ports = (0..self.net.ports.len())
            .map(|i| {
                let carried = PortCounters {
                    tx_packets: self.port_pkts[i],
                    tx_bytes: self.port_bytes[i],
                    ..PortCounters::default()
                };
                PortInfo::of(&self.net, i, carried)
            })
            .collect();
        let paths = self.write_paths.then(|| self.paths());
        RunOutput {
            flows,
            counters,
            in_flight_bytes: 0,
            in_flight_pkts: 0,
            cost: RunCost {
                wall_s,
                events: self.events,
                sim_time: self.now,
                peak_packets: 0,
            },
            series: self.sampler.take().map(|s| s.series),
            trace: None,
            ports,
            paths,
            load: std::mem::take(&mut self.offered),
            protocol: self.transport.name().to_string(),
            lb: self.lb_name.clone(),
            topology: self.topology_name.clone(),
            seed: self.seed,
            name: self.name.clone(),
        }
    }
}
