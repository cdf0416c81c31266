"""`dcnsim reproduce tr`: the bad paths, the per-run measures on hand-made flows and ports,
each figure's measure on hand-made runs, and the quick figures end to end."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dcnsim import experiments
from dcnsim.experiments import claims, runner
from dcnsim.experiments.figure import Runs
from dcnsim.experiments.tr import microbench as micro
from dcnsim.experiments.tr import motivation as mot
from conftest import real_core_available

needs_core = pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")


# --- set-up ------------------------------------------------------------------------------------


def test_bad_paths_make_the_stated_rtt_ratio():
    for ratio in mot.RATIOS:
        over = mot.bad_paths(ratio)
        assert len(over) == 10  # five spines, both leaves
        d = over[0]["delay_us"]
        # a round trip crosses host–leaf, leaf–spine, spine–leaf, leaf–host each way
        good, bad = 2 * 4 * mot.LINK_DELAY_US, 2 * (2 * mot.LINK_DELAY_US + 2 * d)
        assert bad / good == pytest.approx(ratio)
        assert mot.ratio_of(over) == pytest.approx(ratio)
    assert mot.bad_link_delay_us(1.5) == 50 and mot.bad_link_delay_us(3.5) == 150
    assert {o["between"][1] for o in mot.bad_paths(2)} == {f"spine{s}" for s in mot.BAD_SPINES}


def test_scheme_labels_round_trip():
    for name, table in mot.SCHEMES.items():
        assert mot.label(table) == name
    with pytest.raises(KeyError):
        mot.label({"lb": "conga"})


def test_every_figure_runs_and_the_small_ones_share_one_sweep():
    paper = experiments.get("tr")
    assert [f.id for f in paper.figures] == ["fig2", "fig3", "fig6", "fig7", "fig8", "fig9",
                                             "fig10", "fig11", "fig12", "fig9-12"]
    assert not paper.pending
    small = {f.id: f.sweep for f in paper.figures if f.id in ("fig2", "fig3", "fig7", "fig8")}
    assert all(sd is mot.SWEEP for sd in small.values()) and mot.SWEEP.shared == "small"
    assert [r["lb"] for r in mot.SWEEP.grid["routing"]] == list(mot.SCHEMES)
    # the headline reads the four workloads' runs, in the folders their own figures use
    heads = paper.figure("fig9-12").sweeps()
    assert [sd.shared for sd in heads] == [paper.figure(f).sweep.shared
                                          for f in ("fig9", "fig10", "fig11", "fig12")]


# --- one run -----------------------------------------------------------------------------------


def _flows(rows: list[tuple]) -> pd.DataFrame:
    cols = ["size_bytes", "start_s", "finish_s", "fct_s", "bytes_delivered", "data_packets",
            "spurious_retransmits", "queue_delay_mean_s"]
    return pd.DataFrame(rows, columns=cols)


def _ports(uplink_bytes: list[int]) -> pd.DataFrame:
    rows = [{"node": "leaf0", "peer": f"spine{i}", "tx_bytes": b}
            for i, b in enumerate(uplink_bytes)]
    # ports that are not leaf0's uplinks must not count
    rows += [{"node": "h0", "peer": "leaf0", "tx_bytes": 10**9},
             {"node": "spine0", "peer": "leaf1", "tx_bytes": 10**9}]
    return pd.DataFrame(rows)


def test_run_metrics_split_short_and_long_and_weigh_by_packets():
    flows = _flows([
        # short: 10 packets waiting 10 µs each, 30 packets waiting 50 µs, 2 spurious
        (1_000, 0.0, 0.001, 0.001, 1_000, 10, 0, 10e-6),
        (99_999, 0.0, 0.003, 0.003, 99_999, 30, 2, 50e-6),
        # long: 1 Gb/s for 1 s, and an unfinished one at 0.5 Gb/s until the end (2 s)
        (125_000_000, 0.0, 1.0, 1.0, 125_000_000, 1000, 10, 0.0),
        (100_000, 1.0, np.nan, np.nan, 62_500_000, 1000, 30, 0.0),
    ])
    m = mot.run_metrics(flows, _ports([250_000_000] * 5 + [0] * 5), end_s=2.0)
    assert m["short_qdelay_us"] == pytest.approx((10 * 10 + 30 * 50) / 40)
    assert m["short_retx_ratio"] == pytest.approx(2 / 40)
    assert m["short_afct_ms"] == pytest.approx(2.0)
    assert m["long_retx_ratio"] == pytest.approx(40 / 2000)
    assert m["long_tput_gbps"] == pytest.approx(1.5)
    assert m["long_utilization"] == pytest.approx(0.75)
    # 1.5e8 bytes from the first long start (0) to the end (2 s)
    assert m["long_goodput_gbps"] == pytest.approx(0.75)
    # five uplinks at 1 Gb/s over 2 s, five idle: s.d. 500 Mb/s
    assert m["path_tput_sd_mbps"] == pytest.approx(500)


# --- measures on hand-made runs ----------------------------------------------------------------


def _runs(table: dict[tuple[str, float, int], dict]) -> Runs:
    """Runs whose every point is one hand-made run: (scheme, ratio, seed) -> its metrics,
    turned into one short and one long flow that give them back, and the uplinks."""
    summaries, results, ports = [], {}, {}
    for i, ((scheme, ratio, seed), m) in enumerate(table.items()):
        point = f"p{i}"
        summaries.append({"point": point, "status": "ok", "routing": mot.SCHEMES[scheme],
                          "topology.link_overrides": mot.bad_paths(ratio), "seed": seed,
                          "packets.dropped": m.get("drops", 0), "run.sim_time_s": 1.0})
        results[point] = SimpleNamespace(flows=_flows([
            (10_000, 0.0, m["afct"] / 1e3, m["afct"] / 1e3, 10_000, 1000,
             round(1000 * m["retx"]), m["qd"] / 1e6),
            (1_000_000, 0.0, 8e-3 / m["tput"], 8e-3 / m["tput"], 1_000_000, 1000,
             round(1000 * m["retx"]), 0.0),
        ]))
        ports[point] = _ports([m["sd"] * 1e6 / 8 * 2] + [0] * 9)  # s.d. ∝ the first uplink
    runs = Runs(".", pd.DataFrame(summaries))
    runs.results = lambda p: results[p]
    runs.ports = lambda p: ports[p]
    return runs


def _paper_like(scheme: str, ratio: float) -> dict:
    """A table where every ordering the paper states holds."""
    return {
        "ecmp": {"qd": 20, "retx": 0.0, "afct": 1.0, "sd": 300, "tput": 0.6},
        "letflow": {"qd": 15, "retx": 0.0, "afct": 0.9, "sd": 200, "tput": 0.8},
        "rps": {"qd": 2, "retx": 0.01 * ratio, "afct": 1.0 + ratio, "sd": 10,
                "tput": 0.5 / ratio},
        "drb": {"qd": 1, "retx": 0.5, "afct": 9.0, "sd": 1, "tput": 0.1},
    }[scheme]


def test_fig2_and_fig3_measures_find_the_papers_orderings():
    table = {(s, r, seed): _paper_like(s, r) for s in ("ecmp", "letflow", "rps", "drb")
             for r in mot.RATIOS for seed in (1, 2)}
    table[("rps", 3.5, 2)]["drops"] = 7
    runs = _runs(table)
    fig2 = mot.measure_fig2(runs).set_index(["metric", "x", "protocol"])["value"]
    for metric in ("short_qdelay_rps_lowest", "short_retx_rps_highest",
                   "short_afct_rps_highest", "short_afct_gap_widens"):
        assert fig2[(metric, "", "rps")] == 1.0, metric
    assert fig2[("short_qdelay_us", 2.0, "ecmp")] == pytest.approx(20)
    assert fig2[("short_afct_ms", 3.5, "rps")] == pytest.approx(4.5)
    assert fig2[("short_afct_gap_ms", 1.5, "rps")] == pytest.approx(2.5 - 0.9)
    assert fig2[("packets_dropped", "", "rps")] == 7 and fig2[("packets_dropped", "", "ecmp")] == 0
    fig3 = mot.measure_fig3(runs).set_index(["metric", "x", "protocol"])["value"]
    for metric, scheme in [("path_sd_rps_lowest", "rps"), ("path_sd_letflow_between", "letflow"),
                           ("long_retx_rps_highest", "rps"),
                           ("long_tput_letflow_highest", "letflow"),
                           ("long_tput_rps_falls", "rps")]:
        assert fig3[(metric, "", scheme)] == 1.0, metric
    # one long flow per run: its throughput over 1 Gb/s is the utilisation
    assert fig3[("path_utilization", 3.5, "rps")] == pytest.approx(0.5 / 3.5)
    assert fig3[("long_tput_gbps", 1.5, "letflow")] == pytest.approx(0.8)
    assert fig3[("path_tput_sd_mbps", 1.5, "ecmp")] == pytest.approx(300 * 2 * 0.3)


def test_orderings_count_the_ratios_where_they_hold():
    table = {(s, r, 1): _paper_like(s, r) for s in ("ecmp", "letflow", "rps")
             for r in mot.RATIOS}
    # RPS's queueing delay is the highest at one ratio and between the others' at another
    # (not the lowest at either); its throughput rises at one step
    table[("rps", 2.0, 1)]["qd"] = 50
    table[("rps", 3.0, 1)]["qd"] = 17
    table[("rps", 3.0, 1)]["tput"] = 0.9
    # seeds are averaged before comparing: a second seed that lifts LetFlow's s.d. above
    # ECMP's at 1.5 breaks "between" there
    table[("letflow", 1.5, 2)] = {**_paper_like("letflow", 1.5), "sd": 600}
    for s in ("ecmp", "rps"):
        table[(s, 1.5, 2)] = _paper_like(s, 1.5)
    fig2 = mot.measure_fig2(_runs(table)).set_index(["metric", "protocol"])["value"]
    assert fig2[("short_qdelay_rps_lowest", "rps")] == pytest.approx(3 / 5)
    fig3 = mot.measure_fig3(_runs(table)).set_index(["metric", "protocol"])["value"]
    # steps 1.5→2, 2→2.5 fall, 2.5→3 rises, 3→3.5 falls
    assert fig3[("long_tput_rps_falls", "rps")] == pytest.approx(3 / 4)
    assert fig3[("path_sd_letflow_between", "letflow")] == pytest.approx(4 / 5)


def _micro_like(scheme: str, ratio: float) -> dict:
    """A table where every ordering the paper states of Figs. 7–8 holds."""
    return {
        "ecmp": {"qd": 20, "retx": 0.0, "afct": 1.0, "sd": 300, "tput": 0.6},
        "letflow": {"qd": 15, "retx": 0.0, "afct": 0.9, "sd": 200, "tput": 0.8},
        "presto": {"qd": 12, "retx": 0.0, "afct": 0.95, "sd": 100, "tput": 0.85},
        "tr": {"qd": 3, "retx": 0.0, "afct": 0.5, "sd": 50, "tput": 0.95},
        "rps": {"qd": 2, "retx": 0.01 * ratio, "afct": 1.0 + ratio, "sd": 10,
                "tput": 0.5 / ratio},
        "drb": {"qd": 1, "retx": 0.005 * ratio, "afct": 0.5 + ratio, "sd": 1,
                "tput": 0.4 / ratio},
    }[scheme]


def test_fig7_and_fig8_measures_find_the_papers_orderings():
    runs = _runs({(s, r, 1): _micro_like(s, r) for s in mot.SCHEMES for r in mot.RATIOS})
    fig7 = micro.measure_fig7(runs).set_index(["metric", "x", "protocol"])["value"]
    for metric, scheme in [("short_qdelay_fine_lower", "tr"), ("short_retx_rps_drb_highest", "rps"),
                           ("short_retx_rises", "rps"), ("short_retx_rises", "drb"),
                           ("short_afct_rps_highest", "rps"), ("short_afct_tr_lowest", "tr"),
                           ("short_p99_tr_lowest", "tr")]:
        assert fig7[(metric, "", scheme)] == 1.0, metric
    assert fig7[("short_retx_max", "", "tr")] == 0
    # one short flow per run: its FCT is the run's mean and its 99th percentile
    assert fig7[("short_p99_ms", 2.0, "drb")] == pytest.approx(2.5)
    fig8 = micro.measure_fig8(runs).set_index(["metric", "x", "protocol"])["value"]
    for metric, scheme in [("path_sd_rps_drb_lowest", "rps"), ("long_tput_falls", "rps"),
                           ("long_tput_falls", "drb"), ("long_tput_tr_above_presto", "tr"),
                           ("long_tput_tr_highest", "tr"),
                           ("long_tput_tr_last_over_first", "tr")]:
        assert fig8[(metric, "", scheme)] == 1.0, metric
    for s in ("ecmp", "letflow", "presto", "tr"):
        assert fig8[("long_retx_max", "", s)] == 0
    # TR not the highest at 3.5 (Presto above it there) and no longer flat
    table = {(s, r, 1): _micro_like(s, r) for s in mot.SCHEMES for r in mot.RATIOS}
    table[("tr", 3.5, 1)]["tput"] = 0.7
    fig8 = micro.measure_fig8(_runs(table)).set_index(["metric", "protocol"])["value"]
    assert fig8[("long_tput_tr_highest", "tr")] == pytest.approx(4 / 5)
    assert fig8[("long_tput_tr_last_over_first", "tr")] == pytest.approx(0.7 / 0.95)


def test_figs_2_and_3_leave_tr_out():
    runs = _runs({(s, r, 1): _micro_like(s, r) for s in mot.SCHEMES for r in mot.RATIOS})
    assert "tr" not in set(mot.measure_fig2(runs)["protocol"])
    assert "tr" not in set(mot.measure_fig3(runs)["protocol"])


def test_tr_claims_name_metrics_the_measures_produce():
    table = claims.load_claims("tr")
    table = table[table["figure"].isin(["fig2", "fig3"])]
    runs = _runs({(s, r, 1): _paper_like(s, r) for s in ("ecmp", "letflow", "rps")
                  for r in mot.RATIOS})
    ours = pd.concat([mot.measure_fig2(runs).assign(figure="fig2"),
                      mot.measure_fig3(runs).assign(figure="fig3")])
    known = claims.load_metrics("tr")
    compared = claims.compare(ours, table, known["fig2"] | known["fig3"])
    assert (compared["verdict"] == "reproduced").all(), compared[["metric", "ours"]]
    table = claims.load_claims("tr")
    table78 = table[table["figure"].isin(["fig7", "fig8"])]
    runs = _runs({(s, r, 1): _micro_like(s, r) for s in mot.SCHEMES for r in mot.RATIOS})
    ours = pd.concat([micro.measure_fig7(runs).assign(figure="fig7"),
                      micro.measure_fig8(runs).assign(figure="fig8")])
    compared = claims.compare(ours, table78, known["fig7"] | known["fig8"])
    assert (compared["verdict"] == "reproduced").all(), compared[["metric", "ours"]]
    # every claim of the other figures names a metric their measures produce (checked on the
    # quick runs below); here: each names a figure of the paper
    assert set(table["figure"]) == {f.id for f in experiments.get("tr").figures}
    util = table[table["metric"] == "path_utilization"].iloc[0]
    assert util["value"] == 0.12 and "about 0.12" in util["source"]


# --- quick runs, end to end --------------------------------------------------------------------


def _quick(tmp_path, *ids):
    paper = experiments.get("tr")
    sub = type(paper)(name=paper.name, citation=paper.citation,
                      figures=tuple(paper.figure(i) for i in ids))
    return runner.reproduce(sub, tmp_path, quick=True, workers=2)


@needs_core
def test_quick_fig2_and_fig3_end_to_end(tmp_path):
    rep = _quick(tmp_path, "fig2", "fig3", "fig7", "fig8")
    assert [f.figure.id for f in rep.figures] == ["fig2", "fig3", "fig7", "fig8"]
    assert rep.failed_points == 0 and all(f.points == 12 for f in rep.figures)
    fig2 = rep.figures[0].ours.set_index(["metric", "x", "protocol"])["value"]
    fig3 = rep.figures[1].ours.set_index(["metric", "x", "protocol"])["value"]
    for x in mot.QUICK_RATIOS:
        # ECMP and LetFlow (gap 500 µs > any path skew here) never reorder; RPS does
        for scheme in ("ecmp", "letflow"):
            assert fig3[("long_retx_ratio", x, scheme)] == 0
            assert fig2[("short_retx_ratio", x, scheme)] == 0
        assert fig3[("long_retx_ratio", x, "rps")] > 0
        # per-packet spraying spreads bytes far more evenly than per-flow hashing
        assert fig3[("path_tput_sd_mbps", x, "rps")] < fig3[("path_tput_sd_mbps", x, "ecmp")]
        assert 0 < fig3[("path_utilization", x, "ecmp")] <= 1
    for name in ("fig2.png", "fig3.png", "report.html"):
        assert (tmp_path / name).stat().st_size > 10_000
    comparison = pd.read_csv(tmp_path / "comparison.csv")
    table = claims.load_claims("tr")
    assert len(comparison) == table["figure"].isin(["fig2", "fig3", "fig7", "fig8"]).sum()
    assert comparison["verdict"].isin(["reproduced", "differs"]).all()
    fig7 = rep.figures[2].ours.set_index(["metric", "x", "protocol"])["value"]
    fig8 = rep.figures[3].ours.set_index(["metric", "x", "protocol"])["value"]
    for x in mot.QUICK_RATIOS:
        # TR: no reordering on the two-leaf layout, where its prediction is exact
        assert fig7[("short_retx_ratio", x, "tr")] == 0
        assert fig8[("long_retx_ratio", x, "tr")] == 0
    assert fig7[("short_retx_max", "", "tr")] == 0


@needs_core
def test_quick_model_check_and_one_large_workload(tmp_path):
    rep = _quick(tmp_path, "fig6", "fig12")
    assert rep.failed_points == 0
    assert [f.points for f in rep.figures] == [8, 14]
    fig6 = rep.figures[0].ours.set_index(["metric", "x", "protocol"])["value"]
    # the model's values in the table are eqs. (7) and (8) themselves
    from dcnsim.experiments.tr import model, modelcheck
    s = model.packets(350_000)
    assert fig6[("model_ms_size", 350, "tr")] == pytest.approx(
        model.fct_tr(s, 20, modelcheck.PARAMS) * 1e3)
    assert fig6[("tr_below_rps_size", "", "tr")] == 1
    fig12 = rep.figures[1].ours.set_index(["metric", "x", "protocol"])["value"]
    for n in (10_000, 50_000):
        assert fig12[("short_afct_us_over_ecmp", n, "ecmp")] == 1
    comparison = pd.read_csv(tmp_path / "comparison.csv")
    assert set(comparison["figure"]) == {"fig6", "fig12"}
    assert comparison["verdict"].isin(["reproduced", "differs"]).all()
