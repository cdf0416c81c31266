//! Behavioural tests on a two-endpoint harness ([`Pair`], after quinn-proto's): sender and
//! receiver joined by a wire with a fixed one-way delay and no serialisation time, so every
//! packet of a flight arrives at the same instant and rounds are exact multiples of the RTT.
//! A script per direction may drop a packet or mark it CE (only if it is ECT, as a switch).

use super::*;
use crate::net::packet::{Ecn, Packet, PacketKind};
use crate::protocols::{EndpointEvent, FlowSetup};
use std::collections::{HashMap, VecDeque};

const MSS: u64 = 1460;
const DELAY: Time = Time::from_us(10);
const RTT: Time = Time::from_us(20);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Pass,
    Drop,
    Mark,
}

type Script = Box<dyn FnMut(&Packet) -> Fate>;

/// The sender's state around one ACK it handled.
#[derive(Clone, Copy, Debug)]
struct Snap {
    t: Time,
    ack: u64,
    una_before: u64,
    flight_before: u64,
    cwnd_before: u64,
    cwnd: u64,
    ssthresh_before: u64,
    ssthresh: u64,
    rec_before: bool,
    rec: bool,
    deadline: Option<Time>,
    alpha: f64,
    windows: u64,
    cuts: u64,
}

struct Pair {
    now: Time,
    s: TcpSender,
    r: TcpReceiver,
    /// In flight: (arrival, towards the receiver, packet). FIFO because the delay is fixed.
    wire: VecDeque<(Time, bool, Packet)>,
    fwd: Script,
    rev: Script,
    sent: Vec<(Time, Packet)>,
    replies: Vec<(Time, Packet)>,
    s_events: Vec<(Time, EndpointEvent)>,
    r_events: Vec<(Time, EndpointEvent)>,
    acks: Vec<Snap>,
    /// (time, cwnd, ssthresh) right after each sender timeout.
    timeouts: Vec<(Time, u64, u64)>,
}

fn params(proto: &str, f: impl FnOnce(&mut TransportConfig)) -> TcpParams {
    let mut c = TransportConfig {
        protocol: proto.into(),
        ..Default::default()
    };
    f(&mut c);
    TcpParams::from_config(&c).unwrap()
}

fn flow(size: u64) -> FlowSetup {
    FlowSetup {
        flow: 3,
        src: 0,
        dst: 1,
        size,
        start: Time::ZERO,
        deadline: None,
        weight: 1.0,
        path_key: 42,
    }
}

/// Drops the first `n` transmissions of each listed data segment (by segment index).
fn drop_segments(segs: &[(u64, u32)]) -> Script {
    let mut left: HashMap<u64, u32> = segs.iter().map(|&(s, n)| (s * MSS, n)).collect();
    Box::new(move |p| match left.get_mut(&p.seq) {
        Some(n) if p.kind == PacketKind::Data && *n > 0 => {
            *n -= 1;
            Fate::Drop
        }
        _ => Fate::Pass,
    })
}

impl Pair {
    fn new(p: &TcpParams, size: u64) -> Pair {
        let f = flow(size);
        Pair {
            now: Time::ZERO,
            s: TcpSender::new(p, &f),
            r: TcpReceiver::new(p, &f),
            wire: VecDeque::new(),
            fwd: Box::new(|_| Fate::Pass),
            rev: Box::new(|_| Fate::Pass),
            sent: Vec::new(),
            replies: Vec::new(),
            s_events: Vec::new(),
            r_events: Vec::new(),
            acks: Vec::new(),
            timeouts: Vec::new(),
        }
    }

    fn start(&mut self) {
        self.s.start(self.now);
        self.drain();
    }

    fn put(&mut self, to_rx: bool, mut p: Packet) {
        let fate = if to_rx { (self.fwd)(&p) } else { (self.rev)(&p) };
        match fate {
            Fate::Drop => return,
            Fate::Mark if p.ecn == Ecn::Ect => p.ecn = Ecn::Ce,
            _ => {}
        }
        self.wire.push_back((self.now + DELAY, to_rx, p));
    }

    /// What the engine does after every handle call: drain transmits and events.
    fn drain(&mut self) {
        while let Some(p) = self.s.poll_transmit(self.now) {
            self.sent.push((self.now, p.clone()));
            self.put(true, p);
        }
        while let Some(p) = self.r.poll_transmit(self.now) {
            self.replies.push((self.now, p.clone()));
            self.put(false, p);
        }
        while let Some(e) = self.s.poll_event() {
            self.s_events.push((self.now, e));
        }
        while let Some(e) = self.r.poll_event() {
            self.r_events.push((self.now, e));
        }
    }

