//! The run summary (`summary.json`): counts, FCT and slowdown statistics overall and by
//! flow-size class, deadline results, packet counters and the run's own cost.
//!
//! Flows: `total` = `finished` + `unfinished` (started, not finished by the end of the run;
//! terminated flows included) + `unstarted` (the run ended, at `stop_s`, before they started).
//!
//! Deadlines: `deadlines.with_deadline` flows have one; `met` of them finished (last byte at
//! the receiver) at or before start + deadline, see [`FlowRecord::met_deadline`];
//! `terminated` of them were given up by their protocol (they count as missed);
//! `application_throughput` = met / with_deadline (D3's and PDQ's metric) and `miss_rate` =
//! 1 − application_throughput, both null without deadline flows.
//!
//! Percentiles interpolate linearly between order statistics (numpy's default), so a summary
//! agrees with what pandas computes from `flows.csv`.

use super::{FlowRecord, RunOutput};
use serde_json::{json, Value};

/// Flow-size classes (decimal units): the bins the TR paper and the workload notes use.
pub const SIZE_CLASSES: &[(&str, u64, u64)] = &[
    ("<=10KB", 0, 10_000),
    ("10KB-100KB", 10_000, 100_000),
    ("100KB-1MB", 100_000, 1_000_000),
    (">1MB", 1_000_000, u64::MAX),
];

/// The `q`-quantile (0..=1) of `sorted` values, linear between order statistics.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64))
}

fn stats(mut v: Vec<f64>) -> Value {
    v.sort_by(|a, b| a.total_cmp(b));
    let mean = if v.is_empty() {
        None
    } else {
        Some(v.iter().sum::<f64>() / v.len() as f64)
    };
    json!({
        "mean": mean,
        "p50": quantile(&v, 0.5),
        "p99": quantile(&v, 0.99),
        "p999": quantile(&v, 0.999),
        "max": v.last(),
    })
}

/// Jain's fairness index of `x`: (Σx)² / (n Σx²); 1 is perfectly fair.
pub fn jain(x: &[f64]) -> Option<f64> {
    let sq: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || sq == 0.0 {
        return None;
    }
    let s: f64 = x.iter().sum();
    Some(s * s / (x.len() as f64 * sq))
}

fn finished(flows: &[&FlowRecord]) -> (Vec<f64>, Vec<f64>) {
    flows
        .iter()
        .filter_map(|f| Some((f.fct()?.as_secs_f64(), f.slowdown()?)))
        .unzip()
}

/// Reordering and queueing totals of `flows`; the ratios are over their data packets, so the
/// TR paper's "retransmission ratio caused by reordering" reads directly.
fn reordering(flows: &[&FlowRecord]) -> Value {
    let sum = |g: fn(&FlowRecord) -> u64| flows.iter().map(|f| g(f)).sum::<u64>();
    let data = sum(|f| f.data_packets);
    let spurious = sum(|f| f.spurious_retransmits);
    let retx = sum(|f| f.retransmits);
    let wait: f64 = flows.iter().map(|f| f.queue_wait.as_secs_f64()).sum();
    let ratio = |x: u64| {
        if data > 0 {
            json!(x as f64 / data as f64)
        } else {
            Value::Null
        }
    };
    json!({
        "data_packets": data,
        "ooo_arrivals": sum(|f| f.ooo_arrivals),
        "dupacks_reorder": sum(|f| f.dupacks_reorder),
        "dupacks_loss": sum(|f| f.dupacks_loss),
        "spurious_retransmits": spurious,
        "reorder_retx_ratio": ratio(spurious),
        "loss_retx_ratio": ratio(retx.saturating_sub(spurious)),
        "queue_delay_mean_s": if data > 0 { json!(wait / data as f64) } else { Value::Null },
    })
}

