//! MCP's window update on hand-made connections, against numbers worked out by hand.

use super::*;
use crate::net::header::Header;
use crate::protocols::tcp::cc::{Ack, CongestionControl, Conn, Window};
use crate::protocols::tcp::TcpParams;
use crate::protocols::Protocol;
use crate::protocols::{FlowSetup, PathFacts};
use crate::units::{Rate, Time};

const MSS: u64 = 1460;

fn params(variant: &str, keys: impl FnOnce(&mut TcpConfig)) -> (McpParams, TcpParams) {
    let mut cfg = TcpConfig {
        mcp_variant: Some(variant.into()),
        ..Default::default()
    };
    keys(&mut cfg);
    (
        McpParams::from_config(&cfg).unwrap(),
        TcpParams::from_config("mcp", &cfg).unwrap(),
    )
}

/// A 5 MB flow due at 10 ms on a 10 Gb/s path whose queues mark at 64 packets.
fn mcp(variant: &str, deadline: Option<Time>) -> Mcp {
    mcp_with(variant, deadline, |_| {})
}

fn mcp_with(variant: &str, deadline: Option<Time>, keys: impl FnOnce(&mut TcpConfig)) -> Mcp {
    mcp_on(variant, deadline, Rate::gbps(10), keys)
}

/// As [`mcp_with`] on a path whose fastest link is `fastest` (its slowest stays 10 Gb/s).
fn mcp_on(
    variant: &str,
    deadline: Option<Time>,
    fastest: Rate,
    keys: impl FnOnce(&mut TcpConfig),
) -> Mcp {
    let (m, p) = params(variant, keys);
    let f = FlowSetup {
        flow: 0,
        src: 0,
        dst: 1,
        size: 5_000_000,
        start: Time::ZERO,
        deadline,
        weight: 1.0,
        path_key: 0,
        path: PathFacts {
            bottleneck: Rate::gbps(10),
            fastest,
            ecn_k_pkts: Some(64),
        },
    };
    Mcp::new(&m, &p, &f)
}

fn conn(now_us: u64, snd_una: u64, snd_nxt: u64) -> Conn {
    Conn {
        now: Time::from_us(now_us),
        mss: MSS,
        size: 5_000_000,
        snd_una,
        snd_nxt,
        snd_max: snd_nxt,
        srtt: Some(Time::from_us(40)),
        in_recovery: false,
        cwnd_limited: true,
    }
}

fn ack(bytes: u64, ece: bool) -> Ack {
    Ack {
        newly_acked: bytes,
        ece,
        header: Header::NONE,
    }
}

const DEADLINE: Option<Time> = Some(Time::from_ms(10));

fn window(cwnd_pkts: u64) -> Window {
    Window {
        cwnd: cwnd_pkts * MSS,
        ssthresh: u64::MAX,
    }
}

/// The handshake at 0 with a 40 µs sample: τ·γ(0) with γ aimed one RTT early, 5 MB over
/// 9.96 ms: 20 080 bytes, 13.75 packets, which the sender gets as 14 whole segments.
#[test]
fn the_initial_window_is_one_rtt_at_the_expected_rate_rounded_up() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = window(10);
    m.on_established(&conn(0, 0, 0), &mut w);
    let want = 5e6 / (0.010 - 40e-6) * 40e-6 / MSS as f64;
    assert!((m.window_pkts() - want).abs() < 1e-9, "{}", m.window_pkts());
    assert_eq!(w.cwnd, 14 * MSS);
    assert!(m.ect() && !m.wants_abort(Time::ZERO));
    // `mcp_aim = "deadline"`: the seed's γ = M/δ, 5 MB over the whole 10 ms.
    let mut literal = mcp_with("approx", DEADLINE, |c| c.mcp_aim = Some("deadline".into()));
    literal.on_established(&conn(0, 0, 0), &mut w);
    assert!((literal.window_pkts() - 5e6 / 0.010 * 40e-6 / MSS as f64).abs() < 1e-9);
}

