//! The flow-level model over several paths: `routing.lb = "bcube_paths"` and M-PDQ's subflows
//! under `engine = "flow"`, against hand-derived completion times and byte counts, and
//! M-PDQ's gain over PDQ on a lightly loaded BCube (PDQ paper §6, Fig. 11a).

mod common;
use common::flow_dir;
use dcnsim::metrics::RunOutput;
use dcnsim::units::Time;
use dcnsim::Format;
use std::collections::BTreeSet;
use std::path::Path;

fn bcube(protocol: &str, seed: u64, transport_extra: &str, workload: &str) -> String {
    format!(
        r#"
seed = {seed}
engine = "flow"
[topology]
kind = "bcube"
n = 2
k = 3
link_gbps = 10
link_delay_us = 1
[transport]
protocol = "{protocol}"
{transport_extra}
[routing]
lb = "bcube_paths"
[workload]
{workload}
"#
    )
}

fn run(text: &str, base: &Path) -> RunOutput {
    let p = dcnsim::prepare_text(text, Format::Toml, &[], base).expect("scenario is valid");
    dcnsim::run_prepared(p, &mut |_| true).expect("run completes")
}

const FROM_FILE: &str = "kind = \"flows\"\nfile = \"flows.csv\"";

/// One M-PDQ flow of 1000 segments, h0 → h1 (one address digit apart) on an idle BCube(2,3),
/// 4 subflows hashed onto BCube's 4 parallel paths. The paths are link-disjoint, so the m
/// distinct ones each carry the flow at line rate C (a subflow that shares a path with another
/// gets nothing there): the transfer takes W/(mC), W the wire bits (1000 × (1460 + 40 + 16)
/// bytes). The rest of the FCT is the pipeline of the slowest path used: the direct one (level
/// 0, two links) has o = ideal FCT − W/C; each of the three others detours through a
/// neighbour and back, four links more, each adding its 1 µs and one packet's
/// store-and-forward (1516 B at 10 Gb/s = 1.2128 µs). Exact to the picosecond; PDQ (one path)
/// takes W/C plus its path's pipeline. Every used port of h0 carries W/m; h0 sends W in all.
#[test]
fn mpdq_lone_flow_runs_on_every_distinct_path_at_line_rate() {
    let dir = flow_dir("fsm-lone", "src,dst,size_bytes,start_s\n0,1,1460000,0\n");
    let wire: u64 = 1000 * (1460 + 40 + 16);
    let bits = wire as f64 * 8.0;
    let at = |rate: f64| Time((bits * 1e12 / rate).ceil() as u64);
    let detour = Time::from_ps(4 * (1_000_000 + 1_212_800));
    let mut seen = BTreeSet::new();
    for seed in 1..=24 {
        let single = run(&bcube("pdq", seed, "", FROM_FILE), &dir);
        let f = &single.flows[0];
        let used = used_by_h0(&single);
        assert_eq!(used.len(), 1);
        let extra = if used[0] == "sw0_0" {
            Time::ZERO
        } else {
            detour
        };
        assert_eq!(f.fct(), Some(f.ideal_fct + extra), "seed {seed}: PDQ alone");
        let multi = run(&bcube("mpdq", seed, "subflows = 4", FROM_FILE), &dir);
        let f = &multi.flows[0];
        assert_eq!(f.bytes_delivered, 1_460_000);
        let used: Vec<_> = multi
            .ports
            .iter()
            .filter(|p| p.node == "h0" && p.tx_bytes > 0)
            .collect();
        let m = used.len() as u64;
        assert!((1..=4).contains(&m));
        let sent: u64 = used.iter().map(|p| p.tx_bytes).sum();
        assert!(sent.abs_diff(wire) <= m, "seed {seed}: h0 sent {sent}");
        for p in &used {
            assert!(
                p.tx_bytes.abs_diff(wire / m) <= 1,
                "seed {seed}: {}",
                p.peer
            );
        }
        let direct_only = used.iter().all(|p| p.peer == "sw0_0");
        let overhead = f.ideal_fct - at(10e9) + if direct_only { Time::ZERO } else { detour };
        assert_eq!(
            f.fct(),
            Some(at(m as f64 * 10e9) + overhead),
            "seed {seed}, {m} paths"
        );
        seen.insert(m);
    }
    assert!(seen.contains(&4) && seen.len() >= 3, "paths used: {seen:?}");
}

