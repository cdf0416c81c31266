//! PDQ and M-PDQ end to end: a lone flow at line rate, SRPT order on one bottleneck, EDF and
//! Early Termination with deadlines, Early Start's effect, M-PDQ's paths on BCube, and ACKs
//! routed back over their data's path by the switch agent.

mod common;
use common::{flow_dir, run_in, run_toml, star_with_flow_file};
use dcnsim::metrics::RunOutput;
use dcnsim::units::Time;
use std::path::Path;

fn star(hosts: u32, protocol: &str) -> String {
    star_with_flow_file(hosts, 10, protocol, "")
}

/// 10 Gb/s: serialisation of a data packet (1460 + 40 + 16 bytes) and of a header-only packet.
fn ser(bytes: u64) -> Time {
    Time::from_ps(bytes * 800)
}
const DATA: u64 = 1516;
const CTRL: u64 = 56;

fn fct_us(out: &RunOutput, i: usize) -> f64 {
    out.flows[i].fct().expect("flow finished").as_us_f64()
}

/// The handshake (SYN out, SYN-ACK back over two 1 µs hops each) grants the whole link; the
/// data then leaves paced at exactly 10 Gb/s, so the NIC never idles and the FCT is exact.
#[test]
fn lone_flow_runs_at_line_rate_after_one_handshake() {
    let dir = flow_dir("pdq-alone", "src,dst,size_bytes,start_s\n0,1,146000,0\n");
    let out = run_in(&star(2, "pdq"), &[], &dir);
    let f = &out.flows[0];
    let hop = |b| ser(b) + Time::from_us(1);
    let expected = hop(CTRL) * 4 + hop(DATA) * 2 + ser(DATA) * 99;
    assert_eq!(f.fct(), Some(expected));
    assert_eq!(f.fct().unwrap() - f.ideal_fct, hop(CTRL) * 4);
    assert_eq!(
        (f.retransmits, f.timeouts, out.counters.dropped_pkts),
        (0, 0, 0)
    );
}

/// Four flows of 2000, 4000, 6000 and 8000 packets to one receiver, started together (the
/// longest listed first): PDQ serves them shortest-first, back to back. SRPT schedule: flow i
/// ends when the packets of every shorter flow and its own have crossed the bottleneck. The
/// first round trips are a scramble (the four SYNs are all accepted before any commit, the
/// queue they build sets C to 0 for a while): about 100 µs lost, 4 % of the shortest flow.
#[test]
fn flows_on_one_bottleneck_finish_in_srpt_order() {
    let sizes = [8000u64, 6000, 4000, 2000];
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for (i, n) in sizes.iter().enumerate() {
        csv += &format!("{},4,{},0\n", i, n * 1460);
    }
    let dir = flow_dir("pdq-srpt", &csv);
    let out = run_in(&star(5, "pdq"), &[], &dir);
    let hop = |b| (ser(b) + Time::from_us(1)).as_us_f64();
    let handshake = 4.0 * hop(CTRL);
    let mut order: Vec<usize> = (0..4).collect();
    order.sort_by_key(|&i| sizes[i]);
    let mut before = 0u64;
    for &i in &order {
        before += sizes[i];
        let srpt = handshake + hop(DATA) + (before as f64) * ser(DATA).as_us_f64() + 1.0;
        let fct = fct_us(&out, i);
        assert!(
            (fct - srpt).abs() / srpt < 0.05,
            "flow {i} ({} pkts): fct {fct:.2} µs vs SRPT {srpt:.2} µs",
            sizes[i]
        );
    }
    assert_eq!(out.counters.dropped_pkts, 0);
}

