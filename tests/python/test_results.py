"""Results: DataFrames from the core's columns, and reading a result directory back."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import dcnsim
from dcnsim.results import FLOW_COLUMNS, Results, deadline_flags


def test_flows_columns_and_dtypes(fake_core, star_file):
    res = dcnsim.run(star_file)
    assert list(res.flows.columns) == list(FLOW_COLUMNS)
    for col, dtype in FLOW_COLUMNS.items():
        assert str(res.flows[col].dtype) == dtype, col
    no_deadline = res.flows["deadline_s"].isna()
    assert res.flows["met_deadline"][no_deadline].isna().all()
    assert res.flows["met_deadline"][~no_deadline].notna().all()
    unfinished = res.flows["finish_s"].isna()
    assert unfinished.sum() == res.summary["flows"]["unfinished"] == 1
    assert res.flows["fct_s"][unfinished].isna().all()
    assert len(res.finished) == res.summary["flows"]["finished"]
    assert res.series is None
    assert res.scenario["workload"]["flows"] == 30 and res.scenario["seed"] == 7


def test_dict_scenario_is_sent_as_json_relative_to_cwd(fake_core, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    seen = {}
    real_run = fake_core.run

    def spy(text, fmt, base_dir, *rest, **kw):
        seen.update(fmt=fmt, base_dir=base_dir)
        return real_run(text, fmt, base_dir, *rest, **kw)

    fake_core.run = spy
    res = dcnsim.run(
        {"topology": {"kind": "star", "hosts": 4}, "workload": {"kind": "poisson", "flows": 12}},
        overrides=["seed=3"],
    )
    assert seen == {"fmt": "json", "base_dir": str(tmp_path)}
    assert len(res.flows) == 12 and res.summary["seed"] == 3


def test_validate_returns_resolved_dict(fake_core, star_file):
    s = dcnsim.validate(star_file, overrides=["transport.protocol=tcp"])
    assert s["transport"]["protocol"] == "tcp" and s["routing"]["lb"] == "ecmp"


def test_scenario_error_is_reexported(fake_core, star_file):
    with pytest.raises(dcnsim.ScenarioError, match=r"^topology\.colour:"):
        dcnsim.run(star_file, overrides=["topology.colour=1"])
    assert issubclass(dcnsim.ScenarioError, ValueError)


def test_load_round_trip(fake_core, star_file, tmp_path):
    res = dcnsim.run(
        star_file, out=tmp_path / "r", overrides=["output.series_interval_us=100"]
    )
    back = Results.load(tmp_path / "r")
    pd.testing.assert_frame_equal(back.flows, res.flows, check_exact=False, rtol=1e-12)
    assert back.summary == res.summary
    assert back.scenario == res.scenario
    assert back.series is not None and res.series is not None
    assert list(back.series.columns) == ["time_s", "kind", "id", "value"]
    pd.testing.assert_frame_equal(back.series, res.series, check_dtype=False)


def test_load_accepts_text_encodings_of_missing_values(tmp_path):
    (tmp_path / "flows.csv").write_text(
        "flow_id,src,dst,size_bytes,start_s,finish_s,fct_s,ideal_fct_s,slowdown,deadline_s,"
        "met_deadline,retransmits,timeouts,bytes_delivered\n"
        "0,0,1,1000,0.0,0.001,0.001,0.0005,2.0,0.002,true,0,0,1000\n"
        "1,1,2,2000,0.0,NaN,NaN,0.0005,NaN,0.001,false,1,1,500\n"
        "2,2,3,3000,0.0,0.002,0.002,0.0005,4.0,NaN,,0,0,3000\n"
    )
    (tmp_path / "summary.json").write_text(json.dumps({"flows": {"total": 3}}))
    res = Results.load(tmp_path)
    assert res.flows["met_deadline"].tolist() == [True, False, pd.NA]
    assert np.isnan(res.flows["finish_s"][1])
    assert res.scenario is None and res.series is None


def test_load_refuses_a_folder_without_flows(tmp_path):
    with pytest.raises(FileNotFoundError, match="flows.csv"):
        Results.load(tmp_path)


def test_deadline_flags_from_floats():
    flags = deadline_flags(np.array([1.0, 0.0, np.nan]))
    assert str(flags.dtype) == "boolean"
    assert flags.tolist() == [True, False, pd.NA]
