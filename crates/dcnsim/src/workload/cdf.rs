//! Empirical flow-size CDFs: parsing, inverse-transform sampling, means.
//!
//! A CDF file holds one `size_bytes cdf` point per line (blank lines and `#` comments are
//! skipped). Sizes and CDF values never decrease and the last CDF value is 1. A size that
//! appears on two lines is a point mass: `1460 0` then `1460 0.5` puts half the flows at exactly
//! 1460 B. A CDF value that appears on two lines is a gap: no flow falls between the two sizes.
//!
//! Sampling follows the convention of every simulator the built-in files come from (ns-2
//! `Empirical` with interpolation, YAPS, HPCC's `custom_rand`): draw u ~ U[0, 1) and interpolate
//! *linearly* between the two points whose CDF values bracket u. The matching mean is the
//! "linear" mean, `x_0 c_0 + Σ (c_i − c_{i−1}) (x_{i−1} + x_i) / 2`.

use crate::error::{ConfigError, ConfigResult};

/// A piecewise-linear CDF over flow sizes in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    /// (size in bytes, CDF value), sizes and values non-decreasing, the last value exactly 1.
    points: Vec<(f64, f64)>,
}

impl EmpiricalCdf {
    /// Parses CDF text. `name` is how errors refer to the text (`websearch.cdf`,
    /// `my.cdf`): an error names `NAME line N`.
    pub fn parse(name: &str, text: &str) -> ConfigResult<EmpiricalCdf> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        let mut last_line = 0;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = format!("{name} line {}", i + 1);
            last_line = i + 1;
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() != 2 {
                return Err(ConfigError::new(
                    at,
                    format!(
                        "expected two numbers `size_bytes cdf`, got {} field(s)",
                        fields.len()
                    ),
                ));
            }
            let size: f64 = fields[0].parse().map_err(|_| {
                ConfigError::new(
                    &at,
                    format!("size `{}` is not a number of bytes", fields[0]),
                )
            })?;
            let cdf: f64 = fields[1].parse().map_err(|_| {
                ConfigError::new(&at, format!("cdf `{}` is not a number", fields[1]))
            })?;
            if !(size.is_finite() && size >= 0.0) {
                return Err(ConfigError::new(at, "size must be a number of bytes >= 0"));
            }
            if size > super::MAX_FLOW_BYTES as f64 {
                return Err(ConfigError::new(
                    at,
                    "size is more than the largest flow size, 1e15 bytes (1 PB)",
                ));
            }
            if !(0.0..=1.0).contains(&cdf) {
                return Err(ConfigError::new(at, "cdf must be in [0, 1]"));
            }
            if let Some(&(ps, pc)) = points.last() {
                if size < ps {
                    return Err(ConfigError::new(
                        at,
                        format!("sizes must not decrease ({size} after {ps})"),
                    ));
                }
                if cdf < pc {
                    return Err(ConfigError::new(
                        at,
                        format!("cdf values must not decrease ({cdf} after {pc})"),
                    ));
                }
            }
            points.push((size, cdf));
        }
        match points.last() {
            None => Err(ConfigError::new(name, "holds no `size_bytes cdf` points")),
            Some(&(_, c)) if c != 1.0 => Err(ConfigError::new(
                format!("{name} line {last_line}"),
                format!("the last cdf value must be exactly 1, got {c}"),
            )),
            Some(_) => Ok(EmpiricalCdf { points }),
        }
    }

    /// The size at probability `u` in [0, 1): linear interpolation between the bracketing
    /// points, point masses and gaps honoured. Not rounded.
    pub fn quantile(&self, u: f64) -> f64 {
        let p = &self.points;
        // First point whose CDF value exceeds u; then c[i-1] <= u < c[i], a segment of
        // positive probability (gaps, where c[i-1] == c[i], are never chosen).
        let i = p.partition_point(|&(_, c)| c <= u);
        if i == 0 {
            // u below the first CDF value: the mass sitting at the first size.
            return p[0].0;
        }
        if i >= p.len() {
            return p[p.len() - 1].0;
        }
        let (x0, c0) = p[i - 1];
        let (x1, c1) = p[i];
        x0 + (u - c0) / (c1 - c0) * (x1 - x0)
    }

    /// The mean of the piecewise-linear distribution (the "linear" mean).
    pub fn mean(&self) -> f64 {
        let p = &self.points;
        let mut m = p[0].0 * p[0].1;
        for w in p.windows(2) {
            let ((x0, c0), (x1, c1)) = (w[0], w[1]);
            m += (c1 - c0) * (x0 + x1) / 2.0;
        }
        m
    }

    /// E\[X²\] of the piecewise-linear distribution (each segment is uniform on [x0, x1]).
    /// The tests use it to pick sample counts that make their mean checks sound.
    pub fn second_moment(&self) -> f64 {
        let p = &self.points;
        let mut m = p[0].0 * p[0].0 * p[0].1;
        for w in p.windows(2) {
            let ((x0, c0), (x1, c1)) = (w[0], w[1]);
            m += (c1 - c0) * (x0 * x0 + x0 * x1 + x1 * x1) / 3.0;
        }
        m
    }

    /// Largest size the distribution can produce.
    pub fn max(&self) -> f64 {
        self.points[self.points.len() - 1].0
    }
}
