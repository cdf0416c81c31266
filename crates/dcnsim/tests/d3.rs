//! D3 end to end: a lone flow at line rate, flows without deadline sharing equally, deadline
//! flows served first come first served (the later one quenched), the 125-flow limit of the
//! 1 B/µs allocation granularity on a 1 Gb/s link, and no flow hung by losses on a fat-tree.

mod common;
use common::{flow_dir, run_in, star_with_flow_file};
use dcnsim::units::Time;

fn star(hosts: u32, gbps: u32, extra: &str) -> String {
    star_with_flow_file(hosts, gbps, "d3", extra)
}

/// Wire bytes of a D3 flow's data: every packet carries 40 + 22 header bytes.
fn wire(size: u64) -> u64 {
    size + size.div_ceil(1460) * 62
}

/// Handshake (SYN and SYN-ACK, 62 B each, two hops each way), then the data at the SYN-ACK's
/// allocation: alone, every router gives N = 1 flow the whole link, 1250 B/µs = exactly
/// 10 Gb/s, so the data is back to back, store-and-forward over two hops. Later requests ride
/// data packets and get 1250 again: the FCT is exact.
#[test]
fn lone_flow_reaches_line_rate() {
    let dir = flow_dir("d3-alone", "src,dst,size_bytes,start_s\n0,1,1460000,0\n");
    let out = run_in(&star(2, 10, ""), &[], &dir);
    let f = &out.flows[0];
    let ser = |b: u64| Time::from_ps(b * 800);
    let hop = |b: u64| ser(b) + Time::from_us(1);
    let handshake = (hop(62) * 2) * 2;
    assert_eq!(f.ideal_fct, hop(1522) * 2 + ser(1522) * 999);
    assert_eq!(f.fct(), Some(handshake + f.ideal_fct));
    assert_eq!((f.retransmits, out.counters.dropped_pkts), (0, 0));
}

/// Four senders start 1, 2, 3 and 4 MB flows without deadline at once towards one receiver.
/// D3 gives each active flow ⌊1250/n⌋ B/µs of the bottleneck (the fair share of spare
/// capacity), re-divided one RTT after each FIN: processor sharing, which ends the 1 MB flow
/// after 4 MB have crossed, the 2 MB flow after 4 + 3 = 7 MB, then 9 MB, then 10 MB. Each
/// FCT must be within 5 % of that.
#[test]
fn flows_without_deadline_share_as_processor_sharing() {
    let sizes = [1_000_000u64, 2_000_000, 3_000_000, 4_000_000];
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for (i, s) in sizes.iter().enumerate() {
        csv += &format!("{i},4,{s},0\n");
    }
    let out = run_in(&star(5, 10, ""), &[], &flow_dir("d3-ps", &csv));
    let c = 10e9 / 8.0;
    let mut t = 0.0;
    let mut done = 0.0;
    for (k, &s) in sizes.iter().enumerate() {
        t += (sizes.len() - k) as f64 * (wire(s) as f64 - done) / c;
        done = wire(s) as f64;
        let f = out.flows.iter().find(|f| f.size_bytes == s).unwrap();
        let fct = f.fct().expect("finished").as_secs_f64();
        assert!(
            (fct - t).abs() / t < 0.05,
            "flow {k} ({s} B): fct {fct:.6} s vs PS {t:.6} s"
        );
    }
}

/// Two 1 MB flows, each with a 1 ms deadline, to one receiver; A starts at 0, B 10 µs later.
/// Each needs r = wire(1 MB)/1 ms = 1043 B/µs of the 1250 on the shared link.
///
/// A asks first and gets its demand (plus the spare fair share while it is alone): it meets
/// its deadline. B gets what is left, 1250 − 1043 = 207 B/µs, and its desired rate
/// (remaining/time left) grows as it falls behind: it passes the uplink's 1250 B/µs when
/// wire(1 MB) − 207·t > 1250·(1000 − t) (t in µs since B's start), i.e. after t ≈ 199 µs,
/// when B is quenched (terminated, a deadline miss) and A gets the whole link. EDF or
/// processor sharing would treat them alike; D3 serves whoever came first.
#[test]
fn first_come_meets_its_deadline_the_later_flow_is_quenched() {
    let csv =
        "src,dst,size_bytes,start_s,deadline_s\n0,2,1000000,0,0.001\n1,2,1000000,0.00001,0.001\n";
    let out = run_in(&star(3, 10, ""), &[], &flow_dir("d3-fcfs", csv));
    let a = &out.flows[0];
    let b = &out.flows[1];
    assert_eq!(a.met_deadline(), Some(true), "{a:?}");
    assert_eq!(b.met_deadline(), Some(false), "{b:?}");
    let quenched = (b.terminated.expect("B is quenched") - b.start).as_us_f64();
    assert!(
        (190.0..230.0).contains(&quenched),
        "B quenched {quenched:.1} µs after its start (hand value ≈ 199 µs + one request)"
    );
    // A: about 1043 B/µs until B leaves, then the whole link; it finishes well before 1 ms.
    assert!(a.fct().unwrap() < Time::from_us(1000));

    // Without quenching B carries on at what is left and finishes late.
    let out = run_in(
        &star(3, 10, "d3_quench = false"),
        &[],
        &flow_dir("d3-fcfs-noq", csv),
    );
    assert_eq!(out.flows[0].met_deadline(), Some(true));
    assert_eq!(out.flows[1].terminated, None);
    assert_eq!(out.flows[1].met_deadline(), Some(false));
    assert!(out.flows[1].finish.is_some());
}

