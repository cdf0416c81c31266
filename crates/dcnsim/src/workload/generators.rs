//! The generated kinds: Poisson arrivals with their traffic patterns, incast, permutation;
//! and what every kind shares (start time, weight, deadlines).

use super::sizes::{SizeDist, SizeSpec};
use super::{DeadlineSpec, FlowSpec, HostInfo, IntOrList, WorkloadConfig};
use crate::error::{AtKey, ConfigError, ConfigResult};
use crate::rng::{self, StreamRng};
use crate::units::{num, Time};
use rand::RngExt;
use std::path::Path;

/// Settings every kind shares, checked once, and the seed for the named streams.
pub(super) struct Common {
    pub seed: u64,
    pub start: Time,
    pub weight: f64,
    pub deadline: Option<DeadlineDist>,
}

impl Common {
    pub fn new(cfg: &WorkloadConfig, seed: u64) -> ConfigResult<Common> {
        let start =
            Time::try_from_secs_f64(cfg.start_s.unwrap_or(0.0)).at_key("workload.start_s")?;
        let weight = cfg.weight.unwrap_or(1.0);
        if !(weight > 0.0 && weight.is_finite()) {
            return Err(ConfigError::new(
                "workload.weight",
                format!("must be a finite number > 0, got {weight}"),
            ));
        }
        let deadline = cfg.deadline.as_ref().map(DeadlineDist::new).transpose()?;
        Ok(Common {
            seed,
            start,
            weight,
            deadline,
        })
    }

    pub fn stream(&self, name: &str) -> StreamRng {
        rng::stream(self.seed, name)
    }

    /// A flow with the common weight and, if configured, a deadline drawn from `drng`.
    pub fn flow(
        &self,
        src: u32,
        dst: u32,
        size: u64,
        start: Time,
        drng: &mut StreamRng,
    ) -> ConfigResult<FlowSpec> {
        // Parameters are within the limit; a draw of a heavy tail may not be.
        if size > super::MAX_FLOW_BYTES {
            return Err(ConfigError::new(
                "workload.sizes",
                format!(
                    "a size drawn from this distribution is {} bytes, more than the largest flow \
                     size, 1e15 bytes (1 PB); bound it (max_kb) or lower its mean",
                    num(size as f64)
                ),
            ));
        }
        Ok(FlowSpec {
            src,
            dst,
            size_bytes: size,
            start,
            deadline: self.deadline.as_ref().map(|d| d.sample(drng)).transpose()?,
            weight: self.weight,
        })
    }
}

/// A deadline distribution, in seconds.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum DeadlineDist {
    Fixed(f64),
    Uniform(f64, f64),
    /// min + Exp(mean − min).
    ShiftedExp {
        min: f64,
        mean: f64,
    },
}

impl DeadlineDist {
    fn new(s: &DeadlineSpec) -> ConfigResult<DeadlineDist> {
        let k = "workload.deadline";
        let help = match s.dist.as_str() {
            "fixed" => "ms",
            "uniform" => "min_ms and max_ms",
            "exponential" => "mean_ms and optional min_ms",
            other => {
                return Err(ConfigError::new(
                    format!("{k}.dist"),
                    format!("unknown deadline dist '{other}'; valid: fixed, uniform, exponential"),
                ))
            }
        };
        super::keys::deadline_dist::check(s, k).expect("dist checked above")?;
        for (name, v) in [
            ("ms", s.ms),
            ("min_ms", s.min_ms),
            ("max_ms", s.max_ms),
            ("mean_ms", s.mean_ms),
        ] {
            if let Some(v) = v {
                Time::try_from_ms_f64(v).at_key(format!("{k}.{name}"))?;
            }
        }
        let need = |v: Option<f64>, name: &str| {
            v.map(|ms| ms * 1e-3).ok_or_else(|| {
                ConfigError::new(
                    format!("{k}.{name}"),
                    format!("is required for dist = \"{}\" ({help})", s.dist),
                )
            })
        };
        let d = match s.dist.as_str() {
            "fixed" => DeadlineDist::Fixed(need(s.ms, "ms")?),
            "uniform" => {
                let (lo, hi) = (need(s.min_ms, "min_ms")?, need(s.max_ms, "max_ms")?);
                if hi < lo {
                    return Err(ConfigError::new(format!("{k}.max_ms"), "must be >= min_ms"));
                }
                DeadlineDist::Uniform(lo, hi)
            }
            _ => {
                let mean = need(s.mean_ms, "mean_ms")?;
                let min = s.min_ms.unwrap_or(0.0) * 1e-3;
                if mean <= min {
                    return Err(ConfigError::new(
                        format!("{k}.mean_ms"),
                        "must be > min_ms (the exponential is shifted by min_ms)",
                    ));
                }
                DeadlineDist::ShiftedExp { min, mean }
            }
        };
        Ok(d)
    }

