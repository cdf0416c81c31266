//! MCP end to end on one 10 Gb/s switch with 10 µs links (RTT ≈ 45 µs) and DCTCP's marking
//! threshold of 64 packets (the seed's evaluation): a deadline flow runs at the rate its
//! deadline needs, two flows whose deadlines need unequal rates both make them where DCTCP and
//! D2TCP's fair shares do not, and a flow that can no longer make it is aborted. Also the
//! workload's `abort_at_deadline`, for every protocol.

mod common;
use common::{flow_dir, run_in};
use dcnsim::metrics::{FlowRecord, RunOutput};

fn run(protocol: &str, csv: &str, tag: &str, extra: &[&str]) -> RunOutput {
    let text = format!(
        r#"
[topology]
kind = "star"
hosts = 3
link_gbps = 10
link_delay_us = 10
buffer_pkts = 200
ecn_k_pkts = 64
[transport]
protocol = "{protocol}"
[workload]
kind = "flows"
file = "flows.csv"
"#
    );
    run_in(
        &text,
        extra,
        &flow_dir(&format!("mcp-{tag}-{protocol}"), csv),
    )
}

fn by_src(out: &RunOutput, src: u32) -> &FlowRecord {
    out.flows.iter().find(|f| f.src == src).unwrap()
}

/// 5 MB due in 10 ms needs 4 Gb/s of the 10: MCP paces it to end near its deadline rather
/// than at line rate (DCTCP takes 0.41 of it). It aims one RTT before the deadline and sends
/// its window rounded up to whole segments, so it ends a little early: between 0.75 and 1.0
/// of the deadline, under both variants.
#[test]
fn a_lone_deadline_flow_runs_at_the_rate_it_needs() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,2,5000000,0,0.010\n";
    for variant in ["approx", "opt"] {
        let set = format!("transport.mcp_variant=\"{variant}\"");
        let out = run("mcp", csv, &format!("lone-{variant}"), &[&set]);
        let share = by_src(&out, 0).fct().expect("finished").as_secs_f64() / 0.010;
        assert!(
            share > 0.75 && share <= 1.0,
            "{variant}: {share} of the deadline"
        );
    }
    let dctcp = run("dctcp", csv, "lone", &[]);
    assert!(by_src(&dctcp, 0).fct().unwrap().as_secs_f64() < 0.005);
}

/// The base RTT of the k = 8 fat-tree's longest path (10, 10, 40, 40, 10, 10 Gb/s, 1 µs links):
/// a 1500-byte packet out, a 40-byte ACK back. The deadline of `dcnsim reproduce mcp`:
/// D = 2·RTT + 8·S / (10 Gb/s / 3).
fn experiment_deadline(size: u64) -> f64 {
    let ser = |bytes: f64| {
        [10e9, 10e9, 40e9, 40e9, 10e9, 10e9]
            .iter()
            .map(|r| bytes * 8.0 / r)
            .sum::<f64>()
    };
    let rtt = ser(1500.0) + ser(40.0) + 12e-6;
    2.0 * rtt + size as f64 * 8.0 / (10e9 / 3.0)
}

const FAT_TREE: &str = r#"
[topology]
kind = "fattree"
k = 8
link_gbps = 10
agg_gbps = 10
core_gbps = 40
buffer_pkts = 250
ecn_k_pkts = 64
[transport]
protocol = "mcp"
[workload]
kind = "flows"
file = "flows.csv"
"#;

/// Queries of 2, 6, 10 and 20 KB from h0 to the same rack (h1), the same pod (h5) and across
/// the core (h20), one at a time on the idle k = 8 fat-tree, with the experiment's deadlines
/// (40–83 µs, 2–5 RTTs): all twelve met under both variants. (Before issue 34, 9 of 12: the
/// first window from the handshake's 40-byte RTT sample sent one segment of 6 KB across the
/// core, and the window might only double per update.)
#[test]
fn lone_queries_meet_their_deadlines() {
    let mut csv = String::from("src,dst,size_bytes,start_s,deadline_s\n");
    let mut start = 0.0;
    for size in [2_000u64, 6_000, 10_000, 20_000] {
        for dst in [1, 5, 20] {
            let d = experiment_deadline(size);
            csv += &format!("0,{dst},{size},{start},{d}\n");
            start += 0.001;
        }
    }
    for variant in ["approx", "opt"] {
        let set = format!("transport.mcp_variant=\"{variant}\"");
        let out = run_in(
            FAT_TREE,
            &[&set],
            &flow_dir(&format!("mcp-queries-{variant}"), &csv),
        );
        let missed: Vec<_> = out
            .flows
            .iter()
            .filter(|f| f.met_deadline() != Some(true))
            .map(|f| (f.size_bytes, f.dst))
            .collect();
        assert_eq!(out.flows.len(), 12);
        assert!(missed.is_empty(), "{variant} missed {missed:?}");
    }
}

