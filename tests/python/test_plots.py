"""The standard plots: Jain's index and seed averaging by hand, and `dcnsim plot` on run and
sweep folders (which files, exit codes)."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import dcnsim
from dcnsim import plots
from dcnsim.cli import cli
from conftest import STAR, real_core_available


def _goodput(rows):
    t, i, v = zip(*rows)
    return pd.DataFrame({"time_s": t, "kind": "flow_goodput_bps", "id": i, "value": v})


def test_jain_index_by_hand():
    series = _goodput([(0.1, 0, 5.0), (0.1, 1, 5.0),            # equal: 1
                       (0.2, 0, 1.0), (0.2, 1, 3.0),            # (1+3)^2 / (2*(1+9)) = 0.8
                       (0.3, 0, 9.0), (0.3, 1, 0.0), (0.3, 2, 0.0),  # one takes all: 1/3
                       (0.4, 0, 0.0)])                          # nothing moves: left out
    series = pd.concat([series, pd.DataFrame(
        {"time_s": [0.2], "kind": ["queue_bytes"], "id": [0], "value": [1e6]})])
    j = plots.jain_index(series)
    assert list(j["time_s"]) == [0.1, 0.2, 0.3]
    assert np.allclose(j["jain"], [1.0, 0.8, 1 / 3])
    assert list(j["flows"]) == [2, 2, 3]


def test_mean_over_seeds_groups_by_protocol_and_load():
    from dcnsim.plots.sweeps import mean_over_seeds

    frame = pd.DataFrame({
        "transport.protocol": ["tcp", "tcp", "tcp", "dctcp"], "workload.load": [0.2, 0.2, 0.4, 0.2],
        "seed": [1, 2, 1, 1], "fct_s.mean": [1.0, 3.0, 5.0, 7.0], "status": ["ok"] * 4,
    })
    s = mean_over_seeds(frame, "workload.load", "transport.protocol", "fct_s.mean")
    tcp02 = s[(s["transport.protocol"] == "tcp") & (s["workload.load"] == 0.2)].iloc[0]
    assert (tcp02["mean"], tcp02["min"], tcp02["max"], tcp02["count"]) == (2.0, 1.0, 3.0, 2)
    assert len(s) == 3


def test_plot_run_folder_draws_flow_and_series_plots(fake_core, star_file, tmp_path):
    out = tmp_path / "run"
    dcnsim.run(star_file, out=out, overrides=["output.series_interval_us=100"])
    r = CliRunner().invoke(cli, ["plot", str(out)])
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in (out / "plots").iterdir())
    # the fake core's series have queue and utilisation samples, no goodput
    assert names == ["fct_by_size.png", "fct_cdf.png", "link_util.png", "queue.png",
                     "slowdown_by_size.png"]
    for p in (out / "plots").iterdir():
        assert p.read_bytes()[:4] == b"\x89PNG" and p.stat().st_size > 10_000


def test_plot_series_functions_write_pngs(tmp_path):
    series = pd.concat([
        _goodput([(t / 10, i, 1e9 * (i + 1)) for t in range(1, 6) for i in range(3)]),
        pd.DataFrame({"time_s": [0.1, 0.2, 0.1, 0.2], "kind": ["queue_bytes"] * 4,
                      "id": [4, 4, 5, 5], "value": [1e4, 3e4, 0.0, 0.0]}),
    ])
    ports = pd.DataFrame({"port": [4, 5], "node": ["sw", "sw"], "peer": ["h0", "h1"]})
    for f in (plots.goodput_over_time(series, tmp_path / "g.png"),
              plots.jain_over_time({"a": series, "b": series}, tmp_path / "j.png"),
              plots.queue_over_time(series, tmp_path / "q.png", ports)):
        assert f.is_file() and f.stat().st_size > 10_000
    assert plots.series.port_names(ports) == {4: "sw→h0", 5: "sw→h1"}


def test_plot_refuses_a_folder_that_is_neither(tmp_path):
    r = CliRunner().invoke(cli, ["plot", str(tmp_path)])
    assert r.exit_code == 2 and "not a run folder" in r.stderr


@pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")
def test_plot_sweep_folder_draws_fct_against_load_and_slowdown_at_a_point(tmp_path):
    (tmp_path / "star.toml").write_text(STAR.replace("flows = 30", "flows = 10"))
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text('scenario = "star.toml"\n[grid]\ntransport.protocol = ["tcp", "dctcp"]\n'
                          "workload.load = [0.2, 0.5]\n")
    out = tmp_path / "sw"
    dcnsim.sweep(sweep_file, out, workers=2)
    files = plots.plot_dir(out)
    assert sorted(f.name for f in files) == ["fct_cdf.png", "fct_vs_load.png",
                                             "slowdown_by_size.png"]


@pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")
def test_the_slowdown_plot_and_the_summary_share_their_size_classes(tmp_path):
    """One set of classes: summary.json's by_size and the plot's bars cover the same flows."""
    sc = {"topology": {"kind": "star", "hosts": 4},
          "transport": {"protocol": "dctcp"},
          "workload": {"kind": "poisson", "flows": 300, "sizes": "websearch"}}
    r = dcnsim.run(sc, out=tmp_path / "run", quiet=True)
    by_size = r.summary["by_size"]
    assert [(c["lo_bytes"], c["hi_bytes"]) for c in by_size] == \
        [(lo, hi) for _, lo, hi in plots.SIZE_CLASSES]
    classes = plots.size_class(r.flows["size_bytes"])
    assert [int((classes == i).sum()) for i in range(len(by_size))] == \
        [c["count"] for c in by_size]
    # Class edges are (lo, hi]: 10 000 bytes is the first class, 10 001 the second.
    assert list(plots.size_class([1, 10_000, 10_001, 1_000_000, 1_000_001])) == [0, 0, 1, 2, 3]


def test_failures_are_marked_on_time_series(tmp_path, monkeypatch):
    failures = [{"link": ["leaf1", "spine0"], "down_s": 0.005, "up_s": 0.015},
                {"link": ["a", "b"], "down_s": 0.001}]
    assert plots.failure_events(failures) == [(0.001, "a–b down"), (0.005, "leaf1–spine0 down"),
                                              (0.015, "leaf1–spine0 up")]
    from dcnsim.plots import series as series_plots
    drawn = []
    real = series_plots.mark_failures

    def spy(ax, f):
        real(ax, f)
        drawn.append(sorted(line.get_xdata()[0] for line in ax.get_lines()
                            if line.get_linestyle() == "--"))
    monkeypatch.setattr(series_plots, "mark_failures", spy)
    series = _goodput([(t / 100, 0, 1e9) for t in range(1, 3)])
    series_plots.goodput_over_time(series, tmp_path / "g.png", failures=failures)
    series_plots.goodput_over_time(series, tmp_path / "none.png")
    assert drawn == [[1.0, 5.0, 15.0], []]  # ms; nothing without failures
