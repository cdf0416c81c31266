//! The flow-level model (`engine = "flow"`): allocations derivable by hand, queueing theory
//! (M/G/1 processor sharing and SRPT on one link), and refusals of what it cannot model.

mod common;
use common::flow_dir;
use dcnsim::flowsim::{FlowSimulation, FlowStats};
use dcnsim::metrics::{FlowRecord, RunOutput};
use dcnsim::Format;
use std::path::Path;

fn run_flow(text: &str, overrides: &[&str], base: &Path) -> RunOutput {
    let mut o: Vec<String> = vec!["engine=flow".into()];
    o.extend(overrides.iter().map(|s| s.to_string()));
    let p = dcnsim::prepare_text(text, Format::Toml, &o, base).expect("scenario is valid");
    dcnsim::run_prepared(p, &mut |_| true).expect("run completes")
}

/// As [`run_flow`] (no overrides), with the flow engine's own counters.
fn run_flow_with_stats(text: &str, base: &Path) -> (RunOutput, FlowStats) {
    let p = dcnsim::prepare_text(text, Format::Toml, &["engine=flow".into()], base)
        .expect("scenario is valid");
    FlowSimulation::new(p)
        .run_with_stats(&mut |_| true)
        .expect("run completes")
}

fn star(hosts: u32, gbps: u32, protocol: &str) -> String {
    common::star_with_flow_file(hosts, gbps, protocol, "")
}

/// Wire bytes of a flow under `protocol`'s segment and header sizes.
fn wire_of(protocol: &str, size: u64) -> u64 {
    let dir = flow_dir("fs-sizes", "src,dst,size_bytes,start_s\n0,1,1,0\n");
    let p = dcnsim::prepare_text(&star(2, 10, protocol), Format::Toml, &[], &dir).unwrap();
    let (mss, header) = p.transport.data_packet_sizes();
    dcnsim::flowsim::paths::wire_bytes(size, mss, header)
}

/// Wire bytes of a flow with TCP's 1460 + 40 segments.
fn wire(size: u64) -> u64 {
    size + 40 * size.div_ceil(1460).max(1)
}

/// The fluid part of a flow's FCT, in seconds: the FCT less the constant pipeline part
/// (ideal FCT less the wire bytes at `gbps`), which is what queueing theory calls the
/// response time of a job of `wire / C` seconds.
fn fluid_s(f: &FlowRecord, gbps: f64) -> f64 {
    let service = wire(f.size_bytes) as f64 * 8.0 / (gbps * 1e9);
    f.fct().expect("finished").as_secs_f64() - f.ideal_fct.as_secs_f64() + service
}

fn by_src(out: &RunOutput, src: u32) -> &FlowRecord {
    out.flows.iter().find(|f| f.src == src).unwrap()
}

#[test]
fn lone_flow_takes_its_ideal_fct_exactly() {
    for (size, gbps) in [(1u64, 10u32), (1460, 10), (100_000, 10), (3_333_333, 1)] {
        let dir = flow_dir(
            &format!("fs-lone-{size}"),
            &format!("src,dst,size_bytes,start_s\n0,1,{size},0.001\n"),
        );
        let out = run_flow(&star(2, gbps, "dctcp"), &[], &dir);
        let f = &out.flows[0];
        assert_eq!(f.fct(), Some(f.ideal_fct), "size {size}");
        assert_eq!(f.bytes_delivered, size);
        // Both ports of the path carried the wire bytes.
        let carried: Vec<u64> = out.ports.iter().map(|p| p.tx_bytes).collect();
        assert_eq!(carried.iter().filter(|&&b| b == wire(size)).count(), 2);
    }
}

/// h0→h1 (A), h0→h2 (B), h3→h2 (C), h4→h2 (D), equal sizes, all at 0, 10 Gb/s. h2's link is
/// the bottleneck of B, C, D (C/3 each); A gets the rest of h0's link, 2C/3. A ends at
/// 1.5 W/C; B, C, D keep C/3 (still bottlenecked at h2) and end at 3 W/C.
#[test]
fn max_min_by_hand() {
    let size = 1_000_000;
    let dir = flow_dir(
        "fs-maxmin",
        &format!(
            "src,dst,size_bytes,start_s\n0,1,{size},0\n0,2,{size},0\n3,2,{size},0\n4,2,{size},0\n"
        ),
    );
    for protocol in ["tcp", "dctcp", "rcp"] {
        let out = run_flow(&star(5, 10, protocol), &[], &dir);
        let t = wire_of(protocol, size) as f64 * 8.0 / 10e9;
        let want = [1.5 * t, 3.0 * t, 3.0 * t, 3.0 * t];
        for (i, f) in out.flows.iter().enumerate() {
            let got = f.fct().unwrap().as_secs_f64() - f.ideal_fct.as_secs_f64() + t;
            assert!(
                (got - want[i]).abs() < 2e-12,
                "{protocol} flow {i}: {got} vs {}",
                want[i]
            );
        }
    }
}

