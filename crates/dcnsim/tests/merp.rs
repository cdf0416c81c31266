//! MERP end to end, packet by packet: the paper's motivating example (Table 1, Fig. 1), flow
//! switching (Fig. 13), incast (Fig. 14) and route control around a failed link (MEMR, §5).

mod common;
use common::{flow_dir, run_in};
use dcnsim::metrics::RunOutput;

/// One switch, `hosts` hosts at 1 Gb/s with 10 µs links (§6.3), the flows of `csv`.
fn star(hosts: u32, protocol: &str, csv: &str, tag: &str, extra: &[&str]) -> RunOutput {
    let text = format!(
        r#"
[topology]
kind = "star"
hosts = {hosts}
link_gbps = 1
link_delay_us = 10
[transport]
protocol = "{protocol}"
[workload]
kind = "flows"
file = "flows.csv"
"#
    );
    run_in(&text, extra, &flow_dir(tag, csv))
}

/// Table 1 with one unit of size = 1 MB of payload and one unit of time = the time one unit
/// takes on the 1 Gb/s link (1500-byte packets of 1460 payload bytes: 8.219 ms). A and C arrive
/// at 0 with sizes 3 and 4, B at 3 with size 3. MERP serves A, then C (which has waited longer
/// than B relative to its size), then B: FCTs 3, 7, 7, mean 17/3, largest expansion ratio 7/3
/// (B's). pFabric (SRPT) serves A, B, C: mean 16/3, C's ratio 10/4. Within 3 % (the
/// handshake, per-hop store-and-forward and α = 0.999 add a little).
#[test]
fn motivating_example_merp_and_srpt() {
    let unit = 1e6 / 1460.0 * 1500.0 * 8.0 / 1e9;
    let csv = format!(
        "src,dst,size_bytes,start_s\n0,3,3000000,0\n1,3,3000000,{}\n2,3,4000000,0\n",
        3.0 * unit
    );
    let run = |protocol: &str| {
        let out = star(4, protocol, &csv, &format!("t1-{protocol}"), &[]);
        // (FCT, finish) in units, by source host: A = h0, B = h1, C = h2.
        let mut by_host = [(0.0, 0.0); 3];
        let mut largest: f64 = 0.0;
        for f in &out.flows {
            let fct = f.fct().unwrap().as_secs_f64() / unit;
            by_host[f.src as usize] = (fct, f.finish.unwrap().as_secs_f64() / unit);
            largest = largest.max(fct / (f.size_bytes as f64 / 1e6));
        }
        (by_host, largest)
    };
    let close = |x: f64, want: f64| (x - want).abs() / want < 0.03;
    let ([a, b, c], largest) = run("merp");
    assert!(
        a.1 < c.1 && c.1 < b.1,
        "MERP order A, C, B: {a:?} {b:?} {c:?}"
    );
    let mean = (a.0 + b.0 + c.0) / 3.0;
    assert!(close(mean, 17.0 / 3.0), "MERP mean FCT {mean} units");
    assert!(
        close(largest, 7.0 / 3.0),
        "MERP max expansion ratio {largest}"
    );
    let ([a, b, c], largest) = run("pfabric");
    assert!(
        a.1 < b.1 && b.1 < c.1,
        "SRPT order A, B, C: {a:?} {b:?} {c:?}"
    );
    let mean = (a.0 + b.0 + c.0) / 3.0;
    assert!(close(mean, 16.0 / 3.0), "pFabric mean FCT {mean} units");
    assert!(
        close(largest, 10.0 / 4.0),
        "pFabric max expansion ratio {largest}"
    );
}

