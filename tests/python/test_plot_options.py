"""The slowdown-by-class plot at one grid point of a sweep, and `dcnsim plot`'s options
(--load, --point, --from/--to, --ports): what each changes in the drawn figures (read from the
figures' data, not their pixels) and how a bad value is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from matplotlib.figure import Figure

import dcnsim
from dcnsim.cli import cli
from dcnsim.plots import size_class
from conftest import STAR, real_core_available

pytestmark = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Path:
    """A 2 × 2 sweep (protocol × load) of a tiny star, 12 flows a point."""
    d = tmp_path_factory.mktemp("sweep")
    (d / "star.toml").write_text(STAR.replace("flows = 30", "flows = 12"))
    (d / "sweep.toml").write_text('scenario = "star.toml"\n[grid]\n'
                                  'transport.protocol = ["tcp", "dctcp"]\n'
                                  "workload.load = [0.2, 0.5]\n")
    dcnsim.sweep(d / "sweep.toml", d / "out", workers=1)
    return d / "out"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """One run of the tiny star with time series every 100 µs."""
    d = tmp_path_factory.mktemp("run")
    (d / "star.toml").write_text(STAR)
    dcnsim.run(d / "star.toml", out=d / "run", overrides={"output.series_interval_us": 100})
    return d / "run"


@pytest.fixture
def drawn(monkeypatch) -> dict[str, Figure]:
    """The figures saved while the test runs, by file name (the last one of each name)."""
    figures: dict[str, Figure] = {}
    real = Figure.savefig

    def spy(fig, path, *args, **kwargs):
        figures[Path(path).name] = fig
        return real(fig, path, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    return figures


def plot(*args):
    return CliRunner().invoke(cli, ["plot", *map(str, args)])


def lines_of(fig: Figure) -> dict[str, list[float]]:
    """``{label: x data}`` of the first axes' labelled lines."""
    return {ln.get_label(): list(ln.get_xdata()) for ln in fig.axes[0].get_lines()
            if not ln.get_label().startswith("_")}


def bar_groups(fig: Figure) -> list[str]:
    """The labels of the bar groups, from the legend's "<label> 99th pct" entries."""
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    return [t.removesuffix(" 99th pct") for t in texts if t.endswith(" 99th pct")]


def bar_counts(fig: Figure) -> list[int]:
    """The flow counts written above the bars."""
    return [int(t.get_text()) for t in fig.axes[0].texts]


# --- slowdown by size class at one grid point ---------------------------------------------------


def finished_by_class(swept: Path, protocol: str, load: float) -> list[int]:
    """Finished flows per size class (non-empty classes, in order) at one point."""
    flows = dcnsim.Results.sweep_flows(swept)
    at = flows[(flows["transport.protocol"] == protocol) & (flows["workload.load"] == load)]
    done = at[at["slowdown"].notna()]
    classes = size_class(done["size_bytes"])
    return [int((classes == c).sum()) for c in sorted(set(classes))]


@pytest.mark.parametrize("load", [0.2, 0.5])
def test_load_chooses_the_point_of_the_slowdown_plot(swept, drawn, load):
    r = plot(swept, "--load", load)
    assert r.exit_code == 0, r.output
    fig = drawn["slowdown_by_size.png"]
    assert f"load {load}" in fig.axes[0].get_title()
    assert bar_groups(fig) == ["tcp", "dctcp"]
    # Bars are drawn per protocol in turn; their counts are that point's finished flows.
    expected = finished_by_class(swept, "tcp", load) + finished_by_class(swept, "dctcp", load)
    assert bar_counts(fig) == expected
    assert f"load {load}" in drawn["fct_cdf.png"].axes[0].get_title()


def test_point_chooses_by_any_grid_key_and_pools_the_rest(swept, drawn):
    r = plot(swept, "--point", "protocol=dctcp")
    assert r.exit_code == 0, r.output
    fig = drawn["slowdown_by_size.png"]
    # The protocol is fixed, so the bars compare the loads, one group per load.
    assert bar_groups(fig) == ["0.2", "0.5"]
    expected = finished_by_class(swept, "dctcp", 0.2) + finished_by_class(swept, "dctcp", 0.5)
    assert bar_counts(fig) == expected