/// The window started at the handshake (t = 0) with γ(0) = 5 MB over 9.96 ms (aimed one
/// RTT early); ten segments went out (the host held the rest); an ACK at 30 µs opens the
/// window up to them, the one at 50 µs closes it: τ = 50 µs, measured, although SRTT reads
/// 40 µs. x = 10 packets acknowledged; γ(0)·τ = 11.68 packets. Z = γ − x, Θ = Z·γ/x², and the
/// idle price of the 10 Gb/s bottleneck in packets per window (1/41.67²). W = 13.75 + Θ −
/// price, sent as whole segments.
#[test]
fn one_update_by_hand_over_a_measured_window() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = window(10);
    m.on_established(&conn(0, 0, 0), &mut w);
    let w0 = m.window_pkts();
    m.on_ack(&conn(30, MSS, 10 * MSS), ack(MSS, false), &mut w);
    assert_eq!(m.updates, 0, "the window's first ACK opens it");
    m.on_ack(&conn(50, 10 * MSS, 10 * MSS), ack(9 * MSS, false), &mut w);
    assert_eq!(m.updates, 1);
    let gamma = 5e6 / (0.010 - 40e-6) * 50e-6 / MSS as f64;
    let z = gamma - 10.0;
    assert!(
        (m.virtual_queue() - z).abs() < 1e-9,
        "{}",
        m.virtual_queue()
    );
    let c_p = 1e10 / 8.0 * 50e-6 / 1500.0;
    let want = w0 + z * gamma / 100.0 - 1.0 / (c_p * c_p);
    assert!((m.window_pkts() - want).abs() < 1e-9, "{}", m.window_pkts());
    assert_eq!(w.cwnd, want.ceil() as u64 * MSS);
}

/// An update that shrinks the window leaves the old flight in the network. Its ACKs close no
/// window: the next update waits for the data sent after this one (issue 34: a second update
/// a few µs later, with a rate the flow never sent).
#[test]
fn the_next_update_waits_for_data_sent_after_this_one() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = window(10);
    m.on_established(&conn(0, 0, 0), &mut w);
    let w0 = m.window_pkts();
    // The 14 segments of the first window come back, one marked (Q ≈ K + F·x = 65 packets),
    // each ACK clocking out a new segment: at the last, 13 more are in flight. W halves (the
    // bound on a cut) to 6.9 packets, 7 segments.
    m.on_ack(&conn(40, MSS, 14 * MSS), ack(MSS, true), &mut w);
    m.on_ack(&conn(41, 14 * MSS, 27 * MSS), ack(13 * MSS, false), &mut w);
    assert!((m.window_pkts() - w0 / 2.0).abs() < 1e-9);
    assert_eq!((m.updates, w.cwnd), (1, 7 * MSS));
    // The old flight drains; nothing is sent until fewer than 7 are in flight.
    for una in 15..=21 {
        m.on_ack(
            &conn(41 + una, una * MSS, 27 * MSS),
            ack(MSS, false),
            &mut w,
        );
    }
    // Segment 28 went out after the update: the next ACK opens the window up to it; the rest
    // of the old flight does not close it.
    for una in 22..=27 {
        m.on_ack(
            &conn(41 + una, una * MSS, 28 * MSS),
            ack(MSS, false),
            &mut w,
        );
    }
    assert_eq!(m.updates, 1);
    // Segment 28's ACK, an RTT after it left, closes the window.
    m.on_ack(&conn(110, 28 * MSS, 28 * MSS), ack(MSS, false), &mut w);
    assert_eq!(m.updates, 2);
}

/// The window keeps its fraction and the sender gets whole segments, rounded up: W = 5.2
/// packets flies 6 segments. The rate x in Z is what the window's ACKs acknowledged.
#[test]
fn the_window_keeps_its_fraction_and_flies_whole_segments() {
    let mut m = mcp("approx", Some(Time::from_ms(100)));
    let mut w = window(10);
    m.on_established(&conn(0, 0, 0), &mut w);
    // 5 MB over 99.96 ms at 40 µs: 1.37 packets, flown as 2.
    assert!(
        (m.window_pkts() - 1.3703).abs() < 1e-3,
        "{}",
        m.window_pkts()
    );
    assert_eq!(w.cwnd, 2 * MSS);
    m.on_ack(&conn(40, MSS, 2 * MSS), ack(MSS, false), &mut w);
    m.on_ack(&conn(41, 2 * MSS, 2 * MSS), ack(MSS, false), &mut w);
    // x = 2 > γ (1.4): Z stays 0 and only the price lowers W, which keeps its fraction.
    assert_eq!(m.virtual_queue(), 0.0);
    assert!(m.window_pkts() < 1.3703 && m.window_pkts() > 1.36);
    assert_eq!(w.cwnd, 2 * MSS);
}

