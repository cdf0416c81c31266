"""Hostile input, full disks and interrupts (issue 36), with the real core: refuse naming the
key, never crash, never silently change; Ctrl-C leaves finished work resumable.

- values JSON cannot hold in a scenario dict (NaN, infinities, dates, huge integers) and in a
  sweep's grid or base;
- results that cannot be written: exit code 74 and the OS's reason;
- Ctrl-C on a sweep in a subprocess: exit 130 within seconds, no process left, resumable;
- a failures.json made stale by a lost Dask scheduler is reconciled on resume.
"""

from __future__ import annotations

import datetime
import errno
import importlib
import json
import math
import os
import resource
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

import dcnsim
from dcnsim.cli import EXIT_INTERRUPTED, EXIT_IO_ERROR, EXIT_TERMINATED, cli
from dcnsim.sweep import collect
from conftest import ROOT, STAR, real_core_available

sw = importlib.import_module("dcnsim.sweep")

pytestmark = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)

DCNSIM = Path(sys.executable).parent / "dcnsim"


def star() -> dict:
    return tomllib.loads(STAR)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


# --- values a scenario dict cannot hold --------------------------------------------------------


def _set(tree: dict, path: str, value) -> dict:
    node = tree
    *parents, last = path.split(".")
    for p in parents:
        node = node.setdefault(p, {})
    node[last] = value
    return tree


@pytest.mark.parametrize(
    "path, value, message",
    [
        ("workload.load", math.nan, "workload.load: nan is not a finite number"),
        ("workload.load", math.inf, "workload.load: inf is not a finite number"),
        ("topology.link_gbps", -math.inf, "topology.link_gbps: -inf is not a finite number"),
        ("workload.sizes", {"dist": "fixed", "kb": math.nan}, "workload.sizes.kb: nan is not"),
        ("seed", datetime.date(1979, 5, 27), "seed: a date or time (1979-05-27)"),
        ("stop_s", datetime.time(7, 32), "stop_s: a date or time (07:32:00)"),
        ("seed", 2**70, "seed: 1180591620717411303424 is out of range"),
        ("workload.flows", -(2**64), "workload.flows: -18446744073709551616 is out of range"),
        ("workload.flows", {1: 2}, "workload.flows: the key 1 is not a string"),
        ("name", b"bytes", "name: a value of type bytes"),
        ("workload.load", [0.1, math.nan], "workload.load[1]: nan is not a finite number"),
    ],
)
def test_a_dict_value_json_cannot_hold_is_refused_naming_its_key(tmp_path, path, value, message):
    out = tmp_path / "a" / "out"
    for call in (lambda s: dcnsim.run(s, out=out), dcnsim.validate):
        with pytest.raises(dcnsim.ScenarioError) as e:
            call(_set(star(), path, value))
        assert str(e.value).startswith(message), str(e.value)
    assert not (tmp_path / "a").exists()


def test_a_toml_datetime_read_by_tomllib_is_refused_naming_its_key():
    scenario = tomllib.loads(STAR + "\n[output]\nseries_interval_us = 1979-05-27T07:32:00Z\n")
    with pytest.raises(dcnsim.ScenarioError, match=r"^output\.series_interval_us: a date or time"):
        dcnsim.validate(scenario)


def test_numpy_numbers_are_sent_as_the_same_numbers(tmp_path):
    np = pytest.importorskip("numpy")
    s = _set(star(), "seed", np.int64(11))
    _set(s, "workload.load", np.float32(0.25))
    _set(s, "workload.flows", np.uint16(12))
    r = dcnsim.run(s, out=tmp_path / "out")
    stored = json.loads((tmp_path / "out" / "scenario.json").read_text())
    assert stored["seed"] == 11 and stored["workload"]["flows"] == 12
    assert stored["workload"]["load"] == float(np.float32(0.25))
    assert r.summary["flows"]["total"] == 12


def _star_file(tmp_path) -> Path:
    path = tmp_path / "star.toml"
    path.write_text(STAR.replace("flows = 30", "flows = 12"))
    return path


def _sweep_file(tmp_path, body: str) -> Path:
    _star_file(tmp_path)
    path = tmp_path / "sweep.toml"
    path.write_text('scenario = "star.toml"\n' + body)
    return path


