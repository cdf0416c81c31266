//! Flow-size distributions: the built-in empirical CDFs and the parametric ones.
//!
//! Every distribution is sampled by inverse transform from one uniform draw, so a flow's size
//! uses exactly one value of the sizes stream whatever the distribution. The result is rounded
//! to whole bytes and is at least 1 byte. KB means 1000 bytes throughout.

use super::cdf::EmpiricalCdf;
use crate::error::{ConfigError, ConfigResult};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The largest flow size, in bytes: 10¹⁵ (1 PB, 2000 s at 4 Tbit/s). Byte counts of a flow
/// with its headers then stay far from what a `u64` holds. A size above it, given or drawn, is
/// refused, naming the key (or the file and line).
pub const MAX_FLOW_BYTES: u64 = 1_000_000_000_000_000;

/// Built-in empirical CDFs: (name, one-line description, file text).
const BUILTIN: &[(&str, &str, &str)] = &[
    (
        "websearch",
        "Web search (DCTCP, SIGCOMM'10; pFabric's CDF), 8.8 KB–29.2 MB, mean 1.67 MB",
        include_str!("cdf/websearch.cdf"),
    ),
    (
        "datamining",
        "Data mining (VL2, SIGCOMM'09; pFabric's CDF), 50% of flows 1460 B, up to 973 MB, mean 7.47 MB",
        include_str!("cdf/datamining.cdf"),
    ),
    (
        "cachefollower",
        "Facebook cache follower (Roy et al. SIGCOMM'15; ExpressPass's CDF), 70 B–3 MB, mean 713 KB",
        include_str!("cdf/cachefollower.cdf"),
    ),
    (
        "webserver",
        "Facebook web server (Roy et al. SIGCOMM'15; ExpressPass's CDF), 150 B–500 KB, mean 66.1 KB",
        include_str!("cdf/webserver.cdf"),
    ),
    (
        "hadoop",
        "Facebook Hadoop (Roy et al. SIGCOMM'15; HPCC's CDF), 1 B–10 MB, mean 120 KB",
        include_str!("cdf/hadoop.cdf"),
    ),
];

const SIZE_DESCRIPTIONS: [(&str, &str); 5] = [
    (BUILTIN[0].0, BUILTIN[0].1),
    (BUILTIN[1].0, BUILTIN[1].1),
    (BUILTIN[2].0, BUILTIN[2].1),
    (BUILTIN[3].0, BUILTIN[3].1),
    (BUILTIN[4].0, BUILTIN[4].1),
];

/// The built-in size distributions usable as `sizes = "NAME"`, with one-line descriptions.
pub fn size_distributions() -> &'static [(&'static str, &'static str)] {
    &SIZE_DESCRIPTIONS
}

/// The built-in CDF called `name`, or None.
pub fn builtin_cdf(name: &str) -> Option<EmpiricalCdf> {
    BUILTIN
        .iter()
        .find(|b| b.0 == name)
        .map(|b| EmpiricalCdf::parse(&format!("{name}.cdf"), b.2).expect("built-in CDFs parse"))
}

/// The value of `sizes`: a built-in name, or a table `{ dist = "...", ... }`.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum SizeSpec {
    Name(String),
    Table(SizeTable),
}

/// The table form of `sizes`. Which keys apply depends on `dist`; the others are errors.
/// Every `*_kb` key has a `*_bytes` twin (give one of the two).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SizeTable {
    /// pareto | exponential | uniform | fixed | cdf
    pub dist: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_kb: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_bytes: Option<f64>,
    /// Pareto shape α (> 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_kb: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_bytes: Option<f64>,
    /// Uniform upper bound, or the bound of a bounded Pareto.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_kb: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<f64>,
    /// The one size of `fixed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kb: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<f64>,
    /// A CDF file (`dist = "cdf"`), relative to the scenario's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl<'de> Deserialize<'de> for SizeSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => Ok(SizeSpec::Name(s)),
            v @ serde_json::Value::Object(_) => serde_json::from_value(v)
                .map(SizeSpec::Table)
                .map_err(D::Error::custom),
            other => Err(D::Error::custom(format!(
                "expected a built-in name ({}) or a table {{ dist = \"pareto\" | \"exponential\" \
                 | \"uniform\" | \"fixed\" | \"cdf\", ... }}, got {other}",
                names()
            ))),
        }
    }
}

