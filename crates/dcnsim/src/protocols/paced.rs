//! The sending core shared by explicit-rate protocols (RCP, D3; PDQ can use it too): a byte
//! stream paced at a rate the network gave, with cumulative ACKs and a simple loss recovery.
//!
//! The protocol on top decides the rate (from its header echoes) and what each packet carries;
//! this core decides *when* the next segment may leave and *which* bytes it holds:
//!
//! * **Pacing.** A segment may leave at `next_send`; each one pushes `next_send` forward by its
//!   wire size at the current rate (`max(now, next_send) + size/rate`), so a paced flow at the
//!   link rate is exactly back to back. Rate 0 means paused: nothing leaves.
//! * **Reliability.** Every data packet is ACKed (the TCP receiver, echoing the header). The
//!   RFC 6298 timer of the TCP sender (`min_rto_us`, `initial_rto_us`, `max_rto_us`, read by
//!   the one rule of [`crate::validate#rto-bounds`]) guards
//!   `snd_una`; on expiry the sender goes back to `snd_una` (go-back-N, at the paced rate).
//!   Three duplicate ACKs resend `snd_una` once per window of data (no window to cut: the rate
//!   is the network's). These protocols rarely lose packets; this is only so that they finish
//!   when they do.
//! * **Selective recovery** ([`PacedCore::with_selective_acks`], MERP). When every ACK names
//!   the segment it answers (its `seq`), the core keeps which segments have arrived, as SACK
//!   does, and resends only the missing ones: on expiry every unreported segment below
//!   `snd_max`, on the third duplicate ACK every unreported one below the highest reported.
//!   New data then goes on from `snd_nxt`. Go-back-N at a network-given rate resends a whole
//!   window that did arrive: two opposite 20 MB MERP flows each resent 9 412 segments.
//! * RTT samples come from timestamp echoes, as in TCP.

use crate::net::packet::{FlowId, HostId, Packet, PacketKind};
use crate::protocols::tcp::RttEstimator;
use crate::protocols::{FlowSetup, SenderStats};
use crate::units::{Rate, Time};

pub struct PacedCore {
    pub flow: FlowId,
    pub src: HostId,
    pub dst: HostId,
    pub path_key: u32,
    pub size: u64,
    pub mss: u64,
    /// Wire bytes added to every packet (network, transport and the protocol's header).
    pub header: u32,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    pub rate: Rate,
    next_send: Time,
    /// When the last segment left and its wire bytes (for [`PacedCore::set_rate`]).
    last_send: Option<(Time, u32)>,
    dupacks: u32,
    /// A duplicate-ACK retransmission was made for data below this byte: no second one until
    /// the cumulative ACK passes it.
    recover: u64,
    retx_pending: Option<u64>,
    /// Selective recovery only: the segments the receiver reported, by index (empty
    /// otherwise), the end of the highest, and the range whose unreported segments are due
    /// again.
    sacked: Vec<bool>,
    sacked_end: u64,
    resend: Option<(u64, u64)>,
    pub rtt: RttEstimator,
    /// Retransmission timer.
    pub rto_at: Option<Time>,
    pub stats: SenderStats,
}

impl PacedCore {
    pub fn new(f: &FlowSetup, mss: u32, header: u32, rtt: RttEstimator) -> PacedCore {
        PacedCore {
            flow: f.flow,
            src: f.src,
            dst: f.dst,
            path_key: f.path_key,
            size: f.size,
            mss: mss as u64,
            header,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            rate: Rate(0),
            next_send: Time::ZERO,
            last_send: None,
            dupacks: 0,
            recover: 0,
            retx_pending: None,
            sacked: Vec::new(),
            sacked_end: 0,
            resend: None,
            rtt,
            rto_at: None,
            stats: SenderStats::default(),
        }
    }

    /// Selective recovery (module doc): every ACK's `seq` names the data segment it answers.
    pub fn with_selective_acks(mut self) -> PacedCore {
        self.sacked = vec![false; self.size.div_ceil(self.mss) as usize];
        self
    }

    fn selective(&self) -> bool {
        !self.sacked.is_empty()
    }

