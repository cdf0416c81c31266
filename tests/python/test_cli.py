"""The command line, against the fake core: exit codes, --set, output folders, list, demo."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
from click.testing import CliRunner

from dcnsim.cli import cli
from conftest import ROOT


def invoke(*args: str):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_run_prints_summary_and_writes_out(fake_core, star_file, tmp_path):
    out = tmp_path / "res"
    r = invoke("run", star_file, "--out", out)
    assert r.exit_code == 0, r.output
    assert "finished" in r.stdout and "mean" in r.stdout and "size class" in r.stdout
    assert "wall" in r.stdout
    for name in ("flows.csv", "summary.json", "scenario.json", "ports.csv"):
        assert (out / name).is_file(), name


def test_run_creates_missing_parents_of_out(fake_core, star_file, tmp_path):
    out = tmp_path / "a" / "b" / "res"
    assert invoke("run", star_file, "--out", out, "--quiet").exit_code == 0
    assert (out / "flows.csv").is_file()


def test_set_is_passed_through(fake_core, star_file):
    r = invoke("run", star_file, "--set", "transport.protocol=tcp", "--set", "workload.load=0.4", "-q")
    assert r.exit_code == 0, r.output
    assert fake_core.calls[-1] == ("run", ["transport.protocol=tcp", "workload.load=0.4"])


def test_scenario_error_exits_2_and_creates_no_out(fake_core, star_file, tmp_path):
    out = tmp_path / "nested" / "res"
    r = invoke("run", star_file, "--out", out, "--set", "topology.colour=3")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: topology.colour:")
    assert not out.exists() and not out.parent.exists()


def test_error_during_run_exits_2_and_creates_no_out(fake_core, star_file, tmp_path):
    fake_core.fail_run = "workload.sizes: no such file 'cdf.txt'"
    out = tmp_path / "res"
    r = invoke("run", star_file, "--out", out)
    assert r.exit_code == 2
    assert r.stderr == "error: workload.sizes: no such file 'cdf.txt'\n"
    assert not out.exists()


def test_missing_file_exits_2(fake_core, tmp_path):
    out = tmp_path / "res"
    r = invoke("run", tmp_path / "nope.toml", "--out", out)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ") and "nope.toml" in r.stderr
    assert not out.exists()


def test_malformed_toml_exits_2(fake_core, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[topology\nkind = 3\n")
    r = invoke("validate", bad)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: TOML syntax")


def test_interrupt_exits_130_without_out(fake_core, star_file, tmp_path):
    fake_core.interrupt = True
    out = tmp_path / "res"
    r = invoke("run", star_file, "--out", out, "-q")
    assert r.exit_code == 130
    assert "interrupted" in r.stderr
    assert not out.exists()


def test_full_disk_exits_74_with_the_os_reason_and_creates_no_out(fake_core, star_file, tmp_path):
    import errno

    import dcnsim

    fake_core.fail_write = errno.ENOSPC
    out = tmp_path / "res"
    r = invoke("run", star_file, "--out", out, "-q")
    assert r.exit_code == 74
    assert r.stderr == f"error: {out}: could not write results: No space left on device\n"
    assert not out.exists()
    try:
        dcnsim.run(star_file, out=out)
    except dcnsim.OutputError as e:  # an OSError, with the OS's errno and the folder
        assert isinstance(e, OSError) and e.errno == errno.ENOSPC and e.filename == str(out)
    else:
        raise AssertionError("no OutputError")


def test_sweep_folder_on_a_full_disk_exits_74(fake_core, star_file, tmp_path, monkeypatch):
    import errno
    import importlib

    sw = importlib.import_module("dcnsim.sweep")

    def full(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(sw, "_write_json", full)
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text(f'scenario = "{star_file.name}"\n[grid]\nseed = [1, 2]\n')
    r = invoke("sweep", sweep_file, "--out", tmp_path / "out", "-q")
    assert r.exit_code == 74
    assert r.stderr == (f"error: {tmp_path / 'out' / 'sweep.json'}: could not write results: "
                        "No space left on device\n")


def test_an_os_error_of_the_machine_exits_74_wherever_it_comes_from(fake_core, tmp_path,
                                                                    monkeypatch):
    import errno

    from dcnsim import api

    def broken(*args, **kwargs):
        raise OSError(errno.EIO, os.strerror(errno.EIO), "scenario.toml")

    monkeypatch.setattr(api, "scenario_args", broken)
    r = invoke("validate", tmp_path / "scenario.toml")
    assert r.exit_code == 74 and r.stderr == "error: scenario.toml: Input/output error\n"


def test_validate_prints_ok_line(fake_core, demo_file):
    r = invoke("validate", demo_file, "--set", "transport.protocol=tcp")
    assert r.exit_code == 0, r.output
    line = r.stdout.strip()
    assert line.startswith("ok: demo: fattree k=4")
    assert "tcp over ecmp" in line and "websearch" in line and "2000 flows" in line
    assert fake_core.calls == [("validate", ["transport.protocol=tcp"])]


def test_list_prints_every_category(fake_core):
    r = invoke("list")
    assert r.exit_code == 0
    for heading in ("protocols", "path choices", "topologies", "workloads", "size distributions"):
        assert heading in r.stdout
    assert "dctcp" in r.stdout and "DCTCP: ECN-proportional window cuts" in r.stdout
    assert "websearch" in r.stdout


def test_demo_writes_its_files(fake_core, tmp_path):
    out = tmp_path / "demo"
    r = invoke("demo", "--out", out, "--flows", "50", "--quiet")
    assert r.exit_code == 0, r.output
    runs = [c for c in fake_core.calls if c[0] == "run"]
    assert [c[1] for c in runs] == [
        ["workload.flows=50", "transport.protocol=tcp"],
        ["workload.flows=50", "transport.protocol=dctcp"],
    ]
    for proto in ("tcp", "dctcp"):
        assert (out / proto / "flows.csv").is_file()
    flows = pd.read_csv(out / "flows.csv")
    assert flows.columns[0] == "protocol"
    assert flows["protocol"].value_counts().to_dict() == {"tcp": 50, "dctcp": 50}
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary) == {"tcp", "dctcp"}
    assert (out / "fct_by_size.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "mean FCT" in r.stdout and "p99 FCT" in r.stdout and "mean slowdown" in r.stdout
    assert "dctcp" in r.stdout and "<100KB" in r.stdout


def test_demo_runs_again_over_old_results(fake_core, tmp_path):
    out = tmp_path / "demo"
    assert invoke("demo", "--out", out, "--flows", "20", "-q").exit_code == 0
    assert invoke("demo", "--out", out, "--flows", "30", "-q").exit_code == 0
    assert len(pd.read_csv(out / "tcp" / "flows.csv")) == 30


def test_python_dash_m_shows_help():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run(
        [sys.executable, "-m", "dcnsim", "--help"], capture_output=True, text=True, env=env
    )
    assert p.returncode == 0, p.stderr
    for cmd in ("run", "validate", "list", "demo"):
        assert cmd in p.stdout
