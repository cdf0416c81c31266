//! pFabric end to end: a lone flow at line rate, and flows arriving together on one bottleneck
//! finishing shortest-first as in an SRPT schedule.

mod common;
use common::{flow_dir, run_in, star_with_flow_file};
use dcnsim::units::Time;

fn star(hosts: u32) -> String {
    star_with_flow_file(hosts, 10, "pfabric", "")
}

/// No handshake and a 12-packet first window that outlasts the 6.5 µs RTT: the NIC never idles,
/// so the flow takes exactly the ideal time (every packet store-and-forward at line rate).
#[test]
fn lone_flow_runs_at_line_rate_exactly() {
    let dir = flow_dir("pf-alone", "src,dst,size_bytes,start_s\n0,1,146000,0\n");
    let out = run_in(&star(2), &[], &dir);
    let f = &out.flows[0];
    let hop = Time::from_ns(1200) + Time::from_us(1);
    assert_eq!(f.fct(), Some(hop * 2 + Time::from_ns(1200) * 99));
    assert_eq!(f.fct(), Some(f.ideal_fct));
    assert_eq!(
        (f.retransmits, f.timeouts, out.counters.dropped_pkts),
        (0, 0, 0)
    );
}

/// Four senders start 1, 2, 3 and 4 MB flows at once towards one receiver. SRPT serves them
/// one after the other, shortest first, with the bottleneck never idle: flow k finishes when
/// the bytes of flows 1..=k have crossed it, plus the first packet's way to the bottleneck and
/// the last hop's propagation. pFabric must come within 5 % of that for every flow — its
/// tiny buffers drop the long flows' packets and their timeouts must not leave the link idle.
#[test]
fn flows_arriving_together_finish_in_srpt_order() {
    let sizes = [1_000_000u64, 2_000_000, 3_000_000, 4_000_000];
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    // Listed longest first, so the flow ids do not give the order away.
    for (i, s) in sizes.iter().rev().enumerate() {
        csv += &format!("{i},4,{s},0\n");
    }
    let out = run_in(&star(5), &[], &flow_dir("pf-srpt", &csv));
    let wire = |s: u64| s + s.div_ceil(1460) * 40;
    let ser = |bytes: u64| bytes as f64 * 8.0 / 10e9;
    let mut cumulative = 0;
    let mut finishes = Vec::new();
    for (i, &s) in sizes.iter().enumerate() {
        cumulative += wire(s);
        let srpt = ser(1500) + 1e-6 + ser(cumulative) + 1e-6;
        let f = out.flows.iter().find(|f| f.size_bytes == s).unwrap();
        let fct = f.fct().expect("finished").as_secs_f64();
        assert!(
            (fct - srpt).abs() / srpt < 0.05,
            "flow {i} ({s} B): fct {fct:.6} s vs SRPT {srpt:.6} s"
        );
        finishes.push(f.finish.unwrap());
    }
    assert!(finishes.windows(2).all(|w| w[0] < w[1]), "{finishes:?}");
    // The tiny buffers did drop packets: the schedule is not a lossless accident.
    assert!(out.counters.dropped_pkts > 0);
}
