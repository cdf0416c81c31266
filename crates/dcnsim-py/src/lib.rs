//! Python bindings of the dcnsim core: the only crate that knows PyO3.
//!
//! Scenarios come in as text (TOML or JSON) with overrides; results go out as columns (numpy
//! arrays), never row by row. Runs release the GIL and take it back only to report progress,
//! which is also where Ctrl-C is noticed. Bad input, and a run too large for its memory budget
//! (`max_memory`), raise `ScenarioError` (a `ValueError`) whose message names the key path.
//!
//! No Rust panic crosses into Python as pyo3's `PanicException` (a `BaseException` that
//! `except Exception` does not catch): every function catches them and raises `InternalError`,
//! a `ScenarioError`, with the panic's message and place.

use dcnsim::budget::Budget;
use dcnsim::engine::{Progress, RunError};
use dcnsim::metrics::output::{self, FLOW_COLUMNS};
use dcnsim::metrics::{summary, RunOutput};
use dcnsim::Format;
use numpy::IntoPyArray;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

pyo3::create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario that cannot run: the message names the key path."
);

pyo3::create_exception!(
    _core,
    InternalError,
    ScenarioError,
    "A bug in the core (a Rust panic) met while handling this scenario; please report it. A \
     ScenarioError, so the scenario is refused as bad input is."
);

thread_local! {
    /// The message and place of the last panic on this thread, kept by [`panic_hook`].
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// How many [`guard`]s this thread is inside: their panics are collected, not printed.
    static GUARDED: Cell<u32> = const { Cell::new(0) };
}

/// Installs [`panic_hook`] for panics inside [`guard`]; any other panic (another extension's
/// Rust code, a thread of ours outside a guard) goes to the hook that was there before.
fn install_panic_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if GUARDED.with(Cell::get) > 0 {
            panic_hook(info);
        } else {
            previous(info);
        }
    }));
}

/// Keeps a panic's message and place for [`guard`] instead of printing them: the exception
/// carries them.
fn panic_hook(info: &panic::PanicHookInfo<'_>) {
    let payload = info.payload();
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into());
    let place = info
        .location()
        .map(|l| format!(" (at {}:{})", l.file(), l.line()))
        .unwrap_or_default();
    LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}{place}")));
}

/// Runs `f`, turning a panic into [`InternalError`].
fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    GUARDED.with(|g| g.set(g.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(g.get() - 1));
    match result {
        Ok(r) => r,
        Err(_) => {
            let what = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "a panic".into());
            Err(InternalError::new_err(format!(
                "internal error (a bug in dcnsim; please report it with the scenario): {what}"
            )))
        }
    }
}

/// The budget of `max_memory`, shared by `memory_share` runs side by side (a sweep's workers,
/// [`Budget::shared_by`]).
fn budget_of(max_memory: Option<&Bound<'_, PyAny>>, memory_share: u32) -> PyResult<Budget> {
    if memory_share == 0 {
        return Err(PyValueError::new_err("memory_share must be at least 1"));
    }
    Ok(whole_budget(max_memory)?.shared_by(memory_share))
}

/// The budget of `max_memory`: `None` is the memory available now, an int a number of bytes,
/// a string a size (`"8G"`, `"1.5GiB"`) or `"unlimited"`.
fn whole_budget(max_memory: Option<&Bound<'_, PyAny>>) -> PyResult<Budget> {
    let Some(v) = max_memory else {
        return Ok(Budget::machine());
    };
    if v.is_none() {
        return Ok(Budget::machine());
    }
    let bad = |e: String| ScenarioError::new_err(format!("max_memory: {e}"));
    if let Ok(text) = v.extract::<String>() {
        return Budget::parse(&text).map_err(bad);
    }
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(
            "max_memory must be a number of bytes or a string",
        ));
    }
    match v.extract::<i128>() {
        Ok(n) if n >= 1 && n <= u64::MAX as i128 => Ok(Budget::given(n as u64)),
        Ok(n) => Err(bad(format!("{n} is not a number of bytes >= 1"))),
        Err(_) => Err(PyTypeError::new_err(format!(
            "max_memory must be a number of bytes or a string such as '8G', not {}",
            v.get_type().name()?
        ))),
    }
}

