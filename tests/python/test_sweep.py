"""Sweeps: the sweep file, point names, and (with the real core) local pool vs a Dask
LocalCluster, resuming, --force, failing points, CLI exit codes."""

from __future__ import annotations

import importlib
import json
import re
import tomllib

import pandas as pd
import pytest
from click.testing import CliRunner

import dcnsim
from dcnsim import progress, toml_values
from dcnsim.cli import cli
from conftest import ROOT, STAR, real_core_available

# the module; ``dcnsim.sweep`` itself is the function
sw = importlib.import_module("dcnsim.sweep")

needs_core = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)


@pytest.fixture
def sweep_file(tmp_path):
    (tmp_path / "star.toml").write_text(STAR.replace("flows = 30", "flows = 20"))
    path = tmp_path / "sweep.toml"
    path.write_text(
        'scenario = "star.toml"\n[base]\nworkload.flows = 12\n'
        '[grid]\ntransport.protocol = ["tcp", "dctcp"]\nworkload.load = [0.2, 0.6]\n'
    )
    return path


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


# --- the sweep file, no core needed ----------------------------------------------------------


def test_grid_expands_to_the_cartesian_product_with_readable_names(sweep_file):
    spec = sw.load_spec(sweep_file)
    assert spec.grid == {"transport.protocol": ["tcp", "dctcp"], "workload.load": [0.2, 0.6]}
    assert spec.base_overrides == ["workload.flows=12"]
    points = spec.points()
    assert [p.name for p in points] == [
        "protocol-tcp_load-0.2", "protocol-tcp_load-0.6",
        "protocol-dctcp_load-0.2", "protocol-dctcp_load-0.6",
    ]
    assert points[1].overrides == ["workload.flows=12", 'transport.protocol="tcp"', "workload.load=0.6"]
    assert points[3].values == {"transport.protocol": "dctcp", "workload.load": 0.6}


def test_quoted_dotted_keys_equal_nested_tables(tmp_path):
    (tmp_path / "s.toml").write_text(STAR)
    a = tmp_path / "a.toml"
    a.write_text('scenario = "s.toml"\n[grid]\n"transport.protocol" = ["tcp"]\n')
    b = tmp_path / "b.toml"
    b.write_text('scenario = "s.toml"\n[grid.transport]\nprotocol = ["tcp"]\n')
    assert sw.load_spec(a).grid == sw.load_spec(b).grid == {"transport.protocol": ["tcp"]}


@pytest.mark.parametrize(
    "body, message",
    [
        ('scenario = "s.toml"\n[grid]\nseed = []', r"^grid\.seed: empty list"),
        ('scenario = "s.toml"\n[grid]\nseed = 3', r"^grid\.seed: must be a list"),
        ('colour = 1\n[grid]\nseed = [1]', r"^colour: unknown key in a sweep file"),
        ('[grid]\nseed = [1]', r"^scenario: a sweep needs a base scenario"),
        ('scenario = "nope.toml"', r"^scenario: no such file"),
    ],
)
def test_malformed_sweep_names_the_key(tmp_path, body, message):
    (tmp_path / "s.toml").write_text(STAR)
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(sw.SweepError, match=message):
        sw.load_spec(path)


def test_toml_values_read_back_as_given():
    for v in [1, -2, 0.25, 1e-9, True, "dctcp", 'a"b', [1, 2], {"dist": "fixed", "kb": 64},
              [{"link": ["a", "b"], "down_s": 0.01}]]:
        assert tomllib.loads(f"v = {sw.toml_value(v)}")["v"] == v


def test_a_value_toml_cannot_write_is_a_sweep_error_in_a_sweep():
    with pytest.raises(sw.SweepError, match=r"cannot write \{1\} \(set\)"):
        sw.toml_value({1})
    with pytest.raises(toml_values.NoTomlValue, match="cannot write"):
        toml_values.toml_value(object())


def test_point_names_are_stable_and_fall_back_to_a_hash():
    names = sw._names(["workload.sizes", "seed"])
    a = sw._point_name(names, {"workload.sizes": {"dist": "fixed", "kb": 64}, "seed": 1})
    b = sw._point_name(names, {"workload.sizes": {"dist": "fixed", "kb": 64}, "seed": 1})
    c = sw._point_name(names, {"workload.sizes": {"dist": "fixed", "kb": 65}, "seed": 1})
    assert a == b != c and a.startswith("sizes-") and a.endswith("_seed-1")
    long = sw._point_name({"name": "name"}, {"name": "x" * 200})
    assert long.startswith("p-") and len(long) == 14
    # two keys ending alike keep their full paths
    assert sw._names(["topology.link_gbps", "x.link_gbps"]) == {
        "topology.link_gbps": "topology.link_gbps", "x.link_gbps": "x.link_gbps"}


