//! PDQ endpoints on hand-built packet sequences: handshake and pacing, probing while paused,
//! aging, Early Termination, M-PDQ load shifting, the shared resequencing receiver.

use super::header::{PdqHeader, NO_DEADLINE};
use super::sender::PROBE_SEQ;
use super::*;
use crate::net::packet::{Packet, PacketKind};
use crate::protocols::{refused, EndpointEvent, FlowSetup};
use crate::protocols::{Endpoint, Protocol, ReceiverEndpoint, SenderEndpoint};
use crate::units::Rate;
use serde_json::json;

fn params(protocol: &str, set: impl FnOnce(&mut PdqConfig)) -> PdqParams {
    let mut cfg = PdqConfig::default();
    set(&mut cfg);
    PdqParams::from_config(protocol, &cfg).unwrap()
}

fn flow(size: u64, deadline: Option<Time>) -> FlowSetup {
    FlowSetup {
        deadline,
        ..FlowSetup::for_tests(size)
    }
}

fn sender(p: &PdqParams, f: &FlowSetup) -> PdqSender {
    let mut s = PdqSender::new(p, f, Rate::gbps(10));
    s.start(Time::ZERO);
    s
}

fn drain(s: &mut PdqSender, now: Time) -> Vec<Packet> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

fn hdr(p: &Packet) -> PdqHeader {
    PdqHeader::read(p).expect("PDQ header")
}

/// The answer of a receiver whose path granted `rate_kbps` (or paused it at `pause_by`).
fn answer(
    to: &Packet,
    kind: PacketKind,
    rate_kbps: u32,
    pause_by: u32,
    inter_probe: u16,
) -> Packet {
    let mut a = Packet {
        flow: to.flow,
        src: to.dst,
        dst: to.src,
        kind,
        seq: to.seq,
        ts_echo: to.ts,
        ..Default::default()
    };
    PdqHeader {
        rate_kbps,
        pause_by,
        inter_probe,
        ..hdr(to)
    }
    .write(&mut a);
    a
}

#[test]
fn syn_carries_the_header_and_data_is_paced_at_the_granted_rate() {
    let p = params("pdq", |_| {});
    let mut s = sender(&p, &flow(14_600, None));
    let syn = drain(&mut s, Time::ZERO);
    assert_eq!(syn.len(), 1);
    assert_eq!(syn[0].kind, PacketKind::Syn);
    let h = hdr(&syn[0]);
    // R_H = NIC rate, T_H = 14 600 bytes at 10 Gb/s, no deadline, I_H = ø.
    assert_eq!(
        (h.rate_kbps, h.expected_ns, h.deadline, h.inter_probe),
        (10_000_000, 11_680, NO_DEADLINE, 0)
    );
    let t = Time::from_us(10);
    s.handle_packet(t, &answer(&syn[0], PacketKind::SynAck, 5_000_000, 0, 0));
    let data = drain(&mut s, t);
    assert_eq!(data.len(), 1, "one packet, then pacing");
    assert_eq!(
        (data[0].seq, data[0].payload, data[0].size),
        (0, 1460, 1516)
    );
    assert_eq!(hdr(&data[0]).rtt_ns, 10_000, "RTT from the SYN-ACK");
    // The next packet one packet time at 5 Gb/s later.
    assert_eq!(s.poll_timeout(), Some(t + Rate::gbps(5).tx_time(1516)));
}

#[test]
fn a_paused_flow_probes_every_inter_probe_time_and_restarts_when_accepted() {
    let p = params("pdq", |_| {});
    let mut s = sender(&p, &flow(14_600, None));
    let syn = drain(&mut s, Time::ZERO).remove(0);
    let t = Time::from_us(10);
    // Paused by link 7, told to probe every 3 RTTs (Suppressed Probing).
    s.handle_packet(t, &answer(&syn, PacketKind::SynAck, 0, 7, 300));
    assert!(drain(&mut s, t).is_empty());
    assert_eq!(s.poll_timeout(), Some(Time::from_us(40)));
    s.handle_timeout(Time::from_us(40));
    let probe = drain(&mut s, Time::from_us(40));
    assert_eq!(probe.len(), 1);
    assert_eq!(
        (probe[0].kind, probe[0].seq, probe[0].payload),
        (PacketKind::Data, PROBE_SEQ, 0)
    );
    let h = hdr(&probe[0]);
    assert_eq!(
        (h.pause_by, h.inter_probe),
        (7, 0),
        "P_H = P_S; I_H written as ø"
    );
    // Accepted: data at once.
    s.handle_packet(
        Time::from_us(50),
        &answer(&probe[0], PacketKind::Ack, 10_000_000, 0, 0),
    );
    let data = drain(&mut s, Time::from_us(50));
    assert_eq!((data.len(), data[0].seq), (1, 0));
}