/// Each round the flow's whole window comes back, some of it marked. A marked round asks for a
/// cut of Q ≈ K + F·x = 64 + 14 packets, far below one packet, and W halves (the bound on a
/// cut) instead; then Z, growing by γ − x, lifts it — by at most a doubling per round.
#[test]
fn marks_cut_the_window_and_the_deficit_lifts_it_again() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = window(10);
    m.on_established(&conn(0, 0, 0), &mut w);
    let w0 = m.window_pkts();
    let mut t = 0;
    let mut una = 0;
    let mut round = |m: &mut Mcp, w: &mut Window, marked: bool| {
        let flight = w.cwnd;
        t += 40;
        m.on_ack(&conn(t, una + MSS, una + flight), ack(MSS, marked), w);
        m.on_ack(
            &conn(t + 1, una + flight, una + flight),
            ack(flight - MSS, marked),
            w,
        );
        una += flight;
    };
    round(&mut m, &mut w, true);
    assert!(
        (m.window_pkts() - w0 / 2.0).abs() < 1e-9,
        "{}",
        m.window_pkts()
    );
    round(&mut m, &mut w, true);
    assert!(
        (m.window_pkts() - w0 / 4.0).abs() < 1e-9,
        "{}",
        m.window_pkts()
    );
    let mut last = w.cwnd;
    for _ in 0..6 {
        round(&mut m, &mut w, false);
        assert!(w.cwnd <= 2 * last, "{} after {last}", w.cwnd);
        last = w.cwnd;
    }
    assert_eq!(m.updates, 8);
    assert!(
        m.window_pkts() > w0,
        "the deficit brought it back: {}",
        m.window_pkts()
    );
}

/// MCP-Opt takes the queue and price the switches added up: Σ Q = 3 packets, and Σ 1/(C−y)²
/// in bytes/s that, times (1500 B per 40 µs)², would be 2 packets. The window is 50 µs
/// (SRTT 40 µs): the price counts per window, 2·(40/50)² = 1.28 packets.
#[test]
fn opt_reads_the_path_sums_from_the_ack() {
    let mut m = mcp("opt", DEADLINE);
    assert_eq!(m.data_header(), Header::of(McpHeader::default()));
    let mut w = window(10);
    m.on_established(&conn(0, 0, 0), &mut w);
    let w0 = m.window_pkts();
    let per_rtt = 1500.0 / 40e-6;
    let sums = McpHeader {
        queue_pkts: 3,
        price: (2.0 / (per_rtt * per_rtt)) as f32,
    };
    let a = |bytes| Ack {
        header: Header::of(sums),
        ..ack(bytes, false)
    };
    m.on_ack(&conn(30, MSS, 10 * MSS), a(MSS), &mut w);
    m.on_ack(&conn(50, 10 * MSS, 10 * MSS), a(9 * MSS), &mut w);
    let gamma = 5e6 / (0.010 - 40e-6) * 50e-6 / MSS as f64;
    let want = w0 + (gamma - 10.0) * gamma / 100.0 - 3.0 - 1.28;
    assert!((m.window_pkts() - want).abs() < 1e-5, "{}", m.window_pkts());
}

/// A window that closes during a fast recovery makes no update: it runs on, and the first
/// ACK after the recovery closes it, its τ and its shortfall spanning the recovery.
#[test]
fn a_window_runs_on_through_a_fast_recovery() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = window(10);
    m.on_established(&conn(0, 0, 0), &mut w);
    m.on_ack(&conn(30, MSS, 10 * MSS), ack(MSS, false), &mut w);
    let recovering = Conn {
        in_recovery: true,
        ..conn(50, 10 * MSS, 12 * MSS)
    };
    m.on_ack(&recovering, ack(MSS, false), &mut w);
    assert_eq!(m.updates, 0);
    m.on_ack(&conn(90, 12 * MSS, 12 * MSS), ack(2 * MSS, false), &mut w);
    assert_eq!(m.updates, 1);
    // γ(0) over the 90 µs the window lasted, against the 4 segments its ACKs acknowledged.
    let gamma = 5e6 / (0.010 - 40e-6) * 90e-6 / MSS as f64;
    assert!(
        (m.virtual_queue() - (gamma - 4.0)).abs() < 1e-9,
        "{}",
        m.virtual_queue()
    );
}