    /// One deadline, from one uniform draw. Every parameter is within the simulation horizon,
    /// but an exponential draw can exceed it (up to about 37 means): such a draw is refused,
    /// naming the key, rather than clamped.
    pub fn sample(&self, rng: &mut StreamRng) -> ConfigResult<Time> {
        let u: f64 = rng.random();
        let s = match *self {
            DeadlineDist::Fixed(d) => d,
            DeadlineDist::Uniform(lo, hi) => lo + u * (hi - lo),
            DeadlineDist::ShiftedExp { min, mean } => min - (mean - min) * (1.0 - u).ln(),
        };
        Time::try_from_secs_f64(s).map_err(|e| {
            ConfigError::new(
                "workload.deadline.mean_ms",
                format!(
                    "a deadline drawn from this distribution is {} ms: {e}; lower mean_ms",
                    num(s * 1e3)
                ),
            )
        })
    }
}

fn sizes_of(cfg: &WorkloadConfig, base_dir: &Path, required: bool) -> ConfigResult<SizeDist> {
    let default = SizeSpec::Name("websearch".into());
    let spec = match (&cfg.sizes, required) {
        (Some(s), _) => s,
        (None, false) => &default,
        (None, true) => {
            return Err(ConfigError::new(
                "workload.sizes",
                format!(
                    "is required for kind = \"{}\": a built-in name or a {{ dist = ... }} table",
                    cfg.kind
                ),
            ))
        }
    };
    SizeDist::from_spec(spec, "workload.sizes", base_dir)
}

fn check_host(key: &str, h: u32, hosts: &HostInfo) -> ConfigResult<u32> {
    if h < hosts.count {
        Ok(h)
    } else {
        Err(ConfigError::new(
            key,
            format!(
                "host {h} does not exist: valid host ids are 0..={}",
                hosts.count - 1
            ),
        ))
    }
}

/// A group of hosts: a rack index or a list of distinct host ids, non-empty.
fn host_group(key: &str, g: &IntOrList, hosts: &HostInfo) -> ConfigResult<Vec<u32>> {
    let list = match g {
        IntOrList::Int(r) => {
            if hosts.racks.is_empty() {
                return Err(ConfigError::new(
                    key,
                    "this topology has no racks; give a list of host ids instead",
                ));
            }
            hosts.racks.get(*r as usize).cloned().ok_or_else(|| {
                ConfigError::new(
                    key,
                    format!(
                        "rack {r} does not exist: valid racks are 0..={}",
                        hosts.racks.len() - 1
                    ),
                )
            })?
        }
        IntOrList::List(v) => v.clone(),
    };
    if list.is_empty() {
        return Err(ConfigError::new(key, "the group has no hosts"));
    }
    let mut seen = vec![false; hosts.count as usize];
    for (i, &h) in list.iter().enumerate() {
        check_host(&format!("{key}[{i}]"), h, hosts)?;
        if std::mem::replace(&mut seen[h as usize], true) {
            return Err(ConfigError::new(
                format!("{key}[{i}]"),
                format!("host {h} is listed twice"),
            ));
        }
    }
    Ok(list)
}

