//! How max-min's incremental recomputation grows its set of flows, on any flow-level scenario:
//! the adaptive budget of lazy solves (default), each budget forced, or whole components.
//! Every mode gives the same allocation; this shows what each costs.
//!
//! `cargo run --release -p dcnsim --example flowsim_growth -- SCENARIO.toml
//! [adaptive|bN|whole ...]` (`bN`: a budget of N lazy solves, forced; the scenario's `engine`
//! is set to `flow`; by default adaptive, b1, b8 and whole)
//!
//! Prints, per mode: wall time, mean FCT (equal across modes) and the run's `FlowStats`.
//! Results: bench/RESULTS.md ("max-min with every flow started at once").

use dcnsim::flowsim::FlowSimulation;
use dcnsim::metrics::summary::summarize;
use dcnsim::Format;
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scenario = args
        .first()
        .expect("usage: flowsim_growth SCENARIO.toml [MODE ...]");
    let text = std::fs::read_to_string(scenario).expect("readable scenario");
    let base = Path::new(scenario).parent().unwrap_or(Path::new("."));
    let mut modes: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    if modes.is_empty() {
        modes = vec!["adaptive", "b1", "b8", "whole"];
    }
    for mode in modes {
        let p = dcnsim::prepare_text(&text, Format::Toml, &["engine=flow".into()], base)
            .expect("valid scenario");
        let mut sim = FlowSimulation::new(p);
        match mode {
            "adaptive" => {}
            "whole" => sim.set_full_recompute(true),
            budget => match budget.strip_prefix('b').and_then(|n| n.parse().ok()) {
                Some(n) => sim.set_lazy_budget(Some(n)),
                None => panic!("unknown mode {budget:?}: adaptive, b<N> (e.g. b1, b8) or whole"),
            },
        }
        let wall = Instant::now();
        let (out, stats) = sim.run_with_stats(&mut |_| true).expect("run completes");
        let mean_ms = 1e3
            * summarize(&out)["fct_s"]["mean"]
                .as_f64()
                .unwrap_or(f64::NAN);
        println!(
            "{mode:>8}: {:.2} s, mean FCT {mean_ms:.6} ms, {stats:?}",
            wall.elapsed().as_secs_f64()
        );
    }
}
