//! A flow alone on the network: its FCT against the value computed by hand.

mod common;
use common::{flow_dir, run_in};
use dcnsim::units::Time;

fn star(delay_us: u32, protocol: &str) -> String {
    format!(
        r#"
[topology]
kind = "star"
hosts = 2
link_gbps = 10
link_delay_us = {delay_us}
[transport]
protocol = "{protocol}"
[workload]
kind = "flows"
file = "flows.csv"
"#
    )
}

/// 10 full segments fit the initial window: SYN and SYN-ACK cross two hops each, then the data
/// leaves back to back and crosses the two hops store-and-forward.
#[test]
fn fct_within_initial_window_is_exact_to_the_picosecond() {
    for protocol in ["tcp", "dctcp", "d2tcp"] {
        let dir = flow_dir(
            &format!("exact-{protocol}"),
            "src,dst,size_bytes,start_s\n0,1,14600,0\n",
        );
        let out = run_in(&star(1, protocol), &[], &dir);
        let hop = |bytes: u64| Time::from_ps(bytes * 8 * 100) + Time::from_us(1); // 10 Gb/s = 100 ps/bit
        let handshake = (hop(40) + hop(40)) * 2;
        // First packet through both hops, the other nine behind it on the last hop.
        let data = hop(1500) * 2 + Time::from_ps(1500 * 8 * 100) * 9;
        let f = &out.flows[0];
        assert_eq!(f.fct(), Some(handshake + data), "{protocol}");
        assert_eq!(f.ideal_fct, data);
        assert_eq!((f.retransmits, f.timeouts), (0, 0));
    }
}

/// 150 segments over a long path: slow start with one ACK per segment doubles the flight every
/// round trip (10, 20, 40, 80); every round leaves at line rate, and rounds do not overlap.
#[test]
fn slow_start_fct_matches_the_round_model() {
    let dir = flow_dir("slowstart", "src,dst,size_bytes,start_s\n0,1,219000,0\n");
    let out = run_in(&star(50, "tcp"), &[], &dir);
    let ser = |bytes: f64| bytes * 8.0 / 10e9;
    let one_way = |bytes: f64| 2.0 * (ser(bytes) + 50e-6);
    let handshake = 2.0 * one_way(40.0);
    let round_trip = one_way(1500.0) + one_way(40.0);
    let expected = handshake + 3.0 * round_trip + 79.0 * ser(1500.0) + one_way(1500.0);
    let fct = out.flows[0].fct().unwrap().as_secs_f64();
    let err = (fct - expected).abs() / expected;
    assert!(
        err < 0.01,
        "fct {fct} vs model {expected} ({:.3} %)",
        err * 100.0
    );
}

/// `output.trace_flow` records the sender packet by packet: SYN out, SYN-ACK in, the initial
/// window of ten segments out, then ACKs in, the window growing by one segment per ACK. The run
/// stops the moment the receiver holds the last byte, so the ACKs of the last two segments are
/// still on the wire: an ACK needs 2 × (32 ns + 1 µs) to come back, while the segments reach
/// the receiver 1.2 µs apart.
#[test]
fn trace_flow_records_the_senders_packets() {
    let dir = flow_dir("trace", "src,dst,size_bytes,start_s\n0,1,14600,0\n");
    let out = run_in(&star(1, "tcp"), &["output.trace_flow=0"], &dir);
    use dcnsim::metrics::series::TraceEvent::{Receive, Send};
    let trace = out.trace.expect("trace on");
    let events: Vec<_> = trace.iter().map(|r| (r.event, r.payload)).collect();
    let mut expected = vec![(Send, 0), (Receive, 0)];
    expected.extend(std::iter::repeat_n((Send, 1460), 10));
    expected.extend(std::iter::repeat_n((Receive, 0), 8));
    assert_eq!(events, expected);
    assert_eq!(trace[2].cwnd_bytes, 14_600);
    assert_eq!(trace.last().unwrap().cwnd_bytes, 14_600 + 8 * 1460);
    assert_eq!(trace.last().unwrap().ack, 8 * 1460);
}
