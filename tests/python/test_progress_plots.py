"""Progress on stderr (a bar on a terminal, plain lines in a log), and the FCT-by-size figure."""

from __future__ import annotations

import io
import time

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


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_terminal_gets_a_bar_with_time_and_flows_once_delay_passed():
    buf = Terminal()
    with progress_bar(False, file=buf, delay=0) as cb:
        cb(0.0025, 7, 20)
    text = buf.getvalue()
    assert "7/20" in text and "sim 2.50 ms" in text and "\r" in text


def test_terminal_bar_waits_for_its_delay():
    buf = Terminal()
    with progress_bar(False, file=buf, delay=60) as cb:
        cb(0.0025, 7, 20)
    assert buf.getvalue() == ""


def test_log_gets_a_plain_line_every_interval():
    buf, clock = io.StringIO(), FakeClock()
    with progress_bar(False, file=buf, interval=5, clock=clock) as cb:
        for second in range(13):  # the core calls about every 0.2 s; once a second is enough
            clock.now = 100.0 + second
            cb(second * 1e-3, second, 20)
    text = buf.getvalue()
    assert "\r" not in text
    assert text.splitlines() == [
        "simulating: 5/20 flows, sim 5.00 ms, 0:05 elapsed",
        "simulating: 10/20 flows, sim 10.00 ms, 0:10 elapsed",
        "simulating: 12/20 flows, sim 12.00 ms, 0:12 elapsed",  # close() adds the final count
    ]


def test_log_prints_nothing_for_work_shorter_than_the_interval():
    buf, clock = io.StringIO(), FakeClock()
    with progress_bar(False, file=buf, interval=5, clock=clock) as cb:
        clock.now += 4.9
        cb(0.001, 1, 2)
    assert buf.getvalue() == ""


def test_log_with_a_real_clock_and_a_short_interval():
    buf = io.StringIO()
    with progress_bar(False, file=buf, interval=0.001) as cb:
        time.sleep(0.002)
        cb(0.5, 1, 2)
    assert buf.getvalue().startswith("simulating: 1/2 flows, sim 500.00 ms, 0:00 elapsed\n")


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
