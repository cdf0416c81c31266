//! Load balancing on leaf-spines: how each path choice spreads bytes over the uplinks, when it
//! reorders, what TCP makes of it, and how it reacts to slow and failed paths.

mod common;
use common::{flow_dir, run_in};
use dcnsim::metrics::RunOutput;

const SCHEMES: [&str; 7] = ["ecmp", "rps", "drb", "presto", "letflow", "conga", "drill"];

/// A leaf-spine run: `topology` lines go into `[topology]`, `lb` names the path choice and
/// `routing` adds `[routing]` keys, `extra` goes after the workload, flows from a CSV.
fn run(
    name: &str,
    topology: &str,
    lb: &str,
    routing: &str,
    extra: &str,
    flows_csv: &str,
) -> RunOutput {
    run_with("dctcp", name, topology, lb, routing, extra, flows_csv)
}

fn run_with(
    protocol: &str,
    name: &str,
    topology: &str,
    lb: &str,
    routing: &str,
    extra: &str,
    flows_csv: &str,
) -> RunOutput {
    let text = format!(
        r#"
seed = 1
[topology]
kind = "leafspine"
{topology}
[transport]
protocol = "{protocol}"
[routing]
lb = "{lb}"
{routing}
[workload]
kind = "flows"
file = "flows.csv"
{extra}
"#
    );
    run_in(&text, &[], &flow_dir(&format!("lb-{name}-{lb}"), flows_csv))
}

fn flows(list: impl IntoIterator<Item = (u32, u32, u64, f64)>) -> String {
    let mut s = String::from("src,dst,size_bytes,start_s\n");
    for (src, dst, size, start) in list {
        s.push_str(&format!("{src},{dst},{size},{start}\n"));
    }
    s
}

/// Bytes leaf0 sent up to each spine, in spine order.
fn uplink_bytes(out: &RunOutput, spines: usize) -> Vec<u64> {
    (0..spines)
        .map(|j| {
            out.ports
                .iter()
                .find(|p| p.node == "leaf0" && p.peer == format!("spine{j}"))
                .unwrap()
                .tx_bytes
        })
        .collect()
}

fn max_over_min(v: &[u64]) -> f64 {
    *v.iter().max().unwrap() as f64 / (*v.iter().min().unwrap()).max(1) as f64
}

fn total(out: &RunOutput, f: fn(&dcnsim::metrics::FlowRecord) -> u64) -> u64 {
    out.flows.iter().map(f).sum()
}

/// 8 long flows from the hosts of leaf0 to those of leaf1 over 4 spines (2:1 oversubscribed,
/// so the uplinks are the bottleneck).
const SYMMETRIC: &str = "leaves = 2\nspines = 4\nhosts_per_leaf = 8";

fn eight_long_flows() -> String {
    flows((0..8).map(|i| (i, 8 + i, 2_000_000, 0.0)))
}

#[test]
fn per_packet_schemes_spread_bytes_evenly_on_a_symmetric_leaf_spine() {
    for lb in ["rps", "drb", "drill"] {
        let out = run("sym", SYMMETRIC, lb, "", "", &eight_long_flows());
        assert!(out.flows.iter().all(|f| f.finish.is_some()), "{lb}");
        let up = uplink_bytes(&out, 4);
        assert!(max_over_min(&up) <= 1.10, "{lb}: {up:?}");
    }
}

#[test]
fn ecmp_with_few_flows_collides() {
    let out = run("sym", SYMMETRIC, "ecmp", "", "", &eight_long_flows());
    let up = uplink_bytes(&out, 4);
    // Whole flows per uplink: 8 flows on 4 uplinks are split 2-2-2-2 only by luck (3.8 %).
    assert!(max_over_min(&up) > 1.4, "{up:?}");
    // Each uplink carries a whole number of flows (2 MB of payload ≈ 2.05 MB on the wire),
    // give or take the retransmissions, which all add to the uplinks of their flows.
    const FLOW_WIRE_BYTES: f64 = 2_054_800.0;
    let retransmitted = total(&out, |f| f.retransmits) as f64 * 1500.0 / FLOW_WIRE_BYTES;
    for b in &up {
        let flows = *b as f64 / FLOW_WIRE_BYTES;
        assert!(
            (flows - flows.round()).abs() < 0.02 + retransmitted,
            "{up:?}, retransmissions worth {retransmitted:.3} flows"
        );
    }
    // The allowance stays well under half a flow, so a split flow would still fail.
    assert!(
        retransmitted < 0.3,
        "retransmissions worth {retransmitted:.3} flows"
    );
    assert_eq!(total(&out, |f| f.ooo_arrivals), 0);
}