/// After a timeout the window runs on (go-back-N resends from snd_una) until what is resent
/// is acknowledged: the resent segment's ACK at 1.06 ms closes it, τ from the window's start.
#[test]
fn a_window_runs_on_through_a_timeout() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = window(10);
    m.on_established(&conn(0, 0, 0), &mut w);
    m.on_ack(&conn(30, MSS, 10 * MSS), ack(MSS, false), &mut w);
    m.on_timeout(&conn(1_030, MSS, 10 * MSS), 9 * MSS, &mut w);
    assert_eq!((w.cwnd, m.updates), (MSS, 0));
    m.on_ack(&conn(1_060, 2 * MSS, 2 * MSS), ack(MSS, false), &mut w);
    assert_eq!(m.updates, 1);
    let gamma = 5e6 / (0.010 - 40e-6) * 1_060e-6 / MSS as f64;
    assert!(
        (m.virtual_queue() - (gamma - 2.0)).abs() < 1e-9,
        "{}",
        m.virtual_queue()
    );
}

/// At the handshake a flow whose packets take longer than the time left at its path's slowest
/// link is aborted: 5 MB (5.14 MB on the wire) in 3 ms needs 13.7 Gb/s of a 10 Gb/s path,
/// even with a 40 Gb/s link elsewhere on it. 5 MB in 10 ms is kept.
#[test]
fn a_flow_its_bottleneck_cannot_finish_is_aborted_at_the_handshake() {
    let mut m = mcp_on("approx", Some(Time::from_ms(3)), Rate::gbps(40), |_| {});
    m.on_established(&conn(0, 0, 0), &mut window(10));
    assert!(m.wants_abort(Time::ZERO));
    let mut m = mcp_on("approx", DEADLINE, Rate::gbps(40), |_| {});
    m.on_established(&conn(0, 0, 0), &mut window(10));
    assert!(!m.wants_abort(Time::ZERO));
}

/// §4.2 at an update. Each 40 µs round the network delivers one segment of the 13.7 per
/// round the flow needs (γ of each round fixed at its start, one RTT early): Z grows by about
/// 12.7 packets a round. `per_rtt` holds Z against what 10 Gb/s carries in one 40 µs window,
/// 33.3 packets of 1500 B: it aborts at the third round (Z ≈ 38). `deficit` holds it against
/// what the link carries until the deadline (about 8 230 packets): it keeps the flow.
#[test]
fn the_abort_rules_by_hand() {
    let rounds = |abort: &str| {
        let mut m = mcp_with("approx", DEADLINE, |c| c.mcp_abort = Some(abort.into()));
        let mut w = window(10);
        m.on_established(&conn(0, 0, 0), &mut w);
        let mut out = Vec::new();
        for k in 0..3 {
            let (t, una) = (40 * (k + 1), k * MSS);
            m.on_ack(&conn(t - 1, una + 500, una + MSS), ack(500, false), &mut w);
            m.on_ack(
                &conn(t, una + MSS, una + MSS),
                ack(MSS - 500, false),
                &mut w,
            );
            out.push((m.virtual_queue(), m.wants_abort(Time::ZERO)));
        }
        out
    };
    // Round k starts at 40k µs with k segments delivered.
    let gamma = |k: u64| {
        let aim = 0.010 - 40e-6 * (k + 1) as f64;
        (5e6 - (k * MSS) as f64) / aim * 40e-6 / MSS as f64
    };
    let z1 = gamma(0) - 1.0;
    let per_rtt = rounds("per_rtt");
    assert!((per_rtt[0].0 - z1).abs() < 1e-9, "{:?}", per_rtt);
    let z3 = z1 + gamma(1) - 1.0 + gamma(2) - 1.0;
    let window_worth = 1.25e9 * 40e-6 / 1500.0;
    assert!(per_rtt[1].0 < window_worth && per_rtt[1].0 > 25.0 && !per_rtt[1].1);
    assert!((per_rtt[2].0 - z3).abs() < 1e-9 && z3 > window_worth && per_rtt[2].1);
    let deficit = rounds("deficit");
    assert!(deficit.iter().all(|&(_, aborted)| !aborted), "{deficit:?}");
}

