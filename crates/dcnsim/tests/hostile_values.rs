//! Hostile input (issue 36): every bad value is refused with an error that names its key (or
//! its file and line) and the limit, nothing is clamped or dropped, and messages stay short.
//! Each test is a reproducer a tester found, with its class: non-finite numbers and dates,
//! values beyond what the integer units hold, the wrong key in a message, errors from files
//! without their line, and messages that echo whole inputs.

mod common;
use common::{flow_dir, run_in, try_prepare as prepare};
use dcnsim::error::ConfigError;
use dcnsim::units::Time;
use std::path::{Path, PathBuf};

/// Two hosts on one switch, one 1000-byte flow at t = 0 (`flows.csv` beside it).
const STAR: &str = r#"
[topology]
kind = "star"
hosts = 2
[transport]
protocol = "dctcp"
[workload]
kind = "flows"
file = "flows.csv"
"#;

/// The demo's shape, small: a k = 4 fat-tree under Poisson arrivals.
const FATTREE: &str = r#"
[topology]
kind = "fattree"
k = 4
[workload]
kind = "poisson"
load = 0.6
flows = 20
"#;

fn one_flow() -> PathBuf {
    flow_dir("hostile", "src,dst,size_bytes,start_s\n0,1,1000,0\n")
}

/// A fresh folder holding `files` (name, bytes).
fn dir_with(name: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dcnsim-hostile-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (f, bytes) in files {
        std::fs::write(dir.join(f), bytes).unwrap();
    }
    dir
}

fn refused(text: &str, overrides: &[&str], base: &Path) -> ConfigError {
    match prepare(text, overrides, base) {
        Ok(_) => panic!("{overrides:?} must be refused"),
        Err(e) => e,
    }
}

/// Refused at `path`, with every piece of `says` in the message.
fn assert_refused(text: &str, overrides: &[&str], base: &Path, path: &str, says: &[&str]) {
    let e = refused(text, overrides, base);
    assert_eq!(e.path, path, "{overrides:?}: {e}");
    for s in says {
        assert!(e.message.contains(s), "{overrides:?}: '{s}' not in: {e}");
    }
}

// --- 1. NaN, ±inf and dates: refused with their key, never turned into null ----------------