/// Loss on a single path: dupACKs are all attributed to loss, none to reordering.
#[test]
fn no_scheme_reorders_on_a_single_path() {
    let topo = "leaves = 2\nspines = 1\nhosts_per_leaf = 4\nbuffer_pkts = 20";
    let fl = flows((0..4).map(|i| (i, 4 + i, 500_000, 0.0)));
    for lb in SCHEMES {
        let out = run_with("tcp", "single", topo, lb, "", "", &fl);
        assert!(out.flows.iter().all(|f| f.finish.is_some()), "{lb}");
        assert_eq!(total(&out, |f| f.ooo_arrivals), 0, "{lb}");
        assert_eq!(total(&out, |f| f.dupacks_reorder), 0, "{lb}");
        assert_eq!(total(&out, |f| f.spurious_retransmits), 0, "{lb}");
        // The 4:1 incast into one spine link drops, and the dupACKs it causes are loss.
        assert!(out.counters.dropped_pkts > 0, "{lb}");
        assert!(total(&out, |f| f.dupacks_loss) > 0, "{lb}");
    }
}

/// TR's motivating layout (§2.1), scaled down: 2 leaves, 4 spines, links of 25 µs, so a good
/// path's round trip is 200 µs; spines 2 and 3 are "bad", their links slowed to a bad/good
/// round-trip ratio `ratio` ((50 + 2x)/100 one way, x the bad links' delay). Hosts at 1 Gb/s,
/// leaf–spine links at 10 Gb/s, so fabric queues stay short and the skew between paths is the
/// propagation difference (with 1 Gb/s uplinks, RPS's random queue imbalance reorders as much
/// as the asymmetry does). 60 DCTCP flows of 30 KB from leaf0's hosts to leaf1's, Poisson
/// arrivals every 100 µs on average.
fn asymmetric(lb: &str, ratio: f64) -> RunOutput {
    let x = (100.0 * ratio - 50.0) / 2.0;
    let mut topo = String::from(
        "leaves = 2\nspines = 4\nhosts_per_leaf = 4\nlink_gbps = 1\nspine_gbps = 10\nlink_delay_us = 25\nbuffer_pkts = 250\n",
    );
    for spine in ["spine2", "spine3"] {
        for leaf in ["leaf0", "leaf1"] {
            topo.push_str(&format!(
                "[[topology.link_overrides]]\nbetween = [\"{leaf}\", \"{spine}\"]\ndelay_us = {x}\n"
            ));
        }
    }
    // Exponential gaps from a fixed hash, so every scheme and ratio sees the same flows.
    let mut t = 0.0;
    let fl = flows((0..60u64).map(|i| {
        let u = (dcnsim::rng::mix(i) >> 11) as f64 / (1u64 << 53) as f64;
        t += -100e-6 * (1.0 - u).ln();
        ((i % 4) as u32, 4 + ((i * 3 + 1) % 4) as u32, 30_000, t)
    }));
    run(
        &format!("asym{}", (ratio * 10.0) as u32),
        &topo,
        lb,
        "",
        "",
        &fl,
    )
}