/// Links of mixed rates: a 10 Gb/s star whose h3 hangs off a 2.5 Gb/s link. A (h0→h3) and
/// B (h1→h3) share that link, 1.25 Gb/s each; C (h0→h2) gets the 8.75 Gb/s A leaves of h0's
/// link, and A and B keep 1.25 once C ends (still held by the slow link). Each FCT is its
/// ideal (alone on its path, so at the path's slowest rate) plus W/r − W/r_path. RCP's
/// processor-sharing variant reaches the same rates packet by packet: within 3 % (measured
/// +0.4 % for A and B, +2.0 % for C, whose share at h0 RCP finds only once A's has settled).
#[test]
fn max_min_by_hand_on_links_of_mixed_rates() {
    let size = 10_000_000;
    let dir = flow_dir(
        "fs-mixed",
        &format!("src,dst,size_bytes,start_s\n0,3,{size},0\n1,3,{size},0\n0,2,{size},0\n"),
    );
    let text = star(4, 10, "rcp")
        + "[[topology.link_overrides]]\nbetween = [\"h3\", \"sw\"]\ngbps = 2.5\n";
    let w = wire_of("rcp", size) as f64 * 8.0;
    // (allocated rate, the path's slowest rate), Gb/s.
    let rates = [(1.25, 2.5), (1.25, 2.5), (8.75, 10.0)];
    let fluid = run_flow(&text, &[], &dir);
    for (i, f) in fluid.flows.iter().enumerate() {
        let (r, path) = rates[i];
        let want = f.ideal_fct.as_secs_f64() + w / (r * 1e9) - w / (path * 1e9);
        let got = f.fct().unwrap().as_secs_f64();
        assert!((got - want).abs() < 1e-11, "flow {i}: {got} vs {want}");
    }
    let o = [
        "transport.rcp_beta=0".to_string(),
        "transport.rcp_init_rate=0.05".into(),
    ];
    let p = dcnsim::prepare_text(&text, Format::Toml, &o, &dir).unwrap();
    let packet = dcnsim::run_prepared(p, &mut |_| true).unwrap();
    for i in 0..3 {
        let (p, f) = (
            packet.flows[i].fct().unwrap(),
            fluid.flows[i].fct().unwrap(),
        );
        let ratio = p.as_secs_f64() / f.as_secs_f64();
        eprintln!("flow {i}: packet / fluid {ratio:.4}");
        assert!(
            (ratio - 1.0).abs() < 0.03,
            "flow {i}: RCP-PS {p:?} vs max-min {f:?}"
        );
    }
}

/// PACE: weights 4, 2, 1 into one receiver: rates 4/7, 2/7, 1/7 of C; with equal sizes the
/// weight-4 flow ends at 7/4 W/C, then 2:1 shares, the weight-2 flow ends at 5/2 W/C and the
/// last at 3 W/C (the link never idles).
#[test]
fn weighted_max_min_by_hand() {
    let size = 500_000;
    let dir = flow_dir(
        "fs-wmm",
        &format!(
            "src,dst,size_bytes,start_s,weight\n1,0,{size},0,2\n2,0,{size},0,1\n3,0,{size},0,4\n"
        ),
    );
    let out = run_flow(&star(4, 10, "pace"), &[], &dir);
    let t = wire_of("pace", size) as f64 * 8.0 / 10e9;
    for (src, want) in [(1, 2.5 * t), (2, 3.0 * t), (3, 1.75 * t)] {
        let f = by_src(&out, src);
        let got = f.fct().unwrap().as_secs_f64() - f.ideal_fct.as_secs_f64() + t;
        assert!(
            (got - want).abs() < 3e-12,
            "weight of h{src}: {got} vs {want}"
        );
    }
}

/// MERP's motivating example (Table 1) on a 1 Gb/s star, one unit = 1 MB of payload (exactly
/// 1 027 400 wire bytes) = 8.2192 ms: A (3) and C (4) at 0, B (3) at 3. MERP: A, then C (VDG
/// puts C before B at t = 3), then B — fluid FCTs 3, 7, 7. SRPT (pFabric): A, B, C — 3, 3, 10.
#[test]
fn merp_and_srpt_on_the_motivating_example() {
    let unit = 1_027_400.0 * 8.0 / 1e9;
    let csv = format!(
        "src,dst,size_bytes,start_s\n0,3,3000000,0\n1,3,3000000,{}\n2,3,4000000,0\n",
        3.0 * unit
    );
    let dir = flow_dir("fs-merp", &csv);
    for (protocol, want) in [("merp", [3.0, 7.0, 7.0]), ("pfabric", [3.0, 3.0, 10.0])] {
        let out = run_flow(&star(4, 1, protocol), &[], &dir);
        for (src, w) in want.iter().enumerate() {
            let got = fluid_s(by_src(&out, src as u32), 1.0) / unit;
            assert!(
                (got - w).abs() < 1e-9,
                "{protocol} h{src}: {got} units, want {w}"
            );
        }
    }
}

/// PDQ: deadline flows first by earliest deadline, then the smaller remaining size, and a new
/// more critical flow preempts. Units of T = W/C (W = 1 MB wire-ish at 10 Gb/s):
/// A (no deadline, 2W) runs alone from 0; at 0.5T B (deadline 10 ms, W) and C (deadline 5 ms,
/// 3W) arrive and preempt it, C first (earlier deadline, although larger): C ends at 3.5T, B
/// at 4.5T, A at 6T.
///
/// Early Termination: D (deadline 1.5T, W) at 0 into h5 behind E (deadline 1.2T, W) at 0: E
/// holds h5's link until T; D could then not finish before 2T > 1.5T, so it is hopeless as
/// soon as its slack is gone, at 0.5T, and terminated then (unless it is turned off).
#[test]
fn pdq_is_edf_then_srpt_with_preemption_and_early_termination() {
    let size = 1_000_000u64;
    let t = wire_of("pdq", size) as f64 * 8.0 / 10e9;
    let w2 = 2 * size;
    let w3 = 3 * size;
    let csv = format!(
        "src,dst,size_bytes,start_s,deadline_s\n\
         0,4,{w2},0,\n1,4,{size},{h},0.010\n2,4,{w3},{h},0.005\n\
         3,5,{size},0,{d15}\n6,5,{size},0,{d1}\n",
        h = 0.5 * t,
        d15 = 1.5 * t,
        d1 = 1.2 * t
    );
    let dir = flow_dir("fs-pdq", &csv);
    let out = run_flow(&star(7, 10, "pdq"), &[], &dir);
    let tw = |n: u64| wire_of("pdq", n) as f64 * 8.0 / 10e9;
    let fin = |src: u32| by_src(&out, src).finish.unwrap().as_secs_f64();
    let pipe = |src: u32| {
        let f = by_src(&out, src);
        f.ideal_fct.as_secs_f64() - tw(f.size_bytes)
    };
    let close = |a: f64, b: f64| (a - b).abs() < 5e-12;
    // C from 0.5T for its 3W; B after it; A's remaining 1.5W after B.
    let c_end = 0.5 * t + tw(w3);
    assert!(close(fin(2) - pipe(2), c_end), "C {}", fin(2) - pipe(2));
    let b_end = c_end + tw(size);
    assert!(close(fin(1) - pipe(1), b_end), "B {}", fin(1) - pipe(1));
    let a_end = b_end + tw(w2) - 0.5 * t;
    assert!(close(fin(0) - pipe(0), a_end), "A {}", fin(0) - pipe(0));
    let e = by_src(&out, 6);
    assert!(e.met_deadline() == Some(true));
    let d = by_src(&out, 3);
    let ended = d.terminated.expect("D is terminated").as_secs_f64();
    assert!((ended - 0.5 * t).abs() < 2e-12, "D terminated at {ended}");
    // Without Early Termination D runs to the end, late.
    let out = run_flow(
        &common::star_with_flow_file(7, 10, "pdq", "pdq_early_termination = false"),
        &[],
        &dir,
    );
    let d = by_src(&out, 3);
    assert!(d.terminated.is_none() && d.met_deadline() == Some(false));
}

