"""TR's FCT model (eqs. 2–8) on hand-computed values, and the Fig. 6 and Figs. 9–12 set-ups:
flow lists, parameters, loads, normalisation, the headline measure."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

from dcnsim.experiments.tr import largescale as large
from dcnsim.experiments.tr import model, modelcheck

# --- eq. (4) ---------------------------------------------------------------------------------


def test_p_fr_by_hand():
    # S = 5, H = 3, one path in two bad (p = 1/2 each): the first bad packet is packet 1 with
    # ≥ 3 of the 4 after it good (5/16), or packet 2 after a good one with all 3 after it good
    # (1/8): 1/2 · 5/16 + 1/4 · 1/8 = 3/16.
    assert model.p_fr(5, 3, 5, 5) == F(3, 16)
    # S = 4, one good and one bad path: packet 1 bad, the other three good: 1/16.
    assert model.p_fr(4, 3, 1, 1) == F(1, 16)
    # three good paths to one bad: (1/4) · (3/4)³ = 27/256
    assert model.p_fr(4, 3, 3, 1) == F(27, 256)


def test_p_fr_matches_the_printed_double_sum_and_its_limits():
    for s, ng, nb in [(8, 5, 5), (12, 3, 7), (20, 7, 3)]:
        assert model.p_fr(s, 3, ng, nb) == model.p_fr_direct(s, 3, ng, nb)
    assert model.p_fr(3, 3, 5, 5) == 0, "no packet can be overtaken by three"
    assert model.p_fr(50, 3, 10, 0) == 0 and model.p_fr(50, 3, 0, 10) == 0
    # long flows over half-bad paths reorder almost surely
    assert 1 - 1e-12 < model.p_fr(200, 3, 5, 5) <= 1


# --- eqs. (2), (3), (6)–(8) --------------------------------------------------------------------

P = model.Params(n_g=5, n_b=5, d_g=200e-6, d_b=500e-6, B=250, t=12e-6, H=3)


def test_rps_fct_by_hand():
    # S = 5, N = 10: w = 250 · 13/16 + 125 · 3/16 = 226.5625 packets;
    # r ≈ d_b + N·w·t/n = 500 µs + 226.5625 · 12 µs = 3.21875 ms (all-good term 0.5^226 ≈ 0);
    # F = 4 · 5 · r / (3w).
    w = model.window_rps(5, 10, P)
    assert w == pytest.approx(226.5625)
    r = model.delay_rps(w, 10, P)
    assert r == pytest.approx(3.21875e-3)
    assert model.fct_rps(5, 10, P) == pytest.approx(20 * 3.21875e-3 / (3 * 226.5625))
    # the good-path term: a window of one packet goes all-good with probability 1/2
    assert model.delay_rps(1, 10, P) == pytest.approx(0.5 * 500e-6 + 0.5 * 200e-6 + 12e-6)


def test_tr_fct_by_hand_and_through_eq2():
    # S = 69 (100 KB), N = 20: 69 · 20 · (16 · 500 µs + 12 · 250 · 12 µs) / (9 · 10 · 250)
    assert model.fct_tr(69, 20, P) == pytest.approx(1380 * 0.044 / 22500)
    assert model.fct_tr(69, 20, P) == pytest.approx(2.698667e-3, rel=1e-6)
    for s, n in [(69, 20), (206, 50), (10, 1)]:
        assert model.fct_tr(s, n, P) == pytest.approx(model.fct_tr_from_eq2(s, n, P))
    assert model.packets(100_000) == 69 and model.packets(1460) == 1


def test_tr_below_rps_over_fig6s_points():
    for kb in modelcheck.SIZES_KB:
        s = model.packets(kb * 1000)
        assert model.fct_tr(s, 20, modelcheck.PARAMS) < model.fct_rps(s, 20, modelcheck.PARAMS)


# --- Fig. 6 set-up -----------------------------------------------------------------------------


def test_fig6_parameters_follow_the_section_2_layout():
    p = modelcheck.PARAMS
    assert (p.n, p.n_g, p.n_b, p.B, p.H) == (10, 5, 5, 250, 3)
    assert p.d_g == pytest.approx(200e-6) and p.d_b == pytest.approx(500e-6)
    assert p.t == pytest.approx(12e-6)


def test_fig6_flow_lists(tmp_path):
    modelcheck.write_flows(tmp_path, 23, 150)
    name = modelcheck.flow_file(23, 150)
    assert modelcheck.parse_file(name) == (23, 150)
    flows = pd.read_csv(tmp_path / name)
    assert len(flows) == 23 and (flows["size_bytes"] == 150_000).all()
    assert (flows["start_s"] == 0).all()
    assert set(flows["src"]) == set(range(10)) and set(flows["dst"]) == set(range(10, 20))
    assert ((flows["dst"] - flows["src"]) == 10).all()


# --- Figs. 9–12 set-up -------------------------------------------------------------------------


def test_large_scale_set_up():
    assert len(large.SENDERS) == 100 and set(large.SENDERS).isdisjoint(large.RECEIVERS)
    assert sorted(large.SENDERS + large.RECEIVERS) == list(range(200))
    bad = large.bad_paths()
    assert len(bad) == 50 and {b["delay_us"] for b in bad} == {50}
    # a bad round trip: 2 · (2 · 25 + 2 · 50) = 300 µs = 1.5 × 200
    assert 2 * (2 * large.LINK_DELAY_US + 2 * bad[0]["delay_us"]) == 1.5 * 8 * 25
    # K = C · RTT / 7 with the good base RTT: 200 µs + each hop's serialisation of a data
    # packet (1500 B) out and an ACK (40 B) back at 40 Gb/s
    rtt = 200e-6 + 4 * (1500 + 40) * 8 / 40e9
    assert large.ECN_K_PKTS == math.ceil(40e9 * rtt / 7 / 8 / 1500)
    assert [large.load_of(n) for n in large.FLOW_COUNTS] == [0.16, 0.32, 0.48, 0.64, 0.8]
    assert all(large.count_of(large.load_of(n)) == n for n in large.FLOW_COUNTS)
    w = large.workload_table("datamining", 30_000)
    assert (w["load"], w["flows"]) == (0.48, 6_000)
    assert large.workload_table("webserver", 30_000)["flows"] == 30_000


def _frame(rows):
    return pd.DataFrame(rows, columns=["workload", "scheme", "flows", "short_afct_us",
                                       "short_p99_us", "long_tput_gbps"])


def test_normalised_to_ecmp_at_the_same_point():
    f = _frame([("websearch", "ecmp", 10_000, 100, 1000, 2.0),
                ("websearch", "tr", 10_000, 50, 250, 6.0),
                ("websearch", "ecmp", 20_000, 200, 2000, 1.0),
                ("websearch", "tr", 20_000, 100, 4000, 1.0)])
    n = large.normalised(f).set_index(["scheme", "flows"])[large.METRICS]
    assert n.loc[("tr", 10_000)].tolist() == [0.5, 0.25, 3.0]
    assert n.loc[("tr", 20_000)].tolist() == [0.5, 2.0, 1.0]
    assert n.loc[("ecmp", 20_000)].tolist() == [1.0, 1.0, 1.0]


def test_headline_takes_the_largest_gain_over_any_other_scheme(monkeypatch):
    f = _frame([("websearch", "ecmp", 10_000, 100, 1000, 2.0),
                ("websearch", "rps", 10_000, 250, 5000, 1.0),
                ("websearch", "tr", 10_000, 50, 800, 3.0),
                ("webserver", "ecmp", 10_000, 10, 100, 1.0),
                ("webserver", "tr", 10_000, 12, 90, 0.5)])
    monkeypatch.setattr(large, "per_run", lambda runs: f)
    h = large.measure_headline(None).set_index(["metric", "protocol"])["value"]
    assert h[("short_afct_max_reduction", "tr")] == pytest.approx(0.8)  # 1 − 50/250
    assert h[("short_p99_max_reduction", "tr")] == pytest.approx(1 - 800 / 5000)
    assert h[("long_tput_max_gain", "tr")] == pytest.approx(3.0)  # 3 / 1


def test_workload_orderings(monkeypatch):
    rows = []
    for n in large.FLOW_COUNTS:
        for s, (a, t) in {"ecmp": (100, 2), "letflow": (90, 2.2), "presto": (95, 2.1),
                          "rps": (300, 0.5), "drb": (200, 0.8), "tr": (50, 3)}.items():
            rows.append(("cachefollower", s, n, a, 10 * a, t))
    f = _frame(rows)
    f["load"] = f["flows"].map(large.load_of)
    for c in large.RAW[3:]:
        f[c] = 0.0
    monkeypatch.setattr(large, "per_run", lambda runs: f)
    m = large.measure_workload(None).set_index(["metric", "x", "protocol"])["value"]
    for metric in large.METRICS:
        assert m[(f"{metric}_tr_best", "", "tr")] == 1
        assert m[(f"{metric}_rps_drb_worst", "", "rps")] == 1
    assert m[("short_afct_us_over_ecmp", 30_000, "tr")] == 0.5
    assert np.isnan(m.get(("short_afct_us_tr_best", "", "rps"), np.nan))


# --- the model against our simulation -----------------------------------------------------------


@pytest.mark.skipif(not __import__("conftest").real_core_available(),
                    reason="the compiled core is not built")
@pytest.mark.parametrize("kb", [100, 300])
def test_model_against_simulation_of_fig6a(tmp_path, kb):
    """20 flows of ``kb`` KB start together on the §2 leaf-spine (ratio 2.5). The paper only
    says simulation and model are "basically close"; what holds here, and is reported as such
    in the package doc: TR below RPS in both; TR's simulated FCT under eq. (8), which assumes
    every packet on a bad path and a 3/4-full window, by 20–40 %; RPS's above eq. (7), which lets
    reordering halve the window once where it halves it again and again, by 40–80 %."""
    import copy

    import dcnsim

    modelcheck.write_flows(tmp_path, 20, kb)
    sim = {}
    for lb in ("rps", "tr"):
        sc = copy.deepcopy(modelcheck.BASE)
        sc["routing"] = {"lb": lb}
        sc["workload"] = {"kind": "flows", "file": str(tmp_path / modelcheck.flow_file(20, kb))}
        sim[lb] = dcnsim.run(sc, quiet=True).flows["fct_s"].mean() * 1e3
    tr, rps = (modelcheck.model_ms(s, 20, kb) for s in ("tr", "rps"))
    assert tr < rps and sim["tr"] < sim["rps"]
    assert 0.6 * tr < sim["tr"] < 0.8 * tr, (sim["tr"], tr)
    assert 1.4 * rps < sim["rps"] < 1.8 * rps, (sim["rps"], rps)
