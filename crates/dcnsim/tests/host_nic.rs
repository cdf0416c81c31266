//! Hosts that push back on their own transports (`topology.host_nic`, issue 32): a full NIC
//! queue holds a host's packets instead of dropping them; `"droptail"` keeps the drops.

mod common;
use common::{flow_dir, run_in};
use dcnsim::metrics::RunOutput;
use dcnsim::units::Time;

/// A k = 4 fat-tree at 10 Gb/s with 1 µs links and 100-packet buffers.
const FATTREE: &str = r#"
[topology]
kind = "fattree"
k = 4
link_gbps = 10
link_delay_us = 1
buffer_pkts = 100
[transport]
protocol = "dctcp"
[workload]
kind = "flows"
file = "flows.csv"
"#;

/// Four hosts on one 10 Gb/s switch, 1 µs links, 100-packet buffers.
const STAR: &str = r#"
[topology]
kind = "star"
hosts = 4
link_gbps = 10
link_delay_us = 1
buffer_pkts = 100
[transport]
protocol = "tcp"
[workload]
kind = "flows"
file = "flows.csv"
"#;

fn host_nic(mode: &str) -> String {
    format!("topology.host_nic=\"{mode}\"")
}

/// Drops at host NIC ports (ids 0..hosts-1 of `ports`: the generated kinds list hosts first
/// and each host's link is its first) must be what the counters call host NIC drops.
fn host_port_drops(out: &RunOutput) -> u64 {
    out.ports
        .iter()
        .filter(|p| p.node.starts_with('h'))
        .map(|p| p.drops)
        .sum()
}

/// A lone 1 MB flow from h0 to h15 (across the core: 6 hops) on the idle fat-tree. Its
/// slow start outruns the NIC: with drop-tail the NIC drops dozens of packets and the flow
/// recovers by retransmission; when the host pushes back, it loses nothing and its FCT is
/// exact:
///
/// * handshake: SYN and SYN-ACK (40 B, 32 ns per hop) cross 6 hops each way:
///   2 · 6 · (0.032 + 1) µs = 12.384 µs;
/// * the initial window (10 packets of 1500 B, 1.2 µs each) leaves in 12 µs, and the NIC then
///   idles until the first ACK is back: 6 · (1.2 + 1) µs for the data, 6 · 1.032 µs for its
///   ACK, 19.392 µs after the first packet left, so 7.392 µs of idle;
/// * from then on every ACK lets two packets out (slow start) and the NIC never idles again,
///   so the rest takes the flow's ideal FCT (its packets back to back, pipelined over 6 hops).
#[test]
fn a_lone_flow_loses_nothing_and_finishes_one_ramp_after_its_handshake() {
    let dir = flow_dir(
        "host-nic-lone",
        "src,dst,size_bytes,start_s\n0,15,1000000,0\n",
    );
    for protocol in ["dctcp", "tcp"] {
        let p = format!("transport.protocol=\"{protocol}\"");
        let held = run_in(FATTREE, &[&p], &dir);
        let f = &held.flows[0];
        assert_eq!(
            (held.counters.dropped_pkts, f.retransmits),
            (0, 0),
            "{protocol}"
        );
        let ramp = Time::from_ps(12_384_000 + 7_392_000);
        assert_eq!(f.fct(), Some(ramp + f.ideal_fct), "{protocol}");
        assert!(
            held.counters.host_held_pkts > 0,
            "the NIC must have pushed back"
        );
        assert!(f.host_wait > Time::ZERO && f.host_delay_mean().unwrap() > 0.0);

        let dropped = run_in(FATTREE, &[&p, &host_nic("droptail")], &dir);
        let c = dropped.counters;
        assert!(c.dropped_host_nic_pkts > 20, "{protocol}: {c:?}");
        assert_eq!(
            c.dropped_host_nic_pkts, c.dropped_pkts,
            "only the NIC drops"
        );
        assert_eq!(host_port_drops(&dropped), c.dropped_host_nic_pkts);
        assert_eq!(
            (c.host_held_pkts, dropped.flows[0].host_wait),
            (0, Time::ZERO)
        );
        assert!(dropped.flows[0].fct().unwrap() > f.fct().unwrap() + Time::from_us(100));
    }
}

