//! Behavioural tests on a two-endpoint harness ([`Pair`], after quinn-proto's): sender and
//! receiver joined by a wire with a fixed one-way delay and no serialisation time, so every
//! packet of a flight arrives at the same instant and rounds are exact multiples of the RTT.
//! A script per direction may drop a packet or mark it CE (only if it is ECT, as a switch).

use super::*;
use crate::net::packet::{Ecn, Packet, PacketKind};
use crate::protocols::{Endpoint, Protocol, ReceiverEndpoint, SenderEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup};
use std::collections::{HashMap, VecDeque};

mod connection;
mod controller;
mod d2tcp;
mod dctcp;
mod mcp;
mod newreno;

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

fn params(proto: &str, f: impl FnOnce(&mut TcpConfig)) -> TcpParams {
    let mut c = TcpConfig::default();
    f(&mut c);
    TcpParams::from_config(proto, &c).unwrap()
}

fn flow(size: u64) -> FlowSetup {
    FlowSetup {
        flow: 3,
        ..FlowSetup::for_tests(size)
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
        let fate = if to_rx {
            (self.fwd)(&p)
        } else {
            (self.rev)(&p)
        };
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

/// Opens a connection by hand and sends the initial flight; returns the sender.
fn established_sender(p: &TcpParams, size: u64) -> TcpSender {
    let mut s = TcpSender::new(p, &flow(size));
    s.start(Time::ZERO);
    assert_eq!(s.poll_transmit(Time::ZERO).unwrap().kind, PacketKind::Syn);
    let synack = Packet {
        kind: PacketKind::SynAck,
        ..Default::default()
    };
    s.handle_packet(RTT, &synack);
    let n = std::iter::from_fn(|| s.poll_transmit(RTT)).count();
    assert_eq!(n, 10);
    s
}

fn ack(n: u64, ece: bool, ts: Time) -> Packet {
    Packet {
        kind: PacketKind::Ack,
        ack: n,
        ece,
        ts_echo: ts,
        ..Default::default()
    }
}