/// RTT_H carries the least RTT of a data packet, not the smoothed RTT: a sample inflated by
/// queueing must not stretch Early Start's look-ahead (or the rate controller's drain time).
#[test]
fn the_header_carries_the_base_rtt_of_data_packets() {
    let p = params("pdq", |_| {});
    let mut s = sender(&p, &flow(14_600, None));
    let syn = drain(&mut s, Time::ZERO).remove(0);
    let t = Time::from_us(10);
    s.handle_packet(t, &answer(&syn, PacketKind::SynAck, 1_000_000, 0, 0));
    let first = drain(&mut s, t).remove(0);
    assert_eq!(
        hdr(&first).rtt_ns,
        10_000,
        "before any data sample: the SYN's RTT"
    );
    // The first data packet comes back after 30 µs (its base RTT), the next one after 230 µs
    // (200 µs of queue on the way).
    let t1 = t + Time::from_us(30);
    s.handle_packet(t1, &answer(&first, PacketKind::Ack, 1_000_000, 0, 0));
    let second = drain(&mut s, t1).remove(0);
    assert_eq!(hdr(&second).rtt_ns, 30_000);
    let t2 = t1 + Time::from_us(230);
    s.handle_packet(t2, &answer(&second, PacketKind::Ack, 1_000_000, 0, 0));
    let third = drain(&mut s, t2).remove(0);
    assert_eq!(hdr(&third).rtt_ns, 30_000, "the queue does not enter RTT_H");
    // The sender's own clocks keep the smoothed RTT (gain 1/8 over 10, 30, 230 and 30 µs:
    // 38.4766 µs, rounded down to 100 ps: 38.4765 µs), so once paused it probes that long after.
    let t3 = t2 + Time::from_us(30);
    s.handle_packet(t3, &answer(&third, PacketKind::Ack, 0, 3, 0));
    assert_eq!(s.poll_timeout(), Some(t3 + Time::from_ps(38_476_500)));
}

/// `pdq_base_rtt = "host"`: a flow whose own data packets met a queue carries the least RTT any
/// flow of its host measured to the same destination; a flow to another destination does not.
/// With `"flow"` each flow keeps its own.
#[test]
fn a_flow_carries_the_least_rtt_its_host_measured_to_the_destination() {
    // `early` measures 30 µs to host 1; `late` starts into a queue and measures 230 µs there.
    let run = |base_rtt: &str| {
        let p = params("pdq", |c| c.pdq_base_rtt = Some(base_rtt.into()));
        let mut early = sender(&p, &flow(14_600, None));
        let t = Time::from_us(10);
        let syn = drain(&mut early, Time::ZERO).remove(0);
        early.handle_packet(t, &answer(&syn, PacketKind::SynAck, 1_000_000, 0, 0));
        let data = drain(&mut early, t).remove(0);
        early.handle_packet(
            t + Time::from_us(30),
            &answer(&data, PacketKind::Ack, 1_000_000, 0, 0),
        );
        let other_dst = FlowSetup {
            dst: 2,
            ..flow(14_600, None)
        };
        [flow(14_600, None), other_dst].map(|f| {
            let mut s = PdqSender::new(&p, &f, Rate::gbps(10));
            let t0 = Time::from_us(100);
            s.start(t0);
            let syn = drain(&mut s, t0).remove(0);
            let t1 = t0 + Time::from_us(200);
            s.handle_packet(t1, &answer(&syn, PacketKind::SynAck, 1_000_000, 0, 0));
            let data = drain(&mut s, t1).remove(0);
            let t2 = t1 + Time::from_us(230);
            s.handle_packet(t2, &answer(&data, PacketKind::Ack, 1_000_000, 0, 0));
            hdr(&drain(&mut s, t2).remove(0)).rtt_ns
        })
    };
    assert_eq!(run("host"), [30_000, 230_000]);
    assert_eq!(run("flow"), [230_000, 230_000]);
}