/// The switches h0 sent to (its ports' peers with bytes carried).
fn used_by_h0(out: &RunOutput) -> Vec<String> {
    out.ports
        .iter()
        .filter(|p| p.node == "h0" && p.tx_bytes > 0)
        .map(|p| p.peer.clone())
        .collect()
}

/// Mean FCT of a run.
fn mean_fct_s(out: &RunOutput) -> f64 {
    let f: Vec<f64> = out
        .flows
        .iter()
        .map(|f| f.fct().expect("finished").as_secs_f64())
        .collect();
    f.iter().sum::<f64>() / f.len() as f64
}

/// Fig. 11a at light load: random permutation traffic of 200 KB flows on BCube(2,3), where a
/// server has 4 ports but single-path PDQ uses one. With 3 subflows M-PDQ spreads each flow
/// over up to 3 paths: "Under light loads, M-PDQ can reduce flow completion time by a factor of
/// two." The fluid model has no handshake or probing to pay per subflow, so its gain is an
/// upper bound of the packet level's (0.86 on seed 1's permutation). Measured, M-PDQ's mean
/// FCT over PDQ's on 6 permutations: 0.57–0.77, 0.64 on average. Asserted: below 0.85 on
/// each, below 0.75 on average, and never below 1/3 (the most 3 paths can give).
#[test]
fn mpdq_beats_pdq_on_a_lightly_loaded_bcube() {
    let dir = flow_dir("fsm-perm", "");
    let workload = "kind = \"permutation\"\nsizes = { dist = \"fixed\", kb = 200 }";
    let mut sum = 0.0;
    for seed in 1..=6 {
        let pdq = mean_fct_s(&run(&bcube("pdq", seed, "", workload), &dir));
        let mpdq = mean_fct_s(&run(&bcube("mpdq", seed, "subflows = 3", workload), &dir));
        let ratio = mpdq / pdq;
        assert!(
            ratio < 0.85 && ratio > 1.0 / 3.0,
            "seed {seed}: M-PDQ/PDQ {ratio:.3}"
        );
        sum += ratio;
    }
    assert!(sum / 6.0 < 0.75, "mean M-PDQ/PDQ {:.3}", sum / 6.0);
}

/// Path choices that move a flow between paths have no fluid counterpart and are refused by
/// key; `bcube_paths` is refused off BCube as under the packet engine.
#[test]
fn per_packet_path_choices_are_refused_under_the_flow_engine() {
    let dir = flow_dir("fsm-refuse", "src,dst,size_bytes,start_s\n0,1,1000,0\n");
    for lb in ["rps", "letflow", "presto"] {
        let err = dcnsim::prepare_text(
            &bcube("pdq", 1, "", FROM_FILE),
            Format::Toml,
            &[format!("routing.lb=\"{lb}\"")],
            &dir,
        )
        .err()
        .unwrap_or_else(|| panic!("{lb} accepted"));
        assert_eq!(err.path, "routing.lb", "{err}");
        assert!(err.message.contains("bcube_paths"), "{err}");
    }
    let fat_tree = bcube("pdq", 1, "", FROM_FILE).replace(
        "kind = \"bcube\"\nn = 2\nk = 3",
        "kind = \"fattree\"\nk = 4",
    );
    let err = dcnsim::prepare_text(&fat_tree, Format::Toml, &[], &dir)
        .err()
        .expect("bcube_paths on a fat-tree refused");
    assert_eq!(err.path, "routing.lb", "{err}");
}
