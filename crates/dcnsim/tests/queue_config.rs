//! The queue of a port — buffer and ECN marking threshold — is configured with the topology,
//! for every port or per link, and is the same physical queue whatever the transport: a
//! threshold is harmless under a transport whose packets are not ECN-capable.

mod common;
use common::{flow_dir, run_in};
use dcnsim::metrics::RunOutput;
use dcnsim::topo::BufferSize;
use dcnsim::Format;
use std::path::PathBuf;

/// Three senders into one receiver through the 10 Gb/s left–right link, 30-packet buffers.
const DUMBBELL: &str = r#"
[topology]
kind = "dumbbell"
senders = 3
receivers = 1
buffer_pkts = 30
ecn_k_pkts = 10
[workload]
kind = "flows"
file = "flows.csv"
"#;

fn flows() -> PathBuf {
    flow_dir(
        "queue-config",
        "src,dst,size_bytes,start_s\n0,3,1000000,0\n1,3,700000,0.0000137\n2,3,400000,0.0000291\n",
    )
}

fn run(protocol: &str, extra: &[&str]) -> RunOutput {
    let set = format!("transport.protocol={protocol}");
    let mut overrides = vec![set.as_str()];
    overrides.extend_from_slice(extra);
    run_in(DUMBBELL, &overrides, &flows())
}

fn error_of(overrides: &[&str]) -> dcnsim::error::ConfigError {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match dcnsim::prepare_text(DUMBBELL, Format::Toml, &o, &flows()) {
        Ok(_) => panic!("{overrides:?} should be refused"),
        Err(e) => e,
    }
}

/// The port of the left switch towards the right switch: the bottleneck.
fn bottleneck(out: &RunOutput) -> &dcnsim::metrics::PortInfo {
    out.ports
        .iter()
        .find(|p| p.node == "left" && p.peer == "right")
        .unwrap()
}

#[test]
fn one_scenario_with_k_runs_under_tcp_dctcp_and_d2tcp() {
    let tcp = run("tcp", &[]);
    assert_eq!(
        tcp.counters.ecn_marked, 0,
        "NewReno's packets are not ECN-capable"
    );
    assert!(
        tcp.counters.dropped_pkts > 0,
        "NewReno fills the 30-packet buffer"
    );
    // K does not change a NewReno run at all.
    let other_k = run("tcp", &["topology.ecn_k_pkts=25"]);
    assert_eq!(tcp.flows, other_k.flows);
    for protocol in ["dctcp", "d2tcp"] {
        let out = run(protocol, &[]);
        assert!(out.counters.ecn_marked > 0, "{protocol} is marked at K");
        assert_eq!(bottleneck(&out).ecn_k_pkts, Some(10));
        assert!(out.flows.iter().all(|f| f.finish.is_some()));
    }
}

#[test]
fn without_k_the_transport_supplies_its_default() {
    // DCTCP's rule at 10 Gb/s: 65 packets, on every port (the buffer must exceed it).
    let out = run(
        "dctcp",
        &["topology.ecn_k_pkts=65", "topology.buffer_pkts=100"],
    );
    let default = dcnsim::prepare_text(
        &DUMBBELL
            .replace("ecn_k_pkts = 10\n", "")
            .replace("buffer_pkts = 30", "buffer_pkts = 100"),
        Format::Toml,
        &["transport.protocol=dctcp".to_string()],
        &flows(),
    )
    .unwrap();
    assert_eq!(default.scenario.topology.ecn_k_pkts, None);
    let by_default = dcnsim::engine::Simulation::new(default)
        .run(&mut |_| true)
        .unwrap();
    assert!(by_default.ports.iter().all(|p| p.ecn_k_pkts == Some(65)));
    assert_eq!(
        out.flows, by_default.flows,
        "K = 65 set or derived: the same run"
    );
    // NewReno has no default: its ports carry no threshold unless the scenario sets one.
    let tcp = dcnsim::prepare_text(
        &DUMBBELL.replace("ecn_k_pkts = 10\n", ""),
        Format::Toml,
        &["transport.protocol=tcp".to_string()],
        &flows(),
    )
    .unwrap();
    let tcp = dcnsim::engine::Simulation::new(tcp)
        .run(&mut |_| true)
        .unwrap();
    assert!(tcp.ports.iter().all(|p| p.ecn_k_pkts.is_none()));
}

#[test]
fn a_link_override_sets_one_links_queue() {
    let o = [
        "topology.link_overrides=[{between = [\"left\", \"right\"], buffer_pkts = 60, ecn_k_pkts = 40}]",
    ];
    let out = run("dctcp", &o);
    let b = bottleneck(&out);
    assert_eq!(
        (b.buffer, b.ecn_k_pkts),
        (BufferSize::Packets(60), Some(40))
    );
    let back = out
        .ports
        .iter()
        .find(|p| p.node == "right" && p.peer == "left")
        .unwrap();
    assert_eq!(
        (back.buffer, back.ecn_k_pkts),
        (BufferSize::Packets(60), Some(40))
    );
    let host = out.ports.iter().find(|p| p.node == "h0").unwrap();
    assert_eq!(
        (host.buffer, host.ecn_k_pkts),
        (BufferSize::Packets(30), Some(10))
    );
    // A byte buffer on one link.
    let bytes = ["topology.link_overrides=[{between = [\"left\", \"right\"], buffer_kb = 150}]"];
    let out = run("dctcp", &bytes);
    assert_eq!(bottleneck(&out).buffer, BufferSize::Bytes(150_000));
}

#[test]
fn a_threshold_that_cannot_mark_names_its_key_and_tcp_does_not_care() {
    let e = error_of(&["transport.protocol=dctcp", "topology.ecn_k_pkts=30"]);
    assert_eq!(e.path, "topology.ecn_k_pkts");
    assert!(
        e.message.contains("left–right") || e.message.contains("h0"),
        "{e}"
    );
    let e = error_of(&[
        "transport.protocol=dctcp",
        "topology.link_overrides=[{between = [\"right\", \"left\"], ecn_k_pkts = 30}]",
    ]);
    assert_eq!(e.path, "topology.link_overrides[0].ecn_k_pkts");
    // The transport's default: 65 at 10 Gb/s does not fit 30 packets.
    let text = DUMBBELL.replace("ecn_k_pkts = 10\n", "");
    let o: Vec<String> = vec!["transport.protocol=dctcp".into()];
    let e = match dcnsim::prepare_text(&text, Format::Toml, &o, &flows()) {
        Err(e) => e,
        Ok(_) => panic!("65 ≥ 30 must be refused"),
    };
    assert_eq!(e.path, "topology.ecn_k_pkts");
    assert!(e.message.contains("default"), "{e}");
    // Under NewReno any threshold is harmless.
    let o: Vec<String> = vec![
        "transport.protocol=tcp".into(),
        "topology.ecn_k_pkts=500".into(),
    ];
    assert!(dcnsim::prepare_text(DUMBBELL, Format::Toml, &o, &flows()).is_ok());
}

#[test]
fn the_old_transport_key_says_where_k_moved() {
    let e = error_of(&["transport.protocol=dctcp", "transport.ecn_k_pkts=10"]);
    assert_eq!(e.path, "transport.ecn_k_pkts");
    assert!(e.message.contains("topology.ecn_k_pkts"), "{e}");
    assert!(e.message.contains("link_overrides"), "{e}");
}