/// PDQ's flow aging (α = `pdq_aging_rate`): the size a flow is ordered by is divided by
/// 2^(α·t), t its time paused in units of 100 ms. On one link (h0, h1 → h2), W = 125 MB
/// (T = W/C ≈ 0.1 s at 10 Gb/s): A (2W) and B (W) start at 0, B first (smaller); at 0.5T D
/// (0.8W) arrives and the order is taken again. Without aging B keeps the link (0.5W left),
/// then D, then A: B ends at T, D at 1.8T, A at 3.8T. With α = 6, A has waited 0.5T ≈ 50 ms
/// and is ordered by 2W/2^3 = 0.25W, ahead of B's 0.5W and D's 0.8W: A ends at 2.5T; then B
/// and D, paused equally long since 0.5T, are aged alike and B goes first: 3T, then D 3.8T.
#[test]
fn pdq_flow_aging_lets_a_long_paused_flow_ahead() {
    let w = 125_000_000u64;
    let (w2, w08) = (2 * w, 4 * w / 5);
    let tw = |n: u64| wire_of("pdq", n) as f64 * 8.0 / 10e9;
    let half = 0.5 * tw(w);
    let csv = format!("src,dst,size_bytes,start_s\n0,2,{w2},0\n1,2,{w},0\n3,2,{w08},{half}\n");
    let dir = flow_dir("fs-aging", &csv);
    for (alpha, want) in [
        (0.0, [tw(w) + tw(w08) + tw(w2), tw(w), tw(w) + tw(w08)]),
        (
            6.0,
            [
                half + tw(w2),
                half + tw(w2) + half,
                half + tw(w2) + half + tw(w08),
            ],
        ),
    ] {
        let extra = format!("pdq_aging_rate = {alpha}");
        let out = run_flow(
            &common::star_with_flow_file(4, 10, "pdq", &extra),
            &[],
            &dir,
        );
        for (i, src) in [0u32, 1, 3].into_iter().enumerate() {
            let f = by_src(&out, src);
            let fluid_end =
                f.finish.unwrap().as_secs_f64() - f.ideal_fct.as_secs_f64() + tw(f.size_bytes);
            assert!(
                (fluid_end - want[i]).abs() < 1e-11,
                "alpha {alpha}, h{src}: ends at {fluid_end}, expected {}",
                want[i]
            );
        }
    }
}

/// Why a long flow can finish later under PDQ than under fair sharing (PDQ Fig. 8e: the
/// paper has 85–95 % of flows faster under PDQ; `fig8-flow` finds fewer on its largest
/// networks, and the slower flows are the long ones). All at 0 on one switch: L (h0→h1, 4W),
/// x (h0→h2, 2W), w (h3→h4, W), y (h3→h1, 1.5W); T = W/C.
/// * PDQ, smallest first: w and x run at once; y waits for w at h3 and runs 1T–2.5T; L waits
///   for x at h0 (to 2T) and then for y at h1 (to 2.5T): its waits add up, h0's link idles
///   2T–2.5T, and L ends at 6.5T. The others end at T (w), 2T (x) and 2.5T (y).
/// * Fair sharing: every link of the four flows fills at C/2, so each flow gets C/2 until
///   its link frees: w ends at 2T, y at 3T, x at 4T; h0's link never idles, so L ends when
///   h0's 6W are sent, at 6T. L's waits at h0 and h1 overlap.
///
/// PDQ's mean is lower (3T against 3.75T), and L alone is slower (6.5T against 6T).
#[test]
fn pdq_adds_up_a_long_flows_waits_that_fair_sharing_overlaps() {
    let w = 1_000_000u64;
    let sizes = [4 * w, 2 * w, w, 3 * w / 2];
    let csv = format!(
        "src,dst,size_bytes,start_s\n0,1,{},0\n0,2,{},0\n3,4,{},0\n3,1,{},0\n",
        sizes[0], sizes[1], sizes[2], sizes[3]
    );
    let dir = flow_dir("fs-pdq-vs-fair", &csv);
    // The fluid FCTs of L, x, w, y from each flow's transfer time alone at C.
    type Fcts = fn([f64; 4]) -> [f64; 4];
    let cases: [(&str, Fcts); 2] = [
        ("pdq", |t| [t[2] + t[3] + t[0], t[1], t[2], t[2] + t[3]]),
        ("rcp", |t| [t[0] + t[1], 2.0 * t[1], 2.0 * t[2], 2.0 * t[3]]),
    ];
    for (protocol, want) in cases {
        let out = run_flow(&star(5, 10, protocol), &[], &dir);
        let t = sizes.map(|s| wire_of(protocol, s) as f64 * 8.0 / 10e9);
        let want = want(t);
        for (i, f) in out.flows.iter().enumerate() {
            let got = f.fct().unwrap().as_secs_f64() - f.ideal_fct.as_secs_f64() + t[i];
            assert!(
                (got - want[i]).abs() < 5e-12,
                "{protocol} flow {i}: {got} vs {}",
                want[i]
            );
        }
    }
}

