//! Time series under the fluid model (`output.series_interval_us > 0`): the packet engine's
//! kinds and sampling ([`crate::metrics::series`]), computed from the fluid rates.
//!
//! * Samples at every multiple of the interval, the first one interval after 0, for as long as
//!   flows are present or to come (and not past `stop_s`), as the packet engine schedules
//!   them; once nothing is left to simulate, sampling ends even when `stop_s` is later.
//! * The series never take more memory than the budget leaves them
//!   ([`crate::budget::MemoryPlan::series_room`]): a sample that would pass it stops the run
//!   with [`crate::run::RunError::Memory`].
//! * `flow_goodput_bps`: per flow active at the sample or ended since the previous one, the
//!   wire bits it sent in the interval times its payload share (size over wire bytes: the
//!   fluid spreads headers evenly over its bytes), over the interval; in flow id order.
//! * `link_util`: per port, the bits its flows carried in the interval over its capacity in
//!   the interval: the integral of the port's load, kept exactly as rates change.
//! * `queue_bytes`: 0 for every switch port: the fluid model has no queues.

use super::{FlowSimulation, Status};
use crate::metrics::series::{Series, SeriesKind};
use crate::net::Network;
use crate::topo::NodeKind;
use crate::units::Time;

pub struct Sampler {
    interval: Time,
    /// The next sample; `None` once sampling has ended.
    pub next: Option<Time>,
    pub series: Series,
    /// Per flow: the wire bits it had sent at the previous sample.
    sampled_bits: Vec<f64>,
    /// Flows ended since the previous sample.
    pub ended: Vec<u32>,
    /// Per link: bits carried up to `link_since` (its last load change), and up to the
    /// previous sample.
    link_bits: Vec<f64>,
    link_since: Vec<Time>,
    link_sampled: Vec<f64>,
    rows: Vec<u32>,
    /// Ports at switches: each has a `queue_bytes` row per sample.
    switch_ports: usize,
    /// Bytes the series may take within the memory budget.
    room: u64,
}

impl Sampler {
    pub fn new(interval: Time, flows: usize, net: &Network, room: u64) -> Sampler {
        let links = net.ports.len();
        let switch_ports = net
            .ports
            .iter()
            .filter(|p| net.nodes[p.node as usize].kind == NodeKind::Switch)
            .count();
        Sampler {
            switch_ports,
            room,
            interval,
            next: Some(interval),
            series: Series::default(),
            sampled_bits: vec![0.0; flows],
            ended: Vec::new(),
            link_bits: vec![0.0; links],
            link_since: vec![Time::ZERO; links],
            link_sampled: vec![0.0; links],
            rows: Vec::new(),
        }
    }

    /// Integrates link `l`'s load (bit/s) up to `now`; called before the load changes.
    #[inline]
    pub fn integrate(&mut self, l: usize, load: f64, now: Time) {
        let since = self.link_since[l];
        self.link_bits[l] += load.max(0.0) * (now - since).ps() as f64 * 1e-12;
        self.link_since[l] = now;
    }
}

impl FlowSimulation {
    /// Takes the sample due at `now` and schedules the next one.
    pub(super) fn sample(&mut self) {
        let Some(mut s) = self.sampler.take() else {
            return;
        };
        let now = self.now;
        let t = now.as_secs_f64();
        let iv = s.interval.as_secs_f64();
        // Flows present or ended since the previous sample, in id order.
        self.prune_active();
        s.rows.clear();
        s.rows.extend(
            self.active
                .iter()
                .filter(|&&e| self.first_sub[self.owner[e as usize] as usize] == e)
                .map(|&e| self.owner[e as usize]),
        );
        s.rows.append(&mut s.ended);
        s.rows.sort_unstable();
        s.rows.dedup();
        let bytes = s
            .series
            .bytes_to_grow(s.rows.len() + self.net.ports.len() + s.switch_ports);
        if bytes as u64 > s.room {
            self.over_budget = Some(self.memory.series_error(s.series.len(), bytes, now));
            s.next = None;
            self.sampler = Some(s);
            return;
        }
        for &f in &s.rows {
            let st = &self.flows[f as usize];
            let left = if st.status == Status::Active {
                let ps = (now - st.last).ps() as f64;
                (st.remaining - st.rate.max(0.0) * ps * 1e-12).max(0.0)
            } else {
                st.remaining
            };
            let sent = st.wire as f64 * 8.0 - left;
            let bits = (sent - s.sampled_bits[f as usize]).max(0.0);
            s.sampled_bits[f as usize] = sent;
            let payload = st.spec.size_bytes as f64 / st.wire as f64;
            s.series
                .push(t, SeriesKind::FlowGoodputBps, f, bits * payload / iv);
        }
        for (i, p) in self.net.ports.iter().enumerate() {
            if self.net.nodes[p.node as usize].kind == NodeKind::Switch {
                s.series.push(t, SeriesKind::QueueBytes, i as u32, 0.0);
            }
            s.integrate(i, self.load[i], now);
            let carried = s.link_bits[i] - s.link_sampled[i];
            s.link_sampled[i] = s.link_bits[i];
            let capacity = p.rate.bytes_in(s.interval).max(1) as f64;
            s.series
                .push(t, SeriesKind::LinkUtil, i as u32, carried / 8.0 / capacity);
        }
        // Nothing left to simulate (no flow to come, none present): the series end, even
        // before `stop_s` (the fluid has no packets to drain).
        let more = self.next_arrival < self.flows.len() || !self.active.is_empty();
        s.next = more.then(|| now + s.interval);
        self.sampler = Some(s);
    }
}
