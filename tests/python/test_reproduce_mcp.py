"""`dcnsim reproduce mcp`: the flow lists (types, deadlines, load), the per-run measures on
hand-made flows, the paper's statements on hand-made runs, and the quick figure end to end."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import dcnsim
from dcnsim import experiments
from dcnsim.experiments import claims, runner
from dcnsim.experiments.figure import Runs
from dcnsim.experiments.mcp import figures as fg
from dcnsim.experiments.mcp import workload as wl
from conftest import real_core_available

needs_core = pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")


# --- the flow lists ----------------------------------------------------------------------------


def test_sizes_fall_in_the_three_types_in_the_exponentials_proportions():
    s = wl.draw_sizes(40_000, np.random.default_rng(1))
    types = pd.Series(wl.flow_type(s))
    assert (types != "").all() and s.min() >= 2_000 and s.max() <= 100_000_000
    # Exp(1 MB) puts e^-0.002 − e^-0.02, e^-0.1 − e^-1 and e^-1 on the three ranges
    mass = {"query": np.exp(-0.002) - np.exp(-0.02), "short": np.exp(-0.1) - np.exp(-1),
            "long": np.exp(-1)}
    total = sum(mass.values())
    share = types.value_counts(normalize=True)
    for t, m in mass.items():
        assert share[t] == pytest.approx(m / total, abs=0.01), t
    # beyond 1 MB the exponential is memoryless: long flows average 1 MB + 1 MB
    assert s[types == "long"].mean() == pytest.approx(2e6, rel=0.03)


def test_deadline_is_two_rtts_plus_the_size_at_a_third_of_the_link():
    rtt = wl.base_rtt_s()
    # 4 × 1.2 µs + 2 × 0.3 µs of data, 4 × 32 ns + 2 × 8 ns of ACK, 12 × 1 µs of wire
    assert rtt == pytest.approx(17.544e-6)
    d = wl.deadline_s([2_000, 1_000_000], ["query", "long"])
    assert d[0] == pytest.approx(2 * rtt + 2_000 * 8 / (10e9 / 3))
    assert d[1] == pytest.approx(2 * rtt + 2.4e-3)


def test_loads_rescale_the_same_flows_and_offer_the_stated_wire_load(tmp_path):
    lo, hi = wl.McpFlows(5000, 0.2, 3).frame(), wl.McpFlows(5000, 0.8, 3).frame()
    for col in ("src", "dst", "size_bytes", "deadline_s"):
        assert (lo[col] == hi[col]).all(), col
    assert np.allclose(lo["start_s"], 4 * hi["start_s"])
    assert (lo["src"] != lo["dst"]).all() and lo["src"].between(0, wl.HOSTS - 1).all()
    assert lo["start_s"].is_monotonic_increasing
    # offered wire bytes per second against the 128 host links, within Poisson noise
    offered = wl.wire_bytes(hi["size_bytes"]).sum() * 8 / hi["start_s"].iloc[-1]
    assert offered / (wl.HOSTS * 10e9) == pytest.approx(0.8, rel=0.05)
    fl = wl.McpFlows(300, 0.5, 3)
    fl.write(tmp_path)
    back = pd.read_csv(tmp_path / fl.path)
    pd.testing.assert_frame_equal(back, fl.frame(), check_dtype=False, rtol=1e-9)
    assert wl.McpFlows(300, 0.5, 4).frame()["size_bytes"].tolist() != back["size_bytes"].tolist()


def test_wire_bytes_count_a_header_each_way_per_segment():
    assert wl.wire_bytes([1460, 1461]).tolist() == [1460 + 80, 1461 + 160]


@needs_core
def test_base_rtt_is_the_cores(tmp_path):
    """The core writes MCP-Opt's measuring interval, the network's base RTT, into
    scenario.json; the deadline rule uses the same RTT."""
    flows = tmp_path / "f.csv"
    flows.write_text("src,dst,size_bytes,start_s,deadline_s\n0,127,2000,0,0.001\n")
    scenario = {**fg.BASE, "workload": {"kind": "flows", "file": str(flows)},
                "transport": fg.TRANSPORTS["mcp-opt"]}
    dcnsim.run(scenario, out=tmp_path / "r")
    got = json.loads((tmp_path / "r" / "scenario.json").read_text())
    assert got["transport"]["mcp_rate_interval_us"] == pytest.approx(wl.base_rtt_s() * 1e6)


# --- one run -----------------------------------------------------------------------------------


def _flows(rows):
    cols = ["size_bytes", "start_s", "met_deadline", "bytes_delivered"]
    f = pd.DataFrame(rows, columns=cols)
    f["flow_id"] = range(len(f))
    f["deadline_s"] = 1e-3
    # missed flows end at their deadline (the application's abort) unless a row says otherwise
    f["terminated_s"] = np.where(f["met_deadline"], np.nan, f["start_s"] + f["deadline_s"])
    return f


def test_run_metrics_leave_out_the_edges_and_split_by_type():
    # 20 flows one ms apart: the first and last two are the edges (EDGE = 10 %)
    rows = []
    for i in range(20):
        size = [10_000, 500_000, 2_000_000][i % 3]
        met = i % 4 != 0
        rows.append((size, i * 1e-3, met, size if met else int(size * (0.96 if i % 8 else 0.5))))
    f = _flows(rows)
    f.loc[4, "terminated_s"] = f.loc[4, "start_s"] + 0.5e-3  # its protocol gave up early
    m = fg.run_metrics(f)
    mid = f.iloc[2:18]
    span = 15e-3
    assert m["flows_all"] == 16
    for cls, size in [("query", 10_000), ("short", 500_000), ("long", 2_000_000)]:
        sel = mid[mid["size_bytes"] == size]
        assert m[f"flows_{cls}"] == len(sel)
        assert m[f"miss_{cls}"] == pytest.approx(1 - sel["met_deadline"].mean())
        assert m[f"threshold_gbps_{cls}"] == pytest.approx(sel["size_bytes"].sum() * 8 / span / 1e9)
        good = sel[sel["met_deadline"]]["size_bytes"].sum()
        assert m[f"goodput_gbps_{cls}"] == pytest.approx(good * 8 / span / 1e9)
    missed = mid[~mid["met_deadline"]]
    near = (missed["bytes_delivered"] / missed["size_bytes"] >= 0.95).mean()
    assert m["near_miss_all"] == pytest.approx(near) and 0 < near < 1
    assert m["early_abort_all"] == pytest.approx(1 / len(missed))


# --- the paper's statements on hand-made runs --------------------------------------------------


def _runs(table):
    """(protocol, load) -> miss rate of every type: each point one hand-made run whose flows
    give it back (100 flows of each type in the measured window)."""
    summaries, results = [], {}
    for i, ((proto, load), miss) in enumerate(table.items()):
        point = f"p{i}"
        path = next(p for p, (x, _) in fg.QUICK_LISTS.items() if x == load)
        summaries.append({"point": point, "status": "ok", "transport": fg.TRANSPORTS[proto],
                          "workload.file": path, "packets.dropped": 0})
        rows = []
        for k in range(375):  # 300 measured + 75 at the edges
            size = [10_000, 500_000, 2_000_000][k % 3]
            rows.append((size, k * 1e-4, (k // 3) % 100 >= miss * 100, size // 2))
        results[point] = SimpleNamespace(flows=_flows(rows))
    runs = Runs(".", pd.DataFrame(summaries))
    runs.results = lambda p: results[p]
    return runs


def test_measure_states_the_papers_comparisons():
    lo, hi = fg.QUICK_LOADS
    runs = _runs({("mcp-opt", lo): 0.0, ("mcp-opt", hi): 0.02,
                  ("mcp-approx", lo): 0.05, ("mcp-approx", hi): 0.5,
                  ("dctcp", lo): 0.01, ("dctcp", hi): 0.4,
                  ("d2tcp", lo): 0.03, ("d2tcp", hi): 0.2})
    ours = fg.measure(runs)
    o = ours.assign(x=ours["x"].map(claims.x_key)).set_index(["metric", "x", "protocol"])["value"]
    top = claims.x_key(hi)
    low = claims.x_key(lo)
    assert o[("miss_long", top, "dctcp")] == pytest.approx(0.4, abs=0.02)
    assert o[("goodput_ratio_all", top, "mcp-opt")] == pytest.approx(0.98, abs=0.02)
    assert o[("miss_spread_short", low, "all")] == pytest.approx(0.05, abs=0.02)
    # MCP-Opt is at or below both baselines everywhere; MCP-Approx loses at both loads
    assert o[("mcp_beats_baselines", "", "mcp-opt")] == 1
    assert o[("mcp_beats_baselines", "", "mcp-approx")] == 0
    assert o[("goodput_falls_off", "", "dctcp")] == 1
    # overall miss rate at or below both baselines': MCP-Opt at both loads, MCP-Approx at none
    assert o[("overall_below_baselines", "", "mcp-opt")] == 1
    assert o[("overall_below_baselines", "", "mcp-approx")] == 0
    offered = o[("threshold_gbps_all", top, "offered")]
    assert offered > 0 and o[("goodput_gbps_all", top, "dctcp")] < offered


def test_every_claim_names_a_measured_metric():
    table = claims.load_claims("mcp")
    assert set(table["figure"]) == {"fig3-4"} and len(table) >= 20
    made = {"miss_query", "miss_short", "miss_long", "miss_spread_query", "miss_spread_short",
            "mcp_beats_baselines", "goodput_falls_off"} | {
        f"goodput_ratio_{c}" for c in fg.CLASSES + ["all"]}
    assert set(table["metric"]) <= made
    assert set(table["protocol"]) <= set(fg.TRANSPORTS) | {"all"}
    assert all('"' in s and "§5" in s for s in table["source"])
    assert {claims.x_key(x) for x in fg.LOADS} >= set(table["x"]) - {""}


def test_the_axis_maximum_is_a_host_load_an_ideal_scheduler_serves():
    """Each full list sits at its axis load times the maximum's host-link load; beyond the
    maximum, the first reproduction's host loads 0.5, 0.7 and 1.0."""
    host = {x: fl.load for x, fl in fg.FULL_LISTS.values()}
    assert host[1.0] == pytest.approx(fg.MAX_HOST_LOAD) and host[0.1] == pytest.approx(0.03)
    assert sorted(h for x, h in host.items() if x > 1) == pytest.approx([0.5, 0.7, 1.0])
    assert all(fl.flows == fg.FLOWS for _, fl in fg.FULL_LISTS.values())


# --- the quick figure, end to end --------------------------------------------------------------


@needs_core
def test_quick_figure_runs_every_protocol_and_load(tmp_path):
    rep = runner.reproduce(experiments.get("mcp"), tmp_path, quick=True, workers=2)
    ours = rep.figures[0].ours
    assert rep.failed_points == 0
    miss = ours[ours["metric"] == "miss_long"].set_index(["protocol", "x"])["value"]
    lo, hi = fg.QUICK_LOADS
    for proto in fg.TRANSPORTS:
        assert 0 <= miss[(proto, lo)] <= 1 and 0 <= miss[(proto, hi)] <= 1
        # a fuller network misses more deadlines
        assert miss[(proto, hi)] > miss[(proto, lo)], proto
    assert (tmp_path / "fig3-4.png").stat().st_size > 50_000
    comparison = pd.read_csv(tmp_path / "comparison.csv")
    assert len(comparison) == len(claims.load_claims("mcp"))
    # the quick loads include the maximum, where most claims are read
    assert (comparison["verdict"] != "not measured").sum() >= 15
