//! MCP's window update on hand-made connections, against numbers worked out by hand.

use super::*;
use crate::net::packet::Header;
use crate::protocols::tcp::cc::{Ack, CongestionControl, Conn, Window};
use crate::protocols::tcp::TcpParams;
use crate::protocols::{FlowSetup, PathFacts};
use crate::units::{Rate, Time};

const MSS: u64 = 1460;

fn params(variant: &str) -> (McpParams, TcpParams) {
    let cfg = TransportConfig {
        protocol: "mcp".into(),
        mcp_variant: Some(variant.into()),
        ..Default::default()
    };
    (
        McpParams::from_config(&cfg).unwrap(),
        TcpParams::from_config(&cfg).unwrap(),
    )
}

/// A 5 MB flow due at 10 ms on a 10 Gb/s path whose queues mark at 64 packets.
fn mcp(variant: &str, deadline: Option<Time>) -> Mcp {
    let (m, p) = params(variant);
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
            fastest: Rate::gbps(10),
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
        header: Header::None,
    }
}

const DEADLINE: Option<Time> = Some(Time::from_ms(10));

/// τ·γ(0): 5 MB over 10 ms is 500 MB/s; over a 40 µs RTT, 20 000 bytes.
#[test]
fn the_initial_window_is_one_rtt_at_the_expected_rate() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: u64::MAX,
    };
    m.on_established(&conn(0, 0, 0), &mut w);
    assert_eq!(w.cwnd, 20_000);
    assert!(m.ect() && !m.wants_abort(Time::ZERO));
}

/// At 1 ms, 4.5 MB left for 9 ms: γ = 500 MB/s, 13.699 packets per 40 µs RTT. The window was
/// 10 packets, so Z = 3.699 and Θ = Z·γ/x² = 0.5067. No marks: no queue, and the price of the
/// 10 Gb/s bottleneck (33.33 packets per RTT of 1500 B) with no growth is 1/33.33² = 0.0009.
/// W = 10 + 0.5067 − 0.0009 = 10.5058 packets = 15 338 bytes.
#[test]
fn one_update_by_hand_without_marks() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: u64::MAX,
    };
    let sent = 500_000 + 10 * MSS;
    m.on_ack(&conn(990, 500_000 - MSS, sent), ack(MSS, false), &mut w);
    assert_eq!(w.cwnd, 10 * MSS, "the window's first ACK opens it");
    m.on_ack(
        &conn(1000, sent, sent + 10 * MSS),
        ack(sent - 500_000 + MSS, false),
        &mut w,
    );
    let gamma = 4_500_000.0 - 10.0 * MSS as f64;
    let gamma = gamma / 0.009 * 40e-6 / MSS as f64;
    let z = gamma - 10.0;
    assert!((m.virtual_queue() - z).abs() < 1e-9);
    let c_p = 1e10 / 8.0 * 40e-6 / 1500.0;
    let want = 10.0 + z * gamma / 100.0 - 1.0 / (c_p * c_p);
    assert_eq!(w.cwnd, (want * MSS as f64).round() as u64);
}

/// A window of 5.7 packets lets 5 fly (the sender sends only whole segments): against
/// γ = 5.5 packets per RTT the flow is half a packet short each RTT, and Z says so. Counting
/// the window itself as the rate (5.7 > 5.5) would leave Z at 0 and the flow short for good.
#[test]
fn the_rate_is_the_whole_segments_the_window_lets_fly() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = Window {
        cwnd: 8322, // 5.7 segments
        ssthresh: u64::MAX,
    };
    // At 1 ms with 9 ms left, γ·τ = 5.5 packets: 5.5 · 1460 B per 40 µs over 9 ms.
    let left = (5.5 * MSS as f64 / 40e-6 * 0.009).round() as u64;
    let sent = 5_000_000 - left;
    m.on_ack(&conn(990, sent - MSS, sent), ack(MSS, false), &mut w);
    m.on_ack(&conn(1000, sent, sent + 5 * MSS), ack(MSS, false), &mut w);
    let gamma = left as f64 / 0.009 * 40e-6 / MSS as f64;
    assert!((m.virtual_queue() - (gamma - 5.0)).abs() < 1e-9);
    let c_p = 1e10 / 8.0 * 40e-6 / 1500.0;
    let want = 5.7 + (gamma - 5.0) * gamma / 25.0 - 1.0 / (c_p * c_p);
    assert_eq!(w.cwnd, (want * MSS as f64).round() as u64);
    assert!(w.cwnd > 8322, "the deficit lifts the window: {}", w.cwnd);
}