/// Flow 0: 50 packets (61 µs), deadline 300 µs; flow 1: 100 packets (121 µs), deadline 180 µs.
/// Only EDF meets both: shortest-first (or fair sharing) ends flow 1 after ~190 µs.
#[test]
fn earliest_deadline_first_meets_both_deadlines() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,2,73000,0,300e-6\n1,2,146000,0,180e-6\n";
    let dir = flow_dir("pdq-edf", csv);
    let out = run_in(&star(3, "pdq"), &[], &dir);
    for f in &out.flows {
        assert_eq!(
            f.met_deadline(),
            Some(true),
            "flow {}: {:?}",
            f.flow_id,
            f.fct()
        );
    }
    assert!(
        fct_us(&out, 1) < fct_us(&out, 0),
        "the earlier deadline goes first"
    );
    // The same flows without deadlines: SJF sends flow 0 first and flow 1 ends too late.
    let csv = "src,dst,size_bytes,start_s\n0,2,73000,0\n1,2,146000,0\n";
    let dir = flow_dir("pdq-sjf", csv);
    let sjf = run_in(&star(3, "pdq"), &[], &dir);
    assert!(fct_us(&sjf, 1) > 180.0, "{}", fct_us(&sjf, 1));
}

/// Flow 0 (deadline 100 µs, 50 packets) preempts flow 1 (deadline 150 µs, 100 packets = 117 µs
/// at line rate): flow 1 cannot make it, and once now + its remaining bytes at line rate pass
/// 150 µs it is terminated, so flow 2 (no deadline, 100 packets) follows flow 0 directly.
/// Without Early Termination flow 1 (more critical than flow 2) takes the link first, misses
/// its deadline anyway, and flow 2 waits 100 packets longer.
#[test]
fn early_termination_frees_the_link_for_others() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n\
               0,3,73000,0,100e-6\n1,3,146000,0,150e-6\n2,3,146000,0,\n";
    let dir = flow_dir("pdq-et", csv);
    let out = run_in(&star(4, "pdq"), &[], &dir);
    let f = &out.flows;
    assert_eq!(f[0].met_deadline(), Some(true));
    let t = f[1].terminated.expect("flow 1 terminated");
    assert!(f[1].finish.is_none() && f[1].met_deadline() == Some(false));
    // At termination its remaining bytes no longer fit before the deadline, and it gave up
    // well before the deadline itself (while flow 0 held the link).
    let remaining = Time::from_ps((146_000 - f[1].bytes_delivered) * 800);
    assert!(
        t + remaining > Time::from_us(150) && t < Time::from_us(100),
        "{t:?}"
    );
    // Flow 2 runs right after flow 0: 150 packets' time plus the handshake (188 µs), and up
    // to 15 % more for the first round trips, when the three simultaneous SYNs are sorted
    // out (dampening holds all but one back, ~20 µs).
    let back_to_back = 4.0 * 1.0448 + 2.0 * 2.2128 + 149.0 * 1.2128;
    let fct2 = fct_us(&out, 2);
    assert!(
        fct2 > back_to_back && fct2 < 1.15 * back_to_back,
        "{fct2} vs {back_to_back}"
    );
    // Without Early Termination flow 1 holds the link for its 100 packets first.
    let late = run_in(
        &star(4, "pdq"),
        &["transport.pdq_early_termination=false"],
        &dir,
    );
    assert!(late.flows[1].terminated.is_none());
    assert_eq!(late.flows[1].met_deadline(), Some(false));
    assert!(
        fct_us(&late, 2) > fct2 + 100.0,
        "{} vs {fct2}",
        fct_us(&late, 2)
    );
}

