"""Issue 36, memory and panics, with the real core: a run too large for its memory budget is
refused before it allocates (exit code 2, the key, the estimate and the budget in the message,
no output directory), in a sweep it fails only its point, and no Rust panic reaches Python as
pyo3's PanicException. Every case is sized so that the refusal, not an allocation, happens."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import dcnsim
from dcnsim.cli import cli
from conftest import ROOT, STAR, real_core_available

pytestmark = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)

DEMO = ROOT / "examples" / "demo.toml"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def star(tmp_path):
    path = tmp_path / "star.toml"
    path.write_text(STAR)
    return path


@pytest.mark.parametrize("overrides, key", [
    (["workload.flows=1000000000"], "workload.flows"),
    (["workload.flows=9223372036854775807"], "workload.flows"),
    (["topology.k=48"], "topology.k"),
    (["workload={kind=\"incast\",senders=4,sizes=\"websearch\",rounds=1000000000,"
      "interval_s=0.001}"], "workload.rounds"),
])
def test_a_run_too_large_exits_2_names_the_key_and_writes_nothing(overrides, key, tmp_path):
    out = tmp_path / "out"
    args = ["run", DEMO, "--out", out, "--quiet", "--max-memory", "100M"]
    for o in overrides:
        args += ["--set", o]
    r = invoke(*args)
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith(f"error: {key}: the run would need about "), r.stderr
    assert "budget of 100 MB (given)" in r.stderr
    assert "Traceback" not in r.output and not out.exists()


def test_validate_applies_the_same_estimate_and_prints_it():
    r = invoke("validate", DEMO, "--set", "topology.k=48", "--max-memory", "100M")
    assert r.exit_code == 2 and r.stderr.startswith("error: topology.k: the run would need")
    r = invoke("validate", DEMO)
    assert r.exit_code == 0, r.output
    assert "needs about" in r.stdout and "of memory (budget" in r.stdout
    memory = dcnsim.validate(DEMO)["_resolved"]["memory"]
    assert 1e6 < memory["estimate_bytes"] < memory["budget_bytes"]
    assert {p["key"] for p in memory["parts"]} >= {"topology.k", "workload.flows"}


def test_a_bad_budget_is_a_usage_error():
    r = invoke("validate", DEMO, "--max-memory", "lots")
    assert r.exit_code == 2
    assert "--max-memory" in r.stderr and "not a memory size" in r.stderr
    with pytest.raises(dcnsim.ScenarioError, match="max_memory: '8X' is not a memory size"):
        dcnsim.validate(DEMO, max_memory="8X")
    with pytest.raises(TypeError):
        dcnsim.validate(DEMO, max_memory=1.5)


def test_the_python_api_takes_the_budget_in_bytes_or_as_text(star):
    with pytest.raises(dcnsim.ScenarioError, match="^workload.flows: the run would need"):
        dcnsim.run(star, overrides=["workload.flows=1000000"], max_memory=50_000_000)
    r = dcnsim.run(star, max_memory="1G")
    assert r.summary["flows"]["total"] == 30


def test_series_of_a_finished_run_stop_however_far_stop_s_is(star):
    # 30 flows that end in about 42 ms, sampled every 100 µs up to stop_s = 1 s or 10⁶ s.
    a = dcnsim.run(star, overrides=["output.series_interval_us=100", "stop_s=1"])
    b = dcnsim.run(star, overrides=["output.series_interval_us=100", "stop_s=1e6"])
    assert len(b.series) == len(a.series) > 0
    assert b.series["time_s"].max() < 0.1
    assert b.summary["run"]["sim_time_s"] == 1e6


def test_a_panic_is_an_ordinary_exception():
    core = dcnsim.api.core()
    with pytest.raises(Exception) as e:  # an Exception: pyo3's PanicException is not one
        core._panic_for_tests("boom")
    assert type(e.value) is core.InternalError
    assert isinstance(e.value, dcnsim.ScenarioError)
    assert str(e.value).startswith("internal error (a bug in dcnsim")
    assert "boom (at crates/dcnsim-py/src/lib.rs:" in str(e.value)


def test_a_flow_count_past_the_address_space_is_refused_without_a_budget(star):
    # Without a budget, the generator itself refuses 2^63 flows (their specs would pass what a
    # vector can hold) rather than ask for the vector and panic ("capacity overflow").
    with pytest.raises(dcnsim.ScenarioError) as e:
        dcnsim.run(star, overrides=["workload.flows=9223372036854775807"],
                   max_memory="unlimited")
    assert type(e.value) is not dcnsim.api.core().InternalError
    assert str(e.value).startswith("workload.flows:"), str(e.value)
    assert "more than a process can address" in str(e.value)


@pytest.mark.parametrize("huge", [9223372036854775807, 1000000000])
def test_in_a_sweep_a_run_too_large_fails_only_its_point(huge, star, tmp_path):
    out = tmp_path / "out"
    frame = dcnsim.sweep({"scenario": str(star), "grid": {"workload.flows": [10, huge, 20]}},
                         out, workers=1, max_memory="2G")
    assert list(frame["status"]) == ["ok", "failed", "ok"]
    assert frame["error"][1].startswith("workload.flows: the run would need about")
    failures = json.loads((out / "failures.json").read_text())
    assert [f["point"] for f in failures] == [f"flows-{huge}"]
    assert not (out / f"flows-{huge}").exists()


def test_points_side_by_side_share_the_sweep_budget(tmp_path):
    # A k = 16 fat-tree (its routing tables) needs more than half of 1.5x its estimate: alone
    # it fits, beside another point it does not; a k = 4 fat-tree fits either way.
    need = dcnsim.validate(DEMO, ["workload.flows=10", "topology.k=16"])["_resolved"]
    budget = int(need["memory"]["estimate_bytes"] * 1.5)
    spec = {"scenario": str(DEMO), "base": {"workload": {"flows": 10}},
            "grid": {"topology.k": [4, 16]}}
    two = dcnsim.sweep(spec, tmp_path / "two", workers=2, max_memory=budget)
    assert list(two["status"]) == ["ok", "failed"]
    assert two["error"][1].startswith("topology.k: the run would need about")
    assert "(1/2 of the sweep's" in two["error"][1], two["error"][1]
    one = dcnsim.sweep(spec, tmp_path / "one", workers=1, max_memory=budget)
    assert list(one["status"]) == ["ok", "ok"]
    # The command line says the same, and exits 1 (a point failed).
    sweep_file = tmp_path / "sw.toml"
    sweep_file.write_text(f'scenario = "{DEMO}"\n[base]\nworkload.flows = 10\n'
                          "[grid]\ntopology.k = [4, 16]\n")
    r = invoke("sweep", sweep_file, "--out", tmp_path / "cli", "--workers", 2, "--quiet",
               "--max-memory", budget)
    assert r.exit_code == 1, r.output
    assert "2 points run side by side" in r.stderr


def test_a_resumed_sweep_shares_the_budget_among_the_points_left(tmp_path):
    # As above, k = 16 fails beside k = 4 on two workers. Run again, only k = 16 is left to
    # run: alone, it has the whole budget and fits.
    need = dcnsim.validate(DEMO, ["workload.flows=10", "topology.k=16"])["_resolved"]
    budget = int(need["memory"]["estimate_bytes"] * 1.5)
    spec = {"scenario": str(DEMO), "base": {"workload": {"flows": 10}},
            "grid": {"topology.k": [4, 16]}}
    first = dcnsim.sweep(spec, tmp_path / "out", workers=2, max_memory=budget)
    assert list(first["status"]) == ["ok", "failed"]
    again = dcnsim.sweep(spec, tmp_path / "out", workers=2, max_memory=budget)
    assert list(again["status"]) == ["ok", "ok"], list(again["error"])


def test_a_sweep_shares_the_memory_available_when_it_starts():
    from dcnsim.sweep import _memory_of_points

    available = dcnsim.api.core().available_memory()
    got = _memory_of_points(None, points=5, workers=2, scheduler=None)
    assert got["memory_share"] == 2
    assert abs(got["max_memory"] - available) < 0.2 * available  # read again, a moment later
    # One point at a time, or on Dask: the whole budget, read by each point as dcnsim.run does.
    assert _memory_of_points("8G", points=1, workers=4, scheduler=None) == {"max_memory": "8G"}
    assert _memory_of_points(None, points=9, workers=4, scheduler="tcp://x:1") == \
        {"max_memory": None}


def test_demo_and_reproduce_take_the_budget(tmp_path):
    out = tmp_path / "demo"
    r = invoke("demo", "--out", out, "--flows", 20, "-q", "--max-memory", "1M")
    assert r.exit_code == 2, r.output
    assert "\nerror: topology.k: the run would need about" in r.stderr  # after "running tcp"
    assert "more than the budget of 1.0 MB (given)" in r.stderr
    assert "Traceback" not in r.output and not out.exists()
    assert invoke("demo", "--out", out, "--flows", 20, "-q", "--max-memory", "2G").exit_code == 0
    assert (out / "summary.json").is_file()
    assert invoke("demo", "--out", out, "--max-memory", "lots").exit_code == 2
    # reproduce: every point of the figure refused, so the sweep is (exit 2)
    r = invoke("reproduce", "merp", "--figure", "table1", "--out", tmp_path / "m", "-q",
               "--max-memory", "1M")
    assert r.exit_code == 2, r.output
    assert "the run would need about" in r.stderr and "more than the budget of" in r.stderr
    r = invoke("reproduce", "merp", "--figure", "table1", "--out", tmp_path / "m", "-q",
               "--max-memory", "2G")
    assert r.exit_code == 0, r.output