@pytest.mark.parametrize(
    "grid, bad, message",
    [
        ("workload.load = [0.3, nan]", "load-nan", "workload.load: nan is not a finite number"),
        ("workload.load = [0.3, -inf]", "load--inf", "workload.load: -inf is not a finite number"),
        ("seed = [1, 1979-05-27]", None, "seed: a date or time (1979-05-27)"),
    ],
)
def test_a_grid_value_json_cannot_hold_fails_its_point_alone(tmp_path, grid, bad, message):
    out = tmp_path / "out"
    r = invoke("sweep", _sweep_file(tmp_path, f"[grid]\n{grid}\n"), "--out", out, "-q")
    assert r.exit_code == 1, r.output
    failures = json.loads((out / "failures.json").read_text())
    assert len(failures) == 1 and failures[0]["error"].startswith(message), failures
    if bad is not None:
        assert failures[0]["point"] == bad
    assert message in r.stderr
    assert len([d for d in out.iterdir() if (d / "summary.json").is_file()]) == 1
    # Every JSON file is JSON: a bare NaN or Infinity (what Python writes) is not; the value
    # is null there, and the failure's name, overrides and error say what it was.
    written = list(out.rglob("*.json"))
    assert {p.name for p in written} >= {"sweep.json", "failures.json", "point.json"}
    for path in written:
        _strict_json(path)
    if bad is not None:
        grid = json.loads((out / "sweep.json").read_text())["grid"]["workload.load"]
        assert grid == [0.3, None]
        assert failures[0]["grid"] == {"workload.load": None}
        assert bad.split("-", 1)[1] in failures[0]["overrides"][-1]
        assert list(collect(out)["status"]) == ["ok", "failed"]  # read back from sweep.json


def _strict_json(path: Path):
    """The JSON in ``path``, refusing NaN and Infinity as the JSON standard does."""
    def refuse(name):
        raise AssertionError(f"{path}: {name} is not JSON")
    return json.loads(path.read_text(), parse_constant=refuse)


def test_a_grid_value_json_cannot_hold_in_a_dict_sweep(tmp_path):
    frame = dcnsim.sweep({"scenario": star(), "base": {"workload": {"flows": 12}},
                          "grid": {"workload.load": [0.3, math.inf]}}, tmp_path / "out")
    assert list(frame["status"]) == ["ok", "failed"]
    assert frame["error"][1].startswith("workload.load: inf is not a finite number")


@pytest.mark.parametrize(
    "body, message",
    [
        ("[base]\nworkload.load = nan\n[grid]\nseed = [1, 2]\n", "workload.load: nan is not"),
        ("[base]\nseed = 1979-05-27\n[grid]\nworkload.load = [0.1]\n", "seed: a date or time"),
    ],
)
def test_a_base_value_json_cannot_hold_stops_the_sweep_before_it_runs(tmp_path, body, message):
    out = tmp_path / "out"
    r = invoke("sweep", _sweep_file(tmp_path, body), "--out", out)
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {message}"), r.output
    assert not out.exists()


