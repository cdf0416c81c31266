//! Server-centric forwarding (BCube servers relay) and deadline outcomes, end to end.

mod common;
use common::{flow_dir, run_in, run_toml};
use dcnsim::metrics::summary::summarize;
use dcnsim::units::Time;

/// 10 Gb/s links, 1 µs each: one hop of a packet of `bytes`.
fn hop(bytes: u64) -> Time {
    Time::from_ps(bytes * 8 * 100) + Time::from_us(1)
}

/// BCube(2,1): h0 = 00 and h3 = 11 differ in both digits, so every packet crosses four links
/// and is relayed by h1 or h2. The flow fits the initial window: handshake both ways over
/// four hops, then ten segments store-and-forward, exactly as through a switch.
#[test]
fn bcube_servers_relay_and_the_fct_is_exact() {
    let scenario = r#"
[topology]
kind = "bcube"
n = 2
k = 1
[transport]
protocol = "tcp"
[workload]
kind = "flows"
file = "flows.csv"
"#;
    let dir = flow_dir(
        "bcube-relay",
        "src,dst,size_bytes,start_s\n0,3,14600,0\n0,1,14600,0.001\n",
    );
    let out = run_in(scenario, &[], &dir);
    let ser = Time::from_ps(1500 * 8 * 100);
    let far = &out.flows[0];
    let data = hop(1500) * 4 + ser * 9;
    assert_eq!(far.ideal_fct, data);
    assert_eq!(far.fct(), Some(hop(40) * 8 + data));
    // Same rack (one level-0 switch): two hops, no relay.
    let near = &out.flows[1];
    assert_eq!(near.fct(), Some(hop(40) * 4 + hop(1500) * 2 + ser * 9));
    // The relayed packets crossed a server's ports: h1 or h2 sent on a link to a switch.
    let relayed: u64 = out
        .ports
        .iter()
        .filter(|p| (p.node == "h1" || p.node == "h2") && p.tx_packets > 0)
        .map(|p| p.tx_packets)
        .sum();
    assert!(relayed >= 10, "no server relayed: {relayed}");
}

#[test]
fn a_permutation_on_jellyfish_and_bcube_finishes() {
    for topology in [
        "kind = \"jellyfish\"\nswitches = 8\nports_per_switch = 5\nhosts_per_switch = 2",
        "kind = \"bcube\"\nn = 2\nk = 3",
    ] {
        let scenario = format!(
            "seed = 3\n[topology]\n{topology}\n[workload]\nkind = \"permutation\"\nsizes = {{ dist = \"fixed\", kb = 50 }}\n"
        );
        let out = run_toml(&scenario, &[]);
        assert!(!out.flows.is_empty());
        for f in &out.flows {
            let fct = f
                .fct()
                .unwrap_or_else(|| panic!("{topology}: flow {} unfinished", f.flow_id));
            assert!(fct >= f.ideal_fct, "{topology}: flow {}", f.flow_id);
        }
    }
}