/// On the k = 8 fat-tree of the seed's evaluation (10/40 Gb/s, 1 µs links: RTT 17.5 µs), a
/// lone 500 KB flow due in 1.235 ms needs 5.6 packets per RTT: a window that is not a whole
/// number of packets. It makes its deadline (it missed by 2 packets while the update counted
/// the window's fraction of a packet, which the sender never sends, as rate).
#[test]
fn a_lone_flow_with_a_fractional_window_makes_its_deadline() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,127,500000,0,0.001235088\n";
    for variant in ["approx", "opt"] {
        let set = format!("transport.mcp_variant=\"{variant}\"");
        let out = run_in(
            FAT_TREE,
            &[&set],
            &flow_dir(&format!("mcp-frac-{variant}"), csv),
        );
        let f = by_src(&out, 0);
        assert_eq!(f.met_deadline(), Some(true), "{variant}: {:?}", f.fct());
    }
}

/// The seed's Fig. 1 case. A: 10 MB in 10 ms (8 Gb/s); B: 4 MB in 25 ms (1.3 Gb/s); together
/// 9.3 of 10 Gb/s. DCTCP gives each half until B is done (6.4 ms), leaving A 6 MB for 3.6 ms:
/// A misses. D2TCP's deadline-aware cut does not make up for it either. MCP gives each the
/// rate it needs, under both variants (MCP-Opt missed A before issue 34: its price read a
/// port busy for one RTT as full).
#[test]
fn unequal_deadlines_both_met_under_mcp_where_dctcp_misses_one() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,2,10000000,0,0.010\n1,2,4000000,0,0.025\n";
    let met = |out: &RunOutput| (by_src(out, 0).met_deadline(), by_src(out, 1).met_deadline());
    for variant in ["approx", "opt"] {
        let set = format!("transport.mcp_variant=\"{variant}\"");
        let out = run("mcp", csv, &format!("two-{variant}"), &[&set]);
        assert_eq!(met(&out), (Some(true), Some(true)), "{variant}");
    }
    assert_eq!(
        met(&run("dctcp", csv, "two", &[])),
        (Some(false), Some(true))
    );
    assert_eq!(
        met(&run("d2tcp", csv, "two", &[])),
        (Some(false), Some(true))
    );
}

/// Three 1.5 MB flows due in 4 ms into one host (9 of its 10 Gb/s): feasible, and every one
/// is met under both variants and both abort rules; none is aborted.
#[test]
fn the_abort_rule_never_fires_on_feasible_flows() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,3,1500000,0,0.004\n1,3,1500000,0,0.004\n2,3,1500000,0,0.004\n";
    for variant in ["approx", "opt"] {
        for rule in ["deficit", "per_rtt"] {
            let sets = [
                format!("transport.mcp_variant=\"{variant}\""),
                format!("transport.mcp_abort=\"{rule}\""),
                "topology.hosts=4".to_string(),
            ];
            let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
            let out = run("mcp", csv, &format!("three-{variant}-{rule}"), &sets);
            for f in &out.flows {
                assert!(
                    f.terminated.is_none(),
                    "{variant}/{rule}: flow {} aborted",
                    f.src
                );
                assert_eq!(
                    f.met_deadline(),
                    Some(true),
                    "{variant}/{rule}: flow {}",
                    f.src
                );
            }
        }
    }
}

/// The same 4.5 MB due in 4 ms into one host, as 5 and 8 flows. Every flow subtracts the
/// whole queue it reports, so N flows cut N times what the queue holds; unbounded, the cut
/// took all of them to one packet together and the link idled (MCP-Opt met 0 of 8). W halves
/// at most per update: all met under MCP-Approx, and under MCP-Opt with 5 flows. (With 8,
/// MCP-Opt runs about a window behind its schedule and one flow misses by 0.1 %: the source
/// term balances a standing queue only with a deficit; module doc of `dcnsim.experiments.mcp`.)
#[test]
fn several_flows_into_one_host_meet_their_deadlines() {
    for (n, variants) in [(5, &["approx", "opt"][..]), (8, &["approx"][..])] {
        let size = 4_500_000 / n;
        let mut csv = String::from("src,dst,size_bytes,start_s,deadline_s\n");
        for i in 0..n {
            csv += &format!("{i},{n},{size},0,0.004\n");
        }
        for variant in variants {
            let sets = [
                format!("transport.mcp_variant=\"{variant}\""),
                format!("topology.hosts={}", n + 1),
            ];
            let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
            let out = run("mcp", &csv, &format!("incast{n}-{variant}"), &sets);
            let met = out
                .flows
                .iter()
                .filter(|f| f.met_deadline() == Some(true))
                .count();
            assert_eq!(met, n, "{variant}, {n} flows");
        }
    }
}