def test_a_dict_sweep_with_a_nan_in_its_scenario_is_refused(tmp_path):
    with pytest.raises(dcnsim.ScenarioError, match=r"^workload\.load: nan is not"):
        dcnsim.sweep({"scenario": _set(star(), "workload.load", math.nan),
                      "grid": {"seed": [1, 2]}}, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# --- results that cannot be written ------------------------------------------------------------


def test_out_under_a_file_exits_74_with_the_os_reason(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    out = tmp_path / "file" / "out"
    r = invoke("run", _star_file(tmp_path), "--out", out, "-q")
    assert r.exit_code == EXIT_IO_ERROR, r.output
    # the core makes the parent folders first: "file" exists, and is no folder
    assert r.stderr == f"error: {out}: could not write results: File exists\n"
    with pytest.raises(dcnsim.OutputError) as e:
        dcnsim.run(star(), out=out)
    assert e.value.errno == errno.EEXIST and e.value.filename == str(out)


def test_a_sweep_folder_under_a_file_exits_74(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    r = invoke("sweep", _sweep_file(tmp_path, "[grid]\nseed = [1, 2]\n"), "--out",
               tmp_path / "file" / "out", "-q")
    assert r.exit_code == EXIT_IO_ERROR, r.output
    assert "could not write results" in r.stderr and "Not a directory" in r.stderr


def _limit_file_size():
    # files larger than 1000 bytes cannot be written: EFBIG ("File too large"), as a full disk
    # would refuse them; flows.csv is larger, sweep.json and failures.json are not (SIGXFSZ is
    # ignored by Python, and so by the core it runs)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))


def test_a_write_that_fails_midway_exits_74_leaves_nothing_and_keeps_old_results(tmp_path):
    scenario = _star_file(tmp_path)
    out = tmp_path / "out"
    cmd = [str(DCNSIM), "run", str(scenario), "--out", str(out), "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=_limit_file_size,
                       timeout=60)
    assert p.returncode == EXIT_IO_ERROR, p.stderr
    assert p.stderr == f"error: {out}: could not write results: File too large\n"
    assert sorted(os.listdir(tmp_path)) == ["star.toml"]
    # over an existing result folder: the old one stays whole, and the failure is not hidden
    assert subprocess.run(cmd, timeout=60).returncode == 0
    before = {f.name: f.read_bytes() for f in out.iterdir()}
    p = subprocess.run(cmd + ["--set", "seed=2"], capture_output=True, text=True,
                       preexec_fn=_limit_file_size, timeout=60)
    assert p.returncode == EXIT_IO_ERROR and "File too large" in p.stderr, p.stderr
    assert {f.name: f.read_bytes() for f in out.iterdir()} == before
    assert sorted(os.listdir(tmp_path)) == ["out", "star.toml"]


def test_sweep_points_that_cannot_write_exit_74_with_the_reason(tmp_path):
    path = _sweep_file(tmp_path, "[grid]\nseed = [1, 2]\n")
    out = tmp_path / "out"
    p = subprocess.run([str(DCNSIM), "sweep", str(path), "--out", str(out), "-q", "-j", "2"],
                       capture_output=True, text=True, preexec_fn=_limit_file_size, timeout=120)
    assert p.returncode == EXIT_IO_ERROR, p.stderr
    assert "2 of them could not write their results" in p.stderr and "File too large" in p.stderr
    failures = json.loads((out / "failures.json").read_text())
    assert [f["point"] for f in failures] == ["seed-1", "seed-2"]
    assert not [d for d in out.iterdir() if d.name.startswith(".")]


# --- Ctrl-C on a sweep ---------------------------------------------------------------------------


def _session(sid: int) -> list[str]:
    """The live (not zombie) processes of session ``sid``: ``"pid state cmdline"``."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:100]
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(f"{d.name} {fields[0]} {cmd}")
    return found


def _ctrl_c_ready():
    os.setsid()  # its own session, to find its descendants and signal its group
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # pytest may run with SIGINT ignored
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("sig, code, said", [
    (signal.SIGINT, EXIT_INTERRUPTED, "interrupted"),
    (signal.SIGTERM, EXIT_TERMINATED, "terminated (SIGTERM)"),
])
@pytest.mark.parametrize("target", ["group", "process"])
def test_ctrl_c_stops_a_sweep_quickly_and_the_same_sweep_resumes(tmp_path, target, sig, code,
                                                                  said):
    # 6 points of half a second or more each on 2 workers; Ctrl-C once the first point is
    # finished, with points still running and queued. To the group: Ctrl-C at a terminal; to
    # the process alone: `kill -INT`. SIGTERM, to the group (a service manager stopping it) or
    # to the process (`kill`), is handled the same way, with exit code 143.
    path = tmp_path / "sweep.toml"
    path.write_text(f'scenario = "{ROOT / "examples" / "demo.toml"}"\n[base]\n'
                    'workload.flows = 200\n[grid]\nseed = [1, 2, 3]\n'
                    'transport.protocol = ["tcp", "dctcp"]\n')
    out = tmp_path / "out"
    cmd = [str(DCNSIM), "sweep", str(path), "--out", str(out), "--workers", "2"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=_ctrl_c_ready)
    try:
        deadline = time.monotonic() + 60
        while not any((d / "summary.json").is_file() for d in out.glob("seed-*")):
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()
            time.sleep(0.05)
        if target == "group":
            os.killpg(p.pid, sig)
        else:
            os.kill(p.pid, sig)
        sent = time.monotonic()
        _, stderr = p.communicate(timeout=15)
        took = time.monotonic() - sent
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == code, stderr
    assert took < 5, took
    assert "Traceback" not in stderr, stderr
    finished = sorted(d.name for d in out.iterdir() if (d / "summary.json").is_file())
    assert 1 <= len(finished) < 6
    assert f"error: {said}: {len(finished)}/6 points finished, kept in {out}" in stderr
    # the stopped points left nothing, and are neither finished nor failed
    assert sorted(d.name for d in out.iterdir()) == sorted(finished + ["sweep.json"])
    # no worker, fork server or resource tracker outlives the sweep
    deadline = time.monotonic() + 5
    while _session(p.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _session(p.pid) == []
    r = subprocess.run(cmd + ["-q"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"6/6 points finished ({6 - len(finished)} run now, {len(finished)} kept)" in r.stderr


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, EXIT_INTERRUPTED),
                                       (signal.SIGTERM, EXIT_TERMINATED)])
def test_a_run_stopped_by_a_signal_exits_with_its_code_and_writes_nothing(tmp_path, sig, code):
    # A run of several seconds; the signal once it simulates.
    out = tmp_path / "out"
    cmd = [str(DCNSIM), "run", str(ROOT / "examples" / "demo.toml"), "--out", str(out),
           "--set", "workload.flows=200000"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=_ctrl_c_ready)
    try:
        time.sleep(3)
        assert p.poll() is None, p.communicate()
        os.kill(p.pid, sig)
        _, stderr = p.communicate(timeout=15)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == code, stderr
    last = stderr.strip().splitlines()[-1]
    assert last == ("error: terminated (SIGTERM)" if sig == signal.SIGTERM else
                    "error: interrupted"), stderr
    assert "Traceback" not in stderr and not out.exists()


# --- a lost Dask scheduler -------------------------------------------------------------------------


def test_resume_drops_failures_of_points_finished_since(tmp_path):
    # The state a lost scheduler leaves: every point reported failed, then orphaned workers
    # finished some of them. A resume that is interrupted at once still drops those.
    path = _sweep_file(tmp_path, "[grid]\nseed = [1, 2, 3]\n")
    out = tmp_path / "out"
    spec = sw.load_spec(path)
    sw.run_sweep(spec, out, workers=2)
    import shutil
    shutil.rmtree(out / "seed-3")
    lost = "FutureCancelledError: cancelled for reason: scheduler-connection-lost."
    stale = [{"point": n, "grid": {"seed": i}, "overrides": [], "error": lost}
             for i, n in enumerate(["seed-1", "seed-2", "seed-3", "seed-9"], 1)]
    (out / "failures.json").write_text(json.dumps(stale))
    assert list(sw.collect(out)["status"]) == ["failed", "failed", "failed"]

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    orig = sw._run_local
    sw._run_local = interrupted
    try:
        with pytest.raises(sw.SweepInterrupted, match=r"^interrupted: 2/3 points finished"):
            sw.run_sweep(spec, out, workers=2)
    finally:
        sw._run_local = orig
    # seed-1 and seed-2 are finished: no failures; seed-9 is no point of this sweep; seed-3
    # did not run again yet: its entry stays
    assert [f["point"] for f in json.loads((out / "failures.json").read_text())] == ["seed-3"]
    assert list(sw.collect(out)["status"]) == ["ok", "ok", "failed"]
    again = sw.run_sweep(spec, out, workers=2)
    assert again.ran == ["seed-3"] and sorted(again.kept) == ["seed-1", "seed-2"]
    assert not (out / "failures.json").exists()
    assert list(sw.collect(out)["status"]) == ["ok", "ok", "ok"]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_lost_scheduler_is_one_error_line_and_no_point_fails(tmp_path):
    pytest.importorskip("distributed")
    dask = Path(sys.executable).parent / "dask"
    if not dask.exists():
        pytest.skip("no dask command")
    address = f"tcp://127.0.0.1:{_free_port()}"
    path = tmp_path / "sweep.toml"
    path.write_text(f'scenario = "{ROOT / "examples" / "demo.toml"}"\n[base]\n'
                    'workload.flows = 300\n[grid]\nseed = [1, 2, 3, 4, 5, 6]\n')
    out = tmp_path / "out"
    procs = []
    try:
        sched = subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port",
                                  address.rsplit(":", 1)[1], "--no-dashboard"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        procs.append(sched)
        procs.append(subprocess.Popen([str(dask), "worker", address, "--nthreads", "1",
                                       "--no-dashboard", "--death-timeout", "5"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      start_new_session=True))
        p = subprocess.Popen([str(DCNSIM), "sweep", str(path), "--out", str(out), "-q",
                              "--scheduler", address],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(p)
        deadline = time.monotonic() + 90
        while not any((d / "summary.json").is_file() for d in out.glob("seed-*")):
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()
            time.sleep(0.05)
        sched.kill()
        _, stderr = p.communicate(timeout=30)
    finally:
        for q in procs:
            if q.poll() is None:
                os.killpg(q.pid, signal.SIGKILL) if q is not p else q.kill()
                q.wait()
    assert p.returncode == 1, stderr
    assert stderr.startswith(f"error: lost the connection to the Dask scheduler {address}; "
                             ), stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    assert not (out / "failures.json").exists()
