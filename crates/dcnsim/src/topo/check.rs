//! Validation of `[topology]` values: every error names its key path and says what is valid.

use super::builder::LinkParams;
use super::{BufferSize, TopologyConfig};
use crate::error::{AtKey, ConfigError, ConfigResult};
use crate::units::{num, Rate};
use crate::validate::micros;

/// The largest topology we agree to build. Far above any paper's (PDQ's 4096 servers); it
/// exists so that a typo like `k = 2000` fails at once instead of allocating gigabytes.
pub(crate) const MAX_NODES: usize = 1 << 22;

/// Values shared by every kind, validated.
pub(super) fn common(cfg: &TopologyConfig) -> ConfigResult<LinkParams> {
    let rate = rate(cfg.link_gbps, "topology.link_gbps")?;
    let delay = micros("topology.link_delay_us", cfg.effective_link_delay_us())?;
    let buffer = match (cfg.buffer_pkts, cfg.buffer_kb) {
        (Some(_), Some(_)) => {
            return Err(ConfigError::new(
                "topology.buffer_kb",
                "give only one of buffer_pkts and buffer_kb",
            ))
        }
        (Some(p), None) => buffer_pkts(p, "topology.buffer_pkts")?,
        (None, Some(kb)) => buffer_kb(kb, "topology.buffer_kb")?,
        (None, None) => BufferSize::Packets(100),
    };
    Ok(LinkParams {
        rate,
        delay,
        buffer,
        ecn_k_pkts: cfg.ecn_k_pkts,
    })
}

/// A positive rate in Gbit/s, at most [`crate::units::MAX_GBPS`].
pub(super) fn rate(gbps: f64, key: &str) -> ConfigResult<Rate> {
    if gbps.is_finite() && gbps <= 0.0 {
        return Err(ConfigError::new(
            key,
            format!("must be a positive rate in Gbit/s, got {}", num(gbps)),
        ));
    }
    let r = Rate::try_from_gbps_f64(gbps).at_key(key)?;
    if r.bits_per_sec() == 0 {
        return Err(ConfigError::new(
            key,
            format!("{} Gbit/s rounds to 0 bit/s; give at least 1e-9", num(gbps)),
        ));
    }
    Ok(r)
}

/// An optional rate key, defaulting to `default`.
pub(super) fn rate_or(gbps: Option<f64>, key: &str, default: Rate) -> ConfigResult<Rate> {
    gbps.map_or(Ok(default), |g| rate(g, key))
}

pub(super) fn buffer_pkts(p: u64, key: &str) -> ConfigResult<BufferSize> {
    if p == 0 {
        return Err(ConfigError::new(key, "must be at least 1 packet"));
    }
    Ok(BufferSize::Packets(p))
}

/// The largest buffer in KB: 10¹⁵ KB (an exabyte), far below what a `u64` of bytes holds.
pub(super) const MAX_BUFFER_KB: f64 = 1e15;

/// Kilobytes are decimal (1 KB = 1000 B), as the papers' "150 KB" buffers are.
pub(super) fn buffer_kb(kb: f64, key: &str) -> ConfigResult<BufferSize> {
    if !(kb > 0.0 && kb <= MAX_BUFFER_KB) {
        let what = if kb.is_finite() {
            format!("got {}", num(kb))
        } else {
            format!("must be a finite number, got {}", num(kb))
        };
        return Err(ConfigError::new(
            key,
            format!(
                "must be a positive size in KB (1 KB = 1000 B) up to {}, {what}",
                num(MAX_BUFFER_KB)
            ),
        ));
    }
    let bytes = (kb * 1000.0).round();
    if bytes < 1.0 {
        return Err(ConfigError::new(
            key,
            format!("{kb} KB is less than 1 byte"),
        ));
    }
    Ok(BufferSize::Bytes(bytes as u64))
}

/// Refuses layouts above [`MAX_NODES`] nodes (or links): the count is the sum of `terms`,
/// each a product of keys' values (`""` for a constant or a value derived from a key),
/// computed with overflow checks. The error names the key with the largest value (the one to
/// lower), and the values of the others.
pub(super) fn size(terms: &[&[(&str, usize)]]) -> ConfigResult<()> {
    let total = terms.iter().try_fold(0usize, |acc, t| {
        t.iter()
            .try_fold(1usize, |p, (_, x)| p.checked_mul(*x))
            .and_then(|p| acc.checked_add(p))
    });
    if total.is_some_and(|n| n <= MAX_NODES) {
        return Ok(());
    }
    let mut keys: Vec<(&str, usize)> = Vec::new();
    for &(k, v) in terms.iter().flat_map(|t| t.iter()) {
        if !k.is_empty() && !keys.iter().any(|(seen, _)| *seen == k) {
            keys.push((k, v));
        }
    }
    // The first of the largest: ties go to the key listed first.
    let (big, value) = keys
        .iter()
        .copied()
        .fold(keys[0], |best, kv| if kv.1 > best.1 { kv } else { best });
    let others: Vec<String> = keys
        .iter()
        .filter(|(k, _)| *k != big)
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    let with = if others.is_empty() {
        String::new()
    } else {
        format!(" with {}", others.join(", "))
    };
    Err(ConfigError::new(
        format!("topology.{big}"),
        format!(
            "{big} = {value}{with} gives a topology of more than {MAX_NODES} nodes or links, \
             which is not supported"
        ),
    ))
}
