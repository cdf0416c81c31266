//! Properties every run must have: packets are conserved, runs are deterministic, the
//! protocol does not change the flows a seed generates, and no flow stalls.
//!
//! The transports, path choices and topology kinds come from the crate's catalogues
//! (`protocols::PROTOCOLS`, `lb::PATH_CHOICES`, `topo::TOPOLOGIES`), so an entry is tested by
//! being registered; a new topology kind needs a small layout in [`small_layout`]. The
//! combinations set-up refuses are asked of `prepare` and must be refused by key.
//!
//! Scenarios are small so that the suite stays fast. The two tests that still take tens of
//! seconds (every transport on every topology kind, lossy, with and without deadlines) are
//! named `slow_…`; they run in CI like the others (`cargo nextest run -E 'not test(/^slow_/)'`
//! leaves them out of a quick local run).

mod common;
use common::{flow_dir, run_toml, try_prepare};
use dcnsim::metrics::output::flows_csv;
use dcnsim::metrics::RunOutput;
use std::path::Path;

/// The transports of the catalogue.
fn protocols() -> impl Iterator<Item = &'static str> {
    dcnsim::protocols::PROTOCOLS.iter().map(|p| p.0)
}

/// A small layout of topology kind `kind`, as overrides. A kind added to `topo::TOPOLOGIES`
/// fails here until it has one.
fn small_layout(kind: &str) -> Vec<String> {
    let example_file = concat!(env!("CARGO_MANIFEST_DIR"), "/src/topo/example.topo");
    let keys: Vec<String> = match kind {
        "star" => vec!["hosts=6".into()],
        "dumbbell" => vec!["senders=3".into()],
        "tree" => vec![],
        "fattree" => vec!["k=4".into()],
        "leafspine" => vec![
            "leaves=4".into(),
            "spines=2".into(),
            "hosts_per_leaf=4".into(),
        ],
        "parkinglot" => [
            "forwarders=3",
            "hosts_per_group=3",
            "receivers=3",
            "cross_receivers=2",
        ]
        .map(String::from)
        .to_vec(),
        "bcube" => vec!["n=4".into(), "k=1".into()],
        "jellyfish" => ["switches=8", "ports_per_switch=6", "hosts_per_switch=2"]
            .map(String::from)
            .to_vec(),
        "file" => vec![format!("file=\"{example_file}\"")],
        other => panic!("topology kind '{other}' has no small layout in tests/invariants.rs"),
    };
    std::iter::once(format!("topology.kind=\"{kind}\""))
        .chain(keys.into_iter().map(|k| format!("topology.{k}")))
        .collect()
}

/// Every topology kind of the catalogue with its small layout.
fn layouts() -> impl Iterator<Item = (&'static str, Vec<String>)> {
    dcnsim::topo::TOPOLOGIES
        .iter()
        .map(|&(kind, _)| (kind, small_layout(kind)))
}

/// The flows of `out` that neither finished nor were terminated by their protocol.
fn stalled(out: &RunOutput) -> Vec<u32> {
    out.flows
        .iter()
        .filter(|f| f.finish.is_none() && f.terminated.is_none())
        .map(|f| f.flow_id)
        .collect()
}

/// Asserts that the packets `out` sent were delivered, dropped or still in flight, and that no
/// more bytes arrived, were dropped or are in flight than were sent (a protected header that
/// loses its payload at a full queue, as D3's and PDQ's may, carries fewer bytes on).
fn assert_conserved(out: &RunOutput, run: &str) {
    let c = &out.counters;
    assert_eq!(
        c.sent_pkts,
        c.delivered_pkts + c.dropped_pkts + out.in_flight_pkts,
        "packets of {run}: {c:?}, in flight {}",
        out.in_flight_pkts
    );
    assert!(
        c.sent_bytes >= c.delivered_bytes + c.dropped_bytes + out.in_flight_bytes,
        "bytes of {run}: {c:?}, in flight {}",
        out.in_flight_bytes
    );
}

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

