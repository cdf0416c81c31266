//! Tests of the size distributions against their means, Poisson arrivals against the target
//! load, and the traffic patterns; shared helpers for `tests_kinds`.

use super::*;
use crate::rng;
use std::collections::HashSet;
use std::path::Path;

pub(super) fn hosts(n: u32) -> HostInfo {
    HostInfo {
        count: n,
        host_rate: Rate::gbps(10),
        racks: (0..n / 4).map(|r| (4 * r..4 * r + 4).collect()).collect(),
    }
}

pub(super) fn cfg(toml_text: &str) -> WorkloadConfig {
    toml::from_str(toml_text).expect("test config parses")
}

pub(super) fn gen(toml_text: &str, n: u32, seed: u64) -> ConfigResult<Vec<FlowSpec>> {
    generate(&cfg(toml_text), &hosts(n), seed, Path::new("."))
}

pub(super) fn err(toml_text: &str, n: u32) -> ConfigError {
    gen(toml_text, n, 1).expect_err("config should be rejected")
}

fn dist(toml_value: &str) -> SizeDist {
    let c = cfg(&format!("kind = \"poisson\"\nsizes = {toml_value}"));
    SizeDist::from_spec(c.sizes.as_ref().unwrap(), "workload.sizes", Path::new(".")).unwrap()
}

fn sample_mean(d: &SizeDist, n: usize, seed: u64) -> f64 {
    let mut r = rng::stream(seed, "test");
    (0..n).map(|_| d.sample(&mut r) as f64).sum::<f64>() / n as f64
}

// ---------- size distributions ----------

#[test]
fn builtin_linear_means_match_the_curated_readme() {
    let readme = [
        ("websearch", 1_665_831.0),
        ("datamining", 7_470_236.0),
        ("cachefollower", 712_574.0),
        ("webserver", 66_121.0),
        ("hadoop", 120_421.0),
    ];
    assert_eq!(size_distributions().len(), readme.len());
    for (name, want) in readme {
        let m = SizeDist::Empirical(builtin_cdf(name).unwrap()).mean_bytes();
        assert!(
            (m - want).abs() <= 1.0,
            "{name}: linear mean {m}, README {want}"
        );
        assert!(size_distributions().iter().any(|d| d.0 == name));
    }
}

#[test]
fn builtin_sample_means_converge_to_the_linear_mean() {
    // Heavy tails: the number of draws is chosen from each CDF's own variance so that the 2 %
    // tolerance is at least 5 standard errors (datamining needs ~4 M draws, CV ≈ 8).
    for &(name, _) in size_distributions() {
        let c = builtin_cdf(name).unwrap();
        let (m, m2) = (c.mean(), c.second_moment());
        let cv = (m2 - m * m).sqrt() / m;
        let n = ((5.0 * cv / 0.02).powi(2) as usize).max(200_000);
        let s = sample_mean(&SizeDist::Empirical(c), n, 11);
        assert!(
            (s / m - 1.0).abs() < 0.02,
            "{name}: sample mean {s} vs linear mean {m} over {n} draws"
        );
    }
}

#[test]
fn point_masses_and_gaps_are_honoured() {
    let mut r = rng::stream(3, "test");
    let dm = SizeDist::Empirical(builtin_cdf("datamining").unwrap());
    let n = 200_000;
    let at_1460 = (0..n).filter(|_| dm.sample(&mut r) == 1460).count() as f64 / n as f64;
    assert!(
        (at_1460 - 0.5).abs() < 0.01,
        "datamining P(1460 B) = {at_1460}"
    );
    // webserver: `300 0.2` then `600 0.2` is a gap, and 8 % of flows sit exactly at 300 B.
    let ws = SizeDist::Empirical(builtin_cdf("webserver").unwrap());
    let s: Vec<u64> = (0..n).map(|_| ws.sample(&mut r)).collect();
    assert!(s
        .iter()
        .all(|&x| !(301..600).contains(&x) && (150..=500_000).contains(&x)));
    let at_300 = s.iter().filter(|&&x| x == 300).count() as f64 / n as f64;
    assert!(
        (at_300 - 0.08).abs() < 0.005,
        "webserver P(300 B) = {at_300}"
    );
    // hadoop starts at `0 0`: sizes are still at least 1 byte.
    let hd = SizeDist::Empirical(builtin_cdf("hadoop").unwrap());
    assert!((0..n).all(|_| hd.sample(&mut r) >= 1));
}

