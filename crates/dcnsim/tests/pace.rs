//! PACE end to end against numbers derived by hand: a lone flow's steady rate, weighted shares
//! 2 : 1 : 4 on one bottleneck, the max-min rates of the parking lot's two bottlenecks, and no
//! data packet dropped in the shapes of every scenario of `dcnsim reproduce pace`.

mod common;
use common::{flow_dir, run_in};
use dcnsim::metrics::RunOutput;

/// Payload per wire byte of a full PACE packet: 1460 of 40 + 14 + 1460.
const FULL: f64 = 1460.0 / 1514.0;

fn scenario(topology: &str, extra: &str, interval_us: u32) -> String {
    format!(
        "seed = 1\n{extra}\n[topology]\n{topology}\n[transport]\nprotocol = \"pace\"\n\
         [workload]\nkind = \"flows\"\nfile = \"flows.csv\"\n\
         [output]\nseries_interval_us = {interval_us}\n"
    )
}

/// Mean goodput (bit/s) of `flow` over the samples ending in (t0, t1] (seconds).
fn rate(out: &RunOutput, flow: u32, t0: f64, t1: f64) -> f64 {
    let s = out.series.as_ref().expect("series on");
    let v: Vec<f64> = (0..s.len())
        .filter(|&i| {
            s.kind[i].name() == "flow_goodput_bps"
                && s.id[i] == flow
                && s.time_s[i] > t0 + 1e-12
                && s.time_s[i] <= t1 + 1e-12
        })
        .map(|i| s.value[i])
        .collect();
    assert!(!v.is_empty(), "no samples of flow {flow}");
    v.iter().sum::<f64>() / v.len() as f64
}

fn assert_lossless(out: &RunOutput, what: &str) {
    assert_eq!(out.counters.dropped_pkts, 0, "{what}: packets dropped");
    for p in &out.ports {
        assert_eq!(p.drops, 0, "{what}: drops at {}→{}", p.node, p.peer);
    }
    for f in &out.flows {
        assert_eq!(f.retransmits, 0, "{what}: flow {} resent data", f.flow_id);
    }
}

/// Alone on a 1 Gb/s link a flow gets C(200 µs) = 25 000 B of credits per period: 16 full
/// packets (24 224 B) and one of 776 B carrying 722 B, so 16·1460 + 722 = 24 082 B of payload
/// every 200 µs — 963.28 Mb/s, steady.
#[test]
fn lone_flow_uses_every_credit_of_each_period() {
    let dir = flow_dir("pace-alone", "src,dst,size_bytes,start_s\n0,1,2000000,0\n");
    let topo = "kind = \"star\"\nhosts = 2\nlink_gbps = 1\nlink_delay_us = 1";
    let out = run_in(&scenario(topo, "", 1000), &[], &dir);
    let f = &out.flows[0];
    let steady = rate(&out, 0, 0.001, 0.016);
    assert!((steady / 963.28e6 - 1.0).abs() < 1e-3, "{steady}");
    // The FCT: the ideal (full packets back to back) stretched by the short packets
    // (+0.28 %), plus a request round trip and the last, smaller allocation spread over a
    // whole period: within 2 %.
    let fct = f.fct().expect("finished").as_secs_f64();
    let ideal = f.ideal_fct.as_secs_f64();
    assert!(fct > ideal && fct < ideal * 1.02, "fct {fct} ideal {ideal}");
    assert_lossless(&out, "alone");
}

/// Three senders with weights 2, 1, 4 into one receiver: the receiver's 1 Gb/s link is split
/// 2/7, 1/7, 4/7 (weighted max-min, by hand).
#[test]
fn weights_2_1_4_share_one_bottleneck_as_2_7_1_7_4_7() {
    let csv = "src,dst,size_bytes,start_s,weight\n\
               0,3,100000000,0,2\n1,3,100000000,0,1\n2,3,100000000,0,4\n";
    let topo = "kind = \"star\"\nhosts = 4\nlink_gbps = 1\nlink_delay_us = 1";
    let out = run_in(
        &scenario(topo, "stop_s = 0.05", 1000),
        &[],
        &flow_dir("pace-w", csv),
    );
    let r: Vec<f64> = (0..3).map(|f| rate(&out, f, 0.005, 0.05)).collect();
    let total: f64 = r.iter().sum();
    for (f, w) in [(0, 2.0), (1, 1.0), (2, 4.0)] {
        let share = r[f] / total;
        assert!(
            (share / (w / 7.0) - 1.0).abs() < 0.03,
            "flow {f}: share {share}"
        );
    }
    // and the link is full: the goodput of full packets, less the short packets' headers
    assert!(total > 0.98 * FULL * 1e9, "{total}");
    assert_lossless(&out, "weights");
}

/// The parking lot (F1…F5, 1 Gb/s): S1 = group a → receivers (F3–F4 and F4–F5), S2 = group d →
/// receivers (F4–F5), S3 = group c → cross receivers (F3–F4), all from 0.
fn parking_lot(s1: u32, s2: u32, s3: u32, name: &str) -> RunOutput {
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for i in 0..s1 {
        csv += &format!("{},{},1000000000,0\n", i, 64 + i);
    }
    for i in 0..s2 {
        csv += &format!("{},{},1000000000,0\n", 48 + i, 64 + s1 + i);
    }
    for i in 0..s3 {
        csv += &format!("{},{},1000000000,0\n", 32 + i, 80 + i);
    }
    let topo = "kind = \"parkinglot\"\nlink_gbps = 1";
    run_in(
        &scenario(topo, "stop_s = 0.06", 1000),
        &[],
        &flow_dir(name, &csv),
    )
}