/// Fig. 13: three senders start 2000 packets each at 0 towards one receiver. The paper
/// finishes them in 72.25 ms against an ideal 72 ms (3 × 2000 × 1500 B at 1 Gb/s); within 1 %
/// of 72.25 ms, one after the other.
#[test]
fn flow_switching_finishes_within_one_percent_of_72_25_ms() {
    let csv = "src,dst,size_bytes,start_s\n0,3,2920000,0\n1,3,2920000,0\n2,3,2920000,0\n";
    let out = star(4, "merp", csv, "switching", &[]);
    let mut ends: Vec<f64> = out
        .flows
        .iter()
        .map(|f| f.finish.unwrap().as_secs_f64())
        .collect();
    ends.sort_by(f64::total_cmp);
    let last = ends[2] * 1e3;
    assert!((last - 72.25).abs() / 72.25 < 0.01, "done at {last} ms");
    // One at a time: each finishes about a third of the way apart.
    assert!(ends[0] < 0.0245 && ends[1] < 0.049, "{ends:?}");
    // Postponed flows' DETs overflow the buffer and are dropped (the lowest priority, by
    // design); no DATA is.
    assert!(out
        .flows
        .iter()
        .all(|f| f.retransmits == 0 && f.timeouts == 0));
}

/// Two 20 MB flows in opposite directions through one 1 Gb/s switch: each link carries one
/// flow's DATA and the other's ACKs. The full grant leaves room for the ACKs (α·(C − ACK
/// rate)), so no queue builds and nothing is lost: both finish within 2 % of pFabric, which
/// is within 3 % of ideal (issue 33: 278 ms and 9 412 retransmissions each before).
#[test]
fn opposite_flows_leave_room_for_each_others_acks() {
    let csv = "src,dst,size_bytes,start_s\n0,1,20000000,0\n1,0,20000000,0\n";
    let fcts = |protocol: &str| -> Vec<f64> {
        let out = star(2, protocol, csv, &format!("opposite-{protocol}"), &[]);
        if protocol == "merp" {
            assert_eq!(out.counters.dropped_pkts, 0);
            assert!(out.flows.iter().all(|f| f.retransmits == 0));
        }
        out.flows
            .iter()
            .map(|f| f.fct().unwrap().as_secs_f64())
            .collect()
    };
    let pfabric = fcts("pfabric");
    for (m, p) in fcts("merp").iter().zip(&pfabric) {
        assert!(m / p < 1.02, "MERP {m} s, pFabric {p} s");
    }
}

/// The hand-over (issue 33): A h0→h3 4 MB at 0, B h1→h3 8 MB at 1 ms, C h1→h2 20 MB at 2 ms.
/// B waits behind A at sw→h3 but is first on h1's link; under Algorithm 3's letter h1's link
/// idles until A is done (C ends at 0.2636 s, largest expansion ratio 1.591). The
/// work-conserving hand-over sees that B, granted α·C on h1's link, still detects an RTT
/// later, and lets C send: h1's link is busy from 2 ms until B's and C's 28 MB (0.2301 s of
/// wire bytes) have crossed it, C ends within 0.3 % of that, as under SRPT, and the largest
/// ratio is B's 1.487 (its own wait behind A). Both values of `transport.merp_handover`.
#[test]
fn a_flow_held_elsewhere_hands_its_link_over() {
    let csv = "src,dst,size_bytes,start_s\n0,3,4000000,0\n1,3,8000000,0.001\n1,2,20000000,0.002\n";
    let run = |handover: &str| -> (f64, f64) {
        let set = format!("transport.merp_handover={handover}");
        let out = star(4, "merp", csv, &format!("handover-{handover}"), &[&set]);
        let c = out.flows.iter().find(|f| f.dst == 2).unwrap();
        let largest = out
            .flows
            .iter()
            .map(|f| f.fct().unwrap().as_secs_f64() / f.ideal_fct.as_secs_f64())
            .fold(0.0, f64::max);
        (c.finish.unwrap().as_secs_f64(), largest)
    };
    // 1 500 wire bytes per 1 460 of payload, at 1 Gb/s.
    let busy_until = 0.002 + 28e6 / 1460.0 * 1500.0 * 8.0 / 1e9;
    let (c_end, largest) = run("work_conserving");
    assert!(
        c_end > busy_until && c_end < busy_until * 1.003,
        "C ends at {c_end} s, link busy until {busy_until} s"
    );
    assert!(largest < 1.50, "largest expansion ratio {largest}");
    let (c_end, largest) = run("paper");
    assert!(c_end > 0.26, "paper: C ends at {c_end} s");
    assert!(largest > 1.58, "paper: largest expansion ratio {largest}");
}

