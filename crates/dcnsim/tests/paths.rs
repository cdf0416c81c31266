//! `paths.csv`: the ports each flow's data crossed, under both engines and under per-packet
//! path choices.

mod common;
use common::{flow_dir, run_in};
use dcnsim::metrics::{PathHop, RunOutput};
use std::path::Path;

fn run_flow(text: &str, base: &Path) -> RunOutput {
    common::run_any(text, &["engine=flow", "output.paths=true"], base)
}

/// `paths.csv` is written only when asked for.
const ON: &[&str] = &["output.paths=true"];

fn fat_tree(k: u32, lb: &str) -> String {
    format!(
        r#"
[topology]
kind = "fattree"
k = {k}
[transport]
protocol = "dctcp"
[routing]
lb = "{lb}"
[workload]
kind = "flows"
file = "flows.csv"
"#
    )
}

fn rows_of(out: &RunOutput, flow: u32) -> Vec<PathHop> {
    out.paths
        .as_ref()
        .expect("output.paths is on")
        .iter()
        .filter(|r| r.flow_id == flow)
        .copied()
        .collect()
}

/// (hop, from, to) of a flow's rows, by name.
fn named(out: &RunOutput, flow: u32) -> Vec<(u32, String, String)> {
    rows_of(out, flow)
        .iter()
        .map(|r| {
            let p = &out.ports[r.port as usize];
            (r.hop, p.node.clone(), p.peer.clone())
        })
        .collect()
}

/// A flow on a 2-host star crosses exactly h0 -> sw, then sw -> h1, under both engines; the
/// packet engine counts every data packet on both (no loss here).
#[test]
fn star_flow_crosses_the_two_links() {
    let dir = flow_dir("paths-star", "src,dst,size_bytes,start_s\n0,1,100000,0\n");
    let text = common::star_with_flow_file(2, 10, "tcp", "");
    let want = vec![
        (0, "h0".to_string(), "sw".to_string()),
        (1, "sw".to_string(), "h1".to_string()),
    ];
    let pkt = run_in(&text, ON, &dir);
    assert_eq!(named(&pkt, 0), want);
    let f = &pkt.flows[0];
    assert_eq!(f.retransmits, 0);
    for r in rows_of(&pkt, 0) {
        assert_eq!(r.packets, Some(f.data_packets), "{r:?}");
    }
    let fluid = run_flow(&text, &dir);
    assert_eq!(named(&fluid, 0), want);
    assert!(rows_of(&fluid, 0).iter().all(|r| r.packets.is_none()));
}

/// ECMP keeps a flow on one path: six ports from the source host to the destination, each
/// leaving the node the previous one reached; the flow-level engine picks the same ports.
#[test]
fn ecmp_flow_on_a_fat_tree_crosses_six_linked_ports() {
    // k = 4: hosts 0..3 in pod 0, 12..15 in pod 3.
    let fl = "src,dst,size_bytes,start_s\n0,12,200000,0\n1,14,200000,0\n";
    let dir = flow_dir("paths-ecmp", fl);
    let pkt = run_in(&fat_tree(4, "ecmp"), ON, &dir);
    let fluid = run_flow(&fat_tree(4, "ecmp"), &dir);
    for (flow, src, dst) in [(0, "h0", "h12"), (1, "h1", "h14")] {
        let hops = named(&pkt, flow);
        assert_eq!(hops.len(), 6, "{hops:?}");
        assert_eq!(
            hops.iter().map(|h| h.0).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4, 5]
        );
        assert_eq!(hops[0].1, src);
        assert_eq!(hops[5].2, dst);
        assert!(hops[2].2.starts_with("core"), "{hops:?}");
        for w in hops.windows(2) {
            assert_eq!(w[0].2, w[1].1, "consecutive ports are linked: {hops:?}");
        }
        assert_eq!(named(&fluid, flow), hops, "same path under both engines");
    }
}

/// Under RPS a long flow's packets spread over the cores: at the aggregation-to-core hop the
/// flow crosses several ports, every hop carries all its packets between its ports, and the
/// hop numbers still run 0..5 along every packet's path.
#[test]
fn rps_flow_crosses_several_spine_ports() {
    let dir = flow_dir("paths-rps", "src,dst,size_bytes,start_s\n0,12,2000000,0\n");
    let out = run_in(&fat_tree(4, "rps"), ON, &dir);
    let rows = rows_of(&out, 0);
    let f = &out.flows[0];
    assert!(f.finish.is_some());
    let at = |hop: u32| rows.iter().filter(move |r| r.hop == hop);
    // Two aggregation switches, each with two cores above it.
    assert_eq!(at(1).count(), 2, "{rows:?}");
    assert_eq!(at(2).count(), 4, "{rows:?}");
    assert!(at(2).all(|r| out.ports[r.port as usize].peer.starts_with("core")));
    assert_eq!(at(6).count(), 0);
    // No loss on an otherwise idle fat-tree: every data packet sent crosses every hop once.
    assert_eq!(f.retransmits, 0);
    for hop in 0..6 {
        let n: u64 = at(hop).map(|r| r.packets.unwrap()).sum();
        assert_eq!(n, f.data_packets, "hop {hop}: {rows:?}");
    }
    for r in &rows {
        assert!(r.packets.unwrap() > 0);
    }
}

/// How many ports one sprayed flow reaches on a k = 8 fat-tree (the size of its per-flow list,
/// scanned at every hop): 1 + 4 + 16 + 16 + 4 + 1 = 42 at most.
#[test]
fn sprayed_flow_on_k8_reaches_at_most_42_ports() {
    // k = 8: 16 hosts per pod; host 0 in pod 0, host 127 in pod 7.
    let dir = flow_dir("paths-k8", "src,dst,size_bytes,start_s\n0,127,4000000,0\n");
    let out = run_in(&fat_tree(8, "rps"), ON, &dir);
    let n = rows_of(&out, 0).len();
    assert!((30..=42).contains(&n), "{n} ports");
}

/// Same seed, same rows.
#[test]
fn paths_are_deterministic() {
    let dir = flow_dir(
        "paths-det",
        "src,dst,size_bytes,start_s\n0,12,500000,0\n3,8,500000,0\n",
    );
    let a = run_in(&fat_tree(4, "drb"), ON, &dir);
    let b = run_in(&fat_tree(4, "drb"), ON, &dir);
    assert_eq!(a.paths, b.paths);
}

/// Off by default, under both engines: no rows, and the packet engine counts nothing.
#[test]
fn paths_are_off_unless_asked_for() {
    let dir = flow_dir("paths-off", "src,dst,size_bytes,start_s\n0,1,100000,0\n");
    let text = common::star_with_flow_file(2, 10, "tcp", "");
    assert!(run_in(&text, &[], &dir).paths.is_none());
    assert!(common::run_any(&text, &["engine=flow"], &dir)
        .paths
        .is_none());
}
