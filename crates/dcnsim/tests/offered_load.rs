//! The realised offered load (issue 37): per host link and on the most loaded one, against
//! `workload.load`, with a warning when they drift apart by more than 5 %.

mod common;

use common::flow_dir;
use dcnsim::metrics::load::DRIFT_WARN;
use dcnsim::metrics::summary::summarize;
use std::path::Path;

fn prepare(text: &str, overrides: &[&str], base: &Path) -> dcnsim::engine::Prepared {
    common::try_prepare(text, overrides, base).expect("valid scenario")
}

const POISSON: &str = r#"
[topology]
kind = "star"
hosts = 8
link_gbps = 10
[transport]
protocol = "dctcp"
[workload]
kind = "poisson"
sizes = { dist = "fixed", kb = 100 }
load = 0.6
flows = 20000
start_s = 1.0
"#;

#[test]
fn host_link_loads_are_bytes_over_rate_and_window() {
    // Window: the workload's start (0: a flow file has no start_s) to the last arrival,
    // 0.003 s. 10 Gb/s links.
    let dir = flow_dir(
        "offered-load",
        "src,dst,size_bytes,start_s\n0,1,1000000,0.001\n0,2,500000,0.002\n3,1,250000,0.003\n",
    );
    let text = common::star_with_flow_file(4, 10, "dctcp", "");
    let p = prepare(&text, &[], &dir);
    let l = &p.load;
    let cap = 10e9 * 0.003 / 8.0; // bytes a 10 Gb/s link carries in the window
    assert_eq!(l.window.0.as_secs_f64(), 0.0);
    assert_eq!(l.window.1.as_secs_f64(), 0.003);
    let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-12;
    assert!(close(l.uplink(0), 1_500_000.0 / cap));
    assert!(close(l.uplink(3), 250_000.0 / cap));
    assert!(close(l.downlink(1), 1_250_000.0 / cap));
    assert!(close(l.downlink(0), 0.0));
    // Not a Poisson workload: no nominal, no drift, no warning.
    assert_eq!(l.nominal, None);
    assert!(l.warnings().is_empty());
    let (name, dir_, host, load) = l.most_loaded().unwrap();
    assert_eq!((name, dir_, host), ("h0->sw", "uplink", 0), "{name}");
    assert!((load - 0.4).abs() < 1e-12);
    // The same in summary.json after a run.
    let out = dcnsim::run_prepared(p, &mut |_| true).unwrap();
    let s = summarize(&out);
    assert_eq!(s["load"]["most_loaded"]["link"], "h0->sw");
    assert_eq!(s["load"]["host_uplink"].as_array().unwrap().len(), 4);
    assert_eq!(s["load"]["nominal"], serde_json::Value::Null);
    assert_eq!(s["warnings"], serde_json::json!([]));
}

#[test]
fn a_poisson_workload_with_fixed_sizes_realises_its_nominal_load() {
    // 20 000 fixed-size flows: the window's relative spread is 1/√N = 0.7 %.
    let p = prepare(POISSON, &[], Path::new("."));
    let l = &p.load;
    assert_eq!(l.nominal, Some(0.6));
    assert_eq!(l.senders, 8);
    assert_eq!(
        l.window.0.as_secs_f64(),
        1.0,
        "the window starts at start_s"
    );
    let r = l.realised().unwrap();
    assert!((r - 0.6).abs() < 0.6 * 0.025, "realised {r}");
    assert!(l.warnings().is_empty());
    // Every host's links carry about the nominal load (random pairs), none far above it.
    let (_, _, _, max) = l.most_loaded().unwrap();
    assert!(max > r && max < 0.7, "most loaded {max}");
}