/// Z never exceeds the packets a flow has left. 20 KB due in 10 ms: a first window of 5 ms
/// acknowledges one segment (Z = 5.88), a second of 4 ms another (γ·τ = 10.2 packets): Z would
/// be 15.1, and is the 11.7 packets left.
#[test]
fn the_deficit_is_at_most_what_remains() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = window(10);
    let small = |now, una, nxt| Conn {
        size: 20_000,
        ..conn(now, una, nxt)
    };
    m.on_established(&small(0, 0, 0), &mut w);
    m.on_ack(&small(4_000, 500, MSS), ack(500, false), &mut w);
    m.on_ack(&small(5_000, MSS, MSS), ack(MSS - 500, false), &mut w);
    let z1 = 20_000.0 / (0.010 - 40e-6) * 5e-3 / MSS as f64 - 1.0;
    assert!(
        (m.virtual_queue() - z1).abs() < 1e-9,
        "{}",
        m.virtual_queue()
    );
    m.on_ack(&small(8_000, MSS + 500, 2 * MSS), ack(500, false), &mut w);
    m.on_ack(
        &small(9_000, 2 * MSS, 2 * MSS),
        ack(MSS - 500, false),
        &mut w,
    );
    let gamma2 = (20_000 - MSS) as f64 / (5e-3 - 40e-6) * 4e-3 / MSS as f64;
    let left = (20_000 - 2 * MSS) as f64 / MSS as f64;
    assert!(z1 + gamma2 - 1.0 > left + 3.0);
    assert!(
        (m.virtual_queue() - left).abs() < 1e-9,
        "{}",
        m.virtual_queue()
    );
    assert!(!m.wants_abort(Time::from_us(9_000)));
}

/// Past its deadline a flow ends: at its next update, and at the first packet or timer the
/// sender handles after the deadline.
#[test]
fn a_flow_past_its_deadline_ends() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = window(10);
    m.on_established(&conn(0, 0, 0), &mut w);
    m.on_ack(&conn(9_990, MSS, 3 * MSS), ack(MSS, false), &mut w);
    assert!(!m.wants_abort(Time::from_us(9_999)));
    assert!(m.wants_abort(Time::from_ms(10)));
    m.on_ack(&conn(10_001, 3 * MSS, 3 * MSS), ack(2 * MSS, false), &mut w);
    assert!(m.wants_abort(Time::ZERO));
    // A flow without a deadline runs DCTCP and is never given up.
    assert!(!mcp("approx", None).wants_abort(Time::from_ms(1000)));
}

/// Without a deadline there is no expected rate: the flow runs DCTCP.
#[test]
fn flows_without_deadline_run_dctcp() {
    let m = mcp("approx", None);
    assert!(m.fallback().is_some() && m.ect());
    assert_eq!(m.data_header(), Header::NONE);
}

#[test]
fn keys_are_checked() {
    let refused = |keys: fn(&mut TcpConfig)| {
        let mut cfg = TcpConfig::default();
        keys(&mut cfg);
        McpParams::from_config(&cfg).unwrap_err().path
    };
    assert_eq!(
        refused(|c| c.mcp_abort = Some("gamma".into())),
        "transport.mcp_abort"
    );
    assert_eq!(
        refused(|c| c.mcp_aim = Some("early".into())),
        "transport.mcp_aim"
    );
    assert_eq!(
        refused(|c| c.mcp_rate_average_us = Some(1000.0)),
        "transport.mcp_rate_average_us"
    );
    let bad = |variant: &str, interval: Option<f64>| {
        let cfg = TcpConfig {
            mcp_variant: Some(variant.into()),
            mcp_rate_interval_us: interval,
            ..Default::default()
        };
        McpParams::from_config(&cfg).unwrap_err().path
    };
    assert_eq!(bad("exact", None), "transport.mcp_variant");
    assert_eq!(bad("approx", Some(10.0)), "transport.mcp_rate_interval_us");
    assert_eq!(bad("opt", Some(-1.0)), "transport.mcp_rate_interval_us");
    let dctcp = TcpConfig {
        mcp_variant: Some("opt".into()),
        ..Default::default()
    };
    assert_eq!(
        TcpParams::from_config("dctcp", &dctcp).unwrap_err().path,
        "transport.mcp_variant"
    );
}