def test_without_a_choice_the_sweep_plots_the_highest_load(swept, drawn):
    assert plot(swept).exit_code == 0
    assert "load 0.5" in drawn["slowdown_by_size.png"].axes[0].get_title()


@pytest.mark.parametrize("args, message", [
    (["--load", "0.4"], "--load: no finished point has workload.load = 0.4; valid values: 0.2, 0.5"),
    (["--point", "protocol=reno"], "--point: no finished point has transport.protocol = reno; "
                                   "valid values: dctcp, tcp"),
    (["--point", "size=3"], "--point: 'size' is not a grid key; the sweep's grid keys are "
                            "transport.protocol, workload.load"),
    (["--point", "load"], "--point: 'load' must look like KEY=VALUE"),
    (["--load", "0.2", "--point", "load=0.2"], "--load: workload.load is also given by --point"),
    (["--from", "0.001"], "--from/--to: applies to a run folder"),
    (["--ports", "1"], "--ports: applies to a run folder"),
])
def test_bad_sweep_options_are_refused_naming_the_option(swept, args, message):
    r = plot(swept, *args)
    assert r.exit_code == 2 and message in r.stderr, r.output


# --- a run's time window and ports ---------------------------------------------------------------


def test_from_and_to_bound_every_time_series_plot(run_dir, drawn):
    assert plot(run_dir).exit_code == 0
    full = {name: lines_of(drawn[name]) for name in ("goodput.png", "queue.png", "link_util.png")}
    # A window in which some queue is not empty, so that every plot has lines in it.
    series = dcnsim.Results.load(run_dir).series
    queued = series[(series["kind"] == "queue_bytes") & (series["value"] > 0)]["time_s"]
    start, end = queued.min(), queued.median()
    r = plot(run_dir, "--from", start, "--to", end)
    assert r.exit_code == 0, r.output
    for name, before in full.items():
        xs = [x for line in lines_of(drawn[name]).values() for x in line]
        assert xs and min(xs) >= start * 1e3 and max(xs) <= end * 1e3, name
        assert any(x < start * 1e3 or x > end * 1e3 for line in before.values() for x in line)


def test_ports_choose_the_port_plots_lines(run_dir, drawn):
    ports = {int(p.split(",")[0]): p.split(",")[1:3]
             for p in (run_dir / "ports.csv").read_text().splitlines()[1:]}
    chosen = [i for i, (node, _) in ports.items() if node != "sw"][:2]
    r = plot(run_dir, "--ports", ",".join(map(str, chosen)))
    assert r.exit_code == 0, r.output
    assert set(lines_of(drawn["link_util.png"])) == {"→".join(ports[i]) for i in chosen}
    # A node name: every port out of it.
    assert plot(run_dir, "--ports", "sw").exit_code == 0
    out_of_switch = {"→".join(p) for p in ports.values() if p[0] == "sw"}
    assert set(lines_of(drawn["link_util.png"])) == out_of_switch
    assert set(lines_of(drawn["queue.png"])) <= out_of_switch


@pytest.mark.parametrize("args, message", [
    (["--ports", "99"], "--ports: '99' is no port; port ids are 0–7"),
    (["--ports", "spine9"], "--ports: 'spine9' is no port; port ids are 0–7 (ports.csv's port) "
                            "or a node name: h0, sw"),
    (["--from", "5"], "--from/--to: no sample after 5 s; the series run from"),
    (["--from", "0.003", "--to", "0.001"], "--to: must be later than --from (0.003 s)"),
    (["--from", "-1"], "--from: must be a time ≥ 0"),
    (["--load", "0.5"], "--load: applies to a sweep folder"),
    (["--point", "seed=1"], "--point: applies to a sweep folder"),
])
def test_bad_run_options_are_refused_naming_the_option(run_dir, args, message):
    r = plot(run_dir, *args)
    assert r.exit_code == 2 and message in r.stderr, r.output


def test_time_options_need_a_run_with_series(swept):
    point = next(p for p in swept.iterdir() if (p / "point.json").is_file())
    r = plot(point, "--to", "0.01")
    assert r.exit_code == 2 and "--from/--to: applies to time series" in r.stderr


def test_plot_help_documents_every_option():
    text = CliRunner().invoke(cli, ["plot", "--help"]).output
    for option in ("--load", "--point", "--from", "--to", "--ports"):
        assert option in text