/// Flow 0 (50 packets) and flow 1 (100 packets) start together. With Early Start flow 1 is
/// let in while flow 0's last two RTTs drain, so the bottleneck never idles. Without it, flow 1
/// waits for flow 0's TERM: after flow 0's last packet leaves the bottleneck, its ACK returns
/// (1 + 2 hops), the TERM reaches the bottleneck (1 hop), flow 1's next probe gets there no
/// earlier, its ACK returns (1 + 2 hops) and flow 1's first packet crosses the NIC: at least
/// 8 µs of propagation, 6 header and 1 data serialisations ≈ 9.48 µs of idle link, and at
/// most one probe interval (one RTT ≈ 6.5 µs) more.
#[test]
fn without_early_start_a_gap_opens_between_flows() {
    let csv = "src,dst,size_bytes,start_s\n0,2,73000,0\n1,2,146000,0\n";
    let dir = flow_dir("pdq-es", csv);
    let with = run_in(&star(3, "pdq"), &[], &dir);
    let without = run_in(&star(3, "pdq"), &["transport.pdq_early_start=false"], &dir);
    let min_gap = 8.0 + 6.0 * ser(CTRL).as_us_f64() + ser(DATA).as_us_f64();
    let rtt = 2.0 * (ser(DATA).as_us_f64() + 1.0) + 2.0 * (ser(CTRL).as_us_f64() + 1.0);
    let gap = fct_us(&without, 1) - fct_us(&with, 1);
    assert!(
        gap >= min_gap - 0.5 && gap <= min_gap + rtt + 0.5,
        "gap {gap:.2} µs, expected {min_gap:.2}..{:.2}",
        min_gap + rtt
    );
    // The first flow is not affected.
    assert!((fct_us(&without, 0) - fct_us(&with, 0)).abs() < 1.0);
}

/// Two hosts at 1 Gb/s, each with ten flows (9–197 KB) to the other, all starting together.
/// Each NIC carries its host's data and the ACKs of the other host's data, so one data packet
/// costs 1516 + 56 bytes of NIC time, and a host's flows cannot end before its packets × 1572
/// bytes at 1 Gb/s. PDQ with Early Start must stay lossless here and come close to that bound.
/// It used to lose 166 packets at the NICs and end 18–22 % late: the senders wrote their
/// smoothed RTT into RTT_H, the ACKs waited behind the other host's data, and with RTTs 8×
/// the base RTT, Algorithm 2 took flows 200 µs from their end for "within K = 2 RTTs" and
/// granted the link to the next one as well, which grew the queue and the RTTs further. With
/// `pdq_syn_requests_rate = false` it lost 1099: every SYN-ACK was read as a grant of the NIC
/// rate, so all ten flows of a host sent at line rate until their first ACK came back.
#[test]
fn early_start_stays_lossless_with_traffic_both_ways() {
    let a_to_b = [36, 147, 197, 18, 67, 32, 128, 196, 117, 122];
    let b_to_a = [168, 99, 55, 26, 126, 9, 101, 112, 157, 197];
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for (src, sizes) in [(0, a_to_b), (1, b_to_a)] {
        for kb in sizes {
            csv += &format!("{src},{},{},0\n", 1 - src, kb * 1000);
        }
    }
    let dir = flow_dir("pdq-es-both-ways", &csv);
    let star = star_with_flow_file(2, 1, "pdq", "");
    // Without the SYN's request h1 used to overfill its own NIC queue once, 6 ms in (flows
    // that start late take a queued RTT for their base RTT, module doc "RTT_H"): with a
    // drop-tail NIC one packet was lost, and h1's last flow ended 12.7 % past the bound. Since
    // the dampening clock and the drain time were read anew (issue 35) it does not.
    let syn_off = &["transport.pdq_syn_requests_rate=false"][..];
    let syn_off_droptail = &[
        "transport.pdq_syn_requests_rate=false",
        "topology.host_nic=\"droptail\"",
    ][..];
    for extra in [&[][..], syn_off, syn_off_droptail] {
        let out = run_in(&star, extra, &dir);
        assert_eq!(out.counters.dropped_pkts, 0, "{extra:?}");
        for (src, sizes) in [(0, a_to_b), (1, b_to_a)] {
            let packets: u64 = sizes.iter().map(|kb| (kb * 1000u64).div_ceil(1460)).sum();
            let bound = Time::from_ps(packets * 1572 * 8000).as_us_f64();
            let flows = out.flows.iter().filter(|f| f.src == src);
            let last = flows
                .map(|f| f.finish.unwrap().as_us_f64())
                .fold(0.0, f64::max);
            assert!(
                last > bound && last < 1.10 * bound,
                "{extra:?} host {src}: last flow ends at {last:.0} µs, bound {bound:.0} µs"
            );
        }
    }
}