/// PACE §6: "D3 has a theoretical limit of 125 flows for 1Gbps link due to the granularity
/// of allocation". 125 flows from one sender to one receiver at 1 Gb/s (125 B/µs) each get
/// 1 B/µs and all finish, at about wire(29 200 B)/1 B/µs = 30.4 ms. With 126, the fair share
/// ⌊125/126⌋ is 0: after the first flow's first RTT at its SYN's full-link allocation, every
/// flow sits at the base rate, sending one header-only request per RTT, and none finishes
/// (the first delivers what it sent in that first RTT).
#[test]
fn granularity_limits_a_1g_link_to_125_flows() {
    let size = 20 * 1460;
    let flows = |n: usize| {
        let mut csv = String::from("src,dst,size_bytes,start_s\n");
        for _ in 0..n {
            csv += &format!("0,1,{size},0\n");
        }
        csv
    };
    // The 125 flows pace in step, so a packet of each reaches the NIC at once: 125 packets
    // (more than the default 100-packet buffer) and 1.5 ms of queue, longer than the 1 ms
    // minimum RTO. A 200-packet buffer and a 5 ms minimum RTO keep that burst from causing
    // drops and spurious timeouts, which are not what this test is about.
    let roomy = ["topology.buffer_pkts=200", "transport.min_rto_us=5000"];
    let out = run_in(&star(2, 1, ""), &roomy, &flow_dir("d3-125", &flows(125)));
    assert_eq!(
        (
            out.counters.dropped_pkts,
            out.flows.iter().map(|f| f.retransmits).sum::<u64>()
        ),
        (0, 0)
    );
    // At 1 B/µs a 1522-B packet leaves every 1522 µs: the first at once, the 20th 19 intervals
    // later. The 125 flows' packets reach the shared NIC together, so a packet may wait for
    // one packet of every other flow (125 · 1522 B at 125 B/µs: one interval more), and the
    // requests that spread the link at the start queue behind them too (one more).
    let interval = Time::from_us(1522);
    assert!(out.flows.iter().all(|f| f.finish.is_some()));
    // Flow 0 is excepted: its SYN was served first, alone, and got the whole link for an RTT.
    for f in &out.flows[1..] {
        let fct = f.fct().expect("finished");
        assert!(
            fct > interval * 19 && fct < interval * 22,
            "{fct} vs 19..22 × {interval}"
        );
    }

    let out = run_in(
        &star(2, 1, ""),
        &["stop_s=0.01", roomy[0], roomy[1]],
        &flow_dir("d3-126", &flows(126)),
    );
    assert!(out.flows.iter().all(|f| f.finish.is_none()));
    // Flow 0 alone sent data, paced at the full link until the reply to its first data packet
    // came back: that packet waited behind the 126 SYNs at the NIC (126 · 62 B at 125 B/µs =
    // 62.5 µs), so about 80 µs at 12.2 µs per packet, 7 or 8 packets. Nobody else sent a byte.
    assert!(
        out.flows[0].bytes_delivered <= 8 * 1460,
        "{:?}",
        out.flows[0]
    );
    assert!(out.flows[1..].iter().all(|f| f.bytes_delivered == 0));
}

/// Losses on a busy fat-tree must not leave a router holding an allocation for good (issue
/// found with `bench/identity/matrix.sh`): with 80-packet buffers at 80 % load, lost SYN-ACKs
/// made senders send their SYN again (counting the flow twice and never returning the first
/// SYN's allocations), and retransmission timeouts added a second request in flight that then
/// stayed. A router whose link was held so never recovered, and every later flow through it
/// stayed at the base rate: 15 of these 150 flows never sent a byte until the run's 60 s
/// guard. Now replies are protected as requests are, a timeout adds no request, and every
/// flow finishes in about 50 ms.
#[test]
fn no_flow_hangs_on_a_lossy_fat_tree() {
    let text = r#"
seed = 3
stop_s = 0.2
[topology]
kind = "fattree"
k = 4
buffer_pkts = 80
[transport]
protocol = "d3"
[workload]
kind = "poisson"
sizes = "websearch"
load = 0.8
flows = 150
pattern = "random"
"#;
    let out = common::run_toml(text, &[]);
    assert!(out.counters.dropped_pkts > 0, "the run must lose packets");
    let timeouts: u64 = out.flows.iter().map(|f| f.timeouts).sum();
    assert!(timeouts > 0, "and time out");
    let unfinished: Vec<u32> = out
        .flows
        .iter()
        .filter(|f| f.finish.is_none())
        .map(|f| f.flow_id)
        .collect();
    assert!(unfinished.is_empty(), "unfinished flows {unfinished:?}");
}
