//! Result directories, written atomically: everything goes into a hidden temporary folder next
//! to the target, which is renamed into place only when complete. A run that fails leaves
//! nothing behind; an existing result directory is replaced only by a complete new one.
//!
//! Files: `flows.csv`, `summary.json`, `scenario.json` (the scenario with defaults filled in),
//! `ports.csv` (every egress port: its id as used by the series, its ends, rate, delay, its
//! queue's buffer and marking threshold, and counters over the run), `series.csv` when series
//! are on, `trace.csv` when flows are traced, and `paths.csv` (the ports each flow's data
//! crossed) when `output.paths` is on.

use super::RunOutput;
use crate::topo::BufferSize;
use std::fmt::Write as _;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub const FLOW_COLUMNS: &str = "flow_id,src,dst,size_bytes,start_s,finish_s,fct_s,ideal_fct_s,slowdown,deadline_s,met_deadline,retransmits,timeouts,bytes_delivered,terminated_s,data_packets,spurious_retransmits,ooo_arrivals,dupacks_reorder,dupacks_loss,queue_delay_mean_s,host_delay_mean_s";

/// `flows.csv` as text. Floats print in Rust's shortest round-trip form, so equal runs give
/// byte-identical files.
pub fn flows_csv(out: &RunOutput) -> String {
    let mut s = String::with_capacity(out.flows.len() * 120 + 200);
    s.push_str(FLOW_COLUMNS);
    s.push('\n');
    let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    for f in &out.flows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            f.flow_id,
            f.src,
            f.dst,
            f.size_bytes,
            f.start.as_secs_f64(),
            opt(f.finish.map(|t| t.as_secs_f64())),
            opt(f.fct().map(|t| t.as_secs_f64())),
            f.ideal_fct.as_secs_f64(),
            opt(f.slowdown()),
            opt(f.deadline.map(|t| t.as_secs_f64())),
            f.met_deadline().map(|m| m.to_string()).unwrap_or_default(),
            f.retransmits,
            f.timeouts,
            f.bytes_delivered,
            opt(f.terminated.map(|t| t.as_secs_f64())),
            f.data_packets,
            f.spurious_retransmits,
            f.ooo_arrivals,
            f.dupacks_reorder,
            f.dupacks_loss,
            opt(f.queue_delay_mean()),
            opt(f.host_delay_mean()),
        );
    }
    s
}

fn write_series(path: &Path, out: &RunOutput) -> io::Result<()> {
    let Some(series) = &out.series else {
        return Ok(());
    };
    let mut w = BufWriter::new(fs::File::create(path)?);
    writeln!(w, "time_s,kind,id,value")?;
    for i in 0..series.len() {
        writeln!(
            w,
            "{},{},{},{}",
            series.time_s[i],
            series.kind[i].name(),
            series.id[i],
            series.value[i]
        )?;
    }
    w.flush()
}

fn write_trace(path: &Path, out: &RunOutput) -> io::Result<()> {
    let Some(trace) = &out.trace else {
        return Ok(());
    };
    let mut w = BufWriter::new(fs::File::create(path)?);
    writeln!(
        w,
        "time_s,flow_id,event,seq,ack,payload,retransmit,cwnd_bytes"
    )?;
    for r in trace {
        writeln!(
            w,
            "{},{},{},{},{},{},{},{}",
            r.time_s,
            r.flow_id,
            r.event.name(),
            r.seq,
            r.ack,
            r.payload,
            r.retransmit,
            r.cwnd_bytes
        )?;
    }
    w.flush()
}

/// `paths.csv`: one row per port a flow's data crossed, with the port's ends by name (so that
/// a failed link's flows are one filter away) and, under the packet engine, the packets.
fn write_paths(path: &Path, out: &RunOutput) -> io::Result<()> {
    let Some(paths) = &out.paths else {
        return Ok(());
    };
    let mut w = BufWriter::new(fs::File::create(path)?);
    writeln!(w, "flow_id,hop,port,node,peer,packets")?;
    for r in paths {
        let p = &out.ports[r.port as usize];
        write!(
            w,
            "{},{},{},{},{},",
            r.flow_id, r.hop, r.port, p.node, p.peer
        )?;
        match r.packets {
            Some(n) => writeln!(w, "{n}")?,
            None => writeln!(w)?,
        }
    }
    w.flush()
}

fn ports_csv(out: &RunOutput) -> String {
    let mut s = String::from(
        "port,node,peer,gbps,delay_us,buffer_pkts,buffer_bytes,ecn_k_pkts,tx_packets,tx_bytes,drops,ecn_marks\n",
    );
    let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    for p in &out.ports {
        let (pkts, bytes) = match p.buffer {
            BufferSize::Packets(n) => (Some(n), None),
            BufferSize::Bytes(b) => (None, Some(b)),
        };
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            p.port,
            p.node,
            p.peer,
            p.gbps,
            p.delay_us,
            opt(pkts),
            opt(bytes),
            opt(p.ecn_k_pkts.map(u64::from)),
            p.tx_packets,
            p.tx_bytes,
            p.drops,
            p.ecn_marks
        );
    }
    s
}

/// Writes the result directory `dir` atomically. `scenario_json` is the resolved scenario.
pub fn write_dir(
    dir: &Path,
    out: &RunOutput,
    summary: &serde_json::Value,
    scenario_json: &str,
) -> io::Result<()> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent)?;
    let name = dir
        .file_name()
        .ok_or_else(|| io::Error::other("output path has no final component"))?;
    let tmp = parent.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&tmp);
    let result = (|| {
        fs::create_dir(&tmp)?;
        fs::write(tmp.join("flows.csv"), flows_csv(out))?;
        fs::write(
            tmp.join("summary.json"),
            serde_json::to_string_pretty(summary)? + "\n",
        )?;
        fs::write(tmp.join("scenario.json"), scenario_json.to_string() + "\n")?;
        fs::write(tmp.join("ports.csv"), ports_csv(out))?;
        write_series(&tmp.join("series.csv"), out)?;
        write_trace(&tmp.join("trace.csv"), out)?;
        write_paths(&tmp.join("paths.csv"), out)?;
        if dir.exists() {
            let old = parent.join(format!(
                ".{}.old-{}",
                name.to_string_lossy(),
                std::process::id()
            ));
            fs::rename(dir, &old)?;
            fs::rename(&tmp, dir)?;
            fs::remove_dir_all(&old)
        } else {
            fs::rename(&tmp, dir)
        }
    })();
    if result.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}
