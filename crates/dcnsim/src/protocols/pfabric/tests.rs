//! The pFabric sender on hand-built ACK sequences.

use super::*;
use crate::net::packet::{Packet, PacketKind};
use crate::protocols::{Endpoint, Protocol, SenderEndpoint};
use crate::protocols::{EndpointEvent, FlowSetup};

const MSS: u64 = 1460;

fn sender(size: u64) -> PfabricSender {
    let p = PfabricParams::from_config(
        "pfabric",
        &PfabricConfig {
            ..Default::default()
        },
    )
    .unwrap();
    let f = FlowSetup {
        flow: 1,
        path_key: 5,
        ..FlowSetup::for_tests(size)
    };
    let mut s = PfabricSender::new(&p, &f);
    s.start(Time::ZERO);
    s
}

fn drain(s: &mut PfabricSender, now: Time) -> Vec<Packet> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

fn ack(n: u64) -> Packet {
    Packet {
        kind: PacketKind::Ack,
        ack: n,
        ..Default::default()
    }
}

#[test]
fn starts_with_a_bdp_window_ranked_by_remaining_bytes() {
    let mut s = sender(100 * MSS);
    let first = drain(&mut s, Time::ZERO);
    assert_eq!(first.len(), 12, "initial window = BDP = 12 packets");
    assert!(first
        .iter()
        .all(|p| p.kind == PacketKind::Data && p.size == 1500));
    assert!(first.iter().all(|p| p.rank == 100 * MSS));
    assert_eq!(s.poll_timeout(), Some(Time::from_us(45)));
    // One ACK: slow start adds one MSS, so two more segments, ranked by what is unacknowledged.
    s.handle_packet(Time::from_us(5), &ack(MSS));
    let more = drain(&mut s, Time::from_us(5));
    assert_eq!(more.len(), 2);
    assert!(more.iter().all(|p| p.rank == 99 * MSS));
    assert_eq!(
        s.poll_timeout(),
        Some(Time::from_us(50)),
        "fixed RTO re-armed"
    );
}

#[test]
fn window_is_capped_at_twice_bdp_minus_one() {
    let mut s = sender(1000 * MSS);
    drain(&mut s, Time::ZERO);
    for k in 1..=40 {
        s.handle_packet(Time::from_us(k), &ack(k * MSS));
        drain(&mut s, Time::from_us(k));
    }
    assert_eq!(s.cwnd(), 23 * MSS);
    assert_eq!(s.bytes_in_flight(), 23 * MSS);
}

#[test]
fn duplicate_acks_do_not_retransmit() {
    let mut s = sender(100 * MSS);
    drain(&mut s, Time::ZERO);
    s.handle_packet(Time::from_us(5), &ack(MSS));
    drain(&mut s, Time::from_us(5));
    for _ in 0..10 {
        s.handle_packet(Time::from_us(6), &ack(MSS));
        assert!(drain(&mut s, Time::from_us(6)).is_empty());
    }
    assert_eq!(s.stats().retransmits, 0);
}

#[test]
fn timeout_goes_back_to_the_first_unacked_byte_with_one_segment() {
    let mut s = sender(100 * MSS);
    drain(&mut s, Time::ZERO);
    s.handle_packet(Time::from_us(5), &ack(2 * MSS));
    drain(&mut s, Time::from_us(5));
    let rto = Time::from_us(50);
    assert_eq!(s.poll_timeout(), Some(rto));
    s.handle_timeout(rto);
    let resent = drain(&mut s, rto);
    assert_eq!(resent.len(), 1);
    assert_eq!((resent[0].seq, resent[0].retransmit), (2 * MSS, true));
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(
        s.poll_timeout(),
        Some(rto + Time::from_us(45)),
        "not backed off"
    );
    // A cumulative ACK that jumps over what the receiver held skips it.
    s.handle_packet(rto + Time::from_us(5), &ack(14 * MSS));
    let next = drain(&mut s, rto + Time::from_us(5));
    assert_eq!(
        next.iter().map(|p| p.seq / MSS).collect::<Vec<_>>(),
        vec![14, 15]
    );
}

#[test]
fn five_timeouts_enter_probe_mode_until_an_ack_returns() {
    let mut s = sender(100 * MSS);
    drain(&mut s, Time::ZERO);
    for k in 1..=5 {
        let t = s.poll_timeout().unwrap();
        s.handle_timeout(t);
        let out = drain(&mut s, t);
        assert_eq!(out.len(), 1);
        if k < 5 {
            assert_eq!(
                (out[0].seq, out[0].payload),
                (0, 1460),
                "timeout {k}: go-back-N"
            );
        } else {
            // The fifth timeout: a header-only probe, ranked like the flow.
            assert!(s.is_probing());
            assert_eq!((out[0].seq, out[0].payload, out[0].size), (0, 0, 40));
            assert_eq!(out[0].rank, 100 * MSS);
        }
    }
    // Probe mode: one probe per RTO, no data.
    let t = s.poll_timeout().unwrap();
    s.handle_timeout(t);
    let out = drain(&mut s, t);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].payload, 0);
    // The probe's ACK (nothing new) ends probe mode: data resumes with one segment.
    s.handle_packet(t + Time::from_us(5), &ack(0));
    assert!(!s.is_probing());
    let out = drain(&mut s, t + Time::from_us(5));
    assert_eq!(
        out.iter().map(|p| (p.seq, p.payload)).collect::<Vec<_>>(),
        vec![(0, 1460)]
    );
    assert_eq!(s.stats().timeouts, 6);
}

#[test]
fn finishes_on_the_last_ack() {
    let mut s = sender(3 * MSS - 100);
    let out = drain(&mut s, Time::ZERO);
    assert_eq!(
        out.iter().map(|p| p.payload).collect::<Vec<_>>(),
        vec![1460, 1460, 1360]
    );
    s.handle_packet(Time::from_us(5), &ack(3 * MSS - 100));
    assert_eq!(s.poll_event(), Some(EndpointEvent::SenderDone));
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn keys_of_other_protocols_are_refused_by_name() {
    let err = crate::protocols::refused("pfabric", "min_rto_us", serde_json::json!(100.0));
    assert_eq!(err.path, "transport.min_rto_us");
    assert!(err.message.contains("pfabric_rto_us"), "{err}");
    // And pFabric's keys are refused for the TCP family.
    let err = crate::protocols::refused("dctcp", "pfabric_rto_us", serde_json::json!(45.0));
    assert_eq!(err.path, "transport.pfabric_rto_us");
}