/// The mean FCT of the SJF (or SRPT, all flows starting together) schedule on one link of
/// `gbps`: flows back to back, shortest first, each packet 1516 bytes on the wire.
fn sjf_mean_us(sizes: &[u64], gbps: u64) -> f64 {
    let mut sorted = sizes.to_vec();
    sorted.sort();
    let mut end = 0.0;
    let ends: Vec<f64> = sorted
        .iter()
        .map(|b| {
            end += (b.div_ceil(1460) * DATA * 8) as f64 / (gbps as f64 * 1e3);
            end
        })
        .collect();
    ends.iter().sum::<f64>() / ends.len() as f64
}

fn mean_fct_us(out: &RunOutput) -> f64 {
    (0..out.flows.len()).map(|i| fct_us(out, i)).sum::<f64>() / out.flows.len() as f64
}

/// Issue 35's first case: ten flows of 3–178 KB from one host to another at 1 Gb/s, all at
/// t = 0. PDQ must come within 10 % of SJF and end them in size order. It was 9 % over with
/// the 3 KB flow held off for 31 µs by a less critical flow whose re-proposals restarted the
/// dampening clock, and 9.6–10.7 % over before the rate controller's drain time was floored.
#[test]
fn ten_flows_between_two_hosts_come_close_to_sjf() {
    let sizes = [3u64, 9, 17, 28, 40, 60, 80, 110, 140, 178].map(|kb| kb * 1000);
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for b in sizes.iter().rev() {
        csv += &format!("0,1,{b},0\n");
    }
    let dir = flow_dir("pdq-two-hosts-sjf", &csv);
    let out = run_in(&star_with_flow_file(2, 1, "pdq", ""), &[], &dir);
    let sjf = sjf_mean_us(&sizes, 1);
    let mean = mean_fct_us(&out);
    assert!(mean < 1.10 * sjf, "mean {mean:.0} µs, SJF {sjf:.0} µs");
    let mut by_finish: Vec<_> = out.flows.iter().collect();
    by_finish.sort_by_key(|f| f.finish);
    let order: Vec<u64> = by_finish.iter().map(|f| f.size_bytes).collect();
    let mut ascending = order.clone();
    ascending.sort();
    assert_eq!(order, ascending);
}

/// Issue 35's second case: six flows of 1–6 MB from six hosts into one 1 Gb/s port at t = 0.
/// PDQ must come within 6 % of SRPT; it was 8.7 % over (the first flow 22 %): after the rate
/// controller raised C, Algorithm 2 counted the head flow at its stale committed rate and
/// granted the difference to a flow further down, a cycle that kept the head near 800 Mb/s.
/// The literal accounting shows the gap.
#[test]
fn six_flows_into_one_port_come_close_to_srpt() {
    let sizes: Vec<u64> = (1..=6).map(|mb| mb * 1_000_000).collect();
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for (i, b) in sizes.iter().enumerate() {
        csv += &format!("{i},6,{b},0\n");
    }
    let dir = flow_dir("pdq-six-srpt", &csv);
    let srpt = sjf_mean_us(&sizes, 1);
    let star = star_with_flow_file(7, 1, "pdq", "");
    let whole = mean_fct_us(&run_in(&star, &[], &dir));
    assert!(whole < 1.06 * srpt, "mean {whole:.0} µs, SRPT {srpt:.0} µs");
    let literal = mean_fct_us(&run_in(
        &star,
        &["transport.pdq_accounting=\"literal\""],
        &dir,
    ));
    assert!(
        literal > 1.08 * srpt,
        "literal {literal:.0} µs, SRPT {srpt:.0} µs"
    );
}