#[test]
fn rps_reorders_more_as_paths_diverge_and_tcp_retransmits_spuriously() {
    // One-way skews of 10, 50 and 150 µs: a flow's packets leave 12 µs apart, so under one,
    // about four and about twelve later packets overtake a late one (beyond that a 30 KB flow
    // has no more packets to overtake with, and the ratio stops growing).
    let ratios = [1.1, 1.5, 2.5];
    let retx_ratio: Vec<f64> = ratios
        .iter()
        .map(|&r| {
            let out = asymmetric("rps", r);
            assert_eq!(out.counters.dropped_pkts, 0, "reordering alone, no loss");
            assert!(total(&out, |f| f.ooo_arrivals) > 0);
            assert_eq!(total(&out, |f| f.dupacks_loss), 0);
            let data = total(&out, |f| f.data_packets) as f64;
            total(&out, |f| f.spurious_retransmits) as f64 / data
        })
        .collect();
    // TR Fig. 2(b): the retransmission ratio caused by reordering grows with the asymmetry.
    assert!(
        retx_ratio[1] > 0.02 && retx_ratio[1] > 2.0 * retx_ratio[0],
        "{retx_ratio:?}"
    );
    assert!(retx_ratio[2] > 1.5 * retx_ratio[1], "{retx_ratio:?}");
}

#[test]
fn letflow_and_ecmp_do_not_reorder_on_asymmetric_paths() {
    for lb in ["ecmp", "letflow"] {
        for ratio in [1.5, 3.5] {
            let out = asymmetric(lb, ratio);
            assert_eq!(total(&out, |f| f.ooo_arrivals), 0, "{lb} {ratio}");
            assert_eq!(total(&out, |f| f.spurious_retransmits), 0, "{lb} {ratio}");
        }
    }
}

/// 2 leaves, 2 spines; spine1's link to leaf1 runs at 1 Gb/s. Flows of 50 KB from leaf0's
/// hosts to leaf1's, one every 80 µs (5 Gb/s offered). ECMP hashes about half of them onto the
/// slow path; CONGA's feedback (the slow link's DRE, normalised by its rate) steers new
/// flowlets away.
fn congested_path(lb: &str) -> RunOutput {
    let topo = "leaves = 2\nspines = 2\nhosts_per_leaf = 4\nbuffer_pkts = 200\n\
                [[topology.link_overrides]]\nbetween = [\"leaf1\", \"spine1\"]\ngbps = 1\n";
    let fl = flows((0..200).map(|i| (i % 4, 4 + (i * 7 + 1) % 4, 50_000, i as f64 * 80e-6)));
    run("congested", topo, lb, "", "", &fl)
}

#[test]
fn conga_moves_new_flowlets_off_a_congested_path_where_ecmp_keeps_hashing_onto_it() {
    let share_on_slow = |out: &RunOutput| {
        let up = uplink_bytes(out, 2);
        up[1] as f64 / (up[0] + up[1]) as f64
    };
    let ecmp = congested_path("ecmp");
    let conga = congested_path("conga");
    let (e, c) = (share_on_slow(&ecmp), share_on_slow(&conga));
    assert!(
        e > 0.35,
        "ECMP hashes flows onto the slow path regardless: {e}"
    );
    assert!(c < 0.05, "CONGA keeps new flowlets off it: {c}");
    let mean_fct = |out: &RunOutput| {
        out.flows
            .iter()
            .map(|f| f.fct().unwrap().as_secs_f64())
            .sum::<f64>()
            / out.flows.len() as f64
    };
    assert!(mean_fct(&conga) < 0.5 * mean_fct(&ecmp));
}

#[test]
fn presto_receiver_buffer_hides_flowcell_reordering_from_tcp() {
    // One long flow; flowcells alternate between spine0 and the slower spine1 (+20 µs each way
    // on both of its links: 40 µs of skew, under the 100 µs hold), so every move from the slow
    // to the fast path delivers the new cell's first packets early.
    let topo = "leaves = 2\nspines = 2\nhosts_per_leaf = 1\n\
                [[topology.link_overrides]]\nbetween = [\"leaf0\", \"spine1\"]\ndelay_us = 21\n\
                [[topology.link_overrides]]\nbetween = [\"leaf1\", \"spine1\"]\ndelay_us = 21\n";
    let fl = flows([(0, 1, 4_000_000, 0.0)]);
    let with_buffer = run("presto", topo, "presto", "", "", &fl);
    let f = &with_buffer.flows[0];
    assert!(
        f.ooo_arrivals > 0,
        "cells overtake each other in the network"
    );
    assert_eq!((f.dupacks_reorder, f.spurious_retransmits), (0, 0));
    // A hold that ends at once (1 ns) lets the same reordering through to TCP.
    let no_hold = run(
        "nohold",
        topo,
        "presto",
        "reorder_timeout_us = 0.001",
        "",
        &fl,
    );
    let g = &no_hold.flows[0];
    assert!(g.ooo_arrivals > 0);
    assert!(g.dupacks_reorder > 0, "{g:?}");
    assert!(f.fct().unwrap() <= g.fct().unwrap());
}

