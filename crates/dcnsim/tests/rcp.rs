//! RCP end to end, under its two sets of defaults (module doc of `protocols::rcp`): the `ps`
//! variant (the default) comes within a few per cent of processor sharing on a data-center
//! star and does not overflow the buffer at RCP's own scale; the published law reaches line
//! rate alone, shares equally, and is held well below capacity by its queue term at
//! data-center BDPs and overflows a 3-BDP buffer at its own scale.

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
/// lowers R by a few per mille until the next interval restores it. That is the published
/// law's R(0) = C; the `ps` variant's R(0) = 0.05·C costs the ramp measured in
/// [`lone_flow_under_ps_ramps_up_from_r0`].
#[test]
fn lone_flow_reaches_line_rate() {
    let dir = flow_dir("rcp-alone", "src,dst,size_bytes,start_s\n0,1,1460000,0\n");
    let out = run_in(&star(2), &[PUBLISHED], &dir);
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

const PUBLISHED: &str = "transport.rcp_variant=published";

/// The same flow under the `ps` defaults: the link starts at R(0) = 0.05·C and the law grows
/// R as a logistic, dR/dt = (α/d0)·R·(1 − R/C) (spare capacity C − y with y = R, no queue).
/// Against line rate from the start it loses ∫(1 − R/C) dt = (d0/α)·ln(C/R(0)) =
/// 6.49 µs / 0.1 · ln 20 = 194 µs. The senders follow R one RTT late, so y trails R and R
/// grows a little faster than the logistic: measured 162 µs. Asserted: between 0.7 and 1.05
/// of the hand value, against the published law's FCT.
#[test]
fn lone_flow_under_ps_ramps_up_from_r0() {
    let dir = flow_dir(
        "rcp-alone-ps",
        "src,dst,size_bytes,start_s\n0,1,1460000,0\n",
    );
    let ps = run_in(&star(2), &[], &dir).flows[0].fct().unwrap();
    let published = run_in(&star(2), &[PUBLISHED], &dir).flows[0].fct().unwrap();
    let lost = (ps - published).as_secs_f64();
    let hand = 6.49e-6 / 0.1 * 20f64.ln();
    assert!(
        lost > 0.7 * hand && lost < 1.05 * hand,
        "ramp {:.1} µs vs (d0/α)·ln 20 = {:.1} µs",
        lost * 1e6,
        hand * 1e6
    );
}

/// The case: four 4 MB flows start together into one 10 Gb/s port. Processor sharing
/// ends all four together once 4 · (4 000 000 + 2 740 · 48) wire bytes have crossed:
/// 13.221 ms. The `ps` defaults: every flow within 2 % of that (measured 13.35 ms, +1.0 %:
/// the ramp from R(0) = 0.05·C to C/4, (d0/α)·ln(C/(4·R(0))) ≈ 104 µs, plus the handshake).
/// The published law: more than 30 % over (measured 21.4 ms: its queue term holds the link
/// near 62 %).
#[test]
fn four_equal_flows_finish_near_processor_sharing() {
    let csv = (0..4).fold(String::from("src,dst,size_bytes,start_s\n"), |c, i| {
        c + &format!("{i},4,4000000,0\n")
    });
    let dir = flow_dir("rcp-four", &csv);
    let ps: f64 = 4.0 * (4_000_000.0 + 2_740.0 * 48.0) * 8.0 / 10e9;
    assert!((ps - 13.221e-3).abs() < 1e-6);
    let out = run_in(&star(5), &[], &dir);
    for f in &out.flows {
        let fct = f.fct().unwrap().as_secs_f64();
        assert!(
            fct > ps && (fct - ps) / ps < 0.02,
            "ps defaults: {fct:.6} s vs PS {ps:.6} s"
        );
    }
    assert_eq!(out.counters.dropped_pkts, 0);
    let out = run_in(&star(5), &[PUBLISHED], &dir);
    for f in &out.flows {
        let fct = f.fct().unwrap().as_secs_f64();
        assert!(fct > 1.3 * ps, "published law: {fct:.6} s vs PS {ps:.6} s");
    }
}

/// RCP's own scale (the issue): 1 Gb/s, 10 ms links (RTT 40 ms; BDP 5 MB, 3 316 packets of
/// 1 508 B), 10 000-packet buffers, eight 10 MB flows starting together into one host.
///
/// Published law, R(0) = C: the first RTT alone brings 8 BDPs to the receiver's port, which
/// drains 1 and holds 10 000 / 3 316 ≈ 3: at least 4 BDPs are dropped, before any feedback
/// (the law then lowers R, but the senders hear of it an RTT and a queue later).
///
/// `ps` defaults, R(0) = 0.05·C: eight flows start at 0.4 C together, so no queue builds, and
/// R grows to C/8 with the aggregate y = 8R a logistic from 0.4 C. Against processor sharing
/// from the start (8 · wire(10 MB) at 1 Gb/s = 661 ms, after the handshake's round trip and
/// the 20 ms the first bytes take to the receiver) they lose (d0/α)·ln(1/0.4) = 367 ms
/// (d0 = 40.03 ms); as for a lone flow ([`lone_flow_under_ps_ramps_up_from_r0`]) the senders'
/// lag makes it a little less (measured 293 ms, every flow ends at 1 014 ms). Asserted: no
/// drop, and the loss of every flow between 0.7 and 1.05 of the hand value. A 200 ms
/// initial RTO keeps SYNs from timing out before the first 40 ms round trip (not what this
/// test is about).
#[test]
fn r0_at_rcps_own_scale() {
    let csv = (0..8).fold(String::from("src,dst,size_bytes,start_s\n"), |c, i| {
        c + &format!("{i},8,10000000,0\n")
    });
    let dir = flow_dir("rcp-own-scale", &csv);
    let text = star_with_flow_file(9, 1, "rcp", "initial_rto_us = 200000").replace(
        "link_delay_us = 1",
        "link_delay_us = 10000\nbuffer_pkts = 10000",
    );
    let published = run_in(&text, &[PUBLISHED, "stop_s=2"], &dir);
    let bdp_pkts = 1e9 * 0.040 / 8.0 / 1508.0;
    assert!(
        published.counters.dropped_pkts as f64 > 4.0 * bdp_pkts,
        "{} drops",
        published.counters.dropped_pkts
    );
    let out = run_in(&text, &[], &dir);
    assert_eq!(out.counters.dropped_pkts, 0);
    let drain = 8.0 * (10_000_000.0 + 6_850.0 * 48.0) * 8.0 / 1e9;
    let d0 = 0.040_025;
    let hand = d0 / 0.1 * (1.0f64 / 0.4).ln();
    for f in &out.flows {
        let lost = f.fct().unwrap().as_secs_f64() - (d0 + 0.020 + drain);
        assert!(
            lost > 0.7 * hand && lost < 1.05 * hand,
            "ramp {:.1} ms vs hand {:.1} ms",
            lost * 1e3,
            hand * 1e3
        );
    }
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

/// The `ps` defaults (β ≈ 0.00027 on this star, ns-2's start R(0) = 0.05·C): every flow
/// within 5 % of processor sharing (measured +3.2 % for the first, the ramp from R(0), less for
/// the others). So does the bare variant the issue measured, β = 0.
#[test]
fn ps_defaults_are_processor_sharing() {
    for (overrides, tag) in [
        (&[][..], "rcp-ps"),
        (&["transport.rcp_beta=0"][..], "rcp-ps-beta0"),
    ] {
        let out = four_flows(overrides, tag);
        for (k, ps) in processor_sharing_fcts().into_iter().enumerate() {
            let fct = fct_of(&out, PS_SIZES[k]);
            assert!(
                (fct - ps).abs() / ps < 0.05,
                "{tag}, flow {k}: fct {fct:.6} s vs PS {ps:.6} s"
            );
        }
    }
}

/// The published law (α = 0.1, β = 1, R(0) = C) still gives every flow the same rate —
/// all flows read the one R of the shared link — but at data-center BDPs its queue term keeps
/// the link well below capacity (the module doc has the numbers: the first flow takes about
/// twice its processor-sharing time). Equal shares: when the 1 MB flow finishes, each of the
/// other three has delivered as much as it did (within 5 %). And no flow beats processor
/// sharing.
#[test]
fn published_rcp_shares_equally_below_capacity() {
    let out = four_flows(&[PUBLISHED], "rcp-published");
    let first = fct_of(&out, PS_SIZES[0]);
    let ps = processor_sharing_fcts();
    for (k, &size) in PS_SIZES.iter().enumerate() {
        assert!(
            fct_of(&out, size) >= ps[k] * 0.99,
            "flow {k} beats processor sharing"
        );
    }
    let stop = format!("stop_s={first}");
    let cut = four_flows(&[PUBLISHED, &stop], "rcp-published-cut");
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