/// Issue 35's smallest case of idle capacity: a 5 MB flow h0 → h2 is the most critical at
/// h2's port, a 20 MB flow h1 → h2 (10 µs later) takes what it leaves, and a 10 MB flow
/// h2 → h0 (20 µs) sends its ACKs up h0's NIC and down h2's port beside the 5 MB flow's data.
/// One 56-byte ACK per 1 516-byte packet leaves the 5 MB flow 1516/1572 of each link, so it
/// could end at its ideal FCT × 1572/1516. The paper's rate controller (every 2 RTTs, drain
/// over 2) cuts C on the queues that the ACKs and the less critical flow's slivers build, and
/// the cut still holds after they drained: 2.6 % later. The damped loop (`pdq_rate_update =
/// "damped"`: every RTT, over 4) does not idle the link.
#[test]
fn the_literal_rate_controller_idles_a_preempting_flow_s_link_and_the_damped_one_does_not() {
    let csv =
        "src,dst,size_bytes,start_s\n0,2,5000000,0\n1,2,20000000,0.00001\n2,0,10000000,0.00002\n";
    let dir = flow_dir("pdq-sliver", csv);
    let star = star_with_flow_file(3, 10, "pdq", "");
    let late = |out: &RunOutput| {
        let due = out.flows[0].ideal_fct.as_us_f64() * 1572.0 / 1516.0;
        fct_us(out, 0) / due - 1.0
    };
    let literal = late(&run_in(&star, &[], &dir));
    assert!(literal > 0.02, "literal: {:.2} % late", literal * 100.0);
    let damped = late(&run_in(
        &star,
        &["transport.pdq_rate_update=\"damped\""],
        &dir,
    ));
    assert!(damped.abs() < 0.01, "damped: {:.2} % late", damped * 100.0);
}

/// One-packet flows (1 KB) at load 0.1 on a 4-host star at 10 Gb/s, one new flow every 8 µs
/// per host. Every flow must be accepted at its NIC and at its receiver's port, and Dampening
/// holds a paused (or new) flow while another acceptance there is recent. Held for the whole
/// 10 µs, that admits at most one flow per 10 µs per link, fewer than arrive: flows queued
/// for admission without bound (found in review: 30 000 such flows took 147 ms each on
/// average). Released once the accepted flow's commit is back, the mean of these 500 stays
/// within three lone-flow times (the handshake and one packet, two hops each way; 30 000 such
/// flows average 3.2).
#[test]
fn one_packet_flows_are_not_held_back_one_per_dampening_interval() {
    let star = r#"
seed = 1
[topology]
kind = "star"
hosts = 4
link_gbps = 10
link_delay_us = 1
[transport]
protocol = "pdq"
[workload]
kind = "poisson"
sizes = { dist = "fixed", kb = 1 }
load = 0.1
flows = 500
"#;
    let hop = |b| (ser(b) + Time::from_us(1)).as_us_f64();
    let lone = 4.0 * hop(CTRL) + 2.0 * hop(1000 + CTRL);
    let released = mean_fct_us(&run_toml(star, &[]));
    assert!(
        released < 3.0 * lone,
        "mean {released:.1} µs, a lone flow {lone:.1} µs"
    );
    let held = mean_fct_us(&run_toml(star, &["transport.pdq_accounting=\"literal\""]));
    assert!(
        held > 10.0 * lone,
        "literal mean {held:.1} µs, a lone flow {lone:.1} µs"
    );
}

