"""Bad input is refused by the real core: a message naming the key or line, exit code 2, and no
output directory. One case per kind of mistake the README promises to catch."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from dcnsim.cli import cli
from conftest import real_core_available

pytestmark = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)

BASE = """\
seed = 1
[topology]
kind = "star"
hosts = 4
[transport]
protocol = "tcp"
[workload]
kind = "flows"
file = "flows.csv"
"""

GOOD_FLOWS = "src,dst,size_bytes,start_s\n0,1,1000,0\n2,3,5000,0.001\n"

CASES = {
    # name: (overrides, flow file text, what the message must start with or contain)
    "unknown key": (["transport.colour=3"], GOOD_FLOWS, "transport.colour:"),
    "wrong type": (["topology.hosts=\"four\""], GOOD_FLOWS, "topology.hosts:"),
    "unknown protocol": (["transport.protocol=quic"], GOOD_FLOWS, "transport.protocol:"),
    "unknown topology": (["topology.kind=torus"], GOOD_FLOWS, "topology.kind:"),
    "negative rate": (["topology.link_gbps=-10"], GOOD_FLOWS, "topology.link_gbps:"),
    "bad flow line": ([], "src,dst,size_bytes,start_s\n0,1,1000,0\n1,2,lots,0\n", "line 3"),
    "host out of range": ([], "src,dst,size_bytes,start_s\n0,9,1000,0\n", "line 2"),
    "path choice for another topology": (["routing.lb=bcube_paths"], GOOD_FLOWS, "routing.lb:"),
    "per-packet path choice under a transport with per-flow switch state": (
        ["transport.protocol=pdq", "routing.lb=rps"], GOOD_FLOWS, "routing.lb: 'rps' moves"),
    "marking threshold above the buffer": (
        ["transport.protocol=dctcp", "topology.ecn_k_pkts=200"], GOOD_FLOWS, "topology.ecn_k_pkts:"),
    "marking threshold in its old place": (
        ["transport.ecn_k_pkts=20"], GOOD_FLOWS, "transport.ecn_k_pkts: has moved"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_exits_2_names_the_place_and_writes_nothing(case, tmp_path):
    overrides, flows, where = CASES[case]
    (tmp_path / "s.toml").write_text(BASE)
    (tmp_path / "flows.csv").write_text(flows)
    out = tmp_path / "out"
    args = ["run", str(tmp_path / "s.toml"), "--out", str(out), "--quiet"]
    for o in overrides:
        args += ["--set", o]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: "), r.stderr
    assert where in r.stderr, r.stderr
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [], "temporary files left"


def test_the_good_base_runs(tmp_path):
    (tmp_path / "s.toml").write_text(BASE)
    (tmp_path / "flows.csv").write_text(GOOD_FLOWS)
    r = CliRunner().invoke(cli, ["run", str(tmp_path / "s.toml"), "--out", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "out" / "flows.csv").read_text().count("\n") == 3
