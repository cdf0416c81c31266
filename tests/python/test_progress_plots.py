"""The progress bar's visibility, and the FCT-by-size figure."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import dcnsim
from dcnsim import plots
from dcnsim.progress import progress_bar


def test_quiet_run_prints_nothing(fake_core, star_file, capsys):
    seen = []
    real_run = fake_core.run
    fake_core.run = lambda *a, **kw: seen.append(a[6]) or real_run(*a, **kw)
    dcnsim.run(star_file, quiet=True)
    assert seen == [None]
    assert capsys.readouterr() == ("", "")


def test_short_run_shows_no_bar(fake_core, star_file, capsys):
    dcnsim.run(star_file, quiet=False)
    assert capsys.readouterr().err == ""


def test_bar_shows_time_and_flows_once_delay_passed():
    buf = io.StringIO()
    with progress_bar(False, file=buf, delay=0) as cb:
        cb(0.0025, 7, 20)
    text = buf.getvalue()
    assert "7/20" in text and "sim 2.50 ms" in text


def test_quiet_bar_is_none():
    with progress_bar(True) as cb:
        assert cb is None


def _frame(seed: int, factor: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = np.round(rng.lognormal(11, 2, 500)).astype("uint64") + 100
    ideal = size * 8 / 1e10 + 5e-6
    fct = ideal * factor * rng.lognormal(0, 0.4, 500)
    fct[:3] = np.nan
    return pd.DataFrame({"size_bytes": size, "fct_s": fct, "slowdown": fct / ideal})


@pytest.mark.parametrize("metric", ["fct", "slowdown"])
def test_fct_by_size_writes_png(tmp_path, metric):
    path = plots.fct_by_size({"tcp": _frame(1, 3), "dctcp": _frame(1, 1.5)}, tmp_path / "f.png", metric=metric)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_fct_by_size_refuses_unknown_metric(tmp_path):
    with pytest.raises(ValueError, match="metric"):
        plots.fct_by_size({"a": _frame(1, 1)}, tmp_path / "f.png", metric="goodput")


def test_size_bins_are_log_spaced_and_cover_sizes():
    edges = plots.size_bins(np.array([150, 2_000, 3_000_000]))
    assert edges[0] <= 150 and edges[-1] >= 3_000_000
    ratios = edges[1:] / edges[:-1]
    assert np.allclose(ratios, ratios[0])


def test_binned_stats_skip_unfinished():
    f = pd.DataFrame({"size_bytes": [100, 100, 100], "fct_s": [1.0, 3.0, np.nan]})
    stats = plots.binned_stats(f, "fct_s", np.array([10.0, 1000.0]))
    assert stats["count"].tolist() == [2] and stats["mean"].tolist() == [2.0]