/// Issue 35's third case: web-search flows on a k = 4 fat-tree at load 0.6 (`examples/demo.toml`
/// with 1 000 flows). The goal: within 15 % of the flow-level model, at least 25 % below D3,
/// no drops. With the defaults (whole-path accounting, the paper's rate controller, the host's
/// base RTT): no drop, 15.1 % over; D3 is 83 % over. With the damped rate controller
/// (`pdq_rate_update = "damped"`, whose costs show elsewhere: module doc): 10.9 % over. With
/// the digest's Algorithms 1–3 as written (`pdq_accounting = "literal"`), links let flows send
/// that they no longer count (accepted and then evicted before the commit, or removed while
/// paused elsewhere and then resumed by the pauser): 1 204 drops, 105 timeouts, 32 % over.
#[test]
fn on_a_fat_tree_pdq_keeps_close_to_its_flow_level_model() {
    let demo = include_str!("../../../examples/demo.toml");
    let flows = "workload.flows=1000";
    let run = |extra: &[&str]| {
        let mut all = vec![flows, "transport.protocol=\"pdq\""];
        all.extend(extra);
        run_toml(demo, &all)
    };
    let overrides = [flows, "transport.protocol=\"pdq\"", "engine=flow"].map(String::from);
    let prepared = dcnsim::prepare_text(demo, dcnsim::Format::Toml, &overrides, Path::new("."))
        .expect("scenario is valid");
    let fluid = mean_fct_us(&dcnsim::run_prepared(prepared, &mut |_| true).expect("run completes"));
    let d3 = mean_fct_us(&run_toml(demo, &[flows, "transport.protocol=\"d3\""]));
    let defaults = run(&[]);
    let damped = mean_fct_us(&run(&["transport.pdq_rate_update=\"damped\""]));
    let literal = run(&["transport.pdq_accounting=\"literal\""]);
    let (m, l) = (mean_fct_us(&defaults), mean_fct_us(&literal));
    assert!(
        m < 1.20 * fluid,
        "defaults {m:.0} µs, flow level {fluid:.0} µs"
    );
    assert!(m < 0.75 * d3, "defaults {m:.0} µs, D3 {d3:.0} µs");
    assert!(
        damped < 1.15 * fluid,
        "damped {damped:.0} µs, flow level {fluid:.0} µs"
    );
    assert!(
        l > 1.25 * fluid,
        "literal {l:.0} µs, flow level {fluid:.0} µs"
    );
    let (dm, dl) = (
        defaults.counters.dropped_pkts,
        literal.counters.dropped_pkts,
    );
    assert!(dm * 20 < dl, "drops: defaults {dm}, literal {dl}");
}

/// ACKs still in flight when a flow sends its TERM must not put it back on a link's list: a
/// deadline flow (h0 → h1) ended by Early Termination with data in flight, and a later flow of
/// the same host (h0 → h2, 10 packets). When the link adopted such commits, the dead flow,
/// ranked ahead by its deadline, held h0's NIC until its entry expired: the second flow took
/// 5–6 ms instead of 20 µs (found in review).
#[test]
fn acks_after_a_term_do_not_bring_the_flow_back() {
    let star = star_with_flow_file(3, 10, "pdq", "pdq_entry_timeout_us = 5000");
    for deadline_us in [124.7, 125.0, 125.5, 126.0, 127.0, 128.0] {
        let csv = format!(
            "src,dst,size_bytes,start_s,deadline_s\n0,1,146000,0,{deadline_us}e-6\n0,2,14600,20e-6,\n"
        );
        let dir = flow_dir(&format!("pdq-term-acks-{deadline_us}"), &csv);
        let out = run_in(&star, &[], &dir);
        assert!(out.flows[0].terminated.is_some());
        let fct = fct_us(&out, 1);
        assert!(
            fct < 100.0,
            "deadline {deadline_us} µs: the later flow took {fct:.0} µs"
        );
    }
}

/// A link whose only traffic is flows paused elsewhere must still forget a silent entry: they
/// are capped by what it has for them, and a dead entry counted for ever would leave their
/// pauser nothing to grant. h3 → h2 (1 MB) holds the port to h2, which pauses h0 → h2 (2 MB);
/// a deadline flow h0 → h1 ends by Early Termination with data in flight. h0 → h2 must finish
/// after h3 → h2 (found in review: it delivered nothing in 50 ms).
#[test]
fn a_flow_paused_elsewhere_is_not_held_by_a_silent_entry() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n\
               3,2,1000000,0,\n\
               0,2,2000000,0,\n\
               0,1,146000,30e-6,126e-6\n";
    let dir = flow_dir("pdq-silent-entry", csv);
    let star = format!(
        "stop_s = 0.05\n{}",
        star_with_flow_file(4, 10, "pdq", "pdq_entry_timeout_us = 5000")
    );
    let out = run_in(&star, &[], &dir);
    let second = out
        .flows
        .iter()
        .find(|f| f.src == 0 && f.size_bytes == 2_000_000)
        .unwrap();
    let fct = second.fct().expect("h0 -> h2 finishes").as_us_f64();
    assert!(fct < 3000.0, "h0 -> h2 took {fct:.0} µs");
}