/// A (3 MB due in 8 ms, 3 Gb/s) shares one host's link with three flows of 750 KB due in
/// 2 ms (3 Gb/s each): 12 Gb/s for 2 ms, and every flow falls behind. A could still finish
/// at leisure once the others are gone. The default rule (`deficit`: Z against what the
/// fastest link carries to the deadline) keeps A, which makes it; the literal per-window
/// reading (`per_rtt`) aborts A with the others at about 1 ms.
#[test]
fn a_transient_overload_aborts_a_feasible_flow_only_under_the_per_rtt_rule() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,4,3000000,0,0.008\n1,4,750000,0,0.002\n2,4,750000,0,0.002\n3,4,750000,0,0.002\n";
    let a = |rule: &str| {
        let sets = [
            format!("transport.mcp_abort=\"{rule}\""),
            "topology.hosts=5".to_string(),
        ];
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        let out = run("mcp", csv, &format!("transient-{rule}"), &sets);
        let f = by_src(&out, 0);
        (f.met_deadline(), f.terminated.map(|t| t.as_secs_f64()))
    };
    assert_eq!(a("deficit"), (Some(true), None));
    let (met, aborted) = a("per_rtt");
    assert_eq!(met, Some(false));
    assert!(aborted.is_some_and(|t| t < 0.002), "{aborted:?}");
}

/// A flow that needs 40 Gb/s on a 10 Gb/s path is aborted at its handshake. One that becomes
/// impossible — 10 MB in 10 ms against a long flow without deadline (which runs DCTCP) —
/// is aborted before its deadline, once the fastest link could no longer finish it, and the
/// other flow then has the link: the two together keep it busy to the end.
#[test]
fn the_abort_rule_fires_on_impossible_deadlines_and_frees_the_link() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,2,10000000,0,0.002\n1,2,5000000,0,0.008\n";
    let out = run("mcp", csv, "impossible", &[]);
    let x = by_src(&out, 0);
    assert!(x.terminated.unwrap().as_secs_f64() < 0.0001 && x.bytes_delivered == 0);
    assert_eq!(by_src(&out, 1).met_deadline(), Some(true));

    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,2,10000000,0,0.010\n1,2,20000000,0,\n";
    let out = run("mcp", csv, "too-late", &[]);
    let (x, y) = (by_src(&out, 0), by_src(&out, 1));
    let end = x.terminated.expect("aborted").as_secs_f64();
    assert!(end < 0.010 && x.finish.is_none(), "aborted at {end}");
    // (X's bytes + Y's) at 10 Gb/s, with 1500-byte packets of 1460: the link stayed busy.
    let busy = (x.bytes_delivered + y.size_bytes) as f64 * 1500.0 / 1460.0 * 8.0 / 1e10;
    let done = y.finish.unwrap().as_secs_f64();
    assert!(
        done < busy * 1.06,
        "Y done at {done} s, the link's work {busy} s"
    );
}

/// `workload.abort_at_deadline`: the application gives up on a flow at its deadline, whatever
/// the protocol; the flow counts as terminated then.
#[test]
fn the_application_aborts_flows_at_their_deadline() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,2,10000000,0,0.002\n1,2,1000000,0,0.005\n";
    let out = run(
        "dctcp",
        csv,
        "app-abort",
        &["workload.abort_at_deadline=true"],
    );
    let late = by_src(&out, 0);
    assert_eq!(late.terminated.unwrap().as_secs_f64(), 0.002);
    assert!(late.finish.is_none() && late.bytes_delivered < 10_000_000);
    assert_eq!(by_src(&out, 1).met_deadline(), Some(true));
    let kept = run("dctcp", csv, "app-abort-off", &[]);
    assert!(
        by_src(&kept, 0).finish.is_some(),
        "without the key the flow runs to its end"
    );
}