#[test]
fn drb_resequencing_hides_its_spraying_from_tcp_while_the_skew_is_below_its_hold() {
    // 50 µs of skew, under the 100 µs hold: TCP sees no reordering at all.
    let out = asymmetric("drb", 1.5);
    assert!(
        max_over_min(&uplink_bytes(&out, 4)) < 1.1,
        "DRB sprays evenly"
    );
    assert!(total(&out, |f| f.ooo_arrivals) > 0);
    assert_eq!(total(&out, |f| f.dupacks_reorder), 0);
    assert_eq!(total(&out, |f| f.spurious_retransmits), 0);
    // 250 µs of skew: holds expire before the late packets come, and TCP sees the rest.
    let out = asymmetric("drb", 3.5);
    assert!(total(&out, |f| f.dupacks_reorder) > 0);
}

/// A leaf-spine link fails mid-run; routing follows 20 µs later. Every scheme moves its traffic
/// to the remaining spines and every flow finishes; after the reroute nothing more is lost.
#[test]
fn every_scheme_survives_a_link_failure() {
    let fl = flows((0..8).map(|i| (i % 4, 4 + i % 4, 300_000, i as f64 * 50e-6)));
    for lb in SCHEMES {
        let text_extra = "[[failures]]\nlink = [\"leaf1\", \"spine0\"]\ndown_s = 0.0002\n";
        let out = run(
            "failure",
            "leaves = 2\nspines = 4\nhosts_per_leaf = 4\nbuffer_pkts = 200",
            lb,
            "reroute_delay_us = 20",
            text_extra,
            &fl,
        );
        assert!(out.flows.iter().all(|f| f.finish.is_some()), "{lb}");
        // Nothing crosses the dead link after the failure: leaf0's share to spine0 is only what
        // went before it (and to leaf0's own hosts, none here).
        let to_dead = out
            .ports
            .iter()
            .find(|p| p.node == "spine0" && p.peer == "leaf1")
            .unwrap();
        assert!(to_dead.tx_bytes < 1_000_000, "{lb}: {}", to_dead.tx_bytes);
    }
}

/// A k = 4 fat-tree, 4 long flows from pod 0 to pod 3: DRB bounces every flow's packets off all
/// four cores in turn, so the four core-to-pod-3 links carry the same bytes; CONGA (edges as
/// leaves, tags naming aggregation × core) keeps each flowlet on one path and never reorders.
#[test]
fn fat_tree_paths_cross_the_cores() {
    let text = r#"
[topology]
kind = "fattree"
k = 4
[transport]
protocol = "dctcp"
[routing]
lb = "LB"
[workload]
kind = "flows"
file = "flows.csv"
"#;
    let fl = flows((0..4).map(|i| (i, 12 + i, 1_000_000, 0.0)));
    let core_down = |out: &RunOutput| -> Vec<u64> {
        (0..4)
            .map(|c| {
                out.ports
                    .iter()
                    .filter(|p| p.node == format!("core{c}") && p.peer.starts_with("agg3_"))
                    .map(|p| p.tx_bytes)
                    .sum()
            })
            .collect()
    };
    let dir = flow_dir("lb-fattree", &fl);
    let drb = run_in(&text.replace("LB", "drb"), &[], &dir);
    assert!(drb.flows.iter().all(|f| f.finish.is_some()));
    let down = core_down(&drb);
    assert!(max_over_min(&down) < 1.05, "{down:?}");
    let conga = run_in(&text.replace("LB", "conga"), &[], &dir);
    assert!(conga.flows.iter().all(|f| f.finish.is_some()));
    assert_eq!(total(&conga, |f| f.ooo_arrivals), 0);
    assert!(core_down(&conga).iter().sum::<u64>() > 4_000_000);
}
