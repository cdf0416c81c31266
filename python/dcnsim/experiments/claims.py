"""The paper's reported numbers, and the verdict on each.

``data/<paper>.csv`` holds one row per number a paper reports, with columns

    figure, metric, x, protocol, value, tolerance, source[, note]

``source`` is the sentence of the paper the number comes from (quoted, with the PDF's
mathematical typesetting written out), ``x`` is the value on the figure's x axis (a load, a
flow name; empty when none), ``tolerance`` the relative gap allowed (empty: the default),
and the optional ``note`` our remark on the claim (why it differs, when we know).

The rule: a claim is **reproduced** when ``|ours − paper| ≤ tolerance × |paper|`` (for a
paper value of 0: ``|ours| ≤ tolerance``, absolute); otherwise it **differs**, and the gap
and ratio ours / paper are shown. A claim the run has no number for (a point a ``--quick``
run leaves out, or a number the figure does not produce) is **not measured**. The default tolerance is :data:`DEFAULT_TOLERANCE`:
a different simulator, random workload and finite runs cannot match a paper's curve exactly,
but a quarter off is a different result. Worked examples computed exactly use 1e-9.
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

#: Relative gap allowed when a claim gives no tolerance of its own.
DEFAULT_TOLERANCE = 0.25

CLAIM_COLUMNS = ["figure", "metric", "x", "protocol", "value", "tolerance", "source", "note"]
VERDICTS = ("reproduced", "differs", "not measured")


def x_key(x) -> str:
    """The x value as the text both tables are joined on: ``0.6`` and ``"0.6"`` alike."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return ""
    if isinstance(x, (int, float, np.integer, np.floating)):
        return f"{float(x):g}"
    text = str(x).strip()
    try:
        return f"{float(text):g}"
    except ValueError:
        return text


def load_claims(paper: str) -> pd.DataFrame:
    """The claims of ``paper`` (data/<paper>.csv shipped in the package); empty if none."""
    res = resources.files("dcnsim.experiments") / "data" / f"{paper}.csv"
    if not res.is_file():
        return pd.DataFrame(columns=CLAIM_COLUMNS)
    with resources.as_file(res) as path:
        frame = pd.read_csv(path, dtype={"x": str, "figure": str, "metric": str,
                                         "protocol": str, "source": str, "note": str},
                            keep_default_na=False)
    if "note" not in frame.columns:
        frame["note"] = ""
    missing = set(CLAIM_COLUMNS) - set(frame.columns)
    if missing:
        raise ValueError(f"data/{paper}.csv: missing columns {sorted(missing)}")
    frame["value"] = frame["value"].astype(float)
    frame["tolerance"] = pd.to_numeric(frame["tolerance"].replace("", np.nan)).fillna(
        DEFAULT_TOLERANCE)
    frame["x"] = frame["x"].map(x_key)
    return frame[CLAIM_COLUMNS]


def verdict(ours: float, paper: float, tolerance: float) -> str:
    if ours is None or not np.isfinite(ours):
        return "not measured"
    allowed = tolerance * abs(paper) if paper != 0 else tolerance
    return "reproduced" if abs(ours - paper) <= allowed else "differs"


def compare(ours: pd.DataFrame, claims: pd.DataFrame) -> pd.DataFrame:
    """One row per claim: the paper's value, ours, ratio ours / paper, gap, verdict, source.
    A measure row may carry a ``note`` of its own (how this run's number was read); it goes
    before the claim's note."""
    key = ["figure", "metric", "x", "protocol"]
    o = ours.assign(x=ours["x"].map(x_key)).rename(columns={"value": "ours", "note": "ours_note"})
    o = o[key + ["ours"] + (["ours_note"] if "ours_note" in o.columns else [])]
    table = claims.rename(columns={"value": "paper"}).merge(o, on=key, how="left")
    if "ours_note" in table.columns:
        table["note"] = [" ".join(part for part in (mine, theirs) if isinstance(part, str) and part)
                         for mine, theirs in zip(table["ours_note"], table["note"])]
    table["ratio"] = np.where(table["paper"] != 0, table["ours"] / table["paper"].replace(0, np.nan),
                              np.nan)
    table["gap"] = table["ours"] - table["paper"]
    table["verdict"] = [verdict(a, b, t) for a, b, t in
                        zip(table["ours"], table["paper"], table["tolerance"])]
    return table[key + ["paper", "ours", "ratio", "gap", "tolerance", "verdict", "source", "note"]]