/// A uniformly random derangement of 0..n (n >= 2): shuffle, retry while any host maps to
/// itself (on average e ≈ 2.7 tries, whatever n).
pub(super) fn derangement(n: u32, rng: &mut StreamRng) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n).collect();
    loop {
        for i in (1..p.len()).rev() {
            let j = rng.random_range(0..=i);
            p.swap(i, j);
        }
        if p.iter().enumerate().all(|(i, &d)| i as u32 != d) {
            return p;
        }
    }
}

/// How a Poisson flow's endpoints are chosen.
enum Pairs {
    Random(u32),
    Permutation(Vec<u32>),
    Group {
        src: Vec<u32>,
        dst: Vec<u32>,
        /// Position of each host in `dst`, or u32::MAX.
        pos_in_dst: Vec<u32>,
    },
}

impl Pairs {
    fn new(cfg: &WorkloadConfig, hosts: &HostInfo, rng: &mut StreamRng) -> ConfigResult<Pairs> {
        let pattern = cfg.pattern.as_deref().unwrap_or("random");
        if pattern != "group" {
            for (k, set) in [
                ("src_group", cfg.src_group.is_some()),
                ("dst_group", cfg.dst_group.is_some()),
            ] {
                if set {
                    return Err(ConfigError::new(
                        format!("workload.{k}"),
                        format!("applies only to pattern = \"group\", not \"{pattern}\""),
                    ));
                }
            }
        }
        match pattern {
            "random" => Ok(Pairs::Random(hosts.count)),
            "permutation" => Ok(Pairs::Permutation(derangement(hosts.count, rng))),
            "group" => {
                let need = |g: &Option<IntOrList>, k: &str| {
                    let key = format!("workload.{k}");
                    match g {
                        Some(g) => host_group(&key, g, hosts),
                        None => Err(ConfigError::new(
                            key,
                            "is required for pattern = \"group\": a rack index or a list of host ids",
                        )),
                    }
                };
                let src = need(&cfg.src_group, "src_group")?;
                let dst = need(&cfg.dst_group, "dst_group")?;
                if dst.len() == 1 && src.contains(&dst[0]) {
                    return Err(ConfigError::new(
                        "workload.dst_group",
                        format!(
                            "host {} is in both groups and dst_group has no other host to send to",
                            dst[0]
                        ),
                    ));
                }
                let mut pos_in_dst = vec![u32::MAX; hosts.count as usize];
                for (i, &h) in dst.iter().enumerate() {
                    pos_in_dst[h as usize] = i as u32;
                }
                Ok(Pairs::Group {
                    src,
                    dst,
                    pos_in_dst,
                })
            }
            other => Err(ConfigError::new(
                "workload.pattern",
                format!("unknown pattern '{other}'; valid: random, permutation, group"),
            )),
        }
    }

    /// Hosts that send (the load is a fraction of their total capacity).
    fn senders(&self) -> usize {
        match self {
            Pairs::Random(n) => *n as usize,
            Pairs::Permutation(p) => p.len(),
            Pairs::Group { src, .. } => src.len(),
        }
    }

    fn draw(&self, rng: &mut StreamRng) -> (u32, u32) {
        match self {
            Pairs::Random(n) => {
                let s = rng.random_range(0..*n);
                let d = rng.random_range(0..*n - 1);
                (s, if d >= s { d + 1 } else { d })
            }
            Pairs::Permutation(p) => {
                let s = rng.random_range(0..p.len());
                (s as u32, p[s])
            }
            Pairs::Group {
                src,
                dst,
                pos_in_dst,
            } => {
                let s = src[rng.random_range(0..src.len())];
                let skip = pos_in_dst[s as usize] as usize; // u32::MAX: s is not in dst
                let n = if skip < dst.len() {
                    dst.len() - 1
                } else {
                    dst.len()
                };
                let mut i = rng.random_range(0..n);
                if i >= skip {
                    i += 1;
                }
                (s, dst[i])
            }
        }
    }
}