/// With `pdq_syn_requests_rate = false` no switch looks at the SYN, so the SYN-ACK brings
/// back the sender's own R_H (its NIC rate): that is no grant. The flow starts paused and its
/// first packet is a probe, sent at once.
#[test]
fn a_syn_that_asks_for_no_rate_grants_nothing() {
    let p = params("pdq", |c| c.pdq_syn_requests_rate = Some(false));
    let mut s = sender(&p, &flow(14_600, None));
    let syn = drain(&mut s, Time::ZERO).remove(0);
    let t = Time::from_us(10);
    s.handle_packet(t, &answer(&syn, PacketKind::SynAck, 10_000_000, 0, 0));
    let first = drain(&mut s, t);
    assert_eq!(first.len(), 1);
    assert_eq!((first[0].seq, first[0].payload), (PROBE_SEQ, 0));
    // The probe's ACK carries the path's grant: data follows.
    let t1 = Time::from_us(20);
    s.handle_packet(t1, &answer(&first[0], PacketKind::Ack, 10_000_000, 0, 0));
    let data = drain(&mut s, t1);
    assert_eq!((data.len(), data[0].seq, data[0].payload), (1, 0, 1460));
}

#[test]
fn aging_divides_the_expected_time_by_two_to_the_alpha_t() {
    let p = params("pdq", |c| c.pdq_aging_rate = Some(1.0));
    let mut s = sender(&p, &flow(14_600, None));
    let syn = drain(&mut s, Time::ZERO).remove(0);
    s.handle_packet(
        Time::from_us(10),
        &answer(&syn, PacketKind::SynAck, 0, 7, 0),
    );
    // Paused since the start: 200 ms of waiting is t = 2, so T_H = 11 680 ns / 4.
    let at = Time::from_ms(200);
    s.handle_timeout(at);
    let probe = drain(&mut s, at).remove(0);
    assert_eq!(hdr(&probe).expected_ns, 2_920);
    // Without aging the probe says the truth.
    let p = params("pdq", |_| {});
    let mut s = sender(&p, &flow(14_600, None));
    let syn = drain(&mut s, Time::ZERO).remove(0);
    s.handle_packet(
        Time::from_us(10),
        &answer(&syn, PacketKind::SynAck, 0, 7, 0),
    );
    s.handle_timeout(at);
    assert_eq!(hdr(&drain(&mut s, at)[0]).expected_ns, 11_680);
}

#[test]
fn early_termination_when_paused_with_less_than_an_rtt_left() {
    let p = params("pdq", |_| {});
    let mut s = sender(&p, &flow(1_460, Some(Time::from_us(100))));
    let syn = drain(&mut s, Time::ZERO).remove(0);
    s.handle_packet(
        Time::from_us(10),
        &answer(&syn, PacketKind::SynAck, 0, 7, 500),
    );
    assert_eq!(s.poll_event(), None);
    // RTT 10 µs: the sender wakes just after 90 µs and gives up.
    let wake = s.poll_timeout().unwrap();
    assert_eq!(
        wake,
        Time::from_us(60),
        "the next probe (5 RTTs) comes first"
    );
    s.handle_timeout(wake);
    let _ = drain(&mut s, wake);
    let wake = s.poll_timeout().unwrap();
    assert_eq!(wake, Time::from_us(90) + Time::from_ps(1));
    s.handle_timeout(wake);
    let out = drain(&mut s, wake);
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0].kind,
        PacketKind::Fin,
        "TERM releases the switches' entries"
    );
    assert_eq!(s.poll_event(), Some(EndpointEvent::Terminated));
    assert_eq!(s.poll_timeout(), None);
    // Switched off: the flow keeps waiting.
    let p = params("pdq", |c| c.pdq_early_termination = Some(false));
    let mut s = sender(&p, &flow(1_460, Some(Time::from_us(100))));
    let syn = drain(&mut s, Time::ZERO).remove(0);
    s.handle_packet(
        Time::from_us(10),
        &answer(&syn, PacketKind::SynAck, 0, 7, 0),
    );
    s.handle_timeout(Time::from_us(95));
    assert_eq!(s.poll_event(), None);
}

#[test]
fn a_deadline_out_of_reach_at_line_rate_terminates_at_once() {
    let p = params("pdq", |_| {});
    // 14 600 bytes need 11.68 µs at 10 Gb/s; the deadline is 5 µs away.
    let mut s = sender(&p, &flow(14_600, Some(Time::from_us(5))));
    assert_eq!(s.poll_event(), Some(EndpointEvent::Terminated));
    // A flow without deadline never terminates early.
    let mut s = sender(&p, &flow(14_600, None));
    s.handle_timeout(Time::from_ms(10));
    assert_eq!(s.poll_event(), None);
}