    /// The first segment in the resend range that the receiver has not reported, if any;
    /// the range ends when there is none.
    fn next_hole(&mut self) -> Option<u64> {
        let (from, end) = self.resend?;
        let mut seq = from.max(self.snd_una);
        while seq < end.min(self.size) {
            if !self.sacked[(seq / self.mss) as usize] {
                self.resend = Some((seq + self.mss, end));
                return Some(seq);
            }
            seq += self.mss;
        }
        self.resend = None;
        None
    }

    /// A packet of this flow with the bookkeeping fields filled.
    pub fn packet(&self, now: Time, kind: PacketKind, seq: u64, payload: u32) -> Packet {
        Packet {
            kind,
            seq,
            payload,
            size: payload + self.header,
            ..Packet::of_flow(self.flow, self.src, self.dst, self.path_key, now)
        }
    }

    pub fn all_acked(&self) -> bool {
        self.snd_una >= self.size
    }

    /// Whether a data segment is waiting (regardless of pacing).
    pub fn has_data(&self) -> bool {
        self.retx_pending.is_some() || self.resend.is_some() || self.snd_nxt < self.size
    }

    /// When the next segment may leave, if one is waiting and the rate is not zero.
    pub fn next_send_time(&self) -> Option<Time> {
        (self.has_data() && self.rate.0 > 0).then_some(self.next_send)
    }