#[test]
fn non_finite_numbers_in_overrides_name_their_key() {
    let here = Path::new(".");
    for v in ["nan", "inf", "-inf", "+nan"] {
        let set = format!("workload.load={v}");
        let e = refused(FATTREE, &[&set], here);
        assert_eq!(e.path, "workload.load", "{v}: {e}");
        assert!(
            e.message.starts_with("must be a finite number, got "),
            "{e}"
        );
    }
    assert_eq!(
        refused(FATTREE, &["workload.load=nan"], here).message,
        "must be a finite number, got nan"
    );
    // Inside an array of tables given on the command line.
    assert_refused(
        FATTREE,
        &[r#"topology.link_overrides=[{between = ["edge0_0", "agg0_0"], gbps = nan}]"#],
        here,
        "topology.link_overrides[0].gbps",
        &["finite", "nan"],
    );
    assert_refused(
        FATTREE,
        &[r#"failures=[{link = ["edge0_0", "agg0_0"], down_s = 0.001, up_s = nan}]"#],
        here,
        "failures[0].up_s",
        &["finite"],
    );
}

#[test]
fn non_finite_numbers_in_files_name_their_key() {
    let here = Path::new(".");
    // `k = nan` used to run k = 4: the key vanished and its default took over.
    let text = FATTREE.replace("k = 4", "k = nan");
    assert_refused(&text, &[], here, "topology.k", &["finite", "nan"]);
    let text = format!("{STAR}[[failures]]\nlink = [\"h0\", \"sw\"]\ndown_s = 0.001\nup_s = nan\n");
    assert_refused(&text, &[], &one_flow(), "failures[0].up_s", &["finite"]);
    let text = STAR.replace(
        "hosts = 2\n",
        "hosts = 2\nlink_overrides = [{ between = [\"h0\", \"sw\"], gbps = -inf }]\n",
    );
    assert_refused(
        &text,
        &[],
        &one_flow(),
        "topology.link_overrides[0].gbps",
        &["-inf"],
    );
}

#[test]
fn dates_and_times_are_refused_with_their_key() {
    let here = Path::new(".");
    let text = format!("seed = 1979-05-27\n{FATTREE}");
    assert_refused(&text, &[], here, "seed", &["date or time", "1979-05-27"]);
    assert_refused(
        FATTREE,
        &["stop_s=07:32:00"],
        here,
        "stop_s",
        &["date or time"],
    );
    assert_refused(
        FATTREE,
        &["workload.start_s=1979-05-27T07:32:00Z"],
        here,
        "workload.start_s",
        &["date or time"],
    );
}

#[test]
fn valid_numbers_are_kept_exactly() {
    let p = prepare(
        FATTREE,
        &["workload.load=0.6", "stop_s=1e6"],
        Path::new("."),
    )
    .unwrap();
    assert_eq!(p.scenario.workload.load, Some(0.6));
    assert_eq!(p.scenario.stop_s, Some(1e6));
    let json = p.scenario_json();
    assert!(json.contains("\"load\": 0.6"), "{json}");
    assert!(json.contains("\"stop_s\": 1000000.0"), "{json}");
}

// --- 2. Times and rates beyond what the integer units hold -----------------------------------

#[test]
fn a_link_delay_beyond_the_horizon_is_refused_and_the_horizon_itself_is_exact() {
    let dir = one_flow();
    for d in ["1e13", "1e14", "1e300"] {
        let set = format!("topology.link_delay_us={d}");
        assert_refused(
            STAR,
            &[&set],
            &dir,
            "topology.link_delay_us",
            &["simulation horizon", "at most 1e12 µs"],
        );
    }
    // 1e12 µs = 1e6 s per link is allowed: two hops of it, plus a 1040-byte packet serialised
    // twice at 10 Gb/s (832 ns each). It used to come out as 1 553 256 s.
    let out = run_in(STAR, &["topology.link_delay_us=1e12"], &dir);
    let expect = Time::from_secs_f64(2e6) + Time::from_ns(2 * 832);
    assert_eq!(out.flows[0].ideal_fct, expect);
    assert_eq!(out.flows[0].finish, None, "no run lasts 2e6 s");
}

#[test]
fn times_beyond_the_horizon_are_refused_naming_their_key() {
    let dir = one_flow();
    let cases: &[(&str, &str)] = &[
        ("stop_s=1e300", "stop_s"),
        ("routing.reroute_delay_us=1e14", "routing.reroute_delay_us"),
        (
            "output.series_interval_us=1e300",
            "output.series_interval_us",
        ),
        ("transport.min_rto_us=1e300", "transport.min_rto_us"),
        ("transport.max_rto_us=2e12", "transport.max_rto_us"),
        (
            "workload.deadline={dist = \"fixed\", ms = 1e300}",
            "workload.deadline.ms",
        ),
        (
            r#"failures=[{link = ["h0", "sw"], down_s = 2e6}]"#,
            "failures[0].down_s",
        ),
        (
            r#"topology.link_overrides=[{between = ["h0", "sw"], delay_us = 1e300}]"#,
            "topology.link_overrides[0].delay_us",
        ),
    ];
    for (set, key) in cases {
        assert_refused(STAR, &[set], &dir, key, &["simulation horizon"]);
    }
    assert_refused(
        STAR,
        &["routing.lb=letflow", "routing.flowlet_gap_us=1e300"],
        &dir,
        "routing.flowlet_gap_us",
        &["simulation horizon"],
    );
    assert_refused(
        STAR,
        &[
            "transport.protocol=pfabric",
            "transport.pfabric_rto_us=1e300",
        ],
        &dir,
        "transport.pfabric_rto_us",
        &["simulation horizon"],
    );
    assert_refused(
        STAR,
        &["transport.protocol=pdq", "transport.pdq_dampening_us=1e300"],
        &dir,
        "transport.pdq_dampening_us",
        &["simulation horizon"],
    );
}

#[test]
fn workload_times_beyond_the_horizon_are_refused() {
    let here = Path::new(".");
    let incast = r#"
[topology]
kind = "star"
hosts = 4
[workload]
kind = "incast"
senders = 2
sizes = { dist = "fixed", kb = 10 }
rounds = 2
"#;
    // interval_s = 1e300 used to start the second round at 18 446 744.07 s.
    assert_refused(
        incast,
        &["workload.interval_s=1e300"],
        here,
        "workload.interval_s",
        &["simulation horizon"],
    );
    // Each value in range, the sum not: the 12th round at 1.1e6 s.
    assert_refused(
        incast,
        &["workload.interval_s=1e5", "workload.rounds=12"],
        here,
        "workload.interval_s",
        &["round 12", "simulation horizon"],
    );
    let p = prepare(
        incast,
        &["workload.interval_s=1e5", "workload.rounds=11"],
        here,
    )
    .unwrap();
    assert_eq!(p.flows.last().unwrap().start, Time::HORIZON);
    assert_refused(
        incast,
        &["workload.start_s=1e300", "workload.interval_s=1"],
        here,
        "workload.start_s",
        &["simulation horizon"],
    );
    // Poisson arrivals that would run past the horizon: the load names them.
    assert_refused(
        FATTREE,
        &["workload.load=1e-300"],
        here,
        "workload.load",
        &["simulation horizon", "raise load"],
    );
}

#[test]
fn flow_file_times_beyond_the_horizon_name_the_line() {
    let text = STAR;
    let dir = flow_dir(
        "hostile-start",
        "src,dst,size_bytes,start_s,deadline_s\n0,1,1000,0,\n1,0,1000,1e300,\n",
    );
    let e = refused(text, &[], &dir);
    assert_eq!(e.path, "flows.csv line 3");
    assert!(
        e.message.contains("column start_s") && e.message.contains("at most 1e6 s"),
        "{e}"
    );
    let dir = flow_dir(
        "hostile-deadline",
        "src,dst,size_bytes,start_s,deadline_s\n0,1,1000,0,1e7\n",
    );
    let e = refused(text, &[], &dir);
    assert_eq!(e.path, "flows.csv line 2");
    assert!(e.message.contains("column deadline_s"), "{e}");
    // The horizon itself is a valid start, kept to the picosecond.
    let dir = flow_dir(
        "hostile-horizon",
        "src,dst,size_bytes,start_s\n0,1,1000,1e6\n",
    );
    let p = prepare(text, &[], &dir).unwrap();
    assert_eq!(p.flows[0].start, Time::HORIZON);
}

#[test]
fn rates_beyond_the_largest_are_refused_naming_their_key() {
    let dir = one_flow();
    // It used to be reported as topology.ecn_k_pkts, for an "18446744073.7 Gbps port".
    assert_refused(
        STAR,
        &["topology.link_gbps=1e300"],
        &dir,
        "topology.link_gbps",
        &["at most 4000 Gbps"],
    );
    assert_refused(
        STAR,
        &[r#"topology.link_overrides=[{between = ["h0", "sw"], gbps = 5000}]"#],
        &dir,
        "topology.link_overrides[0].gbps",
        &["4000 Gbps"],
    );
    // (DCTCP's default threshold at 4 Tbit/s, 26 000 packets, needs a bigger buffer: tcp.)
    let p = prepare(
        STAR,
        &["topology.link_gbps=4000", "transport.protocol=tcp"],
        &dir,
    )
    .unwrap();
    assert_eq!(p.topo.links[0].rate_ab, dcnsim::units::Rate::gbps(4000));
}

#[test]
fn segment_and_header_sizes_are_bounded_for_every_protocol() {
    let dir = one_flow();
    // A ~4 GB header on 1-byte segments made a flow's bytes on the wire pass 64 bits.
    for &(protocol, _) in dcnsim::protocols::PROTOCOLS {
        let proto = format!("transport.protocol={protocol}");
        assert_refused(
            STAR,
            &[
                &proto,
                "transport.mss_bytes=1",
                "transport.header_bytes=4294967000",
            ],
            &dir,
            "transport.header_bytes",
            &["must be from 1 to 1024 bytes", "got 4294967000"],
        );
        assert_refused(
            STAR,
            &[&proto, "transport.mss_bytes=65536"],
            &dir,
            "transport.mss_bytes",
            &["must be from 1 to 65535 bytes", "IP packet"],
        );
        assert_refused(
            STAR,
            &[&proto, "transport.mss_bytes=0"],
            &dir,
            "transport.mss_bytes",
            &["from 1 to 65535"],
        );
        // The limits themselves are valid.
        for limits in [
            ["transport.mss_bytes=1", "transport.header_bytes=1024"],
            ["transport.mss_bytes=65535", "transport.header_bytes=1"],
        ] {
            prepare(STAR, &[&proto, limits[0], limits[1]], &dir)
                .unwrap_or_else(|e| panic!("{protocol} {limits:?}: {e}"));
        }
    }
    // At the limits, a 1000-byte flow of 1-byte segments runs: 1000 packets of 1025 bytes.
    let out = run_in(
        STAR,
        &["transport.mss_bytes=1", "transport.header_bytes=1024"],
        &dir,
    );
    assert!(out.flows[0].finish.is_some());
    assert_eq!(out.flows[0].data_packets, 1000);
}

#[test]
fn sizes_beyond_the_largest_are_refused() {
    let here = Path::new(".");
    let text = FATTREE.replace(
        "load = 0.6",
        "load = 0.6\nsizes = { dist = \"fixed\", kb = 1e300 }",
    );
    assert_refused(
        &text,
        &[],
        here,
        "workload.sizes.kb",
        &["largest flow size"],
    );
    let dir = flow_dir(
        "hostile-size",
        "src,dst,size_bytes,start_s\n0,1,18446744073709551615,0\n",
    );
    let e = refused(STAR, &[], &dir);
    assert_eq!(e.path, "flows.csv line 2");
    assert!(e.message.contains("largest flow size"), "{e}");
}

// --- 3. The key a message names is the key to change -----------------------------------------

#[test]
fn a_topology_too_large_names_the_key_that_makes_it_so() {
    let here = Path::new(".");
    let dumbbell = "[topology]\nkind = \"dumbbell\"\n[workload]\nkind = \"poisson\"\n";
    // It used to name `senders`.
    assert_refused(
        dumbbell,
        &["topology.receivers=100000000000"],
        here,
        "topology.receivers",
        &["receivers = 100000000000", "senders = 8"],
    );
    let leafspine = dumbbell.replace("dumbbell", "leafspine");
    // It used to name `leaves`.
    assert_refused(
        &leafspine,
        &["topology.spines=100000000000"],
        here,
        "topology.spines",
        &["spines = 100000000000"],
    );
    assert_refused(
        &leafspine,
        &["topology.hosts_per_leaf=100000000"],
        here,
        "topology.hosts_per_leaf",
        &["nodes"],
    );
    let bcube = dumbbell.replace("dumbbell", "bcube");
    assert_refused(
        &bcube,
        &["topology.n=100000", "topology.k=1"],
        here,
        "topology.n",
        &["BCube"],
    );
}

#[test]
fn a_transport_default_from_a_long_network_names_the_keys_that_made_it_long() {
    let dir = one_flow();
    // Links of 10^5 s: an RTT of 4·10^5 s, three of which (pFabric's RTO), the RTT itself as
    // MERP's RTO floor (above the 1 s cap), or the RTT in µs beyond RCP's range pass what the
    // keys allow. The message used to name the transport key, which the scenario never set.
    // `at`: the key of the error the default caused.
    for (protocol, derived, at) in [
        ("merp", "transport.min_rto_us", "transport.max_rto_us"),
        (
            "pfabric",
            "transport.pfabric_rto_us",
            "transport.pfabric_rto_us",
        ),
        (
            "rcp",
            "transport.rcp_init_rtt_us",
            "transport.rcp_init_rtt_us",
        ),
    ] {
        let proto = format!("transport.protocol={protocol}");
        assert_refused(
            STAR,
            &[&proto, "topology.link_delay_us=1e11"],
            &dir,
            "topology.link_delay_us",
            &[
                "the network's longest round trip, 4.000e5 s",
                "propagation delays",
                &format!("makes the default of {derived} out of range: {at}: "),
                &format!("or set {derived} yourself"),
            ],
        );
    }
    // Slow links: the time to send a packet makes the round trip (at 1 bit/s, two hops of
    // RCP's 1508-byte data packet and its 48-byte ACK: 24 896 s), and the rate is the key
    // named.
    assert_refused(
        STAR,
        &["transport.protocol=rcp", "topology.link_gbps=1e-9"],
        &dir,
        "topology.link_gbps",
        &[
            "round trip, 2.490e4 s (most of it the time to send a packet over its slow links)",
            "transport.rcp_init_rtt_us",
            "lower topology.link_gbps, or set",
        ],
    );
    // A link override that made the path long is the key named.
    let over = r#"topology.link_overrides=[{between = ["h1", "sw"], delay_us = 6e11}]"#;
    assert_refused(
        STAR,
        &["transport.protocol=d3", over],
        &dir,
        "topology.link_overrides[0].delay_us",
        &[
            "transport.d3_interval_us",
            "lower topology.link_overrides[0].delay_us or \
           topology.link_delay_us",
        ],
    );
    // An initial RTO the scenario sets above the maximum's default is refused as written
    // (issue 38: it used to be clamped silently), the message naming the default bound.
    assert_refused(
        STAR,
        &[
            "transport.protocol=merp",
            "topology.link_delay_us=1e11",
            "transport.initial_rto_us=1e12",
        ],
        &dir,
        "transport.initial_rto_us",
        &["max_rto_us (1e6 µs, its default)", "got 1e12 µs"],
    );
    // A key the scenario sets keeps its own error.
    assert_refused(
        STAR,
        &["transport.protocol=rcp", "transport.rcp_init_rtt_us=1e9"],
        &dir,
        "transport.rcp_init_rtt_us",
        &["must be a number in"],
    );
    // Set by hand, the derived key lets the same network run.
    let p = prepare(
        STAR,
        &[
            "transport.protocol=merp",
            "topology.link_delay_us=1e11",
            "transport.initial_rto_us=1e12",
            "transport.max_rto_us=1e12",
        ],
        &dir,
    )
    .unwrap();
    let dcnsim::protocols::TransportKeys::Merp(_, t) = &p.transport_keys else {
        panic!("merp")
    };
    assert_eq!(t.initial_rto_us, Some(1e12));
}

#[test]
fn pfabrics_largest_initial_window_does_not_wrap_its_maximum() {
    let dir = one_flow();
    // 2·init − 1 wrapped around for init ≥ 2^31 (set, or the BDP of very long links) and the
    // maximum window, a key never set, was refused as below the initial one.
    for o in [
        "transport.init_cwnd_pkts=4294967295",
        "topology.link_delay_us=1e10",
    ] {
        let p = prepare(STAR, &["transport.protocol=pfabric", o], &dir).unwrap();
        let dcnsim::protocols::TransportKeys::Pfabric(_, t) = &p.transport_keys else {
            panic!("pfabric")
        };
        assert!(
            t.init_cwnd_pkts.unwrap() >= 1 << 31,
            "{o}: {:?}",
            t.init_cwnd_pkts
        );
        assert_eq!(t.pfabric_max_cwnd_pkts, Some(u32::MAX), "{o}");
    }
}

// --- 4. Errors from files name the file and the line -----------------------------------------

#[test]
fn a_marking_threshold_from_a_topology_file_names_its_line() {
    let scenario = "[topology]\nkind = \"file\"\nfile = \"net.topo\"\n[transport]\nprotocol = \"dctcp\"\n[workload]\nkind = \"flows\"\nfile = \"flows.csv\"\n";
    let flows: &[u8] = b"src,dst,size_bytes,start_s\n0,1,1000,0\n";
    let dir = dir_with(
        "k-line",
        &[
            (
                "net.topo",
                b"host a\nhost b\nswitch s\nlink a s\nlink b s ecn_k_pkts=500\n",
            ),
            ("flows.csv", flows),
        ],
    );
    // It used to name `topology.file`.
    assert_refused(scenario, &[], &dir, "net.topo line 5", &["K = 500", "b–s"]);
    // The threshold is the transport's default; the small buffer comes from the file's line.
    let dir = dir_with(
        "buffer-line",
        &[
            (
                "net.topo",
                b"host a\nhost b\nswitch s\nlink a s\nlink b s buffer_pkts=5\n",
            ),
            ("flows.csv", flows),
        ],
    );
    assert_refused(
        scenario,
        &[],
        &dir,
        "topology.ecn_k_pkts",
        &["5-packet buffer", "net.topo line 5"],
    );
}

#[test]
fn files_that_are_not_utf8_are_refused_at_their_line() {
    let dir = dir_with(
        "utf8-flows",
        &[(
            "flows.csv",
            b"src,dst,size_bytes,start_s\n0,1,1000,0\n1,0,\xff00,0\n",
        )],
    );
    assert_refused(STAR, &[], &dir, "flows.csv line 3", &["UTF-8", "0xff"]);
    let dir = dir_with(
        "utf8-topo",
        &[
            ("net.topo", b"host a\nhost b\nswitch s\xc3\nlink a s\n"),
            ("flows.csv", b"src,dst,size_bytes,start_s\n0,1,1000,0\n"),
        ],
    );
    let text = STAR.replace(
        "kind = \"star\"\nhosts = 2",
        "kind = \"file\"\nfile = \"net.topo\"",
    );
    assert_refused(&text, &[], &dir, "net.topo line 3", &["UTF-8"]);
    let dir = dir_with("utf8-cdf", &[("my.cdf", b"# sizes\n100 0\n\x80 1\n")]);
    let text = FATTREE.replace(
        "load = 0.6",
        "load = 0.6\nsizes = { dist = \"cdf\", file = \"my.cdf\" }",
    );
    assert_refused(&text, &[], &dir, "my.cdf line 3", &["UTF-8"]);
}

// --- 5. Messages quote at most a few hundred characters of an input --------------------------

#[test]
fn messages_do_not_echo_whole_inputs() {
    let here = Path::new(".");
    let big = "x".repeat(1_000_000);
    let short = |e: &ConfigError| {
        let n = e.to_string().len();
        assert!(n < 1000, "{n} bytes: {}", &e.to_string()[..300]);
    };
    let set = format!("topology.kind={big}");
    let e = refused(FATTREE, &[&set], here);
    assert_eq!(e.path, "topology.kind");
    assert!(e.message.contains("expected one of star"), "{e}");
    short(&e);
    let set = format!("transport.protocol=\"{big}\"");
    short(&refused(FATTREE, &[&set], here));
    // An override without '=' is its own path.
    short(&refused(FATTREE, &[&big], here));
    // An unknown key, and a TOML syntax error on a 1 MB line.
    short(&refused(&format!("{big} = 1\n{FATTREE}"), &[], here));
    short(&refused(&format!("name = {big}\n{FATTREE}"), &[], here));
    // A 1 MB cell of a flow file, and a 1 MB node name in a topology file.
    let dir = flow_dir(
        "hostile-long",
        &format!("src,dst,size_bytes,start_s\n0,1,{big},0\n"),
    );
    let e = refused(STAR, &[], &dir);
    assert_eq!(e.path, "flows.csv line 2");
    short(&e);
    let topo = format!("host a\nhost b\nlink a {big}\n");
    let dir = dir_with("long-topo", &[("net.topo", topo.as_bytes())]);
    let text = FATTREE.replace(
        "kind = \"fattree\"\nk = 4",
        "kind = \"file\"\nfile = \"net.topo\"",
    );
    let e = refused(&text, &[], &dir);
    assert_eq!(e.path, "net.topo line 3");
    short(&e);
}

// --- The command line: exit code 2, the key on stderr, no output directory -------------------

#[test]
fn the_cli_refuses_with_exit_code_2_and_writes_nothing() {
    let dir = dir_with("cli", &[("s.toml", FATTREE.as_bytes())]);
    let out = dir.join("out");
    for set in [
        "workload.load=nan",
        "stop_s=1e300",
        "topology.link_gbps=1e300",
    ] {
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim-core"))
            .arg(dir.join("s.toml"))
            .args(["--out", out.to_str().unwrap(), "--set", set])
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{set}");
        let err = String::from_utf8_lossy(&run.stderr);
        let key = set.split('=').next().unwrap();
        assert!(err.contains(&format!("error: {key}: ")), "{set}: {err}");
        assert!(!out.exists(), "{set}: no output directory");
    }
}
