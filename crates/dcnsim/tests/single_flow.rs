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
    assert!(trace.iter().all(|r| r.flow_id == 0));
}

/// Three flows on the two-host star: 0 and 2 from h0 (2 long after 0 ended), 1 the other way.
fn three_flows(name: &str) -> std::path::PathBuf {
    flow_dir(
        name,
        "src,dst,size_bytes,start_s
0,1,14600,0
1,0,14600,0
0,1,14600,0.001
",
    )
}

fn traced_rows(dir: &std::path::Path, ids: &str) -> Vec<dcnsim::metrics::series::TraceRow> {
    let set = format!("output.trace_flow={ids}");
    run_in(&star(1, "tcp"), &[&set], dir)
        .trace
        .expect("trace on")
}

/// Several traced flows share trace.csv, each row naming its flow: every traced flow's rows are
/// the rows it has when traced alone, the untraced flow has none, and the rows stay in time
/// order.
#[test]
fn several_traced_flows_each_keep_their_own_events() {
    let dir = three_flows("trace-two");
    let both = traced_rows(&dir, "[0, 2]");
    for id in [0, 2] {
        let own: Vec<_> = both.iter().filter(|r| r.flow_id == id).copied().collect();
        assert!(!own.is_empty(), "flow {id} has no rows");
        assert_eq!(own, traced_rows(&dir, &format!("[{id}]")), "flow {id}");
    }
    assert!(both.iter().all(|r| r.flow_id != 1));
    assert!(both.windows(2).all(|w| w[0].time_s <= w[1].time_s));
    // A single id is the list of that id.
    assert_eq!(traced_rows(&dir, "2"), traced_rows(&dir, "[2]"));
}

#[test]
fn an_empty_trace_list_traces_nothing() {
    let dir = three_flows("trace-empty");
    let out = run_in(&star(1, "tcp"), &["output.trace_flow=[]"], &dir);
    assert!(out.trace.is_none());
    assert_eq!(out.flows.len(), 3);
}

#[test]
fn duplicate_or_unknown_traced_flows_are_refused_by_name() {
    let dir = three_flows("trace-bad");
    let refusal = |ids: &str| {
        let set = vec![format!("output.trace_flow={ids}")];
        let text = star(1, "tcp");
        match dcnsim::prepare_text(&text, dcnsim::Format::Toml, &set, &dir) {
            Ok(_) => panic!("{ids} accepted"),
            Err(e) => e,
        }
    };
    let twice = refusal("[2, 0, 2]");
    assert_eq!(twice.path, "output.trace_flow");
    assert!(twice.message.contains("flow 2 is listed twice"), "{twice}");
    let unknown = refusal("[0, 7]");
    assert_eq!(unknown.path, "output.trace_flow");
    assert!(
        unknown.message.contains("flow 7 does not exist"),
        "{unknown}"
    );
    assert!(unknown.message.contains("0..=2"), "{unknown}");
    for (ids, path, found) in [
        ("[0, -1]", "output.trace_flow[1]", "integer `-1`"),
        ("\"first\"", "output.trace_flow", "string \"first\""),
        ("[[0]]", "output.trace_flow[0]", "sequence"),
    ] {
        let wrong = refusal(ids);
        assert_eq!(wrong.path, path, "{wrong}");
        assert!(wrong.message.contains(found), "{wrong}");
        assert!(wrong.message.contains("expected a flow id"), "{wrong}");
    }
}
