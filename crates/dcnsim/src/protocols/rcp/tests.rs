//! RCP's router on hand-built packets: stamping the path minimum and the rate law.

use super::*;
use crate::net::packet::{Header, Packet, PacketKind};
use crate::protocols::agent::SwitchAgent;
use crate::protocols::Transport;
use crate::topo::TopologyConfig;

/// A two-host star at 10 Gb/s: ports 0 (h0→sw), 1 (sw→h0), 2 (h1→sw), 3 (sw→h1).
fn star_switch() -> (RcpSwitch, crate::net::Network) {
    let cfg = TopologyConfig {
        hosts: Some(2),
        ..TopologyConfig::of_kind("star")
    };
    let topo = crate::topo::build(&cfg, std::path::Path::new("."), 1).unwrap();
    let net = crate::net::Network::build(&topo, crate::net::queue::Discipline::Fifo, &|_| None);
    let t = Transport::from_config(&TransportConfig {
        protocol: "rcp".into(),
        ..Default::default()
    })
    .unwrap();
    match SwitchAgent::new(&t, &net, crate::lb::LbKind::Ecmp) {
        Some(SwitchAgent::Rcp(s)) => (s, net),
        _ => panic!("rcp has a switch agent"),
    }
}

fn data(rate_kbps: u32, rtt_ns: u32, size: u32) -> Packet {
    Packet {
        kind: PacketKind::Data,
        size,
        header: Header::Rcp(RcpHeader {
            rate_kbps,
            rtt_ns,
            refresh: false,
        }),
        ..Default::default()
    }
}

fn stamped(p: &Packet) -> u32 {
    match p.header {
        Header::Rcp(h) => h.rate_kbps,
        _ => panic!(),
    }
}

#[test]
fn forward_packets_carry_the_path_minimum_and_acks_are_untouched() {
    let (mut s, _net) = star_switch();
    let mut p = data(RATE_UNSET, 0, 1508);
    s.on_enqueue(Time::ZERO, 3, &mut p);
    assert_eq!(stamped(&p), 10_000_000, "an idle link offers C (R(0) = C)");
    let mut slower = data(2_000_000, 0, 1508);
    s.on_enqueue(Time::ZERO, 3, &mut slower);
    assert_eq!(
        stamped(&slower),
        2_000_000,
        "a smaller rate upstream is kept"
    );
    let mut ack = data(1234, 0, 48);
    ack.kind = PacketKind::Ack;
    s.on_enqueue(Time::ZERO, 3, &mut ack);
    assert_eq!(stamped(&ack), 1234);
}

#[test]
fn rate_law_hand_computed() {
    let (mut s, net) = star_switch();
    // First arrival at t = 0 wakes port 3; d0 = 10 µs (initial), so the update is at 10 µs.
    // 25 000 B arrive in the interval: y = 20 Gb/s = 2C. Queue empty.
    for _ in 0..25 {
        s.on_enqueue(Time::ZERO, 3, &mut data(RATE_UNSET, 20_000, 1000));
    }
    assert_eq!(s.poll_timeout(), Some(Time::from_us(10)));
    s.handle_timeout(Time::from_us(10), &net.ports);
    // R = C·(1 + (10/10)·(0.1·(C − 2C) − 0)/C) = 0.9 C.
    assert!((s.rate_bps(3) - 9e9).abs() < 1.0, "{}", s.rate_bps(3));
    // d0 becomes the byte-weighted mean RTT_p of the interval (20 µs); the next interval is d0.
    assert!((s.d0_s(3) - 20e-6).abs() < 1e-12);
    assert_eq!(s.poll_timeout(), Some(Time::from_us(30)));
    // An interval without arrivals grows R by α·T/d0 = 10 %, capped at C.
    s.handle_timeout(Time::from_us(30), &net.ports);
    assert!((s.rate_bps(3) - 9.9e9).abs() < 1.0);
    s.handle_timeout(Time::from_us(50), &net.ports);
    assert_eq!(s.rate_bps(3), 10e9);
    // At C, idle and empty: the link sleeps until its next packet.
    assert_eq!(s.poll_timeout(), None);
    s.on_enqueue(Time::from_us(70), 3, &mut data(RATE_UNSET, 0, 100));
    assert_eq!(s.poll_timeout(), Some(Time::from_us(90)));
}
