"""`dcnsim reproduce merp`: the set-up arithmetic (loads, sizes, labels), each figure's measure
on hand-made runs, the claims table against the measures, and the quick figures end to end."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dcnsim import experiments
from dcnsim.experiments import claims, runner
from dcnsim.experiments.figure import Runs
from dcnsim.experiments.merp import common, example, fattree, switching, tree
from conftest import real_core_available

needs_core = pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")


# --- set-up ------------------------------------------------------------------------------------


def test_tree_factor_is_the_tor_uplinks_share_of_random_pairs():
    # 9 hosts: a ToR's 3 hosts each send 6/8 of their flows out of the rack
    assert common.tree_factor(3, 3) == pytest.approx(2.25)
    # brute force over every (src, dst) pair of a 4 × 2 tree
    hosts, per = 8, 2
    pairs = [(s, d) for s in range(hosts) for d in range(hosts) if s != d]
    out_of_rack0 = sum(1 for s, d in pairs if s // per == 0 and d // per != 0)
    per_host = sum(1 for s, d in pairs if s == 0)
    assert common.tree_factor(4, 2) == pytest.approx(out_of_rack0 / per_host)
    for load in tree.LOADS:
        assert tree.host_load(load) * tree.FACTOR == pytest.approx(load)
    assert max(tree.host_load(x) for x in tree.LOADS) < 0.4


def test_failure_factor_counts_the_surviving_links_share():
    # 12 senders, 4 receivers of which 2 sit behind the failed edge's one remaining uplink
    assert fattree.FAILURE_FACTOR == 6
    assert set(fattree.OTHERS).isdisjoint(fattree.POD0) and len(fattree.OTHERS) == 12
    assert fattree.BASE_12["failures"][0] == {"link": ["agg0_0", "edge0_0"], "down_s": 0.0}


def test_pareto_sizes_are_wire_means_turned_into_payload():
    s = common.pareto(1500)
    assert s["mean_kb"] == pytest.approx(1460) and s["shape"] == common.PARETO_SHAPE
    assert s["max_kb"] == pytest.approx(100 * 1460)
    assert common.pareto(150)["mean_kb"] == pytest.approx(146)
    # a flow of 2000 full packets is 3 000 000 bytes on the wire; a short last segment
    assert common.wire_bytes(2000 * 1460) == 3_000_000
    assert common.wire_bytes(1461) == 1461 + 80


def test_transport_labels_round_trip():
    for name, table in common.TRANSPORTS.items():
        assert common.label(table) == name
    assert common.label({"protocol": "merp", "merp_alpha": 0.9999}) == "merp-alpha-0.9999"
    assert common.label({"protocol": "merp", "merp_q": 0.01}) == "merp-q-0.01"
    with pytest.raises(KeyError):
        common.label({"protocol": "dctcp"})


def test_reductions_and_spreads():
    ours, other = pd.Series([0.5, 2.0]), pd.Series([1.0, 1.0])
    assert list(common.reduction(ours, other)) == [0.5, -1.0]
    assert tree.spread(pd.Series([10.0, 12.0, 11.0])) == pytest.approx(0.2)
    assert tree.larger_is_faster(pd.Series({0.99: 9.0, 0.999: 8.0, 0.9999: 8.5})) == 0.5


def test_every_figure_is_implemented_and_every_claim_names_one():
    paper = experiments.get("merp")
    ids = [f.id for f in paper.figures]
    assert ids == ["table1", "fig5-7", "fig8-9", "fig10-11", "fig12", "fig13", "fig14"]
    assert not paper.pending
    assert set(claims.load_claims("merp")["figure"]) == set(ids)


# --- hand-made runs ----------------------------------------------------------------------------


def _summary(part, transport, load, seed, er_mean, er_max, p999_ms, mean_ms, drops=0):
    return {"part": part, "transport": transport, "workload.load": load, "seed": seed,
            "status": "ok", "slowdown.mean": er_mean, "slowdown.max": er_max,
            "fct_s.p999": p999_ms / 1e3, "fct_s.mean": mean_ms / 1e3,
            "packets.dropped": drops, "flows.unfinished": 0}


def _runs(summaries: list[dict], results: dict | None = None, ports: dict | None = None) -> Runs:
    frame = pd.DataFrame(summaries)
    frame["point"] = [f"p{i}" for i in range(len(frame))]
    runs = Runs(".", frame)
    runs.results = lambda p: results[p]
    runs.ports = lambda p: ports[p]
    return runs


T = common.TRANSPORTS


def test_fig5_7_measures_reductions_gaps_and_orderings():
    rows = []
    for part, scale in (("1500kb", 1.0), ("150kb", 0.1)):
        for x in (0.2, 0.5, 0.8):
            h = tree.host_load(x)
            for seed, jitter in ((1, 0.9), (2, 1.1)):  # two seeds averaging to the table
                rows.append(_summary(part, T["pfabric"], h, seed, 2 * jitter, 20 * jitter,
                                     100 * scale * jitter, 10 * scale * (1 + x) * jitter))
                # MERP: half pFabric's largest ratio at 150 KB, 0.6 of it at 1500 KB
                cut = 0.5 if part == "150kb" else 0.4
                rows.append(_summary(part, T["merp"], h, seed, 1.6 * jitter,
                                     20 * (1 - cut) * jitter, 80 * scale * jitter,
                                     10 * scale * (1 + x) * (1 + x / 10) * jitter))
                rows.append(_summary(part, T["tcp"], h, seed, 5, 50, 300 * scale,
                                     50 * scale))
    m = tree.measure_fig5_7(_runs(rows)).set_index(["metric", "x", "protocol"])["value"]
    assert m[("er_max_1500kb", 0.8, "merp")] == pytest.approx(12)
    assert m[("er_max_reduction_1500kb", 0.8, "merp")] == pytest.approx(0.4)
    assert m[("er_max_reduction_150kb", 0.8, "merp")] == pytest.approx(0.5)
    assert m[("er_mean_reduction_150kb", 0.5, "merp")] == pytest.approx(0.2)
    assert m[("fct_p999_ms_reduction_1500kb", 0.2, "merp")] == pytest.approx(0.2)
    assert m[("fct_mean_gap_1500kb", 0.8, "merp")] == pytest.approx(0.08)
    assert m[("fct_mean_ms_150kb", 0.2, "tcp")] == pytest.approx(5)
    assert m[("fct_mean_gap_widens_1500kb", "", "merp")] == 1
    assert m[("er_max_within_10_1500kb", "", "merp")] == 0  # 12 at every load
    assert m[("fct_mean_tcp_highest_1500kb", "", "tcp")] == 1
    assert m[("fct_p999_merp_lowest_high_150kb", "", "merp")] == 1
    assert m[("er_max_gap_larger_150kb", "", "merp")] == 1


def test_fig8_9_measures_spread_order_and_drops():
    rows = []
    for part, key, values in (("alpha", "merp_alpha", tree.ALPHAS), ("q", "merp_q", tree.QS)):
        for x in (0.1, 0.8):
            for i, v in enumerate(values):
                # light load: equal tails; high load: larger value, smaller tail, except the
                # last pair; the largest α drops the most at both loads
                tail = 100.0 if x == 0.1 else [400, 300, 200, 250][i]
                rows.append(_summary(part, {"protocol": "merp", key: v}, tree.host_load(x), 1,
                                     1, 1, tail, 1, drops=10 * (i + 1)))
    m = tree.measure_fig8_9(_runs(rows)).set_index(["metric", "x", "protocol"])["value"]
    for who in ("merp-alpha", "merp-q"):
        assert m[("tail_spread_light", "", who)] == 0
        assert m[("tail_spread_max", "", who)] == pytest.approx(1.0)
        assert m[("larger_smaller_tail_high", "", who)] == pytest.approx(2 / 3)
    assert m[("drops_largest_alpha_most", "", "merp-alpha")] == 1
    assert m[("fct_p999_ms", 0.8, "merp-q-0.1")] == 200
    assert ("drops_largest_alpha_most", "", "merp-q") not in m.index


def _flows(fcts_ms: list[float]) -> SimpleNamespace:
    fct = pd.Series(fcts_ms, dtype=float) / 1e3
    return SimpleNamespace(flows=pd.DataFrame({"fct_s": fct}))


def test_fig10_11_measures_cuts_against_ecmp_and_conga_and_the_cdf():
    fct = {"merp": [20, 60], "ecmp": [25, 100], "conga": [40, 120]}
    er = {"merp": [1.0, 2.0], "ecmp": [4.0, 8.0], "conga": [5.0, 8.0]}
    rows, results = [], {}
    for scheme in fattree.SCHEMES:
        for i, x in enumerate((0.2, 0.6)):
            rows.append(_summary(scheme, None, x, 1, er[scheme][i], 1, 1, fct[scheme][i]))
            point = f"p{len(rows) - 1}"
            # at 0.6: MERP all within 100 ms; ECMP 2 of 100 over 200 ms; CONGA one unfinished
            results[point] = _flows({"merp": [50] * 100, "ecmp": [50] * 98 + [250, 300],
                                     "conga": [50] * 99 + [np.nan]}[scheme])
    m = fattree.measure_fig10_11(_runs(rows, results)).set_index(
        ["metric", "x", "protocol"])["value"]
    assert m[("fct_mean_ms_reduction_vs_ecmp", 0.6, "merp")] == pytest.approx(0.4)
    assert m[("fct_mean_ms_reduction_min_vs_ecmp", "", "merp")] == pytest.approx(0.2)
    assert m[("fct_mean_ms_reduction_min_vs_conga", "", "merp")] == pytest.approx(0.5)
    assert m[("er_mean_reduction_mean_vs_ecmp", "", "merp")] == pytest.approx(0.75)
    assert m[("er_mean_reduction_mean_vs_conga", "", "merp")] == pytest.approx((0.8 + 0.75) / 2)
    assert m[("conga_worst", "", "conga")] == 1
    assert m[("p99_within_100ms", 0.6, "merp")] == 1
    assert m[("frac_fct_over_200ms", 0.6, "ecmp")] == pytest.approx(0.02)
    assert m[("over_200ms_above_1pct", 0.6, "ecmp")] == 1
    # an unfinished flow is beyond any bound: 1 of 100 is not *more* than 1 %
    assert m[("frac_fct_over_200ms", 0.6, "conga")] == pytest.approx(0.01)
    assert m[("over_200ms_above_1pct", 0.6, "conga")] == 0


def test_fig12_measures_the_largest_cut_and_reads_load_on_the_failed_edge():
    fct = {"merp": [10, 30, 70], "ecmp": [10, 40, 100], "conga": [12, 50, 90]}
    rows = [_summary(s, None, x / fattree.FAILURE_FACTOR, 1, 1, 1, 1, fct[s][i])
            for s in fattree.SCHEMES for i, x in enumerate((0.2, 0.4, 0.8))]
    m = fattree.measure_fig12(_runs(rows)).set_index(["metric", "x", "protocol"])["value"]
    assert m[("fct_mean_ms", 0.4, "conga")] == 50
    assert m[("fct_mean_ms_reduction_max_vs_ecmp", "", "merp")] == pytest.approx(0.3)
    assert m[("fct_mean_ms_reduction_max_vs_conga", "", "merp")] == pytest.approx(0.4)
    assert m[("merp_lowest", "", "merp")] == pytest.approx(2 / 3)  # a tie at 0.2 is not lower


def _star_ports(receiver: int) -> pd.DataFrame:
    return pd.DataFrame({"port": [0, 1, 2], "node": ["h0", "sw", "sw"],
                         "peer": ["sw", f"h{receiver}", "h0"]})


def _util_series(port: int, values: dict[float, float]) -> pd.DataFrame:
    """link_util samples of ``port`` (and noise on other ports and kinds)."""
    rows = [(t, "link_util", port, v) for t, v in values.items()]
    rows += [(t, "link_util", 0, 1.0) for t in values] + [(0.015, "queue_bytes", port, 9.0)]
    return pd.DataFrame(rows, columns=["time_s", "kind", "id", "value"])


def test_fig13_measures_done_ideal_and_utilisation():
    flows = pd.DataFrame({"flow_id": [0, 1, 2], "size_bytes": [2_920_000] * 3,
                          "finish_s": [0.0242, 0.0723, 0.0483]})
    times = np.round(np.arange(1, 725) * 1e-4, 6)
    util = _util_series(1, {t: (0.5 if t <= 0.0362 else 1.0) for t in times})
    results = {"p0": SimpleNamespace(flows=flows, series=util)}
    runs = _runs([{"transport.protocol": "merp", "status": "ok"}], results,
                 {"p0": _star_ports(3)})
    m = switching.measure_fig13(runs).set_index(["metric", "x", "protocol"])["value"]
    assert m[("done_ms", "", "merp")] == pytest.approx(72.3)
    assert m[("ideal_ms", "", "merp")] == pytest.approx(72.0)
    assert m[("overhead_ms", "", "merp")] == pytest.approx(0.3)
    # 362 samples at 0.5, 361 at 1 up to 72.3 ms
    assert m[("utilization", "", "merp")] == pytest.approx((362 * 0.5 + 361) / 723)
    assert m[("finish_ms", "flow 2", "merp")] == pytest.approx(48.3)


def test_fig14_measures_the_window_and_the_background_resuming():
    times = np.round(np.arange(1, 301) * 1e-4, 6)
    # 0.9 inside (10, 18] ms, 0.2 elsewhere: the window's bounds must be exact
    util = _util_series(1, {t: (0.9 if 0.010 < t <= 0.018 + 1e-12 else 0.2) for t in times})
    flows = pd.DataFrame({"flow_id": range(31),
                          "size_bytes": [switching.BACKGROUND_BYTES] + [switching.SHORT_BYTES] * 30,
                          "fct_s": [0.05] + [0.004] * 30,
                          "finish_s": [0.05] + [0.012 + i * 2e-4 for i in range(30)]})
    results = {"p0": SimpleNamespace(flows=flows, series=util)}
    runs = _runs([{"transport.protocol": "merp", "status": "ok"}], results,
                 {"p0": _star_ports(8)})
    m = switching.measure_fig14(runs).set_index(["metric", "x", "protocol"])["value"]
    assert m[("util_10_18ms", "", "merp")] == pytest.approx(0.9)
    assert m[("last_short_done_ms", "", "merp")] == pytest.approx(17.8)
    assert m[("background_resumes_after_burst", "", "merp")] == 1


def test_table1_packet_level_rows_in_units():
    u = example.UNIT_S
    # A (h0) done at 3, C (h2) at 7, B (h1, arrives at 3) at 10: the paper's Fig. 1c
    flows = pd.DataFrame({"src": [0, 1, 2], "fct_s": [3 * u, 7 * u, 7 * u],
                          "finish_s": [3 * u, 10 * u, 7 * u]})
    runs = _runs([{"transport.protocol": "merp", "status": "ok"}],
                 {"p0": SimpleNamespace(flows=flows)})
    m = example.measure_table1(runs).set_index(["metric", "x", "protocol"])["value"]
    assert m[("mean_fct", "", "merp")] == pytest.approx(17 / 3)
    assert m[("max_expansion_ratio", "", "merp")] == pytest.approx(7 / 3)
    assert m[("expansion_ratio", "C", "merp")] == pytest.approx(7 / 4)
    assert m[("finish_order_acb", "", "merp")] == 1
    assert m[("mean_fct", "", "srpt")] == pytest.approx(16 / 3)
    flows["finish_s"] = [3 * u, 6 * u, 10 * u]
    m = example.measure_table1(runs).set_index(["metric", "x", "protocol"])["value"]
    assert m[("finish_order_acb", "", "merp")] == 0


def test_unit_is_one_megabyte_of_payload_on_the_wire():
    assert example.UNIT_S == pytest.approx(1e6 / 1460 * 1500 * 8 / 1e9)
    assert example.UNIT_S == pytest.approx(8.219e-3, rel=1e-4)


# --- quick runs, end to end --------------------------------------------------------------------


@needs_core
def test_quick_reproduction_measures_every_claim(tmp_path):
    rep = runner.reproduce(experiments.get("merp"), tmp_path, quick=True, workers=2)
    assert rep.failed_points == 0
    comparison = pd.read_csv(tmp_path / "comparison.csv", keep_default_na=False)
    assert len(comparison) == len(claims.load_claims("merp"))
    # --quick runs loads 0.2 and 0.8 (tree) and 0.2 and 0.6 (fat-tree): every claim's x
    assert comparison["verdict"].isin(["reproduced", "differs"]).all(), \
        comparison[comparison["verdict"] == "not measured"][["figure", "metric", "x"]]
    for fig in rep.figures:
        assert (tmp_path / f"{fig.figure.id}.png").stat().st_size > 20_000, fig.figure.id
    by = {f.figure.id: f.ours.set_index(["metric", "x", "protocol"])["value"]
          for f in rep.figures}
    # the worked example, packet by packet: MERP serves A, C, B, within 3 % of 17/3 and 7/3
    t1 = by["table1"]
    assert t1[("finish_order_acb", "", "merp")] == 1
    assert t1[("mean_fct", "", "merp")] == pytest.approx(17 / 3, rel=0.03)
    assert t1[("max_expansion_ratio", "", "merp")] == pytest.approx(7 / 3, rel=0.03)
    assert t1[("finish_order_acb", "", "pfabric")] == 0
    # flow switching finishes near 72 ms but not before the line-rate bound
    f13 = by["fig13"]
    assert 72.0 < f13[("done_ms", "", "merp")] < 73.0
    assert f13[("ideal_ms", "", "merp")] == pytest.approx(72.0)
    assert 0.5 < by["fig14"][("util_10_18ms", "", "merp")] <= 1.0
    # on the tree at light load MERP's mean ratio is close to pFabric's
    f5 = by["fig5-7"]
    assert f5[("er_mean_150kb", 0.2, "merp")] < 1.5 * f5[("er_mean_150kb", 0.2, "pfabric")]