/// MEMR refuses to run without MERP's switch tables.
#[test]
fn memr_needs_merp() {
    let text = r#"
[topology]
kind = "fattree"
[transport]
protocol = "dctcp"
[routing]
lb = "memr"
[workload]
kind = "poisson"
flows = 10
"#;
    let err = match dcnsim::prepare_text(text, dcnsim::Format::Toml, &[], std::path::Path::new("."))
    {
        Err(e) => e,
        Ok(_) => panic!("memr with dctcp must be refused"),
    };
    assert_eq!(err.path, "routing.lb");
    assert!(err.message.contains("merp"), "{err}");
}

/// Fig. 14: a 5 MB background flow from 0 and, at 10 ms, 30 flows of 20 packets from eight
/// senders into the same receiver. The short flows preempt the long one and go one after the
/// other; the link stays busy but for the hand-overs. The paper measures 91.8 % utilisation
/// over 10–18 ms; we do not reach it (module doc, "What the evaluation gives"): while a flow
/// sends DATA at α·C the link has (1 − α)·C, one 40-byte DET per ≈ 320 µs, for detection, so the
/// next flow's early start rarely gets through before the current flow ends. Each hand-over
/// then costs the next flow's DET reaching the receiver, its BOOST coming back and its first
/// DATA packet reaching the switch: 10.32 + 2 × 10.32 + 22 ≈ 53 µs against 240 µs of data, at
/// most 240 / 293 = 82 % over the burst. We check the burst comes within 8 % of that bound,
/// the short flows finish in turn, and the background flow resumes and finishes.
#[test]
fn incast_keeps_the_link_busy_but_for_hand_overs() {
    let mut csv = String::from("src,dst,size_bytes,start_s\n0,8,5000000,0\n");
    for i in 0..30 {
        csv += &format!("{},8,29200,0.01\n", i % 8);
    }
    let carried = |stop: f64| {
        let out = star(9, "merp", &csv, "incast", &[&format!("stop_s={stop}")]);
        let p = out
            .ports
            .iter()
            .find(|p| p.node == "sw" && p.peer == "h8")
            .unwrap();
        p.tx_bytes
    };
    let util = (carried(0.018) - carried(0.010)) as f64 * 8.0 / (0.008 * 1e9);
    let bound = 240.0 / (240.0 + 53.0);
    assert!(
        util <= bound && util > bound * 0.92,
        "utilisation over 10–18 ms {util:.3}, bound {bound:.3}"
    );
    let out = star(9, "merp", &csv, "incast", &[]);
    let long = out
        .flows
        .iter()
        .find(|f| f.size_bytes == 5_000_000)
        .unwrap();
    let last_short = out
        .flows
        .iter()
        .filter(|f| f.size_bytes == 29_200)
        .map(|f| f.finish.unwrap())
        .max()
        .unwrap();
    assert!(long.finish.unwrap() > last_short, "preempted, then resumed");
    assert!(out.flows.iter().all(|f| f.retransmits == 0));
}

/// A path slower than the sender's NIC: a lone flow over a 2.5 Gb/s link between 10 Gb/s
/// hosts. Q starts at 0.8 of the NIC (8 Gb/s), above anything the slow link can give (α·C =
/// 2.4975 Gb/s); the slow link lowers the packet's Q to 0.8 of its own rate, so the flow sends
/// DATA at α·C there and ends within 2 % of its ideal FCT. (With the sender's Q the flow
/// detected for ever, in 40-byte DETs at 2.5 Gb/s.)
#[test]
fn a_slower_link_on_the_path_lowers_q() {
    let text = r#"
stop_s = 0.1
[topology]
kind = "dumbbell"
senders = 1
receivers = 1
link_gbps = 10
bottleneck_gbps = 2.5
link_delay_us = 1
[transport]
protocol = "merp"
[workload]
kind = "flows"
file = "flows.csv"
"#;
    let out = run_in(
        text,
        &[],
        &flow_dir(
            "merp-slow-path",
            "src,dst,size_bytes,start_s\n0,1,1000000,0\n",
        ),
    );
    let f = &out.flows[0];
    let fct = f.fct().expect("the flow finishes").as_secs_f64();
    let ideal = f.ideal_fct.as_secs_f64();
    assert!(fct / ideal < 1.02, "FCT {fct} s, ideal {ideal} s");
    assert_eq!(out.counters.dropped_pkts, 0);
}