def test_flatten_summary_keys_size_classes_by_name():
    flat = sw.flatten_summary(
        {"fct_s": {"p99": 2.0}, "by_size": [{"class": "<=10KB", "count": 3}], "seed": 1,
         "other": [1, 2]}
    )
    assert flat == {"fct_s.p99": 2.0, "by_size.<=10KB.count": 3, "seed": 1}


# --- running, with the real core -------------------------------------------------------------


def _mtimes(out):
    return {d.name: (d / "summary.json").stat().st_mtime_ns for d in out.iterdir()
            if (d / "summary.json").is_file()}


@needs_core
def test_sweep_returns_one_row_per_point_with_grid_columns(sweep_file, tmp_path):
    out = tmp_path / "out"
    frame = dcnsim.sweep(sweep_file, out, workers=2)
    assert len(frame) == 4 and (frame["status"] == "ok").all()
    assert list(frame.columns[:3]) == ["point", "transport.protocol", "workload.load"]
    assert (frame["flows.total"] == 12).all()
    # the summary's own protocol agrees with the grid column: each point ran its overrides
    assert (frame["protocol"] == frame["transport.protocol"]).all()
    point = json.loads((out / "protocol-dctcp_load-0.6" / "point.json").read_text())
    assert point["grid"] == {"transport.protocol": "dctcp", "workload.load": 0.6}
    scen = json.loads((out / "protocol-dctcp_load-0.6" / "scenario.json").read_text())
    assert scen["workload"]["load"] == 0.6 and scen["workload"]["flows"] == 12
    assert (out / "summaries.csv").is_file()


@needs_core
def test_a_marking_threshold_in_the_base_runs_every_protocol_of_the_grid(tmp_path):
    # K belongs to the ports: a grid over protocols with K in its base loses no point (it used
    # to be a DCTCP key that NewReno refused).
    (tmp_path / "star.toml").write_text(STAR)
    path = tmp_path / "sweep.toml"
    path.write_text(
        'scenario = "star.toml"\n[base]\nworkload.flows = 12\ntopology.ecn_k_pkts = 20\n'
        '[grid]\ntransport.protocol = ["tcp", "dctcp", "d2tcp"]\n'
    )
    out = tmp_path / "out"
    frame = dcnsim.sweep(path, out, workers=2)
    assert list(frame["status"]) == ["ok"] * 3, frame
    for protocol in ("tcp", "dctcp", "d2tcp"):
        scen = json.loads((out / f"protocol-{protocol}" / "scenario.json").read_text())
        assert scen["topology"]["ecn_k_pkts"] == 20