/// An M-PDQ sender of two subflows whose SYN-ACKs (at 10 µs) pause subflow 1 and grant
/// subflow 0 the line rate, driven until `n` data packets have left: its SYNs, those packets
/// and the time.
fn one_paused_one_sending(s: &mut PdqSender, n: usize) -> (Vec<Packet>, Vec<Packet>, Time) {
    let syns = drain(s, Time::ZERO);
    let t = Time::from_us(10);
    s.handle_packet(t, &answer(&syns[1], PacketKind::SynAck, 0, 9, 0));
    s.handle_packet(t, &answer(&syns[0], PacketKind::SynAck, 10_000_000, 0, 0));
    let mut now = t;
    let mut sent = Vec::new();
    while sent.len() < n {
        sent.extend(drain(s, now).into_iter().filter(|p| p.payload > 0));
        now = s.poll_timeout().unwrap().max(now);
    }
    (syns, sent, now)
}

#[test]
fn mpdq_moves_load_from_a_paused_subflow_to_the_sending_one() {
    let p = params("mpdq", |c| c.subflows = Some(2));
    let mut s = sender(&p, &flow(20 * 1460, None));
    // Subflow 0 sends its 10 segments (0..10) back to back and they are acknowledged.
    let (syns, sent, mut now) = one_paused_one_sending(&mut s, 10);
    assert_eq!(syns.len(), 2);
    assert_ne!(
        syns[0].path_key, syns[1].path_key,
        "each subflow hashes on its own"
    );
    assert_eq!(hdr(&syns[1]).subflow, 1);
    // Each subflow's T_H is its own share: 10 segments.
    assert_eq!(hdr(&syns[1]).expected_ns, 11_680);
    assert!(sent
        .iter()
        .all(|p| hdr(p).subflow == 0 && p.seq < 10 * 1460));
    now += Time::from_us(10);
    for pkt in &sent {
        s.handle_packet(now, &answer(pkt, PacketKind::Ack, 10_000_000, 0, 0));
    }
    // At the first ACK subflow 1 (paused, 10 left) hands half the difference to subflow 0
    // (9 left): one segment, its last.
    let data = |s: &mut PdqSender, now| -> Vec<(u8, u64)> {
        drain(s, now)
            .into_iter()
            .filter(|p| p.payload > 0)
            .map(|p| (hdr(&p).subflow, p.seq / 1460))
            .collect()
    };
    assert_eq!(data(&mut s, now), vec![(0, 19)]);
    // One RTT later (10 µs) the difference is 9 − 1: four more move, 15 to 18, in order.
    now += Time::from_us(10);
    s.handle_timeout(now);
    assert_eq!(data(&mut s, now), vec![(0, 15)]);
    now += Rate::gbps(10).tx_time(1516);
    assert_eq!(data(&mut s, now), vec![(0, 16)]);
}

#[test]
fn receiver_echoes_the_header_and_resequences_across_subflows() {
    let p = params("mpdq", |c| c.subflows = Some(2));
    let f = flow(2 * 1460, None);
    let mut r = PdqReceiver::new(&p, &f);
    let data = |seq: u64, subflow: u8| {
        let mut d = Packet {
            flow: 7,
            src: 0,
            dst: 1,
            kind: PacketKind::Data,
            seq,
            payload: 1460,
            ts: Time::from_us(3),
            ..Default::default()
        };
        PdqHeader {
            rate_kbps: 4_000_000,
            pause_by: 0,
            deadline: NO_DEADLINE,
            expected_ns: 99,
            rtt_ns: 1,
            inter_probe: 40,
            subflow,
            pauser_crossed: false,
        }
        .write(&mut d);
        d
    };
    r.handle_packet(Time::from_us(5), &data(1460, 1));
    let ack = r.poll_transmit(Time::from_us(5)).unwrap();
    assert_eq!(
        (ack.kind, ack.seq, ack.ack, ack.ts_echo),
        (PacketKind::Ack, 1460, 0, Time::from_us(3))
    );
    assert_eq!(
        hdr(&ack),
        hdr(&data(1460, 1)),
        "the header comes back as it arrived"
    );
    assert_eq!((r.bytes_delivered(), r.poll_event()), (0, None));
    r.handle_packet(Time::from_us(6), &data(0, 0));
    assert_eq!(r.poll_transmit(Time::from_us(6)).unwrap().ack, 2920);
    assert_eq!(r.poll_event(), Some(EndpointEvent::Completed));
    // A probe is answered as a probe.
    let mut probe = data(PROBE_SEQ, 0);
    probe.payload = 0;
    r.handle_packet(Time::from_us(7), &probe);
    assert_eq!(r.poll_transmit(Time::from_us(7)).unwrap().seq, PROBE_SEQ);
    assert_eq!(r.poll_event(), None, "completed once");
}

