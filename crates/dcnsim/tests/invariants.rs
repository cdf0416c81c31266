//! Properties every run must have: packets are conserved, runs are deterministic, the
//! protocol does not change the flows a seed generates, and no flow stalls.

mod common;
use common::{flow_dir, run_toml};
use dcnsim::metrics::output::flows_csv;

const FATTREE: &str = r#"
seed = 7
[topology]
kind = "fattree"
k = 4
buffer_pkts = 80
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

/// A one-class priority queue is a FIFO served through the dequeue-time (non-eager) port path.
/// Both paths must give identical flows: the event ordering contract makes packet events
/// independent of when they were scheduled. Checked on three contending flows and on a busy,
/// lossy fat-tree.
#[test]
fn queued_ports_and_eager_fifo_ports_agree() {
    use dcnsim::engine::Simulation;
    use dcnsim::net::queue::Discipline;
    let run = |text: &str, overrides: &[&str], base: &std::path::Path, queued: bool| {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        let p = dcnsim::prepare_text(text, dcnsim::Format::Toml, &o, base).unwrap();
        let sim = if queued {
            Simulation::with_discipline(p, Discipline::Priority { classes: 1 })
        } else {
            Simulation::new(p)
        };
        sim.run(&mut |_| true).unwrap()
    };
    let dumbbell = r#"
[topology]
kind = "dumbbell"
senders = 3
receivers = 1
buffer_pkts = 30
ecn_k_pkts = 10
[transport]
protocol = "dctcp"
[workload]
kind = "flows"
file = "flows.csv"
"#;
    let csv =
        "src,dst,size_bytes,start_s\n0,3,1000000,0\n1,3,700000,0.0000137\n2,3,400000,0.0000291\n";
    let dir = flow_dir("paths", csv);
    let (eager, queued) = (
        run(dumbbell, &[], &dir, false),
        run(dumbbell, &[], &dir, true),
    );
    assert!(eager.counters.ecn_marked > 0, "the flows must contend");
    assert_eq!(eager.flows, queued.flows);

    let busy = ["stop_s=0.02"];
    let (eager, queued) = (
        run(FATTREE, &busy, &dir, false),
        run(FATTREE, &busy, &dir, true),
    );
    assert!(eager.counters.dropped_pkts > 0);
    assert!(
        flows_csv(&eager) == flows_csv(&queued),
        "the port paths differ on the fat-tree"
    );
    assert_eq!(eager.counters, queued.counters);
}

/// Runs every transport on every kind of switched topology (and a leaf-spine with a slower
/// link), small buffers (12 packets) at 95 % load, with `workload_extra` added to the
/// workload, and returns, per run, the flows that neither finished nor were terminated by
/// their protocol by the stop (0.5 s, long after the last flow started: these have stalled).
fn stalled_flows(workload_extra: &str) -> Vec<(String, Vec<u32>)> {
    let layouts = [
        vec!["topology.kind=\"fattree\"", "topology.k=4"],
        vec![
            "topology.kind=\"leafspine\"",
            "topology.leaves=4",
            "topology.spines=2",
            "topology.hosts_per_leaf=4",
        ],
        // A slower spine link: MERP's flows through it detected for ever before its links
        // lowered the packet's Q (`protocols/merp`, "Q on a path of several rates").
        vec![
            "topology.kind=\"leafspine\"",
            "topology.leaves=4",
            "topology.spines=2",
            "topology.hosts_per_leaf=4",
            "topology.link_overrides=[{ between = [\"leaf0\", \"spine1\"], gbps = 3.3, delay_us = 5 }]",
        ],
        vec!["topology.kind=\"bcube\"", "topology.n=4", "topology.k=1"],
        vec![
            "topology.kind=\"jellyfish\"",
            "topology.switches=8",
            "topology.ports_per_switch=6",
            "topology.hosts_per_switch=2",
        ],
    ];
    let base = format!(
        r#"
seed = 21
stop_s = 0.5
[topology]
buffer_pkts = 12
ecn_k_pkts = 6
[workload]
kind = "poisson"
sizes = "websearch"
load = 0.95
flows = 120
{workload_extra}
"#
    );
    let protocols = [
        "tcp", "dctcp", "d2tcp", "mcp", "pfabric", "pdq", "mpdq", "rcp", "d3", "merp", "pace",
    ];
    let mut runs = Vec::new();
    for protocol in protocols {
        for layout in &layouts {
            let transport = format!("transport.protocol=\"{protocol}\"");
            let mut sets: Vec<&str> = layout.clone();
            sets.push(&transport);
            let out = run_toml(&base, &sets);
            assert!(
                out.counters.dropped_pkts > 0,
                "{protocol}: the run must be lossy"
            );
            let stalled = out
                .flows
                .iter()
                .filter(|f| f.finish.is_none() && f.terminated.is_none())
                .map(|f| f.flow_id)
                .collect();
            runs.push((format!("{protocol} on {}", layout[0]), stalled));
        }
    }
    runs
}

/// No flow stalls, whatever the transport and the topology: without deadlines every flow
/// finishes. (D3's flows stalled here when its routers kept the allocations that lost replies
/// carried; PDQ's and MERP's do when a path choice moves their flows: `protocols/d3`,
/// `LbParams::check_transport`.)
#[test]
fn every_flow_ends_on_every_transport_and_topology() {
    for (run, stalled) in stalled_flows("") {
        assert!(
            stalled.is_empty(),
            "{run}: flows {stalled:?} never finished"
        );
    }
}

/// With deadlines, a flow finishes or its protocol gives up on it (D3, PDQ and MCP terminate
/// the flows that cannot meet theirs): none is left running.
#[test]
fn every_deadline_flow_finishes_or_is_terminated() {
    let deadlines = "deadline = { dist = \"uniform\", min_ms = 1, max_ms = 20 }";
    for (run, stalled) in stalled_flows(deadlines) {
        assert!(
            stalled.is_empty(),
            "{run}: flows {stalled:?} neither ended nor were terminated"
        );
    }
}