    fn next_time(&self) -> Option<Time> {
        [
            self.wire.front().map(|w| w.0),
            self.s.poll_timeout(),
            self.r.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn step(&mut self) -> bool {
        let Some(t) = self.next_time() else {
            return false;
        };
        assert!(t >= self.now, "time went back");
        self.now = t;
        if self.wire.front().is_some_and(|w| w.0 == t) {
            let (_, to_rx, p) = self.wire.pop_front().unwrap();
            if to_rx {
                self.r.handle_packet(t, &p);
            } else {
                self.deliver_to_sender(&p);
            }
        } else if self.s.poll_timeout() == Some(t) {
            self.s.handle_timeout(t);
            self.timeouts.push((t, self.s.cwnd(), self.s.ssthresh()));
        } else {
            self.r.handle_timeout(t);
        }
        self.drain();
        true
    }

    fn deliver_to_sender(&mut self, p: &Packet) {
        let (una, flight, cwnd, ssth, rec) = (
            self.s.snd_una(),
            self.s.bytes_in_flight(),
            self.s.cwnd(),
            self.s.ssthresh(),
            self.s.in_recovery(),
        );
        self.s.handle_packet(self.now, p);
        if p.kind == PacketKind::Ack {
            let (windows, cuts) = self.s.dctcp_counters();
            self.acks.push(Snap {
                t: self.now,
                ack: p.ack,
                una_before: una,
                flight_before: flight,
                cwnd_before: cwnd,
                cwnd: self.s.cwnd(),
                ssthresh_before: ssth,
                ssthresh: self.s.ssthresh(),
                rec_before: rec,
                rec: self.s.in_recovery(),
                deadline: self.s.poll_timeout(),
                alpha: self.s.dctcp_alpha().unwrap_or(f64::NAN),
                windows,
                cuts,
            });
        }
    }

    fn run_until(&mut self, t: Time) {
        while self.next_time().is_some_and(|n| n <= t) {
            self.step();
        }
    }

    fn run(&mut self) {
        for _ in 0..10_000_000 {
            if !self.step() {
                return;
            }
        }
        panic!("the flow never went quiet");
    }

    fn data_sent(&self) -> impl Iterator<Item = &(Time, Packet)> {
        self.sent.iter().filter(|(_, p)| p.kind == PacketKind::Data)
    }

    /// Checks the end state common to every completed run.
    fn assert_completed(&self, size: u64) {
        assert_eq!(self.r.bytes_delivered(), size);
        let r: Vec<_> = self.r_events.iter().map(|e| e.1).collect();
        assert_eq!(r, [EndpointEvent::Completed]);
        let s: Vec<_> = self.s_events.iter().map(|e| e.1).collect();
        assert_eq!(s, [EndpointEvent::SenderDone]);
        assert_eq!(self.s.poll_timeout(), None);
        assert_eq!(self.s.bytes_in_flight(), 0);
    }

    fn ssthresh_changes(&self) -> Vec<Snap> {
        self.acks
            .iter()
            .filter(|s| s.ssthresh != s.ssthresh_before)
            .copied()
            .collect()
    }
}

// --- handshake, slow start, sizes ----------------------------------------------------------

#[test]
fn handshake_then_first_flight_is_exactly_init_cwnd() {
    let mut pair = Pair::new(&params("tcp", |_| {}), 100 * MSS);
    pair.start();
    let (t0, syn) = &pair.sent[0];
    assert_eq!((*t0, syn.kind, syn.size, syn.payload), (Time::ZERO, PacketKind::Syn, 40, 0));
    assert_eq!((syn.src, syn.dst, syn.flow, syn.path_key), (0, 1, 3, 42));
    pair.run_until(RTT);
    assert_eq!(pair.replies[0].1.kind, PacketKind::SynAck);
    let flight: Vec<_> = pair.data_sent().collect();
    assert_eq!(flight.len(), 10);
    for (i, (t, p)) in flight.iter().enumerate() {
        assert_eq!(*t, RTT);
        assert_eq!((p.seq, p.payload, p.size), (i as u64 * MSS, 1460, 1500));
        assert_eq!((p.ecn, p.retransmit), (Ecn::NotEct, false));
    }
    assert_eq!(pair.s.bytes_in_flight(), 10 * MSS);
    assert_eq!(pair.s.srtt(), Some(RTT));
}

#[test]
fn slow_start_doubles_every_rtt() {
    let mut pair = Pair::new(&params("tcp", |_| {}), 2000 * MSS);
    pair.start();
    pair.run();
    pair.assert_completed(2000 * MSS);
    let mut per_round: Vec<usize> = Vec::new();
    for (t, _) in pair.data_sent() {
        let round = (t.ps() / RTT.ps()) as usize;
        if per_round.len() < round {
            per_round.resize(round, 0);
        }
        per_round[round - 1] += 1;
    }
    assert_eq!(&per_round[..6], &[10, 20, 40, 80, 160, 320]);
    assert_eq!(pair.s.stats().retransmits, 0);
}

#[test]
fn one_segment_flow_completes_after_syn_synack_data() {
    let mut pair = Pair::new(&params("tcp", |_| {}), 1000);
    pair.start();
    pair.run();
    let kinds: Vec<_> = pair.sent.iter().map(|(t, p)| (*t, p.kind, p.size)).collect();
    assert_eq!(kinds, [(Time::ZERO, PacketKind::Syn, 40), (RTT, PacketKind::Data, 1040)]);
    assert_eq!(pair.r_events, [(RTT + DELAY, EndpointEvent::Completed)]);
    assert_eq!(pair.s_events, [(RTT * 2, EndpointEvent::SenderDone)]);
    pair.assert_completed(1000);
    // Done means done: stray input wakes nothing.
    let late = Packet { kind: PacketKind::Ack, ack: 1000, ..Default::default() };
    pair.s.handle_packet(Time::from_ms(5), &late);
    pair.s.handle_timeout(Time::from_ms(9));
    assert_eq!(pair.s.poll_timeout(), None);
    assert!(pair.s.poll_transmit(Time::from_ms(9)).is_none());
    assert_eq!(pair.s.poll_event(), None);
}

#[test]
fn bytes_in_flight_and_counters_on_a_short_flow() {
    let mut pair = Pair::new(&params("tcp", |_| {}), 5000);
    pair.start();
    pair.run_until(RTT);
    let sizes: Vec<_> = pair.data_sent().map(|(_, p)| p.size).collect();
    assert_eq!(sizes, [1500, 1500, 1500, 620 + 40]);
    assert_eq!(pair.s.bytes_in_flight(), 5000);
    // Two ACKs back: 2 segments acknowledged.
    pair.run_until(RTT + RTT);
    pair.run();
    pair.assert_completed(5000);
    let st = pair.s.stats();
    assert_eq!(
        (st.data_packets_sent, st.retransmits, st.fast_retransmits, st.timeouts),
        (4, 0, 0, 0)
    );
}

#[test]
fn flight_never_exceeds_rwnd() {
    let mut pair = Pair::new(&params("tcp", |c| c.rwnd_pkts = Some(4)), 100 * MSS);
    pair.start();
    let mut max_flight = 0;
    while pair.step() {
        max_flight = max_flight.max(pair.s.bytes_in_flight());
    }
    pair.assert_completed(100 * MSS);
    assert_eq!(max_flight, 4 * MSS);
}

#[test]
fn lost_syn_and_lost_synack_are_recovered_by_the_timer() {
    for drop_synack in [false, true] {
        let mut pair = Pair::new(&params("tcp", |_| {}), 3 * MSS);
        let mut first = true;
        let script: Script = Box::new(move |p: &Packet| {
            if first && matches!(p.kind, PacketKind::Syn | PacketKind::SynAck) {
                first = false;
                Fate::Drop
            } else {
                Fate::Pass
            }
        });
        if drop_synack {
            pair.rev = script;
        } else {
            pair.fwd = script;
        }
        pair.start();
        pair.run();
        pair.assert_completed(3 * MSS);
        let syns: Vec<_> = pair.sent.iter().filter(|p| p.1.kind == PacketKind::Syn).collect();
        assert_eq!(syns.len(), 2);
        assert_eq!(syns[1].0, Time::from_us(1000), "resent after the 1 ms initial RTO");
        let synacks = pair.replies.iter().filter(|p| p.1.kind == PacketKind::SynAck).count();
        assert_eq!(synacks, if drop_synack { 2 } else { 1 });
        assert_eq!(pair.s.stats().timeouts, 1);
        assert_eq!(pair.s.stats().retransmits, 0, "SYNs are not data retransmissions");
        // The RTT sample comes from the echo of the SYN that was answered last, never from
        // the first SYN's send time; with no queueing every later sample is RTT too.
        assert_eq!(pair.s.srtt(), Some(RTT));
    }
}

#[test]
fn zero_size_flow_does_not_panic() {
    let mut pair = Pair::new(&params("dctcp", |_| {}), 0);
    pair.start();
    pair.run();
    pair.assert_completed(0);
    assert_eq!(pair.data_sent().count(), 0);
}

// --- NewReno loss recovery -----------------------------------------------------------------

#[test]
fn one_drop_one_fast_retransmit_one_halving_no_timeout() {
    let size = 400 * MSS;
    let mut pair = Pair::new(&params("tcp", |_| {}), size);
    pair.fwd = drop_segments(&[(50, 1)]);
    pair.start();
    pair.run();
    pair.assert_completed(size);
    let st = pair.s.stats();
    assert_eq!((st.fast_retransmits, st.retransmits, st.timeouts), (1, 1, 0));
    let cuts = pair.ssthresh_changes();
    assert_eq!(cuts.len(), 1, "one reduction only");
    let c = cuts[0];
    assert_eq!(c.ssthresh, (c.flight_before / 2).max(2 * MSS));
    assert_eq!(c.cwnd, c.ssthresh + 3 * MSS, "window inflated by the three dupACKs");
    assert!(!c.rec_before && c.rec);
    // The retransmission is segment 50, flagged, and goes out on the third dupACK.
    let retx: Vec<_> = pair.data_sent().filter(|p| p.1.retransmit).collect();
    assert_eq!(retx.len(), 1);
    assert_eq!((retx[0].0, retx[0].1.seq), (c.t, 50 * MSS));
    // Recovery ends once, with cwnd ≤ ssthresh, and ends by a full ACK.
    let exits: Vec<_> = pair.acks.iter().filter(|s| s.rec_before && !s.rec).collect();
    assert_eq!(exits.len(), 1);
    assert!(exits[0].cwnd <= exits[0].ssthresh);
    // No congestion-avoidance growth while the window is inflated: only +1 SMSS per dupACK.
    for s in pair.acks.iter().filter(|s| s.rec_before && s.rec && s.ack == s.una_before) {
        assert_eq!(s.cwnd, s.cwnd_before + MSS);
    }
}

#[test]
fn two_drops_in_one_window_recovered_by_partial_ack_with_one_reduction() {
    let size = 400 * MSS;
    let mut pair = Pair::new(&params("tcp", |_| {}), size);
    pair.fwd = drop_segments(&[(50, 1), (53, 1)]);
    pair.start();
    pair.run();
    pair.assert_completed(size);
    let st = pair.s.stats();
    assert_eq!((st.fast_retransmits, st.retransmits, st.timeouts), (1, 2, 0));
    assert_eq!(pair.ssthresh_changes().len(), 1, "not two halvings");
    let partial: Vec<_> = pair
        .acks
        .iter()
        .filter(|s| s.rec_before && s.rec && s.ack > s.una_before)
        .collect();
    assert_eq!(partial.len(), 1);
    assert_eq!(partial[0].ack, 53 * MSS);
    // Deflated by the newly acked bytes, plus one SMSS back.
    let newly = partial[0].ack - partial[0].una_before;
    assert_eq!(partial[0].cwnd, partial[0].cwnd_before - newly + MSS);
    let retx: Vec<_> = pair.data_sent().filter(|p| p.1.retransmit).map(|p| p.1.seq).collect();
    assert_eq!(retx, [50 * MSS, 53 * MSS]);
}

#[test]
fn timer_restarts_only_on_the_first_partial_ack() {
    let size = 400 * MSS;
    let mut pair = Pair::new(&params("tcp", |_| {}), size);
    pair.fwd = drop_segments(&[(50, 1), (53, 1), (56, 1)]);
    pair.start();
    pair.run();
    pair.assert_completed(size);
    assert_eq!(pair.s.stats().timeouts, 0);
    assert_eq!(pair.ssthresh_changes().len(), 1);
    let partial: Vec<_> = pair
        .acks
        .iter()
        .filter(|s| s.rec_before && s.rec && s.ack > s.una_before)
        .collect();
    assert_eq!(partial.len(), 2);
    assert!(partial[1].t > partial[0].t);
    let first = partial[0].deadline.unwrap();
    assert!(first > partial[0].t, "restarted at the first partial ACK");
    assert_eq!(partial[1].deadline, Some(first), "left alone at the second");
}

#[test]
fn dropping_the_retransmission_too_leads_to_a_timeout() {
    let size = 400 * MSS;
    let mut pair = Pair::new(&params("tcp", |_| {}), size);
    pair.fwd = drop_segments(&[(50, 2)]);
    pair.start();
    pair.run();
    pair.assert_completed(size);
    let st = pair.s.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 1));
    assert_eq!(pair.timeouts.len(), 1);
    let (t, cwnd, ssthresh) = pair.timeouts[0];
    assert_eq!(cwnd, MSS, "loss window after the timeout");
    assert!(ssthresh >= 2 * MSS);
    // The timeout resends segment 50 at once (go-back-N from snd_una).
    let after: Vec<_> = pair.data_sent().filter(|p| p.0 == t).collect();
    assert_eq!(after.len(), 1);
    assert_eq!((after[0].1.seq, after[0].1.retransmit), (50 * MSS, true));
    // No fast retransmit triggered by dupACKs after the timeout.
    assert_eq!(pair.ssthresh_changes().len(), 1);
}

