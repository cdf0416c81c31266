"""The flow-level model (``engine = "flow"``) through the Python API and the CLI, on the real
compiled core. Skipped until crates/dcnsim-py is built."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import dcnsim
from dcnsim.cli import cli
from conftest import real_core_available

pytestmark = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)

# Three equal flows into host 0 of a 10 Gb/s star, all at t = 0: max-min gives each a third of
# host 0's link, so all three end together after 3 W / C of fluid time (W = wire bits), i.e. at
# 2 W / C past a lone flow's ideal FCT.
SIZE = 1_000_000
WIRE_BITS = (SIZE + 40 * -(-SIZE // 1460)) * 8  # DCTCP: 1460-byte segments, 40-byte headers
FLOWS = "src,dst,size_bytes,start_s\n1,0,{s},0\n2,0,{s},0\n3,0,{s},0\n".format(s=SIZE)
SCENARIO = {
    "engine": "flow",
    "topology": {"kind": "star", "hosts": 4, "link_gbps": 10, "link_delay_us": 1},
    "transport": {"protocol": "dctcp"},
    "workload": {"kind": "flows", "file": "flows.csv"},
}


def expected_fct_minus_ideal() -> float:
    return 2 * WIRE_BITS / 10e9


def test_python_api_runs_the_flow_engine(tmp_path, monkeypatch):
    (tmp_path / "flows.csv").write_text(FLOWS)
    monkeypatch.chdir(tmp_path)
    res = dcnsim.run(SCENARIO)
    f = res.flows
    assert len(f) == 3 and f["finish_s"].notna().all()
    extra = f["fct_s"] - f["ideal_fct_s"]
    assert extra.sub(expected_fct_minus_ideal()).abs().max() < 1e-11
    # Packet-only columns are zero in the fluid model.
    assert (f["retransmits"] == 0).all()


def test_cli_runs_the_flow_engine(tmp_path):
    (tmp_path / "flows.csv").write_text(FLOWS)
    toml = tmp_path / "s.toml"
    toml.write_text(
        'engine = "flow"\n[topology]\nkind = "star"\nhosts = 4\nlink_gbps = 10\n'
        'link_delay_us = 1\n[transport]\nprotocol = "dctcp"\n'
        '[workload]\nkind = "flows"\nfile = "flows.csv"\n'
    )
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(toml), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads((out / "scenario.json").read_text())["engine"] == "flow"
    rows = (out / "flows.csv").read_text().splitlines()
    assert len(rows) == 4


def test_unknown_engine_is_a_scenario_error():
    bad = dict(SCENARIO, engine="fluid")
    with pytest.raises(dcnsim.ScenarioError, match="engine"):
        dcnsim.run(bad)