/// Refuses `n` flows whose specs alone cannot be addressed (more than `isize::MAX` bytes, the
/// most one vector holds), naming `key`. Without a memory budget ([`crate::budget`]) nothing
/// else stops such a count before the vector is asked for, which would panic.
fn fits_in_memory(n: u128, key: &str) -> ConfigResult<()> {
    let bytes = n * std::mem::size_of::<FlowSpec>() as u128;
    if bytes > isize::MAX as u128 {
        return Err(ConfigError::new(
            key,
            format!(
                "{n} flows of {} bytes each would take {} bytes, more than a process can \
                 address ({}); use fewer flows",
                std::mem::size_of::<FlowSpec>(),
                crate::units::human(bytes as f64),
                crate::units::human(isize::MAX as f64),
            ),
        ));
    }
    Ok(())
}

/// `kind = "poisson"`.
pub(super) fn poisson(
    cfg: &WorkloadConfig,
    hosts: &HostInfo,
    c: &Common,
    base_dir: &Path,
) -> ConfigResult<Vec<FlowSpec>> {
    let sizes = sizes_of(cfg, base_dir, false)?;
    let load = cfg.load.unwrap_or(super::DEFAULT_LOAD);
    if !(load > 0.0 && load.is_finite()) {
        return Err(ConfigError::new(
            "workload.load",
            format!("must be a fraction of the host link rate > 0 (e.g. 0.6), got {load}"),
        ));
    }
    let n = cfg.flows.unwrap_or(super::DEFAULT_FLOWS);
    if n == 0 {
        return Err(ConfigError::new("workload.flows", "must be at least 1"));
    }
    fits_in_memory(n as u128, "workload.flows")?;
    if hosts.host_rate.bits_per_sec() == 0 {
        return Err(ConfigError::new(
            "workload.load",
            "the hosts' link rate is 0, so no load can be set",
        ));
    }
    let (mut pr, mut sr, mut ar, mut dr) = (
        c.stream("workload.pairs"),
        c.stream("workload.sizes"),
        c.stream("workload.arrivals"),
        c.stream("workload.deadlines"),
    );
    let pairs = Pairs::new(cfg, hosts, &mut pr)?;
    // Flows per second over all senders: load × capacity / bits per flow.
    let lambda = load * pairs.senders() as f64 * hosts.host_rate.bits_per_sec() as f64
        / (8.0 * sizes.mean_bytes());
    let mut t = c.start.ps();
    let mut flows = Vec::with_capacity(n as usize);
    for i in 0..n {
        let u: f64 = ar.random();
        let gap = (-(1.0 - u).ln() / lambda * Time::PS_PER_SEC as f64).round();
        // Arrivals sum in whole picoseconds; none may pass the simulation horizon.
        let room = (Time::HORIZON.ps() - t) as f64;
        if gap.is_nan() || gap > room {
            return Err(ConfigError::new(
                "workload.load",
                format!(
                    "at this load ({}), flow {i} of {n} would arrive after the simulation \
                     horizon (1e6 s, about 11.6 days), counting from start_s = {} s; raise load, \
                     lower flows or start earlier",
                    num(load),
                    num(c.start.as_secs_f64())
                ),
            ));
        }
        t += gap as u64;
        let (s, d) = pairs.draw(&mut pr);
        let size = sizes.sample(&mut sr);
        flows.push(c.flow(s, d, size, Time::from_ps(t), &mut dr)?);
    }
    Ok(flows)
}

