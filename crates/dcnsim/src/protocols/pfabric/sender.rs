//! The pFabric sender: line-rate start, TCP-like window growth to a cap, fixed RTO with
//! go-back-N, probe mode after repeated timeouts; every packet ranked by remaining bytes.

use super::PfabricParams;
use crate::net::packet::{FlowId, HostId, Packet, PacketKind};
use crate::protocols::{Endpoint, SenderEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup, SenderStats};
use crate::units::Time;

pub struct PfabricSender {
    flow: FlowId,
    src: HostId,
    dst: HostId,
    path_key: u32,
    size: u64,
    header: u32,
    mss: u64,
    max_cwnd: u64,
    rto: Time,
    probe_after: u32,
    started: bool,
    done: bool,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Timeouts since the last ACK that acknowledged new data.
    consecutive_timeouts: u32,
    probing: bool,
    /// A probe is due (probe mode sends one per RTO).
    probe_pending: bool,
    /// The retransmission (or probe) timer.
    deadline: Option<Time>,
    event: Option<EndpointEvent>,
    stats: SenderStats,
}

impl PfabricSender {
    pub fn new(p: &PfabricParams, f: &FlowSetup) -> PfabricSender {
        let mss = p.mss as u64;
        PfabricSender {
            flow: f.flow,
            src: f.src,
            dst: f.dst,
            path_key: f.path_key,
            size: f.size,
            header: p.header,
            mss,
            max_cwnd: p.max_cwnd_pkts as u64 * mss,
            rto: p.rto,
            probe_after: p.probe_after,
            started: false,
            done: false,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: p.init_cwnd_pkts as u64 * mss,
            ssthresh: u64::MAX,
            consecutive_timeouts: 0,
            probing: false,
            probe_pending: false,
            deadline: None,
            event: None,
            stats: SenderStats::default(),
        }
    }

    pub fn is_probing(&self) -> bool {
        self.probing
    }

    fn finish(&mut self) {
        self.done = true;
        self.deadline = None;
        self.event = Some(EndpointEvent::SenderDone);
    }

    fn packet(&self, now: Time, seq: u64, payload: u32, retransmit: bool) -> Packet {
        Packet {
            kind: PacketKind::Data,
            seq,
            payload,
            size: payload + self.header,
            retransmit,
            // §4.1: priority = remaining flow size (here: bytes not yet acknowledged).
            rank: self.size - self.snd_una,
            ..Packet::of_flow(self.flow, self.src, self.dst, self.path_key, now)
        }
    }
}

impl Endpoint for PfabricSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) {
        if self.done || pkt.kind != PacketKind::Ack || pkt.ack > self.snd_max {
            return;
        }
        if self.probing {
            // Any answer means the path is open again: resume sending (cwnd as the timeouts
            // left it, in slow start).
            self.probing = false;
            self.probe_pending = false;
            self.deadline = None;
        }
        if pkt.ack <= self.snd_una {
            return; // duplicate ACK: no fast retransmit in pFabric
        }
        let newly = pkt.ack - self.snd_una;
        self.snd_una = pkt.ack;
        self.snd_nxt = self.snd_nxt.max(pkt.ack);
        self.consecutive_timeouts = 0;
        if self.snd_una >= self.size {
            self.finish();
            return;
        }
        if self.cwnd < self.ssthresh {
            self.cwnd += newly.min(self.mss);
        } else {
            self.cwnd += (self.mss * self.mss / self.cwnd).max(1);
        }
        self.cwnd = self.cwnd.min(self.max_cwnd);
        self.deadline = (self.snd_max > self.snd_una).then(|| now + self.rto);
    }

    fn handle_timeout(&mut self, now: Time) {
        match self.deadline {
            Some(d) if now >= d && !self.done => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        self.consecutive_timeouts += 1;
        self.ssthresh = (self.cwnd / 2).max(2 * self.mss);
        self.cwnd = self.mss;
        self.snd_nxt = self.snd_una;
        if self.consecutive_timeouts >= self.probe_after {
            self.probing = true;
            self.probe_pending = true;
        }
        self.deadline = Some(now + self.rto);
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if !self.started || self.done {
            return None;
        }
        if self.probing {
            if !self.probe_pending {
                return None;
            }
            self.probe_pending = false;
            return Some(self.packet(now, self.snd_una, 0, false));
        }
        if self.snd_nxt >= self.size
            || self.snd_nxt - self.snd_una + self.mss.min(self.size - self.snd_nxt) > self.cwnd
        {
            return None;
        }
        let seq = self.snd_nxt;
        let payload = self.mss.min(self.size - seq);
        let retransmit = seq < self.snd_max;
        if retransmit {
            self.stats.retransmits += 1;
        }
        self.snd_nxt += payload;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        self.stats.data_packets_sent += 1;
        if self.deadline.is_none() {
            self.deadline = Some(now + self.rto);
        }
        Some(self.packet(now, seq, payload as u32, retransmit))
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.deadline
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.event.take()
    }
}

impl SenderEndpoint for PfabricSender {
    /// No handshake: the first window leaves at once.
    fn start(&mut self, _now: Time) {
        self.started = true;
        if self.size == 0 {
            self.finish();
        }
    }

    fn stats(&self) -> SenderStats {
        self.stats
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn bytes_in_flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// The cumulative acknowledgement: every byte below it has been acknowledged.
    fn snd_una(&self) -> u64 {
        self.snd_una
    }
}
