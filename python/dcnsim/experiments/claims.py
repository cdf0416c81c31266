"""The paper's reported numbers, and the verdict on each.

``data/<paper>.csv`` holds one row per number a paper reports, with columns

    figure, metric, x, protocol, value, tolerance, source[, note]

``source`` is the sentence of the paper the number comes from (quoted, with the PDF's
mathematical typesetting written out), ``x`` is the value on the figure's x axis (a load, a
flow name; empty when none), ``tolerance`` the relative gap allowed (empty: the default),
and the optional ``note`` our remark on the claim (why it differs, when we know).

``data/metrics/<paper>.csv`` (columns ``figure, metric``) lists every metric each figure's
measure reports: the names a claim may use. A claim naming any other metric is a misspelling,
and so is a measure reporting one: :class:`UnknownMetric` says which and lists the valid ones,
rather than the claim reading as not measured.

The rule: a claim is **reproduced** when ``|ours − paper| ≤ tolerance × |paper|`` (for a
paper value of 0: ``|ours| ≤ tolerance``, absolute); otherwise it **differs**, and the gap
and ratio ours / paper are shown. A claim of a listed metric the run has no number for (a
point a ``--quick`` run leaves out, a point that failed) is **not measured**. The default
tolerance is :data:`DEFAULT_TOLERANCE`:
a different simulator, random workload and finite runs cannot match a paper's curve exactly,
but a quarter off is a different result. Worked examples computed exactly use 1e-9.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from importlib import resources

import numpy as np
import pandas as pd

#: Relative gap allowed when a claim gives no tolerance of its own.
DEFAULT_TOLERANCE = 0.25

CLAIM_COLUMNS = ["figure", "metric", "x", "protocol", "value", "tolerance", "source", "note"]
VERDICTS = ("reproduced", "differs", "not measured")
#: Columns of the comparison :func:`compare` returns (a run's ``comparison.csv``).
COMPARISON_COLUMNS = ["figure", "metric", "x", "protocol", "paper", "ours", "ratio", "gap",
                      "tolerance", "verdict", "source", "note"]


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


class UnknownMetric(KeyError):
    """A metric name that the figure's measure does not report (a misspelling)."""

    def __str__(self) -> str:
        return str(self.args[0])


def load_metrics(paper: str) -> dict[str, frozenset[str]]:
    """The metrics each figure of ``paper`` reports (data/metrics/<paper>.csv), by figure id;
    empty if the paper lists none."""
    res = resources.files("dcnsim.experiments") / "data" / "metrics" / f"{paper}.csv"
    if not res.is_file():
        return {}
    with resources.as_file(res) as path:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    return {fig: frozenset(g["metric"]) for fig, g in frame.groupby("figure")}


def check_metrics(figure: str, names: Iterable[str], known: Collection[str], what: str) -> None:
    """Raises :class:`UnknownMetric` if one of ``names`` (what ``what`` names) is not among the
    ``known`` metrics of ``figure``."""
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise UnknownMetric(
            f"{figure}: {what} {', '.join(map(repr, unknown))}, not a metric the figure "
            f"reports (data/metrics/); valid: {', '.join(sorted(known)) or 'none'}")


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


def compare(ours: pd.DataFrame, claims: pd.DataFrame, known: Collection[str]) -> pd.DataFrame:
    """One row per claim: the paper's value, ours, ratio ours / paper, gap, verdict, source.
    A measure row may carry a ``note`` of its own (how this run's number was read); it goes
    before the claim's note. ``known`` are the metrics the figure reports: a claim or a row
    of ours naming another raises :class:`UnknownMetric`; a known metric ours has no number
    for is not measured."""
    figures = ", ".join(sorted(set(claims["figure"]) | set(ours.get("figure", ())))) or "?"
    check_metrics(figures, claims["metric"], known, "claims name")
    check_metrics(figures, ours["metric"], known, "the measure reports")
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
    return table[COMPARISON_COLUMNS]