/// D3 is not max-min: on the flows of [`max_min_by_hand`] every link splits its spare capacity
/// equally over all its flows, so A gets half of h0's link (C/2, the other half is held by B,
/// which only uses C/3) and ends at 2 W/C; B, C, D end at 3 W/C as before — in whole units of
/// 1 Mb/s (`d3_rate_unit_mbps`, as the packet model): C/3 is 3 333 of them, W/3 333 Mb/s.
///
/// First come first served (units of T = W/C, W the wire bits of 1 MB): E (deadline 2.4T) runs
/// alone at C from 0 (desire plus the whole spare); at 0.5T G (deadline 1.2T after its start)
/// arrives into the same receiver. E, first, keeps its desire r_E = (W − 0.5W)/1.9T (rounded up
/// to a whole Mb/s) and leaves
/// G C − r_E, too little for G's deadline, which PDQ (earliest deadline first) would meet. G
/// ends at 0.5T + W/(C − r_E), late, then E takes the whole link. With quenching G gives up
/// once W − (C − r_E)(τ − 0.5T) no longer fits in C·(1.7T − τ), i.e. at
/// τ = 0.5T + (1.2 C T − W)/r_E, and E takes the whole link from then.
#[test]
fn d3_is_desire_plus_fair_share_first_come_first_served() {
    let size = 1_000_000u64;
    let dir = flow_dir(
        "fs-d3-share",
        &format!(
            "src,dst,size_bytes,start_s\n0,1,{size},0\n0,2,{size},0\n3,2,{size},0\n4,2,{size},0\n"
        ),
    );
    let out = run_flow(&star(5, 10, "d3"), &[], &dir);
    let c = 10e9;
    let w = wire_of("d3", size) as f64 * 8.0;
    let t = w / c;
    // Rates are whole units of 1 Mb/s: a third of the link is ⌊10 000 / 3⌋ = 3 333 of them.
    let third = w / 3_333e6;
    for (i, want) in [2.0 * t, third, third, third].iter().enumerate() {
        let f = &out.flows[i];
        let got = f.fct().unwrap().as_secs_f64() - f.ideal_fct.as_secs_f64() + t;
        assert!((got - want).abs() < 2e-12, "flow {i}: {got} vs {want}");
    }

    let (t1, de, dg) = (0.5 * t, 2.4 * t, 1.2 * t);
    let csv =
        format!("src,dst,size_bytes,start_s,deadline_s\n0,1,{size},0,{de}\n2,1,{size},{t1},{dg}\n");
    let dir = flow_dir("fs-d3-fcfs", &csv);
    // E's desired rate, rounded up to a whole 1 Mb/s unit.
    let r_e = ((w - c * t1) / (de - t1) / 1e6).ceil() * 1e6;
    let g = c - r_e;
    let fluid_end = |out: &RunOutput, src: u32| {
        let f = by_src(out, src);
        let pipe = f.ideal_fct.as_secs_f64() - t;
        f.finish.unwrap().as_secs_f64() - pipe
    };
    let close = |a: f64, b: f64| (a - b).abs() < 5e-12;
    let no_quench = common::star_with_flow_file(3, 10, "d3", "d3_quench = false");
    let out = run_flow(&no_quench, &[], &dir);
    let g_end = t1 + w / g;
    assert!(g_end < de && g_end > t1 + dg, "the derivation's phases");
    assert!(close(fluid_end(&out, 2), g_end), "G {}", fluid_end(&out, 2));
    assert_eq!(by_src(&out, 2).met_deadline(), Some(false));
    let e_end = g_end + (w - c * t1 - r_e * (g_end - t1)) / c;
    assert!(close(fluid_end(&out, 0), e_end), "E {}", fluid_end(&out, 0));

    let out = run_flow(&star(3, 10, "d3"), &[], &dir);
    let tau = t1 + (c * dg - w) / r_e;
    let ended = by_src(&out, 2)
        .terminated
        .expect("G is quenched")
        .as_secs_f64();
    assert!(
        (ended - tau).abs() < 2e-12,
        "G quenched at {ended}, want {tau}"
    );
    let e_end = tau + (w - c * t1 - r_e * (tau - t1)) / c;
    assert!(close(fluid_end(&out, 0), e_end), "E {}", fluid_end(&out, 0));

    let out = run_flow(&star(3, 10, "pdq"), &[], &dir);
    assert_eq!(
        by_src(&out, 2).met_deadline(),
        Some(true),
        "PDQ serves G first"
    );
}

/// Under D3 every completion hands its share of the spare to every flow of its links, so every
/// flow is rescheduled at every event: the stale events in the heap must be dropped as they
/// pile up (without, 2000 flows started at once into one receiver leave about 2 million). In
/// units of 1 kb/s, so that a completion changes every share (with 1 Mb/s units most shares
/// of 2 000 flows would round to the same whole number).
#[test]
fn d3_stale_events_do_not_pile_up() {
    let flows = 2000u64;
    let mut csv = String::from("src,dst,size_bytes,start_s,deadline_s\n");
    for i in 0..flows {
        csv += &format!("{},0,{},0,0.5\n", 1 + i % 15, 10_000 + 100 * i);
    }
    let dir = flow_dir("fs-d3-heap", &csv);
    let text = common::star_with_flow_file(16, 10, "d3", "d3_rate_unit_mbps = 0.001");
    let (out, stats) = run_flow_with_stats(&text, &dir);
    assert!(out.flows.iter().all(|f| f.finish.is_some()));
    assert!(stats.rate_changes > flows * flows / 4, "{stats:?}");
    let bound = 4 * (flows as usize + 256) + 2 * flows as usize;
    assert!(stats.peak_heap <= bound, "{stats:?}, bound {bound}");
}