#[test]
fn quantile_interpolates_linearly() {
    let c = EmpiricalCdf::parse("t.cdf", "# comment\n100 0\n100 0.5\n200 0.5\n400 1\n").unwrap();
    assert_eq!(c.quantile(0.0), 100.0);
    assert_eq!(c.quantile(0.49), 100.0);
    assert_eq!(c.quantile(0.5), 200.0);
    assert_eq!(c.quantile(0.75), 300.0);
    assert_eq!(c.mean(), 0.5 * 100.0 + 0.5 * 300.0);
}

#[test]
fn bad_cdf_text_names_the_line() {
    let e = EmpiricalCdf::parse("x.cdf", "1 0\n2 0.5\n1 0.7\n3 1\n").unwrap_err();
    assert_eq!(e.path, "x.cdf line 3");
    assert!(e.message.contains("must not decrease"), "{e}");
    let e = EmpiricalCdf::parse("x.cdf", "1 0\n2 0.9\n").unwrap_err();
    assert_eq!(e.path, "x.cdf line 2");
    let e = EmpiricalCdf::parse("x.cdf", "1 0\nabc 1\n").unwrap_err();
    assert_eq!(e.path, "x.cdf line 2");
}

#[test]
fn pareto_mean_and_minimum() {
    // α = 2.5 has a finite variance (CV = 1/sqrt(α(α−2)) ≈ 0.89): over 400 k draws the standard
    // error of the mean is 0.14 %, so 2 % is a sound bound.
    let d = dist(r#"{ dist = "pareto", mean_kb = 5, shape = 2.5 }"#);
    assert_eq!(
        d,
        SizeDist::Pareto {
            xm: 3000.0,
            alpha: 2.5,
            max: None
        }
    );
    assert_eq!(d.mean_bytes(), 5000.0);
    let mut r = rng::stream(5, "test");
    let s: Vec<u64> = (0..400_000).map(|_| d.sample(&mut r)).collect();
    let mean = s.iter().sum::<u64>() as f64 / s.len() as f64;
    assert!((mean / 5000.0 - 1.0).abs() < 0.02, "pareto mean {mean}");
    assert_eq!(*s.iter().min().unwrap(), 3000);
}

#[test]
fn bounded_pareto_keeps_its_mean_under_the_bound() {
    let d = dist(r#"{ dist = "pareto", mean_bytes = 100000, shape = 1.2, max_kb = 10000 }"#);
    assert!((d.mean_bytes() - 100_000.0).abs() < 1.0);
    let mut r = rng::stream(6, "test");
    let s: Vec<u64> = (0..400_000).map(|_| d.sample(&mut r)).collect();
    assert!(s.iter().all(|&x| x <= 10_000_000));
    let mean = s.iter().sum::<u64>() as f64 / s.len() as f64;
    assert!(
        (mean / 100_000.0 - 1.0).abs() < 0.03,
        "bounded pareto mean {mean}"
    );
}

#[test]
fn parametric_distributions() {
    let e = dist(r#"{ dist = "exponential", mean_kb = 100 }"#);
    assert!((sample_mean(&e, 200_000, 1) / 100_000.0 - 1.0).abs() < 0.01);
    let u = dist(r#"{ dist = "uniform", min_kb = 10, max_kb = 30 }"#);
    assert_eq!(u.mean_bytes(), 20_000.0);
    assert!((sample_mean(&u, 200_000, 2) / 20_000.0 - 1.0).abs() < 0.01);
    let f = dist(r#"{ dist = "fixed", bytes = 1460 }"#);
    assert_eq!(sample_mean(&f, 10, 3), 1460.0);
    assert_eq!(dist(r#"{ dist = "fixed", kb = 1.5 }"#).mean_bytes(), 1500.0);
}

#[test]
fn size_errors_name_the_key_and_the_valid_choices() {
    let e = err("kind = \"poisson\"\nsizes = \"websurch\"", 8);
    assert_eq!(e.path, "workload.sizes");
    for name in [
        "websearch",
        "datamining",
        "cachefollower",
        "webserver",
        "hadoop",
    ] {
        assert!(e.message.contains(name), "{e}");
    }
    let e = err(
        "kind = \"poisson\"\nsizes = { dist = \"pareto\", mean_kb = 5, shape = 1.0 }",
        8,
    );
    assert_eq!(e.path, "workload.sizes.shape");
    let e = err(
        "kind = \"poisson\"\nsizes = { dist = \"exponential\", mean_kb = 5, shape = 2 }",
        8,
    );
    assert_eq!(e.path, "workload.sizes.shape");
    assert_eq!(
        e.message,
        "not used by dist 'exponential'; its keys are: mean_kb, mean_bytes; \
         shape is for dist 'pareto'"
    );
    let e = err(
        "kind = \"poisson\"\nsizes = { dist = \"fixed\", kb = 1, bytes = 1000 }",
        8,
    );
    assert_eq!(e.path, "workload.sizes.bytes");
    let e = err("kind = \"poisson\"\nsizes = { dist = \"lognormal\" }", 8);
    assert_eq!(e.path, "workload.sizes.dist");
    let e = err(
        "kind = \"poisson\"\nsizes = { dist = \"uniform\", min_kb = 1 }",
        8,
    );
    assert_eq!(e.path, "workload.sizes.max_kb");
}

// ---------- Poisson ----------

fn offered_load(f: &[FlowSpec], n_hosts: u32, start_s: f64) -> f64 {
    let bits: f64 = f.iter().map(|x| x.size_bytes as f64 * 8.0).sum();
    let span = f.last().unwrap().start.as_secs_f64() - start_s;
    bits / (span * n_hosts as f64 * 10e9)
}

#[test]
fn poisson_offers_the_target_load() {
    // Exponential sizes: over 20 k flows the sizes and the span each have ~0.7 % noise.
    let f = gen(
        "kind = \"poisson\"\nload = 0.6\nflows = 20000\nstart_s = 0.01\n\
         sizes = { dist = \"exponential\", mean_kb = 100 }",
        16,
        7,
    )
    .unwrap();
    assert_eq!(f.len(), 20_000);
    assert!(f[0].start > Time::from_ms(10));
    let l = offered_load(&f, 16, 0.01);
    assert!((l / 0.6 - 1.0).abs() < 0.04, "offered load {l}");
    // websearch is heavy-tailed (CV 2.3): 100 k flows bring the noise to ~0.8 %.
    let f = gen("kind = \"poisson\"\nload = 0.3\nflows = 100000", 16, 8).unwrap();
    let l = offered_load(&f, 16, 0.0);
    assert!((l / 0.3 - 1.0).abs() < 0.04, "websearch offered load {l}");
}

#[test]
fn poisson_inter_arrivals_are_exponential() {
    let f = gen("kind = \"poisson\"\nflows = 20000", 16, 9).unwrap();
    let mut prev = 0.0;
    let gaps: Vec<f64> = f
        .iter()
        .map(|x| {
            let t = x.start.as_secs_f64();
            let g = t - prev;
            prev = t;
            g
        })
        .collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
    let cv = var.sqrt() / mean;
    assert!((cv - 1.0).abs() < 0.05, "inter-arrival CV {cv}");
    // λ = 0.5 × 16 × 10 Gbit/s / (8 × 1,665,831 B) ≈ 6003 flows/s.
    let lambda = 0.5 * 16.0 * 10e9 / (8.0 * 1_665_830.8);
    assert!((1.0 / mean / lambda - 1.0).abs() < 0.03);
}

#[test]
fn random_pairs_are_valid_and_sorted() {
    let f = gen("kind = \"poisson\"\nflows = 5000", 8, 1).unwrap();
    assert!(f.windows(2).all(|w| w[0].start <= w[1].start));
    assert!(f.iter().all(|x| x.src != x.dst && x.src < 8 && x.dst < 8));
    assert!(f.iter().all(|x| x.weight == 1.0 && x.deadline.is_none()));
    let pairs: HashSet<(u32, u32)> = f.iter().map(|x| (x.src, x.dst)).collect();
    assert_eq!(pairs.len(), 8 * 7, "every ordered pair appears");
}

#[test]
fn same_seed_same_flows_and_load_moves_only_arrivals() {
    let a = gen("kind = \"poisson\"\nflows = 3000\nload = 0.3", 16, 42).unwrap();
    let b = gen("kind = \"poisson\"\nflows = 3000\nload = 0.3", 16, 42).unwrap();
    let c = gen("kind = \"poisson\"\nflows = 3000\nload = 0.6", 16, 42).unwrap();
    let d = gen("kind = \"poisson\"\nflows = 3000\nload = 0.3", 16, 43).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, d);
    for (i, (x, y)) in a.iter().zip(&c).enumerate() {
        assert_eq!((x.src, x.dst, x.size_bytes), (y.src, y.dst, y.size_bytes));
        // Double the load, half the gaps; each gap is rounded to the picosecond, so after i + 1
        // gaps the two clocks may differ by up to 1.5 ps per gap.
        let (tx, ty) = (x.start.ps() as i64, y.start.ps() as i64);
        assert!((tx - 2 * ty).abs() <= 2 * (i as i64 + 1), "{tx} vs {ty}");
    }
}

#[test]
fn poisson_permutation_pattern_keeps_one_partner_per_host() {
    let f = gen(
        "kind = \"poisson\"\npattern = \"permutation\"\nflows = 4000",
        16,
        2,
    )
    .unwrap();
    let mut partner = [u32::MAX; 16];
    for x in &f {
        assert_ne!(x.src, x.dst);
        assert!(partner[x.src as usize] == u32::MAX || partner[x.src as usize] == x.dst);
        partner[x.src as usize] = x.dst;
    }
    let dsts: HashSet<u32> = partner.iter().copied().collect();
    assert_eq!(dsts.len(), 16, "the partners form a permutation");
}

#[test]
fn group_pattern_sends_from_one_group_to_the_other() {
    let f = gen(
        "kind = \"poisson\"\npattern = \"group\"\nsrc_group = 0\ndst_group = [2, 3, 9]\nflows = 2000",
        16,
        3,
    )
    .unwrap();
    assert!(f
        .iter()
        .all(|x| x.src < 4 && [2, 3, 9].contains(&x.dst) && x.src != x.dst));
    // The load is per sending host: 4 senders.
    let g = gen(
        "kind = \"poisson\"\npattern = \"group\"\nsrc_group = 0\ndst_group = 1\nflows = 20000\n\
         sizes = { dist = \"fixed\", kb = 100 }",
        16,
        3,
    )
    .unwrap();
    let l = offered_load(&g, 4, 0.0);
    assert!((l / 0.5 - 1.0).abs() < 0.03, "group load {l}");

    let e = err("kind = \"poisson\"\npattern = \"group\"\nsrc_group = 0", 16);
    assert_eq!(e.path, "workload.dst_group");
    let e = err(
        "kind = \"poisson\"\npattern = \"group\"\nsrc_group = 4\ndst_group = 1",
        16,
    );
    assert_eq!(e.path, "workload.src_group");
    assert!(e.message.contains("0..=3"), "{e}");
    let e = err(
        "kind = \"poisson\"\npattern = \"group\"\nsrc_group = [1, 2]\ndst_group = [3, 16]",
        16,
    );
    assert_eq!(e.path, "workload.dst_group[1]");
    assert!(e.message.contains("0..=15"), "{e}");
    let e = err(
        "kind = \"poisson\"\npattern = \"group\"\nsrc_group = [1, 2]\ndst_group = [2]",
        16,
    );
    assert_eq!(e.path, "workload.dst_group");
    let e = err("kind = \"poisson\"\nsrc_group = 1", 16);
    assert_eq!(e.path, "workload.src_group");
    let e = err("kind = \"poisson\"\npattern = \"ring\"", 16);
    assert_eq!(e.path, "workload.pattern");
}

#[test]
fn poisson_value_errors() {
    assert_eq!(err("kind = \"poisson\"\nload = 0", 8).path, "workload.load");
    assert_eq!(
        err("kind = \"poisson\"\nload = -0.5", 8).path,
        "workload.load"
    );
    assert_eq!(
        err("kind = \"poisson\"\nflows = 0", 8).path,
        "workload.flows"
    );
    assert_eq!(
        err("kind = \"poisson\"\nstart_s = -1", 8).path,
        "workload.start_s"
    );
    assert_eq!(
        err("kind = \"poisson\"\nweight = 0", 8).path,
        "workload.weight"
    );
    assert_eq!(err("kind = \"poisson\"", 1).path, "workload");
}

/// 2^63 − 1 flows would need 3.7·10²⁰ bytes of specs, past what a vector can hold: refused
/// with the key, not a "capacity overflow" panic, even where no memory budget applies.
#[test]
fn a_flow_count_past_the_address_space_is_refused() {
    let e = err(
        "kind = \"poisson\"\nsizes = { dist = \"fixed\", kb = 1 }\nflows = 9223372036854775807",
        8,
    );
    assert_eq!(e.path, "workload.flows", "{e}");
    assert!(e.message.contains("more than a process can address"), "{e}");
}