/// MCP-Opt's port: a two-host star's switch port 3 (towards h1, 10 Gb/s) measured in 10 µs
/// intervals averaged over 1 ms.
fn opt_switch() -> (McpSwitch, crate::net::Network) {
    let cfg = crate::topo::TopologyConfig {
        hosts: Some(2),
        ..crate::topo::TopologyConfig::of_kind("star")
    };
    let topo = crate::topo::build(&cfg, std::path::Path::new("."), 1).unwrap();
    let net = crate::net::Network::build(&topo, crate::net::queue::Discipline::Fifo, &|_| None);
    let (mut m, _) = params("opt", |c| c.mcp_rate_interval_us = Some(10.0));
    m.rate_average = Time::from_ms(1);
    (McpSwitch::new(&m, &net), net)
}

fn data(size: u32) -> crate::net::packet::Packet {
    crate::net::packet::Packet {
        kind: crate::net::packet::PacketKind::Data,
        size,
        header: Header::of(McpHeader::default()),
        ..Default::default()
    }
}

/// The load y is a long-term rate: 5 ms at half the link (a 1500-byte packet every 2.4 µs)
/// reads as 0.5·C within 1 %, and its price 1/(C − y)² follows. A port busy at full rate for
/// one 17.5 µs base RTT after an idle spell reads as ~2 % of C, not as full (a price of tens of
/// packets per hop when y was measured over that RTT alone).
#[test]
fn the_link_price_follows_the_load_averaged_over_a_millisecond() {
    let (mut sw, net) = opt_switch();
    let c = 1.25e9;
    let mut t = Time::ZERO;
    let mut p = data(1500);
    while t < Time::from_ms(5) {
        p = data(1500);
        sw.stamp(t, 3, &net.ports[3], &mut p);
        t += Time::from_ns(2400);
    }
    let y = sw.arrival_rate(3);
    assert!((y / c - 0.5).abs() < 0.01, "{}", y / c);
    let Some(h) = p.header.read::<McpHeader>() else {
        panic!()
    };
    assert!((h.price as f64 * (c - y) * (c - y) - 1.0).abs() < 1e-3);
    // Idle for 10 ms, then 17.5 µs at line rate (1.2 µs a packet).
    let (mut sw, net) = opt_switch();
    let mut t = Time::from_ms(10);
    while t < Time::from_ms(10) + Time::from_ns(27_500) {
        sw.stamp(t, 3, &net.ports[3], &mut data(1500));
        t += Time::from_ns(1200);
    }
    let y = sw.arrival_rate(3) / c;
    assert!(y > 0.005 && y < 0.03, "{y}");
}

/// The queue a data packet reports is the port's standing queue: the least an arrival found
/// in the last interval and this one. A burst that builds 20 packets and drains adds nothing
/// while some arrival in the interval found the port empty; a queue that stays reports itself.
#[test]
fn the_queue_a_port_reports_is_its_standing_queue() {
    let (mut sw, mut net) = opt_switch();
    let mut pool = crate::net::packet::PacketPool::default();
    let reported = |sw: &mut McpSwitch, net: &crate::net::Network, t: Time| {
        let mut p = data(1500);
        sw.stamp(t, 3, &net.ports[3], &mut p);
        p.header.read::<McpHeader>().unwrap().queue_pkts
    };
    // Interval [0, 10 µs): an arrival finds the port empty, then 20 packets wait.
    assert_eq!(reported(&mut sw, &net, Time::from_us(1)), 0);
    for _ in 0..20 {
        let r = pool.insert(data(1500));
        net.ports[3].queue.push_forced(&pool, r);
    }
    assert_eq!(reported(&mut sw, &net, Time::from_us(5)), 0, "a burst");
    // [10, 20): every arrival finds 20 waiting, but the last interval had an empty port.
    assert_eq!(reported(&mut sw, &net, Time::from_us(12)), 0);
    // [20, 30): two intervals with 20 at least: a standing queue of 20.
    assert_eq!(reported(&mut sw, &net, Time::from_us(25)), 20);
}

#[test]
fn the_header_round_trips_through_the_slot() {
    use crate::net::header::WireHeader;
    assert!(TcpParams::HEADER_TAGS.contains(&McpHeader::TAG));
    crate::net::header::assert_round_trips(McpHeader {
        queue_pkts: 123,
        price: 2.5e-18,
    });
}