/// The hand-over gives a held first flow its link back (found in review). Flow 1 (h0→h3,
/// 3 MB) waits at h0's NIC behind flow 0 (h0→h1, 1 MB, done at 8.3 ms) and is first on
/// sw→h3, which the hand-over lends to flow 2 (h2→h3, 20 MB). A 5 KB flow from h2 at 2 ms
/// overlaps flow 2 at h2's NIC (early start) and leaves a backlog there, so flow 2's DATA
/// reaches sw→h3 back to back and flow 1's DETs (the lowest priority) wait behind it. Once
/// flow 1's DETs arrive free of the hold at h0, it is no longer held: flow 2 is told to
/// detect, and flow 1's DETs get through. It ends near the `paper` rule's 33.0 ms (pFabric
/// 33.1); it ended at 74.8 ms while a flow counted as held until its DATA arrived.
#[test]
fn a_held_first_flow_gets_its_link_back() {
    let csv = "src,dst,size_bytes,start_s\n0,1,1000000,0\n0,3,3000000,0.0001\n\
               2,3,20000000,0.001\n2,4,5000,0.002\n";
    let end = |handover: &str| {
        let set = format!("transport.merp_handover={handover}");
        let out = star(5, "merp", csv, &format!("hand-back-{handover}"), &[&set]);
        out.flows[1].finish.unwrap().as_secs_f64()
    };
    let paper = end("paper");
    assert!(paper < 0.034, "paper: flow 1 ends at {paper} s");
    let wc = end("work_conserving");
    assert!(
        wc < 0.036,
        "work_conserving: flow 1 ends at {wc} s (paper {paper} s)"
    );
}

/// Room for the ACKs keeps the full grant above Q (found in review). Leaf-spine with 10 Gb/s
/// hosts and 1 Gb/s links to spine1. Flow 0 (h0→h4, 50 MB) goes by spine0 and its ACKs come
/// back by leaf1→spine1: about 267 Mb/s of ACKs on a 1 Gb/s link. Flow 1 (h5→h1, 2 MB) is
/// first on leaf1→spine1. α·(C − A) ≈ 733 Mb/s is below Q = 800 Mb/s: its sender read that
/// as a detecting rate and sent 91 000 DETs, and the flow ended at 57.7 ms. The full grant
/// now stays just above Q (800 Mb/s, the link over-booked by the ACKs' 7 %): the flow sends
/// DATA and ends at 28.2 ms (pFabric 23.5).
#[test]
fn the_ack_room_keeps_the_full_grant_above_q() {
    let text = r#"
stop_s = 0.2
[topology]
kind = "leafspine"
leaves = 2
hosts_per_leaf = 4
spines = 2
link_gbps = 10
link_delay_us = 2
[[topology.link_overrides]]
between = ["leaf0", "spine1"]
gbps = 1
[[topology.link_overrides]]
between = ["leaf1", "spine1"]
gbps = 1
[transport]
protocol = "merp"
[workload]
kind = "flows"
file = "flows.csv"
"#;
    let out = run_in(
        text,
        &[],
        &flow_dir(
            "merp-ack-room-q",
            "src,dst,size_bytes,start_s\n0,4,50000000,0\n5,1,2000000,0.001\n",
        ),
    );
    let f = &out.flows[1];
    let end = f.finish.expect("finishes").as_secs_f64();
    assert!(
        end < 0.03,
        "the 2 MB flow ends at {end} s (flow 0 at 0.041 s)"
    );
}