@needs_core
def test_dask_local_cluster_gives_the_same_results_as_the_local_pool(sweep_file, tmp_path):
    distributed = pytest.importorskip("distributed")
    local = sw.sweep(sweep_file, tmp_path / "local", workers=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        dask = sw.sweep(sweep_file, tmp_path / "dask", scheduler=cluster.scheduler_address)
        r = invoke("sweep", sweep_file, "--out", tmp_path / "cli", "-q",
                   "--scheduler", cluster.scheduler_address)
    assert r.exit_code == 0 and "(4 run now, 0 kept)" in r.stderr, r.output
    assert list(dask["point"]) == list(local["point"])
    assert (dask["status"] == "ok").all()
    for name in local["point"]:
        a = (tmp_path / "local" / name / "flows.csv").read_bytes()
        assert a == (tmp_path / "dask" / name / "flows.csv").read_bytes(), name
        assert a == (tmp_path / "cli" / name / "flows.csv").read_bytes(), name
    deterministic = [c for c in local.columns if not c.startswith("run.")]
    assert local[deterministic].equals(dask[deterministic])


@needs_core
def test_interrupted_sweep_resumes_with_only_the_missing_point(sweep_file, tmp_path):
    out = tmp_path / "out"
    spec = sw.load_spec(sweep_file)
    first = sw.run_sweep(spec, out, workers=2)
    assert sorted(first.ran) == sorted(p.name for p in spec.points()) and not first.failures
    before = _mtimes(out)
    # as if interrupted: one point never finished, another was caught half-written
    import shutil
    shutil.rmtree(out / "protocol-tcp_load-0.6")
    (out / ".tmp-protocol-dctcp_load-0.2-0123abcd").mkdir()
    again = sw.run_sweep(spec, out, workers=2)
    assert again.ran == ["protocol-tcp_load-0.6"]
    assert sorted(again.kept) == sorted(set(before) - {"protocol-tcp_load-0.6"})
    after = _mtimes(out)
    assert all(after[n] == before[n] for n in again.kept)
    assert not [d for d in out.iterdir() if d.name.startswith(".")]
    # --force runs everything again
    forced = sw.run_sweep(spec, out, workers=2, force=True)
    assert len(forced.ran) == 4 and not forced.kept
    assert all(_mtimes(out)[n] > after[n] for n in after)


@needs_core
def test_points_recorded_with_every_transport_key_null_are_kept(sweep_file, tmp_path):
    """scenario.json written before each transport read its own keys listed all of them, the
    unset ones null: such a finished point is the same run and is kept, not run again."""
    out = tmp_path / "out"
    spec = sw.load_spec(sweep_file)
    sw.run_sweep(spec, out, workers=2)
    for point in spec.points():
        path = out / point.name / "scenario.json"
        old = json.loads(path.read_text())
        old["transport"].update({"rcp_alpha": None, "pdq_dampening": None, "mss_bytes": None})
        path.write_text(json.dumps(old))
    again = sw.run_sweep(spec, out, workers=2)
    assert not again.ran and len(again.kept) == 4
    # a key that is set (not null) and differs still makes the point stale
    stale = out / spec.points()[0].name / "scenario.json"
    changed = json.loads(stale.read_text())
    changed["transport"]["mss_bytes"] = 1000
    stale.write_text(json.dumps(changed))
    assert sw.run_sweep(spec, out, workers=2).ran == [spec.points()[0].name]


@needs_core
def test_changed_base_scenario_reruns_the_stale_points(sweep_file, tmp_path):
    out = tmp_path / "out"
    sw.run_sweep(sw.load_spec(sweep_file), out, workers=2)
    sweep_file.write_text(sweep_file.read_text().replace("workload.flows = 12", "workload.flows = 10"))
    again = sw.run_sweep(sw.load_spec(sweep_file), out, workers=2)
    assert len(again.ran) == 4 and not again.kept


@needs_core
def test_a_bad_value_fails_its_point_and_the_others_run(tmp_path):
    (tmp_path / "star.toml").write_text(STAR)
    path = tmp_path / "sweep.toml"
    path.write_text('scenario = "star.toml"\n[grid]\nworkload.load = [0.3, -1, 0.5]\n')
    out = tmp_path / "out"
    r = invoke("sweep", path, "--out", out, "-q")
    assert r.exit_code == 1
    assert "point load--1 (workload.load=-1) is invalid: workload.load:" in r.stderr
    assert (out / "load-0.3" / "summary.json").is_file() and (out / "load-0.5" / "summary.json").is_file()
    assert not (out / "load--1").exists()
    failures = json.loads((out / "failures.json").read_text())
    assert failures[0]["point"] == "load--1" and failures[0]["error"].startswith("workload.load:")
    frame = sw.collect(out)
    assert list(frame["status"]) == ["ok", "failed", "ok"]


@needs_core
def test_a_dying_worker_fails_only_its_point(sweep_file, tmp_path):
    import sweep_helpers

    spec = sw.load_spec(sweep_file)
    out = tmp_path / "out"
    out.mkdir()
    results = {}
    sw._run_local(spec.points(), out, 2, lambda p, err, *_: results.__setitem__(p.name, err),
                  fn=sweep_helpers.die_on_load_06)
    assert results.keys() == {p.name for p in spec.points()}
    for name, err in results.items():
        if name.endswith("load-0.6"):
            assert "worker process died" in err
        else:
            assert err is None and (out / name / "summary.json").is_file()


@needs_core
def test_cli_sweep_errors_exit_2_before_anything_runs(tmp_path):
    (tmp_path / "star.toml").write_text(STAR)
    path = tmp_path / "sweep.toml"
    out = tmp_path / "out"
    path.write_text('scenario = "star.toml"\n[grid]\ntransport.protocl = ["tcp", "dctcp"]\n')
    r = invoke("sweep", path, "--out", out)
    assert r.exit_code == 2 and r.stderr.startswith("error: transport.protocl:")
    path.write_text('scenario = "star.toml"\n[grid]\nseed = []\n')
    r = invoke("sweep", path, "--out", out)
    assert r.exit_code == 2 and r.stderr.startswith("error: grid.seed: empty list")
    assert not out.exists()


@needs_core
def test_sweep_progress_off_a_terminal_is_plain_lines(sweep_file, tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "LOG_INTERVAL_S", 0.0)  # a line at every point
    r = invoke("sweep", sweep_file, "--out", tmp_path / "out", "-j", "2")
    assert r.exit_code == 0, r.output
    assert "\r" not in r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("sweep: ")]
    assert [line.split(",")[0] for line in lines] == [f"sweep: {k}/4 points" for k in range(1, 5)]