fn parse_format(fmt: &str) -> PyResult<Format> {
    match fmt {
        "toml" => Ok(Format::Toml),
        "json" => Ok(Format::Json),
        other => Err(PyValueError::new_err(format!(
            "fmt must be 'toml' or 'json', not '{other}'"
        ))),
    }
}

fn prepare(
    scenario: &str,
    fmt: &str,
    base_dir: &str,
    overrides: Vec<String>,
    budget: &Budget,
) -> PyResult<dcnsim::engine::Prepared> {
    dcnsim::prepare_text_within(
        scenario,
        parse_format(fmt)?,
        &overrides,
        Path::new(base_dir),
        budget,
    )
    .map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Checks a scenario without running it; returns the resolved scenario as JSON text.
#[pyfunction]
#[pyo3(signature = (scenario, fmt, base_dir, overrides, max_memory = None, memory_share = 1))]
fn validate(
    scenario: &str,
    fmt: &str,
    base_dir: &str,
    overrides: Vec<String>,
    max_memory: Option<&Bound<'_, PyAny>>,
    memory_share: u32,
) -> PyResult<String> {
    let budget = budget_of(max_memory, memory_share)?;
    guard(|| {
        let p = prepare(scenario, fmt, base_dir, overrides, &budget)?;
        let mut v: serde_json::Value =
            serde_json::from_str(&p.scenario_json()).expect("valid json");
        let estimate = p.memory_estimate();
        let parts: Vec<_> = estimate
            .parts
            .iter()
            .map(|x| serde_json::json!({"what": x.what, "bytes": x.bytes, "key": x.key}))
            .collect();
        v["_resolved"] = serde_json::json!({
            "flows": p.flows.len(),
            "hosts": p.topo.hosts.len(),
            "topology": p.topo.description,
            "memory": {
                "estimate_bytes": estimate.total(),
                "estimate": dcnsim::units::human(estimate.total()),
                "budget_bytes": p.memory.budget.bytes(),
                "budget": p.memory.budget.to_string(),
                "parts": parts,
            },
        });
        Ok(v.to_string())
    })
}

/// The bytes of a memory size (`"8G"`, `"1.5GiB"`, `"123"`), or None for `"unlimited"`;
/// raises ScenarioError for anything else (for the command line's `--max-memory`).
#[pyfunction]
fn parse_memory(text: &str) -> PyResult<Option<u64>> {
    guard(|| {
        Budget::parse(text)
            .map(|b| b.bytes())
            .map_err(ScenarioError::new_err)
    })
}

/// The memory available now, in bytes (the default budget, [`Budget::machine`]): a sweep
/// reads it once to share it among its workers.
#[pyfunction]
fn available_memory() -> u64 {
    Budget::machine()
        .bytes()
        .unwrap_or(dcnsim::budget::ASSUMED_BYTES)
}

/// Panics with `message` inside the guard: for the tests that a panic becomes `InternalError`.
#[pyfunction]
fn _panic_for_tests(message: &str) -> PyResult<()> {
    guard(|| -> PyResult<()> { panic!("{message}") })
}

/// Runs a scenario. See `_core.pyi` for the contract.
#[pyfunction]
#[pyo3(signature = (scenario, fmt, base_dir, overrides, out_dir, quiet, progress, columns = true, max_memory = None, memory_share = 1))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    scenario: &str,
    fmt: &str,
    base_dir: &str,
    overrides: Vec<String>,
    out_dir: Option<PathBuf>,
    quiet: bool,
    progress: Option<Py<PyAny>>,
    columns: bool,
    max_memory: Option<&Bound<'py, PyAny>>,
    memory_share: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let budget = budget_of(max_memory, memory_share)?;
    guard(|| {
        let prepared = prepare(scenario, fmt, base_dir, overrides, &budget)?;
        let scenario_json = prepared.scenario_json();
        let mut py_error: Option<PyErr> = None;
        let result = py.detach(|| {
            let mut report = |p: Progress| -> bool {
                Python::attach(|py| {
                    if let Err(e) = py.check_signals() {
                        py_error = Some(e);
                        return false;
                    }
                    if let (Some(cb), false) = (&progress, quiet) {
                        let args = (p.sim_time.as_secs_f64(), p.flows_done, p.flows_total);
                        if let Err(e) = cb.call1(py, args) {
                            py_error = Some(e);
                            return false;
                        }
                    }
                    true
                })
            };
            let out = dcnsim::run_prepared(prepared, &mut report)?;
            let summary = summary::summarize(&out);
            let written = out_dir
                .as_ref()
                .map(|dir| output::write_dir(dir, &out, &summary, &scenario_json));
            Ok::<_, RunError>((out, summary, written))
        });
        let (out, summary, written) = match result {
            Ok(r) => r,
            Err(RunError::Interrupted) => {
                return Err(
                    py_error.unwrap_or_else(|| PyKeyboardInterrupt::new_err("run interrupted"))
                );
            }
            // The run would pass the memory budget (its series, or its resident memory): refused
            // as bad input, naming the key that drives it.
            Err(RunError::Memory(e)) => return Err(ScenarioError::new_err(e.to_string())),
        };
        if let (Some(dir), Some(Err(e))) = (&out_dir, written) {
            return Err(write_error(dir, &e));
        }
        // One line each on Python's stderr (so that it shows where Python output goes), quiet
        // or not: a drifted load changes what the results mean.
        if let Some(ws) = summary["warnings"].as_array().filter(|w| !w.is_empty()) {
            let stderr = py.import("sys")?.getattr("stderr")?;
            for w in ws {
                stderr.call_method1(
                    "write",
                    (format!("warning: {}\n", w.as_str().unwrap_or("")),),
                )?;
            }
        }
        let d = PyDict::new(py);
        d.set_item("summary", summary.to_string())?;
        d.set_item("scenario", scenario_json)?;
        // Without columns no numpy array is made, so numpy is never imported: `dcnsim run` starts
        // faster when it only prints the summary.
        if columns {
            d.set_item("flows", flow_columns(py, &out)?)?;
            d.set_item("series", series_columns(py, &out)?)?;
            d.set_item("trace", trace_columns(py, &out)?)?;
            d.set_item("paths", paths_columns(py, &out)?)?;
        } else {
            for key in ["flows", "series", "trace", "paths"] {
                d.set_item(key, py.None())?;
            }
        }
        Ok(d)
    })
}