fn bcube(protocol: &str) -> String {
    format!(
        r#"
seed = 3
[topology]
kind = "bcube"
n = 2
k = 3
link_gbps = 10
link_delay_us = 1
[transport]
protocol = "{protocol}"
[workload]
kind = "flows"
file = "flows.csv"
"#
    )
}

/// One M-PDQ flow on an idle BCube(2,3) between servers 0 (0000) and 15 (1111): every level
/// gives a first hop. Its 3 subflows, hashed by ECMP, leave by m of server 0's four ports (with
/// this seed: 3, on link-disjoint paths), and it finishes about m times faster than one PDQ
/// flow (less the handshake and the first round trips, where the subflows' paths settle).
#[test]
fn mpdq_uses_several_paths_and_finishes_faster() {
    let csv = "src,dst,size_bytes,start_s\n0,15,1460000,0\n";
    let dir = flow_dir("mpdq-bcube", csv);
    let single = run_in(&bcube("pdq"), &[], &dir);
    let multi = run_in(&bcube("mpdq"), &[], &dir); // the paper's 3 subflows
    let used = |out: &RunOutput| {
        out.ports
            .iter()
            .filter(|p| p.node == "h0" && p.tx_bytes > 100_000)
            .count()
    };
    assert_eq!(used(&single), 1);
    let m = used(&multi);
    assert!(m >= 2, "subflows on {m} paths");
    let speedup = fct_us(&single, 0) / fct_us(&multi, 0);
    assert!(
        speedup > 0.75 * m as f64 && speedup < 1.1 * m as f64,
        "speedup {speedup:.2} with {m} paths"
    );
    assert_eq!(multi.flows[0].bytes_delivered, 1_460_000);
}

/// The spines a flow's packets crossed from `leaf` (the ports of `leaf` towards a spine that
/// carried anything).
fn spines_from(out: &RunOutput, leaf: &str) -> Vec<String> {
    out.ports
        .iter()
        .filter(|p| p.node == leaf && p.peer.starts_with("spine") && p.tx_packets > 0)
        .map(|p| p.peer.clone())
        .collect()
}

/// PDQ's switch agent overrides the path choice through its `route` hook: a flow's ACKs go
/// back over the spine its data crossed. Per-flow ECMP hashes each direction at a different
/// leaf, so without the hook the ACKs would share the data's spine only by chance (1 in 8
/// here); DCTCP, which has no agent, shows that over the same seeds.
#[test]
fn pdq_acks_follow_the_agent_route_back_over_their_data_spine() {
    let dir = flow_dir("pdq-reverse", "src,dst,size_bytes,start_s\n0,1,146000,0\n");
    let scenario = |protocol: &str| {
        format!(
            r#"
[topology]
kind = "leafspine"
leaves = 2
spines = 8
hosts_per_leaf = 1
link_gbps = 10
link_delay_us = 1
[transport]
protocol = "{protocol}"
[workload]
kind = "flows"
file = "flows.csv"
"#
        )
    };
    let mut ecmp_apart = 0;
    for seed in 1..=6 {
        let seed = format!("seed={seed}");
        let pdq = run_in(&scenario("pdq"), &[&seed], &dir);
        assert_eq!(pdq.flows[0].bytes_delivered, 146_000);
        let data = spines_from(&pdq, "leaf0");
        assert_eq!(data.len(), 1, "{seed}: one path for the data");
        assert_eq!(
            spines_from(&pdq, "leaf1"),
            data,
            "{seed}: ACKs by the data's spine"
        );

        let dctcp = run_in(&scenario("dctcp"), &[&seed], &dir);
        let (data, acks) = (spines_from(&dctcp, "leaf0"), spines_from(&dctcp, "leaf1"));
        assert_eq!((data.len(), acks.len()), (1, 1), "{seed}");
        ecmp_apart += usize::from(data != acks);
    }
    assert!(
        ecmp_apart > 0,
        "ECMP alone never split the directions: the test shows nothing"
    );
}
