"""Every scenario in examples/ runs as it is, through the CLI, and writes its result files."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from dcnsim.cli import cli
from conftest import real_core_available

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.toml"))

pytestmark = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)


def test_there_is_an_example_per_topology_kind():
    import dcnsim

    kinds = {tomllib.loads(f.read_text())["topology"]["kind"] for f in EXAMPLES}
    missing = {name for name, _ in dcnsim.catalog()["topologies"]} - kinds
    assert not missing, f"no example for {missing}"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_as_it_is(example, tmp_path):
    out = tmp_path / example.stem
    r = CliRunner().invoke(cli, ["run", str(example), "--out", str(out), "--quiet"])
    assert r.exit_code == 0, r.output
    flows = pd.read_csv(out / "flows.csv")
    assert len(flows) > 0
    assert (flows["bytes_delivered"] > 0).all(), "a flow delivered nothing"
