//! How far the realised offered load strays from `workload.load` over seeds, by flow count and
//! size distribution (the README's table under "Workloads"). Generation only, no simulation:
//!
//!     cargo run --release -p dcnsim --example load_spread [SEEDS]
//!
//! Prints, per distribution and flow count, the realised load's min, max and standard
//! deviation over seeds 1..=SEEDS (default 20) at a nominal 0.7 on a 16-host star.

use dcnsim::Format;
use std::path::Path;

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .map_or(20, |s| s.parse().expect("SEEDS is a number"));
    println!("| sizes | flows | min | max | std dev | seeds off by > 5 % |");
    println!("|---|---:|---:|---:|---:|---:|");
    for sizes in ["websearch", "datamining"] {
        for flows in [1_000, 10_000, 100_000] {
            let loads: Vec<f64> = (1..=seeds)
                .map(|seed| {
                    let text = format!(
                        "seed = {seed}\n[topology]\nkind = \"star\"\nhosts = 16\n\
                         [transport]\nprotocol = \"dctcp\"\n[workload]\nkind = \"poisson\"\n\
                         sizes = \"{sizes}\"\nload = 0.7\nflows = {flows}\n"
                    );
                    let p = dcnsim::prepare_text(&text, Format::Toml, &[], Path::new("."))
                        .expect("valid scenario");
                    p.load.realised().expect("a Poisson window is never empty")
                })
                .collect();
            let n = loads.len() as f64;
            let mean = loads.iter().sum::<f64>() / n;
            let sd = (loads.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / n).sqrt();
            let min = loads.iter().copied().fold(f64::INFINITY, f64::min);
            let max = loads.iter().copied().fold(0.0, f64::max);
            let off = loads
                .iter()
                .filter(|l| (*l / 0.7 - 1.0).abs() > 0.05)
                .count();
            println!("| {sizes} | {flows} | {min:.3} | {max:.3} | {sd:.3} | {off} / {seeds} |");
        }
    }
}