/// Half the window marked: Q ≈ K + F·W = 64 + 5 = 69 packets, far above what the source term
/// asks: the window falls to its floor of one packet. Then Z, growing by γ − x each RTT, lifts
/// it — by at most a doubling per RTT.
#[test]
fn marks_cut_the_window_and_the_deficit_lifts_it_again() {
    let mut m = mcp("approx", DEADLINE);
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: u64::MAX,
    };
    // Each round acknowledges the whole previous flight, which closes the update's window.
    let mut t = 100;
    m.on_ack(&conn(t, 0, 10 * MSS), ack(MSS, false), &mut w);
    let mut una = 10 * MSS;
    t += 40;
    m.on_ack(&conn(t, una, una + 10 * MSS), ack(5 * MSS, true), &mut w);
    assert_eq!(w.cwnd, MSS, "64 + 5 packets of queue");
    let mut flight = 10 * MSS;
    let mut last = w.cwnd;
    for _ in 0..6 {
        una += flight;
        flight = w.cwnd;
        t += 40;
        m.on_ack(&conn(t, una, una + flight), ack(flight, false), &mut w);
        assert!(w.cwnd <= 2 * last, "{} after {last}", w.cwnd);
        last = w.cwnd;
    }
    assert!(
        w.cwnd >= 16 * MSS,
        "the deficit brought it back: {}",
        w.cwnd
    );
}

/// MCP-Opt takes the queue and price the switches added up: Σ Q = 3 packets, and Σ 1/(C−y)²
/// in bytes/s that, times (1500 B / 40 µs)², is 2 packets.
#[test]
fn opt_reads_the_path_sums_from_the_ack() {
    let mut m = mcp("opt", DEADLINE);
    assert_eq!(m.data_header(), Header::Mcp(McpHeader::default()));
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: u64::MAX,
    };
    let per_rtt = 1500.0 / 40e-6;
    let sums = McpHeader {
        queue_pkts: 3,
        price: (2.0 / (per_rtt * per_rtt)) as f32,
    };
    let a = |bytes| Ack {
        header: Header::Mcp(sums),
        ..ack(bytes, false)
    };
    let sent = 500_000 + 10 * MSS;
    m.on_ack(&conn(990, 500_000 - MSS, sent), a(MSS), &mut w);
    m.on_ack(
        &conn(1000, sent, sent + 10 * MSS),
        a(sent - 500_000 + MSS),
        &mut w,
    );
    let gamma = (4_500_000.0 - 10.0 * MSS as f64) / 0.009 * 40e-6 / MSS as f64;
    let want = 10.0 + (gamma - 10.0) * gamma / 100.0 - 3.0 - 2.0;
    assert!(
        (w.cwnd as f64 / MSS as f64 - want).abs() < 1e-3,
        "{}",
        w.cwnd
    );
}

/// 5 MB in 3 ms needs 13.3 Gb/s, more than the 10 Gb/s path: aborted at the handshake. Later,
/// a flow whose remaining bytes outgrow the fastest link is aborted at its next update.
#[test]
fn flows_that_cannot_make_it_are_aborted() {
    let mut m = mcp("approx", Some(Time::from_ms(3)));
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: u64::MAX,
    };
    m.on_established(&conn(0, 0, 0), &mut w);
    assert!(m.wants_abort(Time::ZERO));
    let mut m = mcp("approx", DEADLINE);
    m.on_established(&conn(0, 0, 0), &mut w);
    assert!(!m.wants_abort(Time::ZERO));
    // At 9 ms, 2 MB left for 1 ms: 16 Gb/s.
    m.on_ack(
        &conn(8_990, 3_000_000, 3_000_000 + MSS),
        ack(MSS, false),
        &mut w,
    );
    m.on_ack(
        &conn(9_000, 3_000_000 + MSS, 3_000_000 + 2 * MSS),
        ack(MSS, false),
        &mut w,
    );
    assert!(m.wants_abort(Time::ZERO));
}

/// Without a deadline there is no expected rate: the flow runs DCTCP.
#[test]
fn flows_without_deadline_run_dctcp() {
    let m = mcp("approx", None);
    assert!(m.fallback().is_some() && m.ect());
    assert_eq!(m.data_header(), Header::None);
}

#[test]
fn keys_are_checked() {
    let bad = |variant: &str, interval: Option<f64>| {
        let cfg = TransportConfig {
            protocol: "mcp".into(),
            mcp_variant: Some(variant.into()),
            mcp_rate_interval_us: interval,
            ..Default::default()
        };
        McpParams::from_config(&cfg).unwrap_err().path
    };
    assert_eq!(bad("exact", None), "transport.mcp_variant");
    assert_eq!(bad("approx", Some(10.0)), "transport.mcp_rate_interval_us");
    assert_eq!(bad("opt", Some(-1.0)), "transport.mcp_rate_interval_us");
    let dctcp = TransportConfig {
        protocol: "dctcp".into(),
        mcp_variant: Some("opt".into()),
        ..Default::default()
    };
    assert_eq!(
        TcpParams::from_config(&dctcp).unwrap_err().path,
        "transport.mcp_variant"
    );
}