pub fn summarize(out: &RunOutput) -> Value {
    let all: Vec<&FlowRecord> = out.flows.iter().collect();
    let (fct, slow) = finished(&all);
    let n_finished = fct.len();
    // Flows a `stop_s` came before are not "unfinished": they never ran.
    let unstarted = out.flows.iter().filter(|f| !f.started).count();
    let by_size: Vec<Value> = SIZE_CLASSES
        .iter()
        .map(|&(class, lo, hi)| {
            let in_class: Vec<&FlowRecord> = out
                .flows
                .iter()
                .filter(|f| f.size_bytes > lo && f.size_bytes <= hi)
                .collect();
            let (fct, slow) = finished(&in_class);
            let fct = stats(fct);
            let slow = stats(slow);
            let reorder = reordering(&in_class);
            json!({
                "class": class,
                "lo_bytes": lo,
                "hi_bytes": if hi == u64::MAX { Value::Null } else { json!(hi) },
                "count": in_class.len(),
                "finished": in_class.iter().filter(|f| f.finish.is_some()).count(),
                "fct_mean_s": fct["mean"],
                "fct_p99_s": fct["p99"],
                "slowdown_mean": slow["mean"],
                "slowdown_p99": slow["p99"],
                "reorder_retx_ratio": reorder["reorder_retx_ratio"],
                "queue_delay_mean_s": reorder["queue_delay_mean_s"],
            })
        })
        .collect();
    let with_deadline = out.flows.iter().filter(|f| f.deadline.is_some()).count();
    let met = out
        .flows
        .iter()
        .filter(|f| f.met_deadline() == Some(true))
        .count();
    let terminated = out.flows.iter().filter(|f| f.terminated.is_some()).count();
    let deadline_terminated = out
        .flows
        .iter()
        .filter(|f| f.deadline.is_some() && f.terminated.is_some())
        .count();
    let sim_s = out.cost.sim_time.as_secs_f64();
    let delivered_payload: u64 = out.flows.iter().map(|f| f.bytes_delivered).sum();
    let c = &out.counters;
    json!({
        "name": out.name,
        "protocol": out.protocol,
        "lb": out.lb,
        "topology": out.topology,
        "seed": out.seed,
        "flows": {
            "total": out.flows.len(),
            "finished": n_finished,
            "unfinished": out.flows.len() - n_finished - unstarted,
            "unstarted": unstarted,
            "terminated": terminated,
        },
        "fct_s": stats(fct),
        "slowdown": stats(slow),
        "by_size": by_size,
        "deadlines": {
            "with_deadline": with_deadline,
            "met": met,
            "terminated": deadline_terminated,
            // Application throughput (D3, PDQ): the fraction of deadline flows that met theirs.
            "application_throughput": if with_deadline > 0 { json!(met as f64 / with_deadline as f64) } else { Value::Null },
            "miss_rate": if with_deadline > 0 { json!(1.0 - met as f64 / with_deadline as f64) } else { Value::Null },
        },
        // What the flows offered, against workload.load (see metrics::load).
        "load": out.load.to_json(),
        "warnings": out.load.warnings(),
        "goodput_bps": if sim_s > 0.0 { json!(delivered_payload as f64 * 8.0 / sim_s) } else { Value::Null },
        "retransmits": out.flows.iter().map(|f| f.retransmits).sum::<u64>(),
        "timeouts": out.flows.iter().map(|f| f.timeouts).sum::<u64>(),
        "reordering": reordering(&all),
        "packets": {
            "sent": c.sent_pkts,
            "delivered": c.delivered_pkts,
            "dropped": c.dropped_pkts,
            "dropped_host_nic": c.dropped_host_nic_pkts,
            "dropped_fabric": c.dropped_pkts - c.dropped_host_nic_pkts,
            "in_flight": out.in_flight_pkts,
            "ecn_marked": c.ecn_marked,
            "link_transmissions": c.link_transmissions,
        },
        "bytes": {
            "sent": c.sent_bytes,
            "delivered": c.delivered_bytes,
            "dropped": c.dropped_bytes,
            "in_flight": out.in_flight_bytes,
        },
        // Packets that waited in their host for room in its NIC queue (host_nic = backpressure).
        "host_wait": {
            "packets": c.host_held_pkts,
            "mean_s": if c.host_held_pkts > 0 { json!(c.host_wait_total.as_secs_f64() / c.host_held_pkts as f64) } else { Value::Null },
            "max_s": c.host_wait_max.as_secs_f64(),
            "total_s": c.host_wait_total.as_secs_f64(),
        },
        "run": {
            "wall_s": out.cost.wall_s,
            "events": out.cost.events,
            "sim_time_s": sim_s,
            "peak_packets": out.cost.peak_packets,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_matches_numpy_linear() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), Some(2.5));
        assert!((quantile(&v, 0.99).unwrap() - 3.97).abs() < 1e-12);
        assert_eq!(quantile(&v, 0.0), Some(1.0));
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn jain_index() {
        assert_eq!(jain(&[5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain(&[1.0, 0.0]), Some(0.5));
    }
}
