"""Reproductions: exact flow-level schedules, the claims tables and verdict rule, the paper
registry, `dcnsim reproduce` output and exit codes."""

from __future__ import annotations

import base64
import json
import re
import subprocess
from fractions import Fraction as F
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import dcnsim
from dcnsim import experiments
from dcnsim.cli import cli
from dcnsim.experiments import claims, fluid, runner
from dcnsim.experiments.merp import example as merp
from conftest import real_core_available


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


# --- fluid schedules, by hand ------------------------------------------------------------------


def test_srpt_on_merp_table1():
    s = fluid.schedule(merp.TABLE1, "srpt")
    # A (3) before C (4); at 3 B (3) beats C's remaining 4; C last.
    assert s.finish == {"A": 3, "B": 6, "C": 10}
    assert s.mean_fct() == F(16, 3) and s.max_expansion_ratio() == F(5, 2)


def test_ps_on_merp_table1_interval_by_interval():
    s = fluid.schedule(merp.TABLE1, "ps")
    # 0-3: A and C at 1/2 (A left 1.5, C 2.5); 3-7.5: three at 1/3 (A done, C left 1, B 1.5);
    # 7.5-9.5: B and C at 1/2 (C done, B left 0.5); 9.5-10: B alone.
    assert [(a, b) for a, b, _ in s.segments] == [(0, 3), (3, F(15, 2)), (F(15, 2), F(19, 2)),
                                                  (F(19, 2), 10)]
    assert s.segments[1][2] == {"A": F(1, 3), "B": F(1, 3), "C": F(1, 3)}
    assert s.finish == {"A": F(15, 2), "C": F(19, 2), "B": 10}
    assert s.mean_fct() == 8
    assert s.expansion_ratio("A") == F(5, 2) and s.expansion_ratio("C") == F(19, 8)


def test_fluid_skips_idle_time_and_refuses_unknown_policies():
    s = fluid.schedule([("x", 0, 1), ("y", 5, 2)], "ps")
    assert s.finish == {"x": 1, "y": 7} and s.fct("y") == 2
    with pytest.raises(ValueError, match="policy"):
        fluid.schedule([("x", 0, 1)], "fifo")


# --- claims and verdicts -----------------------------------------------------------------------


def test_verdict_rule():
    assert claims.verdict(1.2, 1.0, 0.25) == "reproduced"
    assert claims.verdict(1.3, 1.0, 0.25) == "differs"
    assert claims.verdict(0.0, 0.0, 0.0) == "reproduced"
    assert claims.verdict(1.0, 0.0, 0.0) == "differs"
    assert claims.verdict(float("nan"), 1.0, 0.25) == "not measured"


def test_x_values_join_whatever_their_type():
    assert claims.x_key(0.6) == claims.x_key("0.60") == "0.6"
    assert claims.x_key(None) == claims.x_key(float("nan")) == ""
    assert claims.x_key("A") == "A"


def test_compare_gives_ratio_gap_and_verdict():
    ours = pd.DataFrame({"figure": ["f", "f"], "metric": ["m", "m"], "x": [0.2, 0.4],
                         "protocol": ["p", "p"], "value": [2.0, 5.0]})
    paper = pd.DataFrame({"figure": ["f", "f", "f"], "metric": ["m"] * 3, "x": ["0.2", "0.4", "0.8"],
                          "protocol": ["p"] * 3, "value": [2.2, 4.0, 1.0],
                          "tolerance": [0.25] * 3, "source": ["s"] * 3, "note": [""] * 3})
    t = claims.compare(ours, paper, {"m"})
    # 5 against 4 is a gap of exactly 0.25 x 4: the edge still counts as reproduced
    assert list(t["verdict"]) == ["reproduced", "reproduced", "not measured"]
    assert t["ratio"].iloc[0] == pytest.approx(2.0 / 2.2) and t["gap"].iloc[1] == pytest.approx(1.0)


