//! Long flows sharing one bottleneck: DCTCP keeps the queue near K without loss, NewReno fills
//! the buffer and drops; two NewReno flows converge to equal shares.

mod common;
use common::{flow_dir, run_in};
use dcnsim::metrics::series::SeriesKind;
use dcnsim::metrics::summary::jain;
use dcnsim::metrics::RunOutput;

const STOP_S: f64 = 0.05;

fn dumbbell(senders: u32, protocol: &str, csv: &str, name: &str) -> RunOutput {
    dumbbell_with(senders, protocol, csv, name, 250, STOP_S)
}

fn dumbbell_with(
    senders: u32,
    protocol: &str,
    csv: &str,
    name: &str,
    buffer: u32,
    stop_s: f64,
) -> RunOutput {
    let text = format!(
        r#"
stop_s = {stop_s}
[topology]
kind = "dumbbell"
senders = {senders}
receivers = 1
link_gbps = 10
link_delay_us = 5
buffer_pkts = {buffer}
ecn_k_pkts = 65
[transport]
protocol = "{protocol}"
[workload]
kind = "flows"
file = "flows.csv"
[output]
series_interval_us = 100
"#
    );
    run_in(&text, &[], &flow_dir(name, csv))
}

fn long_flows(n: u32, stagger_s: f64) -> String {
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for i in 0..n {
        csv += &format!("{i},{n},10000000000,{}\n", i as f64 * stagger_s);
    }
    csv
}

/// Port id of the left switch's egress towards the right switch.
fn bottleneck_port(out: &RunOutput) -> u32 {
    out.ports
        .iter()
        .find(|p| p.node == "left" && p.peer == "right")
        .expect("bottleneck")
        .port
}

/// Series values of one kind and id from time `from_s` on.
fn series(out: &RunOutput, kind: SeriesKind, id: u32, from_s: f64) -> Vec<f64> {
    let s = out.series.as_ref().expect("series on");
    (0..s.len())
        .filter(|&i| s.kind[i] == kind && s.id[i] == id && s.time_s[i] >= from_s)
        .map(|i| s.value[i])
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn dctcp_eight_to_one_keeps_queue_near_k_without_loss() {
    let out = dumbbell(8, "dctcp", &long_flows(8, 0.0), "dctcp8");
    let k_bytes = 65.0 * 1500.0;
    let port = bottleneck_port(&out);
    let queue = series(&out, SeriesKind::QueueBytes, port, 0.01);
    let q = mean(&queue);
    assert!(
        q > k_bytes / 2.0 && q < 2.0 * k_bytes,
        "mean queue {q} B, K = {k_bytes} B"
    );
    assert_eq!(out.counters.dropped_pkts, 0, "DCTCP dropped packets");
    let goodput: f64 = out
        .flows
        .iter()
        .map(|f| f.bytes_delivered as f64 * 8.0)
        .sum::<f64>()
        / STOP_S;
    // Payload share of a full packet is 1460/1500: line rate in goodput terms is 9.73 Gb/s.
    assert!(
        goodput >= 0.95 * 10e9 * 1460.0 / 1500.0,
        "goodput {goodput}"
    );
    assert!(out.counters.ecn_marked > 0);
}

#[test]
fn newreno_in_the_same_setting_fills_the_buffer_and_drops() {
    let out = dumbbell(8, "tcp", &long_flows(8, 0.0), "tcp8");
    let port = bottleneck_port(&out);
    let peak = series(&out, SeriesKind::QueueBytes, port, 0.0)
        .into_iter()
        .fold(0.0, f64::max);
    assert!(out.counters.dropped_pkts > 0);
    assert!(
        peak >= 240.0 * 1500.0,
        "peak queue {peak} B of a 250-packet buffer"
    );
    assert_eq!(out.counters.ecn_marked, 0);
}

#[test]
fn two_newreno_flows_converge_to_equal_shares() {
    // The second flow starts 5 ms after the first has taken the whole link. A 20-packet buffer
    // keeps AIMD epochs short (about a millisecond), so 0.2 s holds a few hundred of them.
    let stop = 0.2;
    let out = dumbbell_with(2, "tcp", &long_flows(2, 0.005), "fair2", 20, stop);
    let shares: Vec<f64> = (0..2)
        .map(|f| mean(&series(&out, SeriesKind::FlowGoodputBps, f, stop / 2.0)))
        .collect();
    let j = jain(&shares).unwrap();
    assert!(j >= 0.99, "Jain {j} over the last half, shares {shares:?}");
}
