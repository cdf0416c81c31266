//! Tests of the other kinds (permutation, incast, flow files), deadlines and the config schema.

use super::generators::{derangement, Common};
use super::tests::{cfg, err, gen, hosts};
use super::*;
use crate::rng;
use std::collections::HashSet;
use std::path::Path;

// ---------- permutation and incast ----------

#[test]
fn derangements_have_no_fixed_point() {
    let mut r = rng::stream(1, "test");
    for n in [2u32, 3, 5, 64] {
        for _ in 0..50 {
            let p = derangement(n, &mut r);
            let mut sorted = p.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>());
            assert!(p.iter().enumerate().all(|(i, &d)| i as u32 != d));
        }
    }
}

#[test]
fn permutation_kind_is_a_derangement_at_start() {
    let f = gen(
        "kind = \"permutation\"\nstart_s = 0.002\nsizes = { dist = \"fixed\", kb = 64 }",
        32,
        4,
    )
    .unwrap();
    assert_eq!(f.len(), 32);
    let srcs: HashSet<u32> = f.iter().map(|x| x.src).collect();
    let dsts: HashSet<u32> = f.iter().map(|x| x.dst).collect();
    assert_eq!((srcs.len(), dsts.len()), (32, 32));
    assert!(f
        .iter()
        .all(|x| x.src != x.dst && x.start == Time::from_ms(2) && x.size_bytes == 64_000));
    assert_eq!(
        err("kind = \"permutation\"\nload = 0.5", 8).path,
        "workload.load"
    );
}

#[test]
fn incast_shape() {
    let f = gen(
        "kind = \"incast\"\nsenders = 8\nreceiver = 3\nsize = { dist = \"fixed\", kb = 20 }\n\
         start_s = 0.01\nrounds = 3\ninterval_s = 0.005",
        16,
        5,
    )
    .unwrap();
    assert_eq!(f.len(), 24);
    for (r, round) in f.chunks(8).enumerate() {
        let want = Time::from_ms(10) + Time::from_ms(5) * r as u64;
        assert!(round
            .iter()
            .all(|x| x.start == want && x.dst == 3 && x.size_bytes == 20_000));
        let senders: HashSet<u32> = round.iter().map(|x| x.src).collect();
        assert_eq!(senders.len(), 8);
        assert!(!senders.contains(&3));
        // The same senders every round.
        assert!(f[..8].iter().zip(round).all(|(a, b)| a.src == b.src));
    }
    let f = gen(
        "kind = \"incast\"\nsenders = [1, 2, 5]\nreceiver = 0\nsizes = \"webserver\"",
        8,
        5,
    )
    .unwrap();
    assert_eq!(f.iter().map(|x| x.src).collect::<Vec<_>>(), vec![1, 2, 5]);
    assert!(f.iter().all(|x| x.dst == 0 && x.start == Time::ZERO));
}

#[test]
fn incast_errors_name_the_key() {
    let base = "kind = \"incast\"\nsizes = { dist = \"fixed\", kb = 20 }\n";
    let e = err(&format!("{base}senders = 4\nreceiver = 8"), 8);
    assert_eq!(e.path, "workload.receiver");
    assert!(e.message.contains("0..=7"), "{e}");
    let e = err(&format!("{base}senders = 8"), 8);
    assert_eq!(e.path, "workload.senders");
    assert!(e.message.contains("1..=7"), "{e}");
    let e = err(&format!("{base}senders = [1, 2]\nreceiver = 2"), 8);
    assert_eq!(e.path, "workload.senders[1]");
    let e = err(&format!("{base}senders = 2\nrounds = 2"), 8);
    assert_eq!(e.path, "workload.interval_s");
    let e = err(&format!("{base}senders = 2\nload = 0.5"), 8);
    assert_eq!(e.path, "workload.load");
    assert!(e.message.contains("senders"), "{e}");
    let e = err("kind = \"incast\"\nsenders = 2", 8);
    assert_eq!(e.path, "workload.sizes");
}

// ---------- deadlines, kinds, config ----------