def test_compare_puts_a_measures_own_note_before_the_claims():
    ours = pd.DataFrame({"figure": ["f", "f"], "metric": ["m", "m"], "x": ["a", "b"],
                         "protocol": ["p", "p"], "value": [1.0, 1.0],
                         "note": ["Read at a-16.", None]})
    paper = pd.DataFrame({"figure": ["f", "f"], "metric": ["m", "m"], "x": ["a", "b"],
                          "protocol": ["p", "p"], "value": [1.0, 1.0], "tolerance": [0.25] * 2,
                          "source": ["s"] * 2, "note": ["Why.", "Why."]})
    t = claims.compare(ours, paper, {"m"})
    assert list(t["note"]) == ["Read at a-16. Why.", "Why."]
    assert list(t.columns) == list(claims.compare(ours.drop(columns="note"), paper, {"m"}).columns)


def _one_claim(metric: str) -> pd.DataFrame:
    return pd.DataFrame({"figure": ["f"], "metric": [metric], "x": [""], "protocol": ["p"],
                         "value": [1.0], "tolerance": [0.25], "source": ["s"], "note": [""]})


def test_a_misspelt_metric_fails_loudly_on_either_side():
    ours = pd.DataFrame({"figure": ["f"], "metric": ["fct_mean"], "x": [""], "protocol": ["p"],
                         "value": [1.0]})
    known = {"fct_mean", "fct_max"}
    # a claim naming a metric the figure does not report
    with pytest.raises(claims.UnknownMetric, match=r"f: claims name 'fct_maen'.*"
                                                   r"valid: fct_max, fct_mean"):
        claims.compare(ours, _one_claim("fct_maen"), known)
    # a measure reporting one (the claim, spelt right, would read as not measured)
    with pytest.raises(claims.UnknownMetric, match="the measure reports 'fct_man'"):
        claims.compare(ours.assign(metric="fct_man"), _one_claim("fct_max"), known)
    assert issubclass(claims.UnknownMetric, KeyError)


def test_a_known_metric_the_run_has_no_number_for_is_not_measured():
    ours = pd.DataFrame({"figure": ["f"], "metric": ["fct_mean"], "x": [""], "protocol": ["p"],
                         "value": [1.0]})
    t = claims.compare(ours, _one_claim("fct_max"), {"fct_mean", "fct_max"})
    assert list(t["verdict"]) == ["not measured"]


@pytest.mark.parametrize("name", list(experiments.PAPERS))
def test_every_claim_names_a_metric_its_figure_reports(name):
    """data/metrics/<paper>.csv lists every runnable figure and each claim's metric, so a
    misspelling in data/<paper>.csv fails here, before any run."""
    paper = experiments.get(name)
    known = claims.load_metrics(name)
    assert set(known) == {f.id for f in paper.figures}
    table = claims.load_claims(name)
    for fig in paper.figures:
        claims.check_metrics(fig.id, table[table["figure"] == fig.id]["metric"], known[fig.id],
                             "claims name")


@pytest.mark.parametrize("name", list(experiments.PAPERS))
def test_every_claim_belongs_to_a_figure_and_quotes_its_source(name):
    paper = experiments.get(name)
    table = claims.load_claims(name)
    ids = {f.id for f in paper.figures} | {p.id for p in paper.pending}
    assert set(table["figure"]) <= ids
    assert (table["source"].str.len() > 20).all()
    assert paper.figures or paper.pending, "a paper lists at least what it will reproduce"
    all_ids = [f.id for f in paper.figures] + [p.id for p in paper.pending]
    assert len(all_ids) == len(set(all_ids))


def test_merp_claims_quote_the_seed_numbers():
    table = claims.load_claims("merp")
    srpt_mean = table[(table["metric"] == "mean_fct") & (table["protocol"] == "srpt")].iloc[0]
    assert srpt_mean["value"] == pytest.approx(16 / 3) and "5 1/3" in srpt_mean["source"]


# --- reproduce ---------------------------------------------------------------------------------


@pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")
def test_reproduce_merp_table1_writes_data_png_and_a_self_contained_report(tmp_path):
    rep = runner.reproduce(experiments.get("merp"), tmp_path, figure="table1")
    table = rep.figures[0].comparison
    assert table["verdict"].value_counts().to_dict() == {"reproduced": 14, "differs": 1}
    differs = table[table["verdict"] == "differs"].iloc[0]
    assert (differs["metric"], differs["x"], differs["protocol"], differs["ours"]) == (
        "expansion_ratio", "A", "ps", 2.5)
    data = pd.read_csv(tmp_path / "data.csv")
    # SRPT and PS exact, MERP and pFabric packet by packet: 8 rows each, plus the order
    assert set(data.columns) == {"figure", "metric", "x", "protocol", "value"} and len(data) == 34
    assert (tmp_path / "comparison.csv").is_file()
    html = (tmp_path / "report.html").read_text()
    png = re.search(r"data:image/png;base64,([A-Za-z0-9+/=]+)", html).group(1)
    assert base64.b64decode(png) == (tmp_path / "table1.png").read_bytes()
    assert "14</b> claims reproduced" in html
    # run.json says what ran, when, and the code's commit: the checkout's HEAD, or none when
    # the package does not run from a git checkout (a source tarball).
    run = json.loads((tmp_path / "run.json").read_text())
    assert (run["paper"], run["figures"], run["quick"]) == ("merp", ["table1"], False)
    assert run["started"] <= run["ended"] and run["ended"].endswith("+00:00")
    assert run["dcnsim"] == dcnsim.__version__
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(dcnsim.__file__).parent,
                          capture_output=True, text=True)
    if head.returncode == 0:
        assert run["commit"] == head.stdout.strip()
        assert isinstance(run["uncommitted_changes"], bool)
        assert f"commit {run['commit'][:12]}" in html
    else:
        assert run["commit"] is None and run["uncommitted_changes"] is None


def test_cli_reproduce_list_and_exit_codes(tmp_path, monkeypatch):
    r = invoke("reproduce", "--list")
    assert r.exit_code == 0
    for name in ("merp", "pace", "tr", "mcp", "pdq", "core"):
        assert re.search(rf"^{name}  ", r.stdout, re.M), name
    assert "table1 " in r.stdout
    # A paper none of whose figures runs yet is refused with exit code 1 and nothing written.
    later = experiments.Paper(name="later", citation="-",
                              pending=(experiments.Pending("fig1", "a figure", "a protocol"),))
    monkeypatch.setitem(experiments.PAPERS, "later", later)
    r = invoke("reproduce", "later", "--out", tmp_path / "p")
    assert r.exit_code == 1 and "later: not yet implemented" in r.stderr
    assert not (tmp_path / "p").exists()
    r = invoke("reproduce", "nope")
    assert r.exit_code == 2 and "unknown paper 'nope'" in r.stderr
    # A pending figure of a paper that runs others is refused as bad input (exit code 2).
    partly = experiments.Paper(name="partly", citation="-",
                               figures=experiments.get("core").figures,
                               pending=(experiments.Pending("fig9", "a figure", "a protocol"),))
    monkeypatch.setitem(experiments.PAPERS, "partly", partly)
    r = invoke("reproduce", "partly", "--figure", "fig9")
    assert r.exit_code == 2 and "'fig9' is not yet implemented" in r.stderr
    r = invoke("reproduce", "partly", "--figure", "fig99")
    assert r.exit_code == 2 and "'fig99' is not a figure of it" in r.stderr


@pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")
def test_cli_reproduce_one_figure(tmp_path):
    r = invoke("reproduce", "merp", "--figure", "table1", "--out", tmp_path / "m", "-q")
    assert r.exit_code == 0 and "table1: 14 reproduced, 1 differs, 0 not measured" in r.stdout


@pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")
def test_reproduce_core_quick_dctcp_keeps_the_queue_near_k(tmp_path):
    r = invoke("reproduce", "core", "--quick", "--out", tmp_path, "-q", "-j", "2")
    assert r.exit_code == 0, r.output
    table = pd.read_csv(tmp_path / "comparison.csv")
    assert (table["verdict"] == "reproduced").all(), table[["metric", "protocol", "ours"]]
    data = pd.read_csv(tmp_path / "data.csv")
    tcp_drops = data[(data["protocol"] == "tcp") & (data["metric"] == "drops")]["value"].iloc[0]
    assert tcp_drops > 0
    assert (tmp_path / "dctcp-queue" / "protocol-tcp" / "series.csv").is_file()


@pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")
def test_figures_sharing_a_sweep_run_it_once_and_both_read_it(tmp_path, monkeypatch):
    from dcnsim.experiments.figure import Figure, Paper, SweepDef, rows

    tiny = {"name": "tiny", "seed": 1, "topology": {"kind": "star", "hosts": 4},
            "transport": {"protocol": "dctcp"},
            "workload": {"kind": "poisson", "sizes": "websearch", "load": 0.3, "flows": 5}}
    sweep = SweepDef(base=tiny, grid={"seed": [1, 2]}, shared="common")

    def measure(runs):
        flows = sum(len(runs.results(p).flows) for p in runs.ok()["point"])
        return pd.DataFrame(rows("flows", "dctcp", {"": flows}))

    figs = tuple(Figure(id=i, title=i, shows=i, sweep=sweep, measure=measure,
                        plot=lambda ours, paper, runs, path: path.write_bytes(b""))
                 for i in ("figa", "figb"))
    ran = []
    real = runner.run_sweep

    def counting(*args, **kwargs):
        outcome = real(*args, **kwargs)
        ran.append((len(outcome.ran), kwargs["force"]))
        return outcome

    monkeypatch.setattr(runner, "run_sweep", counting)
    rep = runner.reproduce(Paper(name="nopaper", citation="x", figures=figs), tmp_path,
                           workers=1)
    assert ran == [(2, False), (0, False)]
    assert [f.ours["value"].iloc[0] for f in rep.figures] == [10, 10]
    assert sorted(p.name for p in (tmp_path / "common").iterdir() if p.is_dir()) == \
        ["seed-1", "seed-2"]
    summary = pd.read_csv(tmp_path / "figb" / "summaries.csv")
    assert list(summary["point"]) == ["../common/seed-1", "../common/seed-2"]
    # --force reruns a shared sweep once, not once per figure
    ran.clear()
    runner.reproduce(Paper(name="nopaper", citation="x", figures=figs), tmp_path, workers=1,
                     force=True)
    assert ran == [(2, True), (0, False)]


def test_a_full_reproduction_leaves_out_long_figures_unless_asked(tmp_path):
    from dcnsim.experiments.figure import Figure, Paper, rows

    def measure(runs):
        return pd.DataFrame(rows("value", "x", {"": 1}))

    def fig(i, long):
        return Figure(id=i, title=i, shows=i, measure=measure, long=long,
                      plot=lambda ours, paper, runs, path: path.write_bytes(b""))

    paper = Paper(name="nopaper", citation="x", figures=(fig("short", False), fig("hours", True)))
    said = []
    ids = lambda rep: [f.figure.id for f in rep.figures]  # noqa: E731
    assert ids(runner.reproduce(paper, tmp_path / "a", log=said.append)) == ["short"]
    assert any("hours" in line and "--all" in line for line in said)
    assert ids(runner.reproduce(paper, tmp_path / "b", include_long=True)) == ["short", "hours"]
    assert ids(runner.reproduce(paper, tmp_path / "c", quick=True)) == ["short", "hours"]
    assert ids(runner.reproduce(paper, tmp_path / "d", figure="hours")) == ["hours"]


def test_the_report_says_why_a_claim_is_not_measured(tmp_path):
    """A quick run's unmeasured claims are points it did not run, not missing protocols."""
    from dcnsim import report
    from dcnsim.experiments.figure import Figure, Paper, rows

    def measure(runs):
        return pd.DataFrame(rows("value", "x", {"": 1}))

    fig = Figure(id="f", title="f", shows="f", measure=measure,
                 plot=lambda ours, paper, runs, path: path.write_bytes(b""))
    paper = Paper(name="nopaper", citation="x", figures=(fig,))
    for quick, said in ((True, "quick mode did not run its point"),
                        (False, "our figure does not produce it")):
        rep = runner.reproduce(paper, tmp_path / str(quick), quick=quick)
        text = report.write_html(rep, tmp_path / f"{quick}.html").read_text()
        assert said in text
        assert "not implemented" not in text
