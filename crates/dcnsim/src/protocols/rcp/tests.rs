//! RCP's router on hand-built packets: stamping the path minimum and the rate law; the
//! variants' gains and the defaults they take from the network.

use super::*;
use crate::net::header::{assert_round_trips, Header};
use crate::net::packet::{Packet, PacketKind};
use crate::net::scale::PathScale;
use crate::protocols::SwitchAgent;
use crate::protocols::Transport;
use crate::protocols::{Protocol, SwitchHooks};
use crate::topo::TopologyConfig;

/// A two-host star at 10 Gb/s: ports 0 (h0→sw), 1 (sw→h0), 2 (h1→sw), 3 (sw→h1), under
/// `variant`'s defaults.
fn star_switch(variant: &str) -> (RcpSwitch, crate::net::Network) {
    let cfg = TopologyConfig {
        hosts: Some(2),
        ..TopologyConfig::of_kind("star")
    };
    let topo = crate::topo::build(&cfg, std::path::Path::new("."), 1).unwrap();
    let net = crate::net::Network::build(&topo, crate::net::queue::Discipline::Fifo, &|_| None);
    let t = Transport::Rcp(
        RcpParams::from_config(
            "rcp",
            &RcpConfig {
                rcp_variant: Some(variant.into()),
                ..Default::default()
            },
        )
        .unwrap(),
    );
    match SwitchAgent::new(&t, &net, false) {
        Some(SwitchAgent::Rcp(s)) => (s, net),
        _ => panic!("rcp has a switch agent"),
    }
}

fn data(rate_kbps: u32, rtt_ns: u32, size: u32) -> Packet {
    Packet {
        kind: PacketKind::Data,
        size,
        header: Header::of(RcpHeader {
            rate_kbps,
            rtt_ns,
            refresh: false,
        }),
        ..Default::default()
    }
}

fn stamped(p: &Packet) -> u32 {
    p.header.read::<RcpHeader>().unwrap().rate_kbps
}

#[test]
fn forward_packets_carry_the_path_minimum_and_acks_are_untouched() {
    let (mut s, _net) = star_switch("published");
    let mut p = data(RATE_UNSET, 0, 1508);
    s.stamp(Time::ZERO, 3, &mut p);
    assert_eq!(stamped(&p), 10_000_000, "an idle link offers C (R(0) = C)");
    let (mut ps, _net) = star_switch("ps");
    let mut p = data(RATE_UNSET, 0, 1508);
    ps.stamp(Time::ZERO, 3, &mut p);
    assert_eq!(stamped(&p), 500_000, "the ps variant starts at 0.05·C");
    let mut slower = data(2_000_000, 0, 1508);
    s.stamp(Time::ZERO, 3, &mut slower);
    assert_eq!(
        stamped(&slower),
        2_000_000,
        "a smaller rate upstream is kept"
    );
    let mut ack = data(1234, 0, 48);
    ack.kind = PacketKind::Ack;
    s.stamp(Time::ZERO, 3, &mut ack);
    assert_eq!(stamped(&ack), 1234);
}

