"""The real compiled core on a tiny star scenario. Skipped until crates/dcnsim-py is built."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

import dcnsim
from dcnsim.cli import cli
from dcnsim.results import FLOW_COLUMNS, Results
from conftest import real_core_available

pytestmark = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)


def test_flows_have_the_listed_columns(star_file):
    res = dcnsim.run(star_file)
    assert list(res.flows.columns)[: len(FLOW_COLUMNS)] == list(FLOW_COLUMNS)
    for col, dtype in FLOW_COLUMNS.items():
        assert str(res.flows[col].dtype) == dtype, col
    assert len(res.flows) == res.summary["flows"]["total"] == 30
    assert res.summary["protocol"] == "dctcp" and res.summary["seed"] == 7


def test_unfinished_flows_have_nan_finish(star_file):
    # Stop early: some flows cannot have finished, and they must still be in the table.
    res = dcnsim.run(star_file, overrides=["stop_s=0.002"])
    unfinished = res.flows["finish_s"].isna()
    assert len(res.flows) == 30
    # Flows due after stop_s have no finish either, but are counted apart (unstarted).
    counts = res.summary["flows"]
    assert unfinished.sum() == counts["unfinished"] + counts["unstarted"] and counts["unfinished"] > 0
    assert res.flows.loc[unfinished, ["fct_s", "slowdown"]].isna().all().all()
    assert res.flows.loc[~unfinished, "fct_s"].gt(0).all()


def test_same_seed_gives_byte_identical_flows(star_file, tmp_path):
    first = dcnsim.run(star_file, out=tmp_path / "a")
    dcnsim.run(star_file, out=tmp_path / "b")
    assert (tmp_path / "a" / "flows.csv").read_bytes() == (tmp_path / "b" / "flows.csv").read_bytes()
    back = Results.load(tmp_path / "a")
    assert len(back.flows) == 30 and back.scenario["seed"] == 7
    assert back.scenario == first.scenario


def test_bad_key_names_its_path(star_file):
    with pytest.raises(dcnsim.ScenarioError, match=r"^topology\.colour:"):
        dcnsim.validate(star_file, overrides=["topology.colour=3"])
    with pytest.raises(dcnsim.ScenarioError, match=r"^topology\.colour:"):
        dcnsim.run(star_file, overrides=["topology.colour=3"])


def test_cli_bad_input_exits_2_without_output_dir(star_file, tmp_path):
    out = tmp_path / "res"
    r = CliRunner().invoke(cli, ["run", str(star_file), "--out", str(out), "--set", "topology.colour=3"])
    assert r.exit_code == 2
    assert r.stderr.startswith("error: topology.colour:")
    assert not out.exists()


def test_cli_run_and_validate(star_file, tmp_path):
    r = CliRunner().invoke(cli, ["validate", str(star_file)])
    assert r.exit_code == 0 and r.stdout.startswith("ok: tiny: star")
    r = CliRunner().invoke(cli, ["run", str(star_file), "--out", str(tmp_path / "r")])
    assert r.exit_code == 0, r.output
    for name in ("flows.csv", "summary.json", "scenario.json", "ports.csv"):
        assert (tmp_path / "r" / name).is_file()
    ports = (tmp_path / "r" / "ports.csv").read_text().splitlines()
    assert ports[0] == ("port,node,peer,gbps,delay_us,buffer_pkts,buffer_bytes,ecn_k_pkts,"
                        "tx_packets,tx_bytes,drops,ecn_marks")
    assert len(ports) > 1


def test_catalog_lists_the_demo_choices():
    cat = dcnsim.catalog()
    assert {"protocols", "lbs", "topologies", "workloads", "sizes"} <= set(cat)
    names = {k: [n for n, _ in v] for k, v in cat.items()}
    assert {"tcp", "dctcp"} <= set(names["protocols"])
    assert "fattree" in names["topologies"] and "websearch" in names["sizes"]


def test_trace_flow_comes_back_as_a_frame_and_a_file(star_file, tmp_path):
    res = dcnsim.run(star_file, overrides=["output.trace_flow=0"], out=tmp_path / "t")
    assert list(res.trace.columns) == [
        "time_s", "flow_id", "event", "seq", "ack", "payload", "retransmit", "cwnd_bytes"]
    assert res.trace["event"].iloc[0] == "send" and res.trace["time_s"].is_monotonic_increasing
    assert set(res.trace["flow_id"]) == {0}
    back = Results.load(tmp_path / "t")
    assert back.trace is not None and len(back.trace) == len(res.trace)
    assert list(back.trace.columns) == list(res.trace.columns)
    with pytest.raises(dcnsim.ScenarioError, match=r"^output\.trace_flow:.*flow 999 does not"):
        dcnsim.validate(star_file, overrides=["output.trace_flow=999"])


def test_several_traced_flows_are_told_apart_by_flow_id(star_file, tmp_path):
    both = dcnsim.run(star_file, overrides={"output.trace_flow": [3, 1]}, out=tmp_path / "b")
    assert set(both.trace["flow_id"]) == {1, 3}
    for fid in (1, 3):
        alone = dcnsim.run(star_file, overrides={"output.trace_flow": fid}).trace
        own = both.trace[both.trace["flow_id"] == fid].reset_index(drop=True)
        pd.testing.assert_frame_equal(own, alone)
    on_disk = Results.load(tmp_path / "b").trace
    assert list(on_disk["flow_id"]) == list(both.trace["flow_id"])
    assert dcnsim.run(star_file, overrides={"output.trace_flow": []}).trace is None
    with pytest.raises(dcnsim.ScenarioError, match=r"^output\.trace_flow:.*flow 1 is listed twice"):
        dcnsim.validate(star_file, overrides={"output.trace_flow": [1, 1]})


def test_paths_come_back_as_a_frame_and_a_file(star_file, tmp_path):
    off = dcnsim.run(star_file, out=tmp_path / "off")
    assert off.paths is None and not (tmp_path / "off" / "paths.csv").exists()
    res = dcnsim.run(star_file, out=tmp_path / "p", overrides=["output.paths=true"])
    p = res.paths
    assert list(p.columns) == ["flow_id", "hop", "port", "node", "peer", "packets"]
    # On a star every flow that ran crosses its source's NIC, then the switch's port to its
    # destination, with all its data packets (tiny star: a few drops at most).
    flows = res.flows.set_index("flow_id")
    for fid, rows in p.groupby("flow_id"):
        f = flows.loc[fid]
        assert list(rows.hop) == [0, 1]
        assert list(rows.node) == [f"h{f.src}", "sw"] and list(rows.peer) == ["sw", f"h{f.dst}"]
        assert rows.packets.iloc[0] >= f.data_packets - f.retransmits
    assert p.flow_id.nunique() == 30
    back = Results.load(tmp_path / "p")
    assert back.paths.equals(p)
    fluid = dcnsim.run(star_file, overrides=["engine=flow", "output.paths=true"])
    assert fluid.paths.packets.isna().all()
    assert fluid.paths[["flow_id", "hop", "port"]].equals(p[["flow_id", "hop", "port"]])


def test_a_drifted_load_is_reported_and_warned_on_stderr(star_file, capsys):
    # 30 web-search flows: their realised load is far from the nominal 0.3.
    res = dcnsim.run(star_file)
    load = res.summary["load"]
    assert load["nominal"] == 0.3
    assert abs(load["drift"]) > 0.05 and abs(load["realised"] / 0.3 - 1 - load["drift"]) < 1e-12
    assert len(load["host_uplink"]) == len(load["host_downlink"]) == 4
    most = load["most_loaded"]
    side = "host_uplink" if most["direction"] == "uplink" else "host_downlink"
    assert most["load"] == max(load["host_uplink"] + load["host_downlink"]) == load[side][most["host"]]
    assert f"h{most['host']}" in most["link"].split("->")
    warned = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("warning:")]
    assert warned == [f"warning: {w}" for w in res.summary["warnings"]]
    assert len(warned) == 1 and "workload.load = 0.3" in warned[0]


def test_flows_after_stop_s_are_counted_as_not_started(star_file):
    from dcnsim.tables import summary_table

    res = dcnsim.run(star_file, overrides=["stop_s=0.002"])
    f = res.summary["flows"]
    assert f["unstarted"] > 0 and f["unfinished"] > 0
    assert f["finished"] + f["unfinished"] + f["unstarted"] == f["total"] == 30
    assert (res.flows["start_s"] > 0.002).sum() == f["unstarted"]
    assert f"({f['unfinished']} unfinished, {f['unstarted']} not started)" in summary_table(res.summary)


def test_overrides_may_be_a_dict_with_typed_values(star_file):
    """A dict of overrides acts as the same --set strings, each value keeping its type."""
    as_dict = dcnsim.run(star_file, overrides={"transport.protocol": "tcp", "workload.load": 0.3,
                                               "seed": 7})
    as_strings = dcnsim.run(star_file, overrides=["transport.protocol=tcp", "workload.load=0.3",
                                                  "seed=7"])
    assert as_dict.scenario == as_strings.scenario
    assert (as_dict.scenario["transport"]["protocol"], as_dict.scenario["seed"]) == ("tcp", 7)
    assert as_dict.flows.equals(as_strings.flows)
    with pytest.raises(dcnsim.ScenarioError, match="workload.load"):
        dcnsim.run(star_file, overrides={"workload.load": "0.3"})  # text, not a number
    with pytest.raises(dcnsim.ScenarioError, match="workload.load"):
        dcnsim.run(star_file, overrides={"workload.load": float("nan")})
    with pytest.raises(dcnsim.ScenarioError, match="workload.load"):
        dcnsim.run(star_file, overrides={"workload.load": None})