#[test]
fn a_heavy_tailed_sample_that_drifts_is_warned_about_and_only_then() {
    // 300 data-mining flows: the sample's mean size is often tens of per cent off.
    let mut warned = 0;
    for seed in 1..=10 {
        let text = POISSON
            .replace("{ dist = \"fixed\", kb = 100 }", "\"datamining\"")
            .replace("flows = 20000", "flows = 300");
        let p = prepare(&text, &[&format!("seed={seed}")], Path::new("."));
        let drift = p.load.drift().unwrap();
        let w = p.load.warnings();
        assert_eq!(
            w.len(),
            usize::from(drift.abs() > DRIFT_WARN),
            "seed {seed}"
        );
        if let Some(msg) = w.first() {
            warned += 1;
            assert!(msg.contains("workload.load = 0.6"), "{msg}");
            assert!(!msg.contains('\n'), "one line: {msg}");
        }
    }
    assert!(warned >= 5, "only {warned} of 10 seeds drifted beyond 5 %");
}

#[test]
fn flows_that_all_start_at_once_have_no_load() {
    let text = r#"
[topology]
kind = "star"
hosts = 8
[transport]
protocol = "dctcp"
[workload]
kind = "incast"
senders = 4
sizes = { dist = "fixed", kb = 10 }
"#;
    let p = prepare(text, &[], Path::new("."));
    assert_eq!(p.load.realised(), None);
    assert_eq!(p.load.most_loaded(), None);
    let out = dcnsim::run_prepared(p, &mut |_| true).unwrap();
    let s = summarize(&out);
    assert_eq!(s["load"]["host_uplink"], serde_json::Value::Null);
    assert_eq!(s["warnings"], serde_json::json!([]));
}

#[test]
fn host_links_match_a_scan_of_every_link_per_host() {
    // The one-pass count against the plain reference: for each host, every link that touches
    // it. A fat-tree (one link per host) and a BCube (two per server).
    for topology in [
        "kind = \"fattree\"\nk = 4\nlink_gbps = 10",
        "kind = \"bcube\"\nn = 2\nk = 1\nlink_gbps = 10",
    ] {
        let text = format!(
            "[topology]\n{topology}\n[transport]\nprotocol = \"dctcp\"\n[workload]\n\
             kind = \"poisson\"\nsizes = {{ dist = \"fixed\", kb = 10 }}\nflows = 200\n"
        );
        let p = prepare(&text, &[], Path::new("."));
        let topo = &p.topo;
        assert_eq!(p.load.hosts.len(), topo.hosts.len());
        for (i, (&h, got)) in topo.hosts.iter().zip(&p.load.hosts).enumerate() {
            let (mut up, mut down, mut peers) = (0, 0, Vec::new());
            for l in &topo.links {
                if l.a == h {
                    up += l.rate_ab.bits_per_sec();
                    down += l.rate_ba.bits_per_sec();
                    peers.push(l.b);
                } else if l.b == h {
                    up += l.rate_ba.bits_per_sec();
                    down += l.rate_ab.bits_per_sec();
                    peers.push(l.a);
                }
            }
            let name = &topo.nodes[h].name;
            let (up_name, down_name) = match peers[..] {
                [p] => {
                    let peer = &topo.nodes[p].name;
                    (format!("{name}->{peer}"), format!("{peer}->{name}"))
                }
                _ => {
                    let all = format!("{name} ({} links)", peers.len());
                    (all.clone(), all)
                }
            };
            let bytes_where = |end: fn(&dcnsim::workload::FlowSpec) -> u32| -> u64 {
                p.flows
                    .iter()
                    .filter(|f| end(f) as usize == i)
                    .map(|f| f.size_bytes)
                    .sum()
            };
            let (sent, received) = (bytes_where(|f| f.src), bytes_where(|f| f.dst));
            assert_eq!(got.up_name, up_name);
            assert_eq!(got.down_name, down_name);
            assert_eq!(got.up_rate.bits_per_sec(), up, "{up_name}");
            assert_eq!(got.down_rate.bits_per_sec(), down, "{down_name}");
            assert_eq!((got.sent_bytes, got.received_bytes), (sent, received));
        }
    }
}
