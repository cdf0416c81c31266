//! RCP end to end: a lone flow at line rate after its handshake, and flows arriving together
//! on one bottleneck sharing it equally — as processor sharing does without the queue term,
//! and below capacity with the published law (see the module doc).

mod common;
use common::{flow_dir, run_in, star_with_flow_file};
use dcnsim::metrics::RunOutput;
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

const PS_SIZES: [u64; 4] = [1_000_000, 2_000_000, 3_000_000, 4_000_000];

/// Four senders start 1, 2, 3 and 4 MB flows at once towards one receiver.
fn four_flows(overrides: &[&str], tag: &str) -> RunOutput {
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for (i, s) in PS_SIZES.iter().enumerate() {
        csv += &format!("{i},4,{s},0\n");
    }
    run_in(&star(5), overrides, &flow_dir(tag, &csv))
}

/// Processor sharing gives each active flow C/n: the 1 MB flow ends after 4 MB have crossed,
/// the 2 MB flow after 4 + 3 = 7 MB, then 9 MB, then 10 MB (wire bytes: 48 B per packet).
fn processor_sharing_fcts() -> Vec<f64> {
    let wire = |s: u64| (s + s.div_ceil(1460) * 48) as f64;
    let c = 10e9 / 8.0;
    let (mut t, mut done) = (0.0, 0.0);
    let mut fcts = Vec::new();
    for (k, &s) in PS_SIZES.iter().enumerate() {
        // Between completions, the n − k remaining flows each move (wire(s) − done) bytes.
        t += (PS_SIZES.len() - k) as f64 * (wire(s) - done) / c;
        done = wire(s);
        fcts.push(t);
    }
    fcts
}

fn fct_of(out: &RunOutput, size: u64) -> f64 {
    let f = out.flows.iter().find(|f| f.size_bytes == size).unwrap();
    f.fct().expect("finished").as_secs_f64()
}

/// The processor-sharing RCP: no queue term (β = 0, as the stability analyses the module doc
/// cites recommend) and ns-2's start R(0) = 0.05·C. Every flow within 5 % of processor sharing.
#[test]
fn rcp_without_queue_term_is_processor_sharing() {
    let out = four_flows(
        &["transport.rcp_beta=0", "transport.rcp_init_rate=0.05"],
        "rcp-ps",
    );
    for (k, ps) in processor_sharing_fcts().into_iter().enumerate() {
        let fct = fct_of(&out, PS_SIZES[k]);
        assert!(
            (fct - ps).abs() / ps < 0.05,
            "flow {k}: fct {fct:.6} s vs PS {ps:.6} s"
        );
    }
}

/// The published law (α = 0.1, β = 1, the defaults) still gives every flow the same rate —
/// all flows read the one R of the shared link — but at data-center BDPs its queue term keeps
/// the link well below capacity (the module doc has the numbers: the first flow takes about
/// twice its processor-sharing time). Equal shares: when the 1 MB flow finishes, each of the
/// other three has delivered as much as it did (within 5 %). And no flow beats processor
/// sharing.
#[test]
fn published_rcp_shares_equally_below_capacity() {
    let out = four_flows(&[], "rcp-published");
    let first = fct_of(&out, PS_SIZES[0]);
    let ps = processor_sharing_fcts();
    for (k, &size) in PS_SIZES.iter().enumerate() {
        assert!(
            fct_of(&out, size) >= ps[k] * 0.99,
            "flow {k} beats processor sharing"
        );
    }
    let stop = format!("stop_s={first}");
    let cut = four_flows(&[&stop], "rcp-published-cut");
    let delivered_first = cut
        .flows
        .iter()
        .find(|f| f.size_bytes == PS_SIZES[0])
        .unwrap();
    for f in cut.flows.iter().filter(|f| f.size_bytes != PS_SIZES[0]) {
        let ratio = f.bytes_delivered as f64 / delivered_first.bytes_delivered as f64;
        assert!(
            (ratio - 1.0).abs() < 0.05,
            "flow of {} B delivered {} B vs the first flow's {} B",
            f.size_bytes,
            f.bytes_delivered,
            delivered_first.bytes_delivered
        );
    }
}