fn names() -> String {
    BUILTIN.iter().map(|b| b.0).collect::<Vec<_>>().join(", ")
}

/// A size distribution ready to sample.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Empirical(EmpiricalCdf),
    /// Pareto with scale `xm` (the minimum) and shape `alpha`, optionally bounded above.
    Pareto {
        xm: f64,
        alpha: f64,
        max: Option<f64>,
    },
    Exponential {
        mean: f64,
    },
    Uniform {
        min: f64,
        max: f64,
    },
    Fixed {
        bytes: f64,
    },
}

impl SizeDist {
    /// Builds the distribution `spec` describes; `key` is its key path (`workload.sizes`).
    pub fn from_spec(spec: &SizeSpec, key: &str, base_dir: &Path) -> ConfigResult<SizeDist> {
        match spec {
            SizeSpec::Name(n) => builtin_cdf(n).map(SizeDist::Empirical).ok_or_else(|| {
                ConfigError::new(
                    key,
                    format!(
                        "unknown size distribution '{n}'; built-in ones are {}, or give a table \
                         {{ dist = \"pareto\" | \"exponential\" | \"uniform\" | \"fixed\" | \"cdf\", ... }}",
                        names()
                    ),
                )
            }),
            SizeSpec::Table(t) => from_table(t, key, base_dir),
        }
    }

    /// A size in whole bytes, at least 1, from one uniform draw.
    pub fn sample<R: rand::Rng>(&self, rng: &mut R) -> u64 {
        let u: f64 = rng.random();
        let x = match self {
            SizeDist::Empirical(c) => c.quantile(u),
            SizeDist::Pareto { xm, alpha, max } => match max {
                None => xm * (1.0 - u).powf(-1.0 / alpha),
                Some(h) => {
                    let r = (xm / h).powf(*alpha);
                    xm / (1.0 - u * (1.0 - r)).powf(1.0 / alpha)
                }
            },
            SizeDist::Exponential { mean } => -mean * (1.0 - u).ln(),
            SizeDist::Uniform { min, max } => min + u * (max - min),
            SizeDist::Fixed { bytes } => *bytes,
        };
        (x.round() as u64).max(1)
    }

    /// The mean size in bytes, before rounding to whole bytes (the linear mean for CDFs).
    pub fn mean_bytes(&self) -> f64 {
        match self {
            SizeDist::Empirical(c) => c.mean(),
            SizeDist::Pareto { xm, alpha, max } => match max {
                None => alpha * xm / (alpha - 1.0),
                Some(h) => bounded_pareto_mean(*xm, *alpha, *h),
            },
            SizeDist::Exponential { mean } => *mean,
            SizeDist::Uniform { min, max } => (min + max) / 2.0,
            SizeDist::Fixed { bytes } => *bytes,
        }
    }
}

/// Mean of a Pareto(xm, α) truncated to [xm, h], α ≠ 1.
fn bounded_pareto_mean(xm: f64, alpha: f64, h: f64) -> f64 {
    let r = (xm / h).powf(alpha);
    alpha / (alpha - 1.0) * xm * (1.0 - (xm / h).powf(alpha - 1.0)) / (1.0 - r)
}

/// One of `NAME_kb` / `NAME_bytes` in bytes; both given is an error.
fn kb_or_bytes(
    key: &str,
    name: &str,
    kb: Option<f64>,
    bytes: Option<f64>,
) -> ConfigResult<Option<f64>> {
    let (kb_key, bytes_key) = if name.is_empty() {
        ("kb".to_string(), "bytes".to_string())
    } else {
        (format!("{name}_kb"), format!("{name}_bytes"))
    };
    let v = match (kb, bytes) {
        (Some(_), Some(_)) => {
            return Err(ConfigError::new(
                format!("{key}.{bytes_key}"),
                format!("give either {kb_key} or {bytes_key}, not both"),
            ))
        }
        (Some(k), None) => Some((k * 1000.0, kb_key)),
        (None, Some(b)) => Some((b, bytes_key)),
        (None, None) => None,
    };
    match v {
        Some((b, k)) if !(b.is_finite() && b >= 0.0) => Err(ConfigError::new(
            format!("{key}.{k}"),
            "must be a finite number >= 0",
        )),
        Some((b, k)) if b > MAX_FLOW_BYTES as f64 => Err(ConfigError::new(
            format!("{key}.{k}"),
            format!(
                "{} bytes is more than the largest flow size, {} bytes (1 PB)",
                crate::units::num(b),
                crate::units::num(MAX_FLOW_BYTES as f64)
            ),
        )),
        Some((b, _)) => Ok(Some(b)),
        None => Ok(None),
    }
}