/// Opens a connection by hand and sends the initial flight; returns the sender.
fn established_sender(p: &TcpParams, size: u64) -> TcpSender {
    let mut s = TcpSender::new(p, &flow(size));
    s.start(Time::ZERO);
    assert_eq!(s.poll_transmit(Time::ZERO).unwrap().kind, PacketKind::Syn);
    let synack = Packet { kind: PacketKind::SynAck, ..Default::default() };
    s.handle_packet(RTT, &synack);
    let n = std::iter::from_fn(|| s.poll_transmit(RTT)).count();
    assert_eq!(n, 10);
    s
}

fn ack(n: u64, ece: bool, ts: Time) -> Packet {
    Packet { kind: PacketKind::Ack, ack: n, ece, ts_echo: ts, ..Default::default() }
}

#[test]
fn dupacks_after_a_timeout_do_not_cause_a_second_reduction() {
    let p = params("tcp", |_| {});
    // Control: without a timeout, three dupACKs do start fast retransmit.
    let mut s = established_sender(&p, 100 * MSS);
    for _ in 0..3 {
        s.handle_packet(RTT * 2, &ack(0, false, RTT));
    }
    assert_eq!(s.stats().fast_retransmits, 1);

    let mut s = established_sender(&p, 100 * MSS);
    let d = s.poll_timeout().unwrap();
    s.handle_timeout(d);
    assert_eq!((s.cwnd(), s.ssthresh(), s.stats().timeouts), (MSS, 5 * MSS, 1));
    let r = s.poll_transmit(d).unwrap();
    assert_eq!((r.seq, r.retransmit), (0, true));
    assert!(s.poll_transmit(d).is_none());
    // DupACKs from the old flight arrive after the timeout: recover guard, no reaction.
    for _ in 0..6 {
        s.handle_packet(d, &ack(0, false, RTT));
        assert!(s.poll_transmit(d).is_none());
    }
    assert_eq!(s.stats().fast_retransmits, 0);
    assert_eq!((s.cwnd(), s.ssthresh(), s.in_recovery()), (MSS, 5 * MSS, false));
    // The receiver held segments 1..9: the resent segment 0 brings the ACK to 10·MSS, equal
    // to recover; dupACKs for go-back-N duplicates at that point are still ignored.
    s.handle_packet(d + RTT, &ack(10 * MSS, false, d));
    for _ in 0..3 {
        s.handle_packet(d + RTT, &ack(10 * MSS, false, d));
    }
    assert_eq!(s.stats().fast_retransmits, 0);
    assert_eq!(s.ssthresh(), 5 * MSS);
}