#[test]
fn deadlines_follow_their_distribution() {
    let g = |d: &str| {
        gen(
            &format!("kind = \"poisson\"\nflows = 20000\ndeadline = {d}"),
            8,
            6,
        )
        .unwrap()
    };
    assert!(g(r#"{ dist = "fixed", ms = 2.5 }"#)
        .iter()
        .all(|x| x.deadline == Some(Time::from_us(2500))));
    let u = g(r#"{ dist = "uniform", min_ms = 1, max_ms = 3 }"#);
    assert!(u.iter().all(|x| {
        let d = x.deadline.unwrap();
        d >= Time::from_ms(1) && d <= Time::from_ms(3)
    }));
    let e = g(r#"{ dist = "exponential", mean_ms = 20, min_ms = 5 }"#);
    let ds: Vec<f64> = e
        .iter()
        .map(|x| x.deadline.unwrap().as_secs_f64())
        .collect();
    let mean = ds.iter().sum::<f64>() / ds.len() as f64;
    assert!((mean / 0.020 - 1.0).abs() < 0.03, "deadline mean {mean}");
    assert!(ds.iter().all(|&d| d >= 0.005));
    let bad = err(
        "kind = \"poisson\"\ndeadline = { dist = \"fixed\", mean_ms = 3 }",
        8,
    );
    assert_eq!(bad.path, "workload.deadline.mean_ms");
    assert_eq!(
        bad.message,
        "not used by dist 'fixed'; its keys are: ms; mean_ms is for dist 'exponential'"
    );
    let bad = err(
        "kind = \"poisson\"\ndeadline = { dist = \"uniform\", min_ms = 3 }",
        8,
    );
    assert_eq!(bad.path, "workload.deadline.max_ms");
}

#[test]
fn unknown_kind_lists_the_valid_ones() {
    let e = err("kind = \"bursty\"", 8);
    assert_eq!(e.path, "workload.kind");
    for (k, _) in WORKLOADS {
        assert!(e.message.contains(k), "{e}");
    }
}

#[test]
fn config_refuses_unknown_keys_and_round_trips() {
    assert!(toml::from_str::<WorkloadConfig>("kind = \"poisson\"\nlaod = 0.5").is_err());
    let c = cfg(
        "kind = \"poisson\"\nsizes = { dist = \"pareto\", mean_kb = 1500, shape = 1.1 }\n\
                 load = 0.6\nflows = 2000\ndeadline = { dist = \"fixed\", ms = 10 }",
    );
    let json = serde_json::to_string(&c).unwrap();
    assert_eq!(serde_json::from_str::<WorkloadConfig>(&json).unwrap(), c);
    let c2 = cfg("kind = \"incast\"\nsenders = [1, 2]\nsize = \"hadoop\"");
    assert_eq!(c2.sizes, Some(SizeSpec::Name("hadoop".into())));
    assert!(toml::from_str::<WorkloadConfig>("kind = \"incast\"\nsenders = \"all\"").is_err());
}

// ---------- flow files ----------

fn parse_flows(text: &str) -> ConfigResult<Vec<FlowSpec>> {
    let c = Common::new(&cfg("kind = \"flows\"\nfile = \"flows.csv\""), 1).unwrap();
    flowfile::parse("flows.csv", text, &hosts(8), &c)
}

#[test]
fn flow_file_parses_and_sorts_stably() {
    let f = parse_flows(
        "# a comment\nstart_s,src,dst,size_bytes,deadline_s,weight\n\
         0.002,0,1,1000,,\n0.001,2,3,5000,0.01,2\n\n0.002,4,5,7,0.5,\n",
    )
    .unwrap();
    assert_eq!(f.len(), 3);
    let mut sorted = f.clone();
    sorted.sort_by_key(|x| x.start);
    assert_eq!(sorted[0].src, 2);
    assert_eq!(sorted[0].deadline, Some(Time::from_ms(10)));
    assert_eq!(sorted[0].weight, 2.0);
    assert_eq!(
        (sorted[1].src, sorted[2].src),
        (0, 4),
        "ties keep file order"
    );
    assert_eq!(sorted[1].deadline, None);
    assert_eq!(sorted[1].weight, 1.0);
}

#[test]
fn flow_file_errors_name_the_line_and_column() {
    let h = "src,dst,size_bytes,start_s\n";
    let cases = [
        (format!("{h}0,1,100,0\n0,x,100,0\n"), "line 3", "column dst"),
        (format!("{h}0,1,-5,0\n"), "line 2", "negative"),
        (format!("{h}0,1,0,0\n"), "line 2", "at least 1 byte"),
        (format!("{h}0,1,100,-1\n"), "line 2", "column start_s"),
        (format!("{h}3,3,100,0\n"), "line 2", "itself"),
        (format!("{h}0,8,100,0\n"), "line 2", "0..=7"),
        (format!("{h}0,1,100\n"), "line 2", "cells"),
        (
            "src,dst,start_s\n0,1,0\n".to_string(),
            "line 1",
            "missing column 'size_bytes'",
        ),
        (
            "src,dst,size_bytes,start_s,prio\n".to_string(),
            "line 1",
            "unknown column 'prio'",
        ),
        (
            "src,dst,size_bytes,start_s,deadline_s\n0,1,5,0,0\n".into(),
            "line 2",
            "deadline_s",
        ),
        (
            "src,dst,size_bytes,start_s,weight\n0,1,5,0,abc\n".into(),
            "line 2",
            "column weight",
        ),
    ];
    for (text, line, msg) in cases {
        let e = parse_flows(&text).expect_err(&text);
        assert_eq!(e.path, format!("flows.csv {line}"), "{text}");
        assert!(e.message.contains(msg), "{text}: {e}");
    }
}

#[test]
fn flow_file_is_read_relative_to_the_base_dir() {
    let dir = std::env::temp_dir().join(format!("dcnsim-workload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("flows.csv"),
        "src,dst,size_bytes,start_s\n1,0,10,0.5\n0,1,20,0.1\n",
    )
    .unwrap();
    let c = cfg("kind = \"flows\"\nfile = \"flows.csv\"\nweight = 3\n\
                 deadline = { dist = \"fixed\", ms = 1 }");
    let f = generate(&c, &hosts(4), 1, &dir).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        f.iter().map(|x| x.size_bytes).collect::<Vec<_>>(),
        vec![20, 10]
    );
    assert!(f
        .iter()
        .all(|x| x.weight == 3.0 && x.deadline == Some(Time::from_ms(1))));
    let e = generate(&c, &hosts(4), 1, Path::new("/nonexistent")).unwrap_err();
    assert_eq!(e.path, "workload.file");
    let e = err("kind = \"flows\"\nfile = \"f.csv\"\nload = 0.5", 4);
    assert_eq!(e.path, "workload.load");
    assert_eq!(
        e.message,
        "not used by kind 'flows'; its keys are: file, deadline, weight, abort_at_deadline; \
         load is for kind 'poisson'"
    );
}