#[test]
fn keys_are_checked_and_named() {
    let bad = |protocol: &str, key: &str, value| refused(protocol, key, value).path;
    assert_eq!(bad("pdq", "subflows", json!(2)), "transport.subflows");
    assert_eq!(bad("mpdq", "subflows", json!(0)), "transport.subflows");
    assert_eq!(
        bad("pdq", "pdq_probing_x", json!(-1.0)),
        "transport.pdq_probing_x"
    );
    assert_eq!(bad("pdq", "dctcp_g", json!(0.1)), "transport.dctcp_g");
    let e = refused("pdq", "pdq_base_rtt", json!("path"));
    assert_eq!(e.path, "transport.pdq_base_rtt");
    assert_eq!(e.message, "unknown base RTT 'path'; valid: host, flow");
    assert!(params("pdq", |_| {}).host_rtts.is_some());
    assert!(params("pdq", |c| c.pdq_base_rtt = Some("flow".into()))
        .host_rtts
        .is_none());
    assert_eq!(
        bad("mpdq", "pdq_entry_timeout_us", json!(0.0)),
        "transport.pdq_entry_timeout_us"
    );
    assert_eq!(
        params("pdq", |c| c.pdq_entry_timeout_us = Some(2500.0))
            .switch
            .entry_timeout,
        Time::from_us(2500)
    );
    let p = params("pdq", |c| {
        c.pdq_early_start = Some(false);
        c.pdq_dampening = Some(false);
    });
    assert_eq!((p.switch.early_start_k, p.switch.dampening), (None, None));
    assert_eq!(params("mpdq", |_| {}).subflows, DEFAULT_SUBFLOWS);
}

#[test]
fn the_unsent_bytes_are_kept_through_sends_shifts_and_go_back() {
    // 20 full segments and a 100-byte last one, over two subflows: the short segment sits at
    // the tail of subflow 1's share, which load shifting hands to subflow 0.
    let p = params("mpdq", |c| c.subflows = Some(2));
    let mut s = sender(&p, &flow(20 * 1460 + 100, None));
    let check = |s: &PdqSender, when: &str| {
        for (k, (kept, walked)) in s.pending_bytes_kept_and_walked().into_iter().enumerate() {
            assert_eq!(kept, walked, "subflow {k}, {when}");
        }
    };
    check(&s, "at the start");
    let (_, sent, mut now) = one_paused_one_sending(&mut s, 4);
    check(&s, "after four sends");
    // The first ACK shifts load from the paused subflow 1 to subflow 0.
    now += Time::from_us(10);
    s.handle_packet(now, &answer(&sent[0], PacketKind::Ack, 10_000_000, 0, 0));
    let walked = s.pending_bytes_kept_and_walked();
    check(&s, "after a shift");
    assert!(
        walked[1].1 < 10 * 1460 + 100,
        "the shift moved nothing: {walked:?}"
    );
    // A retransmission timeout puts the three unacknowledged segments back.
    let before = walked[0].1;
    s.handle_timeout(now + Time::from_ms(5));
    check(&s, "after go-back");
    assert_eq!(
        s.pending_bytes_kept_and_walked()[0].1,
        before + 3 * 1460,
        "go-back returned the three unacknowledged segments"
    );
}

#[test]
fn a_pause_by_a_link_the_packet_did_not_cross_is_answered_as_no_grant() {
    let p = params("pdq", |_| {});
    let f = flow(10 * 1460, None);
    let mut r = PdqReceiver::new(&p, &f);
    let probe = |crossed: bool| {
        let mut d = Packet {
            flow: 0,
            src: 0,
            dst: 1,
            kind: PacketKind::Data,
            seq: PROBE_SEQ,
            ..Default::default()
        };
        PdqHeader {
            rate_kbps: 0,
            pause_by: 7,
            pauser_crossed: crossed,
            ..Default::default()
        }
        .write(&mut d);
        d
    };
    r.handle_packet(Time::ZERO, &probe(true));
    let ack = hdr(&r.poll_transmit(Time::ZERO).unwrap());
    assert_eq!(
        (ack.pause_by, ack.rate_kbps),
        (7, 0),
        "its pauser is on the path"
    );
    r.handle_packet(Time::ZERO, &probe(false));
    let ack = hdr(&r.poll_transmit(Time::ZERO).unwrap());
    assert_eq!(
        (ack.pause_by, ack.rate_kbps),
        (0, 0),
        "its pauser is off the path"
    );
}