/// The `OSError` of a result directory that could not be written: errno, the OS's reason
/// and the directory, as `OSError(errno, "could not write results: <reason>", dir)`, so that
/// "No space left on device" reaches the user.
fn write_error(dir: &Path, e: &std::io::Error) -> PyErr {
    let shown = dir.display().to_string();
    match e.raw_os_error() {
        Some(code) => {
            let text = e.to_string();
            let reason = text
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&text);
            PyOSError::new_err((code, format!("could not write results: {reason}"), shown))
        }
        None => PyOSError::new_err(format!("{shown}: could not write results: {e}")),
    }
}

fn flow_columns<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let f = &out.flows;
    let nan = f64::NAN;
    let secs = |t: Option<dcnsim::units::Time>| t.map_or(nan, |t| t.as_secs_f64());
    let d = PyDict::new(py);
    macro_rules! col {
        ($name:expr, $vals:expr) => {
            d.set_item($name, $vals.collect::<Vec<_>>().into_pyarray(py))?
        };
    }
    col!("flow_id", f.iter().map(|r| r.flow_id as u64));
    col!("src", f.iter().map(|r| r.src));
    col!("dst", f.iter().map(|r| r.dst));
    col!("size_bytes", f.iter().map(|r| r.size_bytes));
    col!("start_s", f.iter().map(|r| r.start.as_secs_f64()));
    col!("finish_s", f.iter().map(|r| secs(r.finish)));
    col!("fct_s", f.iter().map(|r| secs(r.fct())));
    col!("ideal_fct_s", f.iter().map(|r| r.ideal_fct.as_secs_f64()));
    col!("slowdown", f.iter().map(|r| r.slowdown().unwrap_or(nan)));
    col!("deadline_s", f.iter().map(|r| secs(r.deadline)));
    col!(
        "met_deadline",
        f.iter()
            .map(|r| r.met_deadline().map_or(nan, |m| m as u8 as f64))
    );
    col!("retransmits", f.iter().map(|r| r.retransmits));
    col!("timeouts", f.iter().map(|r| r.timeouts));
    col!("bytes_delivered", f.iter().map(|r| r.bytes_delivered));
    col!("terminated_s", f.iter().map(|r| secs(r.terminated)));
    col!("data_packets", f.iter().map(|r| r.data_packets));
    col!(
        "spurious_retransmits",
        f.iter().map(|r| r.spurious_retransmits)
    );
    col!("ooo_arrivals", f.iter().map(|r| r.ooo_arrivals));
    col!("dupacks_reorder", f.iter().map(|r| r.dupacks_reorder));
    col!("dupacks_loss", f.iter().map(|r| r.dupacks_loss));
    col!(
        "queue_delay_mean_s",
        f.iter().map(|r| r.queue_delay_mean().unwrap_or(nan))
    );
    col!(
        "host_delay_mean_s",
        f.iter().map(|r| r.host_delay_mean().unwrap_or(nan))
    );
    debug_assert_eq!(d.len(), FLOW_COLUMNS.split(',').count());
    Ok(d)
}