#[test]
fn rate_law_hand_computed() {
    let (mut s, net) = star_switch("published");
    // First arrival at t = 0 wakes port 3; d0 = 10 µs (initial), so the update is at 10 µs.
    // 25 000 B arrive in the interval: y = 20 Gb/s = 2C. Queue empty.
    for _ in 0..25 {
        s.stamp(Time::ZERO, 3, &mut data(RATE_UNSET, 20_000, 1000));
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
    s.stamp(Time::from_us(70), 3, &mut data(RATE_UNSET, 0, 100));
    assert_eq!(s.poll_timeout(), Some(Time::from_us(90)));
}

/// The law itself, by hand, at C = 10 Gb/s and T = d0 = 10 µs, where one full packet of queue
/// (12 000 bits) is 0.12 of the BDP (100 000 bits). A mis-coded law (a gain on the wrong term,
/// q/d0 without its second d0, the /C dropped, no clamp) fails here.
#[test]
fn rate_law_terms_by_hand() {
    let (c, d0) = (10e9, 10e-6);
    let law = |r: f64, t: f64, y: f64, q: f64, beta: f64| rate_law(r, c, t, d0, y, q, 0.1, beta);
    // Rates in bit/s, equal to the bit.
    let close = |a: f64, b: f64| (a - b).abs() < 1.0;
    // The link exactly full, one packet queued: the published law (β = 1) cuts R by
    // β·q/d0 / C = 12 000 / 10 µs / 10 Gb/s = 12 %.
    assert!(close(law(c, d0, c, 12_000.0, 1.0), 0.88 * c));
    // The ps variant's β on this network (BDP 12.5 kB against the published 30 MB) makes the
    // same packet cost 12 % · 12 500 / 30 000 000 = 0.005 %.
    let beta = ps_beta(12_500.0);
    assert!((beta - 12_500.0 / 30e6).abs() < 1e-15);
    assert!(close(
        law(c, d0, c, 12_000.0, beta),
        c * (1.0 - 0.12 * beta)
    ));
    // Spare capacity: half the link idle, no queue, over half an RTT: R grows by
    // (T/d0)·α·(C − y)/C = 0.5 · 0.1 · 0.5 = 2.5 %.
    assert!(close(
        law(0.4 * c, d0 / 2.0, 0.5 * c, 0.0, 1.0),
        0.4 * c * 1.025
    ));
    // Overload (y = 3C) over two RTTs: R · (1 + 2 · 0.1 · (−2)) = 0.6 R.
    assert!(close(law(0.5 * c, 2.0 * d0, 3.0 * c, 0.0, 1.0), 0.3 * c));
    // Clamps: never above C, never below R_min = 0.01 full packets per d0 = 12 Mb/s.
    assert_eq!(law(c, d0, 0.0, 0.0, 1.0), c);
    assert!(close(law(c, d0, c, 10.0 * 12_000.0, 1.0), 12e6));
}

/// The variants' gains, and what a scenario sets winning over them.
#[test]
fn variants_and_their_keys() {
    let params = |variant: Option<&str>, beta: Option<f64>| {
        RcpParams::from_config(
            "rcp",
            &RcpConfig {
                rcp_variant: variant.map(str::to_string),
                rcp_beta: beta,
                ..Default::default()
            },
        )
    };
    let p = params(Some("published"), None).unwrap();
    assert_eq!((p.alpha, p.beta, p.init_rate), (0.1, 1.0, 1.0));
    let p = params(None, None).unwrap();
    assert_eq!(p.variant, Variant::ProcessorSharing);
    assert_eq!((p.alpha, p.init_rate), (0.1, 0.05));
    // Where no network is known: 10 Gb/s and d0 = 10 µs, a 12.5 kB BDP.
    assert!((p.beta - 12_500.0 / 30e6).abs() < 1e-15);
    assert_eq!(params(Some("published"), Some(0.0)).unwrap().beta, 0.0);
    let err = params(Some("rcp"), None).unwrap_err();
    assert_eq!(err.path, "transport.rcp_variant");
    assert!(err.to_string().contains("ps, published"), "{err}");
    assert_eq!(
        params(None, Some(-1.0)).unwrap_err().path,
        "transport.rcp_beta"
    );
}

/// The defaults a network gives: β of `ps` is the published 1 at the published BDP
/// (2.4 Gb/s × 100 ms = 30 MB) and above, and scales with the BDP below it.
#[test]
fn ps_defaults_from_the_network() {
    use crate::units::Rate;
    let defaults = |gbps: f64, rtt_us: f64, variant: Option<&str>| {
        let mut cfg = RcpConfig {
            rcp_variant: variant.map(str::to_string),
            ..Default::default()
        };
        let scale = PathScale {
            rtt: Time::from_us_f64(rtt_us),
            rate: Rate((gbps * 1e9) as u64),
        };
        network_defaults(&mut cfg, &scale);
        (
            cfg.rcp_alpha.unwrap(),
            cfg.rcp_beta.unwrap(),
            cfg.rcp_init_rate.unwrap(),
            cfg.rcp_init_rtt_us.unwrap(),
        )
    };
    assert_eq!(defaults(2.4, 100_000.0, None), (0.1, 1.0, 0.05, 100_000.0));
    assert_eq!(defaults(40.0, 100_000.0, None).1, 1.0);
    // RCP's own scale in the issue, 1 Gb/s and 40 ms: a 5 MB BDP, β = 1/6.
    let (_, beta, _, _) = defaults(1.0, 40_000.0, None);
    assert!((beta - 1.0 / 6.0).abs() < 1e-12, "{beta}");
    // A 10 Gb/s star with 1 µs links: RTT 6.49 µs, BDP ⌈8 112.5⌉ = 8 113 B.
    let (_, beta, _, rtt) = defaults(10.0, 6.49, None);
    assert!((beta - 8_113.0 / 30e6).abs() < 1e-15, "{beta}");
    assert_eq!(rtt, 6.49);
    assert_eq!(
        defaults(10.0, 6.49, Some("published")),
        (0.1, 1.0, 1.0, 6.49)
    );
}

#[test]
fn the_header_round_trips_through_the_slot() {
    assert!(RcpParams::HEADER_TAGS.contains(&RcpHeader::TAG));
    for refresh in [false, true] {
        assert_round_trips(RcpHeader {
            rate_kbps: RATE_UNSET,
            rtt_ns: 123_456,
            refresh,
        });
    }
}