/// `kind = "incast"`.
pub(super) fn incast(
    cfg: &WorkloadConfig,
    hosts: &HostInfo,
    c: &Common,
    base_dir: &Path,
) -> ConfigResult<Vec<FlowSpec>> {
    let sizes = sizes_of(cfg, base_dir, true)?;
    let (mut pr, mut sr, mut dr) = (
        c.stream("workload.pairs"),
        c.stream("workload.sizes"),
        c.stream("workload.deadlines"),
    );
    let receiver = match cfg.receiver {
        Some(r) => check_host("workload.receiver", r, hosts)?,
        None => pr.random_range(0..hosts.count),
    };
    let senders: Vec<u32> = match &cfg.senders {
        None => {
            return Err(ConfigError::new(
                "workload.senders",
                "is required for kind = \"incast\": a number of senders or a list of host ids",
            ))
        }
        Some(IntOrList::Int(k)) => {
            if *k == 0 || *k >= hosts.count {
                return Err(ConfigError::new(
                    "workload.senders",
                    format!(
                        "must be 1..={} (every host but the receiver), got {k}",
                        hosts.count - 1
                    ),
                ));
            }
            // The first k of a partial Fisher–Yates shuffle of the other hosts.
            let mut others: Vec<u32> = (0..hosts.count).filter(|&h| h != receiver).collect();
            for i in 0..*k as usize {
                let j = pr.random_range(i..others.len());
                others.swap(i, j);
            }
            others.truncate(*k as usize);
            others
        }
        Some(g @ IntOrList::List(_)) => {
            let list = host_group("workload.senders", g, hosts)?;
            if let Some(i) = list.iter().position(|&h| h == receiver) {
                return Err(ConfigError::new(
                    format!("workload.senders[{i}]"),
                    format!("host {receiver} is the receiver and cannot also send"),
                ));
            }
            list
        }
    };
    let rounds = cfg.rounds.unwrap_or(super::DEFAULT_ROUNDS);
    if rounds == 0 {
        return Err(ConfigError::new("workload.rounds", "must be at least 1"));
    }
    let interval = match cfg.interval_s {
        Some(i) => match Time::try_from_secs_f64(i).at_key("workload.interval_s")? {
            Time::ZERO => {
                return Err(ConfigError::new(
                    "workload.interval_s",
                    format!("must be a number of seconds > 0, got {}", num(i)),
                ))
            }
            t => t,
        },
        None if rounds > 1 => {
            return Err(ConfigError::new(
                "workload.interval_s",
                "is required when rounds > 1: the time between rounds, in seconds",
            ))
        }
        None => Time::ZERO,
    };
    // The last round starts within the simulation horizon (so no sum below overflows).
    let last = c.start.ps() as u128 + interval.ps() as u128 * (rounds as u128 - 1);
    if last > Time::HORIZON.ps() as u128 {
        return Err(ConfigError::new(
            "workload.interval_s",
            format!(
                "round {rounds} would start at {} s (start_s + (rounds - 1) × interval_s), after \
                 the simulation horizon (1e6 s, about 11.6 days); lower interval_s or rounds",
                num(last as f64 / 1e12)
            ),
        ));
    }
    let key = if rounds as usize > senders.len() {
        "workload.rounds"
    } else {
        "workload.senders"
    };
    fits_in_memory(senders.len() as u128 * rounds as u128, key)?;
    let mut flows = Vec::with_capacity(senders.len() * rounds as usize);
    for r in 0..rounds as u64 {
        let start = c.start + interval * r;
        for &s in &senders {
            flows.push(c.flow(s, receiver, sizes.sample(&mut sr), start, &mut dr)?);
        }
    }
    Ok(flows)
}

/// `kind = "permutation"`.
pub(super) fn permutation(
    cfg: &WorkloadConfig,
    hosts: &HostInfo,
    c: &Common,
    base_dir: &Path,
) -> ConfigResult<Vec<FlowSpec>> {
    let sizes = sizes_of(cfg, base_dir, false)?;
    let (mut pr, mut sr, mut dr) = (
        c.stream("workload.pairs"),
        c.stream("workload.sizes"),
        c.stream("workload.deadlines"),
    );
    let p = derangement(hosts.count, &mut pr);
    p.iter()
        .enumerate()
        .map(|(s, &d)| c.flow(s as u32, d, sizes.sample(&mut sr), c.start, &mut dr))
        .collect()
}

/// How many hosts send under `kind = "poisson"` (the `senders` of its λ), for the realised
/// load's comparison with `workload.load`; `None` for other kinds or an invalid group (which
/// generation refuses first).
pub(super) fn poisson_senders(cfg: &WorkloadConfig, hosts: &HostInfo) -> Option<usize> {
    if cfg.kind != "poisson" {
        return None;
    }
    match cfg.pattern.as_deref().unwrap_or("random") {
        "random" | "permutation" => Some(hosts.count as usize),
        "group" => host_group("workload.src_group", cfg.src_group.as_ref()?, hosts)
            .ok()
            .map(|g| g.len()),
        _ => None,
    }
}
