//! `flow_goodput_bps` (issue 37): the rate at which a flow's new bytes reach its receiving
//! host, never above the link that brings them, even when a retransmission fills a hole and
//! releases a window of buffered bytes at once.

mod common;

use common::{flow_dir, run_in};
use dcnsim::metrics::series::SeriesKind;
use std::collections::BTreeMap;

#[test]
fn goodput_with_losses_never_exceeds_the_receivers_link() {
    // Four 2 MB NewReno flows into one host through a 20-packet buffer: drops, holes,
    // retransmissions. Samples every 20 µs (a hole filled releases far more than that).
    let csv =
        "src,dst,size_bytes,start_s\n0,4,2000000,0\n1,4,2000000,0\n2,4,2000000,0\n3,4,2000000,0\n";
    let dir = flow_dir("goodput-cap", csv);
    let text = r#"
[topology]
kind = "star"
hosts = 5
link_gbps = 10
link_delay_us = 2
buffer_pkts = 20
[transport]
protocol = "tcp"
[workload]
kind = "flows"
file = "flows.csv"
[output]
series_interval_us = 20
"#;
    let out = run_in(text, &[], &dir);
    assert!(out.flows.iter().all(|f| f.finish.is_some()));
    assert!(
        out.flows.iter().map(|f| f.retransmits).sum::<u64>() > 0,
        "the test needs losses"
    );
    // Bytes reaching the host in (t − iv, t] are packets whose last bit arrived then: they
    // were serialised one after another on its 10 Gb/s link, all within the interval but the
    // first, which may have started before it. So at most rate × iv + one packet.
    let iv = 20e-6;
    let wire_packet = 1600.0; // bytes: more than a full TCP segment with its headers
    let cap = 10e9 + wire_packet * 8.0 / iv;
    let s = out.series.as_ref().unwrap();
    let mut per_sample: BTreeMap<u64, f64> = BTreeMap::new();
    let mut per_flow = vec![0.0; out.flows.len()];
    for i in 0..s.len() {
        if s.kind[i] == SeriesKind::FlowGoodputBps {
            let v = s.value[i];
            assert!(v <= cap, "flow {} at {} s: {v} b/s", s.id[i], s.time_s[i]);
            *per_sample.entry(s.time_s[i].to_bits()).or_default() += v;
            per_flow[s.id[i] as usize] += v * iv / 8.0;
        }
    }
    for (t, v) in per_sample {
        assert!(v <= cap, "all flows at {} s: {v} b/s", f64::from_bits(t));
    }
    // Every byte reached the receiver at least once, and every interval is sampled, the one
    // the last flow ended in included: all of a flow's bytes are in its series (to rounding).
    for (f, got) in out.flows.iter().zip(per_flow) {
        let want = f.size_bytes as f64;
        assert!(got >= want * (1.0 - 1e-9), "flow {}: {got}", f.flow_id);
        assert!(
            got <= want * 1.05,
            "flow {}: {got} counted, far above its size",
            f.flow_id
        );
    }
}
