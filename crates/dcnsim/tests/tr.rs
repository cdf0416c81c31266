//! TR (traffic-aware rerouting) in whole runs on TR's asymmetric leaf-spine (§2.1, scaled down):
//! it does not reorder where RPS and DRB do, and it keeps short flows out of long flows' queues.

mod common;
use common::{flow_dir, run_in};
use dcnsim::metrics::RunOutput;

/// 2 leaves × 4 spines × 4 hosts, 1 Gb/s links of 25 µs (a good round trip is 200 µs),
/// 250-packet buffers; spines 2 and 3 are bad, their links at 25·(2·ratio − 1) µs for a bad/good
/// round-trip ratio `ratio`. DCTCP, 80 flows from leaf0's hosts to leaf1's with exponential
/// gaps of 800 µs on average (a load of about 0.5): every fifth is 1 MB, the rest 20 KB.
fn run(lb: &str, ratio: f64) -> RunOutput {
    let d = 25.0 * (2.0 * ratio - 1.0);
    let mut text = String::from(
        "seed = 1\n[topology]\nkind = \"leafspine\"\nleaves = 2\nspines = 4\nhosts_per_leaf = 4\n\
         link_gbps = 1\nlink_delay_us = 25\nbuffer_pkts = 250\n",
    );
    for spine in ["spine2", "spine3"] {
        for leaf in ["leaf0", "leaf1"] {
            text.push_str(&format!(
                "[[topology.link_overrides]]\nbetween = [\"{leaf}\", \"{spine}\"]\ndelay_us = {d}\n"
            ));
        }
    }
    text.push_str(&format!(
        "[transport]\nprotocol = \"dctcp\"\n[routing]\nlb = \"{lb}\"\n\
         [workload]\nkind = \"flows\"\nfile = \"flows.csv\"\n"
    ));
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    let mut t = 0.0;
    for i in 0..80u64 {
        let u = (dcnsim::rng::mix(i + 1000) >> 11) as f64 / (1u64 << 53) as f64;
        t += -800e-6 * (1.0 - u).ln();
        let size = if i % 5 == 0 { 1_000_000 } else { 20_000 };
        csv.push_str(&format!("{},{},{size},{t}\n", i % 4, 4 + (i * 3 + 1) % 4));
    }
    let name = format!("tr-{lb}-{}", (ratio * 10.0) as u32);
    run_in(&text, &[], &flow_dir(&name, &csv))
}

fn sum(out: &RunOutput, f: fn(&dcnsim::metrics::FlowRecord) -> u64) -> u64 {
    out.flows.iter().map(f).sum()
}

/// Mean switch queueing delay per data packet of the short (< 100 KB) flows, in µs.
fn short_queueing_us(out: &RunOutput) -> f64 {
    let short = out.flows.iter().filter(|f| f.size_bytes < 100_000);
    let (wait, pkts) = short.fold((0.0, 0u64), |(w, p), f| {
        (w + f.queue_wait.as_secs_f64(), p + f.data_packets)
    });
    wait / pkts as f64 * 1e6
}

#[test]
fn tr_does_not_reorder_where_rps_and_drb_do() {
    for ratio in [1.5, 2.5, 3.5] {
        let tr = run("tr", ratio);
        assert!(tr.flows.iter().all(|f| f.finish.is_some()), "{ratio}");
        assert_eq!(tr.counters.dropped_pkts, 0, "{ratio}");
        assert_eq!(sum(&tr, |f| f.spurious_retransmits), 0, "{ratio}");
        // Two packets whose TNLs are equal reach the next leaf at the same instant and may swap
        // there (see lb::tr): 0, 0 and 14 of 11 856 packets here, one duplicate ACK each.
        let data = sum(&tr, |f| f.data_packets);
        assert!(sum(&tr, |f| f.ooo_arrivals) * 500 <= data, "{ratio}");

        let rps = run("rps", ratio);
        assert_eq!(rps.counters.dropped_pkts, 0, "{ratio}");
        assert!(sum(&rps, |f| f.spurious_retransmits) > 0, "rps at {ratio}");
        // DRB reorders on the wire at every ratio; its receiver buffer (holds of 100 µs) keeps it
        // from TCP here up to ratio 2.5 (one-way skew 150 µs), not at 3.5 (250 µs).
        let drb = run("drb", ratio);
        assert!(sum(&drb, |f| f.ooo_arrivals) > 0, "drb at {ratio}");
        if ratio > 3.0 {
            assert!(sum(&drb, |f| f.spurious_retransmits) > 0, "drb at {ratio}");
        }
    }
}

#[test]
fn short_flows_queue_less_under_tr_than_under_ecmp() {
    for ratio in [1.5, 3.5] {
        let tr = short_queueing_us(&run("tr", ratio));
        let ecmp = short_queueing_us(&run("ecmp", ratio));
        assert!(tr < ecmp, "ratio {ratio}: TR {tr:.2} µs, ECMP {ecmp:.2} µs");
    }
}