/// A Poisson workload from hosts 1..=n into host 0 of a star: host 0's link is the only
/// bottleneck (a sender's link never carries more than the receiver's share of each of its
/// flows). Returns the run and the realised load on that link (wire bytes).
fn one_link(protocol: &str, sizes: &str, rho: f64, flows: u64, seed: u64) -> (RunOutput, f64) {
    let n = 16;
    let senders: Vec<String> = (1..=n).map(|h| h.to_string()).collect();
    // `load` is per sending host: ρ/n of each makes ρ of payload on the receiver's link.
    let text = format!(
        r#"
seed = {seed}
[topology]
kind = "star"
hosts = {h}
link_gbps = 10
link_delay_us = 1
[transport]
protocol = "{protocol}"
[workload]
kind = "poisson"
pattern = "group"
src_group = [{src}]
dst_group = [0]
flows = {flows}
load = {load}
sizes = {sizes}
"#,
        h = n + 1,
        src = senders.join(","),
        load = rho / n as f64,
    );
    let out = run_flow(&text, &[], Path::new("."));
    // The load the run actually carried on the link (the realised arrival rate times the
    // sample's mean service time): the theory is conditioned on this sample of arrivals and
    // sizes. (The offered ρ is within ~2 % of it for these counts.)
    let span = (out.flows.last().unwrap().start - out.flows[0].start).as_secs_f64();
    let bits: f64 = out
        .flows
        .iter()
        .map(|f| wire(f.size_bytes) as f64 * 8.0)
        .sum();
    let realised = bits * (out.flows.len() - 1) as f64 / out.flows.len() as f64 / span / 10e9;
    (out, realised)
}

fn mean_slowdown(out: &RunOutput) -> f64 {
    let s: f64 = out
        .flows
        .iter()
        .map(|f| fluid_s(f, 10.0) / (wire(f.size_bytes) as f64 * 8.0 / 10e9))
        .sum();
    s / out.flows.len() as f64
}

/// M/G/1-PS: the mean slowdown is 1/(1 − ρ) whatever the size distribution.
#[test]
fn processor_sharing_mean_slowdown_is_one_over_one_minus_rho() {
    let cases = [
        ("{ dist = \"exponential\", mean_kb = 100 }", 0.2, 40_000),
        ("{ dist = \"exponential\", mean_kb = 100 }", 0.5, 80_000),
        ("{ dist = \"exponential\", mean_kb = 100 }", 0.8, 200_000),
        ("\"websearch\"", 0.2, 40_000),
        ("\"websearch\"", 0.5, 100_000),
        ("\"websearch\"", 0.8, 300_000),
    ];
    for (sizes, rho, flows) in cases {
        let (out, rho_wire) = one_link("dctcp", sizes, rho, flows, 1);
        assert!(out.flows.iter().all(|f| f.finish.is_some()));
        let got = mean_slowdown(&out);
        let want = 1.0 / (1.0 - rho_wire);
        eprintln!("PS {sizes} rho {rho_wire:.4}: slowdown {got:.4} vs {want:.4}");
        assert!(
            (got / want - 1.0).abs() < 0.03,
            "PS {sizes} ρ = {rho_wire}: mean slowdown {got}, theory {want}"
        );
    }
}

/// The same at ρ = 0.9 (about 0.925 on the wire), where the mean converges slowly: busy
/// periods last ~1/(1 − ρ)² services, and web search's heavy tail adds to that. A million
/// flows bring both distributions within the issue's 3 % (seed 1: −0.9 % and +1.3 %; seed 2,
/// not run here: −2.4 % and −2.8 %; 300 000 flows gave up to −6.3 %).
#[test]
fn processor_sharing_holds_at_rho_0_9() {
    for sizes in ["{ dist = \"exponential\", mean_kb = 100 }", "\"websearch\""] {
        let (out, rho_wire) = one_link("dctcp", sizes, 0.9, 1_000_000, 1);
        assert!(out.flows.iter().all(|f| f.finish.is_some()));
        assert!(rho_wire > 0.9, "realised load {rho_wire}");
        let got = mean_slowdown(&out);
        let want = 1.0 / (1.0 - rho_wire);
        eprintln!("PS {sizes} rho {rho_wire:.4}: slowdown {got:.4} vs {want:.4}");
        assert!(
            (got / want - 1.0).abs() < 0.03,
            "PS {sizes} ρ = {rho_wire}: mean slowdown {got}, theory {want}"
        );
    }
}

/// M/G/1 under preemptive SRPT (Schrage & Miller 1966): the mean response time of a job of
/// size x is
/// `[λ∫₀ˣ t² dF + λx²(1 − F(x))] / (2(1 − ρ(x))²) + ∫₀ˣ dt / (1 − ρ(t))`, ρ(x) = λ∫₀ˣ t dF,
/// integrated here over the empirical distribution of the run's own service times.
#[test]
fn srpt_mean_response_matches_schrage_miller() {
    for (sizes, rho, flows) in [
        ("{ dist = \"exponential\", mean_kb = 100 }", 0.5, 100_000),
        ("{ dist = \"exponential\", mean_kb = 100 }", 0.8, 200_000),
        ("\"websearch\"", 0.7, 200_000),
    ] {
        let (out, rho_wire) = one_link("pfabric", sizes, rho, flows, 2);
        let mut x: Vec<f64> = out
            .flows
            .iter()
            .map(|f| wire(f.size_bytes) as f64 * 8.0 / 10e9)
            .collect();
        x.sort_by(f64::total_cmp);
        let n = x.len() as f64;
        let lambda = rho_wire / (x.iter().sum::<f64>() / n);
        // Walk the sorted sizes, keeping ∫₀ˣ t dF, ∫₀ˣ t² dF and ∫₀ˣ dt/(1 − ρ(t)).
        let (mut m1, mut m2, mut wait_int, mut prev) = (0.0, 0.0, 0.0, 0.0);
        let mut total = 0.0;
        for (i, &xi) in x.iter().enumerate() {
            // ρ(t) for t in [prev, xi) counts the jobs below xi.
            wait_int += (xi - prev) / (1.0 - lambda * m1);
            m1 += xi / n;
            m2 += xi * xi / n;
            let tail = 1.0 - (i + 1) as f64 / n;
            let rho_x = lambda * m1;
            let waiting = (lambda * m2 + lambda * xi * xi * tail) / (2.0 * (1.0 - rho_x).powi(2));
            total += waiting + wait_int;
            prev = xi;
        }
        let want = total / n;
        let got: f64 =
            out.flows.iter().map(|f| fluid_s(f, 10.0)).sum::<f64>() / out.flows.len() as f64;
        eprintln!("SRPT {sizes} rho {rho_wire:.4}: mean response {got:.6e} vs {want:.6e}");
        assert!(
            (got / want - 1.0).abs() < 0.03,
            "SRPT {sizes} ρ = {rho_wire}: mean response {got} s, Schrage–Miller {want} s"
        );
    }
}