@needs_core
def test_cli_sweep_succeeds_and_resumes(sweep_file, tmp_path):
    out = tmp_path / "out"
    r = invoke("sweep", sweep_file, "--out", out, "-j", "2", "-q")
    assert r.exit_code == 0, r.output
    assert "4/4 points finished (4 run now, 0 kept)" in r.stderr
    r = invoke("sweep", sweep_file, "--out", out, "-q")
    assert r.exit_code == 0 and "(0 run now, 4 kept)" in r.stderr


@needs_core
def test_example_sweeps_are_valid():
    examples = sorted((ROOT / "examples" / "sweeps").glob("*.toml"))
    assert examples
    for path in examples:
        spec = sw.load_spec(path)
        resolved, failures = sw.check_points(spec.points())
        assert not failures and len(resolved) == len(spec.points()) > 1, path


def test_structured_grid_values_get_readable_names_and_json_cells(tmp_path):
    """Failures as grid values: a folder name that says which link, and JSON in the table."""
    names = sw._names(["failures", "seed"])
    one = [{"link": ["leaf1", "spine0"], "down_s": 0.005, "up_s": 0.015}]
    other = [{"link": ["leaf1", "spine0"], "down_s": 0.005}]
    a = sw._point_name(names, {"failures": one, "seed": 1})
    assert re.fullmatch(r"failures-leaf1-spine0-0\.005-0\.015-[0-9a-f]{4}_seed-1", a), a
    b = sw._point_name(names, {"failures": other, "seed": 1})
    assert b.startswith("failures-leaf1-spine0-0.005-") and b != a
    assert sw._point_name(names, {"failures": [], "seed": 1}).startswith("failures-none-")
    # Same scalars, different tables: still different names.
    names = sw._names(["x"])
    assert sw._point_name(names, {"x": {"a": 1}}) != sw._point_name(names, {"x": {"b": 1}})


@needs_core
def test_a_failure_schedule_as_a_grid_value_is_json_in_summaries(tmp_path):
    (tmp_path / "star.toml").write_text(STAR)
    spec = tmp_path / "sweep.toml"
    spec.write_text(
        'scenario = "star.toml"\n[base]\nworkload.flows = 12\n'
        '[grid]\nfailures = [[], [{ link = ["h0", "sw"], down_s = 0.0001, up_s = 0.0002 }]]\n'
    )
    frame = dcnsim.sweep(spec, tmp_path / "out", workers=1)
    assert (frame["status"] == "ok").all(), frame
    assert frame["point"].str.startswith(("failures-none-", "failures-h0-sw-0.0001-0.0002-")).all()
    schedules = list(frame["failures"])  # the frame keeps the values as given
    assert schedules == [[], [{"link": ["h0", "sw"], "down_s": 0.0001, "up_s": 0.0002}]]
    cells = pd.read_csv(tmp_path / "out" / "summaries.csv")["failures"]
    assert [json.loads(v) for v in cells] == schedules


def test_results_is_exported_from_the_package():
    from dcnsim import Results
    from dcnsim.results import Results as Defined

    assert Results is Defined and "Results" in dcnsim.__all__


@needs_core
def test_sweep_flows_are_every_points_flows_with_its_grid_values(tmp_path):
    """Two points, a protocol and a failure schedule (a list value) as grid keys."""
    (tmp_path / "star.toml").write_text(STAR.replace("flows = 30", "flows = 12"))
    down = [{"link": ["h0", "sw"], "down_s": 0.0001, "up_s": 0.0002}]
    frame = dcnsim.sweep({"scenario": str(tmp_path / "star.toml"),
                          "grid": {"transport.protocol": ["dctcp"], "failures": [[], down]}},
                         tmp_path / "out", workers=1)
    flows = dcnsim.Results.sweep_flows(tmp_path / "out")
    assert list(flows.columns[:3]) == ["point", "transport.protocol", "failures"]
    each = {p: dcnsim.Results.load(tmp_path / "out" / p).flows for p in frame["point"]}
    assert len(each) == 2 and len(flows) == sum(len(f) for f in each.values())
    for _, point in frame.iterrows():
        rows = flows[flows["point"] == point["point"]]
        assert (rows["transport.protocol"] == point["transport.protocol"]).all()
        assert all(v == point["failures"] for v in rows["failures"])
        own = each[point["point"]]
        assert list(rows["flow_id"]) == list(own["flow_id"])
        assert list(rows["fct_s"].fillna(-1)) == list(own["fct_s"].fillna(-1))
        assert list(rows.columns[3:]) == list(own.columns)


def test_sweep_flows_refuse_a_folder_that_is_no_sweep(tmp_path):
    with pytest.raises(FileNotFoundError, match="no sweep.json, not a sweep folder"):
        dcnsim.Results.sweep_flows(tmp_path)
