//! D2TCP on small scenarios where its mechanism has room to act: two 1 MB flows into one
//! receiver of a 10 Gb/s star (1 µs links, 400-packet buffers, so ECN marks and not drops
//! govern the windows; K = 65 by default). Both flows last a dozen windows or more, long enough
//! for α to move away from its initial value, and their deadlines differ, so their d differ.
//! (A fan-in burst whose responses share one deadline gives every response the same d, and
//! D2TCP then splits the link as DCTCP does: see `protocols::d2tcp`.)

mod common;

use common::{flow_dir, run_in};
use dcnsim::metrics::FlowRecord;
use dcnsim::units::Time;

fn star(protocol: &str, extra: &str) -> String {
    format!(
        r#"
[topology]
kind = "star"
hosts = 3
link_gbps = 10
link_delay_us = 1
buffer_pkts = 400
[transport]
protocol = "{protocol}"
{extra}
[workload]
kind = "flows"
file = "flows.csv"
"#
    )
}

fn run(name: &str, csv: &str, protocol: &str, extra: &str) -> Vec<FlowRecord> {
    let mut flows = run_in(&star(protocol, extra), &[], &flow_dir(name, csv)).flows;
    flows.sort_by_key(|f| f.src);
    flows
}

fn fct_ms(f: &FlowRecord) -> f64 {
    f.fct().expect("finished").as_secs_f64() * 1e3
}

/// A (h1 → h0, due at 1.58 ms) and B (h2 → h0, due at 10 ms) start together. DCTCP shares
/// h0's link: A ends at 1.64 ms and misses. Under D2TCP A's d is above 1 and B's at the lower
/// clamp, so B backs off more at every marked window and A ends at 1.51 ms, in time; B still
/// meets its deadline (the link is busy to the same 1.65 ms either way). Measured with the
/// defaults (α starts at 1): A 1.642 ms under DCTCP, 1.514 ms under D2TCP.
#[test]
fn d2tcp_gives_the_nearer_deadline_the_bandwidth_and_meets_it() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n1,0,1000000,0,0.00158\n2,0,1000000,0,0.010\n";
    let dctcp = run("d2tcp-two-dctcp", csv, "dctcp", "");
    let d2tcp = run("d2tcp-two-d2tcp", csv, "d2tcp", "");
    assert_eq!(
        dctcp[0].met_deadline(),
        Some(false),
        "{}",
        fct_ms(&dctcp[0])
    );
    assert_eq!(d2tcp[0].met_deadline(), Some(true), "{}", fct_ms(&d2tcp[0]));
    assert!(d2tcp.iter().all(|f| f.met_deadline() == Some(true)));
    let missed = |fs: &[FlowRecord]| fs.iter().filter(|f| f.met_deadline() != Some(true)).count();
    assert!(missed(&d2tcp) < missed(&dctcp));
    // The urgent flow gained at least 5 % of its completion time.
    assert!(fct_ms(&d2tcp[0]) < 0.95 * fct_ms(&dctcp[0]));
}

/// What a late flow does to a flow that can still make it. L (h1 → h0, due at 0.2 ms, which
/// no 1 MB flow can meet) and T (h2 → h0, due at 1.5 ms) start together, with α starting at 0
/// (as in the DCTCP patches of D2TCP's time), where the gamma correction acts from the first
/// marked windows. Measured (T's completion): default `d2tcp_late = "d_min"` 1.40 ms, in time;
/// `"dctcp"` (L at d = 1) 1.55 ms; `"d_max"` (L stays the most urgent flow, this simulator's
/// behaviour before) 1.65 ms; protocol DCTCP 1.65 ms; `"close"` 1.02 ms, L being given up at
/// the first ACK after its deadline (200.1 µs) with 116 800 bytes delivered.
#[test]
fn a_late_flow_yields_to_a_flow_that_can_still_meet_its_deadline() {
    let csv = "src,dst,size_bytes,start_s,deadline_s\n1,0,1000000,0,0.0002\n2,0,1000000,0,0.0015\n";
    let alpha0 = "dctcp_init_alpha = 0.0";
    let with = |late: Option<&str>| {
        let extra = match late {
            Some(l) => format!("{alpha0}\nd2tcp_late = \"{l}\""),
            None => alpha0.to_string(),
        };
        run(&format!("d2tcp-late-{late:?}"), csv, "d2tcp", &extra)
    };
    let default = with(None);
    let (l, t) = (&default[0], &default[1]);
    assert_eq!(t.met_deadline(), Some(true), "T at {} ms", fct_ms(t));
    // The late flow is not given up: it delivers everything, after T.
    assert_eq!((l.terminated, l.bytes_delivered), (None, 1_000_000));
    assert!(l.finish > t.finish);
    // Keeping it the most urgent flow (the old behaviour) makes T miss, as does DCTCP.
    let d_max = with(Some("d_max"));
    assert_eq!(
        d_max[1].met_deadline(),
        Some(false),
        "T at {} ms",
        fct_ms(&d_max[1])
    );
    let dctcp = run("d2tcp-late-dctcp-protocol", csv, "dctcp", alpha0);
    assert_eq!(dctcp[1].met_deadline(), Some(false));
    // d = 1 after the deadline lies in between.
    let d1 = with(Some("dctcp"));
    assert!(fct_ms(&default[1]) < fct_ms(&d1[1]) && fct_ms(&d1[1]) < fct_ms(&d_max[1]));
    // "close" (FujiZ's ns-3): L ends terminated within an RTT of its deadline, T has the link.
    let close = with(Some("close"));
    let end = close[0].terminated.expect("L terminated");
    assert!(
        end > Time::from_us(200) && end < Time::from_us(210),
        "{end:?}"
    );
    assert!(close[0].finish.is_none() && close[0].bytes_delivered < 1_000_000);
    assert!(fct_ms(&close[1]) < 1.1, "T at {} ms", fct_ms(&close[1]));
}
