//! `dcnsim-core SCENARIO.toml --out DIR [--set key.path=value ...] [--max-memory SIZE]`: the
//! simulator without Python, for benchmarks (memory and time of the core alone) and for users
//! who only want the files. The Python `dcnsim` command is the full front end. Bad input and
//! a run too large for its memory budget exit with code 2.

use dcnsim::budget::Budget;
use dcnsim::engine::RunError;
use dcnsim::metrics::{output, summary};
use dcnsim::Format;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: dcnsim-core SCENARIO.toml --out DIR [--set key.path=value ...] \
                     [--max-memory SIZE (default: the memory available; e.g. 8G, unlimited)]";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut scenario, mut out, mut overrides) = (None, None, Vec::new());
    let mut budget = Budget::machine();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().map(PathBuf::from),
            "--set" => overrides.extend(args.next()),
            "--max-memory" => match Budget::parse(&args.next().unwrap_or_default()) {
                Ok(b) => budget = b,
                Err(e) => {
                    eprintln!("error: --max-memory: {e}");
                    return ExitCode::from(2);
                }
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if scenario.is_none() && !a.starts_with("--") => scenario = Some(PathBuf::from(a)),
            _ => {
                eprintln!("error: unexpected argument '{a}'\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(scenario), Some(out)) = (scenario, out) else {
        eprintln!("error: a scenario file and --out are required\n{USAGE}");
        return ExitCode::from(2);
    };
    let name = scenario.display().to_string();
    let text = match dcnsim::error::read_text_file(&scenario, "", &name) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let base = scenario
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_default();
    let prepared =
        match dcnsim::prepare_text_within(&text, Format::Toml, &overrides, &base, &budget) {
            Ok(p) => p,
            // An error of the whole text (TOML syntax) names the file.
            Err(e) if e.path.is_empty() => {
                eprintln!("error: {name}: {e}");
                return ExitCode::from(2);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
    let scenario_json = prepared.scenario_json();
    let result = match dcnsim::run_prepared(prepared, &mut |_| true) {
        Ok(r) => r,
        Err(RunError::Memory(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let summary = summary::summarize(&result);
    for w in result.load.warnings() {
        eprintln!("warning: {w}");
    }
    if let Err(e) = output::write_dir(&out, &result, &summary, &scenario_json) {
        eprintln!("error: writing {}: {e}", out.display());
        return ExitCode::from(1);
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&summary["run"]).unwrap_or_default()
    );
    ExitCode::SUCCESS
}
