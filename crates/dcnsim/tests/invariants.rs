//! Properties every run must have: packets are conserved, runs are deterministic, and the
//! protocol does not change the flows a seed generates.

mod common;
use common::run_toml;
use dcnsim::metrics::output::flows_csv;

const FATTREE: &str = r#"
seed = 7
[topology]
kind = "fattree"
k = 4
buffer_pkts = 50
[transport]
protocol = "tcp"
[workload]
kind = "poisson"
sizes = "websearch"
load = 0.7
flows = 300
"#;

#[test]
fn bytes_are_conserved_at_every_stop() {
    for stop in ["0.001", "0.004", "0.0137", "0.03"] {
        for protocol in ["tcp", "dctcp"] {
            let out = run_toml(
                FATTREE,
                &[
                    &format!("stop_s={stop}"),
                    &format!("transport.protocol={protocol}"),
                ],
            );
            let c = out.counters;
            assert_eq!(
                c.sent_bytes,
                c.delivered_bytes + c.dropped_bytes + out.in_flight_bytes,
                "bytes at stop {stop} with {protocol}: {c:?}, in flight {}",
                out.in_flight_bytes
            );
            assert_eq!(
                c.sent_pkts,
                c.delivered_pkts + c.dropped_pkts + out.in_flight_pkts
            );
            if protocol == "tcp" && stop == "0.03" {
                assert!(c.dropped_pkts > 0, "the check should cover drops too");
            }
        }
    }
}

#[test]
fn same_seed_gives_byte_identical_flows() {
    let a = flows_csv(&run_toml(FATTREE, &["stop_s=0.01"]));
    let b = flows_csv(&run_toml(FATTREE, &["stop_s=0.01"]));
    assert_eq!(a, b);
    let c = flows_csv(&run_toml(FATTREE, &["stop_s=0.01", "seed=8"]));
    assert_ne!(a, c, "another seed should give other flows");
}

#[test]
fn another_protocol_sees_the_same_flows() {
    let key = |p: &str| -> Vec<(u32, u32, u64, u64)> {
        run_toml(
            FATTREE,
            &["stop_s=0.005", &format!("transport.protocol={p}")],
        )
        .flows
        .iter()
        .map(|f| (f.src, f.dst, f.size_bytes, f.start.ps()))
        .collect()
    };
    assert_eq!(key("tcp"), key("dctcp"));
}

#[test]
fn unfinished_flows_stay_in_the_table() {
    let out = run_toml(FATTREE, &["stop_s=0.002"]);
    assert_eq!(out.flows.len(), 300);
    assert!(out.flows.iter().any(|f| f.finish.is_none()));
    assert!(out
        .flows
        .iter()
        .filter(|f| f.finish.is_some())
        .all(|f| f.fct().unwrap() >= f.ideal_fct));
}