#[test]
fn deterministic_output() {
    let text = r#"
[topology]
kind = "fattree"
k = 4
[transport]
protocol = "dctcp"
[workload]
kind = "poisson"
flows = 2000
load = 0.6
"#;
    let a = run_flow(text, &[], Path::new("."));
    let b = run_flow(text, &[], Path::new("."));
    assert_eq!(a.flows, b.flows);
    assert!(a.flows.iter().all(|f| f.finish.is_some()));
    // Max-min never gives a flow more than its lone-flow rate.
    assert!(a.flows.iter().all(|f| f.fct().unwrap() >= f.ideal_fct));
}

#[test]
fn unknown_engine_is_refused_by_name() {
    let text = star(2, 10, "tcp");
    let err = dcnsim::prepare_text(
        &text,
        Format::Toml,
        &["engine=fluid".into()],
        Path::new("."),
    )
    .err()
    .expect("refused");
    assert_eq!(err.path, "engine");
    assert!(
        err.message.contains("packet") && err.message.contains("flow"),
        "{err}"
    );
}

#[test]
fn more_flows_than_the_engine_numbers_are_refused() {
    let max = dcnsim::flowsim::MAX_FLOWS;
    assert!(dcnsim::flowsim::check_flow_count(max).is_ok());
    let err = dcnsim::flowsim::check_flow_count(max + 1).expect_err("refused");
    assert_eq!(err.path, "workload");
    assert!(err.message.contains(&max.to_string()), "{err}");
}

#[test]
fn packet_only_keys_are_refused_under_the_flow_engine() {
    let dir = flow_dir("fs-refuse", "src,dst,size_bytes,start_s\n0,1,1000,0\n");
    let text = star(2, 10, "tcp");
    for (o, key) in [
        ("output.trace_flow=0", "output.trace_flow"),
        ("output.trace_flow=[0]", "output.trace_flow"),
        ("routing.lb=\"rps\"", "routing.lb"),
    ] {
        let overrides = vec!["engine=flow".to_string(), o.to_string()];
        let err = dcnsim::prepare_text(&text, Format::Toml, &overrides, &dir)
            .err()
            .unwrap_or_else(|| panic!("{o} accepted"));
        assert_eq!(err.path, key, "{err}");
    }
    // The same under the packet engine is fine.
    let ok = dcnsim::prepare_text(&text, Format::Toml, &["output.trace_flow=0".into()], &dir);
    assert!(ok.is_ok());
    // An empty list traces nothing, so it is no packet-only request.
    let empty = [
        "engine=flow".to_string(),
        "output.trace_flow=[]".to_string(),
    ];
    assert!(dcnsim::prepare_text(&text, Format::Toml, &empty, &dir).is_ok());
}

