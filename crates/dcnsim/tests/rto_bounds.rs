//! One rule for the RTO keys under every transport that has them (issue 38,
//! `dcnsim::validate`): an `initial_rto_us` the scenario sets outside `[min_rto_us,
//! max_rto_us]` is refused naming `transport.initial_rto_us`, never clamped; within them it
//! runs as written.

mod common;
use common::{flow_dir, run_in, star_with_flow_file, try_prepare};

/// The transports with `min_rto_us`, `initial_rto_us` and `max_rto_us`, one per family: the
/// TCP senders, the paced core (RCP, D3) and MERP.
const WITH_RTO_KEYS: &[&str] = &["tcp", "dctcp", "d2tcp", "mcp", "rcp", "d3", "merp"];

const BOUNDS: &str = "min_rto_us = 200\nmax_rto_us = 5000\n";

#[test]
fn an_initial_rto_outside_the_bounds_is_refused_under_every_transport() {
    let dir = flow_dir(
        "rto-bounds-refused",
        "src,dst,size_bytes,start_s\n0,1,20000,0\n",
    );
    for proto in WITH_RTO_KEYS {
        for initial in ["100", "6000"] {
            let text = star_with_flow_file(
                2,
                10,
                proto,
                &format!("{BOUNDS}initial_rto_us = {initial}\n"),
            );
            let e = match try_prepare(&text, &[], &dir) {
                Ok(_) => panic!("{proto}: initial_rto_us = {initial} must be refused"),
                Err(e) => e,
            };
            assert_eq!(e.path, "transport.initial_rto_us", "{proto} {initial}: {e}");
            assert!(
                e.message.contains("min_rto_us (200 µs)")
                    && e.message.contains("max_rto_us (5000 µs)"),
                "{proto} {initial}: {e}"
            );
        }
    }
}

#[test]
fn an_initial_rto_within_the_bounds_runs_under_every_transport() {
    let dir = flow_dir(
        "rto-bounds-run",
        "src,dst,size_bytes,start_s\n0,1,20000,0\n",
    );
    for proto in WITH_RTO_KEYS {
        for initial in ["200", "1000", "5000"] {
            let text = star_with_flow_file(
                2,
                10,
                proto,
                &format!("{BOUNDS}initial_rto_us = {initial}\n"),
            );
            let out = run_in(&text, &[], &dir);
            assert!(
                out.flows.iter().all(|f| f.finish.is_some()),
                "{proto} {initial}: a flow did not finish"
            );
        }
    }
}

/// A bound the scenario leaves unset is its default, and the refusal says so.
#[test]
fn a_refusal_caused_by_a_default_bound_names_it() {
    let dir = flow_dir(
        "rto-bounds-default",
        "src,dst,size_bytes,start_s\n0,1,20000,0\n",
    );
    for proto in ["tcp", "rcp", "d3"] {
        let text = star_with_flow_file(2, 10, proto, "initial_rto_us = 10\n");
        let e = try_prepare(&text, &[], &dir).err().expect("refused");
        assert_eq!(e.path, "transport.initial_rto_us", "{proto}: {e}");
        assert!(
            e.message.contains("min_rto_us (1000 µs, its default)"),
            "{proto}: {e}"
        );
    }
}

/// MERP's floor is derived from the network (one RTT), so it gives way to an initial RTO set
/// below it rather than refuse a value the user never wrote.
#[test]
fn merp_derived_floor_gives_way_to_the_initial_rto_set() {
    let dir = flow_dir(
        "rto-bounds-merp",
        "src,dst,size_bytes,start_s\n0,1,20000,0\n",
    );
    // The star's RTT is a few µs; 1 µs is below it.
    let text = star_with_flow_file(2, 10, "merp", "initial_rto_us = 1\n");
    let p = try_prepare(&text, &[], &dir).expect("a derived floor never refuses");
    let dcnsim::protocols::TransportKeys::Merp(_, t) = &p.transport_keys else {
        panic!("merp")
    };
    assert_eq!((t.min_rto_us, t.initial_rto_us), (Some(1.0), Some(1.0)));
}
