"""What a sweep leaves in its folder, and reading it back: the file names, the grid keys, and
one row per point with its flattened summary.

Below both :mod:`dcnsim.sweep`, which writes the folder, and :mod:`dcnsim.results`, which
reads every point's flows of it (:meth:`~dcnsim.results.Results.sweep_flows`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # imported where used, so that ``import dcnsim`` stays quick
    import pandas as pd

#: The file beside the point folders that lists the sweep (grid, points) and their summaries.
SWEEP_JSON, SUMMARIES_CSV, FAILURES_JSON, POINT_JSON = (
    "sweep.json", "summaries.csv", "failures.json", "point.json",
)


class NamedPoint(Protocol):
    """A point as :func:`collect` needs it (a :class:`dcnsim.sweep.Point` is one)."""

    name: str
    values: Mapping[str, Any]


def flatten_summary(summary: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """The summary as flat columns: ``fct_s.p99``, ``flows.total``; size classes become
    ``by_size.<class>.<field>``; other lists are left out."""
    flat: dict[str, Any] = {}
    for k, v in summary.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            flat.update(flatten_summary(v, key + "."))
        elif isinstance(v, list):
            if all(isinstance(x, Mapping) and "class" in x for x in v):
                for x in v:
                    rest = {f: y for f, y in x.items() if f != "class"}
                    flat.update(flatten_summary(rest, f"{key}.{x['class']}."))
        else:
            flat[key] = v
    return flat


def grid_keys(out: str | os.PathLike[str]) -> list[str]:
    """The grid keys of the sweep in ``out``, in grid order, from its sweep.json."""
    path = Path(out) / SWEEP_JSON
    if not path.is_file():
        raise FileNotFoundError(f"{out}: no {SWEEP_JSON}, not a sweep folder")
    return list(json.loads(path.read_text(encoding="utf-8"))["grid"])


def collect(out: str | os.PathLike[str], points: Sequence[NamedPoint] | None = None) -> pd.DataFrame:
    """One row per point of the sweep in ``out``: ``point``, the grid columns, ``status``
    (``ok`` / ``failed`` / ``missing``), ``error``, then the flattened summary.

    Without ``points``, the sweep's own sweep.json says which points there are.
    """
    import pandas as pd

    out = Path(out)
    if points is None:
        meta = json.loads((out / SWEEP_JSON).read_text(encoding="utf-8"))
        entries = [(p["name"], p["grid"]) for p in meta["points"]]
    else:
        entries = [(p.name, p.values) for p in points]
    errors = {}
    if (out / FAILURES_JSON).is_file():
        errors = {f["point"]: f["error"]
                  for f in json.loads((out / FAILURES_JSON).read_text(encoding="utf-8"))}
    rows = []
    for name, values in entries:
        row: dict[str, Any] = {"point": name, **values}
        summary_file = out / name / "summary.json"
        if summary_file.is_file() and name not in errors:
            row["status"], row["error"] = "ok", None
            summary = json.loads(summary_file.read_text(encoding="utf-8"))
            for k, v in flatten_summary(summary).items():
                row.setdefault(k, v)
        else:
            row["status"] = "failed" if name in errors else "missing"
            row["error"] = errors.get(name)
        rows.append(row)
    return pd.DataFrame(rows)