/// The packet-level model against the fluid one on the same scenario (same flows, same ECMP
/// paths): a k = 4 fat-tree at 10 Gb/s, 1000 Poisson web-search flows between random hosts at
/// 50 % load, DCTCP. Flows of 1 MB and more agree within 10 % in mean FCT: what the fluid model
/// leaves out — the handshake, slow start, queueing — costs a flow a few RTTs, little next to
/// its transfer. The short flows do not agree (the packet model is 2–3× slower on flows below
/// 100 KB, all startup), which is why the all-flows mean differs by ~8 %: measured numbers in
/// the module doc of `flowsim` and bench/RESULTS.md.
#[test]
fn packet_and_flow_models_agree_on_large_flows() {
    let text = r#"
seed = 5
[topology]
kind = "fattree"
k = 4
link_gbps = 10
[transport]
protocol = "dctcp"
[workload]
kind = "poisson"
sizes = "websearch"
load = 0.5
flows = 1000
"#;
    let packet = common::run_toml(text, &[]);
    let flow = run_flow(text, &[], Path::new("."));
    let mean = |o: &RunOutput, lo: u64, hi: u64| {
        let v: Vec<f64> = o
            .flows
            .iter()
            .filter(|f| f.size_bytes >= lo && f.size_bytes < hi)
            .map(|f| f.fct().expect("finished").as_secs_f64())
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    for (lo, hi) in [
        (0, 100_000),
        (100_000, 1_000_000),
        (1_000_000, u64::MAX),
        (0, u64::MAX),
    ] {
        let (p, f) = (mean(&packet, lo, hi), mean(&flow, lo, hi));
        eprintln!(
            "sizes [{lo}, {hi}): packet {p:.4e} s, flow {f:.4e} s, ratio {:.3}",
            p / f
        );
    }
    let (p, f) = (
        mean(&packet, 1_000_000, u64::MAX),
        mean(&flow, 1_000_000, u64::MAX),
    );
    assert!(
        (p / f - 1.0).abs() < 0.10,
        "flows ≥ 1 MB: packet {p} s, flow {f} s"
    );
    // The fluid model is the ideal the protocol approaches: no flow class is faster in packets.
    let (p, f) = (mean(&packet, 0, 100_000), mean(&flow, 0, 100_000));
    assert!(p > f, "short flows: packet {p} s, flow {f} s");
}

/// The flows of [`max_min_by_hand`] at 10 MB under packet-level RCP against the fluid max-min
/// (A 1.5 W/C, the others 3 W/C). RCP's processor-sharing variant (β = 0, R(0) = 0.05·C)
/// reaches it: every FCT within 2 % (measured 0.5–1.4 %). The published law (β = 1, R(0) = C)
/// does not, even on flows thousands of RTTs long: its queue term holds the links well below
/// capacity at data-center BDPs (module doc of `protocols::rcp`), 38–50 % slower (asserted:
/// more than 20 %).
#[test]
fn packet_rcp_ps_reaches_the_fluid_max_min() {
    let size = 10_000_000;
    let dir = flow_dir(
        "fs-rcp",
        &format!(
            "src,dst,size_bytes,start_s\n0,1,{size},0\n0,2,{size},0\n3,2,{size},0\n4,2,{size},0\n"
        ),
    );
    let text = star(5, 10, "rcp");
    let fluid = run_flow(&text, &[], &dir);
    let packet = |extra: &[&str]| {
        let o: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        let p = dcnsim::prepare_text(&text, Format::Toml, &o, &dir).unwrap();
        dcnsim::run_prepared(p, &mut |_| true).unwrap()
    };
    let ps = packet(&["transport.rcp_beta=0", "transport.rcp_init_rate=0.05"]);
    let law = packet(&["transport.rcp_variant=published"]);
    for i in 0..4 {
        let f = fluid.flows[i].fct().unwrap().as_secs_f64();
        let p = ps.flows[i].fct().unwrap().as_secs_f64();
        let l = law.flows[i].fct().unwrap().as_secs_f64();
        assert!(
            (p / f - 1.0).abs() < 0.02,
            "flow {i}: RCP-PS {p} vs max-min {f}"
        );
        assert!(l / f > 1.2, "flow {i}: published law {l} vs max-min {f}");
    }
}

/// Ended flows leave the list of active ones under max-min too (which never walks it): 3 000
/// flows one after another, each alone on the star, keep it near the bound of 2 × active +
/// 1 024 rather than at 3 000.
#[test]
fn ended_flows_leave_the_active_list() {
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for i in 0..3000 {
        csv += &format!("0,1,1000,{}\n", i as f64 * 1e-4);
    }
    let dir = flow_dir("fs-active", &csv);
    let (out, stats) = run_flow_with_stats(&star(2, 10, "dctcp"), &dir);
    assert!(out.flows.iter().all(|f| f.fct() == Some(f.ideal_fct)));
    // One flow active at the drops: 2 + 1 024.
    assert!(stats.peak_active <= 1026, "{stats:?}");
}

/// Flows below an ended flow's level are not re-solved. On a 10 Gb/s star, h1..h4 send to
/// h0 (C/4 each: h0's link is their bottleneck) and h1 also sends X to h7, which takes the
/// rest of h1's link, 3C/4. X ends first (equal sizes); h1→h0, the only flow left on X's
/// links, is at C/4, below X's level, so nothing is re-solved: the run solves the five flows
/// once at 0 (an arrival's level is bounded below by C/4 here, and new flows are always
/// solved), none when X ends, none when the last four end together. Without the level floor
/// X's end would re-solve h1→h0: six flows in all.
#[test]
fn flows_below_an_ended_flows_level_keep_their_rates_unsolved() {
    let size = 1_000_000;
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for src in 1..=4 {
        csv += &format!("{src},0,{size},0\n");
    }
    csv += &format!("1,7,{size},0\n");
    let dir = flow_dir("fs-floor", &csv);
    let (out, stats) = run_flow_with_stats(&star(8, 10, "dctcp"), &dir);
    assert_eq!(stats.component_flows, 5, "{stats:?}");
    let t = wire(size) as f64 * 8.0 / 10e9;
    for f in &out.flows {
        let want = if f.dst == 7 { t / 0.75 } else { 4.0 * t };
        let got = f.fct().unwrap().as_secs_f64() - f.ideal_fct.as_secs_f64() + t;
        assert!(
            (got - want).abs() < 2e-12,
            "{}→{}: {got} vs {want}",
            f.src,
            f.dst
        );
    }
}

/// Max-min re-solves only the flows an event can change (by level and by bottleneck, grown
/// until closed; `flowsim::incremental`): the same allocation as re-solving whole components,
/// so the same completion times up to float rounding — on a fat-tree under Poisson load and on
/// fat-tree, BCube and Jellyfish with every flow started at once, with the adaptive budget of
/// lazy solves and with each budget forced.
#[test]
fn pruned_max_min_equals_full_recomputation() {
    // Also every flow started at once (PDQ's Fig. 8 setting), where every link is full and the
    // flows' levels spread widest: 1 000 flows of 2–198 KB between pseudo-random hosts of the
    // first 54, weights 1–4 (used by PACE only).
    let mut csv = String::from("src,dst,size_bytes,start_s,weight\n");
    let mut draws = 0..;
    let mut next = |n: u64| {
        let i = draws.next().expect("unbounded");
        dcnsim::rng::derive_u64(12345, "at-once flows", i) % n
    };
    for _ in 0..1000 {
        let src = next(54);
        let dst = (src + 1 + next(53)) % 54;
        csv += &format!("{src},{dst},{},0,{}\n", 2000 + next(196_000), 1 + next(4));
    }
    let at_once_dir = flow_dir("fs-at-once", &csv);
    let at_once = "kind = \"flows\"\nfile = \"flows.csv\"".to_string();
    let poisson = |load: f64| format!("kind = \"poisson\"\nflows = 3000\nload = {load}");
    // The same flows on PDQ's other two networks (64 servers each): server relays, and a
    // random graph whose bottlenecks are inside the fabric.
    let fattree = "kind = \"fattree\"\nk = 6";
    let bcube = "kind = \"bcube\"\nn = 4\nk = 2";
    let jellyfish =
        "kind = \"jellyfish\"\nswitches = 16\nports_per_switch = 8\nhosts_per_switch = 4";
    for (protocol, topology, workload, label) in [
        ("dctcp", fattree, poisson(0.4), "load 0.4"),
        ("dctcp", fattree, poisson(0.8), "load 0.8"),
        ("dctcp", fattree, poisson(0.95), "load 0.95"),
        ("dctcp", fattree, at_once.clone(), "at once"),
        ("pace", fattree, poisson(0.5), "load 0.5"),
        ("pace", fattree, poisson(0.9), "load 0.9"),
        ("pace", fattree, at_once.clone(), "at once"),
        ("rcp", bcube, at_once.clone(), "BCube, at once"),
        ("rcp", jellyfish, at_once.clone(), "Jellyfish, at once"),
    ] {
        let text = format!(
            r#"
[topology]
{topology}
[transport]
protocol = "{protocol}"
[workload]
{workload}
"#
        );
        let run = |full: bool, budget: Option<u32>| {
            let p =
                dcnsim::prepare_text(&text, Format::Toml, &["engine=flow".into()], &at_once_dir)
                    .unwrap();
            let mut sim = FlowSimulation::new(p);
            sim.set_full_recompute(full);
            sim.set_lazy_budget(budget);
            sim.run_with_stats(&mut |_| true).unwrap()
        };
        let (full, fs) = run(true, None);
        // Adaptive, and each budget of lazy solves alone (one: the set grows through every
        // full link after its first solve).
        for budget in [None, Some(1), Some(8)] {
            let (pruned, ps) = run(false, budget);
            assert!(ps.component_flows < fs.component_flows, "{ps:?} vs {fs:?}");
            for (a, b) in pruned.flows.iter().zip(&full.flows) {
                let (fa, fb) = (a.fct().unwrap().ps() as f64, b.fct().unwrap().ps() as f64);
                assert!(
                    (fa - fb).abs() <= 1e-9 * fb + 2.0,
                    "{protocol} {label} budget {budget:?} flow {}: {fa} vs {fb}",
                    a.flow_id
                );
            }
        }
        let ps = run(false, None).1;
        eprintln!(
            "{protocol} {label}: mean component {:.1} flows pruned, {:.1} full",
            ps.component_flows as f64 / ps.recomputations as f64,
            fs.component_flows as f64 / fs.recomputations as f64
        );
    }
}

/// SRPT and PDQ repair their last priority pass from what changed (`flowsim::priority_repair`):
/// the same completion times, to the picosecond, as the full pass over every subflow at every
/// event — under Poisson load with and without deadlines (and flows aborted at them) and with
/// PDQ's flow aging, over
/// M-PDQ's several subflows (ECMP on a fat-tree, BCube's parallel paths), and with every flow
/// started at once on a fat-tree, BCube and Jellyfish.
#[test]
fn repaired_priority_pass_equals_the_full_pass() {
    let mut csv = String::from("src,dst,size_bytes,start_s\n");
    for i in 0..600u64 {
        let src = dcnsim::rng::derive_u64(7, "src", i) % 54;
        let dst = (src + 1 + dcnsim::rng::derive_u64(7, "dst", i) % 53) % 54;
        let size = 2000 + dcnsim::rng::derive_u64(7, "size", i) % 400_000;
        csv += &format!("{src},{dst},{size},0\n");
    }
    let dir = flow_dir("fs-priority-at-once", &csv);
    let poisson = |load: f64| format!("kind = \"poisson\"\nflows = 3000\nload = {load}");
    let deadlines = "deadline = { dist = \"uniform\", min_ms = 1, max_ms = 20 }";
    let with_deadlines = format!("{}\n{deadlines}", poisson(0.8));
    let aborted = format!("{with_deadlines}\nabort_at_deadline = true");
    let at_once = "kind = \"flows\"\nfile = \"flows.csv\"";
    let fattree = "kind = \"fattree\"\nk = 6";
    let bcube = "kind = \"bcube\"\nn = 4\nk = 2\n[routing]\nlb = \"bcube_paths\"";
    let jellyfish =
        "kind = \"jellyfish\"\nswitches = 16\nports_per_switch = 8\nhosts_per_switch = 4";
    let (srpt, pdq, mpdq) = ("\"pfabric\"", "\"pdq\"", "\"mpdq\"\nsubflows = 3");
    let aging = "\"pdq\"\npdq_aging_rate = 4";
    for (topology, protocol, workload, label) in [
        (fattree, srpt, poisson(0.8), "SRPT, load 0.8"),
        (fattree, srpt, at_once.to_string(), "SRPT, at once"),
        (fattree, pdq, poisson(0.8), "PDQ, load 0.8"),
        (fattree, pdq, with_deadlines, "PDQ, deadlines"),
        (fattree, pdq, aborted, "PDQ, aborted at deadlines"),
        (fattree, pdq, at_once.to_string(), "PDQ, at once"),
        (fattree, aging, poisson(0.8), "PDQ with aging, load 0.8"),
        (
            jellyfish,
            pdq,
            at_once.to_string(),
            "PDQ, Jellyfish, at once",
        ),
        (fattree, mpdq, poisson(0.6), "M-PDQ, load 0.6"),
        (bcube, mpdq, at_once.to_string(), "M-PDQ, BCube, at once"),
    ] {
        let text = format!(
            "[topology]\n{topology}\n[transport]\nprotocol = {protocol}\n[workload]\n{workload}\n"
        );
        let run = |full: bool| {
            let p =
                dcnsim::prepare_text(&text, Format::Toml, &["engine=flow".into()], &dir).unwrap();
            let mut sim = FlowSimulation::new(p);
            sim.set_full_recompute(full);
            sim.run_with_stats(&mut |_| true).unwrap().0
        };
        let (repaired, full) = (run(false), run(true));
        let ended = |o: &RunOutput| o.flows.iter().map(|f| (f.finish, f.terminated)).collect();
        let (a, b): (Vec<_>, Vec<_>) = (ended(&repaired), ended(&full));
        assert_eq!(a.len(), b.len());
        let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        assert_eq!(differ, 0, "{label}: {differ} flows end at another time");
        let finished = a.iter().filter(|(f, _)| f.is_some()).count();
        assert!(finished > a.len() / 2, "{label}: {finished} finished");
    }
}