fn from_table(t: &SizeTable, key: &str, base_dir: &Path) -> ConfigResult<SizeDist> {
    let mean = kb_or_bytes(key, "mean", t.mean_kb, t.mean_bytes)?;
    let min = kb_or_bytes(key, "min", t.min_kb, t.min_bytes)?;
    let max = kb_or_bytes(key, "max", t.max_kb, t.max_bytes)?;
    let fixed = kb_or_bytes(key, "", t.kb, t.bytes)?;
    // What a message of a missing key says the dist needs.
    let help = match t.dist.as_str() {
        "pareto" => "mean_kb (or mean_bytes), shape, optional max_kb (or max_bytes)",
        "exponential" => "mean_kb (or mean_bytes)",
        "uniform" => "min_kb and max_kb (or min_bytes, max_bytes)",
        "fixed" => "kb (or bytes)",
        "cdf" => "file",
        other => {
            return Err(ConfigError::new(
                format!("{key}.dist"),
                format!(
                    "unknown dist '{other}'; valid: pareto, exponential, uniform, fixed, cdf \
                     (or sizes = one of {})",
                    names()
                ),
            ))
        }
    };
    super::keys::size_dist::check(t, key).expect("dist checked above")?;
    let need = |v: Option<f64>, k: &str| {
        v.ok_or_else(|| {
            ConfigError::new(
                format!("{key}.{k}"),
                format!("is required for dist = \"{}\" ({help})", t.dist),
            )
        })
    };
    let positive = |v: f64, k: &str| {
        if v > 0.0 {
            Ok(v)
        } else {
            Err(ConfigError::new(format!("{key}.{k}"), "must be > 0"))
        }
    };
    match t.dist.as_str() {
        "pareto" => {
            let mean = positive(need(mean, "mean_kb")?, "mean_kb")?;
            let alpha = need(t.shape, "shape")?;
            if !(alpha > 1.0 && alpha.is_finite()) {
                return Err(ConfigError::new(
                    format!("{key}.shape"),
                    format!("the Pareto shape must be > 1 for the mean to exist, got {alpha}"),
                ));
            }
            match max {
                None => Ok(SizeDist::Pareto {
                    xm: mean * (alpha - 1.0) / alpha,
                    alpha,
                    max: None,
                }),
                Some(h) if h <= mean => Err(ConfigError::new(
                    format!("{key}.max_kb"),
                    "the bound of a bounded Pareto must exceed its mean",
                )),
                Some(h) => Ok(SizeDist::Pareto {
                    xm: solve_bounded_xm(mean, alpha, h),
                    alpha,
                    max: Some(h),
                }),
            }
        }
        "exponential" => Ok(SizeDist::Exponential {
            mean: positive(need(mean, "mean_kb")?, "mean_kb")?,
        }),
        "uniform" => {
            let (lo, hi) = (need(min, "min_kb")?, need(max, "max_kb")?);
            if hi < lo {
                return Err(ConfigError::new(
                    format!("{key}.max_kb"),
                    "must be >= min_kb",
                ));
            }
            Ok(SizeDist::Uniform { min: lo, max: hi })
        }
        "fixed" => Ok(SizeDist::Fixed {
            bytes: positive(need(fixed, "kb")?, "kb")?,
        }),
        _ => {
            let f = t.file.as_deref().expect("checked above");
            let text = crate::error::read_text_file(&base_dir.join(f), &format!("{key}.file"), f)?;
            Ok(SizeDist::Empirical(EmpiricalCdf::parse(f, &text)?))
        }
    }
}

/// The scale x_m of a Pareto(x_m, α) bounded at h whose mean is `mean` (< h). The bounded mean
/// grows with x_m from 0 (x_m → 0) to h (x_m → h), so bisection finds it.
fn solve_bounded_xm(mean: f64, alpha: f64, h: f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, mean);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= 0.0 || bounded_pareto_mean(mid, alpha, h) < mean {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}