    /// The next data segment if pacing allows one at `now`: (seq, payload, retransmission).
    pub fn next_segment(&mut self, now: Time) -> Option<(u64, u32, bool)> {
        if self.rate.0 == 0 || now < self.next_send {
            return None;
        }
        let hole = self.next_hole();
        let (seq, retransmit) = match hole.or_else(|| self.retx_pending.take()) {
            Some(seq) if seq >= self.snd_una && seq < self.snd_max => (seq, true),
            _ if self.snd_nxt < self.size => {
                let seq = self.snd_nxt;
                (seq, seq < self.snd_max)
            }
            _ => return None,
        };
        let payload = self.mss.min(self.size - seq);
        if seq == self.snd_nxt {
            self.snd_nxt += payload;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
        self.stats.data_packets_sent += 1;
        if retransmit {
            self.stats.retransmits += 1;
        }
        self.paced(now, payload as u32 + self.header);
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        Some((seq, payload as u32, retransmit))
    }

    /// Charges `wire_bytes` to the pacing clock (also for header-only packets).
    pub fn paced(&mut self, now: Time, wire_bytes: u32) {
        if self.rate.0 > 0 {
            let start = now.max(self.next_send);
            self.next_send = start + self.rate.tx_time(wire_bytes as u64);
            self.last_send = Some((start, wire_bytes));
        }
    }

    /// A new rate that also re-times the segment waiting for its turn: it leaves the last
    /// segment's wire size at the new rate after that segment, not at the rate that segment
    /// left at (else a flow given a higher rate waits out the gap of a lower one: at 1 Mb/s,
    /// 12 ms per full packet). (D3 sets its rate so; RCP assigns `rate` and keeps the gap.)
    pub fn set_rate(&mut self, rate: Rate) {
        if rate == self.rate {
            return;
        }
        self.rate = rate;
        if let (Some((at, bytes)), true) = (self.last_send, rate.0 > 0) {
            self.next_send = at + rate.tx_time(bytes as u64);
        }
    }

    /// Handles the cumulative ACK number and timestamp echo of a reply; returns the bytes
    /// newly acknowledged. `answers_data` is false for the reply to a header-only packet (a
    /// rate refresh or request): it may advance `snd_una` but is never a duplicate ACK.
    pub fn on_ack(&mut self, now: Time, pkt: &Packet, answers_data: bool) -> u64 {
        if pkt.ack > self.snd_max {
            return 0;
        }
        if answers_data && pkt.seq < self.snd_max {
            if let Some(got) = self.sacked.get_mut((pkt.seq / self.mss) as usize) {
                *got = true;
                self.sacked_end = self.sacked_end.max(pkt.seq + self.mss);
            }
        }
        if pkt.ack > self.snd_una {
            let newly = pkt.ack - self.snd_una;
            self.rtt.on_sample(now.saturating_sub(pkt.ts_echo));
            self.snd_una = pkt.ack;
            self.snd_nxt = self.snd_nxt.max(pkt.ack);
            self.dupacks = 0;
            self.rto_at = (self.snd_max > self.snd_una).then(|| now + self.rtt.rto());
            return newly;
        }
        if answers_data && pkt.ack == self.snd_una && self.snd_max > self.snd_una {
            self.dupacks += 1;
            if self.dupacks == 3 && self.snd_una >= self.recover {
                if self.selective() {
                    self.resend = Some((self.snd_una, self.sacked_end));
                } else {
                    self.retx_pending = Some(self.snd_una);
                }
                self.recover = self.snd_max;
            }
        }
        0
    }

    /// Whether the retransmission timer is due; a wake-up before it is only for pacing, which
    /// `poll_transmit` handles.
    pub fn rto_due(&self, now: Time) -> bool {
        self.rto_at.is_some_and(|t| now >= t)
    }

    /// The SYN went unanswered: count the timeout and back the timer off (the caller resends).
    pub fn on_syn_timeout(&mut self, now: Time) {
        self.stats.timeouts += 1;
        self.rtt.back_off();
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// The retransmission timer expired (the caller checked it is due): go back to `snd_una`,
    /// or, with selective recovery, resend what is missing below `snd_max`.
    pub fn on_rto(&mut self, now: Time) {
        self.stats.timeouts += 1;
        if self.selective() {
            self.resend = Some((self.snd_una, self.snd_max));
        } else {
            self.snd_nxt = self.snd_una;
        }
        self.retx_pending = None;
        self.recover = self.snd_max;
        self.dupacks = 0;
        self.rtt.back_off();
        self.rto_at = Some(now + self.rtt.rto());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten 1 000-byte segments, all sent.
    fn sent_core(selective: bool) -> PacedCore {
        let us = Time::from_us;
        let rtt = RttEstimator::new(us(100), us(100), us(10_000));
        let core = PacedCore::new(&FlowSetup::for_tests(10_000), 1_000, 40, rtt);
        let mut core = if selective {
            core.with_selective_acks()
        } else {
            core
        };
        core.rate = Rate::from_gbps_f64(1.0);
        let mut now = Time::ZERO;
        while core.next_segment(now).is_some() {
            now = core.next_send_time().unwrap_or(now);
        }
        assert_eq!(core.snd_max, 10_000);
        core
    }

    /// The receiver answers `segments`, in order: each ACK names its segment and carries the
    /// cumulative number of what has arrived (`got`).
    fn answer(core: &mut PacedCore, now: Time, segments: &[u64], got: &mut Vec<u64>) {
        for &s in segments {
            got.push(s);
            got.sort();
            let cumulative = (0..).take_while(|k| got.contains(k)).count() as u64 * 1_000;
            let ack = Packet {
                kind: PacketKind::Ack,
                seq: s * 1_000,
                ack: cumulative,
                ..Default::default()
            };
            core.on_ack(now, &ack, true);
        }
    }

    /// The segments that leave from `now` on until none is due, by index.
    fn resent(core: &mut PacedCore, mut now: Time) -> Vec<u64> {
        let mut out = Vec::new();
        while let Some((seq, _, retransmit)) = core.next_segment(now) {
            assert!(retransmit);
            out.push(seq / 1_000);
            now = core.next_send_time().unwrap_or(now);
        }
        out
    }

    /// Segment 2 is lost: three duplicate ACKs (for 3, 4, 5) resend it alone, selective or
    /// not. Then 6, 7 and 9 are lost and 8 arrives: on expiry selective recovery resends 6, 7
    /// and 9; go-back-N resends 6 to 9.
    #[test]
    fn selective_recovery_resends_only_what_is_missing() {
        for selective in [true, false] {
            let mut core = sent_core(selective);
            let mut got = Vec::new();
            let t = Time::from_us(200);
            answer(&mut core, t, &[0, 1, 3, 4, 5], &mut got);
            assert_eq!(resent(&mut core, t), vec![2], "selective: {selective}");
            answer(&mut core, t, &[2, 8], &mut got);
            assert_eq!(core.snd_una, 6_000);
            let expiry = core.rto_at.unwrap();
            core.on_rto(expiry);
            let want = if selective {
                vec![6, 7, 9]
            } else {
                vec![6, 7, 8, 9]
            };
            assert_eq!(resent(&mut core, expiry), want, "selective: {selective}");
        }
    }
}