// --- DCTCP ---------------------------------------------------------------------------------

/// Snaps at which an α update happened (the ACK that closed a window).
fn window_closes(pair: &Pair) -> Vec<Snap> {
    let mut prev = 0;
    let mut out = Vec::new();
    for s in &pair.acks {
        if s.windows > prev {
            assert_eq!(s.windows, prev + 1, "one α update per ACK at most");
            out.push(*s);
            prev = s.windows;
        }
    }
    out
}

#[test]
fn dctcp_data_is_ect_and_tcp_data_is_not() {
    for (proto, ecn) in [("dctcp", Ecn::Ect), ("tcp", Ecn::NotEct)] {
        let mut pair = Pair::new(&params(proto, |_| {}), 20 * MSS);
        pair.fwd = drop_segments(&[(12, 1)]);
        pair.start();
        pair.run();
        assert!(pair.data_sent().all(|p| p.1.ecn == ecn), "{proto}");
        assert!(pair.sent.iter().filter(|p| p.1.kind == PacketKind::Syn).all(|p| p.1.ecn == Ecn::NotEct));
        assert_eq!(pair.s.stats().retransmits, 1);
    }
}

#[test]
fn dctcp_alpha_decays_by_one_minus_g_per_window_without_marks() {
    let mut pair = Pair::new(&params("dctcp", |_| {}), 3000 * MSS);
    pair.start();
    pair.run();
    pair.assert_completed(3000 * MSS);
    let closes = window_closes(&pair);
    assert!(closes.len() >= 6, "{} windows", closes.len());
    for c in &closes {
        let expect = (15.0f64 / 16.0).powi(c.windows as i32);
        assert!((c.alpha - expect).abs() < 1e-12, "window {}: {}", c.windows, c.alpha);
    }
    // The first window is the initial flight of 10 segments.
    assert_eq!(closes[0].ack, 10 * MSS);
    assert_eq!(pair.s.dctcp_counters().1, 0, "no ECE, no cut");
    assert_eq!(pair.ssthresh_changes().len(), 0);
}