fn series_columns<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(s) = &out.series else {
        return Ok(None);
    };
    let d = PyDict::new(py);
    d.set_item("time_s", s.time_s.clone().into_pyarray(py))?;
    let kinds: Vec<&str> = s.kind.iter().map(|k| k.name()).collect();
    d.set_item("kind", PyList::new(py, kinds)?)?;
    d.set_item(
        "id",
        s.id.iter()
            .map(|&i| i as u64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item("value", s.value.clone().into_pyarray(py))?;
    Ok(Some(d))
}

/// `paths.csv`'s columns; `packets` is a list with None under the flow-level engine.
fn paths_columns<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(p) = &out.paths else { return Ok(None) };
    let d = PyDict::new(py);
    let col = |f: fn(&dcnsim::metrics::PathHop) -> u32| p.iter().map(f).collect::<Vec<_>>();
    d.set_item("flow_id", col(|r| r.flow_id).into_pyarray(py))?;
    d.set_item("hop", col(|r| r.hop).into_pyarray(py))?;
    d.set_item("port", col(|r| r.port).into_pyarray(py))?;
    let name = |r: &dcnsim::metrics::PathHop, peer: bool| {
        let port = &out.ports[r.port as usize];
        if peer {
            port.peer.as_str()
        } else {
            port.node.as_str()
        }
    };
    d.set_item("node", PyList::new(py, p.iter().map(|r| name(r, false)))?)?;
    d.set_item("peer", PyList::new(py, p.iter().map(|r| name(r, true)))?)?;
    d.set_item("packets", PyList::new(py, p.iter().map(|r| r.packets))?)?;
    Ok(Some(d))
}

fn trace_columns<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(t) = &out.trace else { return Ok(None) };
    let d = PyDict::new(py);
    d.set_item(
        "time_s",
        t.iter()
            .map(|r| r.time_s)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "flow_id",
        t.iter()
            .map(|r| r.flow_id)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item("event", PyList::new(py, t.iter().map(|r| r.event.name()))?)?;
    d.set_item(
        "seq",
        t.iter().map(|r| r.seq).collect::<Vec<_>>().into_pyarray(py),
    )?;
    d.set_item(
        "ack",
        t.iter().map(|r| r.ack).collect::<Vec<_>>().into_pyarray(py),
    )?;
    d.set_item(
        "payload",
        t.iter()
            .map(|r| r.payload)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "retransmit",
        t.iter()
            .map(|r| r.retransmit)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "cwnd_bytes",
        t.iter()
            .map(|r| r.cwnd_bytes)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    Ok(Some(d))
}

/// What this build offers, for `dcnsim list`.
#[pyfunction]
fn catalog(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    guard(|| catalog_guarded(py))
}

fn catalog_guarded(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let list = |items: &[(&str, &str)]| {
        items
            .iter()
            .map(|&(a, b)| (a.to_string(), b.to_string()))
            .collect::<Vec<_>>()
    };
    d.set_item("protocols", list(dcnsim::protocols::PROTOCOLS))?;
    d.set_item("lbs", list(dcnsim::lb::PATH_CHOICES))?;
    d.set_item("topologies", list(dcnsim::topo::TOPOLOGIES))?;
    d.set_item("workloads", list(dcnsim::workload::WORKLOADS))?;
    d.set_item("sizes", list(dcnsim::workload::size_distributions()))?;
    Ok(d)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(parse_memory, m)?)?;
    m.add_function(wrap_pyfunction!(available_memory, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    // Panics in a guard are reported by the exception it raises, not printed on stderr.
    install_panic_hook();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