/// Two 1 MB flows of h0 (to h1 and h2, the second 1 µs later) with a 300-packet initial
/// window: both windows overflow the NIC at once. The first flow's first 100 packets fill the
/// NIC queue before the second flow has any; after that the two take turns, so
/// the second flow ends that head start (100 packets, 120 µs) plus a few RTTs after the first,
/// and each takes about twice its ideal FCT. Serving the held packets first come, first
/// served would give the first flow its whole window (300 packets) ahead.
#[test]
fn flows_of_one_host_take_turns_at_its_nic() {
    let csv = "src,dst,size_bytes,start_s\n0,1,1000000,0\n0,2,1000000,0.000001\n";
    let dir = flow_dir("host-nic-turns", csv);
    let out = run_in(STAR, &["transport.init_cwnd_pkts=300"], &dir);
    assert_eq!(out.counters.dropped_pkts, 0);
    let fct: Vec<f64> = out
        .flows
        .iter()
        .map(|f| f.fct().unwrap().as_secs_f64())
        .collect();
    let ideal = out.flows[0].ideal_fct.as_secs_f64();
    let head_start = 100.0 * 1.2e-6;
    assert!((fct[1] - fct[0] - head_start).abs() < 10e-6, "FCTs {fct:?}");
    for f in &fct {
        assert!(
            *f > 1.8 * ideal && *f < 2.1 * ideal,
            "FCTs {fct:?}, ideal {ideal}"
        );
    }
}

/// A host link that fails loses what its host held for it, as it loses its queue: the drops
/// are counted at the host's NIC, packets are conserved, and both flows still finish.
#[test]
fn a_failed_host_link_loses_the_held_packets_and_the_flows_recover() {
    let csv = "src,dst,size_bytes,start_s\n0,1,1000000,0\n0,2,1000000,0.000001\n";
    let dir = flow_dir("host-nic-failure", csv);
    let failure = r#"
[[failures]]
link = ["h0", "sw"]
down_s = 0.0002
up_s = 0.0004
"#;
    let text = format!("{STAR}{failure}");
    let out = run_in(&text, &["transport.init_cwnd_pkts=300"], &dir);
    let c = out.counters;
    assert!(c.dropped_host_nic_pkts > 100, "{c:?}");
    assert_eq!(
        c.sent_pkts,
        c.delivered_pkts + c.dropped_pkts + out.in_flight_pkts
    );
    assert!(out.flows.iter().all(|f| f.finish.is_some()));
}

/// Packets still held when the run stops are in flight (sent = delivered + dropped + in
/// flight) and their wait counts up to the stop. With two flows whose windows overflow the
/// NIC, each has one packet held at any time (the host asks it for no more until then).
#[test]
fn held_packets_at_the_stop_are_in_flight() {
    let csv = "src,dst,size_bytes,start_s\n0,1,1000000,0\n0,2,1000000,0.000001\n";
    let dir = flow_dir("host-nic-stop", csv);
    let out = run_in(
        STAR,
        &["transport.init_cwnd_pkts=300", "stop_s=0.0001"],
        &dir,
    );
    let c = out.counters;
    assert_eq!(
        c.sent_pkts,
        c.delivered_pkts + c.dropped_pkts + out.in_flight_pkts
    );
    assert_eq!(
        c.sent_bytes,
        c.delivered_bytes + c.dropped_bytes + out.in_flight_bytes
    );
    // 100 in the NIC queue, one held per flow, and the rest on the wire or beyond.
    assert!(out.in_flight_pkts > 102, "{}", out.in_flight_pkts);
    assert!(c.host_held_pkts > 50, "{c:?}");
    assert!(c.host_wait_max > Time::ZERO && c.host_wait_max < Time::from_us(100));
    let data_wait = Time::from_ps(out.flows.iter().map(|f| f.host_wait.ps()).sum());
    assert!(data_wait <= c.host_wait_total && data_wait > Time::ZERO);
}
