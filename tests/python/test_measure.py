"""The measures the papers share (:mod:`dcnsim.experiments.measure`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dcnsim.experiments import measure
from dcnsim.experiments.figure import Runs

NAMED = {"tcp": {"protocol": "tcp"}, "d3": {"protocol": "d3", "d3_rate_unit_mbps": 8}}


def test_label_is_the_name_of_the_whole_table():
    assert measure.label({"protocol": "d3", "d3_rate_unit_mbps": 8}, NAMED) == "d3"
    with pytest.raises(KeyError, match="no label for routing"):
        measure.label({"protocol": "d3"}, NAMED, "routing")  # a part of a table is not it


def test_per_point_has_a_row_per_finished_point_and_skips_none():
    summaries = pd.DataFrame({"point": ["a", "b", "c"], "status": ["ok", "failed", "ok"],
                              "seed": [1, 2, 3]})
    runs = Runs("unused", summaries)
    frame = measure.per_point(runs, lambda p: None if p["seed"] == 3 else {"seed": p["seed"]},
                              ["seed", "x"])
    assert list(frame.columns) == ["seed", "x"]
    assert frame["seed"].tolist() == [1] and frame["x"].isna().all()


def test_seed_means_average_the_other_columns_per_key():
    frame = pd.DataFrame({"label": ["a", "a", "b"], "x": [1, 1, 1], "seed": [1, 2, 1],
                          "part": ["p", "p", "p"], "fct": [1.0, 3.0, 5.0]})
    means = measure.seed_means(frame, ["label", "x"], drop=("seed", "part"))
    assert means.to_dict("list") == {"label": ["a", "b"], "x": [1, 1], "fct": [2.0, 5.0]}
    wide = measure.wide(means, "fct", x="x", by="label")
    assert wide.loc[1].to_dict() == {"a": 2.0, "b": 5.0}


def test_shares_rises_and_falls():
    steps = pd.Series([1.0, 2.0, 1.5, 3.0], index=[0.1, 0.2, 0.3, 0.4])
    assert measure.rises(steps) == 2 / 3
    assert measure.falls(steps) == 1 / 3
    # the steps are taken in x order, whatever the row order
    assert measure.rises(steps.iloc[::-1]) == 2 / 3
    assert np.isnan(measure.share(pd.Series([], dtype=bool)))