#[test]
fn dctcp_every_packet_marked_alpha_to_one_and_one_cut_per_window() {
    let mut pair = Pair::new(&params("dctcp", |c| c.dctcp_init_alpha = Some(0.0)), 2000 * MSS);
    pair.fwd = Box::new(|_| Fate::Mark);
    pair.start();
    pair.run();
    pair.assert_completed(2000 * MSS);
    assert!(pair.replies.iter().filter(|p| p.1.kind == PacketKind::Ack).all(|p| p.1.ece));
    let closes = window_closes(&pair);
    assert!(closes.len() >= 50, "{} windows", closes.len());
    for c in &closes {
        let expect = 1.0 - (15.0f64 / 16.0).powi(c.windows as i32);
        assert!((c.alpha - expect).abs() < 1e-12, "window {}: {}", c.windows, c.alpha);
    }
    assert!(closes.last().unwrap().alpha > 0.95);
    // Cuts per window: exactly one (the window's first ECE), never more.
    let mut per_window: HashMap<u64, u64> = HashMap::new();
    let mut prev_cuts = 0;
    for s in &pair.acks {
        *per_window.entry(s.windows).or_default() += s.cuts - prev_cuts;
        prev_cuts = s.cuts;
    }
    assert!(per_window.values().all(|&n| n <= 1), "{per_window:?}");
    assert_eq!(per_window.values().filter(|&&n| n == 1).count() as u64, prev_cuts);
    assert!(prev_cuts as usize >= closes.len());
    // Each cut is cwnd·(1 − α/2), not below 2 SMSS; ECE never triggers a retransmission.
    for s in pair.acks.iter().filter(|s| s.ssthresh != s.ssthresh_before) {
        let target = (s.cwnd_before as f64 * (1.0 - s.alpha / 2.0)) as u64;
        assert_eq!(s.ssthresh, target.max(2 * MSS));
        assert_eq!(s.cwnd, s.cwnd_before.min(s.ssthresh));
    }
    assert_eq!(pair.s.stats().retransmits, 0);
    assert_eq!(pair.s.cwnd(), 2 * MSS, "held at the 2-SMSS floor");
}

#[test]
fn dctcp_alpha_tracks_the_marked_fraction() {
    // Every fourth segment (by sequence number) is marked: F = 1/4.
    let mut pair = Pair::new(&params("dctcp", |_| {}), 6000 * MSS);
    pair.fwd = Box::new(|p| if (p.seq / MSS) % 4 == 0 { Fate::Mark } else { Fate::Pass });
    pair.start();
    pair.run();
    pair.assert_completed(6000 * MSS);
    let closes = window_closes(&pair);
    assert!(closes.len() > 200, "{} windows", closes.len());
    let tail = &closes[100..];
    let mean = tail.iter().map(|c| c.alpha).sum::<f64>() / tail.len() as f64;
    assert!((mean - 0.25).abs() < 0.03, "mean α {mean}");
    assert!(tail.iter().all(|c| (c.alpha - 0.25).abs() < 0.1));
}
