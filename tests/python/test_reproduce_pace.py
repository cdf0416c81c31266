"""`dcnsim reproduce pace`: the flow schedules and hand computations behind the figures, the
claims file, and the quick reproduction end to end — in which no PACE data packet may be
dropped anywhere, in any scenario."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dcnsim import experiments
from dcnsim.experiments import claims, runner
from dcnsim.experiments.pace import common, composite, fairness
from conftest import real_core_available

needs_core = pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")


# --- schedules and hand computations -------------------------------------------------------------


def test_sequential_schedule_and_fair_sizes_by_hand():
    # Two flows 1 s apart: flow 0 runs [0, 3], flow 1 [1, 2]. At 8 B/s: flow 0 alone for 1 s
    # (8 B), shares for 1 s (4 B), alone for 1 s (8 B); flow 1 gets 4 B.
    assert common.sequential_schedule(2, 1.0) == [(0.0, 3.0), (1.0, 2.0)]
    assert common.fair_sizes(common.sequential_schedule(2, 1.0), rate_bps=64) == [20, 4]
    # Ten flows: the last one started lives one spacing, among ten.
    sizes = common.fair_sizes(common.sequential_schedule(10, 0.005))
    assert sizes[9] == round(common.PAYLOAD_BPS / 8 * 0.005 / 10)
    assert sum(sizes) == pytest.approx(common.PAYLOAD_BPS / 8 * 0.095, abs=10)


def test_scenario1_senders_round_robin_over_groups():
    f = common.scenario1_flows(10, 0.005, "abcd")
    assert list(f["src"]) == [0, 16, 32, 48, 1, 17, 33, 49, 2, 18]
    assert list(f["dst"]) == list(range(64, 74))
    assert list(common.scenario1_flows(20, 0.005, "a")["src"]) == list(range(16)) + [0, 1, 2, 3]


def test_max_min_of_scenario_2_by_hand():
    c = 1000.0
    caps = {"F3F4": c, "F4F5": c}
    # phase 3: 4 S1 (F3–F4, F4–F5), 1 S2 (F4–F5), 6 S3 (F3–F4)
    rates = common.max_min([("F3F4", "F4F5")] * 4 + [("F4F5",)] + [("F3F4",)] * 6, caps)
    assert rates == pytest.approx([100] * 4 + [600] + [100] * 6)
    # phase 4: 6 more S2
    rates = common.max_min([("F3F4", "F4F5")] * 4 + [("F4F5",)] * 7 + [("F3F4",)] * 6, caps)
    assert rates[:11] == pytest.approx([c / 11] * 11)
    assert rates[11:] == pytest.approx([(c - 4 * c / 11) / 6] * 6)
    # weighted: Fig. 8 after 3 ms, S1 (w 2), S2 (w 1), S3 (w 4)
    rates = common.max_min([("F3F4", "F4F5"), ("F4F5",), ("F3F4",)], caps, [2, 1, 4])
    assert rates == pytest.approx([c / 3, 2 * c / 3, 2 * c / 3])
    assert composite.expected("4", 1.0)["S3"] == pytest.approx((1e9 - 4e9 / 11) / 6)


def test_table1_buffers_are_two_periods_at_the_period_pace_reaches():
    # 64 flows: 2·1514·8·64 bit / 1 Gb/s = 1.550 ms → 1.56 ms; 2·p·R = 390 KB.
    assert fairness.table1_buffer_kb(64) == 390
    # 250 flows would need 6.06 ms: capped at 5.1 ms (the period's byte): 1275 KB.
    assert fairness.table1_buffer_kb(250) == 1275
    assert fairness.table1_buffer_kb(4) == 50  # never below the initial 200 µs


def test_hand_timeline_of_the_controllability_run():
    t = composite.hand_timeline()
    c = 1e9 * 1460 / 1514 / 8 / 1e3  # bytes per ms
    # S1 alone 1.5 ms, 2/3 until 3 ms, then 1/3: 500 KB done at 3 + (500 KB − 2.5·c)/(c/3)
    assert t["S1"] == pytest.approx(3 + (500_000 - 2.5 * c) / (c / 3))
    assert t["S1"] < t["S2"] < t["S3"]


def test_jain_and_active_flows():
    assert common.jain(np.array([1.0, 1.0, 1.0])) == 1.0
    assert common.jain(np.array([1.0, 0.0])) == 0.5
    flows = pd.DataFrame({"flow_id": [0, 1], "start_s": [0.0, 0.0015], "finish_s": [0.004, np.nan]})
    mask = common.active_mask(np.array([0.001, 0.002, 0.003, 0.005]), flows, 0.001)
    assert mask[0].tolist() == [True, True, True, False]
    assert mask[1].tolist() == [False, False, True, True]


def test_pace_claims_cover_every_figure_and_quote_the_paper():
    table = claims.load_claims("pace")
    assert set(table["figure"]) == {"fig6", "table1", "fig7", "fig8"}
    assert (table["source"].str.len() > 20).all()
    t1 = table[table["figure"] == "table1"].set_index(["metric", "x", "protocol"])["value"]
    assert t1[("jain", "250", "pace")] == 0.963 and t1[("efficiency", "64", "d3")] == 0.931
    lossless = table[table["metric"].str.startswith("drops")]
    assert set(lossless["figure"]) == {"fig6", "table1", "fig7", "fig8"}
    assert (lossless[lossless["protocol"] == "pace"]["value"] == 0).all()


# --- the quick reproduction, end to end ----------------------------------------------------------


@needs_core
def test_quick_reproduction_is_lossless_for_pace_and_matches_its_shape(tmp_path):
    rep = runner.reproduce(experiments.get("pace"), tmp_path, quick=True, workers=2)
    assert rep.failed_points == 0
    # Every PACE run of every figure: not one packet dropped at any port.
    pace_points = 0
    for sj in tmp_path.rglob("scenario.json"):
        if json.loads(sj.read_text())["transport"]["protocol"] != "pace":
            continue
        pace_points += 1
        ports = pd.read_csv(sj.parent / "ports.csv")
        assert ports["drops"].sum() == 0, sj.parent
        flows = pd.read_csv(sj.parent / "flows.csv")
        assert flows["retransmits"].sum() == 0, sj.parent
    assert pace_points == 2 + 2 + 1 + 1  # fig6 (two RTT variants), table1 (64, 250), fig7, fig8
    ours = pd.read_csv(tmp_path / "data.csv", dtype={"x": str}, keep_default_na=False)
    ours["x"] = ours["x"].map(claims.x_key)
    o = ours.set_index(["figure", "metric", "x", "protocol"])["value"]
    # fig6: PACE fair, TCP not; table1: D3 carries nothing beyond 125 flows
    assert o[("fig6", "jain_diff_rtt", "5", "pace")] > 0.98
    assert o[("fig6", "jain_diff_rtt", "5", "tcp")] < o[("fig6", "jain_diff_rtt", "5", "pace")]
    assert o[("table1", "efficiency_over_125", "250", "d3")] < 0.05
    assert o[("table1", "jain", "250", "pace")] > 0.95
    # fig8: the weighted shares of the paper's text
    assert o[("fig8", "s2_over_s1", "phase2", "pace")] == pytest.approx(0.5, rel=0.05)
    assert o[("fig8", "s3_over_s1", "phase3", "pace")] == pytest.approx(2.0, rel=0.05)
    for fig in ("fig6", "table1", "fig7", "fig8"):
        assert (tmp_path / f"{fig}.png").stat().st_size > 10_000
    comparison = pd.read_csv(tmp_path / "comparison.csv", keep_default_na=False)
    drops = comparison[comparison["metric"].str.startswith("drops")
                       & (comparison["protocol"] == "pace")]
    assert len(drops) and (drops["verdict"] == "reproduced").all()