/// Runs every transport on every topology kind (and a leaf-spine with a slower link), small
/// buffers (12 packets) at 95 % load, with `workload_extra` added to the workload, and returns,
/// per run, the flows that neither finished nor were terminated by their protocol by the stop
/// (0.5 s, long after the last flow started: these have stalled).
fn stalled_flows(workload_extra: &str) -> Vec<(String, Vec<u32>)> {
    let mut layouts: Vec<(&str, Vec<String>)> = layouts().collect();
    // A slower spine link: MERP's flows through it detected for ever before its links
    // lowered the packet's Q (`protocols/merp`, "Q on a path of several rates").
    let mut slow_spine = small_layout("leafspine");
    slow_spine.push(
        "topology.link_overrides=[{ between = [\"leaf0\", \"spine1\"], gbps = 3.3, delay_us = 5 }]"
            .into(),
    );
    layouts.push(("leafspine with a slow link", slow_spine));
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
{workload_extra}
"#
    );
    let mut runs = Vec::new();
    for protocol in protocols() {
        for (kind, layout) in &layouts {
            // 120 flows on the fabrics of several paths between racks, where the stalls above
            // showed; 60 on the others, to keep the test short.
            let several_paths = ["fattree", "leafspine", "bcube", "jellyfish"]
                .iter()
                .any(|k| kind.starts_with(k));
            let flows = format!("workload.flows={}", if several_paths { 120 } else { 60 });
            let transport = format!("transport.protocol=\"{protocol}\"");
            let mut sets: Vec<&str> = layout.iter().map(String::as_str).collect();
            sets.extend([transport.as_str(), flows.as_str()]);
            let out = run_toml(&base, &sets);
            assert!(
                out.counters.dropped_pkts > 0,
                "{protocol} on {kind}: the run must be lossy"
            );
            runs.push((format!("{protocol} on {kind}"), stalled(&out)));
        }
    }
    runs
}

/// No flow stalls, whatever the transport and the topology: without deadlines every flow
/// finishes. (D3's flows stalled here when its routers kept the allocations that lost replies
/// carried; PDQ's and MERP's do when a path choice moves their flows: `protocols/d3`,
/// `LbParams::check_transport`.)
#[test]
fn slow_every_flow_ends_on_every_transport_and_topology() {
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
fn slow_every_deadline_flow_finishes_or_is_terminated() {
    let deadlines = "deadline = { dist = \"uniform\", min_ms = 1, max_ms = 20 }";
    for (run, stalled) in stalled_flows(deadlines) {
        assert!(
            stalled.is_empty(),
            "{run}: flows {stalled:?} neither ended nor were terminated"
        );
    }
}

/// Every path choice with every transport on every topology kind, small and lossy. Set-up
/// refuses a path choice that does not fit the topology or the transport by naming
/// `routing.lb` and the choice; every run it accepts conserves bytes and ends all its flows,
/// and the first of each path choice gives the same flows when run again.
#[test]
fn every_path_choice_runs_or_is_refused_by_name() {
    let base = r#"
seed = 5
stop_s = 0.5
[topology]
buffer_pkts = 12
ecn_k_pkts = 6
[workload]
kind = "poisson"
sizes = "webserver"
load = 0.9
flows = 40
"#;
    let (mut ran, mut refused) = (Vec::new(), 0);
    for (kind, layout) in layouts() {
        for protocol in protocols() {
            for &(lb, _) in dcnsim::lb::PATH_CHOICES {
                let run = format!("{protocol} with lb {lb} on {kind}");
                let mut sets: Vec<String> = layout.clone();
                sets.push(format!("transport.protocol=\"{protocol}\""));
                sets.push(format!("routing.lb=\"{lb}\""));
                let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
                let prepared = match try_prepare(base, &sets, Path::new(".")) {
                    Ok(p) => p,
                    Err(err) => {
                        assert_eq!(err.path, "routing.lb", "{run}: {err}");
                        assert!(err.message.contains(lb), "{run}: {err}");
                        refused += 1;
                        continue;
                    }
                };
                let out = dcnsim::run_prepared(prepared, &mut |_| true).expect("run completes");
                assert_conserved(&out, &run);
                let stalled = stalled(&out);
                assert!(
                    stalled.is_empty(),
                    "{run}: flows {stalled:?} never finished"
                );
                // The first run of each path choice again: its draws come from the seed.
                if !ran.iter().any(|r: &(&str, &str)| r.0 == lb) {
                    let again = try_prepare(base, &sets, Path::new(".")).unwrap();
                    let again = dcnsim::run_prepared(again, &mut |_| true).unwrap();
                    assert!(
                        flows_csv(&out) == flows_csv(&again),
                        "{run} is not deterministic"
                    );
                }
                ran.push((lb, protocol));
            }
        }
    }
    // Each entry of the catalogues ran somewhere, and set-up refused some combinations.
    for &(lb, _) in dcnsim::lb::PATH_CHOICES {
        assert!(ran.iter().any(|r| r.0 == lb), "lb {lb} never ran");
    }
    for protocol in protocols() {
        assert!(ran.iter().any(|r| r.1 == protocol), "{protocol} never ran");
    }
    assert!(refused > 0);
}
