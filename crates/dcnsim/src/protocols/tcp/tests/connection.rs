//! Handshake, slow start, packet sizes, flow-control and SYN loss.

use super::*;
use crate::protocols::{Endpoint, SenderEndpoint};

#[test]
fn handshake_then_first_flight_is_exactly_init_cwnd() {
    let mut pair = Pair::new(&params("tcp", |_| {}), 100 * MSS);
    pair.start();
    let (t0, syn) = &pair.sent[0];
    assert_eq!(
        (*t0, syn.kind, syn.size, syn.payload),
        (Time::ZERO, PacketKind::Syn, 40, 0)
    );
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
    let kinds: Vec<_> = pair
        .sent
        .iter()
        .map(|(t, p)| (*t, p.kind, p.size))
        .collect();
    assert_eq!(
        kinds,
        [
            (Time::ZERO, PacketKind::Syn, 40),
            (RTT, PacketKind::Data, 1040)
        ]
    );
    assert_eq!(pair.r_events, [(RTT + DELAY, EndpointEvent::Completed)]);
    assert_eq!(pair.s_events, [(RTT * 2, EndpointEvent::SenderDone)]);
    pair.assert_completed(1000);
    // Done means done: stray input wakes nothing.
    let late = Packet {
        kind: PacketKind::Ack,
        ack: 1000,
        ..Default::default()
    };
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
    // After the first ACK, one full segment has left the flight.
    while pair.acks.is_empty() {
        pair.step();
    }
    assert_eq!(pair.s.bytes_in_flight(), 5000 - MSS);
    pair.run();
    pair.assert_completed(5000);
    let st = pair.s.stats();
    assert_eq!(
        (
            st.data_packets_sent,
            st.retransmits,
            st.fast_retransmits,
            st.timeouts
        ),
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
        let syns: Vec<_> = pair
            .sent
            .iter()
            .filter(|p| p.1.kind == PacketKind::Syn)
            .collect();
        assert_eq!(syns.len(), 2);
        assert_eq!(
            syns[1].0,
            Time::from_us(1000),
            "resent after the 1 ms initial RTO"
        );
        let synacks = pair
            .replies
            .iter()
            .filter(|p| p.1.kind == PacketKind::SynAck)
            .count();
        assert_eq!(synacks, if drop_synack { 2 } else { 1 });
        assert_eq!(pair.s.stats().timeouts, 1);
        assert_eq!(
            pair.s.stats().retransmits,
            0,
            "SYNs are not data retransmissions"
        );
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