/// Two identical flows on disjoint host pairs of a star each take 19.328 µs (handshake 4 ×
/// 1.032 µs, data 2 × 2.2 µs + 9 × 1.2 µs). With deadlines of 20 µs and 19 µs the first meets
/// its deadline and the second misses it; a third flow has none; a fourth, of 1 MB with a
/// 100 µs deadline, cannot make it (1 MB alone takes 800 µs at 10 Gb/s).
#[test]
fn deadlines_met_and_missed_and_application_throughput() {
    let scenario = r#"
[topology]
kind = "star"
hosts = 8
[transport]
protocol = "tcp"
[workload]
kind = "flows"
file = "flows.csv"
"#;
    let dir = flow_dir(
        "deadlines",
        "src,dst,size_bytes,start_s,deadline_s\n\
         0,1,14600,0,20e-6\n\
         2,3,14600,0,19e-6\n\
         4,5,14600,0,\n\
         6,7,1000000,0,100e-6\n",
    );
    let out = run_in(scenario, &[], &dir);
    let fct = hop(40) * 4 + hop(1500) * 2 + Time::from_ps(1500 * 8 * 100) * 9;
    assert_eq!(fct, Time::from_ps(19_328_000));
    let met: Vec<Option<bool>> = out.flows.iter().map(|f| f.met_deadline()).collect();
    assert_eq!(met, [Some(true), Some(false), None, Some(false)]);
    assert_eq!(out.flows[1].fct(), Some(fct), "missed although it finished");
    assert!(out.flows.iter().all(|f| f.terminated.is_none()));
    let s = summarize(&out);
    let d = &s["deadlines"];
    assert_eq!(d["with_deadline"], 3);
    assert_eq!(d["met"], 1);
    assert_eq!(d["terminated"], 0);
    assert!((d["application_throughput"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert!((d["miss_rate"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(s["flows"]["terminated"], 0);
    let csv = dcnsim::metrics::output::flows_csv(&out);
    let rows: Vec<&str> = csv.lines().collect();
    let header: Vec<&str> = rows[0].split(',').collect();
    let column = |name: &str| header.iter().position(|&c| c == name).expect(name);
    let (met_col, term_col) = (column("met_deadline"), column("terminated_s"));
    let row1: Vec<&str> = rows[1].split(',').collect();
    assert!(rows[1].contains(",0.00002,true,"), "{}", rows[1]);
    assert_eq!(row1[met_col], "true");
    assert_eq!(row1[term_col], "", "not terminated: empty terminated_s");
    assert!(rows[2].contains(",false,"), "{}", rows[2]);
}

/// A flow the application aborts at its deadline closes as its protocol would on its own
/// termination (PDQ's TERM, D3's FIN, PACE's TERMINATE from the receiver), so that switches
/// holding state for it let it go. On a 10 Gb/s star, A (h0→h2, 10 MB, due at 1 ms, its
/// protocol's own give-up turned off) and B (h1→h2, 4 MB, no deadline, from 0.1 ms) meet at
/// h2's link. PDQ serves A first (earliest deadline); D3 gave A the link, its request having
/// come first; PACE shares the link. Once A is aborted B has the link alone: 3.3 ms of transfer
/// at most, so B ends near 4.3 ms under PDQ and D3 (4.34 and 4.35 ms measured) and at 4.5 ms
/// under PACE, whose period adapts first; the test asks for 5 ms. Before, B was still waiting
/// at 0.5 s under PDQ and D3 (the routers kept A's entry or allocation) and ended at 7.2 ms
/// under PACE (A's demand kept half the link).
#[test]
fn an_aborted_flow_releases_the_switch_state_it_held() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n0,2,10000000,0,0.001\n1,2,4000000,0.0001,\n";
    for (protocol, no_give_up) in [
        ("pdq", "pdq_early_termination = false"),
        ("d3", "d3_quench = false"),
        ("pace", ""),
    ] {
        let text =
            common::star_with_flow_file(3, 10, protocol, no_give_up) + "abort_at_deadline = true\n";
        let out = common::run_in(&text, &[], &flow_dir(&format!("abort-{protocol}"), csv));
        let a = out.flows.iter().find(|f| f.src == 0).unwrap();
        let b = out.flows.iter().find(|f| f.src == 1).unwrap();
        assert_eq!(
            a.terminated.map(|t| t.as_secs_f64()),
            Some(0.001),
            "{protocol}"
        );
        let b_end = b.finish.expect("B finishes").as_secs_f64();
        assert!(b_end < 0.005, "{protocol}: B ends at {b_end} s");
    }
}

/// D3, a flow aborted while its SYN is still on its way: the routers have given it an
/// allocation that only the SYN-ACK tells the sender, so its FIN must wait for that reply to
/// return it. On the star of the test above, A (h0→h2, 10 MB, desired rate beyond the link,
/// quenching off) is due at 2 µs, before its SYN reaches h2 (2.1 µs); its SYN took all of
/// h2's link (left = C). B (h1→h2, 4 MB, no deadline, from 0.1 ms) then needs 3.34 ms alone
/// (2 740 packets of 1 522 B): it ends at 3.44 ms, the test asks for 3.5. When A's FIN went at
/// once, returning nothing, the link stayed A's and B sat at the base rate to the end of the
/// run.
#[test]
fn d3_aborted_before_its_syn_ack_returns_the_allocation_it_carries() {
    let csv =
        "src,dst,size_bytes,start_s,deadline_s\n0,2,10000000,0,0.000002\n1,2,4000000,0.0001,\n";
    let text = common::star_with_flow_file(3, 10, "d3", "d3_quench = false")
        + "abort_at_deadline = true\n";
    let out = common::run_in(&text, &["stop_s=0.02"], &flow_dir("abort-d3-syn", csv));
    let a = out.flows.iter().find(|f| f.src == 0).unwrap();
    let b = out.flows.iter().find(|f| f.src == 1).unwrap();
    assert_eq!(a.terminated, Some(Time::from_us(2)));
    assert_eq!(a.bytes_delivered, 0);
    let b_end = b.finish.map(|t| t.as_secs_f64());
    assert!(b_end.is_some_and(|t| t < 0.0035), "B ends at {b_end:?} s");
}
