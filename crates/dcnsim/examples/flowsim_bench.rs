//! Speed of the flow-level model: max-min (DCTCP's policy), SRPT (pFabric's), PDQ's and D3's
//! allocations on k-ary fat-trees with Poisson web-search flows at a few loads.
//!
//! `cargo run --release -p dcnsim --example flowsim_bench --
//! [FLOWS [K ...] [maxmin|srpt|pdq|d3 ...] [LOAD ...]]` (a load is a number below 1; by default
//! max-min and SRPT at loads 0.3, 0.5 and 0.7)
//!
//! Prints, per run: flows, wall time, flows/s, events/s, the mean number of flows and links
//! re-solved per recomputation (for SRPT and PDQ, the subflows their repaired pass
//! evaluated), the rate changes per event and the solves per recomputation.
//! Results: bench/RESULTS.md ("Flow-level model").

use dcnsim::flowsim::FlowSimulation;
use dcnsim::Format;
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flows: u64 = args.first().map_or(200_000, |a| a.parse().expect("FLOWS"));
    let rest = args.get(1..).unwrap_or_default();
    let mut ks: Vec<u32> = rest.iter().filter_map(|a| a.parse().ok()).collect();
    if ks.is_empty() {
        ks.push(16);
    }
    let mut loads: Vec<f64> = rest
        .iter()
        .filter(|a| a.contains('.'))
        .map(|a| a.parse().expect("LOAD"))
        .collect();
    if loads.is_empty() {
        loads = vec![0.3, 0.5, 0.7];
    }
    let mut protocols: Vec<&str> = Vec::new();
    for a in rest {
        match a.as_str() {
            "maxmin" => protocols.push("dctcp"),
            "srpt" => protocols.push("pfabric"),
            "pdq" => protocols.push("pdq"),
            "d3" => protocols.push("d3"),
            _ => {}
        }
    }
    if protocols.is_empty() {
        protocols = vec!["dctcp", "pfabric"];
    }
    println!(
        "{:>5} {:>6} {:>5} {:>9} {:>8} {:>10} {:>10} {:>9} {:>9} {:>8} {:>8}",
        "hosts",
        "policy",
        "load",
        "flows",
        "wall_s",
        "flows/s",
        "events/s",
        "comp_fl",
        "comp_ln",
        "chg/ev",
        "solves"
    );
    for &k in &ks {
        for &load in &loads {
            for &protocol in &protocols {
                let text = format!(
                    r#"
seed = 1
engine = "flow"
[topology]
kind = "fattree"
k = {k}
link_gbps = 10
[transport]
protocol = "{protocol}"
[workload]
kind = "poisson"
sizes = "websearch"
load = {load}
flows = {flows}
"#
                );
                let p = dcnsim::prepare_text(&text, Format::Toml, &[], Path::new("."))
                    .expect("valid scenario");
                let hosts = p.topo.hosts.len();
                let t0 = Instant::now();
                let sim = FlowSimulation::new(p);
                let setup = t0.elapsed().as_secs_f64();
                let (out, st) = sim.run_with_stats(&mut |_| true).expect("runs");
                let wall = t0.elapsed().as_secs_f64();
                let ev = out.cost.events as f64;
                let rc = st.recomputations.max(1) as f64;
                println!(
                    "{hosts:>5} {:>6} {load:>5} {flows:>9} {wall:>8.2} {:>10.0} {:>10.0} {:>9.1} {:>9.1} {:>8.2} {:>8.2}  (setup {setup:.2} s)",
                    match protocol {
                        "dctcp" => "maxmin",
                        "pfabric" => "srpt",
                        other => other,
                    },
                    flows as f64 / wall,
                    ev / wall,
                    st.component_flows as f64 / rc,
                    st.component_links as f64 / rc,
                    st.rate_changes as f64 / ev,
                    st.solves as f64 / rc,
                );
            }
        }
    }
}
