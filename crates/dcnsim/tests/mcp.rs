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

/// 5 MB due in 10 ms needs 4 Gb/s of the 10: MCP finishes just in time rather than at line
/// rate (DCTCP takes 4.1 ms). Its window starts at RTT × γ(0) and is set from the deficit
/// each RTT: the flow ends within the last 10 % of its time. (It runs up to a packet per RTT
/// above γ: the deficit lifts the window to whole segments that cover γ, and Z, never
/// negative, does not bring it down once the flow is ahead.)
#[test]
fn a_lone_deadline_flow_runs_at_the_rate_it_needs() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,2,5000000,0,0.010\n";
    let out = run("mcp", csv, "lone", &[]);
    let f = by_src(&out, 0);
    let fct = f.fct().expect("finished").as_secs_f64();
    assert!(fct <= 0.010, "met its deadline: {fct}");
    assert!(
        fct > 0.009,
        "did not take the whole link: {fct} s against ideal {}",
        f.ideal_fct
    );
    let dctcp = run("dctcp", csv, "lone", &[]);
    assert!(by_src(&dctcp, 0).fct().unwrap().as_secs_f64() < 0.005);
    // MCP-Opt, with the switches' true queue and price: the same on an idle path.
    let opt = run("mcp", csv, "lone-opt", &["transport.mcp_variant=\"opt\""]);
    let fct = by_src(&opt, 0).fct().expect("finished").as_secs_f64();
    assert!(fct <= 0.010 && fct > 0.009, "opt: {fct}");
}

/// On the k = 8 fat-tree of the seed's evaluation (10/40 Gb/s, 1 µs links: RTT 17.5 µs), a
/// lone 500 KB flow due in 1.235 ms needs 5.6 packets per RTT: a window that is not a whole
/// number of packets. It makes its deadline (it missed by 2 packets while the update counted
/// the window's fraction of a packet, which the sender never sends, as rate).
#[test]
fn a_lone_flow_with_a_fractional_window_makes_its_deadline() {
    let text = r#"
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
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,127,500000,0,0.001235088\n";
    for variant in ["approx", "opt"] {
        let set = format!("transport.mcp_variant=\"{variant}\"");
        let out = run_in(
            text,
            &[&set],
            &flow_dir(&format!("mcp-frac-{variant}"), csv),
        );
        let f = by_src(&out, 0);
        assert_eq!(f.met_deadline(), Some(true), "{variant}: {:?}", f.fct());
    }
}

/// A: 10 MB in 10 ms (8 Gb/s); B: 4 MB in 25 ms (1.3 Gb/s); together 9.3 of 10 Gb/s. DCTCP
/// gives each half until B is done (6.4 ms), leaving A 6 MB for 3.6 ms: A misses. D2TCP's
/// deadline-aware cut does not make up for it either. MCP gives each the rate it needs.
#[test]
fn unequal_deadlines_both_met_under_mcp_where_dctcp_misses_one() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,2,10000000,0,0.010\n1,2,4000000,0,0.025\n";
    let met = |out: &RunOutput| (by_src(out, 0).met_deadline(), by_src(out, 1).met_deadline());
    assert_eq!(met(&run("mcp", csv, "two", &[])), (Some(true), Some(true)));
    assert_eq!(
        met(&run("dctcp", csv, "two", &[])),
        (Some(false), Some(true))
    );
    assert_eq!(
        met(&run("d2tcp", csv, "two", &[])),
        (Some(false), Some(true))
    );
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