/// Multi-bottleneck max-min by hand. Four S1, one S2, six S3: F3–F4 carries 10 flows and
/// fills first at 100 Mb/s each (S1, S3); F4–F5 then has 1000 − 4·100 = 600 for S2. With
/// seven S2 instead, F4–F5 fills first at 1000/11 = 90.9 (S1, S2), and S3 gets
/// (1000 − 4·90.9)/6 = 106.1 of F3–F4. Rates in wire bits; goodput is the full-packet
/// share of it, within 3 % (a period's last packet is shorter).
#[test]
fn parking_lot_rates_are_max_min_fair() {
    for (s2, want) in [
        (1, [100.0, 600.0, 100.0]),
        (
            7,
            [1000.0 / 11.0, 1000.0 / 11.0, (1000.0 - 4000.0 / 11.0) / 6.0],
        ),
    ] {
        let out = parking_lot(4, s2, 6, &format!("pace-pl-{s2}"));
        let groups = [0..4, 4..4 + s2, 4 + s2..10 + s2];
        for (g, ids) in groups.into_iter().enumerate() {
            for f in ids {
                let got = rate(&out, f, 0.01, 0.06) / 1e6;
                let expect = want[g] * FULL;
                assert!(
                    (got / expect - 1.0).abs() < 0.03,
                    "{s2} S2 flows: flow {f} (group {g}) {got:.2} Mb/s, max-min {expect:.2}"
                );
            }
        }
        assert_lossless(&out, "parking lot");
    }
}

/// Bytes each flow of a start-in-order, stop-in-reverse schedule gets at an equal share of
/// `bps` while active (the sizes `reproduce pace` gives its scenario 1 flows).
fn fair_sizes(n: usize, spacing: f64, bps: f64) -> Vec<u64> {
    let mut size = vec![0.0; n];
    for k in 0..2 * n - 1 {
        // flows 0..active are the ones running in [kΔ, (k+1)Δ]
        let active = if k < n { k + 1 } else { 2 * n - 1 - k };
        for s in size.iter_mut().take(active) {
            *s += bps / 8.0 * spacing / active as f64;
        }
    }
    size.into_iter().map(|s| s.round() as u64).collect()
}

fn scenario1(n: usize, spacing: f64, groups: &[u32], buffer: &str, name: &str) -> RunOutput {
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for (i, size) in fair_sizes(n, spacing, 1e9 * 1460.0 / 1500.0)
        .iter()
        .enumerate()
    {
        let src = groups[i % groups.len()] + (i / groups.len()) as u32 % 16;
        csv += &format!("{src},{},{size},{}\n", 64 + i % 16, i as f64 * spacing);
    }
    let topo = format!("kind = \"parkinglot\"\nlink_gbps = 1\n{buffer}");
    let iv = (250 * n as u32).max(1000);
    run_in(&scenario(&topo, "", iv), &[], &flow_dir(name, &csv))
}

/// The shapes of every scenario `dcnsim reproduce pace` runs: no data packet is dropped, no
/// byte is sent twice, every flow finishes. (The Python test of the quick reproduction checks
/// its own runs the same way.)
#[test]
fn no_data_is_dropped_in_the_reproductions_scenarios() {
    // Scenario 1: ten flows 5 ms apart, groups a, b, c, d round robin, then all from a.
    for (groups, name) in [
        (&[0, 16, 32, 48][..], "pace-s1-abcd"),
        (&[0][..], "pace-s1-a"),
    ] {
        let out = scenario1(10, 0.005, groups, "", name);
        assert_lossless(&out, name);
        assert!(out.flows.iter().all(|f| f.finish.is_some()), "{name}");
    }
    // Table 1: 64 and 250 flows from group a (1 ms apart, as --quick), buffers of 2·p·R at
    // the period PACE reaches (1.56 ms and 5.1 ms).
    for (n, kb) in [(64, 390), (250, 1275)] {
        let name = format!("pace-t1-{n}");
        let out = scenario1(n, 0.001, &[0], &format!("buffer_kb = {kb}"), &name);
        assert_lossless(&out, &name);
        assert!(out.flows.iter().all(|f| f.finish.is_some()), "{name}");
    }
    // Scenario 2, the composite pattern: 4 S1 at 0, 1 S2 at 2 ms, 6 S3 at 4 ms, 6 S2 at 20 ms.
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    (0..4).for_each(|i| csv += &format!("{i},{},1000000000,0\n", 64 + i));
    csv += "48,68,1000000000,0.002\n";
    (0..6).for_each(|i| csv += &format!("{},{},1000000000,0.004\n", 32 + i, 80 + i));
    (0..6).for_each(|i| csv += &format!("{},{},1000000000,0.02\n", 49 + i, 69 + i));
    let topo = "kind = \"parkinglot\"\nlink_gbps = 1";
    let out = run_in(
        &scenario(topo, "stop_s = 0.04", 500),
        &[],
        &flow_dir("pace-s2", &csv),
    );
    assert_lossless(&out, "scenario 2");
    // Controllability: weights 2, 1, 4, 500 KB each.
    let csv = "src,dst,size_bytes,start_s,weight\n0,64,500000,0,2\n48,65,500000,0.0015,1\n\
               32,80,500000,0.003,4\n";
    let out = run_in(&scenario(topo, "", 100), &[], &flow_dir("pace-fig8", csv));
    assert_lossless(&out, "controllability");
    assert!(out.flows.iter().all(|f| f.finish.is_some()));
}
